"""The app's small files (settings, the chess clock's choices) are saved by a thread of their own: a change
returns at once however slow the card, is read back at once, changes made while the card is busy are merged
into the newest, a failure is logged and the app goes on, and closing waits for what is on its way.  Exports
run one at a time on a thread of their own, which a closing app waits for, but not for ever."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.app import saving
from companion.app.saving import FileSaver, JobThread
from companion.engine.paths import write_durably


class HeldCard:
    """`write_durably` as a card that answers only when the test lets it: the texts it was given, in order."""

    def __init__(self) -> None:
        self.written: list[tuple[str, str]] = []
        self.waiting = threading.Event()
        self.go = threading.Event()

    def write(self, path: Path, text: str) -> None:
        self.waiting.set()
        assert self.go.wait(10), "the card was never let go"
        write_durably(path, text)
        self.written.append((path.name, text))


@pytest.fixture
def card(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldCard]:
    held = HeldCard()
    monkeypatch.setattr(saving, "write_durably", held.write)
    yield held
    held.go.set()


def test_a_change_returns_before_the_card_answers_and_reads_back_at_once(tmp_path: Path, card: HeldCard) -> None:
    saver, path = FileSaver(), tmp_path / "app-settings.json"
    path.write_text("old", encoding="utf-8")
    saver.save(path, "new")
    assert card.waiting.wait(5)
    assert saver.read(path) == "new" and path.read_text(encoding="utf-8") == "old"
    assert not saver.flush(timeout=0.05), "still on its way"
    card.go.set()
    assert saver.flush() and path.read_text(encoding="utf-8") == "new" and saver.read(path) == "new"


def test_changes_made_while_the_card_is_busy_are_merged_into_the_newest(tmp_path: Path, card: HeldCard) -> None:
    saver, settings, clocks = FileSaver(), tmp_path / "app-settings.json", tmp_path / "clocks.json"
    saver.save(settings, "sound off")
    assert card.waiting.wait(5)
    for text in ("sound on", "sound off", "sound on"):
        saver.save(settings, text)
    saver.save(clocks, "clock on")
    card.go.set()
    assert saver.flush()
    assert card.written == [("app-settings.json", "sound off"), ("clocks.json", "clock on"),
                            ("app-settings.json", "sound on")], "the other file is not kept waiting"
    assert settings.read_text(encoding="utf-8") == "sound on"


def test_a_card_that_refuses_is_logged_and_the_app_goes_on(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    saver, path = FileSaver(), tmp_path / "read-only" / "app-settings.json"
    path.parent.write_text("a file where the folder should be", encoding="utf-8")
    with caplog.at_level(logging.WARNING, logger="companion.app.saving"):
        saver.save(path, "new")
        assert saver.flush()
    assert "app-settings.json not saved" in caplog.text
    with pytest.raises(OSError):
        saver.read(path)
    saver.save(tmp_path / "clocks.json", "still saving")
    assert saver.flush() and (tmp_path / "clocks.json").read_text(encoding="utf-8") == "still saving"


def test_jobs_run_in_order_one_at_a_time_and_a_failing_one_does_not_stop_the_next(
        caplog: pytest.LogCaptureFixture) -> None:
    jobs, done, at_once = JobThread("test-export"), [], []

    def job(number: int) -> None:
        at_once.append(threading.current_thread())
        time.sleep(0.01)
        done.append(number)
        if number == 1:
            raise OSError("the stick went away")

    with caplog.at_level(logging.ERROR, logger="companion.app.saving"):
        for number in range(4):
            jobs.submit(lambda number=number: job(number))
        assert jobs.flush(5)
    assert done == [0, 1, 2, 3] and "a job failed" in caplog.text
    assert len(set(at_once)) == 1, "one thread for every job"


def test_closing_waits_for_an_export_but_not_for_a_stick_that_stopped_answering(
        caplog: pytest.LogCaptureFixture) -> None:
    jobs, stick_answers = JobThread("test-export"), threading.Event()
    jobs.submit(lambda: None)
    assert jobs.flush(5), "an export that ends is waited for"
    jobs.submit(lambda: stick_answers.wait(30) and None)
    started = time.monotonic()
    with caplog.at_level(logging.WARNING, logger="companion.app.saving"):
        assert not jobs.flush(0.2)
    assert time.monotonic() - started < 5 and "closing without waiting longer for 1 job" in caplog.text
    stick_answers.set()
    assert jobs.flush(5)


def test_a_stuck_export_does_not_keep_the_closed_apps_process_alive() -> None:
    """The export thread is a daemon: once `flush` gives up, the interpreter exits (its lock goes with it)."""
    script = ("import threading\n"
              "from companion.app.saving import JobThread\n"
              "jobs = JobThread('stuck-export')\n"
              "jobs.submit(threading.Event().wait)\n"
              "print(jobs.flush(0.1))\n")
    finished = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0 and finished.stdout.strip() == "False", finished.stderr


def test_quitting_with_a_stuck_export_waits_once_and_closes_the_window(tmp_path: Path) -> None:
    """The real app (`run_app`, offscreen) quit by Settings while an export hangs: Settings waits on the
    screen, then the app stops without waiting again (Kivy dispatches `on_stop` from Quit and again when
    `run` returns, and each round waited anew), and the window is closed, which on a screen would otherwise
    stay as a frozen Goldtable for as long as the kernel keeps the stuck process."""
    script = ("import sys, threading\n"
              "from pathlib import Path\n"
              "from companion.app import launch, saving\n"
              "saving.CLOSE_SECONDS = 0.5\n"
              "window_made = launch.flush_offscreen_frames\n"
              "def quit_once_ready() -> None:\n"  # run_app calls this once its window exists
              "    window_made()\n"
              "    from kivy.app import App\n"
              "    from kivy.clock import Clock\n"
              "    from companion.app.history import exports\n"
              "    flush = exports.flush\n"
              "    def told_flush(timeout: float) -> bool:\n"
              "        print(f'flush {timeout:.2f}')\n"
              "        return flush(timeout)\n"
              "    exports.flush = told_flush\n"
              "    def quit(_dt: float) -> None:\n"
              "        app = App.get_running_app()\n"
              "        if not app.ready:\n"
              "            Clock.schedule_once(quit, 0.1)\n"
              "            return\n"
              "        exports.submit(threading.Event().wait)\n"  # a stick that never answers
              "        app.screen('settings').confirm = 'quit'\n"  # Settings asked, and Quit was tapped
              "        app.preferences.system_action('quit')\n"
              "    Clock.schedule_once(quit, 0)\n"
              "launch.flush_offscreen_frames = quit_once_ready\n"
              "launch.run_app((800, 480), False, None, False, Path(sys.argv[1]), offscreen=True)\n"
              "from kivy.core.window import Window\n"
              "print('window open' if Window.initialized else 'window closed')\n")
    env = {**os.environ, "GOLDTABLE_DATA": str(tmp_path), "HOME": str(tmp_path), "KIVY_NO_ARGS": "1"}
    env.pop("KIVY_HOME", None)  # Kivy's folder beside the journal, as the app makes it
    finished = subprocess.run([sys.executable, "-c", script, str(tmp_path / "journal.sqlite3")], env=env,
                              capture_output=True, text=True, timeout=120)
    assert finished.returncode == 0, finished.stderr
    assert finished.stdout.split() == ["flush", "0.00", "window", "closed"], finished.stdout
    assert finished.stderr.count("closing without waiting longer for 1 job") == 1, finished.stderr
