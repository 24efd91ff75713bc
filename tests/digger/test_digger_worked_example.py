"""The rulebook's worked example, roll by roll, and the shipped example record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.games.digger.example import compact_json, play_example
from companion.games.digger.rules import Rob, Take
from tests.digger.digger_helpers import GAME, new_state, play, roll, with_boxes

EXAMPLE_FILE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "digger.json"


def grabs(state):  # type: ignore[no-untyped-def]
    """The take and rob choices a roll offers, as (type, colour, victim) for easy comparison."""
    return {(a.type, a.colour, getattr(a, "victim", None)) for a in GAME.legal_actions(state)
            if isinstance(a, (Take, Rob))}


def test_worked_example_of_the_rulebook() -> None:
    state = with_boxes(new_state(3), Ben={"Y": 3, "R": 1, "W": 1})
    # Two red, two green, one blue: red and green show twice, only the blue stone may be taken.
    state = play(state, roll("RRGGB"))
    assert grabs(state) == {("take", "B", None)}
    # Two red, yellow, blue, black: yellow may be robbed from Ben or taken from the middle; blue only
    # from the middle; red not at all.
    state = play(state, roll("RRYBK"))
    assert grabs(state) == {("take", "Y", None), ("rob", "Y", 1), ("take", "B", None)}
    state = play(state, Rob(colour="Y", victim=1), Take(colour="B"))
    # Two black, yellow, blue, red: black twice forbids robbing, so one yellow, one blue and one red
    # come from the middle.
    state = play(state, roll("KKYBR"))
    assert grabs(state) == {("take", "Y", None), ("take", "B", None), ("take", "R", None)}
    state = play(state, Take(colour="Y"), Take(colour="B"), Take(colour="R"))
    assert state.waiting.model_dump() == {"B": 2, "Y": 2, "R": 1, "G": 0, "W": 0}


def test_shipped_example_record_is_what_the_generator_plays() -> None:
    assert EXAMPLE_FILE.read_text(encoding="utf-8") == play_example().to_json()


def test_goldtable_replay_prints_final_scores_of_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(EXAMPLE_FILE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "digger" and summary["over"] is True
    assert set(summary["scores"]) == {"Anna", "Jonas", "Marie", "Felix"}
    best = max(summary["scores"].values())
    assert summary["winners"] == [name for name, score in summary["scores"].items() if score == best]
    record = json.loads(EXAMPLE_FILE.read_text(encoding="utf-8"))
    assert {entry["source"] for entry in record["actions"]} >= {"virtual", "touch", "gpio"}
    assert {entry["action"]["type"] for entry in record["actions"]} == {"roll", "take", "rob", "stop", "time_up",
                                                                        "fumble"}


def test_replay_names_the_first_illegal_action(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = json.loads(EXAMPLE_FILE.read_text(encoding="utf-8"))
    record["actions"].insert(0, {**record["actions"][0], "action": {"type": "stop"}})
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(record), encoding="utf-8")
    assert main(["replay", str(broken)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"goldtable: {broken}: action 0: stop refused by DIG-11 (turn.roll_first)")
    assert "\n" not in err


def test_record_format_doc_holds_the_complete_example_and_its_real_summary(
        capsys: pytest.CaptureFixture[str]) -> None:
    doc = (EXAMPLE_FILE.parents[1] / "record-format.md").read_text(encoding="utf-8")
    block = doc.split("```json\n", 1)[1].split("```", 1)[0]
    assert block == compact_json(play_example())
    assert json.loads(block) == json.loads(EXAMPLE_FILE.read_text(encoding="utf-8"))
    assert main(["replay", str(EXAMPLE_FILE), "--json"]) == 0
    assert capsys.readouterr().out.strip() in doc
    assert main(["replay", str(EXAMPLE_FILE)]) == 0
    assert capsys.readouterr().out.strip() in doc
