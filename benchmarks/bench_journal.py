"""Journal benchmark: how long one durable append takes (the wait between an input and the table's "OK").

Run: `.venv/bin/python benchmarks/bench_journal.py [--actions N] [--dir DIR]` (results go into
docs/performance.md by hand).  Appends real Digger actions to a fresh journal in a temporary file
(WAL, synchronous=FULL, so every append is an fsync), first straight through `Journal.append`, then the
whole `Session.submit` (parse, validate, journal, apply).  Put `--dir` on the disk you care about: the
fsync makes the result a property of the storage (SD card, USB SSD, tmpfs) more than of the code.
"""

from __future__ import annotations

import argparse
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


def bench_append(directory: Path, count: int) -> None:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=2000, help="appends to time")
    parser.add_argument("--dir", type=Path, default=None, help="directory for the temporary journal")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="goldtable-bench-", dir=args.dir) as name:
        print(f"journal in {name}")
        bench_append(Path(name), args.actions)
        bench_submit(Path(name))


if __name__ == "__main__":
    main()
