"""The Pico firmware on CPython: gtp.py's device rules, and main.py with a stub `machine` module."""

from __future__ import annotations

import importlib
import itertools
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.firmware import gtp
from firmware_bridge.protocol import HOST_KINDS, Frame, FrameParser, encode_ack, encode_frame, encode_nak

FIRMWARE_DIR = Path(gtp.__file__).parent


def parse(data: bytes) -> list[Frame]:
    items = FrameParser().feed(data)
    assert all(isinstance(item, Frame) for item in items), items
    return items  # type: ignore[return-value]


def ack(seq: int) -> bytes:
    return encode_ack(seq)


# --- gtp.Device --------------------------------------------------------------------------------

def test_device_says_hello_first_then_sends_events_one_at_a_time_until_acked() -> None:
    device = gtp.Device("tray-1", "1.0.0", first_seq=10)
    device.roll(["3", "L"])
    device.button("confirm", "DOWN")
    hello = parse(device.poll(0))[0]
    assert (hello.kind, hello.fields) == ("HELLO", ("tray-1", "1.0.0", "GTP1"))
    roll = parse(device.poll(1))[0]
    assert (roll.kind, roll.seq, roll.fields) == ("ROLL", 10, ("3", "L"))
    assert device.poll(2) == b""  # stop and wait
    assert device.poll(gtp.RESEND_MS) == b""
    assert parse(device.poll(1 + gtp.RESEND_MS)) == [roll]  # resent unchanged
    assert device.receive(ack(9), 400) == []  # an ACK for another seq changes nothing
    assert device.poll(401) == b""
    device.receive(ack(10), 402)
    # The ACKs were the first sign of the host: now that nothing is outstanding, HELLO again.
    assert parse(device.poll(403))[0].kind == "HELLO"
    button = parse(device.poll(404))[0]
    assert (button.kind, button.seq, button.fields) == ("BTN", 11, ("confirm", "DOWN"))
    assert device.resends == 1 and device.acked == 1


def test_device_keeps_resending_until_acknowledged() -> None:
    device = gtp.Device("d", "1", hello_ms=10**9)
    device.poll(0)
    device.timer("FLIP")
    first = device.poll(1)
    sent = [device.poll(1 + n * gtp.RESEND_MS) for n in range(1, 20)]
    assert sent == [first] * 19
    device.receive(ack(parse(first)[0].seq or 0), 10_000)
    after = [parse(device.poll(now))[0].kind for now in (10_001, 11_001)]
    assert after == ["HELLO", "HB"]  # first contact with the host, then nothing left but heartbeats


def test_a_nak_ends_the_resending_and_drops_the_frame() -> None:
    device = gtp.Device("d", "1", first_seq=20, hello_ms=10**9)
    device.poll(0)
    device.roll(["B", "Y", "R", "G"])
    device.button("stop", "DOWN")
    roll = parse(device.poll(1))[0]
    assert device.receive(encode_nak(19, "refused"), 2) == []  # a stale answer: still waiting
    assert parse(device.poll(1 + gtp.RESEND_MS)) == [roll]
    assert device.receive(encode_nak(20, "roll.dice_count"), 400) == [("NAK", 20, "roll.dice_count")]
    assert device.outstanding is None and (device.refused, device.acked) == (1, 0)
    assert parse(device.poll(401))[0].kind == "HELLO"  # first contact; then the next event, not the roll
    button = parse(device.poll(402))[0]
    assert (button.kind, button.seq) == ("BTN", 21)
    assert device.receive(ack(21), 403) == [("ACK", 21)] and device.acked == 1
    assert device.poll(402 + gtp.RESEND_MS) == b""  # answered: not resent
    assert parse(device.poll(402 + gtp.HEARTBEAT_MS))[0].kind == "HB" and device.resends == 1


