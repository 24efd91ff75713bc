"""Serial source end to end: against the simulator on socket:// loopback, and against a hand-driven
TCP peer for the exact seq/ACK, watchdog and discovery rules."""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from firmware_bridge.events import BridgeEvent, ButtonEvent, LedCommand, RollEvent, TimerEvent
from firmware_bridge.hub import Bridge
from firmware_bridge.protocol import HOST_KINDS, Frame, FrameParser, encode_ack, encode_frame
from firmware_bridge.serial_source import SerialSource, find_port, parse_usb_id
from firmware_bridge.simulator import Noise, Simulator
from tests.bridge.bridge_helpers import Collector, wait_for


@pytest.fixture
def simulator() -> Iterator[Simulator]:
    sim = Simulator(resend_ms=40, heartbeat_ms=200, seed=7).start()
    yield sim
    sim.stop()


def attach(url: str | None, auto_settle: bool = True, **options: object) -> tuple[Bridge, SerialSource, Collector]:
    """A bridge with one serial source; by default every event is answered as recorded once collected."""
    bridge = Bridge(auto_settle=auto_settle)
    source = SerialSource(url, **options)  # type: ignore[arg-type]
    bridge.add_source(source)
    collector = Collector()
    bridge.subscribe(collector)
    bridge.start()
    return bridge, source, collector


def table_events(collector: Collector) -> list[tuple]:
    """Rolls, buttons and timer changes, without the link chatter."""
    out: list[tuple] = []
    for event in collector.events:
        if isinstance(event, RollEvent):
            out.append(("roll", *event.values))
        elif isinstance(event, ButtonEvent):
            out.append(("button", event.name, event.action))
        elif isinstance(event, TimerEvent):
            out.append(("timer", event.state))
    return out


def test_rolls_buttons_and_timer_flips_arrive_in_order_and_leds_go_back(simulator: Simulator) -> None:
    bridge, source, collector = attach(simulator.url)
    try:
        assert wait_for(lambda: "hello" in collector.statuses())
        simulator.rolling()
        simulator.roll("3", "L", "?")
        simulator.press("confirm")
        simulator.timer("flip")
        assert wait_for(lambda: len(table_events(collector)) == 4)
        assert table_events(collector) == [("roll", "3", "L", "?"), ("button", "confirm", "down"),
                                           ("button", "confirm", "up"), ("timer", "flip")]
        assert collector.of("roll")[0].uncertain  # type: ignore[attr-defined]
        assert len(collector.of("rolling")) == 1
        hello = collector.of("status")[1]
        assert (hello.device, hello.firmware) == ("sim-1", "sim-1.0")  # type: ignore[attr-defined]
        bridge.send(LedCommand(name="seat2", mode="blink"))
        assert wait_for(lambda: ("LED", "seat2", "BLINK") in simulator.commands)
        info = source.describe()
        assert info["connected"] and info["device"] == "sim-1" and info["rejected"] == 0
    finally:
        bridge.stop()


def test_the_source_reconnects_by_itself_within_two_seconds_of_the_device_returning(simulator: Simulator) -> None:
    bridge, source, collector = attach(simulator.url)
    try:
        assert wait_for(lambda: simulator.host_connections == 1 and source.connected)
        simulator.disconnect(0.5)
        simulator.roll("6")  # happens while the cable is out: must arrive once, after the reconnect
        assert wait_for(lambda: "disconnected" in collector.statuses())
        assert wait_for(lambda: time.monotonic() >= simulator.away_until)
        back = time.monotonic()
        assert wait_for(lambda: collector.statuses().count("connected") == 2, timeout=2.0)
        assert time.monotonic() - back < 2.0
        assert wait_for(lambda: table_events(collector) == [("roll", "6")])
        simulator.press("next")
        assert wait_for(lambda: len(table_events(collector)) == 3)
        assert table_events(collector) == [("roll", "6"), ("button", "next", "down"), ("button", "next", "up")]
        assert source.describe()["connects"] == 2
    finally:
        bridge.stop()


