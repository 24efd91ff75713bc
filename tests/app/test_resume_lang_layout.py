"""Resume after the app process is killed, language switch, and no clipped text on any screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label

from companion.app.demo import demo_session
from companion.app.launch import SCREENSHOT_SCREENS, pump, show_screen
from companion.engine.journal import Journal
from tests.app.conftest import kill_when_ready
from tests.app.ui import label_texts, tap, visible_widgets


def test_resume_after_kill(fresh_app: Any, tmp_path: Path) -> None:
    acknowledged = int(kill_when_ready("tests.app.killed_app", tmp_path).split()[1])
    app = fresh_app
    app.journal_desk.open(Journal(tmp_path / "journal.sqlite3"))
    app.go("settings")
    app.go("home")
    pump(2)
    assert "Anna, Ben, Chloé, David (2 moves)" in app.journal_desk.resume_text
    tap(app, app.journal_desk.resume_text)
    assert app.root.current == "table"
    session = app.table.session
    assert len(session.actions) == acknowledged == 2
    assert session.state.waiting.Y == 1
    tap(app, "Stop!")
    assert session.state.boxes[0].Y == 1


def test_resume_line_counts_moves_in_each_language(fresh_app: Any, tmp_path: Path) -> None:
    """Home's Resume line and History's title use each language's plural rule ("1 move", not "1 moves")."""
    from companion.app.demo import demo_setup, play_move
    from companion.engine.session import Session

    app = fresh_app
    journal = Journal(tmp_path / "journal.sqlite3")
    session = Session.new(demo_setup("digger", seed=1), journal)
    play_move(session)
    app.journal_desk.open(journal)
    expected = {1: {"en": "(1 move)", "de": "(1 Zug)", "fr": "(1 coup)"},
                2: {"en": "(2 moves)", "de": "(2 Züge)", "fr": "(2 coups)"}}
    try:
        for moves in (1, 2):
            for language, words in expected[moves].items():
                app.preferences.set_language(language)
                app.journal_desk.refresh_resume()
                assert words in app.journal_desk.resume_text
            play_move(session)
    finally:
        app.preferences.set_language("en")


def test_a_screenshot_can_show_the_table_some_demo_moves_later(fresh_app: Any, tmp_path: Path) -> None:
    """`goldtable screenshot table --moves N`: the resumed demo game played on by N moves, on the table
    (docs/screens/table-gold_connection-turn.png is Gold Connection's table 4 moves on, mid-turn)."""
    app = fresh_app
    demo_session(tmp_path / "journal.sqlite3", moves=9)
    app.journal_desk.open(Journal(tmp_path / "journal.sqlite3"))
    app.go("home")
    show_screen(app, "table", moves=4)
    session = app.table.session
    played = [entry.action for entry in session.actions]
    assert len(played) == 13 and played[:9] == [entry.action for entry in demo_session(None, moves=9).actions]
    assert app.root.current == "table" and session.state == app.flow.controller.session.state


def test_language_switch(fresh_app: Any) -> None:
    app = fresh_app
    tap(app, "Settings")
    tap(app, "Deutsch")
    assert app.lang == "de"
    app.go("home")
    pump(2)
    assert "Neues Spiel" in label_texts(app)
    app.go("settings")
    pump(1)
    tap(app, "Français")
    app.go("home")
    pump(2)
    assert "Nouvelle partie" in label_texts(app)
    app.go("settings")
    pump(1)
    tap(app, "English")
    app.go("home")
    pump(2)
    assert "New game" in label_texts(app)


def test_language_switch_at_the_table(fresh_app: Any) -> None:
    app = fresh_app
    app.table.attach(demo_session(None, moves=6))
    app.go("table")
    pump(2)
    english_log = list(app.table.log)
    app.preferences.set_language("de")
    pump(2)
    assert app.table.turn_text.endswith(" ist dran")
    assert len(app.table.log) == len(english_log) and app.table.log != english_log
    assert "Zug zurück" in label_texts(app)  # Undo, no longer the same word as Back
    app.preferences.set_language("en")
    pump(1)
    assert app.table.log == english_log


@pytest.mark.parametrize(("language", "size"), [("en", (800, 480)), ("de", (800, 480)), ("fr", (800, 480)),
                                               ("de", (1024, 600)), ("fr", (1280, 720))])
def test_no_text_clipped_and_targets_big_enough(fresh_app: Any, language: str, size: tuple[int, int],
                                                tmp_path: Path) -> None:
    from kivy.core.window import Window

    app = fresh_app
    Window.size = size
    pump(2)
    demo_session(tmp_path / "journal.sqlite3", moves=None)
    demo_session(tmp_path / "journal.sqlite3", moves=9)
    app.journal_desk.open(Journal(tmp_path / "journal.sqlite3"))
    app.preferences.set_language(language)
    for screen in SCREENSHOT_SCREENS:
        app.go("home")
        show_screen(app, screen)
        pump(2)
        if screen in ("table", "timer", "refusal", "notice"):
            banner = max((w for w in visible_widgets(app.root.current_screen)
                          if isinstance(w, Label) and w.text == app.table.turn_text), key=lambda w: w.font_size)
            assert banner.font_size >= 32, f"{screen}: turn banner text is {banner.font_size}px"
        for widget in visible_widgets(app.root.current_screen):
            if isinstance(widget, ButtonBehavior) and not widget.disabled:
                assert widget.width >= 48 and widget.height >= 48, (
                    f"{screen}: touch target {getattr(widget, 'text', widget)!r} is "
                    f"{widget.width:.0f}x{widget.height:.0f}")
            if isinstance(widget, Label) and widget.text.strip() and not widget.markup:
                words = set(widget.text.split())
                shown = [word.text for line in widget._label._cached_lines for word in line.words]
                broken = [part for text in shown for part in text.split() if part not in words]
                assert not broken, f"{screen}/{language}: {widget.text[:40]!r} breaks inside a word: {broken}"
            if isinstance(widget, Label) and widget.text.strip():
                width, height = widget.texture_size
                assert width <= widget.width + 1 and height <= widget.height + 1, (
                    f"{screen}/{language}: {widget.text[:40]!r} needs {width}x{height}, "
                    f"has {widget.width:.0f}x{widget.height:.0f}")
    app.preferences.set_language("en")
    Window.size = (800, 480)
    pump(2)