def test_heartbeat_when_idle_and_periodic_hello_only_when_nothing_is_outstanding() -> None:
    device = gtp.Device("d", "1", heartbeat_ms=1000, hello_ms=5000)
    kinds = []
    for now in range(0, 12_000, 10):
        out = device.poll(now)
        if out:
            frame = parse(out)[0]
            kinds.append((now, frame.kind))
            if frame.seq is not None:
                device.receive(ack(frame.seq), now + 1)
    assert kinds[0] == (0, "HELLO")
    # at boot, on first contact with the host (its ACK of the first heartbeat), then every 5 s
    assert [now for now, kind in kinds if kind == "HELLO"] == [0, 1010, 6010, 11010]
    beats = [now for now, kind in kinds if kind == "HB"]
    assert beats[:3] == [1000, 2010, 3010]
    sent_at = [now for now, _ in kinds]
    assert max(b - a for a, b in itertools.pairwise(sent_at)) == 1000  # the line is never quiet longer


def test_device_says_hello_again_when_the_host_returns_after_silence() -> None:
    device = gtp.Device("d", "1", hello_ms=10**9)
    assert parse(device.poll(0))[0].kind == "HELLO"
    hb = parse(device.poll(1000))[0]
    device.receive(ack(hb.seq or 0), 1001)  # first contact with the host: introduce ourselves (again)
    assert parse(device.poll(1002))[0].kind == "HELLO"
    device.poll(4500)  # host silent for > 3 s: gone
    assert not device.host_present
    device.receive(ack(12345), 6000)
    assert parse(device.poll(6001))[0].kind == "HELLO"


def test_hello_waits_for_the_outstanding_frame() -> None:
    device = gtp.Device("d", "1", hello_ms=10**9)
    device.poll(0)
    device.rolling()
    rolling = parse(device.poll(1))[0]
    device.receive(encode_frame("LED", "seat1", "ON"), 2)  # host appears, but the ROLLING is not ACKed
    assert device.poll(3) == b""
    device.receive(ack(rolling.seq or 0), 4)
    assert parse(device.poll(5))[0].kind == "HELLO"


def test_seq_wraps_and_the_queue_is_bounded() -> None:
    device = gtp.Device("d", "1", first_seq=65535, hello_ms=10**9)
    device.poll(0)
    for _ in range(gtp.QUEUE_LIMIT + 5):
        device.rolling()
    assert device.dropped == 5 and len(device.queue) == gtp.QUEUE_LIMIT
    seqs = []
    for now in range(1, 6):
        frame = parse(device.poll(now))[0]
        if frame.seq is not None:
            seqs.append(frame.seq)
            device.receive(ack(frame.seq), now)
    assert seqs == [65535, 0, 1, 2]


def test_device_refuses_events_the_protocol_cannot_carry() -> None:
    device = gtp.Device("d", "1")
    for bad in (lambda: device.roll([]), lambda: device.roll(["7"]), lambda: device.roll(["1"] * 31),
                lambda: device.button("a b", "DOWN"), lambda: device.button("a", "PRESS"),
                lambda: device.timer("UP"), lambda: gtp.Device("bad id", "1")):
        with pytest.raises(ValueError):
            bad()


def test_host_reader_returns_commands_and_skips_bad_lines() -> None:
    reader = gtp.HostReader()
    good_led = encode_frame("LED", "seat4", "BLINK")
    stream = b"noise" + good_led[:5] + b"" + good_led[5:] + b"$LED,seat1,ON*00\r\n" + \
        encode_frame("BEEP", 250)[:-2] + encode_frame("ACK", 7) + encode_frame("LED", "seat1", "DIM") + \
        b"$ack,1*" + b"%02x" % gtp.checksum(b"ack,1") + b"\r\n" + encode_nak(8, "undo.nothing") + \
        encode_frame("NAK", 9, "x" * 33) + encode_frame("NAK", 9, "a b") + encode_frame("NAK", 9)
    assert reader.feed(stream) == [("LED", "seat4", "BLINK"), ("ACK", 7), ("NAK", 8, "undo.nothing")]
    assert reader.rejected == 6  # bad checksum, DIM, lower-case hex, three bad NAKs (the merged BEEP is noise)


@given(st.lists(st.sampled_from(list(gtp.FACES)), min_size=1, max_size=30), st.integers(0, 65535),
       st.from_regex(r"[A-Za-z0-9_-]{1,16}", fullmatch=True))
