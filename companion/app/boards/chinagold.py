"""The Chinagold board drawn from its layout, as on the printed board: mountains as filled areas with
borders, rivers as blue lines through their sites, and (on the table) each site's marker.

`goldtable layout render` uses it with ids shown; the table screen passes a `BoardView` with the sites
of the current state and asks `site_at` which site was tapped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kivy.graphics import Color, Ellipse, Line, Rectangle
from kivy.properties import BooleanProperty, ObjectProperty
from kivy.uix.widget import Widget

from companion.app.boards.drawing import SQRT3, axial_at, centred_text, fill_hex, hex_centre
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
TAKEN_RING = {"M": (0.45, 0.25, 0.08), "R": (0.10, 0.30, 0.75)}


@dataclass
class BoardView:
    """What lies on the board: one character per site as in the game state (h, g, M, R), plus marks."""

    sites: str = ""
    selected: int | None = None
    highlights: set[int] = field(default_factory=set)


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


class ChinagoldBoard(Widget):
    """Hex board widget; redraws when resized or when `view` changes."""

    view = ObjectProperty(None, allownone=True)
    show_ids = BooleanProperty(False)

    def __init__(self, layout: ChinagoldBoardLayout, show_ids: bool = False, **kwargs: object) -> None:
        self.layout = layout
        self.grid = grid(layout.edge)
        self._tones = mountain_colours(layout)
        self._mountain_of = {site: n for n, region in enumerate(layout.mountains) for site in region.sites}
        self._radius = 10.0
        self._origin = (0.0, 0.0)
        super().__init__(**kwargs)
        self.show_ids = show_ids
        self.bind(pos=self.redraw, size=self.redraw, view=self.redraw, show_ids=self.redraw)
        self.redraw()

    # -- geometry ----------------------------------------------------------------------------------
    def _fit(self) -> None:
        """Hex radius and origin so the whole hexagon fits the widget, centred."""
        edge = self.grid.edge
        span_x = SQRT3 * (2 * edge - 1) + 0.4
        span_y = 1.5 * (2 * edge - 2) + 2.4
        self._radius = max(2.0, min(self.width / span_x, self.height / span_y))
        self._origin = self.center

    def centre_of(self, site: int) -> tuple[float, float]:
        """Pixel centre of a site."""
        q, r = self.grid.coords[site]
        return hex_centre(self._origin, self._radius, q, r)

    def site_at(self, x: float, y: float) -> int | None:
        """The site under a pixel (cube rounding), or None outside the board."""
        return self.grid.index.get(axial_at(self._origin, self._radius, x, y))

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
        """Mountains, their borders, rivers, then markers and marks from `view`."""
        self.canvas.clear()
        self._fit()
        g = self.grid
        with self.canvas:
            Color(*BACKGROUND)
            Rectangle(pos=self.pos, size=self.size)
            for site in range(g.size):
                fill_hex(*self.centre_of(site), self._radius, MOUNTAIN_TONES[self._tones[self._mountain_of[site]]])
            Color(*BORDER)
            for site, (q, r) in enumerate(g.coords):
                for step in NEIGHBOUR_STEPS:
                    other = g.index.get((q + step[0], r + step[1]))
                    if other is None or (other > site and self._mountain_of[other] != self._mountain_of[site]):
                        Line(points=self._edge(site, step), width=max(1.0, self._radius * 0.07), cap="round")
            self._draw_rivers()
            if self.view is not None:
                self._draw_view(self.view)
            if self.show_ids:
                for site in range(g.size):
                    cx, cy = self.centre_of(site)
                    centred_text(str(site), cx, cy, self._radius * 0.5, (0.05, 0.05, 0.05))

    def _draw_rivers(self) -> None:
        width = max(1.2, self._radius * 0.13)
        for colour, line_width in ((RIVER_BANK, width * 1.8), (RIVER, width)):
            Color(*colour)
            for region in self.layout.rivers:
                for a, b in river_tree(self.layout, region.sites):
                    Line(points=[*self.centre_of(a), *self.centre_of(b)], width=line_width, cap="round")
            for region in self.layout.rivers:
                if len(region.sites) and colour == RIVER:
                    source = min(region.sites)
                    cx, cy = self.centre_of(source)
                    dot = width * 1.6
                    Ellipse(pos=(cx - dot, cy - dot), size=(2 * dot, 2 * dot))

    def _draw_view(self, view: BoardView) -> None:
        size = self._radius * 0.46
        for site, mark in enumerate(view.sites):
            cx, cy = self.centre_of(site)
            if mark in TAKEN_RING:
                Color(*TAKEN_RING[mark])
                Line(circle=(cx, cy, size * 0.6), width=max(1.0, self._radius * 0.06))
                continue
            Color(0, 0, 0, 0.5)
            Ellipse(pos=(cx - size + 1.5, cy - size - 1.5), size=(2 * size, 2 * size))
            Color(*(GOLD_MARKER if mark == "g" else HIDDEN_MARKER))
            Ellipse(pos=(cx - size, cy - size), size=(2 * size, 2 * size))
        for site in view.highlights:
            cx, cy = self.centre_of(site)
            Color(1.0, 0.45, 0.1)
            Line(circle=(cx, cy, size * 1.2), width=max(1.5, self._radius * 0.08))
        if view.selected is not None:
            cx, cy = self.centre_of(view.selected)
            Color(1.0, 1.0, 1.0)
            Line(circle=(cx, cy, size * 1.25), width=max(1.5, self._radius * 0.1))


def board_widget(layout: ChinagoldBoardLayout, show_ids: bool = False) -> ChinagoldBoard:
    """The board widget for `goldtable layout render` and the table screen."""
    return ChinagoldBoard(layout, show_ids=show_ids)
