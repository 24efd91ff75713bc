"""The Pico firmware against the host's own protocol code (CPython only: it needs the host side).
The firmware's logic itself is checked on CPython and MicroPython by test_firmware_interpreters.py."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.firmware import gtp
from firmware_bridge.protocol import HOST_KINDS, Frame, FrameParser, encode_ack, encode_nak

FIRMWARE_DIR = Path(gtp.__file__).parent


def parse(data: bytes) -> list[Frame]:
    items = FrameParser().feed(data)
    assert all(isinstance(item, Frame) for item in items), items
    return items  # type: ignore[return-value]


def ack(seq: int) -> bytes:
    return encode_ack(seq)


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
