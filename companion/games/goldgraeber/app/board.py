"""The Goldgräber board drawn from its layout: hexes, Golden City, houses with doors, lakes, rail.

The same widget serves `goldtable layout render` (ids shown) and the table screen, which passes a
`BoardView` (figures, locomotive, rafts, chips, highlighted destinations) and asks `cell_at` which hex
was tapped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from kivy.graphics import Color, Ellipse, InstructionGroup, Line, Rectangle
from kivy.properties import ObjectProperty
from kivy.uix.widget import Widget

from companion.app.boards.drawing import (
    SQRT3,
    centred_text,
    discs,
    hexes,
    rings,
    segments,
    sprites,
)
from companion.app.boards.hexboard import HexBoard
from companion.games.goldgraeber.board import HEX_DIRECTIONS, Board, GoldgraeberLayout, compile_board, hex_rgb

#: Hexes are filled a little smaller than their cells so a thin seam of background separates them.
HEX_FILL_SCALE = 0.97

FIELD_COLOURS: dict[str, tuple[float, float, float]] = {
    "town": (0.93, 0.86, 0.70),
    "path": (0.80, 0.72, 0.52),
    "dig": (0.62, 0.47, 0.30),
    "shore": (0.86, 0.80, 0.58),
    "rail": (0.55, 0.55, 0.55),
    "lake": (0.30, 0.55, 0.85),
    "house": (0.5, 0.5, 0.5),
}

def colour_rgb(name: str) -> tuple[float, float, float]:
    """A house colour word or `#rrggbb` as RGB floats (grey for anything unknown)."""
    rgb = hex_rgb(name)
    if rgb is None:
        return (0.5, 0.5, 0.5)
    return (rgb[0] / 255, rgb[1] / 255, rgb[2] / 255)


@dataclass
class BoardView:
    """What lies on the board right now, by field id (filled by the table screen from the game state).

    `stacks` maps a robber's field to its label: the robber's strength, then `+n` for n chips under it.
    """

    figures: dict[str, list[str]] = field(default_factory=dict)
    locomotive: str | None = None
    rafts: list[str] = field(default_factory=list)
    face_down: set[str] = field(default_factory=set)
    stacks: dict[str, str] = field(default_factory=dict)
    highlights: set[str] = field(default_factory=set)
    selected: str | None = None


#: Enough segments for the print's holes and the tunnel's mouth (Kivy's default is 180; the round pieces
#: are sprites).
DOT_SEGMENTS = 24


#: The pieces' layers, in drawing order (see `drawing.Layers`).
PIECE_LAYERS = ("highlights", "rafts", "chips", "stacks", "locomotive", "figures")


class GoldgraeberBoard(HexBoard):
    """The whole map, as large as the widget allows, always whole (the train and every figure stay in
    view); the printed board is its hexes, town, houses, lakes and rail, the pieces what `view` shows."""

    layout = ObjectProperty(None)

    def __init__(self, layout: GoldgraeberLayout, show_ids: bool = False, board: Board | None = None,
                 **kwargs: object) -> None:
        """`board`: the layout compiled already (the loupe's copy shares the table board's)."""
        self.board = board or compile_board(layout)
        super().__init__(dict(zip(self.board.ids, self.board.coords)), PIECE_LAYERS, show_ids, layout=layout,
                         **kwargs)

    # -- geometry ----------------------------------------------------------------------------------
    def _fit(self) -> None:
        """Choose hex radius and origin so the whole map fits the widget, centred (or the loupe's magnified view)."""
        coords = self.board.coords
        xs = [SQRT3 * (q + r / 2) for q, r in coords]
        ys = [-1.5 * r for _, r in coords]
        span = (max(xs) - min(xs) + SQRT3, max(ys) - min(ys) + 2.0)
        self._radius = max(2.0, min(self.width / span[0], self.height / span[1]))
        mid_x = (max(xs) + min(xs)) / 2
        mid_y = (max(ys) + min(ys)) / 2
        self._origin = (self.center_x - mid_x * self._radius, self.center_y - mid_y * self._radius)
        self._magnify(self.center)

    def magnified_copy(self, **properties: Any) -> Widget:
        return GoldgraeberBoard(self.layout, board=self.board, view=self.view, **properties)

    # -- drawing -----------------------------------------------------------------------------------
    def redraw(self, *_: object) -> None:
        """The printed map into the baked layer (in the loupe's copy only the fields it shows), then
        whatever `view` puts on it."""
        self._fit()
        if self.borrow_print():  # the loupe's copy, its print and pieces drawn
            return
        group = self._printed.rebuild(self.pos, self.size, self.print_detail())
        board = self.board
        radius = self._radius
        house_colour = dict(zip(board.houses, board.house_colours))
        group.add(Color(0.36, 0.50, 0.28))
        group.add(Rectangle(pos=self.pos, size=self.size))
        cells: list[tuple[float, float, tuple[float, float, float]]] = []
        holes: list[tuple[float, float]] = []
        ties: list[tuple[float, float, float, float]] = []
        for i, field_id in enumerate(board.ids):
            cx, cy = self.centre_of(field_id)
            if not self.in_view(cx, cy, radius):
                continue
            kind = board.types[i]
            cells.append((cx, cy, colour_rgb(house_colour[i]) if kind == "house" else FIELD_COLOURS[kind]))
            if kind == "dig":
                holes.append((cx, cy))
            if kind == "rail":
                ties += [(cx - radius * 0.5, cy + offset * radius, cx + radius * 0.5, cy + offset * radius)
                         for offset in (-0.45, 0.0, 0.45)]
        hexes(group, cells, radius * HEX_FILL_SCALE)  # one mesh per colour, holes and ties likewise
        group.add(Color(0.32, 0.22, 0.12))
        group.add(discs(holes, radius * 0.35, DOT_SEGMENTS, squash=0.6))
        group.add(Color(0.25, 0.18, 0.10))
        segments(group, ties, 1.2)
        self._draw_rail_line(group)
        self._draw_town_wall(group)
        self._draw_doors(group)
        self._draw_raft_posts(group)
        if self.show_ids:
            for i, field_id in enumerate(board.ids):
                if board.types[i] == "lake":
                    continue
                fill = colour_rgb(house_colour[i]) if i in house_colour else FIELD_COLOURS[board.types[i]]
                ink = (0.95, 0.95, 0.95) if sum(fill) < 1.0 else (0.1, 0.1, 0.1)
                cx, cy = self.centre_of(field_id)
                centred_text(group, field_id, cx, cy - radius * 0.45, radius * 0.42, ink, self._printed.detail)
        centred_text(group, "Golden City", self._origin[0], self._origin[1] + radius * 0.1, radius * 0.55,
                     (0.35, 0.2, 0.05), self._printed.detail)
        self._pieces.forget()
        self.draw_pieces()

    def _draw_rail_line(self, group: InstructionGroup) -> None:
        centres = [self.centre_of(self.board.ids[rail]) for rail in self.board.rail]
        group.add(Color(0.15, 0.15, 0.15))  # one mesh: a loupe copy drawing its own print draws it every frame
        segments(group, [(*a, *b) for a, b in pairwise(centres)], max(0.5, self._radius * 0.08))
        start_x, start_y = centres[0]
        if not self.in_view(start_x, start_y, self._radius):
            return
        group.add(Color(0.1, 0.1, 0.1))
        group.add(Ellipse(pos=(start_x - self._radius * 0.5, start_y - self._radius * 0.5),
                          size=(self._radius, self._radius), angle_start=-90, angle_end=90, segments=DOT_SEGMENTS))

    def _draw_town_wall(self, group: InstructionGroup) -> None:
        """Outline Golden City (town and house fields) so the sheriff's area is visible."""
        town = {self.board.coords[i] for i in self.board.town}
        walls: list[tuple[float, float, float, float]] = []
        for q, r in town:
            cx, cy = self.centre_of(self._cell_at[(q, r)])
            if not self.in_view(cx, cy, self._radius):
                continue
            for dq, dr in HEX_DIRECTIONS:
                if (q + dq, r + dr) in town:
                    continue
                facing = math.atan2(-1.5 * dr, SQRT3 * (dq + dr / 2))
                ends = [facing - math.pi / 6, facing + math.pi / 6]
                walls.append((cx + self._radius * math.cos(ends[0]), cy + self._radius * math.sin(ends[0]),
                              cx + self._radius * math.cos(ends[1]), cy + self._radius * math.sin(ends[1])))
        group.add(Color(0.45, 0.28, 0.1))
        segments(group, walls, max(1.2, self._radius * 0.1))

    def _draw_doors(self, group: InstructionGroup) -> None:
        """A thick bar on the edge between each house and its door field."""
        bars: list[tuple[float, float, float, float]] = []
        for house, door in zip(self.board.houses, self.board.doors):
            hx, hy = self.centre_of(self.board.ids[house])
            dx, dy = self.centre_of(self.board.ids[door])
            if not self.in_view(hx, hy, 2 * self._radius):
                continue
            mx, my = (hx + dx) / 2, (hy + dy) / 2
            ux, uy = -(dy - hy), dx - hx
            length = math.hypot(ux, uy) or 1.0
            half = self._radius * 0.35
            bars.append((mx - ux / length * half, my - uy / length * half,
                         mx + ux / length * half, my + uy / length * half))
        group.add(Color(0.35, 0.2, 0.05))
        segments(group, bars, max(1.5, self._radius * 0.12))

    def _draw_raft_posts(self, group: InstructionGroup) -> None:
        """A stake at each raft post (the rafts themselves are pieces)."""
        stakes = [(cx + self._radius * 0.5, cy - self._radius * 0.1, cx + self._radius * 0.5, cy + self._radius * 0.7)
                  for cx, cy in (self.centre_of(self.board.ids[post]) for post in self.board.raft_posts)]
        group.add(Color(0.3, 0.18, 0.05))
        segments(group, stakes, max(1.5, self._radius * 0.1))

    def _draw_raft(self, group: InstructionGroup, cx: float, cy: float) -> None:
        radius = self._radius
        group.add(Color(0.55, 0.35, 0.12))
        group.add(Rectangle(pos=(cx - radius * 0.7, cy - radius * 0.45), size=(radius * 1.4, radius * 0.9)))
        group.add(Color(0.35, 0.2, 0.05))
        for k in range(1, 4):
            x = cx - radius * 0.7 + k * radius * 0.35
            group.add(Line(points=[x, cy - radius * 0.45, x, cy + radius * 0.45], width=1))

    def draw_pieces(self, *_: object) -> None:
        """Highlights, rafts, chips, robbers, the locomotive and the figures from `view`, each layer
        repainted only when what it shows has changed; on the bare board (no view, as `layout render`
        shows it) the rafts lie at their posts."""
        view = self.view
        layers = self._pieces
        ids = self.board.ids
        if view is None:
            for name in PIECE_LAYERS:
                layers.paint(name, None, lambda group: None)
            layers.paint("rafts", "posts", lambda group: self._draw_rafts(group, [ids[post] for post in
                                                                                   self.board.raft_posts]))
            return
        layers.paint("highlights", (frozenset(view.highlights), view.selected), self._draw_highlights)
        layers.paint("rafts", tuple(view.rafts), lambda group: self._draw_rafts(group, view.rafts))
        layers.paint("chips", frozenset(view.face_down), self._draw_chips)
        layers.paint("stacks", tuple(view.stacks.items()), self._draw_stacks)
        layers.paint("locomotive", view.locomotive, self._draw_locomotive)
        layers.paint("figures", (tuple((field_id, tuple(colours)) for field_id, colours in view.figures.items()),
                                 frozenset(view.stacks) & set(view.figures)), self._draw_figures)

    def _draw_highlights(self, group: InstructionGroup) -> None:
        view, radius = self.view, self._radius
        # Opaque: Kivy draws a translucent wide line through the stencil, which the loupe's clipping uses too.
        group.add(Color(1.0, 0.95, 0.2))  # one mesh for all highlighted fields (a 6 reaches about a hundred)
        group.add(rings(self.in_view_only([self.centre_of(field_id) for field_id in view.highlights], radius),
                        radius * 0.92, max(1.5, radius * 0.1), segments=6, first_corner=30))
        if view.selected:
            group.add(Color(1, 1, 1))
            group.add(rings([self.centre_of(view.selected)], radius * 0.92, max(1.5, radius * 0.12), segments=6,
                            first_corner=30))

    def _draw_rafts(self, group: InstructionGroup, fields: list[str]) -> None:
        for field_id in fields:
            self._draw_raft(group, *self.centre_of(field_id))

    def _draw_chips(self, group: InstructionGroup) -> None:
        radius = self._radius
        chips = self.in_view_only([self.centre_of(field_id) for field_id in self.view.face_down], radius)
        group.add(Color(0.5, 0.35, 0.1))  # a rim, then the chip: one mesh each for all face-down chips
        group.add(sprites(chips, radius * 0.55 + 1.2))
        group.add(Color(0.95, 0.75, 0.2))
        group.add(sprites(chips, radius * 0.55))

    def _draw_stacks(self, group: InstructionGroup) -> None:
        radius = self._radius
        for field_id, label in self.view.stacks.items():
            cx, cy = self.centre_of(field_id)
            group.add(Color(0.2, 0.2, 0.2))
            group.add(sprites([(cx, cy)], radius * 0.6))
            centred_text(group, label, cx, cy, radius * 0.6, (1, 1, 1))

    def _draw_locomotive(self, group: InstructionGroup) -> None:
        if not self.view.locomotive:
            return
        radius = self._radius
        cx, cy = self.centre_of(self.view.locomotive)
        group.add(Color(0.1, 0.1, 0.1))
        group.add(Rectangle(pos=(cx - radius * 0.6, cy - radius * 0.35), size=(radius * 1.2, radius * 0.7)))
        group.add(Color(0.8, 0.1, 0.1))
        group.add(Rectangle(pos=(cx + radius * 0.15, cy + radius * 0.35), size=(radius * 0.3, radius * 0.35)))

    def _draw_figures(self, group: InstructionGroup) -> None:
        """Each figure on its field (side by side when several share it); on a robber's stack, below the
        middle, so that the robber's strength stays readable."""
        radius = self._radius
        for field_id, colours in self.view.figures.items():
            cx, cy = self.centre_of(field_id)
            if field_id in self.view.stacks:
                cy -= radius * 0.6
            for k, colour in enumerate(colours):
                offset = (k - (len(colours) - 1) / 2) * radius * 0.45
                group.add(Color(0, 0, 0))
                group.add(sprites([(cx + offset, cy)], radius * 0.36))
                group.add(Color(*colour_rgb(colour)))
                group.add(sprites([(cx + offset, cy)], radius * 0.3))


def board_widget(layout: GoldgraeberLayout, show_ids: bool = False) -> GoldgraeberBoard:
    """The board widget for a layout: what the table screen shows and `goldtable layout render` draws."""
    return GoldgraeberBoard(layout, show_ids=show_ids)
