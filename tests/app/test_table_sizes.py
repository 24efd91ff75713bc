"""The table-screen size rules of docs/design.md, measured on the widgets at 800x480 through a whole game
of each game in each language (with a refusal and a notice shown): no game information under 18 sp,
nothing tapped under 48 px, no button outside the window (unless scrolled out of sight in a scroll view),
and nothing of a game's panel outside the panel.  A board whose cells are closer than 48 px must have a
loupe, which is opened and measured by the same rules."""

from __future__ import annotations

from typing import Any

import pytest
from kivy.core.window import Window
from kivy.metrics import sp
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.widget import Widget

from companion.app.boards.drawing import Magnifiable
from companion.app.launch import pump
from companion.app.widgets import MIN_TAP_PX, MIN_TEXT_SP
from tests.app.test_tap_every_button import GAMES, advance, open_table
from tests.app.ui import on_screen, scroll_views_around, visible_widgets

#: Moves a game may take (every game here ends well before), and where the notice and refusal are shown.
MOVES = 600
MESSAGES_AT = 30


def problems(screen: Widget) -> list[str]:
    """Every visible widget on the screen that breaks a size rule, described; the loupe of each board
    with cells under 48 px is opened on the board's middle and measured too."""
    found = []
    for widget in visible_widgets(screen):
        if isinstance(widget, Magnifiable) and widget.cell_spacing < MIN_TAP_PX:
            found += board_problems(screen, widget)
        x, y = widget.to_window(*widget.pos)
        name = f"{type(widget).__name__} {getattr(widget, 'text', '')[:40]!r}"
        if isinstance(widget, Label) and widget.text.strip() and widget.font_size < sp(MIN_TEXT_SP) - 0.01:
            found.append(f"{name}: text {widget.font_size / sp(1):.0f} sp")
        if isinstance(widget, ButtonBehavior) and min(widget.size) < MIN_TAP_PX:
            found.append(f"{name}: tap target {widget.width:.0f}x{widget.height:.0f} px")
        inside = -1 <= x <= Window.width + 1 - widget.width and -1 <= y <= Window.height + 1 - widget.height
        if isinstance(widget, ButtonBehavior) and on_screen(widget) and not inside:
            found.append(f"{name}: outside the window at ({x:.0f}, {y:.0f})")
    panel = screen.ids.get("panel")
    if panel is not None:  # a game's column that grows past its panel draws over the screen's header
        bottom, top = panel.to_window(panel.x, panel.y)[1], panel.to_window(panel.x, panel.top)[1]
        for widget in visible_widgets(panel):
            text = isinstance(widget, Label) and widget.text.strip()
            shows = isinstance(widget, ButtonBehavior | ScrollView) or text
            clipped = any(scroll_views_around(widget))  # a scroll view shows its content only inside itself
            y = widget.to_window(widget.x, widget.y)[1]
            if shows and not clipped and not bottom - 1 <= y <= top + 1 - widget.height:
                found.append(f"{type(widget).__name__} {getattr(widget, 'text', '')[:40]!r}: outside its panel")
    return found


def board_problems(screen: Widget, board: Any) -> list[str]:
    """A board's cells are tap targets: closer than 48 px they need a loupe with cells 48 px apart."""
    name = f"{type(board).__name__} cells {board.cell_spacing:.0f} px apart"
    if board.loupe is None:
        return [f"{name} and no loupe"]
    magnified = board.loupe.open(board.center)
    pump(1)
    try:
        found = [f"{name}, in the loupe {magnified.board.cell_spacing:.0f} px"] \
            if magnified.board.cell_spacing < MIN_TAP_PX else []
        return found + [f"in the loupe: {problem}" for problem in problems(magnified)]
    finally:
        board.loupe.close()
        pump(1)


