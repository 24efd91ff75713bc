"""Boards draw their pieces as a few meshes, never with Kivy's wide lines (docs/design.md "Frames").

A `Line` wider than a pixel is built by Kivy from hundreds of triangles with round joints and caps: eleven
lit safes framed that way cost a Gold Connection frame 2.7 ms on a software renderer, and the robbers'
rings and arrows 1.7 ms more.  The pieces now use the one-mesh helpers of `companion.app.boards.drawing`,
and round markers are one textured quad each (`sprites`): a circle's mesh is dozens of triangles, and
Chinagold's 91 markers with their shadows cost a frame 2 ms that way.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

import pytest
from kivy.graphics import Color, Fbo, InstructionGroup, Line, Mesh

from companion.app.boards.drawing import BakedLayer, rounded_frames, segments, sprites
from companion.app.launch import pump
from companion.games.gold_connection.bot import choose_action as gold_connection_action
from companion.games.goldgraeber.bot import choose_action as goldgraeber_action
from tests.app.test_tap_every_button import open_table
from tests.table_helpers import played

pytestmark = pytest.mark.ui


def wide_lines(group: InstructionGroup) -> Iterator[Line]:
    """Every `Line` wider than a pixel in `group`, at any depth."""
    for item in group.children:
        if isinstance(item, Line) and item.width > 1:
            yield item
        elif isinstance(item, InstructionGroup):
            yield from wide_lines(item)


def pieces_wide_lines(board: Any) -> list[str]:
    """The board's layers of pieces that draw a wide `Line`."""
    return [name for name, group in board._pieces.groups.items() if any(wide_lines(group))]


def test_rounded_frames_draw_the_band_round_the_outline_and_nothing_else(app: Any) -> None:
    """A 100 x 100 frame at (50, 50), corners of 8 px, a band 3 px to either side of the outline."""
    fbo = Fbo(size=(200, 200))
    with fbo:
        Color(1, 1, 1, 1)
    fbo.add(rounded_frames([(50, 50, 100, 100)], 8, 3))
    fbo.draw()
    pixels = fbo.pixels

    def lit(x: int, y: int) -> bool:
        return pixels[4 * (y * 200 + x)] > 128

    assert all(lit(*point) for point in [(50, 100), (52, 100), (48, 100), (100, 150), (149, 100), (100, 51)])
    assert not any(lit(*point) for point in [(44, 100), (56, 100), (100, 100), (100, 156), (100, 44)])
    assert lit(53, 53)  # on the corner's arc (its centre at 58, 58: 7 px away)
    assert not lit(49, 49)  # the square's corner lies 12.7 px from the arc's centre: rounded off
    assert len(fbo.children[-1].indices) // 3 <= 2 * 4 * 5  # forty triangles, where a Line has hundreds


def test_sprites_draw_smooth_discs_and_rings_two_triangles_each(app: Any) -> None:
    """Discs of radius 10 at (50, 50) and (150, 50), a ring from 8 to 14 px round (100, 150); the edge is
    smoothed over one pixel, and each marker is one quad."""
    fbo = Fbo(size=(200, 200))
    with fbo:
        Color(1, 1, 1, 1)
    discs = sprites([(50, 50), (150, 50)], 10)
    ring = sprites([(100, 150)], 14, 8)
    fbo.add(discs)
    fbo.add(ring)
    fbo.draw()
    pixels = fbo.pixels

    def alpha(x: int, y: int) -> int:
        return int(pixels[4 * (y * 200 + x) + 3])

    assert alpha(50, 50) == alpha(58, 50) == alpha(150, 42) == 255
    assert alpha(62, 50) == alpha(50, 62) == alpha(40, 62) == 0
    assert 0 < alpha(59, 50) < 255 or 0 < alpha(60, 50) < 255  # the pixel the edge crosses: partly covered
    assert alpha(100, 150) == alpha(104, 150) == 0  # the ring's hole
    assert alpha(100, 161) == alpha(89, 150) == 255 and alpha(100, 166) == 0
    assert len(discs.indices) == 2 * 3 * 2 and len(ring.indices) == 3 * 2


