"""Gold Connection (Sid Sackson): move your arrow through the vault, loot safes, sort bars into rows.

Rule ids (GC-n, GC-Rn) refer to docs/rules/gold_connection.md.  The vault comes from
`layouts/gold_connection.json` (companion.games.gold_connection.board); dice enter as `roll` actions.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from itertools import product
from pathlib import Path
from random import Random
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.engine.core import N_, ActionModel, DiceRefusals, Event, FrozenMap, Prompt, Refusal, Setup, Value, refuse
from companion.engine.rules_kit import FrozenDict, Game, Handler, PhaseRule, roll_check
from companion.games.gold_connection.board import COUNTER_FIELDS, LAYOUT_FILE, Vault, load_vault
from companion.games.gold_connection.words import alternatives, bars_words, row_words, safe_words, safes_words

COLOURS: tuple[str, ...] = ("B", "G", "R", "Y")
COLOUR_NAMES = {"B": "blue", "G": "green", "R": "red", "Y": "yellow"}
BARS_PER_NUMBER = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}  # per colour: six 1s, five 2s, ... one 6
ALL_BARS: tuple[str, ...] = tuple(f"{colour}{number}" for colour in COLOURS
                                  for number, count in BARS_PER_NUMBER.items() for _ in range(count))
BARS_PER_SAFE = 6
CHIP_SUPPLY = 20
CHIP_LIMIT = 5
PLUNDER_MINIMUM = 10
DIE_FACES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")
TWO_DICE = (DIE_FACES, DIE_FACES)
BEST_ROLL = 12


DICE = DiceRefusals(rule="GC-9", count_code="dice.count", count_message=N_("Roll both dice: two values, not {count}."),
                    face_code="dice.impossible", face_message=N_("A die shows 1 to 6, not {value}."))


def _has_moved(state: GoldConnectionState) -> bool:
    return state.moved


def bar_colour(bar: str) -> str:
    return bar[0]


def bar_number(bar: str) -> int:
    return int(bar[1:])


def bar_sort_key(bar: str) -> tuple[str, int]:
    return bar[0], int(bar[1:])


def is_bar(code: str) -> bool:
    """True for a code such as `G3`: a colour letter and a number 1-6."""
    return len(code) == 2 and code[0] in COLOURS and code[1] in "123456"


def row_lengths(players: int) -> tuple[int, ...]:
    """Row sizes per colour in a box: 4, 5 and 6, but no 4-rows in a four-player game (GC-13)."""
    return (5, 6) if players == 4 else (4, 5, 6)


def row_ids(players: int) -> tuple[str, ...]:
    """Ids of a box's rows: colour letter plus the row's length, e.g. `G5`."""
    return tuple(f"{colour}{length}" for colour in COLOURS for length in row_lengths(players))


def row_capacity(row: str) -> int:
    return int(row[1:])


# -- odds (GC-20) -----------------------------------------------------------------------------------
_TWO_DICE_SUMS = Counter(a + b for a in range(1, 7) for b in range(1, 7))


def chance(target: int, bonus: int = 0) -> Fraction:
    """Exact chance that two dice plus `bonus` (consolation chips) reach at least `target`."""
    hits = sum(ways for total, ways in _TWO_DICE_SUMS.items() if total + bonus >= target)
    return Fraction(hits, 36)


class Odds(Value):
    """What the table sees before a loot roll: the number to reach and the exact chances."""

    target: int
    chips: int
    without_chips: Fraction
    with_chips: Fraction

    def percent(self, value: Fraction) -> int | float:
        """A chance in percent to one decimal; a whole one without it ("100 %", not "100,0 %")."""
        rounded = round(float(value) * 100, 1)
        return int(rounded) if rounded.is_integer() else rounded

    @property
    def chips_help(self) -> bool:
        """Whether the player's chips change the chance (none held, or a roll already sure, do not): only
        then does a message name a second chance beside the first."""
        return self.chips > 0 and self.with_chips != self.without_chips

    def params(self) -> dict[str, int | float]:
        """Every number an odds message may name.  The messages for chips that do not help name neither
        `chips` nor `chance_with_chips` (no "with 0 chips", nor a second 100 %, beside the same chance)."""
        return {"target": self.target, "chance": self.percent(self.without_chips),
                "chance_with_chips": self.percent(self.with_chips), "chips": self.chips}


# -- options ----------------------------------------------------------------------------------------
#: GC-R3: two complete 6-rows or any three complete 5-/6-rows (default), two 6-rows or three 5-rows as the
#: examples read, or any two complete 5-/6-rows.
SeriesReading = Literal["two_six_or_any_three", "two_six_or_three_five", "any_two"]
#: GC-R8: when the heading chosen on an unnumbered safe binds the next move.
ChoiceHeading = Literal["turn_end", "every_stop"]


class GoldConnectionOptions(BaseModel):
    """Variants and readings (docs/rules/gold_connection.md, GC-2, GC-21, GC-R3, GC-R8)."""

    model_config = ConfigDict(extra="forbid")

    deal: Literal["app", "table"] = Field("app", description="GC-2: the app deals the bars from the seed, or "
                                          "the table shuffles and enters each safe's six bars")
    game_end: Literal["counter", "series"] = Field("counter", description="GC-18/GC-21: end after field 36 "
                                                   "of the turn counter, or the variant without counter")
    series_reading: SeriesReading = Field(
        "two_six_or_any_three", description="GC-R3: which complete rows end the variant game")
    choice_heading: ChoiceHeading = Field(
        "turn_end", description="GC-R8: the heading chosen on an unnumbered safe binds only when the turn ends "
                                "there (rulebook), or on every stop there")


class GoldConnectionRules(Value):
    """The option values the rules need while playing, carried in the state so it is self-contained."""

    game_end: Literal["counter", "series"]
    series_reading: SeriesReading
    choice_heading: ChoiceHeading = "turn_end"


# -- state ------------------------------------------------------------------------------------------
class Robber(Value):
    """One player's pieces: robber stone, arrow (where it is and which safe it points to), chips, box rows."""

    stone: str | None = None
    arrow: str | None = None
    heading: str | None = None
    chips: int = 0
    rows: FrozenMap[str, tuple[int, ...]]

    def bar_count(self) -> int:
        return sum(len(row) for row in self.rows.values())

    def bars(self) -> list[str]:
        return [f"{row[0]}{number}" for row, numbers in self.rows.items() for number in numbers]


