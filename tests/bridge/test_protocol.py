"""GTP/1 framing, parsing, resynchronisation and the seq/ACK rules (docs/protocol.md)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.events import BeepCommand, ButtonEvent, LedCommand, RollEvent, StatusEvent, TimerEvent
from firmware_bridge.protocol import (
    HOST_KINDS,
    MAX_LINE,
    DeviceLink,
    Frame,
    FrameParser,
    Rejection,
    checksum,
    command_from_frame,
    encode_ack,
    encode_command,
    encode_frame,
    encode_nak,
    frame_to_event,
    rejection_to_event,
)


def frames_of(items: list[Frame | Rejection]) -> list[Frame]:
    return [item for item in items if isinstance(item, Frame)]


def reasons_of(items: list[Frame | Rejection]) -> list[str]:
    return [item.reason for item in items if isinstance(item, Rejection)]


def test_checksum_example_from_the_protocol_doc() -> None:
    # Worked byte by byte in docs/protocol.md.
    assert checksum(b"ROLL,7,3,L") == 0x79
    assert encode_frame("ROLL", 7, "3", "L") == b"$ROLL,7,3,L*79\r\n"


@given(st.one_of(st.binary(max_size=80), st.binary(min_size=80, max_size=400)))
def test_fast_checksum_equals_plain_xor(body: bytes) -> None:
    expected = 0
    for byte in body:
        expected ^= byte
    assert checksum(body) == expected


def test_every_device_frame_parses_to_its_meaning() -> None:
    parser = FrameParser()
    stream = b"".join([
        encode_frame("HELLO", "tray-7", "1.2.0", "GTP1"),
        encode_frame("ROLL", 1, "3", "L", "?"),
        encode_frame("ROLLING", 2),
        encode_frame("BTN", 3, "confirm", "HELD"),
        encode_frame("TIMER", 4, "FLAT"),
        encode_frame("HB", 5, 123456),
    ])
    frames = frames_of(parser.feed(stream))
    assert [f.kind for f in frames] == ["HELLO", "ROLL", "ROLLING", "BTN", "TIMER", "HB"]
    events = [frame_to_event(f, "s") for f in frames]
    assert events[0] == StatusEvent(source="s", state="hello", device="tray-7", firmware="1.2.0")
    assert events[1] == RollEvent(source="s", seq=1, values=("3", "L", "?"), uncertain=True)
    assert events[3] == ButtonEvent(source="s", seq=3, name="confirm", action="held")
    assert events[4] == TimerEvent(source="s", seq=4, state="flat")
    assert events[5] is None  # heartbeats only keep the link alive
    assert parser.frames == 6 and parser.rejected == 0


@pytest.mark.parametrize(("line", "reason"), [
    (b"$ROLL,1,3*00\r\n", "checksum mismatch"),
    (b"$ROLL,1,3*5e\r\n", "checksum is not two upper-case hex digits"),
    (b"$ROLL,1,3\r\n", "no *HH checksum at the end"),
    (b"ROLL,1,3*5E\r\n", "no $ at the start of a frame"),
    (b"$ROLL," + b"1," * 40 + b"1*00\r\n", "line longer than 82 bytes"),
    (b"$R\xc3\xb6LL,1,3*00\r\n", "non-ASCII byte"),
])
def test_bad_framing_is_rejected_with_its_reason(line: bytes, reason: str) -> None:
    parser = FrameParser()
    assert reasons_of(parser.feed(line)) == [reason]
    assert parser.rejected == 1


@pytest.mark.parametrize(("kind", "fields", "reason"), [
    ("DICE", (1, "3"), "unknown frame type 'DICE'"),
    ("ROLL", (1,), "ROLL needs a seq and at least one value"),
    ("ROLL", (1, "7"), "ROLL: bad value"),
    ("ROLL", (65536, "3"), "ROLL: bad seq"),
    ("ROLL", ("-1", "3"), "ROLL: bad seq"),
    ("BTN", (1, "confirm"), "BTN needs 3 fields"),
    ("BTN", (1, "con firm", "DOWN"), "BTN: bad name"),
    ("BTN", (1, "confirm", "down"), "BTN: action must be DOWN, UP or HELD"),
    ("TIMER", (1, "TURN"), "TIMER: state must be FLIP or FLAT"),
    ("HB", (1, "x"), "HB: bad uptime"),
    ("ROLLING", (1, 2), "ROLLING needs exactly a seq"),
    ("HELLO", ("tray", "1.0", "GTP2"), "HELLO: unsupported protocol 'GTP2'"),
    ("ACK", (1,), "unknown frame type 'ACK'"),  # host frames are not accepted from a device
])
def test_wrong_fields_are_rejected_with_their_reason(kind: str, fields: tuple, reason: str) -> None:
    assert reasons_of(FrameParser().feed(encode_frame(kind, *fields))) == [reason]


def test_host_frames_parse_when_asked_for() -> None:
    parser = FrameParser(HOST_KINDS)
    stream = encode_ack(65535) + encode_command(LedCommand(name="seat3", mode="blink")) + \
        encode_command(BeepCommand(ms=150)) + encode_frame("BEEP", 0)
    items = parser.feed(stream)
    frames = frames_of(items)
    assert frames[0].kind == "ACK" and frames[0].seq == 65535
    assert command_from_frame(frames[1]) == LedCommand(name="seat3", mode="blink")
    assert command_from_frame(frames[2]) == BeepCommand(ms=150)
    assert reasons_of(items) == ["BEEP: ms must be 1..10000"]


def test_encoder_refuses_what_the_framing_cannot_carry() -> None:
    with pytest.raises(ValueError):
        encode_frame("BTN", 1, "a*b", "DOWN")
    with pytest.raises(ValueError):
        encode_frame("ROLL", 1, *(["6"] * 40))
    longest = encode_frame("ROLL", 65535, *(["L"] * 33))
    assert len(longest) == MAX_LINE
    assert frames_of(FrameParser().feed(longest))[0].fields == ("L",) * 33


def test_frame_glued_to_noise_or_to_a_frame_without_line_end_is_recovered() -> None:
    first = encode_frame("ROLL", 1, "2")
    second = encode_frame("BTN", 2, "undo", "DOWN")
    items = FrameParser().feed(first[:-2] + b"\x00\xff junk" + second)
    assert [f.seq for f in frames_of(items)] == [2]
    assert reasons_of(items) == ["noise before $"]


def test_bare_lf_and_blank_lines_are_tolerated() -> None:
    items = FrameParser().feed(b"\r\n\n" + encode_frame("ROLLING", 9)[:-2] + b"\n")
    assert [f.seq for f in frames_of(items)] == [9] and not reasons_of(items)


def test_runaway_line_is_cut_back_to_its_last_dollar() -> None:
    parser = FrameParser()
    frame = encode_frame("TIMER", 3, "FLIP")
    items = parser.feed(b"x" * 500)
    items += parser.feed(b"$" + b"y" * 100 + frame[:10])
    items += parser.feed(frame[10:])
    assert [f.kind for f in frames_of(items)] == ["TIMER"]
    assert set(reasons_of(items)) == {"no line end within 82 bytes"}


def test_rejection_event_escapes_bytes() -> None:
    event = rejection_to_event(Rejection("noise before $", b"\xff\r\n\\ok"), "serial")
    assert event.frame == "\\xff\\r\\n\\\\ok"
    assert event.frame.isascii() and event.frame.isprintable()


# --- seq and ACK -------------------------------------------------------------------------------

def _frame(kind: str, seq: int | None, *fields: str) -> Frame:
    line = encode_frame(kind, *((seq,) if seq is not None else ()), *fields)
    return frames_of(FrameParser().feed(line))[0]


def test_an_event_frame_is_answered_only_when_settled_and_a_resend_is_delivered_once() -> None:
    link = DeviceLink()
    assert link.accept(_frame("ROLL", 41, "3")) == (None, True)  # delivered, waiting for the app
    assert link.pending == 41
    assert link.accept(_frame("ROLL", 41, "3")) == (None, False)  # resent while the app decides
    assert link.settle(41, True) == encode_ack(41) and link.pending is None
    assert link.settle(41, False) is None  # settled once
    assert link.accept(_frame("ROLL", 41, "3")) == (encode_ack(41), False)  # our ACK was lost: same answer
    assert link.accept(_frame("HB", 42, "100")) == (encode_ack(42), True)  # no decision needed: ACK at once
    assert link.settle(41, True) is None  # the device has moved on
    assert link.accept(_frame("ROLL", 41, "3")) == (None, True)  # only the *last* seq is a repeat
    assert link.duplicates == 2


def test_a_refused_frame_gets_a_nak_with_its_reason_also_when_resent() -> None:
    link = DeviceLink()
    link.accept(_frame("BTN", 7, "undo", "DOWN"))
    nak = link.settle(7, False, "undo.nothing")
    assert nak == encode_nak(7, "undo.nothing") == b"$NAK,7,undo.nothing*30\r\n"
    assert link.accept(_frame("BTN", 7, "undo", "DOWN")) == (nak, False)
    link.accept(_frame("TIMER", 8, "FLIP"))
    assert link.settle(8, False) == encode_frame("NAK", 8, "refused")


@pytest.mark.parametrize("reason", ["", "has space", "a" * 33, "comma,", "umlaut-ä"])
def test_a_reason_that_cannot_go_on_the_wire_is_refused_up_front(reason: str) -> None:
    link = DeviceLink()
    link.accept(_frame("ROLL", 1, "3"))
    with pytest.raises(ValueError):
        link.settle(1, False, reason)
    assert link.pending == 1  # nothing was answered


def test_seq_wraps_from_65535_to_0() -> None:
    link = DeviceLink()
    assert link.accept(_frame("ROLLING", 65535))[1]
    link.settle(65535, True)
    assert link.accept(_frame("ROLLING", 0)) == (None, True)
    assert link.accept(_frame("ROLLING", 0))[1] is False


def test_hello_forgets_the_last_seq_because_the_device_restarted_its_numbering() -> None:
    link = DeviceLink()
    link.accept(_frame("ROLL", 0, "1"))
    assert link.accept(_frame("HELLO", None, "tray", "1.0", "GTP1")) == (None, True)
    assert link.pending is None and link.settle(0, True) is None  # the device dropped it by restarting
    assert link.accept(_frame("ROLL", 0, "1")) == (None, True)


def test_nak_frames_parse_and_check_their_reason() -> None:
    items = FrameParser(HOST_KINDS).feed(encode_nak(5, "no_game") + encode_frame("NAK", 5, "a b") +
                                          encode_frame("NAK", 5))
    assert [(f.kind, f.seq, f.fields) for f in frames_of(items)] == [("NAK", 5, ("no_game",))]
    assert reasons_of(items) == ["NAK: bad reason", "NAK needs 2 fields"]


# --- properties --------------------------------------------------------------------------------

@given(st.lists(st.binary(max_size=120), max_size=20))
def test_any_byte_stream_never_raises(chunks: list[bytes]) -> None:
    parser = FrameParser()
    for chunk in chunks:
        for item in parser.feed(chunk):
            assert isinstance(item, (Frame, Rejection))
    assert len(parser._pending) <= MAX_LINE


_face = st.sampled_from(sorted("123456LBYRGWK0?"))
_name = st.from_regex(r"[A-Za-z0-9_-]{1,16}", fullmatch=True)
_seq = st.integers(0, 65535)
valid_frames = st.one_of(
    st.builds(lambda s, v: encode_frame("ROLL", s, *v), _seq, st.lists(_face, min_size=1, max_size=33)),
    st.builds(lambda s: encode_frame("ROLLING", s), _seq),
    st.builds(lambda s, n, a: encode_frame("BTN", s, n, a), _seq, _name, st.sampled_from(["DOWN", "UP", "HELD"])),
    st.builds(lambda s, t: encode_frame("TIMER", s, t), _seq, st.sampled_from(["FLIP", "FLAT"])),
    st.builds(lambda s, u: encode_frame("HB", s, u), _seq, st.integers(0, 4294967295)),
    st.builds(lambda d, v: encode_frame("HELLO", d, v, "GTP1"), _name,
              st.from_regex(r"[A-Za-z0-9._+-]{1,16}", fullmatch=True)),
)


@given(st.lists(st.tuples(st.binary(max_size=150), valid_frames), min_size=1, max_size=12),
       st.binary(max_size=150), st.data())
def test_valid_frames_embedded_in_garbage_are_all_recovered(pairs: list[tuple[bytes, bytes]], tail: bytes,
                                                            data: st.DataObject) -> None:
    stream = b"".join(garbage + frame for garbage, frame in pairs) + tail
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=8)))
    parser = FrameParser()
    recovered: list[bytes] = []
    for start, end in zip([0, *cuts], [*cuts, len(stream)]):
        recovered += [frame.raw + b"\r\n" for frame in frames_of(parser.feed(stream[start:end]))]
    expected = [frame for _, frame in pairs]
    # Every embedded frame comes out, in order; garbage may (very rarely) add a valid frame of its own.
    iterator = iter(recovered)
    assert all(any(got == want for got in iterator) for want in expected)


def test_every_frame_quoted_in_the_protocol_doc_has_its_real_checksum() -> None:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    quoted = re.findall(r"\$([A-Z][^$*\s`]*)\*([0-9A-Fa-f]{2})", text)
    wrong = [f"${body}*{digits}" for body, digits in quoted
             if f"{checksum(body.encode('ascii')):02X}" != digits]
    assert len(quoted) > 30
    assert wrong == ["$ROLL,1,3*00"]  # the one shown on purpose as a checksum mismatch (§8)
