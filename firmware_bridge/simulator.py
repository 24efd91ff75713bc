"""A fake GTP/1 device for demos, the app's PC mode and tests.

It runs the real device-side protocol code (`firmware/gtp.py`, the same the Pico runs) behind a TCP
port on 127.0.0.1 (connect with `socket://127.0.0.1:PORT`) or a pseudo-terminal, plays a script or
random rolls, and can damage its own output on purpose: bad checksums, lines split in two writes,
lines merged by a lost line end, garbage bytes, and disconnects.
"""

from __future__ import annotations

import os
import queue
import random
import re
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from companion.engine.errors import UserError, read_text_file
from firmware_bridge.events import FACE_TOKENS, NAME_PATTERN
from firmware_bridge.firmware import gtp

NOISE_KINDS = ("checksum", "split", "merge", "garbage", "disconnect")
_DEFAULT_RATES = {"checksum": 0.1, "split": 0.1, "merge": 0.05, "garbage": 0.05, "disconnect": 0.02}
_NAME = re.compile(NAME_PATTERN)


class Noise(BaseModel):
    """Probability per written line of each kind of damage, and how long a disconnect lasts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    checksum: float = Field(default=0.0, ge=0.0, le=1.0)
    split: float = Field(default=0.0, ge=0.0, le=1.0)
    merge: float = Field(default=0.0, ge=0.0, le=1.0)
    garbage: float = Field(default=0.0, ge=0.0, le=1.0)
    disconnect: float = Field(default=0.0, ge=0.0, le=1.0)
    outage: float = Field(default=1.0, ge=0.0, le=60.0)

    @classmethod
    def parse(cls, text: str) -> Noise:
        """`checksum=0.2,split,disconnect=0.05` (a bare name takes its default rate; `all` = every kind)."""
        rates: dict[str, float] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            name, _, value = item.partition("=")
            names = NOISE_KINDS if name == "all" else (name,)
            for kind in names:
                if kind not in (*NOISE_KINDS, "outage"):
                    raise UserError(f"--noise: unknown kind {kind!r} (known: {', '.join(NOISE_KINDS)}, all, "
                                    "outage)")
                try:
                    rates[kind] = float(value) if value else _DEFAULT_RATES.get(kind, 1.0)
                except ValueError:
                    raise UserError(f"--noise: {kind}: {value!r} is not a number") from None
        try:
            return cls(**rates)
        except ValidationError as error:
            first = error.errors()[0]
            raise UserError(f"--noise: {first['loc'][0]}: {first['msg']}") from None


@dataclass(frozen=True)
class Step:
    """One line of a script: `verb` and its arguments (already checked)."""

    verb: str
    args: tuple[str, ...] = ()


_VERB_ARITY = {"wait": (1, 1), "rolling": (0, 0), "roll": (1, 30), "press": (1, 1), "button": (2, 2),
               "timer": (1, 1), "disconnect": (0, 1), "repeat": (0, 0)}


def parse_script(text: str, source: str = "<script>") -> list[Step]:
    """Parse a script; a bad line is a UserError naming the file and line."""
    steps: list[Step] = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        verb, args = words[0].lower(), tuple(words[1:])
        where = f"{source}: line {number}"
        if verb not in _VERB_ARITY:
            raise UserError(f"{where}: unknown step {verb!r} (known: {', '.join(_VERB_ARITY)})")
        low, high = _VERB_ARITY[verb]
        if not low <= len(args) <= high:
            raise UserError(f"{where}: {verb} takes {low}..{high} arguments, got {len(args)}")
        problem = _check_step(verb, args)
        if problem:
            raise UserError(f"{where}: {problem}")
        steps.append(Step(verb, args))
    return steps


def _check_step(verb: str, args: tuple[str, ...]) -> str | None:
    if verb in ("wait", "disconnect") and args:
        try:
            seconds = float(args[0])
        except ValueError:
            return f"{verb}: {args[0]!r} is not a number of seconds"
        return None if 0 <= seconds <= 3600 else f"{verb}: {seconds} s is out of range"
    if verb == "roll":
        bad = [value for value in args if value.upper() not in FACE_TOKENS]
        return f"roll: {bad[0]!r} is not a face token ({''.join(sorted(FACE_TOKENS))})" if bad else None
    if verb in ("press", "button") and not _NAME.match(args[0]):
        return f"{verb}: {args[0]!r} is not a valid button name"
    if verb == "button" and args[1].upper() not in ("DOWN", "UP", "HELD"):
        return "button: action must be down, up or held"
    if verb == "timer" and args[0].upper() not in ("FLIP", "FLAT"):
        return "timer: state must be flip or flat"
    return None


def load_script(path: str | Path) -> list[Step]:
    return parse_script(read_text_file(path), str(path))


class Simulator:
    """The fake device.  `start()` binds the port (see `url`), `stop()` ends everything.

    Tests can also drive it directly (`roll`, `press`, `timer`, `disconnect`, ...); those calls are
    queued and carried out on the simulator's thread, which alone touches the device state.
    """

    def __init__(self, port: int = 0, *, use_pty: bool = False, script: list[Step] | None = None,
                 play_random: bool = False, seed: int | None = None, noise: Noise | None = None,
                 device_id: str = "sim-1", firmware: str = "sim-1.0", interval: float = 1.0, dice: int = 2,
                 faces: str = "123456", resend_ms: int = gtp.RESEND_MS, heartbeat_ms: int = gtp.HEARTBEAT_MS,
                 log: Callable[[str], None] | None = None) -> None:
        self.requested_port = port
        self.use_pty = use_pty
        self.script = list(script or [])
        self.play_random = play_random
        self.rng = random.Random(seed)
        self.noise = noise or Noise()
        self.interval = interval
        self.dice = dice
        self.faces = faces
        # A PC has room for a long queue; the Pico keeps gtp.QUEUE_LIMIT.
        self.device = gtp.Device(device_id, firmware, self.rng.randrange(gtp.SEQ_LIMIT), resend_ms=resend_ms,
                                 heartbeat_ms=heartbeat_ms, queue_limit=4096)
        self.log = log or (lambda message: None)
        self.port: int | None = None
        self.pty_path: str | None = None
        self.commands: list[gtp.Command] = []
        #: Every frame the host answered, in order: ("ACK", line, None) or ("NAK", line, reason).
        self.answers: list[tuple[str, bytes, str | None]] = []
        self.noise_counts: dict[str, int] = dict.fromkeys(NOISE_KINDS, 0)
        self._actions: queue.Queue[Callable[[], None]] = queue.Queue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._listener: socket.socket | None = None
        self._client: socket.socket | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._outage_until = 0.0
        self._output: deque[tuple[float, bytes]] = deque()
        self._held_back = b""
        self._t0 = time.monotonic()
        self._script_index = 0
        self._next_step_at = 0.0
        self.host_connections = 0

    # --- life cycle -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """What to give `goldtable bridge monitor --serial` (or SerialSource)."""
        if self.pty_path is not None:
            return self.pty_path
        if self.port is None:
            raise RuntimeError("simulator not started")
        return f"socket://127.0.0.1:{self.port}"

    @property
    def host_attached(self) -> bool:
        return self._client is not None or (self._master is not None and time.monotonic() >= self._outage_until)

    @property
    def away_until(self) -> float:
        """`time.monotonic()` at which the current (or last) disconnect ends."""
        return self._outage_until

    def start(self) -> Simulator:
        if self.use_pty:
            import tty

            self._master, self._slave = os.openpty()
            tty.setraw(self._slave)
            os.set_blocking(self._master, False)
            self.pty_path = os.ttyname(self._slave)
        else:
            self._listen(self.requested_port)
        self._next_step_at = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="gtp-simulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._drop_client()
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None

    def __enter__(self) -> Simulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- things that happen at the table (thread-safe) ---------------------------------------------

    def roll(self, *values: str) -> None:
        self._actions.put(lambda: self.device.roll([value.upper() for value in values]))

    def rolling(self) -> None:
        self._actions.put(self.device.rolling)

    def button(self, name: str, action: str) -> None:
        self._actions.put(lambda: self.device.button(name, action.upper()))

    def press(self, name: str) -> None:
        """Down and up, as a quick press."""
        self.button(name, "DOWN")
        self.button(name, "UP")

    def timer(self, state: str) -> None:
        self._actions.put(lambda: self.device.timer(state.upper()))

    def disconnect(self, seconds: float | None = None) -> None:
        """Drop the host and refuse it for `seconds` (default: the noise outage)."""
        self._actions.put(lambda: self._go_away(self.noise.outage if seconds is None else seconds))

    # --- the device thread ------------------------------------------------------------------------

    def _now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _run(self) -> None:
        while not self._stop.is_set():
            now = time.monotonic()
            self._serve_connection(now)
            while True:
                try:
                    action = self._actions.get_nowait()
                except queue.Empty:
                    break
                action()
            self._play(now)
            self._read_host()
            if self.host_attached:
                while True:
                    line = self.device.poll(self._now_ms())
                    if not line:
                        break
                    self._send_line(line)
            self._flush_output(time.monotonic())
            self._wait_for_io(0.002)

    def _serve_connection(self, now: float) -> None:
        if self.use_pty:
            return
        if self._listener is None and now >= self._outage_until:
            try:
                self._listen(self.port or 0)
            except OSError as error:
                self.log(f"cannot listen again on port {self.port}: {error}")
                self._outage_until = now + 0.2
                return
            self.log("device back")
        if self._listener is None:
            return
        try:
            client, _ = self._listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        self._drop_client()
        client.setblocking(True)
        client.settimeout(1.0)
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self._client = client
        self.host_connections += 1
        self.log("host connected")

    def _listen(self, port: int) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            listener.bind(("127.0.0.1", port))
            listener.listen(1)
        except OSError:
            listener.close()
            raise
        listener.setblocking(False)
        self._listener = listener
        self.port = listener.getsockname()[1]

    def _drop_client(self) -> None:
        if self._client is not None:
            try:
                self._client.close()
            finally:
                self._client = None
            self._output.clear()
            self._held_back = b""

    def _go_away(self, seconds: float) -> None:
        """Like pulling the cable: the host loses the port and cannot get it back for a while."""
        self.log(f"disconnect for {seconds:g} s")
        self._outage_until = time.monotonic() + seconds
        self._output.clear()
        self._held_back = b""
        if not self.use_pty:
            self._drop_client()
            if self._listener is not None:
                self._listener.close()
                self._listener = None

    def _read_host(self) -> None:
        data = b""
        try:
            if self._client is not None:
                ready, _, _ = select.select([self._client], [], [], 0)
                if ready:
                    data = self._client.recv(4096)
                    if not data:
                        self.log("host closed the connection")
                        self._drop_client()
                        return
            elif self._master is not None and self.host_attached:
                data = os.read(self._master, 4096)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as error:
            self.log(f"read failed: {error}")
            self._drop_client()
            return
        if data:
            waiting = self.device.outstanding
            for command in self.device.receive(data, self._now_ms()):
                if command[0] in ("ACK", "NAK") and waiting is not None:
                    reason = command[2] if command[0] == "NAK" else None
                    self.answers.append((command[0], waiting[1], reason))
                    if reason is not None:
                        self.log(f"host refused {waiting[1].decode().strip()} ({reason}): dropped")
                else:
                    self.commands.append(command)
                    self.log("host says " + " ".join(str(part) for part in command))

    def _send_line(self, line: bytes) -> None:
        """Queue one frame for writing, after maybe damaging it."""
        rng, noise = self.rng, self.noise
        if noise.disconnect and rng.random() < noise.disconnect:
            self.noise_counts["disconnect"] += 1
            self._go_away(noise.outage)
            return
        if noise.checksum and rng.random() < noise.checksum:
            self.noise_counts["checksum"] += 1
            position = rng.randrange(1, len(line) - 5)
            line = line[:position] + bytes([line[position] ^ 0x01]) + line[position + 1:]
        if noise.garbage and rng.random() < noise.garbage:
            self.noise_counts["garbage"] += 1
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 24))) + line
        if noise.merge and rng.random() < noise.merge:
            self.noise_counts["merge"] += 1
            self._held_back += line[:-2]  # the line end is lost: this frame runs into the next
            return
        line, self._held_back = self._held_back + line, b""
        now = time.monotonic()
        if noise.split and rng.random() < noise.split:
            self.noise_counts["split"] += 1
            cut = rng.randrange(1, len(line))
            self._output.append((now, line[:cut]))
            self._output.append((now + rng.uniform(0.002, 0.03), line[cut:]))
        else:
            self._output.append((now, line))

    def _flush_output(self, now: float) -> None:
        while self._output and self._output[0][0] <= now:
            _, data = self._output.popleft()
            try:
                if self._client is not None:
                    self._client.sendall(data)
                elif self._master is not None:
                    os.write(self._master, data)
            except BlockingIOError:  # nobody reads the pty: the bytes are lost, as on a real cable
                self._output.clear()
                return
            except OSError as error:
                self.log(f"write failed: {error}")
                self._drop_client()
                return

    def _wait_for_io(self, timeout: float) -> None:
        watch = [sock for sock in (self._client, self._listener) if sock is not None]
        if self._master is not None:
            watch.append(self._master)  # type: ignore[arg-type]
        if watch:
            select.select(watch, [], [], timeout)
        else:
            self._stop.wait(timeout)

    # --- scripted and random play -----------------------------------------------------------------

    def _play(self, now: float) -> None:
        if now < self._next_step_at or not self.host_attached:
            return
        if self.script:
            self._play_script(now)
        elif self.play_random:
            self._play_random(now)

    def _play_script(self, now: float) -> None:
        while now >= self._next_step_at and self._script_index < len(self.script):
            step = self.script[self._script_index]
            self._script_index += 1
            delay = self._do(step)
            if delay:
                self._next_step_at = now + delay
                return

    def _do(self, step: Step) -> float:
        """Carry out one script step; returns how long to wait before the next."""
        verb, args = step.verb, step.args
        self.log(" ".join((verb, *args)))
        if verb == "wait":
            return float(args[0])
        if verb == "rolling":
            self.device.rolling()
        elif verb == "roll":
            self.device.roll([value.upper() for value in args])
        elif verb == "press":
            self.device.button(args[0], "DOWN")
            self.device.button(args[0], "UP")
        elif verb == "button":
            self.device.button(args[0], args[1].upper())
        elif verb == "timer":
            self.device.timer(args[0].upper())
        elif verb == "disconnect":
            self._go_away(float(args[0]) if args else self.noise.outage)
        elif verb == "repeat":
            self._script_index = 0
        return 0.0

    def _play_random(self, now: float) -> None:
        """A plausible table: roll, then a button or two, now and then the hourglass."""
        rng = self.rng
        self.device.rolling()
        values = [rng.choice(self.faces) for _ in range(self.dice)]
        self.device.roll(values)
        self.log("roll " + " ".join(values))
        if rng.random() < 0.5:
            name = rng.choice(("confirm", "next", "undo"))
            self.device.button(name, "DOWN")
            self.device.button(name, "UP")
            self.log(f"press {name}")
        if rng.random() < 0.3:
            self.device.timer("FLIP")
            self.log("timer flip")
        self._next_step_at = now + self.interval * rng.uniform(0.5, 1.5)