class Announcement(Value):
    """What the active player announced before the roll: bars from a safe, from a box, or a plain stop."""

    kind: Literal["loot", "plunder", "stop"]
    bars: tuple[str, ...] = ()
    victim: int | None = None
    take: FrozenMap[str, int] = Field(default_factory=FrozenDict)
    target: int


Phase = Literal["enter_safes", "start_roll", "start_choose", "arrows", "turn", "roll", "chips", "sort", "over"]


class GoldConnectionState(Value):
    """The whole table: safes, pieces, boxes, chips, counter and where the current turn stands."""

    names: tuple[str, ...]
    rules: GoldConnectionRules
    phase: Phase
    safes: FrozenMap[str, tuple[str, ...]]
    robbers: tuple[Robber, ...]
    chip_supply: int = CHIP_SUPPLY
    counter: int = 0
    current: int = 0
    start_roll: tuple[int, int] | None = None
    arrow_order: tuple[int, ...] = ()
    turn_start: str | None = None
    start_heading: str | None = None
    #: The safe the arrow came from when it stopped on this turn (GC-R8: it may leave a choice point any
    #: other way when the turn goes on); None at the start of a turn.
    arrow_came: str | None = None
    tray: tuple[str, ...] = ()
    distance: int = 0
    moved: bool = False
    last_success: Literal["none", "loot", "plunder"] = "none"
    looted: tuple[str, ...] = ()
    plundered: tuple[int, ...] = ()
    announcement: Announcement | None = None
    roll: tuple[int, int] | None = None

    def stone_owner(self, safe: str) -> int | None:
        """The seat whose robber stone stands on `safe`, if any."""
        for seat, robber in enumerate(self.robbers):
            if robber.stone == safe:
                return seat
        return None


# -- actions ----------------------------------------------------------------------------------------
class EnterSafe(ActionModel):
    """Table-dealt setup: the six bars the table laid into one safe."""

    safe: str
    bars: tuple[str, ...]


class Roll(ActionModel):
    """Both dice, read from hardware, typed on the touch keypad or rolled by the Pi."""

    values: tuple[int, ...]


class ChooseStart(ActionModel):
    """Put the robber stone on a free safe numbered by one die or by the sum of both."""

    safe: str


class PlaceArrow(ActionModel):
    """Lay the arrow on the robber stone pointing at a neighbouring safe."""

    heading: str


class Move(ActionModel):
    """Move the arrow along `path` (every safe entered, in order); `heading` only when ending on a choice point."""

    path: tuple[str, ...]
    heading: str | None = None


class Loot(ActionModel):
    """Announce bars to take from the safe under the arrow.

    `safe` is where the table took the bars from when it said (a tap on a bar on the board); any other
    safe than the arrow's is refused.  It is checked, never recorded: an accepted loot's safe is the
    arrow's, so the record says no more with it."""

    bars: tuple[str, ...]
    safe: str | None = Field(default=None, exclude=True)


class Plunder(ActionModel):
    """Announce how many bars to take from the top of which rows of the victim's box."""

    victim: int
    take: FrozenMap[str, int]


class Stop(ActionModel):
    """End the turn here without looting; needs a roll of at least the distance."""


class EndTurn(ActionModel):
    """End the turn right after a successful loot."""


class UseChips(ActionModel):
    """After a short roll: spend exactly the missing points in chips (count), or 0 to accept failure."""

    count: int


class Sort(ActionModel):
    """Lay the tray's bars onto rows: row id -> numbers placed there; bars not named go back to the safe."""

    rows: FrozenMap[str, tuple[int, ...]] = Field(default_factory=FrozenDict)


def _remove_bars(pile: tuple[str, ...], bars: tuple[str, ...]) -> tuple[str, ...]:
    left = list(pile)
    for bar in bars:
        left.remove(bar)
    return tuple(left)