def test_a_print_baked_at_twice_the_pixels_keeps_a_one_pixel_line(app: Any) -> None:
    """Goldgräber's board bakes its print at twice the pixels (its loupe shows it magnified) and shows it
    at half: each pixel is the even average of four texture pixels, so a line one pixel wide (the seams
    between hexes, the rail) stays one pixel wide and solid, neither thinned nor smeared."""
    picture = Fbo(size=(20, 20))
    printed = BakedLayer(picture)
    group = printed.rebuild((0, 0), (20, 20), detail=2)
    group.add(Color(1, 1, 1, 1))
    segments(group, [(10.5, 0, 10.5, 20)], 0.5, caps=False)
    picture.draw()
    pixels = picture.pixels
    row = [pixels[4 * (10 * 20 + x)] for x in range(20)]
    assert row[10] == 255 and row[9] == 0 and row[11] == 0
    assert tuple(printed.texture.size) == (40, 40)


def test_gold_connection_pieces_draw_no_wide_line_through_a_game(table_app: Any) -> None:
    """Lit safes, picked bars, robber stones and arrows, through the first sixty actions of a game."""
    app = table_app
    board = open_table(app, "gold_connection", 3).board
    controller, session = app.flow.controller, app.table.session
    rng = Random(5)
    picked = False
    for _ in range(60):
        state = session.state
        safe = state.robbers[state.current].arrow
        if not picked and state.moved and "loot" in controller.expects() and safe and state.safes[safe]:
            controller.tap_bar(safe, state.safes[safe][0])  # a picked bar is framed
            pump(1)
            picked = bool(board.selected_bars)
        assert pieces_wide_lines(board) == []
        action = gold_connection_action(session.game, state, rng)
        assert (played(session, controller.virtual_roll, "virtual") if action.type == "roll"
                else played(session, controller.submit, action))
    assert picked and board.highlighted and any(robber.arrow for robber in session.state.robbers)
    assert pieces_wide_lines(board) == []


def test_goldgraeber_pieces_and_its_loupe_copy_draw_no_wide_line(table_app: Any) -> None:
    """The table's pieces through forty actions, and the loupe's copy, which draws its own print (the rail
    among it) in every frame it is open at 3.4 times the size."""
    app = table_app
    board = open_table(app, "goldgraeber", 4).board
    controller, session = app.flow.controller, app.table.session
    rng = Random(5)
    for _ in range(40):
        assert pieces_wide_lines(board) == []
        action = goldgraeber_action(session.game, session.state, rng)
        assert (played(session, controller.virtual_roll, "virtual") if action.type == "roll"
                else played(session, controller.submit, action))
    copy = board.loupe.open(board.center).board
    pump(1)
    assert pieces_wide_lines(copy) == [] and not any(wide_lines(copy._printed.group))
    assert copy._radius * 0.08 > 1  # the rail would be a wide Line there
    board.loupe.close()


def test_chinagold_line_preview_draws_no_wide_line(table_app: Any) -> None:
    """The bands that preview the lines from a selected site."""
    app = table_app
    board = open_table(app, "chinagold", 2).board
    controller, session = app.flow.controller, app.table.session
    assert played(session, controller.submit, {"type": "throw", "values": [0, 2, 1]})
    start = session.state.sites.index("h")
    controller.tap_site(start)  # the line's start: its possible lines are shown as bands
    pump(1)
    assert board._pieces.groups["bands"].children and pieces_wide_lines(board) == []


def test_chinagold_markers_are_a_quad_each(table_app: Any) -> None:
    """The 91 markers, their shadows and the rings of a selected site: two triangles a marker."""
    app = table_app
    board = open_table(app, "chinagold", 2).board
    controller, session = app.flow.controller, app.table.session
    assert played(session, controller.submit, {"type": "throw", "values": [0, 2, 1]})
    controller.tap_site(session.state.sites.index("h"))
    pump(1)
    for name in ("markers", "rings"):
        meshes = [item for item in board._pieces.groups[name].children if isinstance(item, Mesh)]
        assert meshes and all(len(mesh.indices) == 6 * (len(mesh.vertices) // 16) for mesh in meshes)
    markers = sum(len(mesh.vertices) // 16 for mesh in board._pieces.groups["markers"].children
                  if isinstance(mesh, Mesh))
    assert markers >= 2 * len(session.state.sites)  # each marker and its shadow
