"""Game records and the CLI: replay summaries, and one-line errors with exit code 2 for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session
from tests.engine.counting_game import COUNTING_ID


def _finished_record(tmp_path: Path) -> Path:
    session = Session.new(Setup(game=COUNTING_ID, players=(Player(name="Ada"), Player(name="Bo")),
                                options={"target": 10}, seed=3))
    for value in ["6", "2", "5"]:
        assert session.submit({"type": "roll", "values": [value]}, "touch").accepted
    path = tmp_path / "game.json"
    path.write_text(session.record().to_json(), encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "replay", str(_finished_record(tmp_path)), "--json")
    assert code == 0 and err == ""
    info = json.loads(out)
    assert info == {"game": COUNTING_ID, "over": True, "actions": 3, "scores": {"Ada": 11, "Bo": 2},
                    "winners": ["Ada"]}


def test_replay_text_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "replay", str(_finished_record(tmp_path)))
    assert code == 0 and "Ada: 11  (winner)" in out


def test_replay_stops_at_first_illegal_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _finished_record(tmp_path)
    raw = json.loads(path.read_text())
    raw["actions"].append(dict(raw["actions"][0]))  # the game is already over
    path.write_text(json.dumps(raw))
    code, out, err = _run(capsys, "replay", str(path), "--json")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "action 3" in err and "CT-2" in err and "game.over" in err


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda raw: raw.pop("game"), "game"),
    (lambda raw: raw.update(game="chess"), "unknown game 'chess'"),
    (lambda raw: raw.update(format="pgn"), "format"),
    (lambda raw: raw["actions"][1].update(source="telepathy"), "actions.1.source"),
    (lambda raw: raw["actions"][0].update(at="yesterday"), "actions.0.at"),
    (lambda raw: raw.update(options={"target": 0}), "options: target"),
    (lambda raw: raw.update(options={"colour": "red"}), "colour"),
    (lambda raw: raw["players"].append({"name": "Ada"}), "names must be different"),
    (lambda raw: raw.update(first_player=5), "first_player"),
    (lambda raw: raw["actions"][0]["action"].update(values=["9"]), "action 0: unreadable action"),
])
def test_bad_record_gives_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              mutate, expected: str) -> None:  # type: ignore[no-untyped-def]
    path = _finished_record(tmp_path)
    raw = json.loads(path.read_text())
    mutate(raw)
    path.write_text(json.dumps(raw))
    before = path.read_bytes()
    code, out, err = _run(capsys, "replay", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and str(path) in err and expected in err, err
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", [b"{not json", b"\xff\xfe\x00", b"[]", b""])
def test_unreadable_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    code, _, err = _run(capsys, "replay", str(path))
    assert code == 2 and err.count("\n") == 1 and str(path) in err


def test_missing_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "replay", str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err


def test_games_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal_path = tmp_path / "j.sqlite3"
    journal = Journal(journal_path)
    session = Session.new(Setup(game=COUNTING_ID, players=(Player(name="Ada"),), options={"target": 50}), journal)
    session.submit({"type": "roll", "values": ["3"]}, "gpio")
    code, out, _ = _run(capsys, "games", "--journal", str(journal_path), "--json")
    assert code == 0
    (listed,) = json.loads(out)
    assert listed["id"] == session.game_id and listed["actions"] == 1 and listed["finished"] is False
    exported = tmp_path / "out.json"
    code, _, _ = _run(capsys, "export", str(session.game_id), "--journal", str(journal_path), "-o", str(exported))
    assert code == 0
    code, out, _ = _run(capsys, "replay", str(exported), "--json")
    assert code == 0 and json.loads(out)["scores"] == {"Ada": 3}
    code, _, err = _run(capsys, "export", "999", "--journal", str(journal_path))
    assert code == 2 and "no game 999" in err


def test_validation_messages_lose_pydantics_value_error_prefix() -> None:
    from pydantic import BaseModel, ValidationError, field_validator

    from companion.engine.errors import describe_validation_error

    class Sample(BaseModel):
        size: int

        @field_validator("size")
        @classmethod
        def _even(cls, value: int) -> int:
            if value % 2:
                raise ValueError("must be even")
            return value

    with pytest.raises(ValidationError) as caught:
        Sample(size=3)
    assert describe_validation_error("f.json", caught.value) == "f.json: size: must be even"
