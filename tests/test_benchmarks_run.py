"""Every quick benchmark still runs to its last line with tiny sizes, so a change of the app's shape
breaks the test, not the next person who measures (bench_history stopped at its first step for a
while after the app split).  Nothing here is timed: the numbers are the benchmarks' business."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RUNS = {
    "bench_history.py --games 2": "3. longest frame while it fills",
    "bench_journal.py --actions 10 --games 2": "games (every game read)",
    "bench_salvage.py --games 2": "the whole page: moves back",
    "bench_bridge_parser.py --lines 500 --repeat 1": "... + pydantic event per frame",
    "bench_digger.py --seconds 0.2": "replay, from JSON text",
    "bench_gold_connection.py --games 1": "`validate` of one move",
    "bench_bridge_latency.py --samples 5": "journalled Session.submit then settle",
    "bench_settings_save.py --changes 2 --fsync-ms 20": "on the calling thread, slow card (fsync +20 ms) | 2 |",
}
#: These slow the card down with a shim they compile (tests/slow_fsync.c).
NEEDS_CC = {"bench_settings_save.py"}


@pytest.mark.parametrize("command", sorted(RUNS))
def test_the_benchmark_runs_to_its_last_line(command: str, tmp_path: Path) -> None:
    script, *arguments = command.split()
    if script in NEEDS_CC and not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no C compiler to build the slow-fsync shim")
    env = {**os.environ, "KIVY_NO_ARGS": "1", "KIVY_HOME": str(tmp_path / "kivy"), "HOME": str(tmp_path),
           "TMPDIR": str(tmp_path)}
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *arguments], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert RUNS[command] in result.stdout, result.stdout[-2000:]
