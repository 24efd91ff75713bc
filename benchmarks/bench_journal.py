"""Journal benchmark: how long one durable append takes (the wait between an input and the table's "OK").

Run: `.venv/bin/python benchmarks/bench_journal.py [--actions N] [--dir DIR]` (results go into
docs/performance.md by hand).  Appends real Digger actions to a fresh journal in a temporary file
(WAL, synchronous=FULL, so every append is an fsync), first straight through `Journal.append`, then the
whole `Session.submit` (parse, validate, journal, apply).  Put `--dir` on the disk you care about: the
fsync makes the result a property of the storage (SD card, USB SSD, tmpfs) more than of the code, so the
same run first times a bare baseline on that disk (write 4 KiB + fsync) and reports the append against it.
Last, the Home screen's Resume line (`latest_unfinished_summary`) against listing every game, in a
journal of `--games` finished games.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.record import RecordedAction, now_utc
from companion.engine.session import Session
from companion.games.digger.example import play_example


def percentiles(samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return (f"p50 {statistics.median(ordered):.2f} ms, p99 {p99:.2f} ms, max {ordered[-1]:.2f} ms "
            f"({len(ordered)} appends)")


def median_ms(samples_ms: list[float]) -> float:
    return statistics.median(samples_ms)


def bench_fsync(directory: Path, count: int) -> float:
    """The floor any durable append pays on this disk: one small write and its fsync."""
    samples: list[float] = []
    fd = os.open(directory / "fsync.bin", os.O_WRONLY | os.O_CREAT)
    try:
        for index in range(count):
            began = time.perf_counter()
            os.pwrite(fd, b"x" * 4096, (index % 16) * 4096)
            os.fsync(fd)
            samples.append((time.perf_counter() - began) * 1000)
    finally:
        os.close(fd)
    print(f"baseline write 4 KiB + fsync: {percentiles(samples)}")
    return median_ms(samples)


def bench_append(directory: Path, count: int) -> float:
    actions = [entry.action for entry in play_example().actions]
    journal = Journal(directory / "append.sqlite3")
    game_id = journal.new_game(Setup(game="digger", players=(Player(name="A"), Player(name="B"))))
    samples: list[float] = []
    for index in range(count):
        entry = RecordedAction(at=now_utc(), source="touch", action=actions[index % len(actions)])
        began = time.perf_counter()
        journal.append(game_id, "action", entry)
        samples.append((time.perf_counter() - began) * 1000)
    journal.close()
    print(f"Journal.append: {percentiles(samples)}")
    return median_ms(samples)


def bench_submit(directory: Path) -> None:
    record = play_example()
    journal = Journal(directory / "submit.sqlite3")
    session = Session.new(record.setup(), journal)
    samples: list[float] = []
    for entry in record.actions:
        began = time.perf_counter()
        outcome = session.submit(entry.action, entry.source, entry.at)
        samples.append((time.perf_counter() - began) * 1000)
        assert outcome.accepted
    journal.close()
    print(f"Session.submit with journal (one whole example game): {percentiles(samples)}")


def bench_resume_line(directory: Path, games: int) -> None:
    """Resume line (one summary query + that game's rows) against `games()` (every game read in full)."""
    path = directory / "resume.sqlite3"
    Journal(path).close()
    record = play_example()
    setup_json = record.setup().model_dump_json()
    conn = sqlite3.connect(path)
    with conn:  # filled in one transaction: this part is about reading
        for game in range(1, games + 1):
            finished = None if game == 1 else "2026-01-01T12:00:00+00:00"
            conn.execute("INSERT INTO games (id, game, setup, created, finished) VALUES (?, 'digger', ?, ?, ?)",
                         (game, setup_json, "2026-01-01T10:00:00+00:00", finished))
            conn.executemany("INSERT INTO entries (game_id, n, kind, at, source, action) VALUES (?, ?, 'action', ?, "
                             "?, ?)", [(game, n, entry.at.isoformat(), entry.source, json.dumps(entry.action))
                                       for n, entry in enumerate(record.actions)])
    conn.close()
    journal = Journal(path)
    for name, call in (("latest_unfinished_summary", journal.latest_unfinished_summary),
                       ("games (every game read)", journal.games)):
        samples = []
        for _ in range(5):
            began = time.perf_counter()
            call()
            samples.append((time.perf_counter() - began) * 1000)
        print(f"{name} with {games} games of {len(record.actions)} actions: median {median_ms(samples):.1f} ms")
    journal.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=2000, help="appends to time")
    parser.add_argument("--dir", type=Path, default=None, help="directory for the temporary journal")
    parser.add_argument("--games", type=int, default=200, help="finished games for the Resume-line timing")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="goldtable-bench-", dir=args.dir) as name:
        print(f"journal in {name}")
        floor = bench_fsync(Path(name), args.actions)
        append = bench_append(Path(name), args.actions)
        print(f"append / baseline (medians): {append / floor:.2f}")
        bench_submit(Path(name))
        bench_resume_line(Path(name), args.games)


if __name__ == "__main__":
    main()