def test_every_event_arrives_exactly_once_through_heavy_noise() -> None:
    noise = Noise(checksum=0.15, split=0.2, merge=0.1, garbage=0.1, disconnect=0.03, outage=0.2)
    sim = Simulator(resend_ms=30, heartbeat_ms=200, seed=11, noise=noise).start()
    bridge, source, collector = attach(sim.url, backoff=(0.02, 0.1))
    try:
        expected = []
        for n in range(30):
            face = "123456"[n % 6]
            sim.roll(face, "L")
            expected.append(("roll", face, "L"))
            sim.button(f"b{n}", "held")
            expected.append(("button", f"b{n}", "held"))
        assert wait_for(lambda: len(table_events(collector)) >= len(expected), timeout=30)
        assert table_events(collector) == expected
        assert sim.noise_counts["checksum"] > 0 and sim.noise_counts["split"] > 0
        assert sim.noise_counts["disconnect"] > 0 and "disconnected" in collector.statuses()
        assert collector.of("rejected")  # the damage was seen and reported, not silently dropped
        assert source.describe()["rejected"] == len(collector.of("rejected"))
    finally:
        bridge.stop()
        sim.stop()


def test_the_simulator_also_speaks_on_a_pty() -> None:
    sim = Simulator(use_pty=True, resend_ms=40).start()
    bridge, _, collector = attach(sim.url)
    try:
        sim.timer("flat")
        assert wait_for(lambda: table_events(collector) == [("timer", "flat")])
    finally:
        bridge.stop()
        sim.stop()


# --- a hand-driven peer ------------------------------------------------------------------------

