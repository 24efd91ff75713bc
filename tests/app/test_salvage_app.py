"""The app started on a damaged journal: the user's file is left as it is, Home offers Salvage, and one tap
later the salvaged journal is open and its game resumes and plays; a game cut by the lost page goes on
from its last move before the gap and the table is told how many moves were lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from random import Random

import pytest

from companion.engine.core import Player
from companion.engine.journal import Journal
from companion.engine.salvage import move_pages
from companion.engine.session import Session
from companion.games.digger.example import EXAMPLE_SETUP, play_example
from tests.engine.journal_faults import digest, digger_journal

ROOT = Path(__file__).resolve().parents[2]
PAGE = 4096


def _damaged_journal(folder: Path) -> tuple[Path, int, int]:
    """Two Digger games, then a third left unfinished after 90 moves; the whole page in the middle of
    that game's moves is garbage.  Returns the journal, the game's id and its first row on that page."""
    path = folder / "journal.sqlite3"
    digger_journal(path, seed=11, games=2)
    journal = Journal(path)
    record = play_example(EXAMPLE_SETUP.evolve(seed=99, players=(Player(name="Ada"), Player(name="Bo")),
                                               first_player=0))
    session = Session.new(record.setup(), journal)
    for entry in record.actions[:90]:
        assert session.submit(entry.action, entry.source, entry.at).accepted
    assert session.game_id is not None and not session.is_over()
    journal.close()
    game_id = session.game_id
    rows = {n: on for (game, n), on in move_pages(path).items() if game == game_id}
    middle = sorted({page for on in rows.values() for page in on})[1]  # the game's second page of moves
    first = min(n for n, on in rows.items() if middle in on)
    data = bytearray(path.read_bytes())
    data[(middle - 1) * PAGE:middle * PAGE] = Random(5).randbytes(PAGE)
    path.write_bytes(bytes(data))
    return path, game_id, first


@pytest.mark.ui
def test_the_app_starts_on_a_damaged_journal_and_one_tap_later_resumes_its_game(tmp_path: Path) -> None:
    path, game_id, first_lost = _damaged_journal(tmp_path)
    assert first_lost > 1
    damaged = path.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GOLDTABLE_DATA": str(tmp_path), "KIVY_NO_ARGS": "1",
           "KIVY_HOME": str(tmp_path / "kivy")}
    child = subprocess.run([sys.executable, "-m", "tests.app.salvage_app", str(tmp_path)], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=240)
    steps = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in child.stdout.splitlines()
             if line.split(" ", 1)[0] in ("OFFERED", "SALVAGING", "SALVAGED", "RESUMED", "PLAYED")}
    assert list(steps) == ["OFFERED", "SALVAGING", "SALVAGED", "RESUMED", "PLAYED"], child.stderr[-3000:]
    offered = steps["OFFERED"]
    assert offered["screen"] == "home" and offered["resume"] == ""
    assert f"The game journal {path} is damaged" in offered["notice"] and "Salvage copies" in offered["notice"]
    salvaged = steps["SALVAGED"]
    assert not salvaged["offered"] and salvaged["notice"].startswith("The journal was salvaged (games: 3, moves: ")
    assert "Games cut by a damaged page: 1;" in salvaged["notice"]
    assert salvaged["resume"] == f"Resume Digger: Ada, Bo ({first_lost} moves)"
    resumed = steps["RESUMED"]
    assert resumed["screen"] == "table" and resumed["game"] == game_id and resumed["moves"] == first_lost
    assert resumed["notice"].startswith(f"{90 - first_lost} moves of this game were lost to a damaged page")
    assert f"It goes on after move {first_lost}: set up the table as the board now shows." in resumed["notice"]
    assert steps["PLAYED"] == {"accepted": True, "moves": first_lost + 1}
    # The damaged file is kept byte for byte under a new name; the journal's name holds the salvaged one.
    (kept,) = [p for p in tmp_path.iterdir() if p.name.startswith("journal.damaged-") and p.suffix == ".sqlite3"]
    assert kept.read_bytes() == damaged and digest(path) != digest(kept)
    journal = Journal(path, read_only=True)
    summaries = {g.id: g for g in journal.games()}
    assert len(summaries) == 3 and summaries[game_id].actions == first_lost + 1
    assert summaries[game_id].cut is not None and summaries[game_id].cut.since == 1
    journal.close()
