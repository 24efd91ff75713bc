"""Every text a German or French player sees is German or French: each screen of the app (the demo
journal's screens, and the table screen of every game) is shown at 800x480 in en, de and fr, and a
label or button that reads exactly as in English fails, unless it is a name, a number, a time, a rule
id or one of the few words that are the same in both languages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kivy.uix.label import Label

from companion.app.demo import DEMO_PLAYERS, demo_session
from companion.app.launch import SCREENSHOT_SCREENS, pump, show_screen
from companion.engine.journal import Journal
from companion.engine.registry import declared
from companion.engine.session import Session
from tests.app.ui import visible_widgets

GAMES = declared()  # every installed game (the shipped ones: no test plugin is installed here)
NAMES = {name for name, _colour in DEMO_PLAYERS} | {"Émile", "Pi", "Goldtable", "Digger", "Gold Connection",
                                                   "Goldgräber", "Chinagold", "Golden City",
                                                   "Deutsch", "English", "Français"}  # languages by their own name
#: Texts that are rightly the same in English and this language.
SAME = {
    "de": {"OK", "System", "Hardware", "Stop!"},  # Digger's call, as the rules and messages write it
    "fr": {"OK", "Menu", "Scores", "Options"},
}
#: Numbers, times, scores, percentages, rule ids (DIG-4, GC-R3), arrows and signs: no language in them.
NEUTRAL = re.compile(r"^[\d\s:.,/%+−×✕–\-→←↑↓↺▶■●•()#]*$|^[A-Z]{2,3}-R?\d+$|^\d+ ?[A-Z]$")


MARKUP = re.compile(r"\[/?(?:b|i|u|s|color|size|font|sub|sup|ref|anchor)(?:=[^\]]*)?\]")


def texts(app: Any) -> set[str]:
    """Every visible label and button text on the current screen (markup tags taken out)."""
    return {MARKUP.sub("", w.text).strip() for w in visible_widgets(app.root.current_screen)
            if isinstance(w, Label) and w.text.strip()}


def allowed(text: str, language: str) -> bool:
    if NEUTRAL.match(text) or text in NAMES or text in SAME[language]:
        return True
    words = re.sub(r"[\d:.,/%+()!?·–—»\-]", " ", text).split()
    return all(word in NAMES for word in words)  # a list of players, scores with names


def screens_in(app: Any, language: str, journal: Path) -> dict[str, set[str]]:
    """Every screen of the demo journal, then each game's options, setup and table screens, in `language`."""
    app.preferences.set_language(language)
    shown: dict[str, set[str]] = {}
    for screen in SCREENSHOT_SCREENS:
        app.go("home")
        pump(1)
        show_screen(app, screen)
        shown[screen] = texts(app)
    for game in GAMES:  # every game's options (labels and values) and its setup guide
        app.flow.game_id = game
        for screen in ("options", "setup"):
            app.go("home")
            pump(1)
            show_screen(app, screen)
            shown[f"{screen}:{game}"] = texts(app)
    for game in GAMES:
        app.go("home")
        pump(1)
        journal_file = Journal(journal)
        app.journal_desk.open(journal_file)
        game_id = next(g.id for g in reversed(journal_file.games()) if g.game == game and not g.finished)
        app.flow.open_table(Session.resume(journal_file, game_id))
        pump(4)
        shown[f"table:{game}"] = texts(app)
    return shown


@pytest.fixture
def demo_journal(fresh_app: Any, tmp_path: Path) -> Iterator[Path]:
    """One finished and one interrupted Digger game, and one interrupted game of each other game (the
    app's own journal is given back afterwards)."""
    path = tmp_path / "journal.sqlite3"
    demo_session(path, moves=None)
    for game in GAMES:
        demo_session(path, moves=9, game=game)
    demo_session(path, moves=9)  # the Digger game Resume and the table screenshots show
    original, settings, game_id = fresh_app.journal.path, fresh_app.preferences.settings, fresh_app.flow.game_id
    fresh_app.journal_desk.open(Journal(path))
    yield path
    fresh_app.flow.controller.open(None)
    fresh_app.journal_desk.open(Journal(original))
    # the players and game the screens remembered
    fresh_app.preferences.settings, fresh_app.flow.game_id = settings, game_id
    fresh_app.preferences.save()


@pytest.mark.parametrize("language", ["de", "fr"])
def test_no_english_left_on_any_screen(fresh_app: Any, demo_journal: Path, language: str) -> None:
    app = fresh_app
    try:
        english = screens_in(app, "en", demo_journal)
        app.journal_desk.open(Journal(demo_journal))
        translated = screens_in(app, language, demo_journal)
    finally:
        app.preferences.set_language("en")
        app.go("home")
        pump(1)
    assert set(translated) == set(english) and all(english.values())
    untranslated = sorted(f"{screen}: {text!r}" for screen, shown in translated.items()
                          for text in shown & english[screen] if not allowed(text, language))
    assert not untranslated, f"{language}: English on screen:\n" + "\n".join(untranslated)


@pytest.mark.parametrize(("language", "words"), [("de", ("beschädigt", "Spiel")), ("fr", ("endommagée", "partie"))])
def test_journal_notices_on_home_speak_the_language(fresh_app: Any, tmp_path: Path, language: str,
                                                    words: tuple[str, str]) -> None:
    """A quarantined game and a journal that cannot be opened are told on Home in the app's language;
    the CLI keeps its English sentences (`Journal.notices`)."""
    import sqlite3

    path = tmp_path / "journal.sqlite3"
    demo_session(path, moves=3).journal.close()  # type: ignore[union-attr]
    conn = sqlite3.connect(path)
    conn.execute("UPDATE games SET setup = substr(setup, 1, 30)")
    conn.execute("UPDATE entries SET action = substr(action, 1, 30) WHERE kind = 'setup'")  # both copies
    conn.commit()
    conn.close()
    app = fresh_app
    original = app.journal.path
    journal = Journal(path)
    app.journal_desk.open(journal)
    try:
        app.preferences.set_language(language)
        app.go("home")
        pump(2)
        english = journal.notices
        assert len(english) == 1 and english[0].startswith("game ")  # the CLI's sentence stays English
        shown = app.journal_desk.journal_notice
        assert all(word in shown for word in words) and shown not in english and str(path) in shown
        assert shown in {w.text for w in visible_widgets(app.root.current_screen) if isinstance(w, Label)}
        app.journal_desk.open(Journal.unavailable(tmp_path / "other.sqlite3", "the file is locked"))
        assert app.journal_desk.journal_notice.endswith(": the file is locked.")
        assert app.journal_desk.journal_notice != "Games cannot be saved or resumed: the file is locked."
    finally:
        app.preferences.set_language("en")
        app.journal_desk.open(Journal(original))


def test_a_switch_carries_no_english_words(fresh_app: Any) -> None:
    """Kivy's switch is a picture with "ON" and "OFF" on it; ours says on or off by its colour and its knob."""
    from kivy.uix.switch import Switch

    fresh_app.go("settings")
    pump(2)
    switches = [widget for widget in visible_widgets(fresh_app.root.current_screen) if isinstance(widget, Switch)]
    assert switches
    for switch in switches:
        pictures = [getattr(instruction, "source", None) for canvas in (switch.canvas, switch.canvas.after)
                    for instruction in canvas.children]
        assert not any(pictures), pictures
    fresh_app.go("home")
