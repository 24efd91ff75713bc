"""The score chart of the End and History screens: scores after every turn, drawn as steps.

A turn ends where the player to move changes (`Game.to_move` over the session's states), so the x
axis counts what the table calls turns, not every action.  A score holds until the turn that changed
it, hence steps (along, then up or down) rather than diagonals.  Axis numbers, axis titles and the
legend are Labels (18 sp), so they scale with the text size and are measured like any other text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle
from kivy.metrics import sp
from kivy.properties import ListProperty, NumericProperty, StringProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget
from kivy.utils import get_color_from_hex

from companion.app.boards.drawing import segments
from companion.app.i18n import tr

FONT = 18  # sp: the smallest text on the table's screens
NICE_STEPS = (1, 2, 5)
#: Half the thickness of the axes and ticks, and of the seats' score lines, in pixels (as Kivy's `Line`
#: width: the band reaches that far to either side).
AXIS_WIDTH = 1.2
SCORE_WIDTH = 2.0
#: Labels a chart makes ready before its first drawing (a legend of six, two titles, the numbers of both
#: axes of a long game): made with the table, they cost the game's last tap nothing.
READY_LABELS = 28


def turn_scores(movers: Sequence[int | None], scores: Sequence[Sequence[int]]) -> list[list[int]]:
    """Scores at the start of play and after every turn, from the player to move and the scores of every
    state.  Table setup (nobody to move yet) is not a turn; a turn still under way counts as the last."""
    if not scores:
        return []
    start = next((index for index, mover in enumerate(movers) if mover is not None), 0)
    rows = [list(scores[start])]
    last = start
    for index in range(start + 1, len(scores)):
        if movers[index] != movers[index - 1]:
            rows.append(list(scores[index]))
            last = index
    if last != len(scores) - 1:
        rows.append(list(scores[-1]))
    return rows


def session_turn_scores(game: Any, states: Sequence[Any]) -> list[list[int]]:
    """`turn_scores` of a session's states; seats acting in a setup phase (`Game.in_play`) take no turn."""
    return turn_scores([game.to_move(state) if game.in_play(state) else None for state in states],
                       [game.scores(state) for state in states])


def nice_step(span: float, most: int) -> int:
    """The smallest step of 1, 2, 5, 10, 20, … that puts at most `most` ticks on `span`."""
    scale = 1
    while True:
        for base in NICE_STEPS:
            if span / (base * scale) <= most:
                return base * scale
        scale *= 10


def squared(points: Sequence[float], width: float) -> list[tuple[float, float, float, float]]:
    """The straight lines of a polyline (x, y, x, y, ...), each reaching `width` past both its ends: drawn
    `width` to either side (`drawing.segments`), a line of steps then meets itself at square corners."""
    lines = []
    for index in range(0, len(points) - 2, 2):
        x1, y1, x2, y2 = points[index:index + 4]
        length = math.hypot(x2 - x1, y2 - y1)
        if length == 0:
            continue
        dx, dy = (x2 - x1) / length * width, (y2 - y1) / length * width
        lines.append((x1 - dx, y1 - dy, x2 + dx, y2 + dy))
    return lines


def step_points(values: Sequence[float], xs: Sequence[float]) -> list[float]:
    """Kivy line points for a value that holds until the next x: along, then up or down."""
    points = [xs[0], values[0]]
    for index in range(1, len(values)):
        points += [xs[index], values[index - 1], xs[index], values[index]]
    return points


