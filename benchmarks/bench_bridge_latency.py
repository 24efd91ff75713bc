"""Latency to the event callback (serial frame, GPIO edge) and to the device's ACK (serial).

    .venv/bin/python benchmarks/bench_bridge_latency.py [--samples N] [--dir DIR]

Serial: a TCP peer plays the device; the clock starts as the whole frame is handed to `sendall` (so its
last byte leaves at once) and stops inside the Bridge subscriber (reader thread: chunked read, parse,
event, dispatch).
GPIO: gpiozero's MockFactory; the clock starts just before `drive_low()` and stops in the subscriber.
Mock pins call back on the driving thread, so this measures gpiozero's edge path plus our debounce,
event and dispatch, not the kernel's GPIO interrupt latency on a Pi.  Goal: p99 <= 5 ms.
ACK: the peer sends a five-dice ROLL and waits for its `$ACK`; the clock runs from handing the frame to
`sendall` to the ACK parsed by the peer.  Three paths in the same run: the old one (the reader writes
the ACK as soon as the frame parses: the "ACK at parse" baseline), settled at once by the subscriber
(the extra hop through settle and the writer thread), and the real contract: a journalled
`Session.submit` (SQLite, fsync, in DIR) before settling.  Goal for the last: p99 <= 20 ms.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

from firmware_bridge.events import BridgeEvent
from firmware_bridge.hub import Bridge, Source
from firmware_bridge.protocol import HOST_KINDS, Frame, FrameParser, encode_ack, encode_frame, frame_to_event


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
    return f"{p50:.3f} | {p99:.3f} | {ordered[-1] * 1000:.3f}"


def connected_device(bridge: Bridge, listener: socket.socket, source: Source) -> socket.socket:
    """Start the bridge and take its serial source's connection as the device's end (no Nagle delay),
    once the source says it is connected."""
    bridge.start()
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while not source.connected:
        time.sleep(0.001)
    return conn


def bench_serial(samples: int) -> list[float]:
    from firmware_bridge.serial_source import SerialSource

    listener = socket.create_server(("127.0.0.1", 0))
    bridge = Bridge()
    source = bridge.add_source(SerialSource(f"socket://127.0.0.1:{listener.getsockname()[1]}"))
    arrived = threading.Event()
    stamp: list[float] = []

    def on_event(event: BridgeEvent) -> None:
        if event.event == "roll":
            stamp.append(time.perf_counter())
            arrived.set()

    bridge.subscribe(on_event)
    conn = connected_device(bridge, listener, source)
    draining = True

    def drain() -> None:  # read the ACKs so the host never waits on a full socket
        conn.settimeout(0.1)
        while draining:
            try:
                if not conn.recv(65536):
                    return
            except TimeoutError:
                continue

    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    latencies = []
    frames = [encode_frame("ROLL", seq % 65536, "3", "5") for seq in range(samples + 50)]
    for index, frame in enumerate(frames):
        arrived.clear()
        stamp.clear()
        start = time.perf_counter()  # before the write, so the callback can never beat the clock
        conn.sendall(frame)
        if not arrived.wait(2.0):
            raise RuntimeError("a frame got no event within 2 s")
        if index >= 50:  # warm-up
            latencies.append(stamp[0] - start)
        time.sleep(0.001)
    draining = False
    bridge.stop()
    drainer.join()
    conn.close()
    listener.close()
    return latencies


def bench_ack(samples: int, path: str, directory: Path | None = None) -> list[float]:
    """`path`: "parse" (the old ACK at parse), "settled" (settled at once), "journalled" (submit first)."""
    from companion.engine.core import Player, Setup
    from companion.engine.journal import Journal
    from companion.engine.session import Session
    from firmware_bridge.serial_source import SerialSource

    class AckAtParse(SerialSource):
        """The reader path before ACK meant recorded: ACK written first, then the event delivered."""

        def _on_frame(self, frame: Frame) -> bool:
            if frame.seq is not None and not self._write(encode_ack(frame.seq)):
                return False
            event = frame_to_event(frame, self.name)
            if event is not None:
                self._deliver(event)
            return True

    listener = socket.create_server(("127.0.0.1", 0))
    url = f"socket://127.0.0.1:{listener.getsockname()[1]}"
    bridge = Bridge()
    source = bridge.add_source(AckAtParse(url) if path == "parse" else SerialSource(url))
    with tempfile.TemporaryDirectory(prefix="goldtable-bench-", dir=directory) as folder:
        journal = Journal(Path(folder) / "journal.sqlite3") if path == "journalled" else None
        session = Session.new(Setup(game="digger", players=(Player(name="A"), Player(name="B"))), journal)

        def on_event(event: BridgeEvent) -> None:
            if path == "journalled" and event.event == "roll":
                outcome = session.submit({"type": "roll", "values": list(event.values)},  # type: ignore[union-attr]
                                         "serial", ref=event.ref)
                bridge.settle(event, outcome.accepted, None if outcome.refusal is None else outcome.refusal.code)
            elif path == "settled":
                bridge.settle(event, True)

        bridge.subscribe(on_event)
        conn = connected_device(bridge, listener, source)
        parser = FrameParser(HOST_KINDS)
        latencies = []
        for index in range(samples + 50):
            seq = index % 65536
            start = time.perf_counter()
            conn.sendall(encode_frame("ROLL", seq, "B", "Y", "R", "G", "W"))
            acked = False
            while not acked:
                data = conn.recv(4096)
                if not data:
                    raise RuntimeError("the host closed the connection")
                acked = any(frame.kind == "ACK" and frame.seq == seq for frame in parser.feed(data)
                            if isinstance(frame, Frame))
            if index >= 50:  # warm-up
                latencies.append(time.perf_counter() - start)
            time.sleep(0.001)
        bridge.stop()
        conn.close()
        listener.close()
        if journal is not None:
            journal.close()
    return latencies


def bench_gpio(samples: int) -> list[float]:
    from gpiozero.pins.mock import MockFactory

    from firmware_bridge.config import PinMap
    from firmware_bridge.gpio import GpioSource

    factory = MockFactory()
    fake_now = [0.0]

    def clock() -> float:  # every edge is a real change, far outside the debounce window
        fake_now[0] += 1.0
        return fake_now[0]

    bridge = Bridge()
    bridge.add_source(GpioSource(PinMap(buttons={"confirm": 5}), factory, clock, tick_interval=None))
    stamp: list[float] = []
    bridge.subscribe(lambda event: stamp.append(time.perf_counter()) if event.event == "button" else None)
    bridge.start()
    pin = factory.pin(5)
    latencies = []
    for index in range(samples + 50):
        stamp.clear()
        start = time.perf_counter()
        (pin.drive_low if index % 2 == 0 else pin.drive_high)()
        if index >= 50:
            latencies.append(stamp[0] - start)
    bridge.stop()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--dir", type=Path, help="folder for the journal of the ACK benchmark (default: the "
                                                 "system's temporary folder); use the Pi's SD card there")
    args = parser.parse_args()
    print(f"{args.samples} samples each; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| path | p50 ms | p99 ms | max ms |")
    print("| --- | --- | --- | --- |")
    print(f"| serial frame last byte -> callback (socket://) | {percentiles(bench_serial(args.samples))} |")
    print(f"| GPIO edge -> callback (MockFactory) | {percentiles(bench_gpio(args.samples))} |")
    for path, label in (("parse", "ROLL last byte -> ACK, ACK at parse (old baseline)"),
                        ("settled", "ROLL last byte -> ACK, settled at once by the subscriber"),
                        ("journalled", "ROLL last byte -> ACK, journalled Session.submit then settle")):
        print(f"| {label} | {percentiles(bench_ack(args.samples, path, args.dir))} |")


if __name__ == "__main__":
    main()
