"""Digger through the Session and the journal: undo is journalled but not recorded, resume is exact."""

from __future__ import annotations

from pathlib import Path

from companion.engine.journal import Journal
from companion.engine.record import replay
from companion.engine.session import Session
from companion.games.digger.example import play_example
from tests.digger.digger_helpers import GAME


def test_journalled_game_with_undos_resumes_and_exports_exactly(tmp_path: Path) -> None:
    example = play_example()
    journal = Journal(tmp_path / "journal.sqlite3")
    session = Session.new(example.setup(), journal)
    half = len(example.actions) // 2
    for entry in example.actions[:half]:
        assert session.submit(entry.action, entry.source, entry.at).accepted
    assert session.virtual_roll() is not None  # a roll the table then takes back
    assert session.undo().accepted
    for entry in example.actions[half:]:
        assert session.submit(entry.action, entry.source, entry.at).accepted
    assert session.is_over()
    assert session.record().actions == example.actions
    kinds = [kind for kind, _ in journal.history(session.game_id)]  # type: ignore[arg-type]
    assert kinds.count("undo") == 1 and len(kinds) == len(example.actions) + 2
    journal.close()

    reopened = Journal(tmp_path / "journal.sqlite3")
    resumed = Session.resume(reopened, session.game_id)  # type: ignore[arg-type]
    assert GAME.state_to_json(resumed.state) == GAME.state_to_json(session.state)  # type: ignore[arg-type]
    exported = reopened.record(session.game_id)  # type: ignore[arg-type]
    assert GAME.state_to_json(replay(exported).state) == GAME.state_to_json(session.state)  # type: ignore[arg-type]
    assert [game.finished for game in reopened.games()] == [True]
    reopened.close()


def test_refused_action_is_not_journalled(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    session = Session.new(play_example().setup(), journal)
    outcome = session.submit({"type": "stop"}, "gpio")
    assert not outcome.accepted and outcome.refusal is not None and outcome.refusal.rule == "DIG-11"
    assert journal.history(session.game_id) == []  # type: ignore[arg-type]
    journal.close()