class Peer:
    """A TCP listener the source connects to; the test writes frames and reads the host's replies."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(5)
        self.url = f"socket://127.0.0.1:{self.listener.getsockname()[1]}"
        self.conn: socket.socket | None = None
        self.parser = FrameParser(HOST_KINDS)
        self.received: list = []

    def accept(self, source: SerialSource) -> None:
        """Accept the source's connection and wait until it is reading (opening a port discards
        whatever was already waiting in it, exactly as on a real serial line)."""
        self.conn, _ = self.listener.accept()
        self.conn.settimeout(0.01)
        assert wait_for(lambda: source.connected)

    def send(self, data: bytes) -> None:
        assert self.conn is not None
        self.conn.sendall(data)

    def acks(self) -> list[int | None]:
        assert self.conn is not None
        with contextlib.suppress(TimeoutError):
            self.received += self.parser.feed(self.conn.recv(4096))
        return [frame.seq for frame in self.received if frame.kind == "ACK"]

    def answers(self) -> list[tuple[str, int | None, tuple[str, ...]]]:
        """Every ACK and NAK so far, with its fields."""
        self.acks()
        return [(frame.kind, frame.seq, frame.fields) for frame in self.received]

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.listener.close()


@pytest.fixture
def peer() -> Iterator[Peer]:
    peer = Peer()
    yield peer
    peer.close()


def test_an_event_is_acked_only_when_settled_and_a_resend_is_delivered_once(peer: Peer) -> None:
    bridge, source, collector = attach(peer.url, auto_settle=False)
    try:
        peer.accept(source)
        roll = encode_frame("ROLL", 65535, "4")
        peer.send(roll)
        assert wait_for(lambda: len(collector.of("roll")) == 1)
        peer.send(roll + roll)  # the device resends while the app is still deciding
        peer.send(encode_frame("HB", 1, 10))  # (not a real device: it only proves the line is read)
        assert wait_for(lambda: peer.acks() == [1])  # the heartbeat needs no decision; the roll waits
        event = collector.of("roll")[0]
        assert event.ref == "serial:65535" and source.describe()["pending"] is None  # HB moved on
        peer.send(roll)  # so this is new again: delivered, waits
        assert wait_for(lambda: len(collector.of("roll")) == 2)
        assert source.describe()["pending"] == 65535
        bridge.settle(collector.of("roll")[1], True)
        assert wait_for(lambda: peer.acks() == [1, 65535])
        peer.send(roll)  # our ACK was "lost": the same answer again, not delivered again
        assert wait_for(lambda: peer.acks() == [1, 65535, 65535])
        bridge.settle(collector.of("roll")[1], True)  # settling twice answers nothing more
        peer.send(encode_frame("ROLL", 0, "5"))  # seq wrapped
        assert wait_for(lambda: len(collector.of("roll")) == 3)
        bridge.settle(collector.of("roll")[2], False, "roll.dice_count")
        assert wait_for(lambda: peer.answers()[-1] == ("NAK", 0, ("roll.dice_count",)))
        assert [(e.seq, e.values) for e in collector.of("roll")] == [  # type: ignore[attr-defined]
            (65535, ("4",)), (65535, ("4",)), (0, ("5",))]
        info = source.describe()
        assert (info["duplicates"], info["acked"], info["refused"], info["pending"]) == (3, 1, 1, None)
        with pytest.raises(ValueError):
            bridge.settle(collector.of("roll")[2], False, "not a code")
    finally:
        bridge.stop()


def test_a_restarted_device_drops_its_pending_frame_and_a_late_answer_is_not_sent(peer: Peer) -> None:
    bridge, source, collector = attach(peer.url, auto_settle=False)
    try:
        peer.accept(source)
        peer.send(encode_frame("ROLL", 0, "1"))
        assert wait_for(lambda: len(collector.of("roll")) == 1)
        peer.send(encode_frame("HELLO", "dev", "2.0", "GTP1") + encode_frame("ROLL", 0, "6"))  # restarted
        assert wait_for(lambda: len(collector.of("roll")) == 2)
        old, new = collector.of("roll")
        bridge.settle(old, True)  # the app answers the frame the device gave up: nothing goes out
        bridge.settle(new, True)
        assert wait_for(lambda: peer.acks() == [0])
        time.sleep(0.05)
        assert peer.acks() == [0] and source.describe()["acked"] == 1
    finally:
        bridge.stop()


def unplugged_while_pending(peer: Peer, source: SerialSource, collector: Collector, roll: bytes) -> None:
    """The device sends `roll`, and its cable comes out while the app has not answered it yet."""
    peer.accept(source)
    peer.send(roll)
    assert wait_for(lambda: len(collector.of("roll")) == 1)
    assert peer.conn is not None
    peer.conn.close()


def test_a_frame_pending_over_a_reconnect_is_answered_on_the_new_connection(peer: Peer) -> None:
    bridge, source, collector = attach(peer.url, auto_settle=False, backoff=(0.01, 0.02))
    try:
        roll = encode_frame("ROLL", 9, "2", "2")
        unplugged_while_pending(peer, source, collector, roll)
        assert wait_for(lambda: "disconnected" in collector.statuses())
        peer.accept(source)
        peer.send(roll)  # the device resends to the host that is back: not delivered twice
        assert wait_for(lambda: source.describe()["duplicates"] == 1)
        assert peer.acks() == []
        bridge.settle(collector.of("roll")[0], True)
        assert wait_for(lambda: peer.acks() == [9])
        assert len(collector.of("roll")) == 1
    finally:
        bridge.stop()


def test_an_answer_settled_while_the_port_is_closed_is_given_on_the_resend(peer: Peer) -> None:
    bridge, source, collector = attach(peer.url, auto_settle=False, backoff=(0.2, 0.2))
    try:
        roll = encode_frame("ROLL", 3, "6")
        unplugged_while_pending(peer, source, collector, roll)
        assert wait_for(lambda: not source.connected)
        bridge.settle(collector.of("roll")[0], True)  # the answer finds no port
        peer.accept(source)
        assert source.describe()["commands_dropped"] == 0  # an answer is not a lost command: it is kept
        peer.send(roll)
        assert wait_for(lambda: peer.acks() == [3])
        assert len(collector.of("roll")) == 1
    finally:
        bridge.stop()


def test_bad_frames_are_rejected_without_touching_the_connection(peer: Peer) -> None:
    bridge, source, collector = attach(peer.url)
    try:
        peer.accept(source)
        peer.send(b"\x00\xff garbage\r\n$ROLL,1,3*00\r\n$TIMER,2,FLIP*" + encode_frame("ROLLING", 3))
        assert wait_for(lambda: len(collector.of("rolling")) == 1)
        reasons = [e.reason for e in collector.of("rejected")]  # type: ignore[attr-defined]
        assert reasons == ["no $ at the start of a frame", "checksum mismatch", "noise before $"]
        assert wait_for(lambda: peer.acks() == [3])  # rejected frames are never ACKed
        assert source.connected and source.describe()["connects"] == 1
    finally:
        bridge.stop()


def test_silence_beyond_the_heartbeat_timeout_reports_link_lost_then_restored(peer: Peer) -> None:
    bridge, source, collector = attach(peer.url, heartbeat_timeout=0.3)
    try:
        peer.accept(source)
        peer.send(encode_frame("HB", 1, 10))
        assert wait_for(lambda: "link_lost" in collector.statuses(), timeout=3)
        lost_at = time.monotonic()
        peer.send(encode_frame("HB", 2, 20))
        assert wait_for(lambda: collector.statuses()[-1] == "connected")
        assert collector.of("status")[-1].detail == "link restored"  # type: ignore[attr-defined]
        assert time.monotonic() - lost_at < 1.0
    finally:
        bridge.stop()


def test_a_device_that_never_answers_is_reported_once_while_retrying(peer: Peer) -> None:
    url = peer.url
    peer.close()  # nobody listens
    bridge, source, collector = attach(url, backoff=(0.01, 0.02))
    try:
        assert wait_for(lambda: collector.statuses() == ["disconnected"])
        time.sleep(0.1)  # many attempts happen in this time; none adds a line
        assert collector.statuses() == ["disconnected"] and not source.connected
    finally:
        bridge.stop()


def test_without_a_url_the_device_is_found_by_usb_id(peer: Peer, monkeypatch: pytest.MonkeyPatch) -> None:
    ports = [SimpleNamespace(device="/dev/ttyS0", vid=None, pid=None),
             SimpleNamespace(device=peer.url, vid=0x2E8A, pid=0x0005)]
    monkeypatch.setattr("serial.tools.list_ports.comports", lambda: ports)
    assert find_port(((0x2E8A, 0x0005),)) == peer.url
    assert find_port(((0x1234, 0x5678),)) is None
    bridge, source, collector = attach(None)
    try:
        peer.accept(source)
        assert wait_for(lambda: collector.statuses() == ["connected"])
        assert source.describe()["port"] == peer.url
    finally:
        bridge.stop()


def test_no_matching_usb_device_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("serial.tools.list_ports.comports", list)
    bridge, _, collector = attach(None, usb_ids=((0x2341, 0x8036),))
    try:
        assert wait_for(lambda: collector.statuses() == ["disconnected"])
        assert "2341:8036" in (collector.of("status")[0].detail or "")  # type: ignore[attr-defined]
    finally:
        bridge.stop()


def test_usb_ids_and_urls_are_checked_up_front() -> None:
    assert parse_usb_id("2e8a:0005") == (0x2E8A, 0x0005)
    for bad in ("2E8A", "xyz:1", "12345:1"):
        with pytest.raises(ValueError):
            parse_usb_id(bad)
    with pytest.raises(ValueError):
        SerialSource("nosuchscheme://x")


def test_commands_while_disconnected_are_dropped_and_counted(peer: Peer) -> None:
    url = peer.url
    peer.close()  # nobody listens
    bridge, source, _ = attach(url)
    try:
        bridge.send(LedCommand(name="seat1", mode="on"))  # returns at once, never blocks the caller
        assert wait_for(lambda: source.commands_dropped == 1)
    finally:
        bridge.stop()


def test_ack_encoding_matches_what_the_peer_parses() -> None:
    assert FrameParser(HOST_KINDS).feed(encode_ack(7))[0].seq == 7  # type: ignore[union-attr]


def test_handlers_without_a_file_descriptor_are_read_too() -> None:
    # loop:// echoes what the host writes: our own LED command comes back and is refused as a device
    # frame, which proves the reader of handlers without fileno() (loop://, rfc2217://) works.
    bridge, source, collector = attach("loop://")
    try:
        assert wait_for(lambda: source.connected)
        bridge.send(LedCommand(name="seat1", mode="on"))
        assert wait_for(lambda: [e.reason for e in collector.of("rejected")]  # type: ignore[attr-defined]
                        == ["unknown frame type 'LED'"])
    finally:
        bridge.stop()


def test_the_simulator_drops_a_refused_roll_and_goes_on(simulator: Simulator) -> None:
    bridge, _, collector = attach(simulator.url, auto_settle=False)

    def referee(event: BridgeEvent) -> None:  # four dice are refused, five are recorded
        if isinstance(event, RollEvent):
            bridge.settle(event, len(event.values) == 5, None if len(event.values) == 5 else "roll.dice_count")
        elif event.seq is not None:
            bridge.settle(event, True)

    bridge.subscribe(referee)
    try:
        simulator.roll("B", "Y", "R", "G")
        simulator.roll("B", "Y", "R", "G", "W")
        assert wait_for(lambda: len(simulator.answers) == 2)
        assert [(kind, parse_frame(line).fields, reason) for kind, line, reason in simulator.answers] == [
            ("NAK", ("B", "Y", "R", "G"), "roll.dice_count"), ("ACK", ("B", "Y", "R", "G", "W"), None)]
        assert len(collector.of("roll")) == 2  # the refused roll was not resent
        assert simulator.device.refused == 1 and simulator.device.outstanding is None
    finally:
        bridge.stop()


def parse_frame(line: bytes) -> Frame:
    frame = FrameParser().feed(line)[0]
    assert isinstance(frame, Frame)
    return frame
