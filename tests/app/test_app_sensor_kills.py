"""ACK means recorded, through the whole app: the real app (offscreen, its hardware link, table
controller and journal) is killed with SIGKILL at random moments while a simulated sensor keeps rolling.
Every roll the sensor saw ACKed must be in the journal exactly once.

Starting the app costs a few seconds, so the default run kills it GOLDTABLE_APP_KILLS=8 times; the
protocol-and-session path alone is killed 110 times in tests/bridge/test_kill_durability.py, and
`GOLDTABLE_APP_KILLS=100` runs this one at full length (docs/performance.md has the result).  It runs
twice: on this machine's disk, and with every fsync of the app slowed to 100 ms (an SD card's), so that
most kills land while a commit waits on the writer thread.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from companion.engine.journal import Journal
from firmware_bridge.protocol import Frame, FrameParser
from firmware_bridge.simulator import Simulator
from tests.app.sensor_app import SOURCE
from tests.slow_disk import slow_fsync_env, slow_fsync_library

ROOT = Path(__file__).resolve().parents[2]
COLOURS = "BYRGWK"


def seq_of(line: bytes) -> int:
    frame = FrameParser().feed(line)[0]
    assert isinstance(frame, Frame) and frame.seq is not None
    return frame.seq


def start_app(data: Path, url: str, env: dict[str, str]) -> subprocess.Popen[str]:
    env = {**env, "PYTHONPATH": str(ROOT), "KIVY_NO_ARGS": "1"}
    child = subprocess.Popen([sys.executable, "-m", "tests.app.sensor_app", str(data), url], cwd=ROOT, env=env,
                             stdout=subprocess.PIPE, stderr=(data / "app.err").open("a"), text=True)
    assert child.stdout is not None
    line = child.stdout.readline()
    assert line.startswith("READY"), (data / "app.err").read_text()[-3000:]
    return child


@pytest.mark.parametrize("fsync_ms", [0, 100])
def test_no_roll_acked_by_the_app_is_lost_over_repeated_kills(tmp_path: Path, fsync_ms: int) -> None:
    kills = int(os.environ.get("GOLDTABLE_APP_KILLS", "8"))
    env = dict(os.environ)
    if fsync_ms:
        library = slow_fsync_library(tmp_path)
        if library is None:
            pytest.skip("no C compiler to build the slow-fsync shim")
        env = slow_fsync_env(library, fsync_ms)
    rng = random.Random(7)
    simulator = Simulator(resend_ms=20, heartbeat_ms=500, seed=7).start()
    sent = 0

    def keep_rolling() -> None:
        nonlocal sent
        while sent - len(simulator.answers) < 5:
            simulator.roll(*rng.choices(COLOURS, k=5))
            sent += 1

    try:
        for _ in range(kills):
            keep_rolling()
            child = start_app(tmp_path, simulator.url, env)
            deadline = time.monotonic() + rng.uniform(0.05, 0.6)
            while time.monotonic() < deadline:
                keep_rolling()
                time.sleep(0.005)
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        child = start_app(tmp_path, simulator.url, env)  # a last app answers what is still waiting
        drained = time.monotonic() + 60
        while (len(simulator.answers) < sent or simulator.device.outstanding) and time.monotonic() < drained:
            time.sleep(0.02)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    finally:
        simulator.stop()
    assert len(simulator.answers) == sent, f"{sent - len(simulator.answers)} rolls never answered"

    journal = Journal(tmp_path / "journal.sqlite3", read_only=True)
    try:
        recorded = [entry for game in journal.games() for entry in journal.actions(game.id) if entry.ref]
    finally:
        journal.close()
    refs = Counter(entry.ref for entry in recorded)
    assert not [ref for ref, count in refs.items() if count > 1], "a frame was played twice"
    acked = {f"{SOURCE}:{seq_of(line)}" for kind, line, _reason in simulator.answers if kind == "ACK"}
    lost = sorted(acked - set(refs))
    assert acked and not lost, f"ACKed but not in the journal: {lost}"
    assert set(refs) <= acked  # nothing recorded that the sensor was not told about
    print(f"{kills} kills of the app (fsync +{fsync_ms} ms), {len(acked)} rolls ACKed, "
          f"{sum(kind == 'NAK' for kind, _line, _reason in simulator.answers)} refused")
