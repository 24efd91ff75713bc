"""docs/examples/gold_connection.json: a complete game that `goldtable replay` accepts, and is up to date."""

from __future__ import annotations

import json
import subprocess
import sys

from companion.engine.record import load_record, replay
from tests.gold_connection.gc_helpers import GAME
from tests.gold_connection.make_example import EXAMPLE, build_example


def test_example_record_is_what_the_script_builds() -> None:
    assert EXAMPLE.read_text(encoding="utf-8") == build_example().to_json()


def test_example_replays_to_a_finished_game_with_plunders_and_chips() -> None:
    record = load_record(EXAMPLE)
    kinds = {entry.action["type"] for entry in record.actions}
    assert {"plunder", "use_chips", "stop", "end_turn", "sort"} <= kinds
    result = replay(record, EXAMPLE)
    assert GAME.is_over(result.state)  # type: ignore[arg-type]
    assert result.state.counter == 36  # type: ignore[attr-defined]


def test_goldtable_replay_json_accepts_the_example() -> None:
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(EXAMPLE), "--json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["over"] is True and summary["game"] == "gold_connection" and summary["winners"]


def test_a_tampered_example_is_refused_with_index_and_rule(tmp_path) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    index = next(i for i, entry in enumerate(data["actions"]) if entry["action"]["type"] == "roll")
    data["actions"][index]["action"]["values"] = [9, 1]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "companion.cli", "replay", str(bad)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert f"action {index}" in done.stderr and "GC-9" in done.stderr and len(done.stderr.splitlines()) == 1
