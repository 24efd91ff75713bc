"""GTP/1 device side: framing, seq numbering, stop-and-wait resend, heartbeat and HELLO rules.

Runs unchanged on MicroPython (copied to the Pico as `gtp.py`) and on CPython (the simulator and the
tests import it as `firmware_bridge.firmware.gtp`).  Therefore: no f-strings, no dataclasses, no
imports but the guarded one of `typing` below; types in function annotations (MicroPython never
evaluates them), type comments on attributes and locals, and the one alias a plain string at run time.
Time is passed in as milliseconds by the caller so nothing here reads a clock.
"""
# ruff: noqa: UP031 — %-formatting on purpose: the oldest MicroPython builds have no f-strings

try:  # noqa: SIM105 — MicroPython has no contextlib
    from typing import Literal, TypeAlias
except ImportError:  # MicroPython has no typing module; the names are only read by type checkers and CPython
    pass

PROTOCOL = "GTP1"
MAX_LINE = 82
SEQ_LIMIT = 65536
FACES = "123456LBYRGWK0?"
NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
VERSION_CHARS = NAME_CHARS + ".+"
REASON_CHARS = NAME_CHARS + "."
HEX_DIGITS = "0123456789ABCDEF"
#: Resend an unacknowledged frame after this long.
RESEND_MS = 300
#: Send a heartbeat when nothing else went out for this long.
HEARTBEAT_MS = 1000
#: Without any host frame for this long the host counts as gone; when it is heard again we say HELLO.
HOST_SILENCE_MS = 3000
#: Repeat HELLO this often while idle, so a host that opened the port late learns who we are.
HELLO_MS = 5000
#: Events waiting behind the unacknowledged frame; beyond this the oldest are dropped.
QUEUE_LIMIT = 32

#: What `HostReader` and `Device.receive` hand on: a host command or the answer to a frame.
#: A plain string at run time (MicroPython cannot subscript types), so `Command | None` is quoted.
Command: TypeAlias = ("tuple[Literal['ACK'], int] | tuple[Literal['NAK'], int, str]"
                      " | tuple[Literal['LED'], str, str] | tuple[Literal['BEEP'], int]")


def checksum(body: bytes) -> int:
    """XOR of every byte between `$` and `*`."""
    value = 0
    for byte in body:
        value ^= byte
    return value


def encode(body: str) -> bytes:
    """`$` + body + `*HH` + CR LF; ValueError if the line would be too long or break the framing."""
    for forbidden in "$*\r\n":
        if forbidden in body:
            raise ValueError("frame body may not contain $ * CR LF")
    raw = body.encode()
    line = b"$" + raw + ("*%02X\r\n" % checksum(raw)).encode()
    if len(line) > MAX_LINE:
        raise ValueError("frame longer than 82 bytes")
    return line


def valid_name(name: str, allowed: str = NAME_CHARS, longest: int = 16) -> bool:
    """1-`longest` characters, all from `allowed` (names and ids; versions also allow `.` and `+`)."""
    if not 1 <= len(name) <= longest:
        return False
    return all(ch in allowed for ch in name)


class HostReader:
    """Turns bytes from the host into commands: ("ACK", seq), ("NAK", seq, reason), ("LED", name, mode),
    ("BEEP", ms).

    Bad lines are counted in `rejected` and skipped; the reader resynchronises at the last `$`.
    """

    def __init__(self) -> None:
        self.pending = b""
        self.rejected = 0

    def feed(self, data: bytes) -> list[Command]:
        commands = []  # type: list[Command]
        self.pending += data
        while True:
            end = self.pending.find(b"\n")
            if end < 0:
                break
            line = self.pending[:end]
            self.pending = self.pending[end + 1:]
            command = self.parse_line(line)
            if command is not None:
                commands.append(command)
        if len(self.pending) > MAX_LINE:
            start = self.pending.rfind(b"$")
            self.pending = self.pending[start:] if start >= 0 and len(self.pending) - start <= MAX_LINE else b""
            self.rejected += 1
        return commands

    def parse_line(self, line: bytes) -> "Command | None":
        """One line without its LF.  Works on str after decoding, the methods MicroPython surely has."""
        try:
            text = line.decode()
        except UnicodeError:
            self.rejected += 1
            return None
        start = text.rfind("$")
        if start < 0:
            if text.strip():
                self.rejected += 1
            return None
        text = text[start:]
        if text.endswith("\r"):
            text = text[:-1]
        if len(text) + 2 > MAX_LINE or len(text) < 5 or text[-3] != "*":
            self.rejected += 1
            return None
        digits = text[-2:]
        if digits[0] not in HEX_DIGITS or digits[1] not in HEX_DIGITS:
            self.rejected += 1
            return None
        body = text[1:-3]
        if checksum(body.encode()) != int(digits, 16):
            self.rejected += 1
            return None
        command = self.meaning(body.split(","))
        if command is None:
            self.rejected += 1
        return command

    @staticmethod
    def meaning(parts: list[str]) -> "Command | None":
        kind = parts[0]
        if kind == "ACK" and len(parts) == 2 and parts[1].isdigit() and len(parts[1]) <= 5:
            seq = int(parts[1])
            return ("ACK", seq) if seq < SEQ_LIMIT else None
        if kind == "NAK" and len(parts) == 3 and parts[1].isdigit() and len(parts[1]) <= 5:
            seq = int(parts[1])
            return ("NAK", seq, parts[2]) if seq < SEQ_LIMIT and valid_name(parts[2], REASON_CHARS, 32) else None
        if kind == "LED" and len(parts) == 3 and valid_name(parts[1]) and parts[2] in ("ON", "OFF", "BLINK"):
            return ("LED", parts[1], parts[2])
        if kind == "BEEP" and len(parts) == 2 and parts[1].isdigit() and len(parts[1]) <= 5:
            ms = int(parts[1])
            return ("BEEP", ms) if 1 <= ms <= 10000 else None
        return None


