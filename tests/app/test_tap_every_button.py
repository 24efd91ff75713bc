"""Every dice button and every choice button of every game can be tapped at 800x480: a touch dispatched
through the window at the button's centre reaches that button (not the scores column or the log), and
a roll or choice it stands for arrives at the session."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from kivy.core.window import Window
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.widget import Widget

from companion.app.demo import next_move
from companion.app.launch import pump
from companion.app.tables.common import DiceKeypad
from companion.engine.registry import all_games
from tests.app.ui import on_screen, visible_widgets
from tests.table_helpers import played, touch_at

#: game -> players (four, or as many as the game seats); every game is walked for this many moves, its
#: buttons tapped in each new situation (each different set of dice, each phase with a different number of
#: choices).
GAMES = {game_id: min(4, game.max_players) for game_id, game in all_games().items()}
MOVES = 40


def open_table(app: Any, game: str, players: int) -> Any:
    """A new game of `game` on the Table screen, started the way the screens start it."""
    app.flow.choose_game(game)
    app.flow.new_game()
    while len(app.players_model.seats) < players:
        app.players_model.add()
    while len(app.players_model.seats) > players:
        app.players_model.remove(len(app.players_model.seats) - 1)
    app.flow.players_done()
    app.flow.options_done()
    app.flow.start_game(seed=11)
    pump(3)
    assert app.root.current == "table" and app.table.session.setup.game == game
    return app.root.current_screen.ids.panel.children[0]


@contextmanager
def submissions(session: Any) -> Iterator[list[Any]]:
    """Every action the session is asked to play while the block runs (whatever it answers)."""
    seen: list[Any] = []
    original = session.submit_soon

    def spy(action: Any, source: Any, then: Any, ref: str | None = None) -> None:
        seen.append(action.model_dump(mode="json") if hasattr(action, "model_dump") else dict(action))
        original(action, source, then, ref)

    session.submit_soon = spy
    try:
        yield seen
    finally:
        del session.submit_soon


def containers(panel: Widget, names: tuple[str, ...]) -> list[Widget]:
    found = [panel.ids[name] for name in names if name in panel.ids]
    if "faces" in names:
        found += [keypad.ids.faces for keypad in panel.walk() if isinstance(keypad, DiceKeypad)]
    return found


def buttons_in(panel: Widget, names: tuple[str, ...]) -> list[Widget]:
    """Visible, enabled buttons inside the panel's containers called `names`, in display order."""
    boxes = containers(panel, names)
    found = [widget for box in boxes for widget in visible_widgets(box)
             if isinstance(widget, ButtonBehavior) and not widget.disabled and widget.parent in boxes]
    return sorted(found, key=lambda w: (-w.to_window(*w.center)[1], w.to_window(*w.center)[0]))


def tap_reaches(button: Widget, panel: Widget) -> None:
    """Touch the button's centre through the window; the button itself must get the touch. It must also
    lie inside its panel: a button that overflows into the scores column gets a touch there only as
    long as nothing of that column (the log) lies under it."""
    assert on_screen(button), f"{button.text!r} is scrolled out of sight"
    left, bottom = button.to_window(button.x, button.y)
    panel_left, panel_bottom = panel.to_window(panel.x, panel.y)
    assert (panel_left - 1 <= left and left + button.width <= panel_left + panel.width + 1
            and panel_bottom - 1 <= bottom + button.height / 2 <= panel_bottom + panel.height + 1), \
        f"{button.text!r} at ({left:.0f}, {bottom:.0f}) reaches outside the game panel"
    x, y = button.to_window(*button.center)
    assert 0 <= x <= Window.width and 0 <= y <= Window.height, f"{button.text!r} lies outside the window"
    pressed: list[bool] = []

    def count(_button: Any) -> None:
        pressed.append(True)

    button.fbind("on_release", count)
    try:
        touch_at(x, y)
    finally:
        button.funbind("on_release", count)
    assert pressed, f"a tap on the centre of {button.text!r} at ({x:.0f}, {y:.0f}) did not reach it"


