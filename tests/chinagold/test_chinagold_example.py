"""docs/examples/chinagold.json is a complete game that `goldtable replay` accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.record import load_record, replay

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "chinagold.json"


def test_example_replays_to_a_finished_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(EXAMPLE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "chinagold" and summary["over"] is True
    assert sum(summary["scores"].values()) == 91 and len(summary["winners"]) == 1


def test_example_uses_throws_turns_and_tileless_moves() -> None:
    record = load_record(EXAMPLE)
    kinds = {entry.action["type"] for entry in record.actions}
    assert {"throw", "turn", "bury"} <= kinds
    throws = sum(entry.action["type"] == "throw" for entry in record.actions)
    assert len(record.actions) - throws > throws, "the end game is played without tiles (CG-11)"
    final = replay(record).state
    assert final.phase == "over" and set(final.sites) <= {"M", "R"}


def test_tampered_example_is_refused_with_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(EXAMPLE.read_text())
    second_move = next(i for i, entry in enumerate(data["actions"]) if entry["action"]["type"] == "turn")
    data["actions"][second_move]["action"] = {"type": "bury", "site": 0}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    assert main(["replay", str(bad)]) == 2
    error = capsys.readouterr().err
    assert f"action {second_move}" in error and "CG-5" in error and error[-1] == "\n" and error.count("\n") == 1
