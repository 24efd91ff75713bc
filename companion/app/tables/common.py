"""Building blocks for table panels: their shared life cycle, the touch dice keypad (from Prompt.dice) and
reusable buttons."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kivy.factory import Factory
from kivy.properties import BooleanProperty, DictProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

from companion.app.i18n import _, current_language
from companion.app.widgets import load_kv, resize
from companion.engine.core import N_

if TYPE_CHECKING:
    from companion.app.boards.loupe import BoardLoupe
    from companion.app.controllers import TableController

load_kv(Path(__file__).resolve().with_suffix(".kv"))


class DiceKeypad(BoxLayout):
    """One button per face of the next die; the roll is submitted when the last die is entered.

    Buttons show the face token, which is also its keyboard key; `face_colours` maps a token to a
    button colour (Digger's colour dice); pips use the default.  Taps go to the game's controller; what
    is shown comes from its TableModel (`table`).
    """

    controller = ObjectProperty(None)
    table = ObjectProperty(None)
    face_colours = DictProperty({})
    #: How a face token is written on its button in the current language (Digger: `Bl` for B in German);
    #: None shows the token itself.
    face_text = ObjectProperty(None, allownone=True)
    #: Only the row of face buttons; the entry so far, Clear and "Roll for me" are the panel's own.
    compact = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("table", kwargs["controller"].table)
        super().__init__(**kwargs)
        self.bind(table=self._watch)
        self._faces: tuple[str, ...] = ()
        self._watch()

    def _watch(self, *_args: Any) -> None:
        if self.table is not None:
            self.table.bind(dice=self._rebuild, entered=self._rebuild, partial=self._rebuild,
                            revision=self._relabel)
            self._rebuild()

    def _rebuild(self, *_args: Any) -> None:
        dice = self.table.dice
        faces = tuple(dice[min(self.table.next_die(), len(dice) - 1)]) if dice else ()
        if faces == self._faces:
            return
        self._faces = faces
        from kivy.utils import get_color_from_hex

        for button, face in zip(resize(self.ids.faces, len(faces), partial(die_face_button, self.controller)), faces):
            button.face, button.text = face, self.face_word(face)
            colour = self.face_colours.get(face)
            if colour:
                button.background_color = get_color_from_hex(colour)
                button.color = (0, 0, 0, 1) if face in ("Y", "W") else (1, 1, 1, 1)
            else:
                button.background_color, button.color = button.plain_colours

    def face_word(self, face: str) -> str:
        return self.face_text(face) if self.face_text is not None else face

    def _relabel(self, *_args: Any) -> None:
        """After a language switch (the table's revision changes): the face buttons in the new words."""
        for button, face in zip(reversed(self.ids.faces.children), self._faces, strict=False):
            button.text = self.face_word(face)

    def entry_text(self, entered: list[str], partial: list[str], dice: list[list[str]], language: str,
                   reasons: Sequence[str] = ()) -> str:
        return entry_line(entered, partial, dice, language, reasons, self.face_word)


class LanguageWatch:
    """Redraws a panel after a language switch.  The app signals a switch only by recomputing the table
    (`TableModel.relabel`: a new `revision`); every action changes the revision too, but then the
    controller's listeners redraw the panel already, so `redraw` runs only when the language differs
    from the one the last revision was seen in."""

    def __init__(self, table: Any, redraw: Callable[[], Any]) -> None:
        self.table, self.redraw = table, redraw
        self.language = current_language()
        table.bind(revision=self._revised)

    def _revised(self, *_args: Any) -> None:
        if current_language() != self.language:
            self.language = current_language()
            self.redraw()

    def detach(self) -> None:
        self.table.unbind(revision=self._revised)


class TablePanel(BoxLayout):
    """What every game's table panel does the same way, written once: it is drawn anew (`refresh`) after
    each action its controller reports and after a language switch, follows whatever else it `watch`es,
    and `detach` (another game takes the table) stops all of that and closes its loupe.

    A panel sets up its widgets in `__init__` after this one ran, then calls `start` for the first drawing.
    Taps go to `controller`; what is shown comes from `table` (its TableModel), so a panel only draws.
    """

    controller = ObjectProperty(None)
    table = ObjectProperty(None)
    #: Button texts in the current language (set in Python so a panel needs no running App).
    labels = DictProperty({})
    #: The line a board game shows over its dice buttons (`_write_entry`).
    entry_text = StringProperty("")

    def __init__(self, controller: TableController, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.controller = controller
        self.table = controller.table
        self.loupe: BoardLoupe | None = None
        self._watched: list[tuple[Any, dict[str, Callable[..., Any]]]] = []
        self._language: LanguageWatch | None = None

    def _write_entry(self, *_args: Any) -> None:
        """`entry_text`: the dice tapped so far, or left to tap after a roll a device read only in part
        (nothing before the first tap); written again after a language switch (a new revision)."""
        table = self.table
        self.entry_text = (entry_line(table.entered, table.partial, table.dice, current_language(),
                                      table.partial_reasons) if table.entered or table.partial else "")

    def watch(self, dispatcher: Any, **callbacks: Callable[..., Any]) -> None:
        """Bind `callbacks` to `dispatcher`'s properties or events until the panel is detached."""
        dispatcher.bind(**callbacks)
        self._watched.append((dispatcher, callbacks))

    def start(self) -> None:
        """Follow the controller's actions and the language, and draw for the first time."""
        self.controller.listen(self.refresh)
        self.watch(self.table, entered=self._write_entry, partial=self._write_entry,
                   partial_reasons=self._write_entry, revision=self._write_entry)
        self._language = LanguageWatch(self.table, self.refresh)
        self.refresh()

    def detach(self) -> None:
        """Called when another game takes the table: nothing of this panel runs after it."""
        self.controller.unlisten(self.refresh)
        if self._language is not None:
            self._language.detach()
        for dispatcher, callbacks in self._watched:
            dispatcher.unbind(**callbacks)
        if self.loupe is not None:
            self.loupe.close()

    def refresh(self, *_args: Any) -> None:
        """Draw everything anew from the table's state (each panel says how)."""
        raise NotImplementedError


#: The letter of each colour (a Digger die face, a Gold Connection bar or row) as a player of the language
#: reads it (English: the engine's tokens, which are also the keyboard keys; German Bl/Ge/Ro/Gr/We/Sw;
#: French Bl/J/Ro/V/Bc/N).
COLOUR_LETTERS = {"B": N_("colour letter B"), "Y": N_("colour letter Y"), "R": N_("colour letter R"),
                  "G": N_("colour letter G"), "W": N_("colour letter W"), "K": N_("colour letter K")}


def colour_letter(token: str) -> str:
    """A colour token's letter in the current language (the English catalog says B, Y, R, G, W, K)."""
    return _(COLOUR_LETTERS[token]) if token in COLOUR_LETTERS else token


def die_face_button(controller: Any) -> Any:
    """A button that enters its `face` for the die due, kept for reuse by `resize`; `plain_colours` are its
    own, for a face without a colour of its own."""
    button = Factory.GButton()
    button.plain_colours = (list(button.background_color), list(button.color))
    button.bind(on_release=lambda pressed: controller.enter_die(pressed.face))
    return button


def entry_line(entered: list[str], partial: list[str], dice: list[list[str]], language: str,
               reasons: Sequence[str] = (), face_word: Callable[[str], str] = str) -> str:
    """The line over a table's dice buttons: the roll entered so far, or the dice a device could not read
    (and why, when the camera said) — `_` for each die still to tap."""
    from companion.app.i18n import ntr, tr

    if not dice:
        return tr("No dice due.", language)
    if partial:
        unread = partial.count("?")
        shown = " ".join(face_word(face) for face in partial).replace("?", "_")
        if unread == len(partial) > 1:  # e.g. a camera that saw a die too many: nothing of it is played
            text = tr("No die could be read, tap the roll in: {dice}", language).format(dice=shown)
        else:
            text = ntr("Unreadable die, tap it: {dice}", "Unreadable dice, tap them: {dice}", unread,
                       language).format(dice=shown)
        if not reasons:
            return text
        why = "; ".join(tr(reason, language) for reason in reasons)
        return text + "\n" + tr("Why: {reasons}.", language).format(reasons=why)
    shown = " ".join([*map(face_word, entered), *["_"] * (len(dice) - len(entered))])
    return tr("Roll by touch: {dice}", language).format(dice=shown)
