"""The board loupe at 800x480 (issue 13, docs/design.md "Boards"): board cells are under 48 px, so a touch
between several allowed cells opens a magnified view beside the board, whose cells are 48 px or more
apart and tapped like the board's; a clear touch still chooses at once.  Every touch goes through the
window as a finger's would."""

from __future__ import annotations

import math
from typing import Any

import pytest

from companion.app.boards.loupe import direct_choice
from companion.app.launch import pump
from companion.app.widgets import MIN_TAP_PX
from tests.app.test_tap_every_button import open_table
from tests.table_helpers import played, touch_at

pytestmark = pytest.mark.ui


def window_point(board: Any, cell: Any, dx: float = 0.0) -> tuple[float, float]:
    x, y = board.centre_of(cell)
    return board.to_window(x + dx, y)


def crowded(board: Any, cells: set[Any]) -> Any:
    """An allowed cell with another allowed one closer than a finger (a touch on it is ambiguous)."""
    for cell in sorted(cells):
        if any(other != cell and math.dist(board.centre_of(cell), board.centre_of(other)) < MIN_TAP_PX
               for other in cells):
            return cell
    raise AssertionError(f"no two allowed cells lie closer than {MIN_TAP_PX} px: {sorted(cells)}")


def goldgraeber_moving(app: Any) -> Any:
    """Goldgräber at the table with the first player's move due (several fields highlighted)."""
    panel = open_table(app, "goldgraeber", 4)
    assert played(app.table.session, app.flow.controller.virtual_roll, "virtual")
    pump(1)
    assert app.table.session.state.phase == "move" and len(panel._choosable()) > 1
    return panel


def open_loupe_on(board: Any, cell: Any) -> Any:
    """A real touch on `cell`, which must open the board's loupe (and choose nothing)."""
    touch_at(*window_point(board, cell))
    magnified = board.loupe.magnified
    assert magnified is not None, f"a touch on {cell} between several allowed cells did not open the loupe"
    return magnified


def test_a_clear_touch_chooses_and_an_unclear_one_does_not() -> None:
    centres = [("a", (0.0, 0.0)), ("b", (60.0, 0.0)), ("c", (100.0, 0.0))]
    assert direct_choice((10.0, 0.0), centres) == "a"        # b is 50 px away: beyond a finger
    assert direct_choice((30.0, 0.0), centres) is None       # a and b both within a finger's reach
    assert direct_choice((80.0, 0.0), centres) is None       # b and c 20 px from the finger
    assert direct_choice((0.0, 30.0), centres) is None       # near a, but not half a finger away
    assert direct_choice((0.0, 0.0), []) is None


@pytest.mark.parametrize("game, players", [("goldgraeber", 4), ("chinagold", 2), ("gold_connection", 4)])
def test_loupe_cells_are_a_finger_apart_while_the_board_stays_whole(table_app: Any, game: str,
                                                                   players: int) -> None:
    panel = open_table(table_app, game, players)
    board = panel.board
    assert board.cell_spacing < MIN_TAP_PX and board.loupe is not None  # the reason for the loupe
    magnified = board.loupe.open(board.center)
    pump(1)
    try:
        assert magnified.board.cell_spacing >= MIN_TAP_PX
        assert min(magnified.close_button.size) >= MIN_TAP_PX
        assert magnified.lens.width >= 4 * MIN_TAP_PX and magnified.lens.height >= 3 * MIN_TAP_PX
        left = board.to_window(board.x, board.y)[0]
        lens_left = magnified.to_window(magnified.lens.x, magnified.lens.y)[0]
        assert lens_left >= left + board.width or lens_left + magnified.lens.width <= left, \
            "the loupe covers the board"
        centre = magnified.board.to_window(*magnified.board.center)
        assert magnified.board.cell_at(*magnified.board.to_widget(*centre)) == board.cell_at(*board.center)
    finally:
        board.loupe.close()


