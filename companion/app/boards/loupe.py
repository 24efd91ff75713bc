"""The loupe: a magnified part of a board whose cells are closer together than a finger (docs/design.md
"Boards").

At 800x480 the hex boards are whole but their cells are 18-35 px apart, under the 48 px a finger needs.
A touch that clearly means one allowed cell chooses it at once; any other touch on the board opens the
loupe beside the board (over the side column, the whole board stays in view): the neighbourhood of the
touch drawn by a second board widget of the same class with cells `LOUPE_SPACING` px apart, whose cells
are tapped like the board's.  Its close button or a tap outside closes it, and so does a change of the
game state (a move, an undo, a hardware roll): it never shows a stale board.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any

from kivy.core.window import Window, WindowBase
from kivy.factory import Factory
from kivy.graphics import Color, InstructionGroup, Line, Rectangle
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.floatlayout import FloatLayout
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from companion.app.boards.drawing import MAX_BORROWED_ZOOM, MAX_PRINT_DETAIL, Magnifiable
from companion.app.i18n import _
from companion.app.widgets import MIN_TAP_PX, MIN_TEXT_SP, Clipping

#: Distance between neighbouring cells in the loupe: a finger's width with a margin.
LOUPE_SPACING = round(MIN_TAP_PX * 1.25)
#: Least width beside the board for the loupe; with less it covers the half of the board away from the touch.
MIN_SIDE = 4 * LOUPE_SPACING
GAP = 6
HEADER_HEIGHT = MIN_TAP_PX + 4
FRAME = (0.93, 0.86, 0.70)
BACKDROP = (0.12, 0.10, 0.08)
REGION = (1.0, 1.0, 1.0)


def direct_choice(point: tuple[float, float], centres: Iterable[tuple[Hashable, tuple[float, float]]],
                  reach: float = MIN_TAP_PX) -> Hashable | None:
    """The allowed cell a touch at `point` clearly means: the only one within `reach` / 2 of the finger,
    with no other allowed cell within `reach`; None when the touch is ambiguous or near none."""
    near = [(math.dist(point, centre), cell) for cell, centre in centres if math.dist(point, centre) < reach]
    if len(near) == 1 and near[0][0] <= reach / 2:
        return near[0][1]
    return None


class BoardLoupe:
    """Decides what a touch on `board` chooses, and opens the loupe when it is not clear.

    `choose(cell)` is what a board tap does (the controller's call, refusals included); `choosable()`
    the cells the next tap may choose (highlighted); `state()` the game state, whose change closes the
    loupe; `stays_open()` says after a tap in the loupe whether a choice is half made (Chinagold's first
    site of a line), so the loupe stays to show the line's possible ends; a notice on the `table` (the
    TableModel) closes it, as the notice asks for an answer and the loupe's choice may no longer hold.
    """

    def __init__(self, board: Any, choose: Callable[[Any], object], choosable: Callable[[], set[Any]],
                 state: Callable[[], object], stays_open: Callable[[], bool] = lambda: False,
                 table: Any = None) -> None:
        self.board = board
        self.choose = choose
        self.choosable = choosable
        self.state = state
        self.stays_open = stays_open
        self.magnified: LoupeView | None = None  # the loupe while it is open
        self._view: LoupeView | None = None  # made at the first opening, kept for the next
        self._opened_on: object = None
        board.loupe = self
        board.bind(on_touch_down=self._touched)
        board.bind(**dict.fromkeys(board.view_properties, self._view_changed))
        if table is not None:
            table.bind(notice_text=self._notice)

    @property
    def needed(self) -> bool:
        """The board's cells are too close together for a finger."""
        return bool(self.board.cell_spacing < MIN_TAP_PX)

    def print_detail(self) -> float:
        """Texture pixels per pixel for the board's baked print: enough that the loupe's copy can show
        it magnified (`Magnifiable.borrow_print`, at most `MAX_BORROWED_ZOOM` times a texture pixel) instead
        of drawing a print of its own, a few hundred triangles over the lens in every frame it is open
        (Goldgräber's: 3.5 ms a frame, 12 ms the frame it opened); at most `MAX_PRINT_DETAIL`.  A whole
        number: a print baked at twice the pixels and shown at half is sampled where four texture pixels
        meet, an even average of them, so its one-pixel seams between hexes stay (at 1.7 times they did not)."""
        spacing: float = self.board.cell_spacing
        if not self.needed or spacing <= 0:  # big cells, or not laid out yet
            return 1.0
        return float(min(MAX_PRINT_DETAIL, max(1, math.ceil(LOUPE_SPACING / (MAX_BORROWED_ZOOM * spacing)))))

    # -- touches on the board ----------------------------------------------------------------------
    def _touched(self, board: Any, touch: Any) -> bool:
        if not board.collide_point(*touch.pos) or board.own_event(*touch.pos) is not None:
            return False  # the board's own handler
        cell = board.cell_at(*touch.pos)
        allowed = self.choosable()
        if not self.needed or not allowed:  # big cells, or nothing to choose: the cell under the finger
            if cell is not None:
                self.choose(cell)
            return True
        direct = direct_choice(touch.pos, ((site, board.centre_of(site)) for site in allowed))
        if direct is not None:
            self.choose(direct)
        elif cell is not None:
            self.open(touch.pos)
        return True

    # -- the loupe ---------------------------------------------------------------------------------
    def open(self, pos: tuple[float, float]) -> LoupeView:
        """The loupe around `pos` (in the board's coordinates), laid over the board's screen (so a
        screenshot or a walk of the screen's widgets includes it), or over the window without one."""
        self.close()
        board = self.board
        host: Widget | WindowBase = next((widget for widget in self._ancestors() if isinstance(widget, Screen)), Window)
        if self._view is None:
            self._view = LoupeView(self)
        self._view.show(host, self._frame(board.to_window(*pos)[0]), board.board_point(*pos), board.to_window(*pos))
        self.magnified = self._view
        self._opened_on = self.state()
        host.add_widget(self.magnified)
        return self.magnified

    def close(self, *_args: Any) -> None:
        if self.magnified is not None:
            if self.magnified.parent is not None:
                self.magnified.parent.remove_widget(self.magnified)
            self.magnified.release()
            self.magnified = None

    def _ancestors(self) -> Iterator[Widget]:
        widget = self.board.parent
        while widget is not None and widget is not widget.parent:
            yield widget
            widget = widget.parent

    def chose(self, cell: Any, event: tuple[str, tuple[Any, ...]] | None = None) -> None:
        """A tap in the loupe on `cell` (or on what the board's `event` is about): as on the board; the
        loupe closes unless a choice is half made."""
        if event is not None:
            self.board.dispatch(event[0], *event[1])
        else:
            self.choose(cell)
        if not self.stays_open():
            self.close()

    def _notice(self, _table: Any, text: str) -> None:
        if text:
            self.close()

    def _view_changed(self, board: Any, _value: Any) -> None:
        """The board shows something new: the loupe follows, or closes if the game state changed."""
        if self.magnified is None:
            return
        if self.state() is not self._opened_on:
            self.close()
        else:
            for name in board.view_properties:
                setattr(self.magnified.board, name, getattr(board, name))

    def _frame(self, touch_x: float) -> tuple[float, float, float, float]:
        """Where the loupe goes in the window: beside the board on its roomier side, else over the half
        of the board away from the finger."""
        board = self.board
        left, bottom = board.to_window(board.x, board.y)
        right_room = Window.width - (left + board.width) - 2 * GAP
        left_room = left - 2 * GAP
        if max(right_room, left_room) >= MIN_SIDE:  # as high as the board, and at least MIN_SIDE
            x = left + board.width + GAP if right_room >= left_room else GAP
            height = min(max(board.height, MIN_SIDE), Window.height)
            y = max(0.0, min(bottom, bottom + board.height - height))
            return x, y, max(right_room, left_room), height
        half = board.width / 2
        x = left if touch_x > left + half else left + half
        return x, bottom, half, board.height


