"""The Gold Connection vault drawn from its layout: safes, passages, walls, counter track, and the game on it.

`board_widget(layout)` is what `goldtable layout render` pictures and what the table screen shows; the
table screen hands it a state (`board.state = ...`) to add bars, robber stones, arrows and the counter,
and listens to `on_safe` for taps on a safe and `on_bar` for taps on a bar.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from kivy.graphics import Color, InstructionGroup, Line, Rectangle, RoundedRectangle, Triangle
from kivy.properties import BooleanProperty, ListProperty, ObjectProperty
from kivy.uix.widget import Widget

from companion.app.boards.drawing import (
    BakedLayer,
    Layers,
    Magnifiable,
    rectangles,
    rounded_frames,
    segments,
    sprites,
    text_texture,
)
from companion.games.gold_connection.board import GoldConnectionLayout

BAR_COLOURS = {"B": (0.25, 0.45, 0.95), "G": (0.2, 0.7, 0.3), "R": (0.9, 0.25, 0.2), "Y": (0.95, 0.8, 0.15)}
SEAT_COLOURS = ((0.85, 0.1, 0.55), (0.1, 0.75, 0.85), (0.95, 0.55, 0.1), (0.55, 0.35, 0.9))
BACKGROUND = (0.16, 0.16, 0.2)
WALL = (0.45, 0.38, 0.3)
SAFE = (0.55, 0.57, 0.62)
CHOICE_SAFE = (0.42, 0.5, 0.6)
#: The pieces' layers, in drawing order (see `drawing.Layers`).
PIECE_LAYERS = ("highlights", "counter", "bars", "robbers")


def _text(text: str, size: float, colour: tuple[float, float, float] = (1, 1, 1)) -> Any:
    """A bold text texture; kept, since the same bar and safe labels are drawn after every move."""
    return text_texture(text, round(size), colour)


class VaultBoard(Magnifiable, Widget):
    """The vault at any size; taps on a safe dispatch `on_safe(id)`, on a bar `on_bar(id, bar)`.

    `selected_bars` lists `(safe, bar)` pairs, one per selected copy; `highlighted` lists safe ids.
    For the loupe its cells are the safes, its board units the layout's pixels (`zoom_centre`) and
    `zoom_spacing` the side of a safe; a touch on a bar is a bar's, on the board and in the loupe.
    """

    layout = ObjectProperty(None)
    state = ObjectProperty(None, allownone=True)
    show_ids = BooleanProperty(False)
    highlighted = ListProperty([])
    selected_bars = ListProperty([])
    #: One RGB colour per seat for stones and arrows (the table screen passes the players' colours).
    seat_colours = ListProperty([list(colour) for colour in SEAT_COLOURS])

    __events__ = ("on_safe", "on_bar")
    view_properties = ("state", "highlighted", "selected_bars", "seat_colours")

    def __init__(self, **kwargs: Any) -> None:
        self._static_for_game: bool | None = None
        super().__init__(**kwargs)
        self._printed = BakedLayer(self.canvas, baked=not self.zoom_spacing)
        self._pieces = Layers(self.canvas, PIECE_LAYERS)  # drawn straight: a re-baked texture costs more
        self._bar_boxes: list[tuple[str, str, float, float, float]] = []
        self.bind(size=self.redraw, pos=self.redraw, show_ids=self.redraw, layout=self.redraw,
                  state=self._state_changed,
                  highlighted=self.draw_pieces, selected_bars=self.draw_pieces, seat_colours=self.draw_pieces)

    # -- geometry ----------------------------------------------------------------------------------
    @property
    def scale(self) -> float:
        layout: GoldConnectionLayout = self.layout
        if self.zoom_spacing:
            return float(self.zoom_spacing / layout.safe_size)
        return float(min(self.width / layout.width, self.height / layout.height))

    def _top_left(self) -> tuple[float, float]:
        """Where the layout's origin lies: the vault centred, or `zoom_centre` at the centre when magnified."""
        layout: GoldConnectionLayout = self.layout
        scale = self.scale
        if self.zoom_spacing:
            return self.center_x - self.zoom_centre[0] * scale, self.center_y + self.zoom_centre[1] * scale
        return self.x + (self.width - layout.width * scale) / 2, self.y + (self.height + layout.height * scale) / 2

    def to_screen(self, x: float, y: float) -> tuple[float, float]:
        """Layout pixels (origin top left) to widget coordinates (origin bottom left)."""
        left, top = self._top_left()
        return left + x * self.scale, top - y * self.scale

    def board_point(self, x: float, y: float) -> tuple[float, float]:
        """Widget coordinates to layout pixels (the inverse of `to_screen`)."""
        left, top = self._top_left()
        return (x - left) / self.scale, (top - y) / self.scale

    def pixel_of(self, u: float, v: float) -> tuple[float, float]:
        return self.to_screen(u, v)

    @property
    def cell_spacing(self) -> float:
        """The side of a safe in pixels (the tap target's size)."""
        return float(self.layout.safe_size * self.scale)

    def centre_of(self, safe_id: str) -> tuple[float, float]:
        return self.to_screen(*self._safe_xy(safe_id))

    def own_event(self, x: float, y: float) -> tuple[str, tuple[Any, ...]] | None:
        bar = self.bar_at(x, y)
        return None if bar is None else ("on_bar", bar)

    def magnified_copy(self, **properties: Any) -> Widget:
        board = VaultBoard(layout=self.layout, **{name: getattr(self, name) for name in self.view_properties},
                           **properties)
        board.redraw()
        return board

    def cell_at(self, x: float, y: float) -> str | None:
        """The safe under a touch point, if any."""
        half = self.layout.safe_size * self.scale / 2
        for safe in self.layout.safes:
            cx, cy = self.to_screen(safe.x, safe.y)
            if abs(x - cx) <= half and abs(y - cy) <= half:
                return str(safe.id)
        return None

    def bar_at(self, x: float, y: float) -> tuple[str, str] | None:
        """The (safe, bar) under a touch point, if any."""
        for safe, bar, bx, by, size in self._bar_boxes:
            if bx <= x <= bx + size and by <= y <= by + size:
                return safe, bar
        return None

    def on_touch_down(self, touch: Any) -> bool:
        if not self.collide_point(*touch.pos):
            return False
        hit_bar = self.bar_at(*touch.pos)
        if hit_bar is not None:
            self.dispatch("on_bar", *hit_bar)
            return True
        safe = self.cell_at(*touch.pos)
        if safe is not None:
            self.dispatch("on_safe", safe)
            return True
        return False

    def on_safe(self, safe: str) -> None:
        """Default handler: nothing (the table screen binds its own)."""

    def on_bar(self, safe: str, bar: str) -> None:
        """Default handler: nothing (the table screen binds its own)."""

    # -- drawing -----------------------------------------------------------------------------------
    def _state_changed(self, *_: Any) -> None:
        """A new state redraws the pieces; the vault itself only when going from bare board to game."""
        if self._static_for_game != (self.state is not None):
            self.redraw()
        else:
            self.draw_pieces()

    def redraw(self, *_: Any) -> None:
        """The vault (walls, counter track, passages, safes; in the loupe's copy only the safes and counter
        fields it shows) into the baked layer, then the pieces."""
        if self.layout is None:
            return
        self._static_for_game = self.state is not None
        if self.borrow_print():  # the loupe's copy, its print and pieces drawn
            return
        group = self._printed.rebuild(self.pos, self.size, self.print_detail())
        layout: GoldConnectionLayout = self.layout
        scale = self.scale
        positions = {safe.id: (safe.x, safe.y) for safe in layout.safes}
        group.add(Color(*BACKGROUND))
        group.add(Rectangle(pos=self.pos, size=self.size))
        self._draw_wall_and_counter(group, layout, scale)
        walls = {frozenset(wall) for wall in layout.walls}
        group.add(Color(0.3, 0.3, 0.36))
        for a, b in layout.connections:
            if frozenset((a, b)) in walls:
                continue
            group.add(Line(points=[*self.to_screen(*positions[a]), *self.to_screen(*positions[b])],
                           width=max(2.0, 18 * scale)))
        for a, b in layout.walls:
            self._draw_wall(group, positions[a], positions[b], layout.safe_size, scale)
        for safe in layout.safes:
            if self.in_view(*self.to_screen(safe.x, safe.y), layout.safe_size * scale):
                self._draw_safe(group, safe.id, safe.number, safe.x, safe.y, layout.safe_size, scale)
        self._pieces.forget()
        self.draw_pieces()

    def draw_pieces(self, *_: Any) -> None:
        """The counter, highlighted safes, bars, robber stones and arrows (nothing of the vault itself),
        each layer repainted only when what it shows changed: a pick changes one bar's mark, not the
        vault's eighty bars."""
        layers = self._pieces
        if self.layout is None:
            return
        state = self.state
        layers.paint("highlights", tuple(self.highlighted), self._draw_highlights)
        if state is None:
            for name in ("counter", "bars", "robbers"):
                layers.paint(name, None, lambda group: None)
            self._bar_boxes = []
            return
        scale = self.scale
        layers.paint("counter", state.counter, lambda group: self._draw_counter_mark(group, self.layout, scale))
        layers.paint("bars", (tuple((safe, tuple(bars)) for safe, bars in state.safes.items()),
                              tuple(map(tuple, self.selected_bars))),
                     lambda group: self._draw_bars(group, self.layout, scale))
        layers.paint("robbers", (tuple((robber.stone, robber.arrow, robber.heading) for robber in state.robbers),
                                 tuple(map(tuple, self.seat_colours))),
                     lambda group: self._draw_robbers(group, self.layout, scale))

    def _draw_highlights(self, group: InstructionGroup) -> None:
        """A frame round each lit safe, all in one mesh (`drawing.rounded_frames`)."""
        scale = self.scale
        side = self.layout.safe_size * scale
        boxes = []
        for safe in self.layout.safes:
            if safe.id in self.highlighted:
                cx, cy = self.to_screen(safe.x, safe.y)
                boxes.append((cx - side / 2, cy - side / 2, side, side))
        group.add(Color(1.0, 0.85, 0.2))
        group.add(rounded_frames(boxes, 8 * scale, max(2.0, 5 * scale)))

    def _draw_wall_and_counter(self, group: InstructionGroup, layout: GoldConnectionLayout, scale: float) -> None:
        xs = [spot.x for spot in layout.counter]
        ys = [spot.y for spot in layout.counter]
        x0, y0 = self.to_screen(min(xs), max(ys))
        x1, y1 = self.to_screen(max(xs), min(ys))
        group.add(Color(*WALL))
        group.add(Line(rectangle=(x0, y0, x1 - x0, y1 - y0), width=max(3.0, 22 * scale)))
        for spot in layout.counter:
            if not self.in_view(*self.to_screen(spot.x, spot.y), 26 * scale):
                continue
            last = spot.index == len(layout.counter)
            self._draw_counter_spot(group, spot, (0.7, 0.25, 0.2) if last else (0.62, 0.55, 0.45), scale)

    def _draw_counter_spot(self, group: InstructionGroup, spot: Any, rgb: tuple[float, float, float],
                           scale: float) -> None:
        cx, cy = self.to_screen(spot.x, spot.y)
        field = 26 * scale
        group.add(Color(*rgb))
        group.add(Rectangle(pos=(cx - field / 2, cy - field / 2), size=(field, field)))
        texture = _text(str(spot.index), 13 * scale, (0.1, 0.1, 0.1))
        group.add(Color(1, 1, 1))
        group.add(Rectangle(texture=texture, pos=(cx - texture.width / 2, cy - texture.height / 2),
                            size=texture.size))

    def _draw_counter_mark(self, group: InstructionGroup, layout: GoldConnectionLayout, scale: float) -> None:
        """The turn counter's field, lit."""
        for spot in layout.counter:
            if spot.index == self.state.counter:
                self._draw_counter_spot(group, spot, (1, 0.85, 0.2), scale)

    def _draw_wall(self, group: InstructionGroup, a: tuple[float, float], b: tuple[float, float], safe_size: float,
                   scale: float) -> None:
        """A thick bar across the blocked passage, halfway between the two safes."""
        (ax, ay), (bx, by) = self.to_screen(*a), self.to_screen(*b)
        mx, my = (ax + bx) / 2, (ay + by) / 2
        length = math.hypot(bx - ax, by - ay) or 1.0
        nx, ny = -(by - ay) / length, (bx - ax) / length
        half = safe_size * scale * 0.6
        group.add(Color(*WALL))
        group.add(Line(points=[mx - nx * half, my - ny * half, mx + nx * half, my + ny * half],
                       width=max(3.0, 9 * scale)))

    def _draw_safe(self, group: InstructionGroup, safe_id: str, number: int | None, x: float, y: float,
                   size: float, scale: float) -> None:
        cx, cy = self.to_screen(x, y)
        side = size * scale
        group.add(Color(*(CHOICE_SAFE if number is None else SAFE)))
        group.add(RoundedRectangle(pos=(cx - side / 2, cy - side / 2), size=(side, side), radius=[8 * scale]))
        group.add(Color(0.2, 0.2, 0.24))
        group.add(Line(rounded_rectangle=(cx - side / 2, cy - side / 2, side, side, 8 * scale),
                       width=max(1.0, 2 * scale)))
        title = str(number) if number is not None else "<>"
        texture = _text(title, 30 * scale if self.state is None else 18 * scale, (0.1, 0.1, 0.12))
        group.add(Color(1, 1, 1))
        ty = cy - texture.height / 2 if self.state is None else cy + side / 2 - texture.height - 2
        group.add(Rectangle(texture=texture, pos=(cx - side / 2 + 4 * scale if self.state is not None else
                                                  cx - texture.width / 2, ty), size=texture.size))
        if self.show_ids:
            label = _text(safe_id, 16 * scale, (0.95, 0.95, 0.6))
            group.add(Rectangle(texture=label, pos=(cx + side / 2 - label.width - 3, cy + side / 2 - label.height - 2),
                                size=label.size))

    def _draw_bars(self, group: InstructionGroup, layout: GoldConnectionLayout, scale: float) -> None:
        state = self.state
        side = layout.safe_size * scale
        self._bar_boxes = []
        selected: list[tuple[float, float, float]] = []
        for safe in layout.safes:
            cx, cy = self.to_screen(safe.x, safe.y)
            bars = state.safes.get(safe.id, ())
            columns = max(3, math.ceil(math.sqrt(len(bars))))
            lines = max(2, math.ceil(len(bars) / columns))
            bar_side = min((side - 8 * scale) / columns, (side - 26 * scale) / lines) - 2 * scale
            to_mark = Counter(bar for where, bar in self.selected_bars if where == safe.id)
            for index, bar in enumerate(bars):
                column, line = index % columns, index // columns
                bx = cx - side / 2 + 4 * scale + column * (bar_side + 2 * scale)
                by = cy + side / 2 - 24 * scale - (line + 1) * (bar_side + 2 * scale)
                self._bar_boxes.append((safe.id, bar, bx, by, bar_side))
                if to_mark[bar] > 0:
                    selected.append((bx, by, bar_side))
                to_mark[bar] -= 1
        self._draw_bar_faces(group, selected)

    def _draw_bar_faces(self, group: InstructionGroup, selected: list[tuple[float, float, float]]) -> None:
        """The bars in `_bar_boxes` as one mesh per colour, the picked ones outlined, then their numbers:
        a few draw calls for the vault's eighty-odd bars, not three each."""
        squares: dict[str, list[tuple[float, float, float, float]]] = {}
        for _safe, bar, x, y, size in self._bar_boxes:
            squares.setdefault(bar[0], []).append((x, y, size, size))
        for colour, boxes in squares.items():
            group.add(Color(*BAR_COLOURS.get(colour, (0.8, 0.8, 0.8))))
            group.add(rectangles(boxes))
        group.add(Color(1, 1, 1))
        if selected:
            group.add(rounded_frames([(x - 1, y - 1, size + 2, size + 2) for x, y, size in selected], 0, 2))
        for _safe, bar, x, y, size in self._bar_boxes:
            texture = _text(bar[1:], size * 0.7, (0.05, 0.05, 0.05))
            group.add(Rectangle(texture=texture, pos=(x + (size - texture.width) / 2, y + (size - texture.height) / 2),
                                size=texture.size))

    def _draw_robbers(self, group: InstructionGroup, layout: GoldConnectionLayout, scale: float) -> None:
        """The robber stones and arrows in the seats' colours."""
        side = layout.safe_size * scale
        for seat, robber in enumerate(self.state.robbers):
            colour = tuple(self.seat_colours[seat % len(self.seat_colours)][:3])
            if robber.stone is not None:
                sx, sy = self.to_screen(*self._safe_xy(robber.stone))
                radius = side * 0.16
                group.add(Color(*colour))
                centre = (sx + side / 2 - radius - 3, sy - side / 2 + 3 + radius)
                group.add(sprites([centre], radius))
                group.add(Color(0, 0, 0))
                group.add(sprites([centre], radius + 1.2, radius - 1.2))
            if robber.arrow is not None and robber.heading is not None:
                self._draw_arrow(group, robber.arrow, robber.heading, colour, side, seat)

    def _safe_xy(self, safe_id: str) -> tuple[float, float]:
        for safe in self.layout.safes:
            if safe.id == safe_id:
                return safe.x, safe.y
        raise KeyError(safe_id)

    def _draw_arrow(self, group: InstructionGroup, at: str, heading: str, colour: tuple[float, float, float],
                    side: float, seat: int) -> None:
        (ax, ay), (hx, hy) = self.to_screen(*self._safe_xy(at)), self.to_screen(*self._safe_xy(heading))
        length = math.hypot(hx - ax, hy - ay) or 1.0
        ux, uy = (hx - ax) / length, (hy - ay) / length
        offset = (seat - 1.5) * side * 0.1
        px, py = -uy * offset, ux * offset
        start = (ax + ux * side * 0.35 + px, ay + uy * side * 0.35 + py)
        tip = (ax + ux * side * 0.75 + px, ay + uy * side * 0.75 + py)
        group.add(Color(*colour))
        segments(group, [(*start, *tip)], max(1.5, side * 0.03))
        wing = side * 0.1
        group.add(Triangle(points=[tip[0] + ux * wing, tip[1] + uy * wing,
                                   tip[0] - uy * wing, tip[1] + ux * wing,
                                   tip[0] + uy * wing, tip[1] - ux * wing]))


def board_widget(layout: GoldConnectionLayout, show_ids: bool = False) -> VaultBoard:
    """The vault of `layout`: safes with numbers (ids on request), passages, walls and the counter track."""
    board = VaultBoard(layout=layout, show_ids=show_ids)
    board.redraw()
    return board
