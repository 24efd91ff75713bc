"""Board updates are incremental (issue 27, docs/design.md "Frames"): a move, a roll or a highlight repaints
only the layers of pieces it changes, never the printed board; the loupe's magnified copy draws only the
cells it shows, is made on opening and freed on closing.  Each test fails if its change is undone (the
instructions are compared by identity: a repainted layer holds new ones)."""

from __future__ import annotations

import gc
import weakref
from random import Random
from typing import Any

import pytest
from kivy.graphics import Fbo, Mesh, Rectangle

from companion.app.boards.drawing import MAX_BORROWED_ZOOM, MAX_PRINT_DETAIL
from companion.app.launch import pump
from companion.games.gold_connection.bot import choose_action
from tests.app.test_board_loupe import crowded, goldgraeber_moving, open_loupe_on
from tests.app.test_tap_every_button import open_table
from tests.table_helpers import played

pytestmark = pytest.mark.ui


def drawn(board: Any) -> dict[str, list[int]]:
    """The ids of each layer's instructions, and of the printed board's, as they are now."""
    layers = {name: [id(item) for item in group.children] for name, group in board._pieces.groups.items()}
    return {**layers, "printed": [id(item) for item in board._printed.group.children]}


def repainted(before: dict[str, list[int]], board: Any) -> set[str]:
    after = drawn(board)
    return {name for name in before if after[name] != before[name]}


def test_goldgraeber_a_roll_and_a_move_repaint_only_their_layers(table_app: Any) -> None:
    app = table_app
    panel = open_table(app, "goldgraeber", 4)
    board = panel.board
    before = drawn(board)
    assert played(app.table.session, app.flow.controller.virtual_roll, "virtual")  # the destinations light up
    assert app.table.session.state.phase == "move"
    assert repainted(before, board) == {"highlights"}
    before = drawn(board)
    target = sorted(panel._choosable())[0]
    assert played(app.table.session, app.flow.controller.tap_field, target)  # a figure leaves its house
    assert "printed" not in repainted(before, board)
    assert {"figures", "highlights"} <= repainted(before, board) <= {"figures", "highlights", "chips", "stacks",
                                                                       "locomotive"}
    assert "rafts" not in repainted(before, board)


def test_chinagold_the_first_tap_of_a_line_leaves_the_markers_as_drawn(table_app: Any) -> None:
    app = table_app
    panel = open_table(app, "chinagold", 2)
    assert played(app.table.session, app.flow.controller.submit, {"type": "throw", "values": [0, 2, 1]})
    board = panel.board
    start = app.table.session.state.sites.index("h")
    before = drawn(board)
    app.flow.controller.tap_site(start)  # the line's start: its possible ends are ringed
    pump(1)
    assert repainted(before, board) == {"bands", "rings"}


def test_gold_connection_a_bar_picked_repaints_the_bars_only(table_app: Any) -> None:
    app = table_app
    panel = open_table(app, "gold_connection", 2)
    controller, session = app.flow.controller, app.table.session
    board = panel.board
    rng = Random(3)
    for _ in range(100):  # the seeded bot plays until a turn's arrow has moved onto bars
        state = session.state
        safe = state.robbers[state.current].arrow
        if state.moved and "loot" in controller.expects() and safe and state.safes[safe]:
            break
        action = choose_action(session.game, state, rng)
        assert (played(session, controller.virtual_roll, "virtual") if action.type == "roll"
                else played(session, controller.submit, action))
    else:
        raise AssertionError("no turn reached a safe with bars to pick")
    pump(1)
    before = drawn(board)
    controller.tap_bar(safe, state.safes[safe][0])
    pump(1)
    assert repainted(before, board) == {"bars"}


