"""Table flows a family meets: keyboard play, undo, the sand timer's warnings and time up with stowed
colours, a refusal with its rule, a corrupt journal."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from kivy.core.window import Window

from companion.app.launch import pump
from companion.engine.journal import Journal
from firmware_bridge.events import BeepCommand, LedCommand
from firmware_bridge.hub import Source
from tests.app.conftest import ManualClock
from tests.app.test_play_touch import set_up_four_players
from tests.app.ui import find_button, label_texts, tap
from tests.table_helpers import played


class RecordingOutputs(Source):
    """A source that only records the LED and beeper commands it is sent."""

    name = "outputs"
    has_outputs = True

    def __init__(self) -> None:
        self.commands: list[Any] = []

    @property
    def connected(self) -> bool:
        return True

    def describe(self) -> dict[str, Any]:
        return {"kind": "test outputs"}

    def start(self, emit: Any) -> None:
        """Nothing to read."""

    def stop(self) -> None:
        """Nothing to release."""

    def send(self, command: Any) -> None:
        self.commands.append(command)


def key(codepoint: str, keycode: int | None = None, modifiers: list[str] | None = None) -> None:
    Window.dispatch("on_key_down", keycode if keycode is not None else ord(codepoint), 0, codepoint,
                    modifiers or [])
    pump(1)


def pump_until(condition: Any, what: str, timeout: float = 5.0) -> None:
    """Run frames until `condition()` (the timer is polled ten times a second on Kivy's clock)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        pump(1)


def wait_worker(app: Any) -> None:
    """Let the hardware worker thread pass queued commands on."""
    done: list[bool] = []
    app.hardware._work.put(lambda: done.append(True))
    while not done:
        pump(1)


def test_keyboard_play_and_undo(fresh_app: Any) -> None:
    app = fresh_app
    set_up_four_players(app)
    session = app.table.session
    for face in "yrbkg":
        key(face)
    assert session.state.roll == ("Y", "R", "B", "K", "G")
    tap(app, "Take yellow")
    assert session.state.waiting.Y == 1
    log_length = len(app.table.log)
    tap(app, "Undo")
    assert session.state.waiting.Y == 0 and len(session.actions) == 1
    assert len(app.table.log) == log_length - 1
    key("z", modifiers=["ctrl"])
    assert session.actions == [] and not session.state.roll
    key(" ", keycode=32)  # Space: the Pi rolls for the table
    assert len(session.actions) == 1 and session.actions[0].source == "keyboard"
    key("s")  # S: the Stop button
    assert session.state.digger == 1


def test_refusal_shows_rule_and_way_on(fresh_app: Any) -> None:
    app = fresh_app
    set_up_four_players(app)
    for face in "yykgg":
        tap(app, face.upper())
    assert not played(app.table.session, app.flow.controller.submit, {"type": "take", "colour": "Y"})
    pump(2)
    shown = label_texts(app)
    assert any("Yellow shows on 2 dice" in text for text in shown)
    assert any(text.startswith("DIG-4 ") for text in shown)
    assert app.table.refusal_rule_text
    tap(app, "OK")
    assert not app.table.refusal_text
    tap(app, "Undo")
    assert not app.table.can_undo  # the on-screen Undo is greyed out now
    app.flow.press_button("undo", "gpio")  # the hardware undo button at the wrong moment: TABLE-1 refusal
    assert app.table.refusal_rule.startswith("TABLE-1")
    assert app.table.session.actions == []
    app.flow.press_button("next", "gpio")  # a button this game does not use: said so, nothing changes
    assert "next button has no use" in app.table.notice_text
    tap(app, "OK")
    assert app.table.session.actions == [] and not app.table.notice_text


def test_timer_warns_and_time_up_keeps_what_was_stowed(fresh_app: Any, clock: ManualClock) -> None:
    app = fresh_app
    outputs = RecordingOutputs()
    if not any(source.name == "outputs" for source in app.hardware.bridge.sources):
        app.hardware.add_source(outputs)
    else:
        outputs = next(s for s in app.hardware.bridge.sources if s.name == "outputs")
    set_up_four_players(app)
    session = app.table.session
    for face in "YRBKG":
        tap(app, face)
    assert app.timer.running  # the first roll turned the sand timer
    tap(app, "Take yellow")
    tap(app, "Take red")
    outputs.commands.clear()
    clock.advance(26)
    pump_until(lambda: app.timer.remaining <= 5, "the 5 s mark")
    wait_worker(app)
    assert BeepCommand(ms=150) in outputs.commands  # 5 s warning
    clock.advance(5)
    pump_until(lambda: app.timer.expired, "the sand to run out")
    pump(2)
    wait_worker(app)
    assert BeepCommand(ms=800) in outputs.commands  # sand ran out
    assert LedCommand(name="seat1", mode="blink") in outputs.commands
    assert app.root.current == "table"
    tap(app, "Yellow stowed")  # (a label starts with a capital, also "Gelb eingeräumt")
    tap(app, "Time is up")
    assert session.actions[-1].action == {"type": "time_up", "stowed": ["Y"]}
    assert session.state.boxes[0].Y == 1 and session.state.boxes[0].R == 0
    assert session.state.digger == 1 and not app.timer.started


def test_hourglass_before_the_first_roll_keeps_running_and_undo_resets(fresh_app: Any) -> None:
    app = fresh_app
    set_up_four_players(app)
    app.flow.press_button("hourglass", "gpio")  # the keeper turns the sand timer a moment before the roll
    pump(2)
    assert app.timer.running
    for face in "YRBKG":
        tap(app, face)
    assert app.timer.running and app.table.session.state.timer_running
    tap(app, "Undo")  # the roll taken back: no sand is running for this turn any more
    assert not app.timer.started


def test_corrupt_journal_is_reported_on_home(fresh_app: Any, tmp_path: Path) -> None:
    app = fresh_app
    from companion.app.demo import demo_session

    path = tmp_path / "journal.sqlite3"
    demo_session(path, moves=None).journal.close()  # type: ignore[union-attr]
    data = bytearray(path.read_bytes())
    data[2 * 4096:2 * 4096 + 200] = b"\xff" * 200  # a damaged page, as a bad card leaves it
    path.write_bytes(bytes(data))
    damaged = bytes(data)
    original = app.journal.path
    app.journal_desk.open(Journal(path, exclusive=True))
    try:
        app.go("settings")
        app.go("home")
        pump(2)
        assert any("is damaged" in text and "Salvage copies every move" in text for text in label_texts(app))
        assert not app.journal_desk.resume_text and app.journal_desk.salvage_offered
        find_button(app, "Salvage the journal")
        assert path.read_bytes() == damaged  # offered, not done: the file is the user's
    finally:
        app.journal_desk.open(Journal(original))


def test_options_chosen_on_screen_reach_the_game(fresh_app: Any) -> None:
    from kivy.uix.switch import Switch

    app = fresh_app
    tap(app, "Digger")
    tap(app, "New game")
    tap(app, "Next", frames=2)
    assert app.root.current == "options"
    tap(app, "−")
    tap(app, "−")
    tap(app, "black", frames=2)
    app.root.current_screen.ids.rows.parent.scroll_y = 0  # the card panel is at the end of the form
    pump(2)
    tap(app, "Deal the black cards by chance", frames=2)  # choose per seat instead of dealing
    switches = [w for w in app.root.current_screen.walk() if isinstance(w, Switch)]
    switches[0].active = not switches[0].active  # DIG-R3, the first yes/no option
    pump(1)
    tap(app, "Next", frames=2)
    tap(app, "Start the game", frames=2)
    options = app.table.session.setup.options
    assert options["timer_seconds"] == 28
    assert options["side"] == "black"
    assert options["black_cards"] == ["1", "2", "3", "4", "5"][:len(app.table.session.setup.players)]
    assert options["fumble_needs_black"] is False
    assert [card.side for card in app.table.session.state.cards] == ["black"] * len(options["black_cards"])


def test_rules_screen_lists_and_searches_the_rules(fresh_app: Any) -> None:
    app = fresh_app
    tap(app, "Rules")
    assert app.root.current == "rules"
    shown = label_texts(app)
    assert any(text.startswith("DIG-1 ") for text in shown)
    assert any(text.startswith("DIG-R1 ") for text in shown)
    app.rules_model.query = "lonely"
    pump(2)
    assert [text.split()[0] for text in label_texts(app) if text.startswith("DIG-")] == ["DIG-4"]


def test_a_damaged_latest_game_is_named_on_home_and_resume_offers_the_one_before(fresh_app: Any,
                                                                                  tmp_path: Path) -> None:
    import sqlite3

    from companion.app.demo import demo_session

    app = fresh_app
    path = tmp_path / "journal.sqlite3"
    older = demo_session(path, moves=5)
    newer = demo_session(path, moves=9)
    older.journal.close()  # type: ignore[union-attr]
    newer.journal.close()  # type: ignore[union-attr]
    conn = sqlite3.connect(path)
    conn.execute("UPDATE entries SET action = substr(action, 1, 10) WHERE game_id = ? AND n = 3", (newer.game_id,))
    conn.commit()
    conn.close()
    app.journal_desk.open(Journal(path))
    app.go("settings")
    app.go("home")
    pump(2)
    notice = app.journal_desk.journal_notice
    assert f"game {newer.game_id} in the journal" in notice and "damaged" in notice
    assert "(5 moves)" in app.journal_desk.resume_text
    app.flow.resume()
    pump(2)
    assert app.root.current == "table" and len(app.table.session.actions) == 5