def test_goldgraeber_loupe_tap_moves_and_wrong_field_is_refused(table_app: Any) -> None:
    app = table_app
    panel = goldgraeber_moving(app)
    board = panel.board
    allowed = panel._choosable()
    target = crowded(board, allowed)
    state = app.table.session.state
    magnified = open_loupe_on(board, target)
    assert app.table.session.state is state and magnified.shows(target)
    assert magnified.board.view == board.view                    # the same pieces and highlights
    house = state.figures[state.actor]
    assert house not in allowed and magnified.shows(house)
    touch_at(*window_point(magnified.board, house))               # the refusal path of a board tap
    assert app.table.refusal_rule.startswith("GG-") and app.table.session.state is state
    assert board.loupe.magnified is None
    app.table.clear_messages()                                    # the refusal box is dismissed
    pump(1)
    magnified = open_loupe_on(board, target)
    touch_at(*window_point(magnified.board, target))
    assert app.table.session.state.figures[state.actor] == target
    assert board.loupe.magnified is None


def test_goldgraeber_close_button_and_a_tap_outside_close_the_loupe(table_app: Any) -> None:
    app = table_app
    panel = goldgraeber_moving(app)
    board = panel.board
    target = crowded(board, panel._choosable())
    state = app.table.session.state
    magnified = open_loupe_on(board, target)
    touch_at(*magnified.close_button.to_window(*magnified.close_button.center))
    assert board.loupe.magnified is None and magnified.parent is None
    open_loupe_on(board, target)
    touch_at(*window_point(board, target))                        # on the board: outside the loupe
    assert board.loupe.magnified is None and app.table.session.state is state
    assert not app.table.refusal_text


def test_gold_connection_clear_touch_chooses_at_once(table_app: Any) -> None:
    """The start safes lie far apart: a touch near one chooses it without the loupe (Goldgräber's
    destinations always lie in clusters, so its moves go through the loupe)."""
    app = table_app
    panel = open_table(app, "gold_connection", 4)
    board = panel.board
    assert played(app.table.session, app.flow.controller.virtual_roll, "virtual")
    pump(1)
    allowed = set(board.highlighted)
    alone = [cell for cell in sorted(allowed) if all(
        other == cell or math.dist(board.centre_of(cell), board.centre_of(other)) >= MIN_TAP_PX for other in allowed)]
    assert app.table.session.state.phase == "start_choose" and alone, sorted(allowed)
    before = len(app.table.session.actions)
    x, y = board.centre_of(alone[0])
    touch_at(*board.to_window(x, y - board.cell_spacing * 0.45))    # its lower edge, clear of the bars
    assert board.loupe.magnified is None
    assert len(app.table.session.actions) == before + 1
    assert dict(app.table.session.actions[-1].action) == {"type": "choose_start", "safe": alone[0]}


def test_loupe_closes_when_the_state_changes(table_app: Any) -> None:
    app = table_app
    panel = goldgraeber_moving(app)
    board = panel.board
    target = crowded(board, panel._choosable())
    open_loupe_on(board, target)
    assert played(app.table.session, app.flow.controller.undo)  # the roll taken back
    pump(1)
    assert board.loupe.magnified is None
    assert played(app.table.session, app.flow.controller.virtual_roll, "virtual")
    pump(1)
    target = crowded(board, panel._choosable())
    open_loupe_on(board, target)
    # a move made another way
    assert played(app.table.session, app.flow.controller.submit, {"type": "move", "to": target})
    pump(1)
    assert board.loupe.magnified is None
    assert played(app.table.session, app.flow.controller.virtual_roll, "virtual")  # the next player's roll
    pump(1)
    magnified = open_loupe_on(board, crowded(board, panel._choosable()))
    open_table(app, "chinagold", 2)                                # a new game: the old panel goes
    assert board.loupe.magnified is None and magnified.parent is None


def test_a_notice_closes_the_loupe(table_app: Any) -> None:
    """A notice (a refusal, a sensor's message) asks for an answer: the loupe does not stay over it."""
    app = table_app
    for game in ("goldgraeber", "gold_connection", "chinagold"):
        board = open_table(app, game, 3 if game == "goldgraeber" else 2).board
        magnified = board.loupe.open(board.center)
        pump(1)
        assert magnified.parent is not None
        app.table.show_notice("The sensor is unplugged.")
        pump(1)
        assert board.loupe.magnified is None and magnified.parent is None, game
        app.table.clear_messages()


