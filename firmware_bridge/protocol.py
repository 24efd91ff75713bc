"""GTP/1, the Goldtable wire protocol (docs/protocol.md): framing, checksums, parsing, seq/ACK rules.

Framing and meaning are kept apart: `FrameParser` turns a byte stream into `Frame`s and `Rejection`s
(it never raises on input and resynchronises at the next `$`), `DeviceLink` applies the seq/answer
rules for one device (an event frame is answered only once the app has settled it: ACK = recorded,
NAK = refused), and `frame_to_event` gives a frame its meaning as a `BridgeEvent`.

The parser is on the hot path of every serial byte, so frames are plain named tuples and the checksum
is folded over a big integer instead of looping byte by byte (see benchmarks/bench_bridge_parser.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from firmware_bridge.events import (
    FACE_TOKENS,
    BeepCommand,
    BridgeEvent,
    ButtonEvent,
    LedCommand,
    OutputCommand,
    RejectedEvent,
    RollEvent,
    RollingEvent,
    StatusEvent,
    TimerEvent,
)

PROTOCOL = "GTP1"
#: Longest line on the wire, CR LF included.
MAX_LINE = 82
SEQ_LIMIT = 65536
MAX_BEEP_MS = 10000

DEVICE_KINDS = frozenset({"HELLO", "ROLL", "ROLLING", "BTN", "TIMER", "HB"})
#: Device frames that carry something for the table: answered only when the app settles them.
EVENT_KINDS = frozenset({"ROLL", "ROLLING", "BTN", "TIMER"})
HOST_KINDS = frozenset({"ACK", "NAK", "LED", "BEEP"})
#: The reason code of a NAK when the app gives none.
DEFAULT_REFUSAL = "refused"

_NAME = re.compile(r"[A-Za-z0-9_-]{1,16}\Z")
_VERSION = re.compile(r"[A-Za-z0-9._+-]{1,16}\Z")
_REASON = re.compile(r"[A-Za-z0-9._-]{1,32}\Z")
_HEX_VALUE = {b"%02X" % value: value for value in range(256)}
_BUTTON_ACTIONS = {"DOWN": "down", "UP": "up", "HELD": "held"}
_TIMER_STATES = {"FLIP": "flip", "FLAT": "flat"}
_LED_MODES = {"ON": "on", "OFF": "off", "BLINK": "blink"}


class Frame(NamedTuple):
    """One accepted line.  `fields` are the fields after the type and, if the type has one, the seq."""

    kind: str
    seq: int | None
    fields: tuple[str, ...]
    raw: bytes


class Rejection(NamedTuple):
    """One refused line (or run of noise) and why."""

    reason: str
    raw: bytes


_MASK_512 = (1 << 512) - 1
_MASK_256 = (1 << 256) - 1
_MASK_128 = (1 << 128) - 1


def checksum(body: bytes) -> int:
    """XOR of every byte of `body` (the bytes between `$` and `*`).

    Folding the bytes as one integer (high half XOR low half, until one byte is left) does the work in a
    handful of big-int operations instead of one Python step per byte.  `FrameParser` inlines the same
    folds, unrolled for the at most 76 bytes a frame body can have.
    """
    x = int.from_bytes(body, "little")
    shift = 8 * len(body)
    while shift > 8:
        shift = (shift + 15) // 16 * 8  # half the bytes, rounded up
        x = (x & ((1 << shift) - 1)) ^ (x >> shift)
    return x


def encode_frame(kind: str, *fields: str | int) -> bytes:
    """`$KIND,f1,f2*HH\\r\\n`.  Raises ValueError for a line that would break the framing rules."""
    body = ",".join((kind, *(str(field) for field in fields))).encode("ascii")
    if any(ch in body for ch in b"$*\r\n"):
        raise ValueError(f"frame body may not contain $, *, CR or LF: {body!r}")
    line = b"$%s*%02X\r\n" % (body, checksum(body))
    if len(line) > MAX_LINE:
        raise ValueError(f"frame is {len(line)} bytes, longer than {MAX_LINE}: {line!r}")
    return line


def encode_ack(seq: int) -> bytes:
    """`$ACK,<seq>`: the frame is recorded (or needed no record)."""
    return encode_frame("ACK", seq)


def nak_reason(reason: str | None) -> str:
    """The reason code a NAK carries: `reason` when it fits the wire, `refused` for None; else ValueError
    (checked when the app settles, so a bad code fails in the caller, not silently on a reader thread)."""
    if reason is None:
        return DEFAULT_REFUSAL
    if not _REASON.match(reason):
        raise ValueError(f"a refusal reason is 1-32 characters from A-Z a-z 0-9 . _ -, not {reason!r}")
    return reason


def encode_nak(seq: int, reason: str | None = None) -> bytes:
    """`$NAK,<seq>,<reason>`: the frame was refused and is not recorded; the device drops it."""
    return encode_frame("NAK", seq, nak_reason(reason))


def encode_command(command: OutputCommand) -> bytes:
    """The host frame for an output command (`$LED,seat1,BLINK*..` or `$BEEP,200*..`)."""
    if isinstance(command, LedCommand):
        return encode_frame("LED", command.name, command.mode.upper())
    if isinstance(command, BeepCommand):
        return encode_frame("BEEP", command.ms)
    raise TypeError(f"not an output command: {command!r}")


# --- field validation: each returns a Frame or the reason string for a Rejection -------------------

def _seq(text: str) -> int | None:
    if 0 < len(text) <= 5 and text.isdigit():
        value = int(text)
        if value < SEQ_LIMIT:
            return value
    return None


def _parse_hello(parts: list[str], raw: bytes) -> Frame | str:
    if len(parts) != 4:
        return "HELLO needs 3 fields"
    if not _NAME.match(parts[1]):
        return "HELLO: bad device id"
    if not _VERSION.match(parts[2]):
        return "HELLO: bad firmware version"
    if parts[3] != PROTOCOL:
        return f"HELLO: unsupported protocol {parts[3]!r}"
    return Frame("HELLO", None, (parts[1], parts[2], parts[3]), raw)


def _parse_roll(parts: list[str], raw: bytes) -> Frame | str:
    if len(parts) < 3:
        return "ROLL needs a seq and at least one value"
    seq = _seq(parts[1])
    if seq is None:
        return "ROLL: bad seq"
    values = tuple(parts[2:])
    if not FACE_TOKENS.issuperset(values):
        return "ROLL: bad value"
    return Frame("ROLL", seq, values, raw)


#: A field's check: a test that is true for a good field, and what is wrong with a field it fails.
FieldCheck = tuple[Callable[[str], object], str]


def _fixed(kind: str, with_seq: bool, *checks: FieldCheck) -> Callable[[list[str], bytes], Frame | str]:
    """The parser of a frame with a fixed number of fields: the seq first if `with_seq`, then one field
    per check.  One place for the count, the seq and each field's rule, however many kinds there are."""
    count = int(with_seq) + len(checks)
    wrong_count = (f"{kind} needs exactly a seq" if with_seq and not checks
                   else f"{kind} needs {count} field{'s' if count != 1 else ''}")

    def parse(parts: list[str], raw: bytes) -> Frame | str:
        if len(parts) != count + 1:
            return wrong_count
        seq = None
        if with_seq:
            seq = _seq(parts[1])
            if seq is None:
                return f"{kind}: bad seq"
        fields = tuple(parts[1 + with_seq:])
        for (good, problem), field in zip(checks, fields):
            if not good(field):
                return f"{kind}: {problem}"
        return Frame(kind, seq, fields, raw)

    return parse


