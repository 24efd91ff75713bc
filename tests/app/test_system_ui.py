"""Settings' Quit / Restart / Shut down (with a confirmation step, all by touch) and the docked on-screen
keyboard that every text field brings up on a touch-only table."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kivy.core.window import Window
from kivy.uix.textinput import TextInput
from kivy.uix.vkeyboard import VKeyboard

from companion.app import saving
from companion.app.history import exports
from companion.app.keyboard import TableKeyboard, use_onscreen_keyboard
from companion.app.launch import pump
from companion.system import power
from tests.app.ui import find_button, label_texts, tap, until


@pytest.fixture
def actions(fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the Settings screen asked the app to do (the shared test app must not really stop)."""
    done: list[str] = []
    monkeypatch.setattr(fresh_app.preferences, "system_action", done.append)
    return done


def _settings(app: Any, monkeypatch: pytest.MonkeyPatch, can_power_off: bool) -> None:
    """Settings, once logind's answer (asked on a thread of its own) has reached the screen."""
    monkeypatch.setattr(power, "can_power_off", lambda: can_power_off)
    app.go("settings")
    deadline = time.monotonic() + 10
    while app.root.current_screen.can_power_off != can_power_off and time.monotonic() < deadline:
        pump(1)
    pump(2)


def _on_the_window(*widgets: Any) -> bool:
    """Each widget lies wholly inside the 800x480 window and is big enough for a finger."""
    for widget in widgets:
        left, bottom = widget.to_window(widget.x, widget.y)
        if not (0 <= left <= left + widget.width <= Window.width
                and 0 <= bottom <= bottom + widget.height <= Window.height and min(widget.size) >= 48):
            return False
    return True


@pytest.mark.parametrize(("button", "action"), [("Quit", "quit"), ("Restart", "restart")])
def test_quit_and_restart_ask_first_then_act(fresh_app: Any, actions: list[str], monkeypatch: pytest.MonkeyPatch,
                                             button: str, action: str) -> None:
    _settings(fresh_app, monkeypatch, can_power_off=False)
    assert _on_the_window(find_button(fresh_app, "Back"), find_button(fresh_app, "Quit"),
                          find_button(fresh_app, "Restart"))
    tap(fresh_app, button, frames=3)
    assert actions == []  # only the question so far
    screen = fresh_app.root.current_screen
    assert _on_the_window(find_button(fresh_app, button), find_button(fresh_app, "Cancel"))
    assert screen.ids.confirm_row.children[-1].width > 200  # the question has room
    assert screen.confirm == action and screen.ids.confirm_row.opacity == 1 and screen.ids.power_row.disabled
    tap(fresh_app, "Cancel", frames=3)
    assert screen.confirm == "" and actions == []
    tap(fresh_app, button, frames=3)
    tap(fresh_app, button)  # the confirmation row's button carries the same word
    assert actions == [action]


