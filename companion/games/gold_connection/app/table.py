"""Gold Connection's table panel: the vault with bars, stones and arrows; boxes, chips, counter and odds.

Moves are entered by tapping the destination safe (the shortest way the arrow may go; on the two
unnumbered safes the panel then asks where the arrow points), bars by tapping them in the safe under
the arrow; what is being picked is the GoldConnectionController's, the panel only draws. Dice come
from the hardware, the face buttons here or "Roll for me". Before every roll the panel shows the
number to reach and the exact chance with and without chips.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from typing import Any

from kivy.factory import Factory
from kivy.metrics import sp
from kivy.properties import BooleanProperty, DictProperty, ListProperty, ObjectProperty, StringProperty
from kivy.utils import colormap, get_color_from_hex

from companion.app.boards.loupe import BoardLoupe
from companion.app.i18n import _ as app_text
from companion.app.i18n import capitalised, catalog, game_text
from companion.app.table import TableModel
from companion.app.tables.common import TablePanel, colour_letter, die_face_button
from companion.app.widgets import BUTTON_TEXT_MARGIN, MIN_TAP_PX, MIN_TEXT_SP, NO_BREAK, resize, word_width
from companion.engine.core import N_, ActionModel, Setup
from companion.games.gold_connection.app.board import VaultBoard
from companion.games.gold_connection.app.controller import GoldConnectionController
from companion.games.gold_connection.rules import (
    BEST_ROLL,
    COLOURS,
    DIE_FACES,
    PLUNDER_MINIMUM,
    ChooseStart,
    EndTurn,
    GoldConnection,
    GoldConnectionState,
    Loot,
    Move,
    PlaceArrow,
    Plunder,
    Sort,
    Stop,
    UseChips,
    auto_sort,
    bar_number,
    bar_sort_key,
)
from companion.games.gold_connection.words import bars_words, safe_words

#: The game's catalog domain (its id).
DOMAIN = "gold_connection"


def _(message: str) -> str:
    """A panel string from the game's own catalog (companion/locale/*/gold_connection.po), else the app's."""
    translated = catalog(DOMAIN).gettext(message)
    return translated if translated != message else app_text(message)


def bar_code(code: str) -> str:
    """A bar (`G4`), row (`G6`) or colour (`G`) as the panel writes it: the colour's letter in the current
    language (German `Gr4`, French `V4`; English the engine's id), then the number."""
    return colour_letter(code[:1]) + code[1:]


def bar_codes(codes: Iterable[str]) -> str:
    return " ".join(map(bar_code, codes))


def safe_line(safe: str, bars: str) -> str:
    """A safe named in words at the start of a line, then its bars (`Safe 7: blue 1, green 4`)."""
    return capitalised(_("{safe}: {bars}").format(safe=safe_words(safe).text(_), bars=bars))


def action_label(table: TableModel, action: ActionModel) -> str:
    """How a choice is written on a button."""
    if isinstance(action, Move):
        return _("Arrow to {safe}").format(safe=safe_words(action.path[-1]).text(_))
    if isinstance(action, Loot):
        return _("Loot {bars}").format(bars=bars_words(action.bars).text(_))
    if isinstance(action, Stop):
        return _("Stop here")
    return action.type


def loot_targets(game: GoldConnection, state: GoldConnectionState) -> dict[str, int]:
    """The safes worth moving the arrow to next, with the distance this turn on arriving by the shortest
    way: where a loot could still succeed (GC-8, GC-9: not the start safe, not under another robber
    stone, not looted this turn, bars in it, and distance plus its cheapest bar within two dice and the
    player's chips), or a box there could be plundered (GC-16).  Empty when no move is offered."""
    if "move" not in game.expects(state):
        return {}
    reach = BEST_ROLL + state.robbers[state.current].chips
    nearest: dict[str, int] = {}
    for move in game.moves(state):
        safe = move.path[-1]
        nearest[safe] = min(nearest.get(safe, len(move.path)), len(move.path))
    targets: dict[str, int] = {}
    for safe, steps in nearest.items():
        distance = state.distance + steps
        owner = state.stone_owner(safe)
        if owner is None or owner == state.current:
            lootable = safe != state.turn_start and safe not in state.looted and state.safes[safe]
            cheapest = min((bar_number(bar) for bar in state.safes[safe]), default=0)
            worth = bool(lootable) and distance + cheapest <= reach
        else:
            box = state.robbers[owner]
            tops = [numbers[-1] for numbers in box.rows.values() if numbers]
            worth = (box.bar_count() >= PLUNDER_MINIMUM and owner not in state.plundered
                     and distance + min(tops) <= reach)
        if worth:
            targets[safe] = distance
    return targets


def setup_steps(setup: Setup) -> list[str]:
    """The setup guide; with the app's deal it lists every safe's six bars for the table to lay out."""
    game = GoldConnection()
    state = game.initial_state(setup)
    steps = [_("Give each player a box, a robber stone and an arrow of one colour; put the 20 consolation "
               "chips beside the board.")]
    if len(setup.players) == 4:
        steps.append(_("With four players the 4-rows of the boxes stay empty."))
    if setup.options.get("deal", "app") == "table":
        steps.append(_("Shuffle the 84 bars, lay six face up into every safe and enter each safe's bars."))
    else:
        steps.append(_("Sort the 84 bars by colour and number, then lay out the safes as dealt:"))
        steps.extend(safe_line(safe.id, bars_words(state.safes[safe.id]).text(_)) for safe in game.vault.layout.safes)
    steps.append(_("Each player rolls both dice for the start safe (one die or the sum); Goldtable checks it."))
    if setup.options.get("game_end", "counter") == "counter":
        steps.append(_("The turn counter starts beside field 1 of the track."))
    return steps


class GoldConnectionPanel(TablePanel):
    """Board on the left; counter, odds, boxes and the due choices on the right."""

    status_text = StringProperty("")
    odds_text = StringProperty("")
    #: Before a move: the lit safes with the distance on arriving.
    lit_text = StringProperty("")
    boxes_text = StringProperty("")
    rolling = BooleanProperty(False)
    #: Bars picked in the safe under the arrow, and the pending plunder take (row -> count).
    picked = ListProperty([])
    take = DictProperty({})
    #: Destination waiting for the arrow's direction (on an unnumbered safe).
    pending_move = ObjectProperty(None, allownone=True)
    #: Bars being entered for a safe in the table-dealt setup.
    entering = ListProperty([])

    def __init__(self, controller: GoldConnectionController, **kwargs: Any) -> None:
        super().__init__(controller, **kwargs)
        self.game = controller.game
        self.board = VaultBoard(layout=self.game.vault.layout)
        self.board.bind(on_safe=lambda _board, safe: controller.tap_safe(safe),
                        on_bar=lambda _board, safe, bar: controller.tap_bar(safe, bar))
        self.ids.board_holder.add_widget(self.board)
        self.ids.choices.bind(width=self._fit_columns)
        self.loupe = BoardLoupe(self.board, lambda safe: self.board.dispatch("on_safe", safe),
                                lambda: set(self.board.highlighted), lambda: self.state, table=self.table)
        self._faces_shown = False
        self.expects: tuple[str, ...] = ()
        self.targets: dict[str, int] = {}
        self.start()

    @property
    def state(self) -> GoldConnectionState | None:
        controller: GoldConnectionController = self.controller
        return controller.state

    # -- showing -------------------------------------------------------------------------------------
    def refresh(self, *_args: Any) -> None:
        """Everything drawn anew from the state, the phase table and the picks (after an action, a pick
        or a language switch)."""
        state = self.state
        if state is None:
            return
        self.labels = {"Roll for me": _("Roll for me")}
        controller = self.controller
        self.picked = list(controller.picked)
        self.take = dict(controller.take)
        self.pending_move = controller.pending_move
        self.entering = list(controller.entering)
        self.expects = self.game.expects(state)
        self.targets = loot_targets(self.game, state) if self.pending_move is None else {}
        self.rolling = "roll" in self.expects
        self.status_text = self._status(state)
        self.odds_text = self._odds(state)
        self.lit_text = self._lit() if not self.odds_text else ""
        self.boxes_text = self._boxes(state)
        self.board.seat_colours = [list(self._rgb(seat)) for seat in range(len(state.robbers))]
        self.board.state = state
        self.board.highlighted = self._highlights(state)
        arrow = state.robbers[state.current].arrow
        self.board.selected_bars = [[arrow, bar] for bar in self.picked]
        self._rebuild_faces()
        self._rebuild_choices(state)

    def _status(self, state: GoldConnectionState) -> str:
        parts = []
        if state.rules.game_end == "counter":
            parts.append(_("Counter {counter} of 36").format(counter=state.counter))
        if "move" in self.expects or state.announcement is not None:  # a turn is under way
            parts.append(_("distance {distance}").format(distance=state.distance))
        if state.tray:
            parts.append(_("tray {bars}").format(bars=bar_codes(state.tray)))
        return " · ".join(parts)

    def _odds(self, state: GoldConnectionState) -> str:
        """Target and exact chances for the announced roll, or for the bars picked so far."""
        if "roll" in self.expects and state.announcement is not None:
            odds = self.game.odds(state)
        elif self.picked or self.take:
            bars = tuple(self.picked) or self.controller.take_bars(state)
            odds = self.game.odds(state, self.game.target(state, bars))
        else:
            return ""
        return game_text(DOMAIN, N_("Roll {target} or more: {chance}% · with {chips} chips {chance_with_chips}%")
                         if odds.chips_help else N_("Roll {target} or more: {chance}%"), odds.params())

    def _lit(self) -> str:
        """The safes lit for a move, nearest first, each with the distance on arriving; once a safe is
        tapped, which one (the arrow has not moved yet: it waits for the way it points on)."""
        if self.pending_move is not None:
            return _("Arrow to {safe}: which way does it point then?").format(
                safe=safe_words(self.pending_move.path[-1]).text(_))
        if not self.targets:
            return ""
        return _("Lit safes (distance): {safes}").format(safes=", ".join(
            f"{self.game.vault.numbers[safe] or safe_words(safe).text(_)} ({distance})"
            for safe, distance in sorted(self.targets.items(), key=lambda item: (item[1], item[0]))))

    def _boxes(self, state: GoldConnectionState) -> str:
        lines = []
        scores = self.game.scores(state)
        for seat, robber in enumerate(state.robbers):
            colour = "".join(f"{round(channel * 255):02x}" for channel in self._rgb(seat))
            name = self.table.player_name(seat)
            rows = []
            for colour_code in COLOURS:
                cells = [f"{row[1:]}:{''.join(map(str, numbers)) or '-'}" for row, numbers in robber.rows.items()
                         if row[0] == colour_code]
                # No-break spaces: a colour's rows wrap as one group, never a lone "6:-" on the next line.
                rows.append(NO_BREAK.join([bar_code(colour_code), *cells]))
            head = game_text(DOMAIN, N_("{name}: {score} points, {chips} chips, {bars} bars"),
                             {"name": name, "score": scores[seat], "chips": robber.chips, "bars": robber.bar_count()})
            marker = "> " if seat == self.game.to_move(state) else ""
            lines.append(f"[b][color={colour}]{marker}{head}[/color][/b]\n" + "  ".join(rows))
        return "\n".join(lines)

    def _rgb(self, seat: int) -> tuple[float, float, float]:
        """A seat's colour as RGB, whether the setup names it in hex (`#d94a4a`) or by name (`pink`)."""
        colour = self.table.player_colour(seat)
        rgba = get_color_from_hex(colour) if colour.startswith("#") else colormap.get(colour.lower())
        return (0.6, 0.6, 0.6) if rgba is None else (rgba[0], rgba[1], rgba[2])

    def _highlights(self, state: GoldConnectionState) -> list[str]:
        """Only what the next tap may sensibly choose: a start safe, an arrow's heading, or a safe where a
        loot or plunder could still succeed (any reachable safe stays tappable)."""
        if self.table.put_back_places:  # after an undo: the safes the put-back sentences name
            return list(self.table.put_back_places)
        starts = [action.safe for action in self.game.offered(state, "choose_start") if isinstance(action, ChooseStart)]
        headings = [action.heading for action in self.game.offered(state, "place_arrow")
                    if isinstance(action, PlaceArrow)]
        return starts + headings + sorted(self.targets)

    def _rebuild_faces(self) -> None:
        if self.rolling == self._faces_shown:
            return
        self._faces_shown = self.rolling
        faces = DIE_FACES if self.rolling else ()
        for button, face in zip(resize(self.ids.faces, len(faces), partial(die_face_button, self.controller)), faces):
            button.face = button.text = face

    def _button(self, text: str, callback: Any = None, disabled: bool = False,
                action: ActionModel | None = None) -> None:
        """A choice: `action` is what it plays (without a callback the tap submits it) or, for a pick, the
        least it leads to; None for buttons that only edit a selection."""
        if callback is None:
            assert action is not None
            callback = partial(self.controller.submit, action)
        self._choices.append((text, callback, disabled, action))

    def _new_choice_button(self) -> Any:
        """A choice button; `_rebuild_choices` reuses it for whichever choice it shows next."""
        button = Factory.GButton(size_hint_y=None, height=MIN_TAP_PX)
        button.bind(on_release=lambda pressed: pressed.callback(),
                    texture_size=lambda grown, size: setattr(grown, "height", max(MIN_TAP_PX, size[1] + 8)))
        return button

    def _rebuild_choices(self, state: GoldConnectionState) -> None:
        self._choices: list[tuple[str, Any, bool, ActionModel | None]] = []
        self._collect_choices(state)
        buttons = resize(self.ids.choices, len(self._choices), self._new_choice_button)
        for button, (text, callback, disabled, action) in zip(buttons, self._choices):
            button.text, button.callback, button.disabled, button.action = text, callback, disabled, action
        self._fit_columns()

    def _fit_columns(self, *_args: Any) -> None:
        """Two columns of choices, or one when a word of a choice is wider than a half-width button even
        at the table's smallest readable size: Kivy would break it inside the word (French "Viser
        l'aiguillag/e de gauche").  One column pushes the last choices (the loot) below the fold."""
        grid = self.ids.choices
        if not grid.children:
            return
        sample = grid.children[0]
        half = (grid.width - grid.spacing[0]) / 2 - 2 * BUTTON_TEXT_MARGIN
        # A button shrinks a long word's text (GButton), as far as the table's smallest readable size.
        shrink = min(1.0, sp(MIN_TEXT_SP) / sample.wanted_font_size) if sample.wanted_font_size else 1.0
        grid.cols = 1 if any(word_width(word, sample.font_name, sample.wanted_font_size, sample.bold) * shrink > half
                             for button in grid.children for word in button.text.split()) else 2

    def _collect_choices(self, state: GoldConnectionState) -> None:
        """The choices the phase table offers now, each as a button."""
        offered = self.game.offered
        for start in offered(state, "choose_start"):
            assert isinstance(start, ChooseStart)
            self._button(_("Start on safe {number}").format(number=self.game.vault.numbers[start.safe]), action=start)
        for arrow in offered(state, "place_arrow"):
            assert isinstance(arrow, PlaceArrow)
            self._button(_("Point to {safe}").format(safe=safe_words(arrow.heading).text(_)), action=arrow)
        for spend in sorted(offered(state, "use_chips"), key=lambda action: -getattr(action, "count", 0)):
            assert isinstance(spend, UseChips)
            self._button(game_text(DOMAIN, N_("Spend {count} chips"), {"count": spend.count}) if spend.count
                         else _("Accept the failure"), action=spend)
        if "sort" in self.expects:
            self._sort_choices(state)
        if "enter_safe" in self.expects:
            self._entry_choices(state)
        if "move" in self.expects:
            self._turn_choices(state)

    def _sort_choices(self, state: GoldConnectionState) -> None:
        """The two suggested sortings (longest or shortest rows first), one button where they are the same,
        and where no bar fits a row, what to do with them instead (GC-13: back into the robber's safe)."""
        robber = state.robbers[state.current]
        longest, shortest = (auto_sort(robber.rows, state.tray, prefer) for prefer in ("long", "short"))
        if not longest:
            self._button(_("Nothing fits a row: put {bars} back into {safe}").format(
                bars=bar_codes(state.tray), safe=safe_words(robber.stone or "").text(_)), action=Sort(rows={}))
            return
        choices = [(_("Sort: {rows}"), longest)] if longest == shortest else [
            (_("Sort, longest rows first: {rows}"), longest), (_("Sort, shortest rows first: {rows}"), shortest)]
        for text, placing in choices:
            shown = " ".join(f"{bar_code(row)}+{''.join(map(str, numbers))}" for row, numbers in placing.items())
            self._button(text.format(rows=shown), action=Sort(rows=placing))

    def _turn_choices(self, state: GoldConnectionState) -> None:
        if self.pending_move is not None:
            move: Move = self.pending_move
            came = move.path[-2] if len(move.path) > 1 else state.robbers[state.current].arrow or ""
            for heading in self.game.vault.exits(move.path[-1], came):
                self._button(_("Then point to {safe}").format(safe=safe_words(heading).text(_)),
                             action=Move(path=move.path, heading=heading))
            return
        arrow = state.robbers[state.current].arrow or ""
        first = Loot(bars=state.safes[arrow][:1])
        if "loot" in self.expects and self.game.validate(state, first) is None:
            picked = list(self.picked)
            for bar in state.safes[arrow]:
                chosen = bar in picked
                if chosen:
                    picked.remove(bar)
                self._button(f"[{bar_code(bar)}]" if chosen else bar_code(bar),
                             lambda b=bar: self.controller.tap_bar(arrow, b),
                             action=Loot(bars=(bar,)))
        if self.picked:
            bars = tuple(sorted(self.picked, key=bar_sort_key))
            self._button(_("Loot {bars}").format(bars=bar_codes(bars)), self.controller.play_picks,
                         action=Loot(bars=bars))
            self._button(_("Clear the bars"), self.controller.clear_picks)
        victim = self.controller.victim(state)
        if victim is not None and "plunder" in self.expects:
            for row, numbers in state.robbers[victim].rows.items():
                taken = self.take.get(row, 0)
                more = Plunder(victim=victim, take={**self.take, row: taken + 1})
                if numbers and self.game.validate(state, Plunder(victim=victim, take={row: 1})) is None:
                    self._button(_("Take from {row} ({taken})").format(row=bar_code(row), taken=taken),
                                 lambda r=row: self.controller.add_to_take(r), disabled=taken >= len(numbers),
                                 action=more)
            if self.take:
                self._button(_("Plunder {bars}").format(bars=bar_codes(self.controller.take_bars(state))),
                             self.controller.play_picks, action=Plunder(victim=victim, take=dict(self.take)))
        if "stop" in self.expects and self.game.validate(state, Stop()) is None:
            self._button(_("Stop here (roll {distance}+)").format(distance=state.distance), action=Stop())
        if "end_turn" in self.expects:
            self._button(_("End the turn"), action=EndTurn())

    def _entry_choices(self, state: GoldConnectionState) -> None:
        safe = next(name for name, bars in state.safes.items() if not bars)
        self._button(safe_line(safe, bar_codes(self.entering) or "-"), self.controller.clear_safe_entry)
        for colour in COLOURS:
            for number in range(1, 7):
                bar = f"{colour}{number}"
                self._button(bar_code(bar), lambda b=bar: self.controller.enter_bar(b))

    def roll_for_me(self) -> None:
        self.controller.virtual_roll("virtual")


def build_panel(controller: GoldConnectionController) -> GoldConnectionPanel:
    return GoldConnectionPanel(controller)