def _uptime(text: str) -> bool:
    return 0 < len(text) <= 10 and text.isdigit()


def _beep_ms(text: str) -> bool:
    return 0 < len(text) <= 5 and text.isdigit() and 1 <= int(text) <= MAX_BEEP_MS


_PARSERS: dict[str, Callable[[list[str], bytes], Frame | str]] = {
    "HELLO": _parse_hello,
    "ROLL": _parse_roll,
    "ROLLING": _fixed("ROLLING", True),
    "BTN": _fixed("BTN", True, (_NAME.match, "bad name"),
                  (_BUTTON_ACTIONS.__contains__, "action must be DOWN, UP or HELD")),
    "TIMER": _fixed("TIMER", True, (_TIMER_STATES.__contains__, "state must be FLIP or FLAT")),
    "HB": _fixed("HB", True, (_uptime, "bad uptime")),
    "ACK": _fixed("ACK", True),
    "NAK": _fixed("NAK", True, (_REASON.match, "bad reason")),
    "LED": _fixed("LED", False, (_NAME.match, "bad name"),
                  (_LED_MODES.__contains__, "mode must be ON, OFF or BLINK")),
    "BEEP": _fixed("BEEP", False, (_beep_ms, f"ms must be 1..{MAX_BEEP_MS}")),
}