def chinagold_line_start(app: Any, panel: Any) -> Any:
    """Tiles thrown for a line of three; the hidden site nearest the board's middle from which a line of
    three hidden markers leads away, chosen in the loupe as the line's start."""
    assert played(app.table.session, app.flow.controller.submit, {"type": "throw", "values": [0, 2, 1]})
    pump(1)
    board = panel.board
    sites = app.table.session.state.sites
    start = min((site for site in range(len(sites)) if any(
        all(sites[cell] == "h" for cell in line) for line in board.lines_from(site, 3))),
        key=lambda site: math.dist(board.centre_of(site), board.center))
    magnified = open_loupe_on(board, start)
    touch_at(*window_point(magnified.board, start))
    assert app.flow.controller.selected == start and app.table.session.state.total == 3
    assert board.loupe.magnified is magnified, "the loupe should stay to show the line's ends"
    assert magnified.board.view.selected == start and magnified.board.view.line_length == 3
    return start


def test_chinagold_line_by_two_taps_in_the_loupe_or_on_the_board(table_app: Any) -> None:
    app = table_app
    panel = open_table(app, "chinagold", 2)
    board = panel.board
    start = chinagold_line_start(app, panel)
    ends = panel._choosable()
    assert len(ends) == 6 and start not in ends                   # a ringed far end in each direction
    magnified = board.loupe.magnified
    sites = app.table.session.state.sites
    end = next(end for end in sorted(ends) if magnified.shows(end)
               and all(sites[site] == "h" for site in board.grid.line_between(start, end)))
    touch_at(*window_point(magnified.board, end))
    line = board.grid.line_between(start, end)
    state = app.table.session.state
    assert state.to_move == 1 and all(state.sites[site] != "h" for site in line)
    assert board.loupe.magnified is None
    start = chinagold_line_start(app, panel)                       # the other player: the far end on the board
    magnified = board.loupe.magnified
    touch_at(*magnified.close_button.to_window(*magnified.close_button.center))
    assert board.loupe.magnified is None and app.flow.controller.selected == start
    sites = app.table.session.state.sites
    end = next(end for end in sorted(panel._choosable())
               if all(sites[site] == "h" for site in board.grid.line_between(start, end)))
    touch_at(*window_point(board, end))                            # the ends lie far apart: chosen at once
    assert board.loupe.magnified is None
    state = app.table.session.state
    assert state.to_move == 0 and all(state.sites[site] != "h" for site in board.grid.line_between(start, end))


def test_loupe_speaks_the_table_language(table_app: Any) -> None:
    app = table_app
    panel = open_table(app, "chinagold", 2)
    app.preferences.set_language("de")
    magnified = panel.board.loupe.open(panel.board.center)
    try:
        texts = {widget.text for widget in magnified.walk() if isinstance(getattr(widget, "text", None), str)}
        assert {"Schließen", "Tippe auf die gewünschte Stelle."} <= texts
        pump(1)  # and whole: shortened to fit one line it read "Tippe auf die g...ünschte Stelle."
        prompt = magnified.prompt
        words = [word.text for line in prompt._label._cached_lines for word in line.words]
        assert " ".join(words).split() == prompt.text.split()
    finally:
        panel.board.loupe.close()
        app.preferences.set_language("en")  # the language is process-wide: later tests expect English


def test_gold_connection_bars_in_the_loupe_are_bars(table_app: Any) -> None:
    """A tap on a bar drawn in the loupe is that bar's tap on the board (on_bar), not its safe's."""
    panel = open_table(table_app, "gold_connection", 4)
    board = panel.board
    safe = sorted(board.layout.safes, key=lambda spot: spot.id)[0].id
    magnified = board.loupe.open(board.centre_of(safe))
    pump(1)
    boxes = [box for box in magnified.board._bar_boxes if box[0] == safe]
    assert boxes and boxes[0][4] > board._bar_boxes[0][4]         # drawn larger than on the board
    seen: list[tuple[str, str]] = []

    def spy(_board: Any, *bar: str) -> None:
        seen.append(bar)

    board.fbind("on_bar", spy)
    _, bar, x, y, size = boxes[0]
    try:
        touch_at(*magnified.board.to_window(x + size / 2, y + size / 2))
    finally:
        board.funbind("on_bar", spy)
    assert seen == [(safe, bar)] and board.loupe.magnified is None