def printed_size(board: Any) -> int:
    """How much the printed board draws: the vertices of its meshes, and one for any other instruction."""
    return sum(len(item.vertices) // 4 if isinstance(item, Mesh) else 1 for item in board._printed.group.children)


def test_the_loupe_copy_draws_only_what_it_shows_straight(table_app: Any) -> None:
    """The copy is seen for a tap or two: it bakes no texture, and draws the cells around the touch
    (about 60 of Goldgräber's 331 hexes), where the table's board draws all of them once.  That is when
    it magnifies more than the board's baked print allows (`borrow_print`): here a board squeezed to a
    third of its size, whose loupe magnifies some ten times."""
    board = open_table(table_app, "goldgraeber", 3).board
    board.size_hint = (None, None)
    board.size = (board.width / 3, board.height / 3)
    pump(1)
    magnified = board.loupe.open(board.center)
    pump(1)
    copy = magnified.board
    assert board._printed.detail == MAX_PRINT_DETAIL
    assert copy.cell_spacing > MAX_BORROWED_ZOOM * MAX_PRINT_DETAIL * board.cell_spacing
    assert not copy._printed.baked and not any(isinstance(item, Fbo) for item in copy.canvas.children)
    assert 0 < printed_size(copy) < 0.4 * printed_size(board)

    def chips(board: Any) -> int:
        return sum(len(item.indices) for item in board._pieces.groups["chips"].children if isinstance(item, Mesh))

    assert chips(copy) < 0.5 * chips(board)  # the face-down chips it shows, not all of them
    board.loupe.close()


@pytest.mark.parametrize("game, players, detail", [("chinagold", 2, 1), ("gold_connection", 2, 1),
                                                   ("goldgraeber", 3, 2)])
def test_the_loupe_copy_shows_the_boards_baked_print_magnified(table_app: Any, game: str, players: int,
                                                               detail: int) -> None:
    """The copy draws no print of its own: one rectangle shows the part of the table board's baked texture
    under the lens (the copy's own print cost a software renderer up to 10 ms in every frame the loupe was
    open, Goldgräber's 12 ms the frame it opened), centred on the point the lens is centred on; the pieces
    are its own.  Goldgräber's loupe magnifies 3.4 times: its board bakes the print at twice the pixels,
    so no texture pixel is shown more than twice as large."""
    board = open_table(table_app, game, players).board
    magnified = board.loupe.open((board.x + board.width * 0.4, board.y + board.height * 0.6))
    pump(1)
    copy = magnified.board
    zoom = copy.cell_spacing / board.cell_spacing
    assert board._printed.detail == detail
    assert tuple(board._printed.texture.size) == (round(board.width * detail), round(board.height * detail))
    assert 1 < zoom <= MAX_BORROWED_ZOOM * detail
    (shown,) = [item for item in copy._printed.group.children if isinstance(item, Rectangle)]
    assert shown.texture.id == board._printed.texture.id and tuple(shown.size) == tuple(copy.size)
    u0, v0, u1, _, _, v1, _, _ = shown.tex_coords
    assert (u1 - u0) * board.width * zoom == pytest.approx(copy.width, rel=0.01)
    assert (v1 - v0) * board.height * zoom == pytest.approx(copy.height, rel=0.01)
    middle = (board.x + (u0 + u1) / 2 * board.width, board.y + (v0 + v1) / 2 * board.height)
    assert board.board_point(*middle) == pytest.approx(copy.board_point(*copy.center), abs=0.01)
    board.loupe.close()


def test_the_loupe_copy_draws_only_the_pieces_it_shows(table_app: Any) -> None:
    """Chinagold's 91 markers magnified reach far past the lens; drawn and clipped they cost the copy 6 ms a
    frame.  The copy draws the markers of the sites it shows."""
    board = open_table(table_app, "chinagold", 2).board
    copy = board.loupe.open(board.center).board
    pump(1)

    def discs(layer: Any) -> int:
        return sum(len(item.indices) for item in layer.children if isinstance(item, Mesh))

    assert 0 < discs(copy._pieces.groups["markers"]) < 0.8 * discs(board._pieces.groups["markers"])
    board.loupe.close()


def test_the_loupe_frees_its_copy_on_closing_and_keeps_its_frame(table_app: Any) -> None:
    app = table_app
    panel = goldgraeber_moving(app)
    board = panel.board
    target = crowded(board, panel._choosable())
    magnified = open_loupe_on(board, target)
    copy = weakref.ref(magnified.board)
    assert magnified.board.board is board.board  # the compiled layout is shared, not compiled again
    frame = (magnified.lens, magnified.header, magnified.close_button)
    board.loupe.close()
    pump(1)
    gc.collect()
    assert copy() is None and magnified.board is None and not magnified.lens.children
    again = open_loupe_on(board, target)
    assert again is magnified and (again.lens, again.header, again.close_button) == frame
    assert again.board is not None and again.shows(target)
    board.loupe.close()


@pytest.mark.parametrize("game, players", [("goldgraeber", 3), ("chinagold", 2)])
def test_the_printed_hexes_are_a_mesh_per_colour(table_app: Any, game: str, players: int) -> None:
    """The loupe's copy draws its printed part every frame: hexes, holes, ties, walls and borders are a mesh
    per colour (a draw call each costs a software renderer a fixed amount), not an instruction per cell."""
    board = open_table(table_app, game, players).board
    cells = len(board.board.ids) if game == "goldgraeber" else board.grid.size
    instructions = board._printed.group.children
    assert len(instructions) < cells, f"{len(instructions)} instructions for {cells} cells"  # one per cell: 2+


def test_gold_connection_bars_are_a_mesh_per_colour(table_app: Any) -> None:
    board = open_table(table_app, "gold_connection", 2).board
    bars = board._pieces.groups["bars"].children
    colours = {bar[0] for bars_in_safe in board.state.safes.values() for bar in bars_in_safe}
    assert sum(1 for item in bars if isinstance(item, Mesh)) == len(colours) > 1
