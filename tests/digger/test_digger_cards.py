"""The scoring-card file: shipped defaults are sound and marked as ours; bad files give one clear line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.errors import UserError
from companion.games.digger.cards import DEFAULT_CARDS_FILE, card_problems, load_cards
from tests.digger.digger_helpers import GAME, setup

ROOT = Path(__file__).resolve().parents[2]


def shipped() -> dict:  # type: ignore[type-arg]
    return json.loads(DEFAULT_CARDS_FILE.read_text(encoding="utf-8"))


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_shipped_cards_are_sound_and_marked_as_our_defaults() -> None:
    layout = load_cards()
    assert card_problems(layout) == []
    assert "OUR DEFAULTS" in layout.note and "check" in layout.note.lower()
    assert len({(c.yellow, c.red, c.green, c.white) for c in layout.black}) == len(layout.black) >= 5


def test_owner_card_file_replaces_the_defaults(tmp_path: Path) -> None:
    data = shipped()
    data["white"] = {"yellow": 1, "red": 2, "green": 3, "white": 9}
    state = GAME.initial_state(setup(2, cards_file=str(write(tmp_path, data))))
    assert (state.cards[0].Y, state.cards[0].W) == (1, 9)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["white"].pop("red"), r"cards.json: white.red: Field required"),
    (lambda d: d["black"][0].update(yellow=2), r"cards.json: black.0: values add up to 16"),
    (lambda d: d["black"][1].update(id="1"), r"cards.json: black.1.id: '1' is used by more than one card"),
    (lambda d: d.update(kind="gold_connection_board"), r"cards.json: kind: Input should be 'digger_cards'"),
    (lambda d: d["black"].pop(), r"cards.json: black: 4 cards, but up to 5 players need one each"),
    (lambda d: d["white"].update(green=-1), r"cards.json: white.green: Input should be greater than or equal to 0"),
])
def test_bad_card_file_is_one_line_naming_file_and_field(tmp_path: Path, change, message) -> None:  # type: ignore[no-untyped-def]
    data = shipped()
    change(data)
    with pytest.raises(UserError, match=message) as caught:
        load_cards(write(tmp_path, data))
    assert "\n" not in str(caught.value)


def test_bad_card_file_in_a_record_names_record_option_and_card_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = shipped()
    data["white"].pop("red")
    cards = write(tmp_path, data)
    record = json.loads((ROOT / "docs" / "examples" / "digger.json").read_text(encoding="utf-8"))
    record["options"]["cards_file"] = str(cards)
    game_file = tmp_path / "game.json"
    game_file.write_text(json.dumps(record), encoding="utf-8")
    before = cards.read_bytes(), game_file.read_bytes()
    assert main(["replay", str(game_file)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert error.startswith(f"goldtable: {game_file}: options: cards_file: ")
    assert f"{cards}: white.red: Field required" in error
    assert (cards.read_bytes(), game_file.read_bytes()) == before


def test_unreadable_card_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"missing.json: cannot read"):
        load_cards(tmp_path / "missing.json")
    with pytest.raises(UserError, match=r"cards.json: not valid JSON"):
        load_cards(write(tmp_path, "{nope"))


def test_layout_check_cli_accepts_the_shipped_file(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from companion.layout.cli import cmd_check

    assert cmd_check(argparse.Namespace(file=str(DEFAULT_CARDS_FILE))) == 0
    assert capsys.readouterr().out.strip().endswith("digger_cards.json: ok")
