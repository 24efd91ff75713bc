"""GTP/1 parser throughput: lines per second through `FrameParser.feed`, and with events built.

    .venv/bin/python benchmarks/bench_bridge_parser.py [--lines N] [--repeat R]

The stream is a realistic mix (rolls of 1-5 dice, rolling, buttons, timer, heartbeats) with varying seq
numbers, fed in 4 KiB chunks the way serial reads deliver it.  Goal: at least 200,000 lines/s.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time

from firmware_bridge.protocol import Frame, FrameParser, encode_frame, frame_to_event


def make_stream(lines: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    out = []
    for index in range(lines):
        seq = index % 65536
        kind = rng.random()
        if kind < 0.35:
            out.append(encode_frame("ROLL", seq, *rng.choices("123456L?", k=rng.randint(1, 5))))
        elif kind < 0.5:
            out.append(encode_frame("ROLLING", seq))
        elif kind < 0.75:
            out.append(encode_frame("BTN", seq, rng.choice(("confirm", "undo", "next", "value_3")),
                                    rng.choice(("DOWN", "UP", "HELD"))))
        elif kind < 0.85:
            out.append(encode_frame("TIMER", seq, rng.choice(("FLIP", "FLAT"))))
        else:
            out.append(encode_frame("HB", seq, rng.randrange(10**9)))
    return b"".join(out)


def run(stream: bytes, lines: int, with_events: bool) -> tuple[float, float]:
    """(wall seconds, CPU seconds) to parse the whole stream once, garbage collector off.

    CPU time is what the parser costs; wall time also counts the moments the shared machine gave the
    core to someone else."""
    chunks = [stream[i:i + 4096] for i in range(0, len(stream), 4096)]
    parser = FrameParser()
    gc.disable()
    try:
        start, cpu_start = time.perf_counter(), time.process_time()
        for chunk in chunks:
            items = parser.feed(chunk)
            if with_events:
                for item in items:
                    if isinstance(item, Frame):
                        frame_to_event(item, "serial")
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    finally:
        gc.enable()
    assert parser.frames == lines and parser.rejected == 0
    return elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    stream = make_stream(args.lines)
    print(f"{args.lines} lines, {len(stream) / args.lines:.1f} bytes per line on average, 4 KiB chunks")
    print("| stage | lines/s per CPU second (median) | lines/s wall clock (median) | best wall |")
    print("| --- | --- | --- | --- |")
    for label, with_events in (("framing + checksum + fields -> Frame", False),
                               ("... + pydantic event per frame", True)):
        runs = [run(stream, args.lines, with_events) for _ in range(args.repeat)]
        wall = [args.lines / elapsed for elapsed, _ in runs]
        cpu = [args.lines / used for _, used in runs]
        print(f"| {label} | {statistics.median(cpu):,.0f} | {statistics.median(wall):,.0f} | {max(wall):,.0f} |")


if __name__ == "__main__":
    main()
