"""Child process for the kill tests: plays Digger with random legal actions through a journalled session
and prints `ACK <n> <action json>` after each action the session acknowledged, until it is killed.

With a third and fourth argument (`<statement start> <occurrence>`) it kills itself with SIGKILL just as
the journal starts that statement for that time (`ACK` stands for: after the commit, before the ACK line),
so every commit point of the journal can be cut exactly.  A fifth argument `counting_test` plays the
tiny test game instead (it ends within a few dozen actions; random Digger can go on for thousands)."""

from __future__ import annotations

import json
import os
import signal
import sys
from random import Random

from companion.engine import registry
from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session
from tests.engine.counting_game import GAME_ID, CountingGame


def main(journal_path: str, seed: int, kill_at: str | None = None, occurrence: int = 1, game: str = "digger") -> None:
    if game == GAME_ID:
        registry._load_all()
        registry._GAMES[GAME_ID] = CountingGame()
    rng = Random(seed)
    journal = Journal(journal_path)
    seen = 0

    def maybe_kill(statement: str) -> None:
        nonlocal seen
        if kill_at is not None and statement.startswith(kill_at):
            seen += 1
            if seen == occurrence:
                os.kill(os.getpid(), signal.SIGKILL)

    journal._write.set_trace_callback(maybe_kill)
    players = tuple(Player(name=name) for name in ("Anna", "Ben", "Chloé", "David"))
    session = Session.new(Setup(game=game, players=players, seed=seed), journal)
    print(f"GAME {session.game_id}", flush=True)
    while not session.is_over():
        legal = session.game.legal_actions(session.state)
        action = rng.choice(legal) if legal else session.game.virtual_roll(session.state, rng)
        outcome = session.submit(action, "virtual")
        assert outcome.accepted
        maybe_kill("ACK")
        print(f"ACK {len(session.actions)} {json.dumps(action.model_dump(mode='json'))}", flush=True)
    print("OVER", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *(sys.argv[3:4]), *(int(n) for n in sys.argv[4:5]), *(sys.argv[5:6]))
