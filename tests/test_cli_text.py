"""Game messages outside the app read as the app writes them in English: "1 chip", "2 chips", not "1 chips".

Every path where an engine message reaches a person outside the Kivy app: the refusal that stops
`goldtable replay` and `goldtable chinagold hint` (ReplayError, printed by `companion.cli.main`), the one
`Session.from_record` raises, and the writer the CLI uses for them (`companion.cli.english`), which is
the app's own `game_text` in English.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.engine.record import GameRecord, ReplayError
from companion.engine.session import Session
from companion.games.digger.rules import Roll, Stop, Take
from tests.digger.digger_helpers import GAME as DIGGER
from tests.digger.digger_helpers import new_state

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"


def _gold_connection_short_by(shortfall: int) -> dict[str, Any]:
    """The example Gold Connection record up to the first chip decision `shortfall` short, where the
    player spends 7 chips instead (refused: exactly `shortfall` or none, GC-10)."""
    from companion.engine.registry import get_game

    raw = json.loads((EXAMPLES / "gold_connection.json").read_text(encoding="utf-8"))
    record = GameRecord.model_validate(raw)
    game = get_game(record.game)
    state = game.initial_state(record.setup())
    for index, entry in enumerate(record.actions):
        if game.prompt(state).params.get("shortfall") == shortfall and entry.action["type"] == "use_chips":
            raw["actions"] = [*raw["actions"][:index], {**raw["actions"][index],
                                                        "action": {"type": "use_chips", "count": 7}}]
            return raw
        state, _ = game.apply(state, game.parse_action(entry.action))
    raise AssertionError(f"the example never comes {shortfall} short")


def _write(tmp_path: Path, name: str, raw: dict[str, Any]) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_replay_names_the_refused_count_in_english_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`goldtable replay`: the refusal that stops a record says "Spend exactly 1 chip" ("2 chips"), in
    one line on stderr, exit 2."""
    for shortfall, words in ((1, "1 chip "), (2, "2 chips ")):
        path = _write(tmp_path, f"short{shortfall}.json", _gold_connection_short_by(shortfall))
        assert main(["replay", str(path)]) == 2
        captured = capsys.readouterr()
        assert captured.out == ""
        line = captured.err
        assert line.count("\n") == 1 and "Traceback" not in line
        assert line.startswith(f"goldtable: {path}: action ")
        assert (f"use_chips refused by GC-10 (chips.exact): Spend exactly {words}to reach the target, or none."
                in line)


def test_replay_writes_english_whatever_the_app_language_is(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI speaks English: a German app setting in the same process does not change its lines."""
    from companion.app.i18n import set_language

    path = _write(tmp_path, "short.json", _gold_connection_short_by(1))
    set_language("de")
    try:
        assert main(["replay", str(path)]) == 2
    finally:
        set_language("en")
    assert "Spend exactly 1 chip to reach the target, or none." in capsys.readouterr().err


def test_chinagold_hint_names_the_refused_count_in_english_words(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`goldtable chinagold hint` replays its record first; a throw with too few values is told in words."""
    raw = json.loads((EXAMPLES / "chinagold.json").read_text(encoding="utf-8"))
    for values, words in (([0], "1 value was given"), ([0, 0], "2 values were given")):
        raw["actions"] = [{**raw["actions"][0], "action": {"type": "throw", "values": values}}]
        path = _write(tmp_path, f"throw{len(values)}.json", raw)
        assert main(["chinagold", "hint", str(path), "--seconds", "0.05"]) == 2
        line = capsys.readouterr().err
        assert line.count("\n") == 1
        assert line.startswith(f"goldtable: {path}: action 0: throw refused by CG-3 (throw.count): ")
        assert line.endswith(f"3 tiles are in play but {words}.\n")


def test_from_record_keeps_the_refusal_for_its_reader() -> None:
    """`Session.from_record` (importing a record) refuses like a replay: the index, the refusal and its
    game, so a reader writes the reason from the catalogs; `str()` still names rule and code."""
    from companion.cli import english

    for shortfall, words in ((1, "1 chip "), (2, "2 chips ")):
        record = GameRecord.model_validate(_gold_connection_short_by(shortfall))
        with pytest.raises(ReplayError) as caught:
            Session.from_record(record)
        error = caught.value
        assert error.index == len(record.actions) - 1
        assert error.refusal is not None and error.refusal.code == "chips.exact"
        assert error.domain == "gold_connection"
        assert str(error).startswith(f"record: action {error.index}: use_chips refused by GC-10 (chips.exact): ")
        assert error.text(english).endswith(f"Spend exactly {words}to reach the target, or none.")


def test_digger_stones_are_counted_in_english_words() -> None:
    """Digger's stone counts ("keeps 1 stone", not "1 stone(s)") through the writer the CLI uses."""
    from companion.cli import english

    for kept, words in ((1, "1 stone"), (2, "2 stones")):
        state = new_state()
        for colour in "YR"[:kept]:
            state, _ = DIGGER.apply(state, Roll(values=("Y", "R", "G", "G", "K")))
            state, _ = DIGGER.apply(state, Take(colour=colour))
        _, events = DIGGER.apply(state, Stop())
        stop = next(event for event in events if event.kind == "stop")
        assert english("digger", stop.message, stop.params) == f"Ada called Stop and keeps {words}."


def test_resume_names_the_action_the_rules_now_refuse(tmp_path: Path) -> None:
    """A journalled game whose action the rules refuse today is told like a replay (which action, the
    refusal and its game), so Resume can write the reason from the catalogs too."""
    from companion.cli import english
    from companion.engine.journal import Journal

    journal = Journal(tmp_path / "journal.sqlite3")
    try:
        for shortfall, words in ((1, "1 chip "), (2, "2 chips ")):
            record = GameRecord.model_validate(_gold_connection_short_by(shortfall))
            game_id = journal.new_game(record.setup())
            for entry in record.actions:  # written as the journal holds them, without the rules' check
                journal.append(game_id, "action", entry)
            with pytest.raises(ReplayError) as caught:
                Session.resume(journal, game_id)
            error = caught.value
            assert (error.index, error.domain) == (len(record.actions) - 1, "gold_connection")
            assert error.text(english) == (f"journal game {game_id}: action {error.index}: use_chips refused by "
                                           f"GC-10 (chips.exact): Spend exactly {words}to reach the target, or none.")
    finally:
        journal.close()