def _add_bars(pile: tuple[str, ...], bars: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    return tuple(sorted((*pile, *bars), key=bar_sort_key))


def top_bars(rows: Mapping[str, tuple[int, ...]], take: Mapping[str, int]) -> tuple[str, ...]:
    """The bars taken from the top of rows (highest number first), as bar codes."""
    bars: list[str] = []
    for row, count in take.items():
        bars.extend(f"{row[0]}{number}" for number in reversed(rows[row][len(rows[row]) - count:]))
    return tuple(bars)


def auto_sort(rows: Mapping[str, tuple[int, ...]], tray: tuple[str, ...],
              prefer: Literal["long", "short"] = "long") -> dict[str, tuple[int, ...]]:
    """A legal sorting of the tray: bars ascending, each onto the longest (or shortest) row it fits.

    Only a suggestion: the player decides which rows to fill (GC-13); the table screen offers both.
    """
    lengths = {row: len(numbers) for row, numbers in rows.items()}
    placed: dict[str, list[int]] = {}
    for bar in sorted(tray, key=bar_sort_key):
        colour, number = bar_colour(bar), bar_number(bar)
        fitting = [row for row in rows if row[0] == colour and lengths[row] == number - 1
                   and number <= row_capacity(row)]
        if fitting:
            row = max(fitting, key=row_capacity) if prefer == "long" else min(fitting, key=row_capacity)
            placed.setdefault(row, []).append(number)
            lengths[row] += 1
    return {row: tuple(numbers) for row, numbers in placed.items()}


def series_complete(robber: Robber, reading: str) -> bool:
    """GC-21: has this box the complete rows that end the variant game?"""
    full = [row for row, numbers in robber.rows.items() if len(numbers) == row_capacity(row)]
    sixes = sum(1 for row in full if row_capacity(row) == 6)
    fives = sum(1 for row in full if row_capacity(row) == 5)
    if reading == "any_two":
        return sixes + fives >= 2
    if reading == "two_six_or_three_five":
        return sixes >= 2 or fives >= 3
    return sixes >= 2 or sixes + fives >= 3


def box_score(robber: Robber) -> int:
    """GC-19: bar numbers plus 5 per complete 5-row and 10 per complete 6-row."""
    total = 0
    for row, numbers in robber.rows.items():
        total += sum(numbers)
        if len(numbers) == row_capacity(row):
            total += {5: 5, 6: 10}.get(row_capacity(row), 0)
    return total


class GoldConnection(Game[GoldConnectionState, GoldConnectionOptions]):
    """Gold Connection for 2-4 players on the vault of `layouts/gold_connection.json`."""

    id, title, rule_prefix = "gold_connection", "Gold Connection", "GC"
    min_players, max_players = 2, 4

    @property
    def vault(self) -> Vault:
        return load_vault()

    # -- setup (GC-2 ... GC-5) -------------------------------------------------------------------------
    def board_files(self, setup: Setup) -> tuple[Path, ...]:
        return (LAYOUT_FILE,)

    def initial_state(self, setup: Setup) -> GoldConnectionState:
        options = self.options(setup.options)
        self.check_setup(setup)
        players = len(setup.players)
        vault = self.vault
        if options.deal == "app":
            bars = list(ALL_BARS)
            Random(setup.seed).shuffle(bars)
            safes = {safe: tuple(sorted(bars[i * BARS_PER_SAFE:(i + 1) * BARS_PER_SAFE], key=bar_sort_key))
                     for i, safe in enumerate(vault.safe_ids)}
            phase: Phase = "start_roll"
        else:
            safes = dict.fromkeys(vault.safe_ids, ())
            phase = "enter_safes"
        empty_rows = dict.fromkeys(row_ids(players), ())
        return GoldConnectionState(
            names=tuple(player.name for player in setup.players),
            rules=GoldConnectionRules(game_end=options.game_end, series_reading=options.series_reading,
                                      choice_heading=options.choice_heading),
            phase=phase, safes=safes, robbers=tuple(Robber(rows=empty_rows) for _ in range(players)),
            current=setup.first_player)

    # -- validation --------------------------------------------------------------------------------
    def _check_enter_safe(self, state: GoldConnectionState, action: EnterSafe) -> Refusal | None:
        if action.safe not in state.safes:
            return refuse("safe.unknown", N_("There is no safe {safe} in the vault."), "GC-1", safe=action.safe)
        if state.safes[action.safe]:
            return refuse("setup.safe_filled", N_("Safe {safe} is already filled; undo to correct it."), "GC-2",
                          safe=action.safe)
        if len(action.bars) != BARS_PER_SAFE:
            return refuse("setup.six_bars", N_("Every safe starts with exactly 6 bars, not {count}."), "GC-2",
                          count=len(action.bars))
        for bar in action.bars:
            if not is_bar(bar):
                return refuse("bar.unknown", N_("{bar} is not a gold bar (colour B, G, R or Y and a number 1-6)."),
                              "GC-2", bar=bar)
        laid = Counter(bar for bars in state.safes.values() for bar in bars)
        wanted = Counter(action.bars)
        for bar, count in wanted.items():
            if laid[bar] + count > ALL_BARS.count(bar):
                return refuse("setup.too_many", N_("The game has only {available} of bar {bar}."), "GC-2",
                              bar=bar, available=ALL_BARS.count(bar))
        return None

    def _check_choose_start(self, state: GoldConnectionState, action: ChooseStart) -> Refusal | None:
        assert state.start_roll is not None
        number = self.vault.numbers.get(action.safe)
        allowed = self.start_numbers(state)
        if action.safe not in state.safes:
            return refuse("safe.unknown", N_("There is no safe {safe} in the vault."), "GC-1", safe=action.safe)
        if state.stone_owner(action.safe) is not None:
            return refuse("start.taken", N_("{safe} already has a robber stone."), "GC-4",
                          safe=safe_words(action.safe))
        if number not in allowed:
            first, second = state.start_roll
            return refuse("start.not_rolled", N_("With {first} and {second} the start safe is number {first}, "
                                                 "{second} or {sum}."), "GC-4",
                          first=first, second=second, sum=first + second, safe=safe_words(action.safe))
        return None

    def _check_place_arrow(self, state: GoldConnectionState, action: PlaceArrow) -> Refusal | None:
        stone = state.robbers[state.current].stone
        assert stone is not None
        if action.heading not in self.vault.neighbours[stone]:
            return self._step_refusal(stone, action.heading, "GC-5")
        return None

    def _step_refusal(self, here: str, there: str, rule: str) -> Refusal:
        if there not in self.vault.numbers:
            return refuse("safe.unknown", N_("There is no safe {safe} in the vault."), "GC-1", safe=there)
        if here == there:
            return refuse("move.stays", N_("The arrow must lead from {here} to a field next to it, not to {here} "
                                           "itself."), rule, here=safe_words(here))
        walls = {frozenset(wall) for wall in self.vault.layout.walls}
        if frozenset((here, there)) in walls:
            return refuse("move.wall", N_("A wall stands between {here} and {there}."), "GC-7",
                          here=safe_words(here), there=safe_words(there))
        return refuse("move.not_adjacent", N_("{there} is not next to {here}."), rule, here=safe_words(here),
                      there=safe_words(there))

    def first_steps(self, state: GoldConnectionState) -> tuple[str, ...]:
        """Where the next move may start: the arrow's heading, or on a choice point where the turn goes on
        (GC-R8 `turn_end`), any way but back."""
        robber = state.robbers[state.current]
        assert robber.arrow is not None and robber.heading is not None
        if (state.rules.choice_heading == "turn_end" and state.arrow_came is not None
                and self.vault.is_choice_point(robber.arrow)):
            return tuple(self.vault.exits(robber.arrow, state.arrow_came))
        return (robber.heading,)

    def _check_move(self, state: GoldConnectionState, action: Move) -> Refusal | None:
        robber = state.robbers[state.current]
        assert robber.arrow is not None and robber.heading is not None
        if not action.path:
            return refuse("move.at_least_one", N_("Move the arrow at least one field."), "GC-7")
        firsts = self.first_steps(state)
        if action.path[0] not in firsts:
            if action.path[0] in self.vault.neighbours[robber.arrow]:
                return refuse("move.against_arrow", N_("Move in the arrow's direction, towards {heading}."), "GC-7",
                              heading=safes_words(firsts))
            return self._step_refusal(robber.arrow, action.path[0], "GC-7")
        came, here = robber.arrow, action.path[0]
        for step in action.path[1:]:
            if step not in self.vault.neighbours[here]:
                return self._step_refusal(here, step, "GC-7")
            if step == came:
                return refuse("move.reverse", N_("No turning back: from {here} the arrow cannot return to {there}."),
                              "GC-7", here=safe_words(here), there=safe_words(step))
            came, here = here, step
        exits = self.vault.exits(here, came)
        if self.vault.is_choice_point(here):
            if action.heading is None:
                return refuse("move.heading_needed", N_("{safe} is a choice point: say where the arrow points "
                                                        "next ({options})."), "GC-7",
                              safe=safe_words(here), options=safes_words(exits))
            if action.heading not in exits:
                return refuse("move.bad_heading", N_("From {safe} the arrow can point to {options}, not "
                                                     "{heading}."), "GC-7",
                              safe=safe_words(here), options=safes_words(exits),
                              heading=safe_words(action.heading) if action.heading in self.vault.neighbours[here]
                              else action.heading)
        elif action.heading is not None and action.heading != exits[0]:
            return refuse("move.no_choice", N_("Only the unnumbered safes allow a choice of direction; at {safe} "
                                               "the arrow points to {heading}."), "GC-7",
                          safe=safe_words(here), heading=safe_words(exits[0]))
        return None

    def _need_fresh_move(self, state: GoldConnectionState) -> Refusal | None:
        if state.moved:
            return None
        if state.last_success == "plunder":
            return refuse("plunder.move_on", N_("After a successful plunder you must move on."), "GC-17")
        if state.last_success == "loot":
            return refuse("turn.move_first", N_("To go on looting, move the arrow first."), "GC-11")
        return refuse("move.at_least_one", N_("Move the arrow at least one field first."), "GC-7")

    def _check_loot(self, state: GoldConnectionState, action: Loot) -> Refusal | None:
        if (refusal := self._need_fresh_move(state)) is not None:
            return refusal
        robber = state.robbers[state.current]
        safe = robber.arrow
        assert safe is not None
        if action.safe is not None and action.safe != safe:
            return refuse("loot.other_safe", N_("Only bars in the safe under your arrow ({safe}) can be looted."),
                          "GC-8", safe=safe_words(safe))
        owner = state.stone_owner(safe)
        if owner is not None and owner != state.current:
            return refuse("loot.occupied", N_("{owner}'s robber stone stands on {safe}: it cannot be looted."),
                          "GC-8", owner=state.names[owner], safe=safe_words(safe))
        if safe == state.turn_start:
            return refuse("loot.start_safe", N_("{safe} is where this turn began; it cannot be looted."), "GC-8",
                          safe=safe_words(safe))
        if safe in state.looted:
            return refuse("loot.twice", N_("{safe} was already looted this turn."), "GC-8", safe=safe_words(safe))
        if not action.bars:
            return refuse("loot.no_bars", N_("Name at least one bar to loot, or stop."), "GC-8")
        available = Counter(state.safes[safe])
        for bar, count in Counter(action.bars).items():
            if available[bar] < count:
                return refuse("loot.bar_not_in_safe", N_("Bar {bar} is not in {safe}."), "GC-8",
                              bar=bars_words((bar,)), safe=safe_words(safe))
        return None

    def _check_plunder(self, state: GoldConnectionState, action: Plunder) -> Refusal | None:
        if (refusal := self._need_fresh_move(state)) is not None:
            return refusal
        if not 0 <= action.victim < len(state.robbers) or action.victim == state.current:
            return refuse("plunder.victim", N_("Choose another player's box to plunder."), "GC-16",
                          victim=action.victim)
        robber = state.robbers[state.current]
        victim = state.robbers[action.victim]
        name = state.names[action.victim]
        if victim.stone != robber.arrow:
            return refuse("plunder.not_there", N_("Stop on {victim}'s robber stone to plunder that box."), "GC-16",
                          victim=name)
        if victim.bar_count() < PLUNDER_MINIMUM:
            return refuse("plunder.too_few", N_("{victim}'s box holds {count} bars; it takes at least 10 to "
                                                "plunder it."), "GC-16", victim=name, count=victim.bar_count())
        if action.victim in state.plundered:
            return refuse("plunder.twice", N_("{victim}'s box was already plundered this turn."), "GC-16",
                          victim=name)
        if not action.take or not any(action.take.values()):
            return refuse("plunder.no_bars", N_("Name at least one bar to take."), "GC-16")
        for row, count in action.take.items():
            if row not in victim.rows:
                return refuse("plunder.unknown_row", N_("{victim}'s box has no row {row}."), "GC-16",
                              victim=name, row=row)
            if not 1 <= count <= len(victim.rows[row]):
                return refuse("plunder.row_count", N_("The {row} holds {length} bars; take 1 to {length} from "
                                                      "its top, not {count}."), "GC-16",
                              row=row_words(row), length=len(victim.rows[row]), count=count)
        return None

    def _check_stop(self, state: GoldConnectionState, action: Stop) -> Refusal | None:
        if (refusal := self._need_fresh_move(state)) is not None:
            return refusal
        safe = state.robbers[state.current].arrow
        assert safe is not None
        owner = state.stone_owner(safe)
        if owner is not None and owner != state.current:
            return refuse("stop.occupied", N_("{owner}'s robber stone stands on {safe}: a turn cannot end there."),
                          "GC-14", owner=state.names[owner], safe=safe_words(safe))
        return None

    def _check_end_turn(self, state: GoldConnectionState, action: EndTurn) -> Refusal | None:
        if state.last_success == "plunder" and not state.moved:
            return refuse("plunder.move_on", N_("After a successful plunder you must move on."), "GC-17")
        if state.last_success != "loot" or state.moved:
            return refuse("end.needs_roll", N_("A turn ends freely only right after a successful loot; "
                                               "otherwise stop and roll at least the distance."), "GC-14")
        return None

    def _check_use_chips(self, state: GoldConnectionState, action: UseChips) -> Refusal | None:
        shortfall = self._shortfall(state)
        if action.count not in (0, shortfall):
            return refuse("chips.exact", N_("Spend exactly {shortfall} chips to reach the target, or none."),
                          "GC-10", shortfall=shortfall, count=action.count)
        return None

    def _check_sort(self, state: GoldConnectionState, action: Sort) -> Refusal | None:
        robber = state.robbers[state.current]
        tray = Counter(state.tray)
        lengths = {row: len(numbers) for row, numbers in robber.rows.items()}
        for row, numbers in action.rows.items():
            if row not in robber.rows:
                return refuse("sort.unknown_row", N_("Your box has no row {row}."), "GC-13", row=row)
            for number in numbers:
                bar = f"{row[0]}{number}"
                if tray[bar] == 0:
                    return refuse("sort.not_in_tray", N_("Bar {bar} is not in your tray."), "GC-13",
                                  bar=bars_words((bar,)))
                tray[bar] -= 1
            expected = list(range(lengths[row] + 1, lengths[row] + 1 + len(numbers)))
            if sorted(numbers) != expected:
                return refuse("sort.order", N_("The {row} holds {length} bars; the next ones must be "
                                               "{expected}."), "GC-13",
                              row=row_words(row), length=lengths[row], expected=", ".join(map(str, expected)) or "-")
            if lengths[row] + len(numbers) > row_capacity(row):
                return refuse("sort.full", N_("The {row} holds at most {capacity} bars."), "GC-13",
                              row=row_words(row), capacity=row_capacity(row))
            lengths[row] += len(numbers)
        for bar, count in tray.items():
            if count and any(row[0] == bar_colour(bar) and lengths[row] == bar_number(bar) - 1
                             and bar_number(bar) <= row_capacity(row) for row in robber.rows):
                return refuse("sort.must_place", N_("Bar {bar} fits a row; only bars that fit nowhere go back."),
                              "GC-13", bar=bars_words((bar,)))
        return None

    # -- applying ----------------------------------------------------------------------------------
    def _do_enter_safe(self, state: GoldConnectionState, action: EnterSafe) -> tuple[GoldConnectionState, list[Event]]:
        safes = dict(state.safes)
        safes[action.safe] = tuple(sorted(action.bars, key=bar_sort_key))
        done = all(safes.values())
        state = state.evolve(safes=safes, phase="start_roll" if done else "enter_safes")
        events = [Event(kind="setup.safe", message=N_("{safe} filled."),
                        params={"safe": safe_words(action.safe)})]
        return state, events

    def _do_roll(self, state: GoldConnectionState, action: Roll) -> tuple[GoldConnectionState, list[Event]]:
        first, second = action.values
        if state.phase == "start_roll":
            return self._start_roll(state, (first, second))
        return self._resolve_roll(state, (first, second))

    def start_numbers(self, state: GoldConnectionState) -> list[int]:
        """GC-4: safe numbers the start roll allows that are still free (one die or the sum)."""
        if state.start_roll is None:
            return []
        first, second = state.start_roll
        numbers = sorted({first, second, first + second})
        return [n for n in numbers if state.stone_owner(self.vault.by_number[n]) is None]

    def _start_roll(self, state: GoldConnectionState, dice: tuple[int, int]) -> tuple[GoldConnectionState,
                                                                                      list[Event]]:
        rolled = state.evolve(start_roll=dice)
        if not self.start_numbers(rolled):
            return state, [Event(kind="start.reroll", message=N_("{first}, {second} and {sum} are all taken: "
                                                                 "roll again."),
                                 params={"first": dice[0], "second": dice[1], "sum": sum(dice)})]
        return rolled.evolve(phase="start_choose"), [
            Event(kind="start.rolled", message=N_("{player} rolled {first} and {second} for the start safe."),
                  params={"player": state.names[state.current], "first": dice[0], "second": dice[1]})]

    def _do_choose_start(self, state: GoldConnectionState,
                         action: ChooseStart) -> tuple[GoldConnectionState, list[Event]]:
        robbers = list(state.robbers)
        robbers[state.current] = robbers[state.current].evolve(stone=action.safe, arrow=action.safe)
        events = [Event(kind="start.placed", message=N_("{player} starts on {safe}."),
                        params={"player": state.names[state.current], "safe": safe_words(action.safe)})]
        players = len(robbers)
        if all(robber.stone is not None for robber in robbers):
            first = max(range(players), key=lambda seat: self.vault.numbers[robbers[seat].stone or ""] or 0)
            order = tuple((first + k) % players for k in range(players))
            return state.evolve(robbers=tuple(robbers), phase="arrows", start_roll=None, arrow_order=order,
                                current=first), events
        return state.evolve(robbers=tuple(robbers), phase="start_roll", start_roll=None,
                            current=(state.current + 1) % players), events

    def _do_place_arrow(self, state: GoldConnectionState,
                        action: PlaceArrow) -> tuple[GoldConnectionState, list[Event]]:
        robbers = list(state.robbers)
        robbers[state.current] = robbers[state.current].evolve(heading=action.heading)
        order = state.arrow_order[1:]
        state = state.evolve(robbers=tuple(robbers), arrow_order=order)
        laid = Event(kind="arrow.placed", message=N_("{player}'s arrow points to {heading}."),
                     params={"player": state.names[state.current], "heading": safe_words(action.heading)})
        if order:
            return state.evolve(current=order[0]), [laid]
        first = max(range(len(robbers)), key=lambda seat: self.vault.numbers[robbers[seat].stone or ""] or 0)
        state, events = self._begin_turn(state, first)
        return state, [laid, *events]

    def _begin_turn(self, state: GoldConnectionState, seat: int) -> tuple[GoldConnectionState, list[Event]]:
        """GC-6: a new turn; the counter moves one field (not in the variant without counter)."""
        robber = state.robbers[seat]
        counter = state.counter + 1 if state.rules.game_end == "counter" else state.counter
        state = state.evolve(phase="turn", current=seat, counter=counter, turn_start=robber.stone,
                             start_heading=robber.heading, arrow_came=None, tray=(), distance=0, moved=False,
                             last_success="none", looted=(), plundered=(), announcement=None, roll=None)
        params = {"player": state.names[seat], "counter": counter}
        message = (N_("{player}'s turn; the counter moves to {counter}.") if state.rules.game_end == "counter"
                   else N_("{player}'s turn."))
        return state, [Event(kind="turn.start", message=message, params=params)]

    def _do_move(self, state: GoldConnectionState, action: Move) -> tuple[GoldConnectionState, list[Event]]:
        robber = state.robbers[state.current]
        came = action.path[-2] if len(action.path) > 1 else robber.arrow
        here = action.path[-1]
        heading = action.heading if action.heading is not None else self.vault.exits(here, came or "")[0]
        robbers = list(state.robbers)
        robbers[state.current] = robber.evolve(arrow=here, heading=heading)
        distance = state.distance + len(action.path)
        state = state.evolve(robbers=tuple(robbers), distance=distance, moved=True, arrow_came=came)
        return state, [Event(kind="move", message=N_("Arrow to {safe}; distance this turn {distance}."),
                             params={"safe": safe_words(here), "distance": distance})]

    def _announce(self, state: GoldConnectionState, announcement: Announcement) -> tuple[GoldConnectionState,
                                                                                          list[Event]]:
        odds = self.odds(state, announcement.target)
        message = (N_("Roll {target} or more: {chance}% ({chance_with_chips}% with {chips} chips).") if odds.chips_help
                   else N_("Roll {target} or more: {chance}%."))
        state = state.evolve(phase="roll", announcement=announcement)
        return state, [Event(kind="roll.target", message=message, params=odds.params())]

    def _do_loot(self, state: GoldConnectionState, action: Loot) -> tuple[GoldConnectionState, list[Event]]:
        bars = tuple(sorted(action.bars, key=bar_sort_key))
        target = state.distance + sum(bar_number(bar) for bar in bars)
        return self._announce(state, Announcement(kind="loot", bars=bars, target=target))

    def _do_plunder(self, state: GoldConnectionState, action: Plunder) -> tuple[GoldConnectionState, list[Event]]:
        take = {row: count for row, count in action.take.items() if count}
        bars = top_bars(state.robbers[action.victim].rows, take)
        target = state.distance + sum(bar_number(bar) for bar in bars)
        return self._announce(state, Announcement(kind="plunder", bars=bars, victim=action.victim, take=take,
                                                  target=target))

    def _do_stop(self, state: GoldConnectionState, action: Stop) -> tuple[GoldConnectionState, list[Event]]:
        return self._announce(state, Announcement(kind="stop", target=state.distance))

    def _shortfall(self, state: GoldConnectionState) -> int:
        assert state.announcement is not None and state.roll is not None
        return state.announcement.target - sum(state.roll)

    def _resolve_roll(self, state: GoldConnectionState, dice: tuple[int, int]) -> tuple[GoldConnectionState,
                                                                                       list[Event]]:
        assert state.announcement is not None
        total = sum(dice)
        target = state.announcement.target
        events = [Event(kind="roll", message=N_("Rolled {first} and {second}: {total} against {target}."),
                        params={"first": dice[0], "second": dice[1], "total": total,
                                "target": target})]
        if total >= target:
            state, more = self._success(state)
            return state, events + more
        shortfall = target - total
        if state.robbers[state.current].chips >= shortfall:
            return state.evolve(phase="chips", roll=dice), events
        state, more = self._failure(state)
        return state, events + more

    def _do_use_chips(self, state: GoldConnectionState, action: UseChips) -> tuple[GoldConnectionState, list[Event]]:
        if action.count == 0:
            return self._failure(state)
        robbers = list(state.robbers)
        robber = robbers[state.current]
        robbers[state.current] = robber.evolve(chips=robber.chips - action.count)
        state = state.evolve(robbers=tuple(robbers), chip_supply=state.chip_supply + action.count)
        events = [Event(kind="chips.spent", message=N_("{player} spends {count} chips."),
                        params={"player": state.names[state.current], "count": action.count})]
        state, more = self._success(state)
        return state, events + more

    def _success(self, state: GoldConnectionState) -> tuple[GoldConnectionState, list[Event]]:
        """GC-11/GC-17: the announced bars go to the tray; a stop ends the turn."""
        announcement = state.announcement
        assert announcement is not None
        robber = state.robbers[state.current]
        base = {"phase": "turn", "announcement": None, "roll": None, "moved": False}
        if announcement.kind == "stop":
            return self._end_turn(state.evolve(**base))
        if announcement.kind == "loot":
            safe = robber.arrow or ""
            safes = dict(state.safes)
            safes[safe] = _remove_bars(safes[safe], announcement.bars)
            state = state.evolve(**base, safes=safes, tray=_add_bars(state.tray, announcement.bars),
                                 looted=(*state.looted, safe), last_success="loot")
            return state, [Event(kind="loot.success", message=N_("Loot succeeds: {bars} into the tray."),
                                 params={"bars": bars_words(announcement.bars)})]
        assert announcement.victim is not None
        robbers = list(state.robbers)
        victim = robbers[announcement.victim]
        rows = {row: numbers[:len(numbers) - announcement.take.get(row, 0)] for row, numbers in victim.rows.items()}
        robbers[announcement.victim] = victim.evolve(rows=rows)
        state = state.evolve(**base, robbers=tuple(robbers), tray=_add_bars(state.tray, announcement.bars),
                             plundered=(*state.plundered, announcement.victim), last_success="plunder")
        return state, [Event(kind="plunder.success", message=N_("Plunder succeeds: {bars} taken from {victim}; "
                                                                "move on."),
                             params={"bars": bars_words(announcement.bars),
                                     "victim": state.names[announcement.victim]})]

    def consolation(self, state: GoldConnectionState, seat: int) -> tuple[GoldConnectionState, int]:
        """GC-3/GC-15: 2 chips, 1 when holding 4, none at 5 or when the supply is empty."""
        robber = state.robbers[seat]
        count = min(2, CHIP_LIMIT - robber.chips, state.chip_supply)
        if count <= 0:
            return state, 0
        robbers = list(state.robbers)
        robbers[seat] = robber.evolve(chips=robber.chips + count)
        return state.evolve(robbers=tuple(robbers), chip_supply=state.chip_supply - count), count

    def _failure(self, state: GoldConnectionState) -> tuple[GoldConnectionState, list[Event]]:
        """GC-15/GC-17: tray back into the safe under the arrow, arrow home, consolation chips."""
        announcement = state.announcement
        assert announcement is not None
        robbers = list(state.robbers)
        robber = robbers[state.current]
        safe = robber.arrow or ""
        safes = dict(state.safes)
        tray = state.tray
        safes[safe] = _add_bars(safes[safe], tray)
        robbers[state.current] = robber.evolve(arrow=robber.stone, heading=state.start_heading)
        state = state.evolve(robbers=tuple(robbers), safes=safes, tray=(), announcement=None, roll=None)
        seat = announcement.victim if announcement.kind == "plunder" else state.current
        assert seat is not None
        state, chips = self.consolation(state, seat)
        # The table moves the tray's bars by hand, so they are named; with none yet (a turn's first loot) no
        # bars go anywhere, and saying the tray goes back would send the table looking for them.
        if chips:
            message = (N_("The roll fails: put {bars} back into {safe}; {player} gets {chips} chips.") if tray
                       else N_("The roll fails; {player} gets {chips} chips."))
        elif state.robbers[seat].chips >= CHIP_LIMIT:
            message = (N_("The roll fails: put {bars} back into {safe}; {player} holds five chips, the most there "
                          "may be, and gets none.") if tray
                       else N_("The roll fails; {player} holds five chips, the most there may be, and gets none."))
        else:
            message = (N_("The roll fails: put {bars} back into {safe}; no chips are left for {player}.") if tray
                       else N_("The roll fails; no chips are left for {player}."))
        events = [Event(kind="roll.failed", message=message,
                        params={"bars": bars_words(tray), "safe": safe_words(safe), "player": state.names[seat],
                                "chips": chips})]
        state, more = self._finish_turn(state)
        return state, events + more

    def _do_end_turn(self, state: GoldConnectionState, action: EndTurn) -> tuple[GoldConnectionState, list[Event]]:
        return self._end_turn(state)

    def _end_turn(self, state: GoldConnectionState) -> tuple[GoldConnectionState, list[Event]]:
        """GC-12: the robber stone moves under the arrow; then the tray is sorted."""
        robbers = list(state.robbers)
        robber = robbers[state.current]
        assert robber.arrow is not None  # every robber's arrow is laid before the first turn (GC-5)
        robbers[state.current] = robber.evolve(stone=robber.arrow)
        state = state.evolve(robbers=tuple(robbers))
        events = [Event(kind="turn.end", message=N_("{player}'s robber stone moves to {safe}."),
                        params={"player": state.names[state.current], "safe": safe_words(robber.arrow)})]
        if state.tray:
            return state.evolve(phase="sort"), events
        state, more = self._finish_turn(state)
        return state, events + more

    def _do_sort(self, state: GoldConnectionState, action: Sort) -> tuple[GoldConnectionState, list[Event]]:
        robbers = list(state.robbers)
        robber = robbers[state.current]
        rows = dict(robber.rows)
        left = list(state.tray)
        for row, numbers in action.rows.items():
            rows[row] = rows[row] + tuple(sorted(numbers))
            for number in numbers:
                left.remove(f"{row[0]}{number}")
        robbers[state.current] = robber.evolve(rows=rows)
        safes = dict(state.safes)
        safe = robber.stone or ""
        safes[safe] = _add_bars(safes[safe], left)
        state = state.evolve(robbers=tuple(robbers), safes=safes, tray=())
        events = [Event(kind="sort", message=N_("{player} sorts the tray; {back} back into {safe}.") if left else
                        N_("{player} sorts the tray into the rows."),
                        params={"player": state.names[state.current], "back": bars_words(left),
                                "safe": safe_words(safe)})]
        state, more = self._finish_turn(state)
        return state, events + more

    def _finish_turn(self, state: GoldConnectionState) -> tuple[GoldConnectionState, list[Event]]:
        """GC-18/GC-21: end the game or hand the turn to the next seat."""
        finished = (state.counter >= COUNTER_FIELDS if state.rules.game_end == "counter"
                    else series_complete(state.robbers[state.current], state.rules.series_reading))
        if finished:
            state = state.evolve(phase="over", announcement=None, roll=None, tray=())
            return state, [Event(kind="game.over", message=N_("The game is over."))]
        return self._begin_turn(state, (state.current + 1) % len(state.robbers))

    # -- odds (GC-20) --------------------------------------------------------------------------------
    def target(self, state: GoldConnectionState, bars: tuple[str, ...] = ()) -> int:
        """The number to roll for looting `bars` here (or for stopping, with no bars)."""
        return state.distance + sum(bar_number(bar) for bar in bars)

    def odds(self, state: GoldConnectionState, target: int | None = None) -> Odds:
        """Target and exact chance with and without the active player's chips (the pending roll by default)."""
        if target is None:
            assert state.announcement is not None, "no roll announced"
            target = state.announcement.target
        chips = state.robbers[state.current].chips
        return Odds(target=target, chips=chips, without_chips=chance(target), with_chips=chance(target, chips))

    # -- listing choices -----------------------------------------------------------------------------
    def moves(self, state: GoldConnectionState, max_distance: int | None = None) -> list[Move]:
        """Every move from the arrow whose distance this turn stays within `max_distance`.

        By default the limit is 12 plus the player's chips: a longer move can never be rolled (GC-9).
        One-step moves are always listed, so a player who has gone too far can still move on.
        """
        robber = state.robbers[state.current]
        assert robber.arrow is not None and robber.heading is not None
        if max_distance is None:
            max_distance = BEST_ROLL + robber.chips
        budget = max(1, max_distance - state.distance)
        found: list[Move] = []

        def walk(came: str, here: str, path: tuple[str, ...]) -> None:
            exits = self.vault.exits(here, came)
            if self.vault.is_choice_point(here):
                found.extend(Move(path=path, heading=heading) for heading in exits)
            else:
                found.append(Move(path=path))
            if len(path) < budget:
                for step in exits:
                    walk(here, step, (*path, step))

        for first in self.first_steps(state):
            walk(robber.arrow, first, (first,))
        return found

    def loots(self, state: GoldConnectionState) -> list[Loot]:
        """Every distinct set of bars that could be announced in the safe under the arrow."""
        safe = state.robbers[state.current].arrow or ""
        counts = Counter(state.safes[safe])
        kinds = sorted(counts, key=bar_sort_key)
        choices = []
        for picks in product(*(range(counts[bar] + 1) for bar in kinds)):
            bars = tuple(bar for bar, n in zip(kinds, picks) for _ in range(n))
            if bars:
                choices.append(Loot(bars=bars))
        return choices

    def plunders(self, state: GoldConnectionState, max_target: int | None = None) -> list[Plunder]:
        """Every take from a box that may be plundered here whose target stays within `max_target`.

        By default the limit is 12 plus the player's chips (a bigger take can never be rolled, GC-9);
        without a limit the takes of a full box would run into the hundreds of thousands.
        """
        robber = state.robbers[state.current]
        if max_target is None:
            max_target = BEST_ROLL + robber.chips
        found: list[Plunder] = []
        for seat, victim in enumerate(state.robbers):
            if seat == state.current or victim.stone != robber.arrow:
                continue
            rows = [(row, numbers) for row, numbers in victim.rows.items() if numbers]

            def extend(index: int, take: dict[str, int], budget: int, seat: int = seat,
                       rows: list[tuple[str, tuple[int, ...]]] = rows) -> None:
                if index == len(rows):
                    if take:
                        found.append(Plunder(victim=seat, take=dict(take)))
                    return
                row, numbers = rows[index]
                extend(index + 1, take, budget)
                spent = 0
                for count in range(1, len(numbers) + 1):
                    spent += numbers[-count]
                    if spent > budget:
                        break
                    extend(index + 1, take | {row: count}, budget - spent)

            extend(0, {}, max_target - state.distance)
        return found

    def legal_actions(self, state: GoldConnectionState) -> list[ActionModel] | None:
        """Every allowed action, except where the set is too large (entering safes, sorting).

        Moves are listed up to a distance of 12 plus the player's chips; longer ones are allowed but can
        never be rolled (see `moves`).
        """
        listed = self.listed_actions(state)
        if listed is None:
            return None
        return [action for action in listed if self.validate(state, action) is None]

    def _rolls(self, state: GoldConnectionState) -> list[Roll]:
        return [Roll(values=(a, b)) for a in range(1, 7) for b in range(1, 7)]

    def _starts(self, state: GoldConnectionState) -> list[ChooseStart]:
        return [ChooseStart(safe=self.vault.by_number[n]) for n in self.start_numbers(state)]

    def _arrows(self, state: GoldConnectionState) -> list[PlaceArrow]:
        return [PlaceArrow(heading=n) for n in self.vault.neighbours[state.robbers[state.current].stone or ""]]

    def _chip_choices(self, state: GoldConnectionState) -> list[UseChips]:
        return [UseChips(count=0), UseChips(count=self._shortfall(state))]

    def to_move(self, state: GoldConnectionState) -> int | None:
        return self.phase_player(state, state.current)

    def prompt(self, state: GoldConnectionState) -> Prompt:
        phase = state.phase
        seat = state.current
        who = {"player": state.names[seat] if phase != "over" else "", "counter": state.counter}
        player, expects = self.to_move(state), self.expects(state)
        if phase == "over":
            return Prompt(player=player, expects=expects, message=N_("The game is over."))
        if phase == "enter_safes":
            empty = [safe for safe, bars in state.safes.items() if not bars]
            return Prompt(player=player, expects=expects, params={"safe": safe_words(empty[0]), "left": len(empty)},
                          message=N_("Lay six shuffled bars into {safe} and enter them ({left} safes to go)."))
        if phase == "start_roll":
            return Prompt(player=player, expects=expects, dice=TWO_DICE, roll_action="roll", params=who,
                          message=N_("{player}: roll both dice for your robber stone's start safe."))
        if phase == "start_choose":
            return Prompt(player=player, expects=expects,
                          params=who | {"options": alternatives(self.start_numbers(state))},
                          message=N_("{player}: put your robber stone on safe {options}."))
        if phase == "arrows":
            return Prompt(player=player, expects=expects, params=who,
                          message=N_("{player}: lay your arrow on your robber stone, pointing the way you will go."))
        if phase == "roll":
            assert state.announcement is not None
            odds = self.odds(state)
            return Prompt(player=player, expects=expects, dice=TWO_DICE, roll_action="roll",
                          params=who | odds.params(),
                          message=N_("{player}: roll {target} or more ({chance}%; with your {chips} chips "
                                     "{chance_with_chips}%).") if odds.chips_help
                          else N_("{player}: roll {target} or more ({chance}%)."))
        if phase == "chips":
            return Prompt(player=player, expects=expects, params=who | {"shortfall": self._shortfall(state)},
                          message=N_("{player}: {shortfall} short. Spend {shortfall} chips, or accept the failure."))
        if phase == "sort":
            robber = state.robbers[state.current]
            if not auto_sort(robber.rows, state.tray):  # GC-13: what fits no row goes back
                return Prompt(player=player, expects=expects, params=who | {
                    "tray": bars_words(state.tray), "safe": safe_words(robber.stone or "")},
                    message=N_("{player}: no row can take {tray}; put the tray's bars back into {safe}."))
            return Prompt(player=player, expects=expects, params=who | {"tray": bars_words(state.tray)},
                          message=N_("{player}: sort {tray} into your rows, lowest numbers first."))
        return Prompt(player=player, expects=expects, params=who | {"distance": state.distance},
                      message=N_("{player}: move the arrow, loot, or stop (distance so far {distance})."))

    # The phase table (GC-2 ... GC-18) and the handler per action.
    not_now_message = N_("Not now: first do what the screen asks for.")
    phases = FrozenDict({
        "enter_safes": PhaseRule(allows=("enter_safe",), rule="GC-2", seated=False),
        "start_roll": PhaseRule(allows=("roll",), rule="GC-4", setup=True),
        "start_choose": PhaseRule(allows=("choose_start",), rule="GC-4", setup=True),
        "arrows": PhaseRule(allows=("place_arrow",), rule="GC-5", setup=True),
        # Looting, plundering and stopping need a fresh move; a free end only right after a loot (GC-11, GC-14).
        "turn": PhaseRule(allows=("move", "loot", "plunder", "stop", "end_turn"), rule="GC-7", offered={
            "loot": _has_moved, "plunder": _has_moved, "stop": _has_moved,
            "end_turn": lambda state: state.last_success == "loot" and not state.moved}),
        "roll": PhaseRule(allows=("roll",), rule="GC-9"),
        "chips": PhaseRule(allows=("use_chips",), rule="GC-10"),
        "sort": PhaseRule(allows=("sort",), rule="GC-13"),
        "over": PhaseRule(allows=(), rule="GC-18", seated=False,
                          otherwise=lambda state: refuse("game.over", N_("The game is over."), "GC-18")),
    })
    handlers = FrozenDict({
        EnterSafe: Handler(_check_enter_safe, _do_enter_safe), Roll: Handler(roll_check(DICE), _do_roll),
        ChooseStart: Handler(_check_choose_start, _do_choose_start),
        PlaceArrow: Handler(_check_place_arrow, _do_place_arrow), Move: Handler(_check_move, _do_move),
        Loot: Handler(_check_loot, _do_loot), Plunder: Handler(_check_plunder, _do_plunder),
        Stop: Handler(_check_stop, _do_stop), EndTurn: Handler(_check_end_turn, _do_end_turn),
        UseChips: Handler(_check_use_chips, _do_use_chips), Sort: Handler(_check_sort, _do_sort)})
    #: What `legal_actions` lists per offered type; safes to enter and sortings are too many to list.
    candidates = FrozenDict({
        "roll": _rolls, "choose_start": _starts, "place_arrow": _arrows, "use_chips": _chip_choices,
        "move": lambda game, state: game.moves(state), "loot": lambda game, state: game.loots(state),
        "plunder": lambda game, state: game.plunders(state), "stop": lambda game, state: [Stop()],
        "end_turn": lambda game, state: [EndTurn()]})

    # -- outcome -------------------------------------------------------------------------------------
    def is_over(self, state: GoldConnectionState) -> bool:
        return state.phase == "over"

    def scores(self, state: GoldConnectionState) -> list[int]:
        return [box_score(robber) for robber in state.robbers]

    def winners(self, state: GoldConnectionState) -> list[int]:
        """GC-19: best score; a tie goes to the most consolation chips, then it is shared."""
        best = super().winners(state)
        most = max(state.robbers[seat].chips for seat in best)
        return [seat for seat in best if state.robbers[seat].chips == most]

    def bars_accounted(self, state: GoldConnectionState) -> Counter[str]:
        """Every bar on the table: safes, the tray and the boxes (84 once the setup is dealt)."""
        bars: Counter[str] = Counter()
        for safe_bars in state.safes.values():
            bars.update(safe_bars)
        bars.update(state.tray)
        for robber in state.robbers:
            bars.update(robber.bars())
        return bars