def test_a_board_with_small_cells_and_no_loupe_breaks_the_rule(table_app: Any) -> None:
    panel = open_table(table_app, "goldgraeber", 4)
    board = panel.board
    assert not problems(table_app.root.current_screen)
    loupe, board.loupe = board.loupe, None
    try:
        assert problems(table_app.root.current_screen) == \
            [f"GoldgraeberBoard cells {board.cell_spacing:.0f} px apart and no loupe"]
    finally:
        board.loupe = loupe


@pytest.mark.parametrize("size", [(800, 480), (480, 800)], ids=["landscape", "portrait"])
@pytest.mark.parametrize("language", ["en", "de", "fr"])
@pytest.mark.parametrize("game", list(GAMES))
def test_table_screen_text_and_targets_are_big_enough(table_app: Any, game: str, language: str,
                                                      size: tuple[int, int]) -> None:
    """In every language, on the 7" screen and turned to portrait (`--rotate 90`): German and French
    sentences are longer, and a column that grows past its panel draws over the screen's header
    (Goldgräber's chip buttons did, in French); in portrait German Digger's "Verrutscht" shrank below
    18 sp (the button now says "Patzer", the rules' word)."""
    app = table_app
    assert tuple(Window.size) == (800, 480)
    app.preferences.set_language(language)
    Window.size = size
    pump(3)
    try:
        check_table(app, game)
    finally:
        Window.size = (800, 480)
        app.preferences.set_language("en")
        pump(3)


def check_table(app: Any, game: str) -> None:
    """A whole game of `game` (at most MOVES moves), with a notice and a refusal shown after MESSAGES_AT
    moves: no size rule broken in any of its states."""
    open_table(app, game, GAMES[game])
    screen = app.root.current_screen
    seen: dict[str, str] = {}
    checked = 0
    for move in range(MOVES):
        for problem in problems(screen):
            seen.setdefault(problem, app.table.prompt_text)
        checked += 1
        if move == MESSAGES_AT:
            app.table.show_notice("A notice with two ways on", choices=["confirm", "touch"])
            pump(2)
            seen.update(dict.fromkeys(problems(screen), "notice"))
            app.flow.controller.submit({"type": "no such action"})
            pump(2)
            assert app.table.refusal_text
            seen.update(dict.fromkeys(problems(screen), "refusal"))
            app.table.clear_messages()
        if not advance(app):
            break
    assert checked > MESSAGES_AT and app.table.session.is_over(), f"{game} unfinished after {checked} moves"
    assert not seen, "\n".join(f"{problem}   (in {where})" for problem, where in seen.items())


def test_turned_to_portrait_the_game_keeps_the_whole_width(table_app: Any) -> None:
    """`--rotate 90` makes the window 480x800: the prompt, scores and log go under the game's panel,
    which would otherwise be left a strip of 250 px (Goldgräber's board 50 px wide)."""
    open_table(table_app, "goldgraeber", 3)
    screen = table_app.root.current_screen
    assert screen.ids.middle.orientation == "horizontal"
    landscape = screen.ids.panel.width
    Window.size = (480, 800)
    try:
        pump(3)
        assert screen.ids.middle.orientation == "vertical"
        assert screen.ids.panel.width >= 480 - 2 * 6 - 1 > landscape - 204
        # the turn banner has a row of its own (beside the buttons it was left 68 px: "..."), and the
        # prompt, scores and log stay under the panel instead of spilling over its buttons
        banner = screen.ids.banner
        assert banner.width >= 480 - 2 * 6 > banner._label.get_extents(banner.text)[0]  # not shortened
        side = screen.ids.prompt.parent
        assert side.top <= screen.ids.panel.y + 1 and side.y >= 0
        # as tall as the prompt, the scores and four lines of the log, not the landscape column's 408 px
        wanted = screen.ids.prompt.height + screen.ids.scores.height + 2 * side.spacing + 100
        assert side.height == pytest.approx(wanted)
        assert not problems(screen)
    finally:
        Window.size = (800, 480)
        pump(3)
    assert screen.ids.middle.orientation == "horizontal" and screen.ids.panel.width == landscape
