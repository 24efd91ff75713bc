"""The journal's writer thread: a commit leaves the calling thread, its answer comes back in order through
`call_soon`, input that arrives meanwhile waits its turn (never dropped, never reordered, validated against
the state the write made), and a commit that fails changes nothing."""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from companion.engine.journal import Journal, JournalError, Notice
from companion.engine.session import Outcome, Session
from companion.engine.writer import JournalWriter
from tests.engine.journal_faults import setup
from tests.engine.test_journal_commit import _fail_on
from tests.slow_disk import HeldWrites, slow_fsync_env, slow_fsync_library

ROOT = Path(__file__).resolve().parents[2]


class UiThread:
    """Kivy's Clock in miniature: what other threads hand over (`call_soon`) runs on the test's thread
    when the test lets it."""

    def __init__(self) -> None:
        self._handed: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    def call_soon(self, callback: Callable[[], None]) -> None:
        self._handed.put(callback)

    def next_handed(self) -> Callable[[], None]:
        """The next function handed over, not yet run."""
        return self._handed.get(timeout=5)

    def run_waiting(self) -> int:
        """Run what has been handed over so far; how many."""
        count = 0
        while not self._handed.empty():
            self._handed.get()()
            count += 1
        return count

    def run_until(self, condition: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            try:
                callback = self._handed.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("nothing more was handed over to the UI thread") from None
            callback()


def threaded(session: Session, ui: UiThread) -> Session:
    session.writer = JournalWriter(ui.call_soon)
    return session


def test_input_behind_a_write_in_flight_waits_its_turn_and_meets_the_state_that_write_made(
        journal: Journal, monkeypatch: pytest.MonkeyPatch) -> None:
    ui = UiThread()
    session = threaded(Session.new(setup(target=50), journal), ui)
    game = session.game_id
    assert game is not None
    slow = HeldWrites(journal, monkeypatch)
    heard: list[tuple[str, bool, int]] = []

    def answer(name: str) -> Callable[[Outcome], None]:  # what the table hears, with the rows on disk then
        return lambda outcome: heard.append((name, outcome.accepted, len(journal.actions(game))))

    session.submit_soon({"type": "roll", "values": ["4"]}, "touch", answer("touch"))
    assert slow.held.wait(5)  # the commit waits for the card, on the writer thread
    session.submit_soon({"type": "pass"}, "gpio", answer("gpio"))  # refused now (nothing rolled), not at its turn
    session.submit_soon({"type": "roll", "values": ["2"]}, "serial", answer("serial"), ref="tray:9")
    session.undo_soon(answer("undo"))
    assert heard == [] and session.actions == [] and journal.actions(game) == [] and session.writer.busy
    slow.release()
    ui.run_until(lambda: len(heard) == 4)
    assert heard == [("touch", True, 1), ("gpio", True, 2), ("serial", True, 3), ("undo", True, 2)]
    assert [entry.action["type"] for entry in journal.actions(game)] == ["roll", "pass"]
    assert [entry.action for entry in session.actions] == [entry.action for entry in journal.actions(game)]
    assert slow.threads == {"goldtable-journal"} and not session.writer.busy
    assert session.writer.close()


def test_a_commit_that_fails_on_the_writer_thread_changes_nothing_and_the_next_input_meets_that(
        journal: Journal) -> None:
    ui = UiThread()
    session = threaded(Session.new(setup(target=50), journal), ui)
    _fail_on(journal, "entries", "INSERT")  # on the connection the writer thread commits through
    outcomes: list[Outcome] = []
    session.submit_soon({"type": "roll", "values": ["4"]}, "serial", outcomes.append, ref="tray:3")
    session.submit_soon({"type": "pass"}, "touch", outcomes.append)
    ui.run_until(lambda: len(outcomes) == 2)
    unsaved, passed = outcomes
    assert not unsaved.accepted and unsaved.unsaved is not None and "injected fault" in str(unsaved.unsaved)
    assert passed.refusal is not None and passed.refusal.code == "pass.too_early"  # the roll never happened
    assert session.actions == [] and not session.is_recorded("tray:3") and journal.actions(session.game_id) == []
    journal._write.execute("DROP TRIGGER fail_entries_INSERT")
    session.submit_soon({"type": "roll", "values": ["4"]}, "serial", outcomes.append, ref="tray:3")
    ui.run_until(lambda: len(outcomes) == 3)
    assert outcomes[-1].accepted and [entry.ref for entry in journal.actions(session.game_id)] == ["tray:3"]
    assert session.writer.close()


def test_answers_keep_their_order_a_write_nobody_waits_for_holds_no_input_and_close_finishes_them() -> None:
    ui = UiThread()
    writer = JournalWriter(ui.call_soon)
    order: list[str] = []
    on_writer: list[str] = []
    release = threading.Event()

    def slow_write() -> str:
        on_writer.append(threading.current_thread().name)
        release.wait(5)
        return "clock"

    writer.write(slow_write, lambda outcome: order.append(outcome.result()), holds_input=False)
    writer.in_turn(lambda: order.append("tap"))  # a clock save in flight keeps no input waiting
    assert order == ["tap"] and not writer.busy
    writer.write(lambda: "move", lambda outcome: order.append(outcome.result()))
    writer.in_turn(lambda: order.append("key"))
    assert order == ["tap"] and writer.busy
    release.set()
    ui.run_until(lambda: len(order) == 4)
    assert order == ["tap", "clock", "move", "key"] and on_writer == ["goldtable-journal"]

    def failing() -> None:
        raise JournalError(Notice("test.card_full", "the card is full"))

    errors: list[BaseException | None] = []
    writer.write(failing, lambda outcome: errors.append(outcome.exception()))
    writer.write(lambda: "last", lambda outcome: order.append(outcome.result()))
    assert writer.close()  # finishes both and hands their answers over at once, on this thread
    assert str(errors[0]) == "the card is full" and order[-1] == "last" and not writer.busy
    writer.write(lambda: "too late", lambda outcome: errors.append(outcome.exception()))
    ui.run_until(lambda: len(errors) == 2)
    assert isinstance(errors[1], JournalError) and "closed" in str(errors[1])


def test_a_write_the_disk_answers_at_once_is_handed_over_before_the_frame() -> None:
    """The frame after a move waits `settle_seconds` for its write: landed, the move is in that frame."""
    ui = UiThread()
    writer = JournalWriter(ui.call_soon, settle_seconds=5.0)  # long enough for any loaded machine
    answers: list[str] = []
    writer.write(lambda: "move", lambda outcome: answers.append(outcome.result()))
    before_frame = ui.next_handed()  # what Kivy runs before drawing the next frame
    assert before_frame == writer.settle
    before_frame()
    assert answers == ["move"] and not writer.busy
    writer.write(lambda: "clock", lambda outcome: answers.append(outcome.result()), holds_input=False)
    ui.run_until(lambda: len(answers) == 2)  # a write no input waits for is not waited for
    assert writer.close()


def test_a_write_the_card_holds_up_costs_the_frame_only_the_moment() -> None:
    ui = UiThread()
    writer = JournalWriter(ui.call_soon, settle_seconds=0.01)
    release = threading.Event()
    answers: list[str] = []
    writer.write(lambda: release.wait(5) and "move", lambda outcome: answers.append(outcome.result()))
    writer.in_turn(lambda: answers.append("tap"))
    ui.next_handed()()  # the settle before the frame: the card has not answered
    assert answers == [] and writer.busy  # the frame is drawn without the move, the tap still waits
    release.set()
    ui.run_until(lambda: len(answers) == 2)
    assert answers == ["move", "tap"]
    assert writer.close()


def test_moves_before_one_frame_share_its_settle() -> None:
    """Three moves before a frame, on a card slower than the settle: the frame waits once, not three times."""
    ui = UiThread()
    writer = JournalWriter(ui.call_soon, settle_seconds=0.01)
    release = threading.Event()
    answers: list[str] = []
    for move in ("a", "b", "c"):
        writer.write(lambda move=move: release.wait(5) and move, lambda outcome: answers.append(outcome.result()))
    before_frame = ui.next_handed()
    assert before_frame == writer.settle
    before_frame()  # waits its moment once: the card has not answered
    assert answers == []
    settles = 0
    release.set()
    while len(answers) < 3:
        handed = ui.next_handed()
        settles += handed == writer.settle
        handed()
    assert settles == 0 and answers == ["a", "b", "c"]
    ui.run_waiting()  # the hand-overs of "b" and "c", which find nothing left
    writer.write(lambda: "d", lambda outcome: answers.append(outcome.result()))  # the next frame's move
    assert ui.next_handed() == writer.settle  # settles again
    assert writer.close()


def test_without_a_moment_to_settle_nothing_waits_before_the_frame() -> None:
    ui = UiThread()
    writer = JournalWriter(ui.call_soon, settle_seconds=0)
    answers: list[str] = []
    writer.write(lambda: "move", lambda outcome: answers.append(outcome.result()))
    handed = ui.next_handed()
    assert handed != writer.settle  # only the writer thread's own hand-over
    handed()
    assert answers == ["move"]
    assert writer.close()


def test_closing_while_the_card_does_not_answer_says_so_and_the_write_still_finishes() -> None:
    ui = UiThread()
    writer = JournalWriter(ui.call_soon)
    release = threading.Event()
    heard: list[bool] = []
    writer.write(lambda: release.wait(5), lambda outcome: heard.append(outcome.result()))
    assert not writer.close(timeout=0.1) and heard == []  # not finished: the journal must stay open under it
    release.set()
    assert writer.flush(5)  # the thread finishes that write, then ends
    ui.run_until(lambda: heard == [True])


@pytest.mark.parametrize("writer", ["thread", "inline"])
def test_with_a_slow_fsync_the_ui_thread_runs_while_the_commit_waits(tmp_path: Path, writer: str) -> None:
    """A real slow card: every fsync of the child process takes 200 ms.  Its UI thread ticks every 5 ms, and
    reads the journal at each tick, while it plays ten moves one after the other; with the writer thread it
    ticked during every commit, with the commit inline (as before the writer thread) never: the measure
    tells the two apart."""
    library = slow_fsync_library(tmp_path)
    if library is None:
        pytest.skip("no C compiler to build the slow-fsync shim")
    child = subprocess.run([sys.executable, "-m", "tests.engine.slow_card_player", str(tmp_path / "journal.sqlite3"),
                            writer], cwd=ROOT, env={**slow_fsync_env(library, 200), "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    report: dict[str, Any] = json.loads(child.stdout)
    ticks, commits, answers = report["ticks"], report["commits"], report["answers"]
    assert [answer[0] for answer in answers] == list(range(10))  # each move answered, in order
    for (start, end), (_move, answered) in zip(commits, answers):
        assert end - start >= 0.15  # the fsync really was slow
        assert answered >= end  # answered only once committed
        during = [tick for tick in ticks if start < tick < end]
        if writer == "thread":
            assert len(during) >= 5, f"the UI thread ran {len(during)} times during a commit of {end - start:.3f} s"
        else:
            assert during == []
    journal = Journal(tmp_path / "journal.sqlite3", read_only=True)
    assert [len(journal.actions(game.id)) for game in journal.games()] == [10]
    journal.close()