def test_shut_down_is_offered_only_where_it_can_work(fresh_app: Any, actions: list[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    _settings(fresh_app, monkeypatch, can_power_off=False)
    with pytest.raises(AssertionError, match="no enabled button 'Shut down'"):
        find_button(fresh_app, "Shut down")
    fresh_app.go("home")
    _settings(fresh_app, monkeypatch, can_power_off=True)
    assert _on_the_window(*(find_button(fresh_app, text) for text in ("Back", "Quit", "Restart", "Shut down")))
    tap(fresh_app, "Shut down", frames=3)
    assert "Shut the Pi down?" in fresh_app.root.current_screen.ids.confirm_row.children[-1].text
    assert _on_the_window(find_button(fresh_app, "Shut down"), find_button(fresh_app, "Cancel"))
    tap(fresh_app, "Shut down")
    assert actions == ["shutdown"]


def test_a_refused_power_off_is_shown_and_the_app_keeps_running(fresh_app: Any,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(power, "power_off", lambda: "Access denied")
    stopped: list[bool] = []
    monkeypatch.setattr(fresh_app, "stop", lambda *args: stopped.append(True))
    fresh_app.go("settings")
    fresh_app.preferences.system_action("shutdown")
    assert stopped == []
    assert fresh_app.root.current_screen.message == "The Pi could not be shut down: Access denied"
    fresh_app.go("home")
    fresh_app.go("settings")
    pump(1)
    assert fresh_app.root.current_screen.message == "", "the next visit opens without the last visit's message"


@pytest.fixture
def stick(fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, list[str]]]:
    """An export on its way to a USB stick that answers only when the test lets it (the event), and what
    the app did meanwhile ("stop", "stop by" a deadline, "restart", "power off"; the shared test app must
    not really stop)."""
    monkeypatch.setattr(saving, "CLOSE_SECONDS", 1.0)
    done: list[str] = []
    monkeypatch.setattr(fresh_app, "stop", lambda *_args: done.append("stop"))
    monkeypatch.setattr(fresh_app, "stop_by", lambda _deadline: done.append("stop by"))
    monkeypatch.setattr(power, "restart", lambda *_args, **_kwargs: done.append("restart"))
    monkeypatch.setattr(power, "power_off", lambda *_args, **_kwargs: done.append("power off"))
    answers = threading.Event()
    exports.submit(lambda: answers.wait(30) and None)
    fresh_app.go("settings")
    pump(1)
    fresh_app.root.current_screen.confirm = "quit"  # the question was answered (the tests say which)
    yield answers, done
    answers.set()
    assert exports.flush(10)


@pytest.mark.parametrize(("action", "button", "then"), [("restart", "Restart", ["stop", "restart"]),
                                                        ("shutdown", "Shut down", ["power off", "stop"])])
def test_restart_and_shut_down_wait_for_an_export_and_ask_for_a_stick_that_stopped_answering(
        fresh_app: Any, stick: tuple[threading.Event, list[str]], action: str, button: str, then: list[str]) -> None:
    """A new app replaces this process only once a write to the stick has ended, so a Restart with the
    stick hung would freeze the screen; a Shut down would stop the Pi around that write, on timeouts of a
    minute or more.  Each says so and waits for the stick to be taken out."""
    answers, done = stick
    screen = fresh_app.root.current_screen
    screen.confirm = action
    fresh_app.preferences.system_action(action)
    pump(1)
    assert screen.message == "Saving to the USB stick first…" and done == []
    until(lambda: "does not answer" in screen.message, "the stick to be given up on")
    assert screen.message == f"The USB stick does not answer. Take it out, then tap {button} again." and done == []
    answers.set()  # taken out: its write ends (with an error)
    until(lambda: exports.idle, "the write to end")
    fresh_app.preferences.system_action(action)
    assert done == then


def _quit_while_saving(app: Any) -> Any:
    """Settings' Quit, confirmed while an export is on its way: the screen says it saves first."""
    screen = app.root.current_screen
    app.preferences.system_action("quit")
    pump(1)
    assert screen.message == "Saving to the USB stick first…"
    return screen


def test_quit_waits_for_an_export_on_its_way_but_not_for_ever(fresh_app: Any,
                                                              stick: tuple[threading.Event, list[str]]) -> None:
    answers, done = stick
    _quit_while_saving(fresh_app)
    assert done == []
    until(lambda: done, "quitting anyway")
    assert done == ["stop by"], "without waiting for the stick a second time"
    done.clear()
    exports.submit(lambda: answers.wait(30) and None)
    screen = _quit_while_saving(fresh_app)
    answers.set()  # this stick answers: Quit goes as soon as the export is on it
    until(lambda: done, "quitting once saved")
    assert done == ["stop"] and screen.message == ""


def test_cancel_while_waiting_for_the_stick_keeps_the_app(fresh_app: Any,
                                                          stick: tuple[threading.Event, list[str]]) -> None:
    answers, done = stick
    screen = _quit_while_saving(fresh_app)
    tap(fresh_app, "Cancel", frames=2)
    answers.set()
    until(lambda: exports.idle, "the write to end")
    until(lambda: screen.message == "", "the wait to see the Cancel")
    pump(3)
    assert done == [] and screen.confirm == ""


@pytest.fixture
def docked_keyboard(fresh_app: Any) -> Iterator[Any]:
    use_onscreen_keyboard(True)
    yield fresh_app
    Window.release_all_keyboards()
    use_onscreen_keyboard(False)
    fresh_app.preferences.set_language("en")


def _keyboards() -> list[VKeyboard]:
    return [child for child in Window.children if isinstance(child, VKeyboard)]


def test_focusing_a_name_field_brings_up_the_docked_keyboard_in_the_language_layout(docked_keyboard: Any) -> None:
    app = docked_keyboard
    app.flow.new_game()
    pump(2)
    field = next(widget for widget in app.root.current_screen.walk() if isinstance(widget, TextInput))
    assert _keyboards() == []
    field.focus = True
    pump(3)
    keyboards = _keyboards()
    assert len(keyboards) == 1 and isinstance(keyboards[0], TableKeyboard)
    keyboard = keyboards[0]
    assert keyboard.docked and keyboard.layout == "qwerty"
    assert tuple(keyboard.pos) == (0, 0) and keyboard.width * keyboard.scale == pytest.approx(Window.width)
    for lang, layout in (("de", "de"), ("fr", "azerty"), ("en", "qwerty")):
        app.preferences.set_language(lang)
        pump(2)
        assert keyboard.layout == layout
    before = field.text
    keyboard.dispatch("on_textinput", "z")
    pump(1)
    assert field.text == before + "z"
    field.focus = False
    pump(2)
    assert _keyboards() == []


def test_without_the_keyboard_mode_no_keyboard_appears(fresh_app: Any) -> None:
    use_onscreen_keyboard(False)
    fresh_app.flow.new_game()
    pump(2)
    field = next(widget for widget in fresh_app.root.current_screen.walk() if isinstance(widget, TextInput))
    field.focus = True
    pump(2)
    assert _keyboards() == []
    field.focus = False
    pump(1)


def test_a_field_low_on_the_screen_is_lifted_above_the_keyboard(docked_keyboard: Any) -> None:
    app = docked_keyboard
    app.go("settings")
    pump(2)
    field = app.root.current_screen.ids.serial
    assert field.to_window(field.x, field.y)[1] < 200  # where the docked keyboard will be
    field.focus = True
    pump(3)
    keyboard = _keyboards()[0]
    keyboard_top = keyboard.y + keyboard.height * keyboard.scale
    assert app.root.y > 0
    assert field.to_window(field.x, field.y)[1] >= keyboard_top
    field.focus = False
    pump(2)
    assert app.root.y == 0 and _keyboards() == []


def test_the_keyboard_is_docked_on_a_pi_unless_told_otherwise(tmp_path: Any,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import firmware_bridge.machine as machine
    from companion.app.keyboard import onscreen_keyboard_wanted

    model = tmp_path / "model"
    monkeypatch.setattr(machine, "MODEL_FILE", model)
    monkeypatch.delenv("GOLDTABLE_KEYBOARD", raising=False)
    assert not onscreen_keyboard_wanted()  # a PC
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00")
    assert onscreen_keyboard_wanted()
    monkeypatch.setenv("GOLDTABLE_KEYBOARD", "system")
    assert not onscreen_keyboard_wanted()
    model.unlink()
    monkeypatch.setenv("GOLDTABLE_KEYBOARD", "dock")
    assert onscreen_keyboard_wanted()


def test_a_new_sensor_address_replaces_the_sensor(fresh_app: Any) -> None:
    """Settings' Connect puts the sensor at the typed address in place of the one searching by USB id (two
    readers on one port would split its frames), and an empty address goes back to searching."""
    from firmware_bridge.serial_source import SerialSource

    hardware = fresh_app.hardware

    def sensors() -> list[str | None]:
        return [source.url for source in hardware.bridge.sources if isinstance(source, SerialSource)]

    hardware.add_source(SerialSource(None))  # as a Pi starts: looking for a Pico (maybe a second one)
    try:
        message = fresh_app.preferences.apply_serial("socket://127.0.0.1:9")
        assert "socket://127.0.0.1:9" in message
        deadline = time.monotonic() + 5
        while sensors() != ["socket://127.0.0.1:9"]:
            assert time.monotonic() < deadline, hardware.bridge.sources
            pump(1)
        assert "Raspberry Pi Pico" in fresh_app.preferences.apply_serial("")
        while sensors() != [None]:
            assert time.monotonic() < deadline, hardware.bridge.sources
            pump(1)
    finally:
        hardware.bridge.remove_source("serial")
        fresh_app.preferences.update(serial_url="")


def test_settings_opens_at_once_while_logind_is_slow_to_answer(fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """logind's answer goes through polkit, seconds on a busy Pi: Settings is drawn without it, and Shut
    down appears when the answer comes."""
    import threading

    answer = threading.Event()
    monkeypatch.setattr(power, "can_power_off", lambda: answer.wait(10))
    fresh_app.go("home")
    pump(1)
    fresh_app.go("settings")
    pump(3)
    screen = fresh_app.root.current_screen
    assert screen.name == "settings" and not screen.can_power_off
    answer.set()
    deadline = time.monotonic() + 10
    while not screen.can_power_off:
        assert time.monotonic() < deadline, "the answer never reached the screen"
        pump(1)
    assert find_button(fresh_app, "Shut down")
    fresh_app.go("home")


def test_the_full_screen_switch_shows_the_window_as_it_is(fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kiosk starts the app with `--fullscreen` (a Pi does by itself) while the saved setting says
    windowed: Settings shows the switch on, without saving the flag as the setting; switched off, it is."""
    saved: list[dict[str, Any]] = []
    monkeypatch.setattr(fresh_app.preferences, "update", lambda **changes: saved.append(changes))
    monkeypatch.setattr(power, "can_power_off", lambda: False)
    assert not fresh_app.preferences.settings.fullscreen
    fresh_app.preferences.fullscreen = True  # as launch.run_app sets it for the kiosk
    try:
        fresh_app.go("settings")
        pump(2)
        switch = fresh_app.root.current_screen.ids.fullscreen
        assert switch.active and saved == []
        switch.active = False  # what a finger on the switch does
        assert saved == [{"fullscreen": False}]
    finally:
        fresh_app.preferences.fullscreen = False
        fresh_app.go("home")
        pump(1)


def test_a_setting_changed_while_the_card_is_slow_leaves_the_screen_at_once(
        fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sound switched off while the card takes its time: the tap returns, the switch shows it, and the file
    has it once the card answers."""
    from companion.app import saving
    from companion.app.settings import load_settings
    from tests.app.test_saving import HeldCard

    card = HeldCard()
    monkeypatch.setattr(saving, "write_durably", card.write)
    monkeypatch.setattr(power, "can_power_off", lambda: False)
    path = fresh_app.preferences.settings_file
    try:
        fresh_app.go("settings")
        pump(2)
        switch = next(widget for widget in fresh_app.root.current_screen.walk()
                      if type(widget).__name__ == "Switch" and widget.active)  # Sound, on by default
        switch.active = False  # what a finger on the switch does
        assert card.waiting.wait(5) and not fresh_app.preferences.settings.sound
        pump(2)
        assert not switch.active and not load_settings(path).sound and card.written == []
        card.go.set()
        assert saving.saver.flush() and '"sound": false' in path.read_text(encoding="utf-8")
    finally:
        card.go.set()
        fresh_app.preferences.update(sound=True)
        assert saving.saver.flush()
        fresh_app.go("home")
        pump(1)


def test_a_card_that_refuses_the_settings_is_said_on_settings_and_timer_until_it_takes_them(
        fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read-only or full card: the switch still works for this run, and both screens that save choices
    say they will not last; once the card takes a save again, the sentence goes."""
    import errno

    from companion.app import saving

    def read_only(path: Any, text: str) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(power, "can_power_off", lambda: False)
    folder = fresh_app.preferences.settings_file.parent
    said = f"Could not save the settings: the card or folder {folder} is read-only. They apply until Goldtable closes."
    try:
        with monkeypatch.context() as card:
            card.setattr(saving, "write_durably", read_only)
            fresh_app.go("settings")
            pump(2)
            fresh_app.preferences.update(sound=False)
            assert saving.saver.flush()
            pump(2)
            assert not fresh_app.preferences.settings.sound and said in label_texts(fresh_app)
            fresh_app.go("clocks")
            pump(2)
            assert said in label_texts(fresh_app)
        fresh_app.preferences.update(sound=True)
        assert saving.saver.flush()
        pump(2)
        assert said not in label_texts(fresh_app) and fresh_app.preferences.save_problem is None
    finally:
        fresh_app.preferences.update(sound=True)
        assert saving.saver.flush()
        fresh_app.go("home")
        pump(1)


def test_the_unsaved_settings_sentence_is_wholly_in_the_language_asked_for(fresh_app: Any) -> None:
    """The reason inside the sentence follows the language kv passes, not only the sentence around it."""
    import errno
    from pathlib import Path

    from companion.app.preferences import Preferences
    from companion.engine.journal_triage import why_not_writable

    problem = why_not_writable(Path("/media/karte/settings.json"), OSError(errno.EROFS, "Read-only file system"))
    assert fresh_app.lang == "en"
    said = Preferences.unsaved_text(problem, "de")
    assert "schreibgeschützt" in said and "read-only" not in said
    assert "read-only" in Preferences.unsaved_text(problem, "en")
