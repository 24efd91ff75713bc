"""Every game records the board files it is played on (name + sha256), and an edited file is refused
by replay, resume and import instead of silently changing an old game (companion.engine.boards)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from companion.engine.core import Player, Setup
from companion.engine.errors import UserError
from companion.engine.journal import Journal
from companion.engine.record import load_record, replay
from companion.engine.session import Session
from companion.layout import LAYOUTS_DIR

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def _players(count: int) -> tuple[Player, ...]:
    return tuple(Player(name=name) for name in ("Anna", "Ben", "Chloé", "David")[:count])


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(("game", "seats", "options", "shipped"), [
    ("digger", 2, {}, "digger_cards.json"),
    ("gold_connection", 2, {}, "gold_connection.json"),
    ("goldgraeber", 3, {}, "goldgraeber.json"),
    ("chinagold", 2, {"board": "small"}, "chinagold/small.json"),
])
def test_a_new_session_names_each_shipped_file_with_its_hash(game: str, seats: int, options: dict[str, str],
                                                            shipped: str) -> None:
    session = Session.new(Setup(game=game, players=_players(seats), options=options))
    assert [(board.name, board.sha256) for board in session.setup.boards] == [(shipped, _sha(LAYOUTS_DIR / shipped))]
    assert session.record().boards == session.setup.boards


def test_a_generated_chinagold_board_has_no_file() -> None:
    session = Session.new(Setup(game="chinagold", players=_players(2), options={"board": "generated-6-12"}))
    assert session.setup.boards == ()


@pytest.fixture
def own_cards(tmp_path: Path) -> Path:
    """An owner's copy of the Digger cards, which the tests then edit."""
    path = tmp_path / "my-cards.json"
    path.write_text((LAYOUTS_DIR / "digger_cards.json").read_text(encoding="utf-8"), encoding="utf-8")
    return path


def _edit_white_yellow(path: Path, value: int) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    data["white"]["yellow"] = value
    path.write_text(json.dumps(data), encoding="utf-8")


def _digger_game(journal: Journal, cards: Path) -> Session:
    session = Session.new(Setup(game="digger", players=_players(2), options={"cards_file": str(cards)}, seed=4),
                          journal)
    for _ in range(3):
        session.virtual_roll()
    return session


def test_resume_refuses_a_game_whose_card_file_changed_and_names_the_file(tmp_path: Path, own_cards: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    session = _digger_game(journal, own_cards)
    assert journal.setup(session.game_id).boards == session.setup.boards  # type: ignore[arg-type]
    assert session.setup.boards[0].name == str(own_cards)
    assert len(Session.resume(journal, session.game_id).actions) == len(session.actions)  # type: ignore[arg-type]

    original = own_cards.read_bytes()
    _edit_white_yellow(own_cards, 5)
    with pytest.raises(UserError, match=rf"journal game {session.game_id}: boards: {own_cards} has changed"):
        Session.resume(journal, session.game_id)  # type: ignore[arg-type]

    own_cards.write_bytes(original)  # put back as it was: the game resumes again
    assert Session.resume(journal, session.game_id).state == session.state  # type: ignore[arg-type]
    journal.close()


def test_replay_and_import_refuse_a_record_whose_board_changed(tmp_path: Path, own_cards: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    record_file = tmp_path / "game.json"
    record_file.write_text(journal.record(_digger_game(journal, own_cards).game_id).to_json(),  # type: ignore[arg-type]
                           encoding="utf-8")
    journal.close()
    assert json.loads(record_file.read_text(encoding="utf-8"))["boards"][0]["sha256"] == _sha(own_cards)
    record = load_record(record_file)
    replay(record, record_file)

    _edit_white_yellow(own_cards, 1)
    with pytest.raises(UserError, match=rf"{record_file}: boards: {own_cards} has changed since this game"):
        replay(record, record_file)
    with pytest.raises(UserError, match="has changed"):
        Session.from_record(record)


def test_records_without_boards_replay_on_the_current_files() -> None:
    """Records written before boards were recorded (the examples in docs/) are taken as they are."""
    for path in sorted(EXAMPLES.glob("*.json")):
        record = load_record(path)
        assert "boards" not in json.loads(path.read_text(encoding="utf-8"))
        assert record.boards == ()
        replay(record, path)


def test_a_bad_hash_in_a_record_is_a_one_line_error(tmp_path: Path) -> None:
    data = json.loads((EXAMPLES / "digger.json").read_text(encoding="utf-8"))
    data["boards"] = [{"name": "digger_cards.json", "sha256": "xyz"}]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(UserError, match=r"boards\.0\.sha256"):
        load_record(path)
