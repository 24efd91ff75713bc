"""Run by test_writer: ten moves of the counting game, each asked for once the one before was answered,
while the "UI thread" (this process's main loop) ticks every 5 ms or sooner and reads the journal at each
tick as Home and the serial path do.  Prints JSON: when it ticked, when each commit ran on its thread, and
when each move was answered.

    python -m tests.engine.slow_card_player JOURNAL thread|inline
"""

from __future__ import annotations

import contextlib
import json
import queue
import sys
import time
from collections.abc import Callable
from typing import Any

from companion.engine import registry
from companion.engine.journal import Journal
from companion.engine.session import Outcome, Session
from companion.engine.writer import JournalWriter
from tests.engine.counting_game import COUNTING_ID, CountingGame
from tests.engine.journal_faults import setup

MOVES = 10


def main(path: str, mode: str) -> None:
    registry._load_all()
    registry._GAMES[COUNTING_ID] = CountingGame()
    journal = Journal(path)
    session = Session.new(setup(target=50), journal)
    ticks: list[float] = []
    commits: list[tuple[float, float]] = []
    answers: list[tuple[int, float]] = []
    original = journal.append

    def timed(*args: Any, **kwargs: Any) -> None:
        start = time.monotonic()
        original(*args, **kwargs)
        commits.append((start, time.monotonic()))

    journal.append = timed  # type: ignore[method-assign]
    handed: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
    if mode == "thread":
        session.writer = JournalWriter(handed.put)

    def play() -> None:
        session.submit_soon({"type": "roll", "values": ["1"]}, "touch", answered)

    def answered(outcome: Outcome) -> None:
        assert outcome.accepted
        answers.append((len(answers), time.monotonic()))
        if len(answers) < MOVES:
            play()

    handed.put(play)
    while len(answers) < MOVES:
        with contextlib.suppress(queue.Empty):
            handed.get(timeout=0.005)()
        journal.latest_unfinished_summary()  # reads never wait for the commit under way
        journal.is_recorded("tray:1")
        ticks.append(time.monotonic())
    session.writer.close()
    journal.close()
    print(json.dumps({"ticks": ticks, "commits": commits, "answers": answers}))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
