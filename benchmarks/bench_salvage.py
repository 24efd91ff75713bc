"""Salvage benchmark: how long `goldtable journal salvage` takes on a 1,000-game journal, and how many moves
come back when each page of a journal is damaged in turn.

Run: `.venv/bin/python benchmarks/bench_salvage.py [--games N] [--dir DIR]` (results go into
docs/performance.md by hand).

1. Time and memory.  A journal of `--games` whole Digger games (the example's table bot, 2-4 players,
   about 106 moves each; written in one transaction through the journal's own schema, so each game's
   setup is kept twice) is salvaged page by page into a new journal: intact, and with its `games` page
   and an interior page of the entries overwritten.  The baseline in the same run is SQLite reading every
   row of the same file through its trees (`SELECT` of the three tables) and writing them into a new file
   in one transaction: what a copy costs when nothing is damaged.  Memory: the peak resident size of a
   fresh process that salvages the journal, against the same process without the salvage.
2. Moves.  The issue's journal (three Digger games, 270 acknowledged moves, played through Session) and a
   larger one: every page damaged in turn, 64 bytes of garbage over its start and then the whole page;
   per page, how many acknowledged moves come back (in force or kept in a cut row), and whether every
   move not stored on that page did (the promise).
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from random import Random

from companion.engine.core import Player
from companion.engine.journal import Journal
from companion.engine.salvage import move_pages, salvage_file, salvaged_moves
from companion.engine.session import Session
from companion.games.digger.example import EXAMPLE_SETUP, play_example

PAGE = 4096
NAMES = (Player(name="Anna"), Player(name="Jonas"), Player(name="Marie"), Player(name="Felix"))


def thousand_games(path: Path, games: int) -> int:
    """A journal of `games` whole Digger games, written in one transaction; returns the moves in it."""
    Journal(path).close()  # today's schema, with the trigger that keeps each setup twice
    records = [play_example(EXAMPLE_SETUP.evolve(seed=seed, players=NAMES[:2 + seed % 3], first_player=0))
               for seed in range(40)]  # 40 distinct games, repeated: the layout is what counts here
    moves = 0
    conn = sqlite3.connect(path)
    with conn:
        for game in range(1, games + 1):
            record = records[game % len(records)]
            conn.execute("INSERT INTO games (id, game, setup, created, finished) VALUES (?, 'digger', ?, ?, ?)",
                         (game, record.setup().model_dump_json(), record.started.isoformat() if record.started
                          else "2026-01-01T10:00:00+00:00", "2026-01-01T11:00:00+00:00"))
            conn.executemany("INSERT INTO entries (game_id, n, kind, at, source, action) VALUES (?, ?, 'action', ?, "
                             "?, ?)", [(game, n, entry.at.isoformat(), entry.source, json.dumps(entry.action))
                                       for n, entry in enumerate(record.actions)])
            moves += len(record.actions)
    conn.close()
    return moves


def baseline(path: Path, target: Path) -> float:
    """SQLite reads every row through its trees and writes them into a new file: seconds."""
    began = time.perf_counter()
    source = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    tables = {name: source.execute(f"SELECT * FROM {name}").fetchall() for name in ("games", "entries", "clocks")}
    source.close()
    copy = sqlite3.connect(target)
    with copy:
        copy.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, game, setup, created, finished)")
        copy.execute("CREATE TABLE entries (game_id, n, kind, at, source, action, ref, PRIMARY KEY (game_id, n))")
        copy.execute("CREATE TABLE clocks (game_id INTEGER PRIMARY KEY, state, saved)")
        for name, rows in tables.items():
            if rows:
                copy.executemany(f"INSERT INTO {name} VALUES ({', '.join('?' * len(rows[0]))})", rows)
    copy.close()
    return time.perf_counter() - began


def pages_of(path: Path, name: str, kind: str) -> list[int]:
    conn = sqlite3.connect(path)
    try:
        return [page for page, page_type in conn.execute("SELECT pageno, pagetype FROM dbstat WHERE name = ?",
                                                         (name,)) if page_type == kind]
    finally:
        conn.close()


def damaged_copy(path: Path, copy: Path, page: int, size: int, rng: Random) -> None:
    data = bytearray(path.read_bytes())
    data[(page - 1) * PAGE:(page - 1) * PAGE + size] = rng.randbytes(size)
    copy.write_bytes(bytes(data))


def heap_peak(call: str) -> float:
    """The Python heap's peak (MB, tracemalloc) while a fresh interpreter runs `call` (this script's
    functions importable); SQLite's own page cache (2 MB by default) is not counted."""
    script = (f"import sys, tracemalloc; sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
              f"from pathlib import Path\nfrom bench_salvage import baseline, salvage_file\n"
              f"tracemalloc.start()\n{call}\nprint(tracemalloc.get_traced_memory()[1])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[-1]) / 2**20


def bench_time(folder: Path, games: int) -> None:
    path = folder / "thousand.sqlite3"
    moves = thousand_games(path, games)
    print(f"journal: {games} games, {moves} moves, {path.stat().st_size / 1e6:.1f} MB, "
          f"{path.stat().st_size // PAGE} pages")
    base = statistics.median(baseline(path, folder / f"baseline-{run}.sqlite3") for run in range(3))
    print(f"baseline (SQLite reads every row through its trees, writes a new file): median {base:.2f} s")
    cases = {"intact": None, "games page hit": pages_of(path, "games", "leaf")[0],
             "entries interior page hit": pages_of(path, "entries", "internal")[0]}
    for label, page in cases.items():
        source = path
        if page is not None:
            source = folder / "damaged.sqlite3"
            damaged_copy(path, source, page, PAGE, Random(page))
        times = []
        for run in range(3):
            target = folder / f"salvaged-{label}-{run}.sqlite3"
            began = time.perf_counter()
            report = salvage_file(source, target)
            times.append(time.perf_counter() - began)
            target.unlink()
        middle = statistics.median(times)
        print(f"salvage, {label}: median {middle:.2f} s = {middle / base:.1f}x the baseline; "
              f"{len(report.copied)} games, {report.moves} of {moves} moves, {len(report.cut)} cut, "
              f"{len(report.lost)} lost")
    salvaging = heap_peak(f"salvage_file(Path({str(path)!r}), Path({str(folder / 'peak.sqlite3')!r}))")
    reading = heap_peak(f"baseline(Path({str(path)!r}), Path({str(folder / 'peak-base.sqlite3')!r}))")
    print(f"Python heap at its peak: salvage {salvaging:.0f} MB, baseline {reading:.0f} MB "
          f"({salvaging / reading:.1f}x; file {path.stat().st_size / 2**20:.1f} MB)")


def played_journal(path: Path, games: int, seed: int) -> None:
    """`games` Digger games of 90 moves each (two players), played through Session like the issue's."""
    journal = Journal(path)
    for index in range(games):
        record = play_example(EXAMPLE_SETUP.evolve(seed=seed + index, players=NAMES[:2], first_player=0))
        session = Session.new(record.setup(), journal)
        for entry in record.actions[:90]:
            assert session.submit(dict(entry.action), entry.source, entry.at).accepted
    journal.close()


def bench_sweep(folder: Path, games: int, seed: int) -> None:
    path = folder / f"sweep-{games}.sqlite3"
    played_journal(path, games, seed)
    stored = move_pages(path)
    pages = path.stat().st_size // PAGE
    print(f"sweep: {games} Digger games, {len(stored)} acknowledged moves, {pages} pages")
    rng = Random(seed)
    for label, size in (("64 bytes over the page's start", 64), ("the whole page", PAGE)):
        back, promised, games_lost, seconds = [], [], 0, []
        for page in range(1, pages + 1):
            copy, target = folder / "sweep-damaged.sqlite3", folder / "sweep-salvaged.sqlite3"
            damaged_copy(path, copy, page, size, rng)
            began = time.perf_counter()
            report = salvage_file(copy, target)
            seconds.append(time.perf_counter() - began)
            found = set(salvaged_moves(target)) & set(stored)
            back.append(len(found))
            promised.append({key for key, on in stored.items() if page not in on} <= found)
            games_lost += len(report.lost)
            target.unlink()
        print(f"  {label}: moves back per damaged page min {min(back)}, median {statistics.median(back):.0f}, "
              f"max {max(back)} of {len(stored)}; every move not on the page back for {sum(promised)} of {pages} "
              f"pages; games lost {games_lost}; salvage median {statistics.median(seconds) * 1000:.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games in the journal for the timing")
    parser.add_argument("--dir", type=Path, default=None, help="directory for the temporary journals")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="goldtable-bench-", dir=args.dir) as name:
        bench_time(Path(name), args.games)
        bench_sweep(Path(name), 3, seed=1)
        bench_sweep(Path(name), 12, seed=100)
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
