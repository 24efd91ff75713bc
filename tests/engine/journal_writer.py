"""Child process for the kill tests: plays Digger with random legal actions through a journalled session
and prints `ACK <n> <action json>` after each action the session acknowledged, until it is killed.

With a third and fourth argument (`<statement start> <occurrence>`) it kills itself with SIGKILL just as
the journal starts that statement for that time (`ACK` stands for: after the commit, before the ACK line),
so every commit point of the journal can be cut exactly.  A fifth argument `counting_test` plays the
tiny test game instead (it ends within a few dozen actions; random Digger can go on for thousands).  A
sixth, `thread`, commits on the journal's writer thread as the app does (`Session.submit_soon`): the ACK
line is printed when the answer comes back to this process's main loop."""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
from collections.abc import Callable
from random import Random

from companion.engine import registry
from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Outcome, Session
from companion.engine.writer import JournalWriter
from tests.engine.counting_game import COUNTING_ID, CountingGame


def main(journal_path: str, seed: int, kill_at: str | None = None, occurrence: int = 1, game: str = "digger",
         writer: str = "inline") -> None:
    if game == COUNTING_ID:
        registry._load_all()
        registry._GAMES[COUNTING_ID] = CountingGame()
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
    handed: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
    if writer == "thread":
        session.writer = JournalWriter(handed.put)

    def play() -> None:
        legal = session.game.legal_actions(session.state)
        action = rng.choice(legal) if legal else session.game.virtual_roll(session.state, rng)
        session.submit_soon(action, "virtual", lambda outcome: acknowledge(action.model_dump(mode="json"), outcome))

    def acknowledge(action: dict[str, object], outcome: Outcome) -> None:
        assert outcome.accepted
        maybe_kill("ACK")
        print(f"ACK {len(session.actions)} {json.dumps(action)}", flush=True)
        if not session.is_over():
            handed.put(play)

    handed.put(play)
    while not session.is_over():
        handed.get()()
    print("OVER", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *(sys.argv[3:4]), *(int(n) for n in sys.argv[4:5]), *(sys.argv[5:7]))