def test_device_frames_are_what_the_host_parser_accepts(values: list[str], seq: int, name: str) -> None:
    device = gtp.Device(name, "1.0+dev", first_seq=seq, hello_ms=10**9)
    device.roll(values)
    device.button(name, "HELD")
    out = device.poll(0) + device.poll(1)
    device.receive(ack(seq), 2)
    out += device.poll(3) + device.poll(4)
    frames = parse(out)
    assert [(f.kind, f.seq, f.fields) for f in frames] == [
        ("HELLO", None, (name, "1.0+dev", "GTP1")), ("ROLL", seq, tuple(values)),
        ("HELLO", None, (name, "1.0+dev", "GTP1")), ("BTN", (seq + 1) % 65536, (name, "HELD"))]


def test_host_encoders_are_what_the_device_reader_accepts() -> None:
    from firmware_bridge.events import BeepCommand, LedCommand
    from firmware_bridge.protocol import encode_command

    reader = gtp.HostReader()
    stream = encode_command(LedCommand(name="seat6", mode="off")) + encode_command(BeepCommand(ms=10000))
    assert reader.feed(stream + ack(65535) + encode_nak(0, "a" * 32)) == [
        ("LED", "seat6", "OFF"), ("BEEP", 10000), ("ACK", 65535), ("NAK", 0, "a" * 32)]
    assert FrameParser(HOST_KINDS).feed(stream)[0].kind == "LED"


# --- main.py with machine stubbed --------------------------------------------------------------