class FrameParser:
    """Byte stream in, frames and rejections out.  Never raises on input; keeps at most one line.

    A line is split at LF (a CR before it is dropped).  The frame starts at the line's *last* `$`, so a
    frame glued to noise or to a frame whose line end was lost is still recovered; the noise before it
    is reported as a rejection.  A line that grows past `MAX_LINE` without an LF is cut back to its
    last `$`, so a lost line end cannot swallow the frames that follow.
    """

    def __init__(self, kinds: frozenset[str] = DEVICE_KINDS) -> None:
        self._parsers = {kind: _PARSERS[kind] for kind in kinds}
        self._pending = b""
        self.frames = 0
        self.rejected = 0

    def feed(self, data: bytes) -> list[Frame | Rejection]:
        """Parse everything complete in `pending + data`; keep the unfinished tail for next time."""
        out: list[Frame | Rejection] = []
        if b"\n" not in data:
            self._pending += data
            if len(self._pending) > MAX_LINE:
                self._cut_runaway_line(out)
            return out
        lines = (self._pending + data).split(b"\n")
        pending = lines.pop()
        self._parse_lines(lines, out)
        self._pending = pending
        if len(pending) > MAX_LINE:
            self._cut_runaway_line(out)
        return out

    def _cut_runaway_line(self, out: list[Frame | Rejection]) -> None:
        pending = self._pending
        start = pending.rfind(b"$")
        keep = pending[start:] if start >= 0 and len(pending) - start <= MAX_LINE else b""
        self._reject("no line end within 82 bytes", pending[: len(pending) - len(keep)], out)
        self._pending = keep

    def _reject(self, reason: str, raw: bytes, out: list[Frame | Rejection]) -> None:
        self.rejected += 1
        out.append(Rejection(reason, raw))

    def _parse_lines(self, lines: list[bytes], out: list[Frame | Rejection]) -> None:
        """The hot loop: one pass per line, everything inline (a call per step costs more than the step)."""
        reject = self._reject
        hex_value = _HEX_VALUE.get
        parsers = self._parsers.get
        append = out.append
        frames = 0
        for raw in lines:
            line = raw
            start = line.rfind(b"$")
            if start != 0:
                if start < 0:
                    if line.strip():
                        reject("no $ at the start of a frame", line, out)
                    continue
                if line[:start].strip():
                    reject("noise before $", line[:start], out)
                line = line[start:]
            if line[-1:] == b"\r":
                line = line[:-1]
            size = len(line)
            if size > MAX_LINE - 2:
                reject("line longer than 82 bytes", line, out)
                continue
            if size < 5 or line[-3] != 42:  # 42 == ord("*")
                reject("no *HH checksum at the end", line, out)
                continue
            expected = hex_value(line[-2:])
            if expected is None:
                reject("checksum is not two upper-case hex digits", line, out)
                continue
            body = line[1:-3]
            if not body.isascii():
                reject("non-ASCII byte", line, out)
                continue
            # XOR of the body folded as one integer (see `checksum`); bodies are at most 76 bytes.
            x = int.from_bytes(body, "little")
            if x >> 512:
                x = (x & _MASK_512) ^ (x >> 512)
            if x >> 256:
                x = (x & _MASK_256) ^ (x >> 256)
            x = (x & _MASK_128) ^ (x >> 128)
            x = (x & 0xFFFFFFFFFFFFFFFF) ^ (x >> 64)
            x = (x & 0xFFFFFFFF) ^ (x >> 32)
            x = (x & 0xFFFF) ^ (x >> 16)
            if (x & 0xFF) ^ (x >> 8) != expected:
                reject("checksum mismatch", line, out)
                continue
            parts = body.decode("ascii").split(",")
            parse = parsers(parts[0])
            if parse is None:
                reject(f"unknown frame type {parts[0][:16]!r}", line, out)
                continue
            result = parse(parts, line)
            if result.__class__ is str:
                reject(result, line, out)
            else:
                frames += 1
                append(result)  # type: ignore[arg-type]
        self.frames += frames


