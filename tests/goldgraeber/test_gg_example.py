"""docs/examples/goldgraeber.json is a complete game that `goldtable replay --json` accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.cli import main
from companion.engine.record import load_record, replay
from companion.games.goldgraeber.rules import Goldgraeber

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "goldgraeber.json"


def test_example_game_replays_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(EXAMPLE), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["game"] == "goldgraeber" and summary["over"] is True
    game = Goldgraeber()
    state = replay(load_record(EXAMPLE)).state
    assert summary["scores"] == dict(zip(["Anna", "Ben", "Chloé", "David"], game.scores(state)))  # type: ignore[arg-type]
    assert summary["winners"] == ["Anna"]


def test_a_tampered_example_is_refused_with_the_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    first_roll = next(i for i, entry in enumerate(raw["actions"]) if entry["action"]["type"] == "roll")
    raw["actions"][first_roll]["action"]["values"] = ["1"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw), encoding="utf-8")
    assert main(["replay", str(bad), "--json"]) == 2
    error = capsys.readouterr().err
    assert f"action {first_roll}" in error and "GG-2" in error and "Traceback" not in error