def looked_after_board(screen: Widget) -> Any:
    """The board on `screen` that has a loupe (the board of a game's table), None without one."""
    return next((widget for widget in screen.walk() if isinstance(widget, Magnifiable) and widget.loupe), None)


def show_loupe(screen: Widget) -> None:
    """`goldtable screenshot loupe`: the loupe of the screen's board opened on the cell nearest the middle
    of those the next tap may choose (on the board's middle if none); nothing without such a board."""
    board = looked_after_board(screen)
    if board is not None:
        centres = [board.centre_of(cell) for cell in board.loupe.choosable()]
        middle = (sum(x for x, _y in centres) / len(centres), sum(y for _x, y in centres) / len(centres)) \
            if centres else board.center
        board.loupe.open(min(centres, key=lambda centre: math.dist(centre, middle), default=board.center))


class LoupeView(FloatLayout):
    """The loupe on the window: a prompt and a close button over a magnified copy of the board, and an
    outline on the board around the part shown.  Every touch is its own (it is modal): a tap on a cell
    chooses it, one outside closes the loupe.

    The frame, prompt and button are made once per board and kept; the magnified copy is made on opening
    (`show`) and freed on closing (`release`), so a closed loupe holds nothing of the board's drawing, and
    an opening builds one widget, not six with their bindings (garbage the collector walks later, in a
    pause inside some other tap)."""

    def __init__(self, loupe: BoardLoupe) -> None:
        super().__init__(size_hint=(None, None), pos=(0, 0))
        self.loupe = loupe
        self.board: Any = None
        self._region = InstructionGroup()
        with self.canvas.before:  # the lens is covered by the copy: only its frame and the header's ground
            Color(*REGION)
            self.canvas.before.add(self._region)
            Color(*FRAME)
            self._frame = Line(width=1.5)
            Color(*BACKDROP)
            self._backdrop = Rectangle()
        self.lens = Clipping(size_hint=(None, None))
        self.add_widget(self.lens)
        self.header = BoxLayout(size_hint=(None, None), padding=(6, 2, 2, 2), spacing=4)
        # Two lines where one is too narrow (German beside Chinagold's loupe), never a word cut short
        self.prompt = Factory.Label(font_size=f"{MIN_TEXT_SP}sp", color=FRAME, halign="left", valign="middle",
                                    line_height=0.95)
        self.header.add_widget(self.prompt)
        self.close_button = Factory.GButton(size_hint_x=None, width=110)
        self.close_button.bind(on_release=loupe.close)
        self.header.add_widget(self.close_button)
        self.add_widget(self.header)

    def show(self, host: Widget | WindowBase, frame: tuple[float, float, float, float], centre: tuple[float, float],
             touch: tuple[float, float]) -> None:
        """Lay the loupe out over `host` (what it is added to) with a new magnified copy centred on `centre`
        (board units); `frame` (x, y, width, height) and `touch` in window coordinates."""
        self.release()
        self.size = host.size
        x, y, width, height = frame
        shown = (width, height - HEADER_HEIGHT)
        board = self.loupe.board
        scale = board.cell_spacing / LOUPE_SPACING
        left, bottom = board.to_window(board.x, board.y)  # the part shown, outlined on the board
        region = (max(left, touch[0] - shown[0] * scale / 2), max(bottom, touch[1] - shown[1] * scale / 2),
                  min(left + board.width, touch[0] + shown[0] * scale / 2),
                  min(bottom + board.height, touch[1] + shown[1] * scale / 2))
        if host is not Window:  # a screen: a relative layout, its children in its own coordinates
            x, y = host.to_widget(x, y, relative=True)
            region = (*host.to_widget(*region[:2], relative=True), *host.to_widget(*region[2:], relative=True))
        self._region.clear()  # a new line: one given its rectangle later is drawn a shade brighter
        self._region.add(Line(rectangle=(region[0], region[1], region[2] - region[0], region[3] - region[1]),
                              width=1.5))
        self._frame.rectangle = (x - 1.5, y - 1.5, width + 3, height + 3)  # a 3-pixel border round it
        self._backdrop.pos, self._backdrop.size = (x, y + shown[1]), (width, HEADER_HEIGHT)
        self.lens.pos, self.lens.size = (x, y), shown
        self.board = board.magnified_copy(zoom_spacing=LOUPE_SPACING, zoom_centre=list(centre), printed_from=board,
                                          size_hint=(None, None), pos=(x, y), size=shown)
        self.lens.add_widget(self.board)
        self.header.pos, self.header.size = (x, y + shown[1]), (width, HEADER_HEIGHT)
        self.prompt.text = _("Tap the place you mean.")  # in the language of the moment
        self.prompt.text_size = (width - 130, HEADER_HEIGHT - 4)
        self.close_button.text = _("Close")

    def release(self) -> None:
        """The magnified copy dropped (the loupe is closing, or shows another part)."""
        if self.board is not None:
            self.lens.remove_widget(self.board)
            self.board = None

    def shows(self, cell: Any) -> bool:
        """The whole of `cell`'s tap target lies in the magnified part."""
        centre: tuple[float, float] = self.board.centre_of(cell)
        x, y = centre
        half = LOUPE_SPACING / 2
        lens = self.lens
        return lens.x + half <= x <= lens.right - half and lens.y + half <= y <= lens.top - half

    def on_touch_down(self, touch: Any) -> bool:
        if self.header.collide_point(*touch.pos):
            super().on_touch_down(touch)
        elif self.lens.collide_point(*touch.pos):
            event = self.board.own_event(*touch.pos)
            cell = self.board.cell_at(*touch.pos)
            if event is not None or cell is not None:
                self.loupe.chose(cell, event)
        else:
            self.loupe.close()
        return True

    def on_touch_move(self, touch: Any) -> bool:
        super().on_touch_move(touch)
        return True

    def on_touch_up(self, touch: Any) -> bool:
        super().on_touch_up(touch)
        return True
