"""The Chinagold board drawn from its layout, as on the printed board: mountains as filled areas with
borders, rivers as blue lines through their sites, and (on the table) each site's marker.

`goldtable layout render` uses it with ids shown; the table screen passes a `BoardView` with the sites
of the current state and asks `cell_at` which site was tapped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import pairwise

from kivy.graphics import Color, Ellipse, InstructionGroup, Rectangle

from companion.app.boards.drawing import (
    SQRT3,
    centred_text,
    hex_centre,
    hexes,
    segments,
    sprites,
)
from companion.app.boards.hexboard import HexBoard
from companion.games.chinagold.board import ChinagoldBoardLayout
from companion.games.chinagold.geometry import NEIGHBOUR_STEPS, grid

BACKGROUND = (0.20, 0.16, 0.11)
#: Earth tones for the mountains; neighbouring mountains always get different ones.
MOUNTAIN_TONES: tuple[tuple[float, float, float], ...] = (
    (0.80, 0.69, 0.50), (0.63, 0.52, 0.36), (0.72, 0.60, 0.55), (0.58, 0.62, 0.44),
    (0.86, 0.78, 0.62), (0.68, 0.50, 0.40), (0.52, 0.48, 0.40))
RIVER = (0.16, 0.42, 0.86)
RIVER_BANK = (0.78, 0.88, 0.98)
BORDER = (0.28, 0.19, 0.10)
HIDDEN_MARKER = (0.22, 0.22, 0.24)
GOLD_MARKER = (0.98, 0.80, 0.15)
#: A site whose marker was taken: a light rim round a dot in the colour of the side that took it (the
#: mountain or the river player), readable on every earth tone and beside the blue rivers.
TAKEN_SITE = {"M": (0.85, 0.45, 0.12), "R": (0.15, 0.45, 1.0)}
TAKEN_RIM = (0.96, 0.93, 0.86)
HIGHLIGHT = (1.0, 0.45, 0.1)
PREVIEW = (0.85, 0.92, 1.0)
SELECTED = (1.0, 1.0, 1.0)
#: Enough segments for the rivers' round springs in the print (Kivy's default of 180 costs a software renderer
#: time; the markers are sprites).
DOT_SEGMENTS = 16


@dataclass
class BoardView:
    """What lies on the board: one character per site as in the game state (h, g, M, R), plus marks.

    With a site `selected` and `line_length` markers to turn, the board previews every line of that
    length starting there.
    """

    sites: str = ""
    selected: int | None = None
    highlights: set[int] = field(default_factory=set)
    line_length: int = 0


def mountain_colours(layout: ChinagoldBoardLayout) -> list[int]:
    """A tone per mountain such that touching mountains differ (greedy graph colouring)."""
    g = grid(layout.edge)
    owner = {site: number for number, region in enumerate(layout.mountains) for site in region.sites}
    tones: list[int] = []
    for number, region in enumerate(layout.mountains):
        used = {tones[owner[n]] for site in region.sites for n in g.neighbours[site]
                if owner.get(n, number) < number}
        tones.append(next(tone for tone in range(len(MOUNTAIN_TONES)) if tone not in used))
    return tones


def river_tree(layout: ChinagoldBoardLayout, sites: list[int]) -> list[tuple[int, int]]:
    """Neighbouring pairs that join a river's sites into one stream (a breadth-first spanning tree)."""
    g = grid(layout.edge)
    members = set(sites)
    start = min(members)
    seen = {start}
    order = [start]
    pairs: list[tuple[int, int]] = []
    for site in order:
        for other in g.neighbours[site]:
            if other in members and other not in seen:
                seen.add(other)
                order.append(other)
                pairs.append((site, other))
    return pairs


#: The pieces' layers, in drawing order (see `drawing.Layers`): the line bands under the markers, the
#: rings of the marks over them.
PIECE_LAYERS = ("bands", "markers", "rings")


