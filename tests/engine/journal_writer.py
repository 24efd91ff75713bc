"""Child process for the kill test: plays Digger with random legal actions through a journalled session
and prints `ACK <n> <action json>` after each action the session acknowledged, until it is killed."""

from __future__ import annotations

import json
import sys
from random import Random

from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session


def main(journal_path: str, seed: int) -> None:
    rng = Random(seed)
    journal = Journal(journal_path)
    players = tuple(Player(name=name) for name in ("Anna", "Ben", "Chloé", "David"))
    session = Session.new(Setup(game="digger", players=players, seed=seed), journal)
    print(f"GAME {session.game_id}", flush=True)
    while not session.is_over():
        legal = session.game.legal_actions(session.state)
        action = rng.choice(legal)
        outcome = session.submit(action, "virtual")
        assert outcome.accepted
        print(f"ACK {len(session.actions)} {json.dumps(action.model_dump(mode='json'))}", flush=True)
    print("OVER", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
