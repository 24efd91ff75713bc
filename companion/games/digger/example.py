"""Write the example game record docs/examples/digger.json: a whole four-player game, reproducible.

    python -m companion.games.digger.example docs/examples/digger.json
    python -m companion.games.digger.example --compact    (the form printed in docs/record-format.md)

A simple table bot plays every seat the way a family might (grab the valuable colours, rob the leader,
stop after a few rolls, sometimes too slowly); the sand timer is simulated with seconds per move, so the
record has believable timestamps and sources, and a few turns end by time-up or a fumble.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from random import Random

from companion.engine.core import ActionModel, Player, Setup, roll_rng
from companion.engine.record import ActionSource, GameRecord, RecordedAction
from companion.games.digger.rules import (
    COLOURS,
    Digger,
    DiggerState,
    Fumble,
    Rob,
    Stop,
    Take,
    TimeUp,
    unique_colours,
)

EXAMPLE_SETUP = Setup(game="digger", players=(Player(name="Anna"), Player(name="Jonas"), Player(name="Marie"),
                                              Player(name="Felix")),
                      options={"side": "black"}, seed=2024, first_player=2)
EXAMPLE_START = datetime(2026, 11, 14, 15, 0, 0, tzinfo=UTC)

# Seconds a move takes at a real table (rolling, picking a stone, stowing one stone).
ROLL_SECONDS = 3.5
GRAB_SECONDS = 2.0
ROB_SECONDS = 3.0
STOW_SECONDS = 0.8
BETWEEN_TURNS_SECONDS = 6.0


class TableBot:
    """One plausible choice per situation: value first, rob the leader, stop while time is left; what
    may be taken or robbed is the phase table's offer (`Game.offered`)."""

    def __init__(self, game: Digger, rng: Random) -> None:
        self.game = game
        self.rng = rng

    def choose(self, state: DiggerState, elapsed: float, limit: float) -> ActionModel | None:
        """The digger's next move, or None to roll again."""
        stow_time = state.waiting.total() * STOW_SECONDS
        if elapsed + stow_time > limit:
            return None
        card = state.cards[state.digger]
        box = state.boxes[state.digger]
        scores = self.game.scores(state)
        takes = {action.colour for action in self.game.offered(state, "take") if isinstance(action, Take)}
        rivals: dict[str, list[int]] = {}  # colour -> seats it may be robbed from
        for action in self.game.offered(state, "rob"):
            if isinstance(action, Rob):
                rivals.setdefault(action.colour, []).append(action.victim)
        options: list[tuple[float, ActionModel]] = []
        for colour in unique_colours(state.roll):  # the rolled order: the example's chances come in it
            if colour in rivals and self.rng.random() < 0.7:
                victim = max(rivals[colour], key=lambda seat: (scores[seat], seat))
                options.append((card.value(colour) + 1.5, Rob(colour=colour, victim=victim)))
            elif colour in takes:
                worth = card.value(colour) if colour != "B" else (3.0 if box.total() >= 5 else 0.5)
                options.append((worth, Take(colour=colour)))
        if options:
            return max(options, key=lambda option: option[0])[1]
        enough = state.waiting.total() >= 3 + self.rng.randrange(4) or state.rolls >= 5
        short_of_time = elapsed + ROLL_SECONDS + stow_time + 4 > limit
        if short_of_time and self.rng.random() < 0.2:
            return None  # one more roll, daring the sand timer
        return Stop() if enough or short_of_time else None


def play_example(setup: Setup = EXAMPLE_SETUP, start: datetime = EXAMPLE_START) -> GameRecord:
    """Play a whole game with the bot and return its record (same setup, same record, every time)."""
    game = Digger()
    setup = setup.evolve(options=game.options(setup.options).model_dump(mode="json"))
    state = game.initial_state(setup)
    bot = TableBot(game, Random(f"bot:{setup.seed}"))
    limit = float(state.rules.timer_seconds)
    clock = start
    turn_clock = 0.0
    actions: list[RecordedAction] = []

    def record(action: ActionModel, source: ActionSource, seconds: float) -> None:
        nonlocal state, clock, turn_clock
        clock += timedelta(seconds=seconds)
        turn_clock += seconds
        state, _ = game.apply(state, action)
        actions.append(RecordedAction(at=clock, source=source, action=action.model_dump(mode="json")))

    while not state.over:
        if not state.roll:
            turn_clock = 0.0
            clock += timedelta(seconds=BETWEEN_TURNS_SECONDS)
        choice = bot.choose(state, turn_clock, limit) if state.roll else None
        fumbling = isinstance(choice, Rob) and bot.rng.random() < 0.12
        if fumbling:
            record(Fumble(), "touch", ROB_SECONDS)
        elif choice is None and turn_clock + ROLL_SECONDS > limit:
            stowed = tuple(colour for colour in COLOURS if state.waiting.count(colour) and bot.rng.random() < 0.5)
            record(TimeUp(stowed=stowed), "virtual", limit - turn_clock)
        elif choice is None:
            rolled = game.virtual_roll(state, roll_rng(setup.seed, len(actions)))
            assert rolled is not None
            record(rolled, "virtual", ROLL_SECONDS)
        elif isinstance(choice, Stop):
            record(choice, "gpio", STOW_SECONDS * state.waiting.total() + 0.5)
        else:
            record(choice, "touch", ROB_SECONDS if isinstance(choice, Rob) else GRAB_SECONDS)
    return GameRecord.from_setup(setup, tuple(actions), started=start)


def compact_json(record: GameRecord) -> str:
    """The same record with one action per line, short enough to print in docs/record-format.md."""
    data = record.model_dump(mode="json")
    actions = data.pop("actions")
    lines = [f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}," for key, value in data.items()]
    entries = [f"    {json.dumps(entry, ensure_ascii=False)}" for entry in actions]
    return "{\n" + "\n".join(lines) + '\n  "actions": [\n' + ",\n".join(entries) + "\n  ]\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", default="-", help="record file (default: standard output)")
    parser.add_argument("--compact", action="store_true", help="one action per line (for the docs)")
    args = parser.parse_args(argv)
    record = play_example()
    text = compact_json(record) if args.compact else record.to_json()
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
