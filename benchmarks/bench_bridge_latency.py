"""Latency to the event callback: from a frame's last byte on a socket:// link, and from a GPIO edge.

    .venv/bin/python benchmarks/bench_bridge_latency.py [--samples N]

Serial: a TCP peer plays the device; the clock starts as the whole frame is handed to `sendall` (so its
last byte leaves at once) and stops inside the Bridge subscriber (reader thread: chunked read, parse, ACK, event, dispatch).
GPIO: gpiozero's MockFactory; the clock starts just before `drive_low()` and stops in the subscriber.
Mock pins call back on the driving thread, so this measures gpiozero's edge path plus our debounce,
event and dispatch, not the kernel's GPIO interrupt latency on a Pi.  Goal: p99 <= 5 ms.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import threading
import time

from firmware_bridge.events import BridgeEvent
from firmware_bridge.hub import Bridge
from firmware_bridge.protocol import encode_frame


def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)
    p50 = statistics.median(ordered) * 1000
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
    return f"{p50:.3f} | {p99:.3f} | {ordered[-1] * 1000:.3f}"


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
    bridge.start()
    conn, _ = listener.accept()
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while not source.connected:
        time.sleep(0.001)
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
    args = parser.parse_args()
    print(f"{args.samples} samples each")
    print("| path | p50 ms | p99 ms | max ms |")
    print("| --- | --- | --- | --- |")
    print(f"| serial frame last byte -> callback (socket://) | {percentiles(bench_serial(args.samples))} |")
    print(f"| GPIO edge -> callback (MockFactory) | {percentiles(bench_gpio(args.samples))} |")


if __name__ == "__main__":
    main()
