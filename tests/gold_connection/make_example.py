"""Build docs/examples/gold_connection.json: a complete three-player game played by the seeded bot.

Run `.venv/bin/python -m tests.gold_connection.make_example` to rewrite the file; a test checks that the
file is what this script produces and that `goldtable replay` accepts it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random

from companion.engine.core import Player, Setup
from companion.engine.record import GameRecord
from companion.engine.session import Session
from companion.games.gold_connection.bot import choose_action

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "gold_connection.json"
SEED = 2026
STARTED = datetime(2026, 11, 21, 19, 0, tzinfo=UTC)


def build_example() -> GameRecord:
    """Replay-ready record: dice from the Pi's seeded roll, every other choice by the bot, 9 s apart."""
    setup = Setup(game="gold_connection", seed=SEED,
                  players=(Player(name="Anna", colour="#d94a8c"), Player(name="Bruno", colour="#2fb5c9"),
                           Player(name="Chloé", colour="#f08a24")))
    session = Session.new(setup)
    rng = Random(SEED)
    at = STARTED
    while not session.is_over():
        at += timedelta(seconds=9)
        if session.prompt().roll_action is not None:
            outcome = session.virtual_roll()
            assert outcome is not None
            session.actions[-1] = session.actions[-1].evolve(at=at)
        else:
            outcome = session.submit(choose_action(session.game, session.state, rng), "touch", at)  # type: ignore[arg-type]
        assert outcome.accepted, outcome.refusal
    # without the board hashes: the examples follow the shipped boards (docs/record-format.md, Board files)
    return GameRecord.from_setup(session.setup.model_copy(update={"boards": ()}), tuple(session.actions),
                                 started=STARTED)


if __name__ == "__main__":
    EXAMPLE.parent.mkdir(parents=True, exist_ok=True)
    EXAMPLE.write_text(build_example().to_json(), encoding="utf-8")
    print(EXAMPLE)
