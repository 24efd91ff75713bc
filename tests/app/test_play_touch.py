"""A whole four-player Digger game played with taps only, ending on the End screen with the scores of
the same moves played straight through the engine."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest
from kivy.uix.textinput import TextInput

from companion.app.demo import next_move
from companion.app.launch import pump
from companion.engine.record import load_record, replay
from companion.engine.session import Session
from companion.games.digger.app.table import action_label
from tests.app.ui import label_texts, tap, until

NAMES = ("Anna", "Ben", "Chloé", "David")


def set_up_four_players(app: Any) -> None:
    tap(app, "Digger")
    tap(app, "New game")
    assert app.root.current == "players"
    while len(app.players_model.seats) < 4:
        tap(app, "Add player")
    fields = sorted((w for w in app.root.current_screen.walk() if isinstance(w, TextInput)),
                    key=lambda field: -field.to_window(*field.pos)[1])  # top row (seat 1) first
    for field, name in zip(fields, NAMES):
        field.focus = True
        field.select_all()
        field.delete_selection()
        for letter in name:  # typed letter by letter: the field must keep the keyboard focus
            field.insert_text(letter)
            pump(1)
        assert field.focus
        field.focus = False
    assert [seat["name"] for seat in app.players_model.seats] == list(NAMES)
    tap(app, "Next", frames=2)
    assert app.root.current == "options"
    tap(app, "Next", frames=2)
    assert app.root.current == "setup"
    tap(app, "Start the game", frames=2)
    assert app.root.current == "table", app.screen("setup").problem


def test_whole_game_by_touch(fresh_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    app = fresh_app
    set_up_four_players(app)
    session = app.table.session
    assert [p.name for p in session.setup.players] == list(NAMES)
    dice = Random(4)
    mirror = Session.new(session.setup)
    moves = 0
    while not session.is_over():
        move = next_move(session)
        assert move is not None
        if move["type"] == "roll":
            values = [dice.choice("BYRGWK") for _ in range(5)]
            for face in values:
                tap(app, face)
            move = {"type": "roll", "values": values}
        elif move["type"] == "stop":
            tap(app, "Stop!")
        else:
            tap(app, action_label(app.table, session.game.parse_action(move)))
        assert mirror.submit(move, "touch").accepted
        assert len(session.actions) == len(mirror.actions), f"tap for {move} was not accepted"
        moves += 1
        assert moves < 2000
    pump(2)
    assert app.root.current == "end"
    expected = mirror.scores()
    assert session.scores() == expected
    assert replay(session.record()).state == mirror.state
    shown = "\n".join(label_texts(app))
    for name, score in zip(NAMES, expected):
        assert f"]{name}[/color]  {score}" in shown
    from companion.engine import paths

    synced: list[list[str]] = []  # the folder's names each time it is flushed: the record's is the last step
    monkeypatch.setattr(paths, "sync_folder", lambda folder: synced.append(sorted(p.name for p in folder.iterdir())))
    tap(app, "Save record")
    until(lambda: app.end_model.export_text.startswith("Saved as"), "the record to be on the card")
    saved = sorted((app.journal.path.parent / "records").glob("digger-*.json"))[-1]
    assert app.end_model.export_text == f"Saved as {saved}" and len(synced) == 1 and saved.name in synced[0], \
        "said saved once flushed"
    assert replay(load_record(saved)).state == mirror.state  # the exported record replays to the end


@pytest.mark.parametrize(("language", "take", "rob"), [("en", "Take red", "Rob white from Ben"),
                                                       ("de", "Rot nehmen", "Weiß von Ben rauben"),
                                                       ("fr", "Prendre rouge", "Voler blanc à Ben")])
def test_digger_choice_labels_begin_with_a_capital(fresh_app: Any, language: str, take: str, rob: str) -> None:
    """German puts the colour first ("rot nehmen"): a button's label still begins with a capital."""
    from companion.app.i18n import set_language

    set_up_four_players(fresh_app)
    table = fresh_app.table
    game = table.session.game
    set_language(language)
    try:
        assert action_label(table, game.parse_action({"type": "take", "colour": "R"})) == take
        assert action_label(table, game.parse_action({"type": "rob", "colour": "W", "victim": 1})) == rob
    finally:
        set_language("en")