class DeviceLink:
    """The host's seq/answer rules for one device (docs/protocol.md §5).

    An event frame (`EVENT_KINDS`) is delivered once and then waits for the app to settle it; only then
    is it answered, `$ACK` when recorded, `$NAK` when refused.  A resend of the frame last delivered is
    not delivered again: it gets the answer already given, or nothing while the app still decides.  Other
    frames with a seq (HB) need no decision and are ACKed at once.  HELLO means the device (re)started
    its numbering, so the remembered frame is forgotten.  The state survives reconnects of the port on
    purpose: a device that resends after a cable glitch must not have its frame delivered twice.
    """

    def __init__(self) -> None:
        self.last_seq: int | None = None
        self._answer: bytes | None = None
        self.duplicates = 0

    @property
    def pending(self) -> int | None:
        """The seq of the event frame delivered and not yet settled, or None."""
        return self.last_seq if self.last_seq is not None and self._answer is None else None

    def accept(self, frame: Frame) -> tuple[bytes | None, bool]:
        """(answer to send now or None, whether to deliver the frame)."""
        if frame.seq is None:
            if frame.kind == "HELLO":
                self.last_seq, self._answer = None, None
            return None, True
        if frame.seq == self.last_seq:
            self.duplicates += 1
            return self._answer, False
        self.last_seq = frame.seq
        self._answer = None if frame.kind in EVENT_KINDS else encode_ack(frame.seq)
        return self._answer, True

    def settle(self, seq: int, recorded: bool, reason: str | None = None) -> bytes | None:
        """The answer for the pending frame `seq` (kept for its resends), or None when `seq` is not the
        frame waiting (already answered, or the device has moved on: it no longer listens for it)."""
        answer = encode_ack(seq) if recorded else encode_nak(seq, reason)
        if seq != self.pending:
            return None
        self._answer = answer
        return answer


def frame_to_event(frame: Frame, source: str) -> BridgeEvent | None:
    """The event a device frame means; None for frames that only keep the link alive (HB)."""
    kind = frame.kind
    if kind == "ROLL":
        return RollEvent(source=source, seq=frame.seq, values=frame.fields)  # type: ignore[arg-type]
    if kind == "BTN":
        return ButtonEvent(source=source, seq=frame.seq, name=frame.fields[0],
                           action=_BUTTON_ACTIONS[frame.fields[1]])  # type: ignore[arg-type]
    if kind == "TIMER":
        return TimerEvent(source=source, seq=frame.seq,
                          state=_TIMER_STATES[frame.fields[0]])  # type: ignore[arg-type]
    if kind == "ROLLING":
        return RollingEvent(source=source, seq=frame.seq)
    if kind == "HELLO":
        return StatusEvent(source=source, state="hello", device=frame.fields[0], firmware=frame.fields[1])
    return None


def rejection_to_event(rejection: Rejection, source: str) -> RejectedEvent:
    """A rejection as an event; the bytes are escaped (`\\r`, `\\xff`) so the log stays printable."""
    text = rejection.raw[: MAX_LINE * 2].decode("latin-1").encode("unicode_escape").decode("ascii")
    return RejectedEvent(source=source, reason=rejection.reason, frame=text)


def command_from_frame(frame: Frame) -> OutputCommand:
    """The output command a host frame carries (the simulator and tests use this)."""
    if frame.kind == "LED":
        return LedCommand(name=frame.fields[0], mode=_LED_MODES[frame.fields[1]])  # type: ignore[arg-type]
    if frame.kind == "BEEP":
        return BeepCommand(ms=int(frame.fields[0]))
    raise ValueError(f"{frame.kind} is not an output command")