def restore(app: Any, actions_before: int) -> None:
    """Back to the situation before the tap: undo what was played, drop messages and half-made choices."""
    while len(app.table.session.actions) > actions_before:
        assert played(app.table.session, app.flow.controller.undo)
    app.flow.controller.clear_entry()
    app.table.clear_messages()
    app.table.refresh()
    pump(1)


def check_dice(app: Any, panel_of: Callable[[], Widget]) -> set[str]:
    """Enter rolls by tapping faces until every face button of every die was tapped; each roll must arrive
    at the session with the values tapped. Returns the faces tapped."""
    table = app.table
    session = table.session
    dice = [list(faces) for faces in table.dice]
    tapped: set[str] = set()
    for round_ in range(max(len(faces) for faces in dice)):
        values = [faces[min(round_, len(faces) - 1)] for faces in dice]
        before = len(session.actions)
        with submissions(session) as seen:
            for value in values:
                button = next((b for b in buttons_in(panel_of(), ("faces",)) if b.text == value), None)
                assert button is not None, f"no button for die face {value!r}"
                tap_reaches(button, panel_of())
                tapped.add(value)
        assert seen and seen[-1]["values"] == values, f"tapped {values}, the session got {seen}"
        restore(app, before)
    return tapped


def check_choices(app: Any, panel_of: Callable[[], Widget]) -> int:
    """Tap every choice button once (from the same situation each time); a choice that plays an action
    must reach the session. Returns how many buttons were tapped."""
    session = app.table.session
    texts = [button.text for button in buttons_in(panel_of(), ("choices", "chips"))]
    for index, text in enumerate(texts):
        button = buttons_in(panel_of(), ("choices", "chips"))[index]
        assert button.text == text
        before = len(session.actions)
        with submissions(session) as seen:
            tap_reaches(button, panel_of())
        if len(session.actions) > before:
            assert seen, f"{text!r} changed the game without going through the session"
        restore(app, before)
    return len(texts)


def advance(app: Any) -> bool:
    """One demo move through the table (rolls by the Pi's seeded roller); False when the game is over."""
    move = next_move(app.table.session)
    if move is None:
        return False
    if move == {"type": "roll"}:
        assert played(app.table.session, app.flow.controller.virtual_roll, "virtual")
    else:
        assert played(app.table.session, app.flow.controller.submit, move, "touch"), \
            f"{move} refused: {app.table.refusal_text}"
    pump(1)
    return True


@pytest.mark.parametrize("game", list(GAMES))
def test_every_dice_and_choice_button_can_be_tapped(table_app: Any, game: str) -> None:
    app = table_app
    open_table(app, game, GAMES[game])

    def panel_of() -> Widget:
        return app.root.current_screen.ids.panel.children[0]

    faces_tapped: set[str] = set()
    rolls: set[tuple[tuple[str, ...], ...]] = set()
    situations: set[tuple[str, int]] = set()
    choices_tapped = 0
    for _ in range(MOVES):
        dice = tuple(tuple(faces) for faces in app.table.dice)
        if app.table.roll_action and dice and dice not in rolls:
            rolls.add(dice)
            faces_tapped |= check_dice(app, panel_of)
        count = len(buttons_in(panel_of(), ("choices", "chips")))
        situation = (str(getattr(app.table.session.state, "phase", "")), count)
        if count and situation not in situations:
            situations.add(situation)
            choices_tapped += check_choices(app, panel_of)
        if not advance(app):
            break
    every_face = {face for faces in app.table.session.game.prompt(app.table.session.states[0]).dice
                  for face in faces} or faces_tapped
    assert faces_tapped >= every_face, f"faces never offered as buttons: {every_face - faces_tapped}"
    if game != "chinagold":  # Chinagold's choices are taps on the board
        assert choices_tapped > 0