class Device:
    """One GTP/1 device: queue events, number them, resend until answered, keep the link alive.

    Stop-and-wait: one frame with a seq is outstanding at a time, so the host can only ever see a
    repeat of the frame it accepted last.  The host answers an event frame only once the app has
    recorded it (ACK) or refused it (NAK); either ends the resending, and a refused frame is dropped.
    The hardware layer calls `roll()`/`button()`/... when something happens, `receive()` with bytes
    from the host, and `poll(now_ms)` often; `poll` returns the bytes to write (maybe empty).
    """

    def __init__(self, device_id: str, firmware: str, first_seq: int = 0, resend_ms: int = RESEND_MS,
                 heartbeat_ms: int = HEARTBEAT_MS, host_silence_ms: int = HOST_SILENCE_MS,
                 hello_ms: int = HELLO_MS, queue_limit: int = QUEUE_LIMIT) -> None:
        if not valid_name(device_id) or not valid_name(firmware, VERSION_CHARS):
            raise ValueError("device id and firmware version must be 1-16 safe characters")
        self.device_id = device_id
        self.firmware = firmware
        self.next_seq = first_seq % SEQ_LIMIT
        self.resend_ms = resend_ms
        self.heartbeat_ms = heartbeat_ms
        self.host_silence_ms = host_silence_ms
        self.hello_ms = hello_ms
        self.queue_limit = queue_limit
        self.hello_at = 0  # read only once the first HELLO (`hello_due`) has set it
        self.queue = []  # type: list[tuple[str, str]]
        self.outstanding = None  # type: tuple[int, bytes] | None  # (seq, line) awaiting its ACK or NAK
        self.sent_at = 0
        self.last_sent = None  # type: int | None
        self.hello_due = True
        self.host_present = False
        self.last_host = 0
        self.reader = HostReader()
        self.resends = 0
        self.acked = 0
        self.refused = 0
        self.dropped = 0

    # --- what happened at the table ---------------------------------------------------------------

    def roll(self, values: list[str]) -> None:
        """Dice at rest; `values` are face tokens ("3", "L", "R", "0", "?" for unreadable)."""
        if not values or len(values) > 30:
            raise ValueError("a roll has 1 to 30 values")
        for value in values:
            if len(value) != 1 or value not in FACES:
                raise ValueError("not a face token: %r" % (value,))
        self.enqueue("ROLL", ",".join(values))

    def rolling(self) -> None:
        self.enqueue("ROLLING", "")

    def button(self, name: str, action: str) -> None:
        if not valid_name(name) or action not in ("DOWN", "UP", "HELD"):
            raise ValueError("bad button event")
        self.enqueue("BTN", name + "," + action)

    def timer(self, state: str) -> None:
        if state not in ("FLIP", "FLAT"):
            raise ValueError("timer state is FLIP or FLAT")
        self.enqueue("TIMER", state)

    def enqueue(self, kind: str, fields: str) -> None:
        if len(self.queue) >= self.queue_limit:
            self.queue.pop(0)
            self.dropped += 1
        self.queue.append((kind, fields))

    # --- the link ---------------------------------------------------------------------------------

    def receive(self, data: bytes, now: int) -> list[Command]:
        """Bytes from the host; returns the LED/BEEP commands in them, and the answer to the frame that
        was waiting (("ACK", seq) or ("NAK", seq, reason), so the board can signal a refusal).  Answers
        for any other seq are stale and ignored."""
        commands = []  # type: list[Command]
        for command in self.reader.feed(data):
            if not self.host_present:
                # The host may have opened the port after our last HELLO (opening a port discards
                # what was waiting in it), so introduce ourselves again.
                self.host_present = True
                self.hello_due = True
            self.last_host = now
            if command[0] in ("ACK", "NAK"):
                if self.outstanding is not None and self.outstanding[0] == command[1]:
                    self.outstanding = None
                    if command[0] == "ACK":
                        self.acked += 1
                    else:
                        self.refused += 1
                    commands.append(command)
            else:
                commands.append(command)
        return commands

    def poll(self, now: int) -> bytes:
        """What to send now: a resend, HELLO, the next queued event or a heartbeat (or nothing).

        HELLO goes out only while no frame awaits its answer: the host forgets the last seq on HELLO, and
        it must not forget it while a resend of that very frame may still arrive.
        """
        if self.host_present and now - self.last_host >= self.host_silence_ms:
            self.host_present = False
        if self.outstanding is not None:
            if now - self.sent_at < self.resend_ms:
                return b""
            self.resends += 1
            return self.transmit(self.outstanding[1], now)
        if self.hello_due or (not self.queue and now - self.hello_at >= self.hello_ms):
            self.hello_due = False
            self.hello_at = now
            return self.transmit(encode("HELLO,%s,%s,%s" % (self.device_id, self.firmware, PROTOCOL)), now)
        if self.queue:
            kind, fields = self.queue.pop(0)
            seq, line = self.numbered(kind, fields)
            self.outstanding = (seq, line)
            return self.transmit(line, now)
        if self.last_sent is None or now - self.last_sent >= self.heartbeat_ms:
            return self.transmit(self.numbered("HB", str(now % 4294967296))[1], now)
        return b""

    def numbered(self, kind: str, fields: str) -> tuple[int, bytes]:
        seq = self.next_seq
        self.next_seq = (seq + 1) % SEQ_LIMIT
        body = kind + "," + str(seq) + ("," + fields if fields else "")
        return seq, encode(body)

    def transmit(self, line: bytes, now: int) -> bytes:
        self.sent_at = now
        self.last_sent = now
        return line