class StubPin:
    """Just enough of `machine.Pin`: inputs idle high (pull-up), tests pull them low."""

    IN, OUT, PULL_UP = 0, 1, 2
    pins: ClassVar[dict[int, StubPin]] = {}

    def __init__(self, number: int, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
        self.number, self.mode = number, mode
        self.level = value if value is not None else (1 if pull == self.PULL_UP else 0)
        StubPin.pins[number] = self

    def value(self, level: int | None = None) -> Any:
        if level is None:
            return self.level
        self.level = level
        return None


@pytest.fixture
def main_module() -> Iterator[types.ModuleType]:
    machine = types.ModuleType("machine")
    machine.Pin = StubPin  # type: ignore[attr-defined]
    saved = {name: sys.modules.get(name) for name in ("machine", "main", "board", "gtp")}
    sys.modules["machine"] = machine
    sys.path.insert(0, str(FIRMWARE_DIR))
    StubPin.pins = {}
    try:
        yield importlib.import_module("main")
    finally:
        sys.path.remove(str(FIRMWARE_DIR))
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


class Pico:
    """The firmware plus a host that ACKs everything and collects the frames."""

    def __init__(self, main: types.ModuleType) -> None:
        self.main = main
        self.out = b""
        self.firmware = main.Firmware(StubPin, self.write, "pico-test", first_seq=100)
        self.now = 0
        self.frames: list[Frame] = []
        self.parser = FrameParser()
        self.to_device = b""

    def write(self, data: bytes) -> None:
        self.out += data

    def run(self, ms: int, host: bytes = b"") -> None:
        """Step the firmware once per millisecond; ACKs reach it on the next step."""
        self.to_device += host
        for _ in range(ms):
            self.firmware.step(self.to_device, self.now)
            self.to_device = b""
            if self.out:
                for frame in self.parser.feed(self.out):
                    assert isinstance(frame, Frame)
                    self.frames.append(frame)
                    if frame.seq is not None:
                        self.to_device += ack(frame.seq)
                self.out = b""
            self.now += 1

    def events(self) -> list[tuple[str, tuple[str, ...]]]:
        assert self.firmware.device.resends == 0  # the host ACKs at once: nothing is ever sent twice
        return [(f.kind, f.fields) for f in self.frames if f.kind not in ("HB", "HELLO")]


def pin(number: int) -> StubPin:
    return StubPin.pins[number]


def test_firmware_reports_a_bouncy_button_once_and_a_long_press_as_held(main_module) -> None:
    pico = Pico(main_module)
    pico.run(10)
    for level in (0, 1, 0, 1, 0):  # bounce on press
        pin(2).level = level
        pico.run(1)
    pico.run(900)
    for level in (1, 0, 1):  # bounce on release
        pin(2).level = level
        pico.run(1)
    pico.run(50)
    assert pico.events() == [("BTN", ("confirm", "DOWN")), ("BTN", ("confirm", "HELD")),
                             ("BTN", ("confirm", "UP"))]


def test_a_button_already_down_at_power_on_is_not_reported_until_it_changes(main_module) -> None:
    class StuckConfirm(StubPin):
        def __init__(self, number: int, *args: Any, **kwargs: Any) -> None:
            super().__init__(number, *args, **kwargs)
            if number == 2:
                self.level = 0

    firmware = main_module.Firmware(StuckConfirm, lambda data: None, "pico-test")
    for now in range(2000):
        firmware.step(b"", now)
    assert firmware.device.queue == [] and firmware.device.outstanding is None
    pin(2).level = 1
    firmware.step(b"", 2000)
    assert firmware.device.outstanding is not None and b"confirm,UP" in firmware.device.outstanding[1]


def test_firmware_reports_hourglass_flips_and_flat(main_module) -> None:
    pico = Pico(main_module)
    pico.run(5)
    pin(6).level = 0
    pico.run(100)
    pin(6).level = 1
    pico.run(100)
    pin(7).level = 0
    pico.run(100)
    assert pico.events() == [("TIMER", ("FLIP",)), ("TIMER", ("FLIP",)), ("TIMER", ("FLAT",))]


def test_tray_motion_gives_rolling_then_the_faces_read_after_the_dice_settle(main_module) -> None:
    board = importlib.import_module("board")
    pico = Pico(main_module)
    pico.run(5)
    # die 1 shows code 5 (bits 0 and 2 low), die 2 code 6, die 3 reads nothing sensible (code 0)
    for number, level in ((9, 0), (10, 1), (11, 0), (12, 1), (13, 0), (14, 0)):
        pin(number).level = level
    for _ in range(20):  # the vibration switch chatters while the dice tumble
        pin(8).level ^= 1
        pico.run(7)
    pico.run(board.SETTLE_MS - 10)
    assert pico.events() == [("ROLLING", ())]
    pico.run(30)
    assert pico.events() == [("ROLLING", ()), ("ROLL", ("5", "6", "?"))]


def test_firmware_carries_out_led_and_beep_commands(main_module) -> None:
    board = importlib.import_module("board")
    pico = Pico(main_module)
    pico.run(2, encode_frame("LED", "seat3", "ON") + encode_frame("BEEP", 50) + encode_frame("LED", "seat1", "BLINK"))
    assert pin(board.LEDS["seat3"]).level == 1 and pin(board.BUZZER).level == 1
    levels = set()
    for _ in range(4):
        pico.run(board.BLINK_MS)
        levels.add(pin(board.LEDS["seat1"]).level)
    assert levels == {0, 1} and pin(board.BUZZER).level == 0
    pico.run(1, encode_frame("LED", "seat1", "OFF") + encode_frame("LED", "nope", "ON"))
    pico.run(board.BLINK_MS * 2)
    assert pin(board.LEDS["seat1"]).level == 0


def test_firmware_says_hello_and_keeps_a_heartbeat(main_module) -> None:
    pico = Pico(main_module)
    pico.run(2500)
    kinds = [f.kind for f in pico.frames]
    assert kinds[0] == "HELLO" and kinds.count("HB") >= 2
    assert pico.frames[0].fields == ("pico-test", main_module.VERSION, "GTP1")


def test_firmware_beeps_when_the_host_refuses_a_frame(main_module) -> None:
    board = importlib.import_module("board")
    sent: list[bytes] = []
    firmware = main_module.Firmware(StubPin, sent.append, "pico-test", first_seq=5)
    firmware.step(b"", 0)  # HELLO
    pin(6).level = 0  # the hourglass is turned
    firmware.step(b"", 1)
    assert parse(sent[-1])[0].kind == "TIMER"
    for now in range(2, 2 + 3 * gtp.RESEND_MS):  # no answer: resent, and silent
        firmware.step(b"", now)
    assert pin(board.BUZZER).level == 0 and firmware.device.resends >= 2
    now = 2 + 3 * gtp.RESEND_MS
    firmware.step(encode_nak(5, "no_game"), now)
    assert pin(board.BUZZER).level == 1 and firmware.device.outstanding is None
    firmware.step(b"", now + board.REFUSED_BEEP_MS)
    assert pin(board.BUZZER).level == 0