class ScoreChart(Widget):
    """Score of every seat after every turn (`history`: one row of scores per turn, the first at the start),
    one line of steps per seat in its colour, axes with numbers and titles, and a legend of names."""

    history = ListProperty([])
    colours = ListProperty([])
    names = ListProperty([])
    language = StringProperty("en")
    padding = NumericProperty(6)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines: list[list[float]] = []  # the drawn points per seat (read by tests)
        self._labels: list[Label] = []
        # Loading a game sets several of these at once: one drawing, before the frame is drawn.
        redraw = Clock.create_trigger(self._redraw, -1)
        self.bind(pos=redraw, size=redraw, history=redraw, colours=redraw, names=redraw, language=redraw)

    def make_ready(self, count: int = READY_LABELS) -> None:
        """Make the labels a drawing will need beforehand, where no tap waits for them: a label is a widget
        with its rules to apply, some 0.3 ms each, and the End screen's first drawing needs two dozen."""
        while len(self._labels) < count:
            label = Label(font_size=f"{FONT}sp", size_hint=(None, None), size=(0, 0))
            self._labels.append(label)
            self.add_widget(label)

    def _label(self, index: int, text: str, colour: str = "#cfd8d3", bold: bool = False) -> Label:
        """The index-th text of this drawing (labels are reused from one drawing to the next)."""
        self.make_ready(index + 1)
        label = self._labels[index]
        label.text, label.bold, label.color = text, bold, get_color_from_hex(colour)
        label.texture_update()
        label.size = label.texture_size
        return label

    def _colour(self, seat: int) -> str:
        return self.colours[seat] if seat < len(self.colours) else "#cccccc"

    def _redraw(self, *_args: Any) -> None:
        self.canvas.before.clear()
        self.lines = []
        history = self.history
        used = 0
        if history and history[0] and self.width > 0 and self.height > 0:
            used = self._draw(history)
        for label in self._labels[used:]:
            label.text, label.size = "", (0, 0)

    def _draw(self, history: list[list[int]]) -> int:
        """Legend on top, the y axis numbers on the left, turn numbers below; returns the labels used."""
        pad, gap = self.padding, sp(8)
        used = 0
        # Legend: a swatch and the name per seat, in as many rows as the width needs.
        entries = []
        for seat in range(len(history[0])):
            name = self.names[seat] if seat < len(self.names) else str(seat + 1)
            entries.append((seat, self._label(used, name, self._colour(seat), bold=True)))
            used += 1
        swatch = sp(14)
        rows: list[list[tuple[int, Label]]] = [[]]
        row_width = 0.0
        for seat, label in entries:
            width = swatch + sp(4) + label.width + sp(14)
            if rows[-1] and row_width + width > self.width - 2 * pad:
                rows.append([])
                row_width = 0.0
            rows[-1].append((seat, label))
            row_width += width
        line_height = max(label.height for _seat, label in entries)
        top = self.top - pad
        swatches = []
        for row in rows:
            x = self.x + pad
            top -= line_height
            for seat, label in row:
                swatches.append((seat, x, top + (line_height - swatch) / 2))
                label.pos = (x + swatch + sp(4), top)
                x += swatch + sp(4) + label.width + sp(14)
        # Axis titles and numbers.
        score_title = self._label(used, tr("Score", self.language))
        turn_title = self._label(used + 1, tr("Turn", self.language))
        used += 2
        top_score = max(max(row) for row in history)
        low_score = min(0, *(min(row) for row in history))
        turns = len(history) - 1
        number_height = score_title.height
        bottom = self.y + pad + number_height + turn_title.height
        plot_top = top - gap - score_title.height - number_height / 2
        plot_height = max(plot_top - bottom, 1)
        y_step = nice_step(max(top_score - low_score, 1), max(int(plot_height // (number_height * 1.6)), 1))
        y_ticks = list(range(low_score - low_score % y_step, top_score + y_step, y_step))
        if y_ticks[-1] < top_score:
            y_ticks.append(y_ticks[-1] + y_step)
        y_low, y_high = y_ticks[0], max(y_ticks[-1], y_ticks[0] + 1)
        number_labels = []
        for value in y_ticks:
            number_labels.append((value, self._label(used, str(value))))
            used += 1
        left = self.x + pad + max(label.width for _value, label in number_labels) + gap
        right = self.right - pad - sp(10)
        plot_width = max(right - left, 1)

        def y_of(value: float) -> float:
            return bottom + plot_height * (value - y_low) / (y_high - y_low)

        def x_of(turn: float) -> float:
            return left + plot_width * turn / max(turns, 1)

        score_title.pos = (self.x + pad, plot_top + number_height / 2)
        for value, label in number_labels:
            label.pos = (left - gap - label.width, y_of(value) - label.height / 2)
        widest_turn = self._label(used, str(turns)).width
        x_step = nice_step(max(turns, 1), max(int(plot_width // (widest_turn + sp(16))), 1))
        x_ticks = list(range(0, turns + 1, x_step))
        for turn in x_ticks:
            label = self._label(used, str(turn))
            used += 1
            label.pos = (x_of(turn) - label.width / 2, bottom - gap / 2 - label.height)
        turn_title.pos = (left + plot_width / 2 - turn_title.width / 2, self.y + pad)
        before = self.canvas.before
        before.add(Color(1, 1, 1, 0.06))
        before.add(Rectangle(pos=(left, bottom), size=(plot_width, plot_height)))
        before.add(Color(1, 1, 1, 0.14))
        for value in y_ticks[1:]:
            before.add(Line(points=[left, y_of(value), left + plot_width, y_of(value)], width=1))
        # Axes and ticks are one translucent mesh whose bands meet without overlapping (an overlap would
        # show brighter): a translucent wide Line each was drawn through the stencil, 8 ms a frame.
        before.add(Color(1, 1, 1, 0.7))
        axis = AXIS_WIDTH
        ticks = [(left - axis, bottom, left + plot_width, bottom), (left, bottom + axis, left, bottom + plot_height)]
        ticks += [(x_of(turn), bottom - axis, x_of(turn), bottom - sp(5)) for turn in x_ticks]
        ticks += [(left - sp(5), y_of(value), left - axis, y_of(value)) for value in y_ticks]
        segments(before, ticks, axis, caps=False)
        seats = len(history[0])
        xs = [x_of(turn) for turn in range(turns + 1)]
        for seat in range(seats):
            # Seats with equal scores would hide each other: each line is shifted by a few pixels.
            shift = (seat - (seats - 1) / 2) * sp(2.5)
            points = step_points([y_of(row[seat]) + shift for row in history], xs)
            self.lines.append(points)
            before.add(Color(*get_color_from_hex(self._colour(seat))))
            segments(before, squared(points, SCORE_WIDTH), SCORE_WIDTH, caps=False)
        for seat, x, y in swatches:
            before.add(Color(*get_color_from_hex(self._colour(seat))))
            before.add(Rectangle(pos=(x, y), size=(swatch, swatch)))
        return used