class ChinagoldBoard(HexBoard):
    """The hexagon of sites; the printed board is its mountains, borders, rivers and ids, the pieces its
    markers and marks."""

    def __init__(self, layout: ChinagoldBoardLayout, show_ids: bool = False, **kwargs: object) -> None:
        self.layout = layout
        self.grid = grid(layout.edge)
        self._tones = mountain_colours(layout)
        self._mountain_of = {site: n for n, region in enumerate(layout.mountains) for site in region.sites}
        super().__init__(dict(enumerate(self.grid.coords)), PIECE_LAYERS, show_ids, **kwargs)

    # -- geometry ----------------------------------------------------------------------------------
    def _fit(self) -> None:
        """Hex radius and origin so the whole hexagon fits the widget, centred (or the loupe's magnified view)."""
        edge = self.grid.edge
        span_x = SQRT3 * (2 * edge - 1) + 0.4
        span_y = 1.5 * (2 * edge - 2) + 2.4
        self._radius = max(2.0, min(self.width / span_x, self.height / span_y))
        self._origin = self.center
        self._magnify(self.center)

    def lines_from(self, site: int, length: int) -> list[tuple[int, ...]]:
        """Every straight line of `length` sites that starts at `site` and stays on the board."""
        q, r = self.grid.coords[site]
        found = []
        for dq, dr in NEIGHBOUR_STEPS:
            cells = [self.grid.index.get((q + dq * i, r + dr * i)) for i in range(length)]
            if None not in cells:
                found.append(tuple(cell for cell in cells if cell is not None))
        return found

    def _edge(self, site: int, step: tuple[int, int]) -> list[float]:
        """The cell edge of `site` that faces the neighbour in direction `step`."""
        q, r = self.grid.coords[site]
        cx, cy = hex_centre(self._origin, self._radius, q, r)
        nx, ny = hex_centre(self._origin, self._radius, q + step[0], r + step[1])
        mx, my = (cx + nx) / 2, (cy + ny) / 2
        length = math.hypot(nx - cx, ny - cy)
        ux, uy = -(ny - cy) / length, (nx - cx) / length
        half = self._radius / 2
        return [mx - ux * half, my - uy * half, mx + ux * half, my + uy * half]

    # -- drawing -----------------------------------------------------------------------------------
    def redraw(self, *_: object) -> None:
        """The printed board into the baked layer (mountains, borders, rivers, ids; in the loupe's copy only
        the sites it shows), then the pieces."""
        self._fit()
        if self.borrow_print():  # the loupe's copy, its print and pieces drawn
            return
        group = self._printed.rebuild(self.pos, self.size, self.print_detail())
        g = self.grid
        group.add(Color(*BACKGROUND))
        group.add(Rectangle(pos=self.pos, size=self.size))
        shown = [site for site in range(g.size) if self.in_view(*self.centre_of(site), self._radius)]
        hexes(group, [(*self.centre_of(site), MOUNTAIN_TONES[self._tones[self._mountain_of[site]]])
                      for site in shown], self._radius)
        borders: list[tuple[float, float, float, float]] = []
        for site in shown:
            q, r = g.coords[site]
            for step in NEIGHBOUR_STEPS:
                other = g.index.get((q + step[0], r + step[1]))
                if other is None or (other > site and self._mountain_of[other] != self._mountain_of[site]):
                    x1, y1, x2, y2 = self._edge(site, step)
                    borders.append((x1, y1, x2, y2))
        group.add(Color(*BORDER))
        segments(group, borders, max(0.5, self._radius * 0.07))
        self._draw_rivers(group)
        if self.show_ids:
            for site in shown:
                cx, cy = self.centre_of(site)
                centred_text(group, str(site), cx, cy, self._radius * 0.5, (0.05, 0.05, 0.05), self._printed.detail)
        self._pieces.forget()
        self.draw_pieces()

    def _draw_rivers(self, group: InstructionGroup) -> None:
        width = max(1.2, self._radius * 0.13)
        streams = [(*self.centre_of(a), *self.centre_of(b)) for region in self.layout.rivers
                   for a, b in river_tree(self.layout, region.sites)
                   if self.in_view(*self.centre_of(a), 2 * self._radius)]
        for colour, line_width in ((RIVER_BANK, width * 1.8), (RIVER, width)):
            group.add(Color(*colour))
            segments(group, streams, line_width)
        for region in self.layout.rivers:
            if len(region.sites):
                cx, cy = self.centre_of(min(region.sites))
                dot = width * 1.6
                group.add(Ellipse(pos=(cx - dot, cy - dot), size=(2 * dot, 2 * dot), segments=DOT_SEGMENTS))

    def draw_pieces(self, *_: object) -> None:
        """The line preview and suggested line (under the markers), markers, rings on the highlighted and
        selected sites, from `view` (nothing else); each layer repainted only when what it shows changed:
        the first tap of a line changes the rings and bands, not the 91 markers."""
        view = self.view
        layers = self._pieces
        if view is None:
            for name in PIECE_LAYERS:
                layers.paint(name, None, lambda group: None)
            return
        ends = [line[-1] for line in self._preview_lines(view)]
        highlights = frozenset(view.highlights)
        layers.paint("bands", (view.selected, view.line_length, highlights), self._draw_bands)
        layers.paint("markers", view.sites, self._draw_markers)
        layers.paint("rings", (tuple(ends), highlights, view.selected), lambda group: self._draw_rings(group, ends))

    def _preview_lines(self, view: BoardView) -> list[tuple[int, ...]]:
        """The lines of the thrown length that start at the selected site (their far ends are ringed)."""
        if view.selected is None or view.line_length <= 1:
            return []
        return self.lines_from(view.selected, view.line_length)

    def _draw_bands(self, group: InstructionGroup) -> None:
        view = self.view
        for line in self._preview_lines(view):
            self._draw_band(group, list(line), PREVIEW)
        if len(view.highlights) > 1:
            self._draw_band(group, sorted(view.highlights, key=self.grid.coords.__getitem__), HIGHLIGHT)

    def _draw_markers(self, group: InstructionGroup) -> None:
        size = self._radius * 0.46
        markers: dict[str, list[tuple[float, float]]] = {"h": [], "g": []}
        taken: dict[str, list[tuple[float, float]]] = {mark: [] for mark in TAKEN_SITE}
        for site, mark in enumerate(self.view.sites):
            centre = self.centre_of(site)
            if self.in_view(*centre, size):  # in the loupe's copy only those it shows
                (taken[mark] if mark in TAKEN_SITE else markers["g" if mark == "g" else "h"]).append(centre)
        group.add(Color(*TAKEN_RIM))
        group.add(sprites([centre for centres in taken.values() for centre in centres], size * 0.8))
        for mark, centres in taken.items():
            group.add(Color(*TAKEN_SITE[mark]))
            group.add(sprites(centres, size * 0.6))
        group.add(Color(0, 0, 0, 0.5))  # shadows, then the markers: one mesh per colour
        group.add(sprites([(x + 1.5, y - 1.5) for x, y in markers["h"] + markers["g"]], size))
        for mark, rgb in (("h", HIDDEN_MARKER), ("g", GOLD_MARKER)):
            group.add(Color(*rgb))
            group.add(sprites(markers[mark], size))

    def _draw_rings(self, group: InstructionGroup, ends: list[int]) -> None:
        view = self.view
        size = self._radius * 0.46
        ring = max(1.5, self._radius * 0.08)
        for sites, rgb, scale, width in ((ends, PREVIEW, 1.2, ring), (view.highlights, HIGHLIGHT, 1.2, ring),
                                         ([] if view.selected is None else [view.selected], SELECTED, 1.25,
                                          max(1.5, self._radius * 0.1))):
            group.add(Color(*rgb))
            centres = self.in_view_only([self.centre_of(site) for site in sites], size * scale)
            group.add(sprites(centres, size * scale + width, size * scale - width))

    def _draw_band(self, group: InstructionGroup, sites: list[int], rgb: tuple[float, float, float]) -> None:
        """A band joining the centres of `sites` (in order), drawn under the markers: the preview of a line
        of the thrown length starting at the selected site (the second tap goes on a ringed far end),
        or the suggested line."""
        group.add(Color(*rgb))
        centres = [self.centre_of(site) for site in sites]
        segments(group, [(*a, *b) for a, b in pairwise(centres)], self._radius * 0.3)


def board_widget(layout: ChinagoldBoardLayout, show_ids: bool = False) -> ChinagoldBoard:
    """The board widget for `goldtable layout render` and the table screen."""
    return ChinagoldBoard(layout, show_ids=show_ids)
