"""A slow card under the whole app: while the journal's commit waits on its writer thread (held as long as
the test wants), the UI thread keeps drawing frames; nothing is acknowledged (screen, seat LEDs, the device's
ACK) before the row is on disk; the taps, GPIO presses, serial rolls and keys that arrive meanwhile are
played afterwards in the order they came, each once, each against the state the one before made; and a
new game or a closing journal waits for the write instead of losing it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.clock import Clock
from kivy.core.window import Window

from companion.app.launch import pump
from companion.engine.journal import Journal
from companion.engine.session import Session
from firmware_bridge.events import ButtonEvent
from tests.app.test_controller_inputs import open_game, sensor_roll
from tests.app.ui import buttons, find_button
from tests.slow_disk import HeldWrites


class Acknowledgements:
    """What the app tells the outside world, each with the journal's rows of the game at that moment: the
    device's answers (`settle`) and the seat LEDs."""

    def __init__(self, app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.app = app
        self.settled: list[tuple[Any, bool, str | None, int]] = []
        self.leds: list[tuple[str, str, int]] = []
        monkeypatch.setattr(app.hardware, "settle", lambda event, recorded, reason=None: self.settled.append(
            (event, recorded, reason, self.rows())), raising=False)
        monkeypatch.setattr(app.hardware, "led", lambda name, mode: self.leds.append((name, mode, self.rows())),
                            raising=False)

    def rows(self) -> int:
        session = self.app.table.session
        return len(self.app.journal.actions(session.game_id)) if session is not None else -1


@pytest.fixture
def own_journal(fresh_app: Any, tmp_path: Path) -> Iterator[Path]:
    shared = fresh_app.journal.path
    path = tmp_path / "journal.sqlite3"
    fresh_app.journal_desk.open(Journal(path))
    yield path
    fresh_app.flow.controller.open(None)
    fresh_app.journal_desk.open(Journal(shared))


def frames_while_held(count: int) -> list[float]:
    """Run `count` frames as the app's own loop does (the writes still on their way); when each ran."""
    ran: list[float] = []
    event = Clock.schedule_interval(lambda _dt: ran.append(time.monotonic()), 0)
    try:
        pump(count, writes_land=False)
    finally:
        event.cancel()
    return ran


def touch(app: Any, text: str) -> None:
    """A finger on the button, down and up, and one frame (without waiting for the journal)."""
    press_on(find_button(app, text))


def press_on(button: Any) -> None:
    """A finger down and up on the middle of `button`, and one frame (the writes still on their way)."""
    from kivy.tests.common import UnitTestTouch

    finger = UnitTestTouch(*button.to_window(*button.center))
    finger.touch_down()
    finger.touch_up()
    pump(1, writes_land=False)


def roll_held(app: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Session, Acknowledgements, HeldWrites]:
    """A Digger game on the table and a roll tapped in, whose commit the card holds."""
    session = open_game(app, "digger")
    told = Acknowledgements(app, monkeypatch)
    slow = HeldWrites(app.journal, monkeypatch)
    for face in "BYRGW":  # the fifth tap completes the roll
        touch(app, face)
    assert slow.held.wait(5)
    return session, told, slow


def test_input_during_a_slow_commit_waits_its_turn_and_nothing_is_acknowledged_early(
        fresh_app: Any, own_journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = fresh_app
    log = list(app.table.log)
    session, told, slow = roll_held(app, monkeypatch)
    stop = ButtonEvent(source="gpio", name="stop", action="down")  # refused if checked now: nothing rolled yet
    app.hardware.dispatch("on_event", stop)
    roll = sensor_roll(values=("K", "K", "B", "Y", "R"), seq=41)  # Ben's roll, once Anna has stopped
    app.hardware.dispatch("on_event", roll)
    Window.dispatch("on_key_down", ord("s"), 0, "s", [])  # the keyboard's Stop, for Ben
    ran = frames_while_held(20)
    assert len(ran) >= 20 and not slow.threads & {threading.current_thread().name}  # the UI thread drew on
    assert session.actions == [] and app.table.log == log and app.table.player == 0  # the screen waits
    assert told.settled == [] and told.leds == []  # so do the device and the seat LEDs

    slow.release()
    pump(1)
    assert [(entry.source, entry.action["type"]) for entry in session.actions] == [
        ("touch", "roll"), ("gpio", "stop"), ("serial", "roll"), ("keyboard", "stop")]
    journalled = app.journal.actions(session.game_id)
    assert [entry.action for entry in journalled] == [entry.action for entry in session.actions]
    assert [entry.ref for entry in journalled] == [None, None, "sensor:41", None]  # each once
    assert (stop, True, None, 2) in told.settled and (roll, True, None, 3) in told.settled
    assert all(recorded for _event, recorded, _reason, _rows in told.settled)
    assert ("seat2", "on", 2) in told.leds  # Ben's LED once Anna's Stop was on disk, not before
    assert session.state.digger == 0 and app.table.player == 0  # Ben stopped too: Anna digs again


def grey_button(app: Any, text: str) -> Any:
    """The one visible, greyed-out button with this text on the current screen."""
    found = buttons(app, text, disabled=True)
    assert len(found) == 1, f"no single grey {text!r} on {app.root.current}"
    return found[0]


def test_a_tap_on_a_button_grey_only_until_the_move_before_is_saved_counts_once_it_is(
        fresh_app: Any, own_journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop! greys out until the turn's first roll is on the table; tapped right after the roll while the card
    still writes it, it waits for the roll and is played (the simulated Pi's check 6 once lost such a tap,
    and the sand timer's time-up was journalled instead).  Fumbled, tapped too, stays grey after this roll
    (no black die to rob with): its tap does nothing, as on any grey button."""
    app = fresh_app
    session, _told, slow = roll_held(app, monkeypatch)
    fumbled, stop = grey_button(app, "Fumbled"), grey_button(app, "Stop!")
    press_on(fumbled)
    press_on(stop)
    assert session.actions == []  # both wait for the roll
    slow.release()
    pump(1)
    assert [(entry.source, entry.action["type"]) for entry in session.actions] == [("touch", "roll"),
                                                                                  ("touch", "stop")]
    assert [entry.action["type"] for entry in app.journal.actions(session.game_id)] == ["roll", "stop"]
    assert app.table.notice_text == ""  # Fumbled's tap was not turned into a refused move


def test_a_held_tap_counts_only_if_the_button_still_says_the_same(
        fresh_app: Any, own_journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Panels reuse their buttons for other choices when the state changes; a tap held while the move before
    was written must not play whatever the button it landed on offers afterwards."""
    app = fresh_app
    session, _told, slow = roll_held(app, monkeypatch)
    stop = grey_button(app, "Stop!")
    press_on(stop)
    stop.text = "Time is up"  # as if the write had turned this button into another choice
    slow.release()
    pump(1)
    assert [entry.action["type"] for entry in session.actions] == ["roll"]


def test_a_tap_on_a_grey_button_with_nothing_being_saved_does_nothing(
        fresh_app: Any, own_journal: Path) -> None:
    app = fresh_app
    session = open_game(app, "digger")
    press_on(grey_button(app, "Stop!"))
    pump(2)
    assert session.actions == [] and app.table.notice_text == ""


def test_a_new_game_asked_for_during_a_slow_commit_opens_after_it_and_gets_the_input_after_it(
        fresh_app: Any, own_journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = fresh_app
    old, told, slow = roll_held(app, monkeypatch)
    app.go("home")
    app.flow.choose_game("digger")
    app.flow.new_game()
    while len(app.players_model.seats) < 2:
        app.players_model.add()
    app.flow.players_done()
    app.flow.options_done()
    app.flow.start_game(seed=3)
    app.flow.start_game(seed=4)  # a second tap on Start while the first waits: no second game
    roll = sensor_roll(values=("W", "W", "W", "K", "K"), seq=5)  # sent after Start: for the new game
    app.hardware.dispatch("on_event", roll)
    assert len(frames_while_held(10)) >= 10 and app.root.current == "setup"
    slow.release()
    pump(2)
    assert app.root.current == "table" and app.table.session is not old
    assert [entry.action["values"] for entry in old.actions] == [list("BYRGW")]
    assert [entry.action["values"] for entry in app.table.session.actions] == [list("WWWKK")]
    assert [game.actions for game in app.journal.games()] == [1, 1]  # the new game, then the old one
    assert (roll, True, None, 1) in told.settled


def test_closing_the_journal_during_a_slow_commit_finishes_it_and_answers_the_device(
        fresh_app: Any, own_journal: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What quitting the app does (`on_stop`) and a swap of journals alike: the held write is finished
    and its answer goes out before the journal closes."""
    app = fresh_app
    session = open_game(app, "goldgraeber")
    told = Acknowledgements(app, monkeypatch)
    slow = HeldWrites(app.journal, monkeypatch)
    roll = sensor_roll(values=("3",), seq=12)
    app.hardware.dispatch("on_event", roll)
    assert slow.held.wait(5)
    threading.Timer(0.3, slow.release).start()  # the card takes its time; closing waits for it
    app.journal_desk.open(Journal(tmp_path / "other.sqlite3"))
    assert len(session.actions) == 1 and told.settled == [(roll, True, None, 1)]
    reopened = Journal(own_journal, read_only=True)
    assert [entry.ref for entry in reopened.actions(session.game_id)] == ["sensor:12"]
    reopened.close()


def test_every_controller_method_the_panels_and_the_app_call_waits_its_turn() -> None:
    """A method reached from a panel, a kv rule or the app is an input (it reads the state to decide), so it
    must be `@in_turn`; only the table's life cycle and pure readers are called directly."""
    import inspect
    import re

    import companion.app as app_package
    from companion.app.controllers import controller_class
    from companion.engine.registry import declared, load_part, plugin_for

    readers = {"listen", "unlisten", "expects", "victim", "take_bars", "open", "close", "take_held"}
    folders = [Path(app_package.__file__).parent]  # the app, and each game's own app parts (panel, board)
    controllers = set()
    for game in declared():
        plugin = plugin_for(game)
        if plugin.table is not None:
            folders.append(Path(str(load_part(game, plugin.table).__file__)).parent)
        if plugin.controller is not None:
            source = Path(str(inspect.getsourcefile(load_part(game, plugin.controller))))
            controllers.add(source)
            folders.append(source.parent)
    sources = [path.read_text(encoding="utf-8") for folder in set(folders)
               for pattern in ("*.py", "*.kv", "*/*.py", "*/*.kv") for path in folder.glob(pattern)
               if "controllers" not in path.parts and path not in controllers]
    named = {name for text in sources for name in re.findall(r"controller\.(\w+)", text)} - readers
    assert {"submit", "undo", "on_bridge_event", "on_key", "press", "tap_site", "play_picks"} <= named
    for game in declared():
        cls = controller_class(game)
        for name in sorted(named):
            method = getattr(cls, name, None)
            if inspect.isfunction(method):
                assert method.__code__.co_name == "take_turn", \
                    f"{cls.__name__}.{name} is called from outside the controller but is not @in_turn"
