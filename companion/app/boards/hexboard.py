"""The widget every hex board is built on (Goldgräber's map, Chinagold's hexagon): cells at axial
coordinates, a printed board baked once per size and a few layers of pieces repainted per view.

A game's board says which cell stands where (`cells`), how the whole board fits the widget (`_fit`),
how the printed board is drawn (`redraw`) and how the pieces are (`draw_pieces`, on a new `view`).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from kivy.properties import BooleanProperty, ObjectProperty
from kivy.uix.widget import Widget

from companion.app.boards.drawing import BakedLayer, Layers, Magnifiable, axial_at, hex_centre


class HexBoard(Magnifiable, Widget):
    """A hex board's cells and layers.  The printed board is drawn into a baked layer (an off-screen
    texture) when the size, position or `show_ids` changes; a new `view` only repaints the layers of
    pieces it changes (see docs/performance.md)."""

    view = ObjectProperty(None, allownone=True)
    show_ids = BooleanProperty(False)

    def __init__(self, cells: Mapping[Any, tuple[int, int]], piece_layers: tuple[str, ...], show_ids: bool,
                 **kwargs: object) -> None:
        """`cells`: each cell's id (a site number, a field id) and its axial coordinate (q, r)."""
        self._coord_of = dict(cells)
        self._cell_at: dict[tuple[int, int], Hashable] = {coord: cell for cell, coord in cells.items()}
        self._radius = 10.0
        self._origin = (0.0, 0.0)
        super().__init__(**kwargs)
        self._printed = BakedLayer(self.canvas, baked=not self.zoom_spacing)
        self._pieces = Layers(self.canvas, piece_layers)  # drawn straight: a re-baked texture costs more
        self.show_ids = show_ids
        # A loupe attached bakes the print at the detail it needs (`print_detail`).
        self.bind(pos=self.redraw, size=self.redraw, show_ids=self.redraw, loupe=self.redraw, view=self.draw_pieces)
        self.redraw()

    def centre_of(self, cell: Any) -> tuple[float, float]:
        """Pixel centre of a cell."""
        q, r = self._coord_of[cell]
        return hex_centre(self._origin, self._radius, q, r)

    def cell_at(self, x: float, y: float) -> Any:
        """The cell under a pixel (axial rounding), or None off the board."""
        return self._cell_at.get(axial_at(self._origin, self._radius, x, y))

    def redraw(self, *_: object) -> None:
        """Draw the printed board anew (each board says how)."""
        raise NotImplementedError
