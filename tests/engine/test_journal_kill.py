"""Kill-and-resume: a process killed with SIGKILL mid-game resumes with every acknowledged action."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine.journal import Journal
from companion.engine.session import Session

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("seed", "kill_after"), [(1, 5), (2, 40), (3, 90)])
def test_sigkill_mid_game_resumes_with_every_acknowledged_action(tmp_path: Path, seed: int,
                                                                 kill_after: int) -> None:
    journal_path = tmp_path / "journal.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "tests.engine.journal_writer", str(journal_path), str(seed)],
                             cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    acknowledged: list[dict[str, object]] = []
    game_id = None
    try:
        assert child.stdout is not None
        for line in child.stdout:
            word, _, rest = line.partition(" ")
            if word == "GAME":
                game_id = int(rest)
            elif word == "ACK":
                acknowledged.append(json.loads(rest.partition(" ")[2]))
                if len(acknowledged) >= kill_after:
                    break
            elif word == "OVER":
                break
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert game_id is not None and len(acknowledged) == kill_after

    resumed = Session.resume(Journal(journal_path), game_id)
    journalled = [entry.action for entry in resumed.actions]
    # Every acknowledged action is there, in order.  The child does not wait for us to read its ACK lines,
    # so it may have journalled a few more before the kill landed.
    assert journalled[:len(acknowledged)] == acknowledged
    # The resumed game goes on.
    if not resumed.is_over():
        assert resumed.submit(resumed.game.legal_actions(resumed.state)[0], "touch").accepted
