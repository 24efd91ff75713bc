"""Small widgets shared by the screens: the grid of choice buttons and the table screens' two size rules
(docs/design.md), the scroll view every screen uses and its clipping.  The score chart is in
companion.app.chart."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

from kivy.app import App
from kivy.graphics import Callback
from kivy.graphics.opengl import GL_FRAMEBUFFER_BINDING, GL_SCISSOR_TEST, glDisable, glEnable, glGetIntegerv, glScissor
from kivy.properties import ListProperty, NumericProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.gridlayout import GridLayout
from kivy.uix.screenmanager import NoTransition, ScreenManager
from kivy.uix.scrollview import ScrollView
from kivy.uix.togglebutton import ToggleButton
from kivy.uix.widget import Widget

#: Smallest side of anything tapped on a table screen (48 px is about 9 mm on the 7" 800x480 display).
MIN_TAP_PX = 48
#: Smallest font size of game information on a table screen, readable from a chair at the table.
MIN_TEXT_SP = 18
#: A button's text may shrink to this share of its font size so that its longest word fits on one line.
SMALLEST_FIT = 0.6
#: Joins words a label must not wrap apart: Kivy breaks lines only at ordinary spaces.
NO_BREAK = "\u00a0"
#: Room a button keeps on each side of its text, in pixels (its `text_size` is 8 px narrower than it).
BUTTON_TEXT_MARGIN = 4
#: Behind every screen.  It is the window's clear colour, not a rectangle on each screen: a full-window
#: rectangle is blended anew in every frame, a quarter of an unchanged table frame on a software renderer.
BACKGROUND_RGBA = (0x1D / 255, 0x26 / 255, 0x21 / 255, 1.0)


#: The shared widget rules and `#:import`s every other kv file builds on (kv imports are global to
#: the Builder, so a file loaded before this one would not find `tr` or `get_color_from_hex`).
WIDGETS_KV = Path(__file__).resolve().with_name("widgets.kv")


def load_kv(path: Path) -> None:
    """Load a kv file's rules once per process, after the shared widgets.kv: loaded again (a second app in
    one process, as a test run makes one per test package) every rule would apply twice, and each screen
    would hold two of each widget."""
    from kivy.lang import Builder

    for kv_file in (WIDGETS_KV, path):
        if str(kv_file) not in Builder.files:
            Builder.load_file(str(kv_file))


def make(class_name: str, **properties: Any) -> Widget:
    """A widget of a kv dynamic class with its kv-declared properties set (they cannot go to __init__)."""
    from kivy.factory import Factory

    return fill(getattr(Factory, class_name)(), **properties)


def fill(widget: Widget, **properties: Any) -> Widget:
    """`widget` with these properties set: a new one (`make`) or one kept for reuse (`resize`)."""
    for name, value in properties.items():
        setattr(widget, name, value)
    return widget


def resize(box: Any, count: int, new_widget: Callable[[], Any]) -> list[Any]:
    """Keep `count` widgets in `box`, reusing those it holds (in display order), adding or dropping at
    the end: widgets recreated on every change cost time in the tap and leave the heap scattered (the
    Players screen grew by 28 MB in 20 taps while it rebuilt its rows).  Dropped widgets are kept aside
    for the box and come back first (Digger's five dice go 0 -> 5 every roll)."""
    spare: list[Any] | None = getattr(box, "resize_spare", None)
    if spare is None:
        spare = box.resize_spare = []
    widgets = list(reversed(box.children))
    for widget in widgets[count:]:
        box.remove_widget(widget)
        spare.append(widget)
    while len(widgets) < count:
        widgets.append(spare.pop() if spare else new_widget())
        box.add_widget(widgets[-1])
    return widgets[:count]


class ChoiceGrid(GridLayout):
    """Choice or dice buttons of a table panel in rows of `MIN_TAP_PX`, whatever height a panel gives a
    button, so no game can make a tap target too small (rule in widgets.kv).  A grid whose rows are not
    forced (`row_force_default: False`) keeps its buttons' own heights, which must then be at least
    `MIN_TAP_PX` (a button that grows to fit a long text)."""

    def add_widget(self, widget: Widget, *args: Any, **kwargs: Any) -> None:
        if self.row_force_default:
            widget.size_hint_y = 1  # take the forced row height
        super().add_widget(widget, *args, **kwargs)


#: The scissor of each clip being drawn, innermost last; None where a clip draws unclipped (see `Clipping`).
_SCISSORS: list[tuple[int, int, int, int] | None] = []
#: While a picture of a widget is drawn (`picture_of`): where that widget is in the window, and its height.
_PICTURES: list[tuple[float, float, float]] = []


@contextmanager
def picture_of(widget: Widget) -> Iterator[None]:
    """Clips drawn inside `with picture_of(widget):` fit a picture of `widget` made by Kivy's
    `export_as_image`: its own framebuffer, the widget at its origin and turned upside down."""
    x, y = widget.to_window(widget.x, widget.y)
    _PICTURES.append((x, y, widget.height))
    try:
        yield
    finally:
        _PICTURES.pop()


def png_of(widget: Widget) -> bytes:
    """A PNG picture of `widget` as it is drawn now, its clips in place (`picture_of`); b"" when Kivy could
    not make one (it only logs then)."""
    png = io.BytesIO()
    with picture_of(widget):
        widget.export_as_image().save(png, flipped=False, fmt="png")
    return png.getvalue()


class Clipping(Widget):
    """A widget whose children draw only inside its own rectangle, clipped by the GL scissor (the loupe's
    lens; `Scroll` clips so too): `clip_on` is called before the children draw and `clip_off` after.

    Kivy's StencilView clears the stencil buffer of the whole window for each view in every frame; on a
    software renderer that is 0.4-0.7 ms a view, and a Gold Connection table shows three (the loupe a
    fourth), while a scissor costs next to nothing.  A scissor is in the framebuffer's pixels, not in the
    widget's coordinates, so it is worked out as it is drawn: in the window from `to_window`, in a picture
    from where the pictured widget is (`picture_of`); drawn into any other framebuffer it does not clip.

    The two calls are set up here rather than in a kv rule, so that a subclass whose rule drops its bases'
    rules (`<-Scroll>`, to be rid of StencilView's) keeps them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.canvas.before.insert(0, Callback(self.clip_on))
        self.canvas.after.insert(0, Callback(self.clip_off))

    def clip_on(self, *_args: Any) -> None:
        outer = _SCISSORS[-1] if _SCISSORS else None
        scissor = self._scissor()
        if scissor is not None and outer is not None:
            left, bottom = max(scissor[0], outer[0]), max(scissor[1], outer[1])
            right = min(scissor[0] + scissor[2], outer[0] + outer[2])
            top = min(scissor[1] + scissor[3], outer[1] + outer[3])
            scissor = (left, bottom, max(0, right - left), max(0, top - bottom))
        _SCISSORS.append(scissor if scissor is not None else outer)
        if scissor is not None:
            glEnable(GL_SCISSOR_TEST)
            glScissor(*scissor)

    def clip_off(self, *_args: Any) -> None:
        _SCISSORS.pop()
        outer = _SCISSORS[-1] if _SCISSORS else None
        if outer is None:
            glDisable(GL_SCISSOR_TEST)
        else:
            glScissor(*outer)

    def _scissor(self) -> tuple[int, int, int, int] | None:
        x, y = self.to_window(self.x, self.y)
        if _PICTURES:
            picture_x, picture_y, picture_height = _PICTURES[-1]
            x, y = x - picture_x, picture_height - (y - picture_y) - self.height
        elif glGetIntegerv(GL_FRAMEBUFFER_BINDING)[0] != 0:  # not the window's
            return None
        return round(x), round(y), max(0, round(self.width)), max(0, round(self.height))


class Screens(ScreenManager):
    """The app's screens, switched without a transition.  Kivy's screen manager clips its screens with the
    stencil (its rule clears the window's stencil buffer and draws the whole window into it twice, every
    frame, and every pixel drawn is then tested against it); this one fills the window and shows one
    screen at a time, with nothing to clip, so its rule has no stencil (widgets.kv)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(transition=NoTransition(), **kwargs)


class Scroll(Clipping, ScrollView):
    """A scroll view clipped by the scissor (`Clipping`; its kv rule replaces Kivy's stencil and draws the
    bar), whose bar keeps its colour.  Kivy's fades the bar half a second after every change
    of its content (a new log line, a relaid list), animating for another half second; each step redraws
    the whole window, which on a software renderer is about 30 frames of CPU after every tap, taken from
    the Chinagold bot's search.  A bar that stays also shows the table there is more to scroll to."""

    def _bind_inactive_bar_color(self, *_args: Any) -> None:
        """Kivy's hook for the fade (kivy/uix/scrollview.py): nothing to do, the bar stays as it is."""


class LogLines(BoxLayout):
    """The last `shown` of `lines` (the table's log), one label per line, the newest at the bottom and the
    lines kept to the bottom while they fill less than the box (look in widgets.kv).

    One label of thirty joined lines was wrapped and rendered whole again for every new line: 2-5 ms of a
    move's tap on a software renderer, most of the text work of a tap.  Here a line's label is rendered
    when the line comes and kept while it is shown (matched by position, see `show`); a new line reuses
    the label of the line that scrolled out, an undo drops the last, and only a language switch renders
    every line again."""

    lines = ListProperty([])
    shown = NumericProperty(30)

    def __init__(self, **kwargs: Any) -> None:
        self._labels: list[Any] = []  # in display order, under the spacer
        self._spare: list[Any] = []
        super().__init__(orientation="vertical", **kwargs)
        self.add_widget(Widget())  # takes the height the lines leave: they sit at the bottom

    def on_lines(self, *_args: Any) -> None:
        self.show(list(self.lines[-int(self.shown):]))

    def show(self, wanted: list[str]) -> None:
        """Show `wanted`, keeping the labels of the lines still shown (their textures are not made again).
        The lines kept are the longest run that moved up (new lines came below) or down (an undo brought
        back the line above); matched by position, so a line said twice keeps its place."""
        current = [label.text for label in self._labels]
        labels, count = self._labels, len(current)
        kept, above, below = [], list(wanted), []  # nothing in common: every line anew
        for overlap in range(min(count, len(wanted)), 0, -1):
            if current[count - overlap:] == wanted[:overlap]:
                kept, above, below = labels[count - overlap:], [], wanted[overlap:]
                break
            if current[:overlap] == wanted[len(wanted) - overlap:]:
                kept, above, below = labels[:overlap], wanted[:len(wanted) - overlap], []
                break
        for label in labels:
            if label not in kept:
                self._drop(label)
        lines = [*(self._line(text) for text in above), *kept, *(self._line(text) for text in below)]
        for position, line in enumerate(lines):
            if line.parent is None:
                self.add_widget(line, index=len(self.children) - 1 - position)  # under the spacer
        self._labels = lines

    def _line(self, text: str) -> Any:
        """A label for a new line: one that scrolled out, or a new one."""
        line: Any = self._spare.pop() if self._spare else make("LogLine")
        line.width = self.width  # as the layout will make it: the text is wrapped once, not twice
        line.text = text
        return line

    def _drop(self, label: Any) -> None:
        self.remove_widget(label)
        self._spare.append(label)


@lru_cache(maxsize=4096)
def word_width(word: str, font_name: str, font_px: float, bold: bool) -> int:
    """How wide one word is drawn, in pixels (cached: the same words come back every turn)."""
    from kivy.core.text import Label as CoreLabel

    return int(CoreLabel(font_name=font_name, font_size=font_px, bold=bold).get_extents(word)[0])


class WholeWords:
    """A button whose words are never broken: when its longest word is wider than the button (a German
    word on a narrow button, any button in portrait), the text gets smaller until the word fits, down to
    `SMALLEST_FIT` of the font size the screen asked for.  Kivy itself would cut the word in two
    ("Einstell" / "ungen").  The size the screen sets is kept as `wanted_font_size`."""

    text: str
    width: float
    font_size: float
    font_name: str
    bold: bool

    def __init__(self, **kwargs: Any) -> None:
        self._fitting = False
        self.wanted_font_size = 0.0
        super().__init__(**kwargs)

    def on_font_size(self, _widget: Any, size: float) -> None:
        if not self._fitting:
            self.wanted_font_size = size
            self.fit_words()

    def on_text(self, *_args: Any) -> None:
        self.fit_words()

    def on_width(self, *_args: Any) -> None:
        self.fit_words()

    def fit_words(self) -> None:
        wanted, room = self.wanted_font_size, self.width - 2 * BUTTON_TEXT_MARGIN
        if not wanted or room <= 0:
            return
        longest = max(self.text.split(), key=len, default="")
        size = wanted
        # only a word that could be too wide is measured (a Roboto letter is under 0.7 em wide)
        if len(longest) * wanted * 0.7 > room:
            width = word_width(longest, self.font_name, wanted, self.bold)
            if width > room:
                size = max(wanted * SMALLEST_FIT, wanted * room / width)
        if size != self.font_size:
            self._fitting = True
            try:
                self.font_size = size
            finally:
                self._fitting = False


class GButton(WholeWords, Button):
    """The app's button (look in widgets.kv).

    A button greys out from the state the table shows, and while a move is being saved that is still the
    state before it: on a slow SD card *Stop!* stays grey for a moment after the roll that offers it.  A tap
    on a visible grey button meanwhile is not dropped: it waits its turn behind the move (as keys and
    hardware buttons do) and counts if the button is offered once the move is on the table, still saying
    what it said (panels reuse their buttons for other choices when the state changes)."""

    def on_touch_down(self, touch: Any) -> bool:
        if self.disabled and self.opacity and self.collide_point(*touch.pos):
            writer = getattr(App.get_running_app(), "writer", None)
            if writer is not None and writer.busy:
                writer.in_turn(partial(self._held_tap, self.text))
                return True
        return bool(super().on_touch_down(touch))

    def _held_tap(self, text: str) -> None:
        """The tap made while the move before was being saved, now that the table shows that move."""
        if not self.disabled and self.opacity and self.text == text and self.get_root_window() is not None:
            self.dispatch("on_press")
            self.dispatch("on_release")


class GToggle(WholeWords, ToggleButton):
    """The app's toggle button (look in widgets.kv)."""
