"""Goldgräber rules engine (game id `goldgraeber`, rules GG-1 ... in docs/rules/goldgraeber.md).

Chips are hidden information: the engine knows which dig fields still hold a face-down chip and how
many chips of each kind have not been seen yet, never which chip lies where.  When a figure lands on
a face-down chip the table turns it and enters what it shows (`reveal`), which is checked against the
chips still unseen.  Dice come from hardware, touch or the seeded RNG like everywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.engine.core import N_, ActionModel, DiceRefusals, Event, Prompt, Refusal, Setup, Value, refuse
from companion.engine.rules_kit import DiceRoll, FrozenDict, Game, Handler, PhaseRule, check_dice
from companion.games.goldgraeber.board import DEFAULT_LAYOUT, HEX_DIRECTIONS, Board, hex_rgb, load_board
from companion.games.goldgraeber.movement import reachable
from companion.games.goldgraeber.words import face_words, field_words, fields_words

# -- chips -------------------------------------------------------------------------------------------
#: Chip kinds: "G<value>" gold worth value nuggets, "R<strength>" a robber of that strength.
CHIP_KINDS: tuple[str, ...] = ("G1", "G2", "G3", "G4", "G5", "R1", "R2", "R3", "R4", "R5")
#: How many of each kind the box holds (same order as CHIP_KINDS): 48 gold, 16 robbers.
CHIP_POOL: tuple[int, ...] = (8, 10, 12, 10, 8, 1, 3, 4, 5, 3)
CAPTURED_ROBBER_POINTS = 2
DIE_FACES: tuple[str, ...] = ("L", "2", "3", "4", "5", "6")
LOCOMOTIVE = "L"
DICE = DiceRefusals(rule="GG-2", count_code="roll.count",
                    count_message=N_("Goldgräber is played with one die, not {count}."), face_code="roll.face",
                    face_message=N_("{face} is not a face of the die (L, 2-6)."))
#: Chip kinds as words in messages (marked so translators see them).
CHIP_WORDS: dict[str, str] = {"gold": N_("gold"), "robber": N_("robber")}


def chip_points(chip: str) -> int:
    """What a chip in a house scores: gold its nuggets, a captured robber 2 (GG-18)."""
    return int(chip[1]) if chip[0] == "G" else CAPTURED_ROBBER_POINTS


def fight_value(face: str) -> int:
    """A die face as a fighting number: the locomotive counts 1 (GG-10, GG-12)."""
    return 1 if face == LOCOMOTIVE else int(face)


# -- options, state, actions -------------------------------------------------------------------------
class GoldgraeberOptions(BaseModel):
    """The variant and the readings we chose (docs/rules/goldgraeber.md, GG-19 and GG-R1 ... GG-R16)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    look_variant: bool = Field(False, description="GG-19, a variant: instead of rolling, a player may secretly "
                                                  "look at the face-down chips next to their figure")
    end_counts_stack_gold: bool = Field(True, description="GG-R7: gold under robbers on the board counts towards "
                                                          "the 'too little gold left' end")
    end_count: Literal["chips", "nuggets"] = Field("chips", description="GG-R12: the early end compares the "
                                                                        "number of gold chips (German rules) or "
                                                                        "nuggets (French wording) with the number "
                                                                        "of players")
    shuttle: Literal["no_step_back", "two_fields_only"] = Field(
        default="no_step_back",
        description="GG-R1: a move may never step straight back (default), or the literal rule: only a move "
                    "that stays between two fields is refused")
    locomotive_field: Literal["closed", "may_end_there"] = Field(
        default="closed",
        description="GG-R2: the locomotive's field may not be entered (default), or only not passed, so a move "
                    "may end there")
    train_takes: Literal["all_open_chips", "open_gold"] = Field(
        default="all_open_chips",
        description="GG-R13: the train takes every open chip (default) or, literally, only the open gold")
    open_robbers_score: bool = Field(
        default=False,
        description="GG-R14: captured robbers still lying open at the end score 2 each (literal) instead of "
                    "nothing (default)")
    end_counts_hidden_robbers: bool = Field(
        default=False,
        description="GG-R15: face-down robbers count as gold chips for the 'too little gold left' end "
                    "(literal), not only face-down gold (default)")


class Stack(Value):
    """A face-up robber on the board with the chips it has taken, waiting to be challenged (GG-11)."""

    field: str
    robber: str
    loot: tuple[str, ...] = ()


Phase = Literal["roll", "move", "reveal", "robber", "brawl", "away_roll", "away", "raft", "over"]


class GoldgraeberState(Value):
    """Everything on and beside the board that the table has told us, and whose input is due.

    The options ride along because the rules consult them and `Game` methods only see the state.
    """

    options: GoldgraeberOptions = GoldgraeberOptions.model_validate({})
    names: tuple[str, ...]
    houses: tuple[int, ...]
    figures: tuple[str, ...]
    open_chips: tuple[tuple[str, ...], ...]
    home_chips: tuple[tuple[str, ...], ...]
    face_down: tuple[str, ...]
    unseen: tuple[int, ...]
    stacks: tuple[Stack, ...] = ()
    rafts: tuple[str, ...]
    locomotive: int = 0
    current: int
    phase: Phase = "roll"
    actor: int
    steps: int = 0
    defender: int | None = None
    attacker_roll: int | None = None
    fight_field: str | None = None
    end_reason: Literal["train", "gold"] | None = None


class Roll(DiceRoll):
    """One die face as read from the die: `L` (locomotive) or `2` ... `6`."""


class Move(ActionModel):
    """Move the figure whose move is due to a field."""

    to: str


class Reveal(ActionModel):
    """What the chip just turned over shows."""

    chip: Literal["gold", "robber"]
    value: int


class Raft(ActionModel):
    """Take the raft (with the figure on it) to a shore field of the same lake."""

    to: str


class Look(ActionModel):
    """Variant: look secretly at the neighbouring face-down chips instead of rolling."""


@dataclass(frozen=True)
class ChipOdds:
    """What the chips still unseen say about any face-down chip (GG-8)."""

    unseen: int
    robber_chance: float
    expected_gold: float


def chip_odds(state: GoldgraeberState) -> ChipOdds:
    """Chance that a face-down chip hides a robber, and the expected nuggets of a dig."""
    total = sum(state.unseen)
    if total == 0:
        return ChipOdds(unseen=0, robber_chance=0.0, expected_gold=0.0)
    robbers = sum(count for kind, count in zip(CHIP_KINDS, state.unseen) if kind[0] == "R")
    gold = sum(int(kind[1]) * count for kind, count in zip(CHIP_KINDS, state.unseen) if kind[0] == "G")
    return ChipOdds(unseen=total, robber_chance=robbers / total, expected_gold=gold / total)


def assign_houses(player_colours: list[str], house_colours: tuple[str, ...]) -> tuple[int, ...]:
    """A house per seat (GG-1): the house named by the player's colour, else the house whose colour looks
    nearest to the player's screen colour, else the first house left over."""
    claimed: dict[int, int] = {}
    for seat, wanted in enumerate(player_colours):
        names = [colour.lower() for colour in house_colours]
        if wanted.lower() in names and names.index(wanted.lower()) not in claimed.values():
            claimed[seat] = names.index(wanted.lower())
    for seat, wanted in enumerate(player_colours):
        rgb = hex_rgb(wanted)
        free = [house for house in range(len(house_colours)) if house not in claimed.values()]
        if seat in claimed or rgb is None or not free:
            continue
        claimed[seat] = min(free, key=lambda house: sum((a - b) ** 2 for a, b in
                                                         zip(rgb, hex_rgb(house_colours[house]) or (128, 128, 128))))
    left = iter([house for house in range(len(house_colours)) if house not in claimed.values()])
    return tuple(claimed[seat] if seat in claimed else next(left) for seat in range(len(player_colours)))


class Goldgraeber(Game[GoldgraeberState, GoldgraeberOptions]):
    """The rules of Goldgräber."""

    id, title, rule_prefix = "goldgraeber", "Goldgräber", "GG"
    min_players, max_players = 3, 6

    @property
    def board(self) -> Board:
        return load_board()

    # -- setup (GG-1) ------------------------------------------------------------------------------
    def board_files(self, setup: Setup) -> tuple[Path, ...]:
        return (DEFAULT_LAYOUT,)

    def initial_state(self, setup: Setup) -> GoldgraeberState:
        board = self.board
        seats = len(setup.players)
        houses = assign_houses([player.colour or "" for player in setup.players], board.house_colours)
        return GoldgraeberState(
            houses=houses, names=tuple(player.name for player in setup.players),
            figures=tuple(board.ids[board.houses[house]] for house in houses),
            open_chips=((),) * seats, home_chips=((),) * seats,
            face_down=tuple(sorted(board.ids[f] for f in board.dig_fields)),
            unseen=CHIP_POOL,
            rafts=tuple(board.ids[post] for post in board.raft_posts),
            current=setup.first_player, actor=setup.first_player, options=self.options(setup.options))

    # -- movement ----------------------------------------------------------------------------------
    def blocked_fields(self, state: GoldgraeberState, seat: int) -> set[int]:
        """Fields the figure of `seat` may neither enter nor pass: the locomotive (GG-4), other houses (GG-5)."""
        board = self.board
        blocked = {board.houses[h] for h in range(len(board.houses)) if h != state.houses[seat]}
        blocked.add(board.rail[state.locomotive])
        return blocked

    def walk_ends(self, state: GoldgraeberState, seat: int, start: int, steps: int, *,
                  train_open: bool = False, back_steps: bool | None = None) -> set[int]:
        """Fields a walk of `steps` from `start` can end on under the options (GG-3 ... GG-5, GG-20, GG-R1,
        GG-R2); `train_open` and `back_steps` ask what another rule or reading would allow."""
        board = self.board
        blocked = self.blocked_fields(state, seat)
        train = board.rail[state.locomotive]
        end_only: set[int] = set()
        if train_open:
            blocked.discard(train)
        elif state.options.locomotive_field == "may_end_there":
            blocked.discard(train)
            end_only.add(train)
        if back_steps is None:
            back_steps = state.options.shuttle == "two_fields_only"
        return reachable(board, start, steps, blocked, back_steps=back_steps, end_only=end_only)

    def destinations(self, state: GoldgraeberState, seat: int | None = None, steps: int | None = None,
                     start: str | None = None) -> set[str]:
        """Every field the due move may end on (highlighted by the app)."""
        board = self.board
        seat = state.actor if seat is None else seat
        steps = state.steps if steps is None else steps
        start = state.figures[seat] if start is None else start
        ends = self.walk_ends(state, seat, board.index[start], steps)
        others = {f for s, f in enumerate(state.figures) if s != seat}
        allowed: set[str] = set()
        for end in ends:
            field_id = board.ids[end]
            if field_id in state.rafts and (field_id in others or field_id == start):
                continue
            allowed.add(field_id)
        return allowed

    def _through_the_wall(self, state: GoldgraeberState, start: int, target: int) -> bool:
        """Could the figure in its house reach `target` if it stepped out through a wall (GG-5)?"""
        board = self.board
        house = board.houses[state.houses[state.actor]]
        if start != house:
            return False
        hq, hr = board.coords[house]
        beside = {(hq + dq, hr + dr) for dq, dr in HEX_DIRECTIONS}
        walls = [field for field, (q, r) in enumerate(board.coords) if (q, r) in beside
                 and board.types[field] not in ("lake", "house") and field not in board.neighbours[house]]
        return any(target in self.walk_ends(state, state.actor, wall, state.steps - 1) for wall in walls)

    def _why_not_reachable(self, state: GoldgraeberState, target: str) -> Refusal:
        """The rule that keeps the due move from ending on `target`."""
        board = self.board
        seat = state.actor
        if target not in board.index:
            return refuse("move.unknown_field", N_("There is no field {field} on this board."), "GG-3",
                          field=target)
        index = board.index[target]
        kind = board.types[index]
        params = {"field": field_words(target, state), "steps": state.steps}
        if kind == "lake":
            return refuse("move.lake", N_("{field} is water: the lakes can only be crossed by raft."), "GG-15",
                          **params)
        if kind == "house" and index != board.houses[state.houses[seat]]:
            return refuse("move.other_house", N_("{field} is another player's house."), "GG-5", **params)
        if index == board.rail[state.locomotive] and state.options.locomotive_field == "closed":
            return refuse("move.locomotive", N_("The locomotive stands on {field}; it may not be entered."),
                          "GG-4", **params)
        if target in state.rafts and target in state.figures and state.figures[seat] != target:
            return refuse("move.raft_taken", N_("The raft on {field} already carries a figure."), "GG-15",
                          **params)
        if target in state.rafts and target == state.figures[seat]:
            return refuse("move.raft_again", N_("A figure on a raft must leave it over land."), "GG-15", **params)
        start = board.index[state.figures[seat]]
        if index in self.walk_ends(state, seat, start, state.steps, train_open=True):
            return refuse("move.past_locomotive", N_("{field} can only be reached by passing the locomotive."),
                          "GG-4", **params)
        literal = state.options.shuttle == "two_fields_only"
        if not literal and index in self.walk_ends(state, seat, start, state.steps, back_steps=True):
            return refuse("move.shuttle", N_("{field} can only be reached by stepping straight back: no going "
                                             "back and forth."), "GG-20", **params)
        if literal and (index == start if state.steps % 2 == 0 else index in board.neighbours[start]):
            return refuse("move.shuttle", N_("{field} can only be reached by going back and forth between two "
                                             "fields."), "GG-20", **params)
        if kind == "house":
            return refuse("move.house_count", N_("Your house is entered only through its door and with the "
                                                 "exact count; {steps} does not get there."), "GG-5", **params)
        if self._through_the_wall(state, start, index):
            return refuse("move.house_wall", N_("Your house is left only through its door; {field} cannot be "
                                                "reached that way with exactly {steps}."), "GG-5", **params)
        if state.phase == "away":
            after = "GG-13" if state.defender is not None else "GG-10"
            return refuse("move.away_count", N_("After the fight the figure moves away exactly {steps} fields; "
                                                "{field} is not one of them."), after, **params)
        return refuse("move.not_reachable", N_("{field} cannot be reached with exactly {steps} steps."), "GG-3",
                      **params)

    # -- validation --------------------------------------------------------------------------------
    def _validate_move(self, state: GoldgraeberState, action: Move) -> Refusal | None:
        if action.to not in self.destinations(state):
            return self._why_not_reachable(state, action.to)
        return None

    def _validate_roll(self, state: GoldgraeberState, action: Roll) -> Refusal | None:
        refusal = check_dice(self.prompt(state), action.values, DICE)
        if refusal is not None and refusal.code == "roll.face" and refusal.params["face"] == "1":
            return refuse("roll.one", N_("The die has no 1: that face shows the locomotive (L)."), "GG-2")
        return refusal

    def _validate_reveal(self, state: GoldgraeberState, action: Reveal) -> Refusal | None:
        if not 1 <= action.value <= 5:
            return refuse("reveal.value", N_("Chips show 1 to 5, not {value}."), "GG-8", value=action.value)
        kind = f"{'G' if action.chip == 'gold' else 'R'}{action.value}"
        if state.unseen[CHIP_KINDS.index(kind)] == 0:
            return refuse("reveal.none_left", N_("No {chip} chip of value {value} can still be face down: all "
                                                 "of them have been turned already."), "GG-8",
                          chip=CHIP_WORDS[action.chip], value=action.value)
        return None

    def _validate_raft(self, state: GoldgraeberState, action: Raft) -> Refusal | None:
        board = self.board
        here = board.index[state.figures[state.actor]]
        target = board.index.get(action.to)
        if target is None or board.lake_of_shore.get(target) != board.lake_of_shore[here]:
            return refuse("raft.other_lake", N_("{field} is not on the shore of this lake."), "GG-15",
                          field=action.to if target is None else field_words(action.to, state))
        if action.to == state.figures[state.actor]:
            return refuse("raft.stay", N_("The raft must be taken to another shore field."), "GG-15",
                          field=field_words(action.to, state))
        if action.to in state.rafts:
            return refuse("raft.occupied", N_("Another raft already lies at {field}."), "GG-15",
                          field=field_words(action.to, state))
        if action.to in state.figures:
            return refuse("raft.figure", N_("A figure stands on {field}; rafts carry one figure and nobody "
                                            "brawls on a raft."), "GG-14",
                          field=field_words(action.to, state))
        return None

    def _validate_look(self, state: GoldgraeberState, action: Look | None = None) -> Refusal | None:
        if not self._look_enabled(state):
            return refuse("look.off", N_("Looking at chips instead of rolling is a variant that is not in "
                                         "play."), "GG-19")
        if not self._chips_next_to(state, state.current):
            return refuse("look.nothing", N_("There is no face-down chip next to your figure."), "GG-19")
        return None

    # -- what is due -------------------------------------------------------------------------------
    def _look_enabled(self, state: GoldgraeberState) -> bool:
        return state.options.look_variant

    def to_move(self, state: GoldgraeberState) -> int | None:
        return self.phase_player(state, state.actor)

    def prompt(self, state: GoldgraeberState) -> Prompt:
        die = (DIE_FACES,)
        seat = state.actor
        names = {"seat": seat}
        player, expects = self.to_move(state), self.expects(state)
        if state.phase == "over":
            return Prompt(player=player, expects=expects, message=N_("The game is over."))
        if state.phase == "roll":
            return Prompt(player=player, expects=expects, message=N_("Roll the die."), params=names,
                          dice=die, roll_action="roll")
        if state.phase in ("move", "away"):
            return Prompt(player=player, expects=expects, message=N_("Move your figure exactly {steps} fields."),
                          params={**names, "steps": state.steps})
        if state.phase == "reveal":
            return Prompt(player=player, expects=expects, message=N_("Turn the chip on {field} over and enter "
                                                                       "what it shows."),
                          params={**names, "field": field_words(state.figures[seat], state)})
        if state.phase == "robber":
            stack = self._stack_at(state, state.fight_field)
            strength = int(stack.robber[1]) if stack else 0
            return Prompt(player=player, expects=expects, message=N_("Fight the robber of strength {strength}: "
                                                                     "roll the die."),
                          params={**names, "strength": strength}, dice=die, roll_action="roll")
        if state.phase == "brawl":
            return Prompt(player=player, expects=expects, message=N_("Brawl: roll the die."), params=names,
                          dice=die, roll_action="roll")
        if state.phase == "away_roll":
            return Prompt(player=player, expects=expects, message=N_("You won the brawl: roll to move away."),
                          params=names, dice=die, roll_action="roll")
        return Prompt(player=player, expects=expects, message=N_("Choose a shore field for the raft."),
                      params=names)

    # -- applying ----------------------------------------------------------------------------------
    def _do_roll(self, state: GoldgraeberState, action: Roll) -> tuple[GoldgraeberState, list[Event]]:
        events: list[Event] = []
        return self._apply_roll(state, action.values[0], events), events

    def _do_move(self, state: GoldgraeberState, action: Move) -> tuple[GoldgraeberState, list[Event]]:
        figures = list(state.figures)
        figures[state.actor] = action.to
        # Into one's own house the log says "home", not "Anna moves to Anna's house".
        home = self.board.index[action.to] == self.board.houses[state.houses[state.actor]]
        events = [Event(kind="move", message=N_("{name} goes home.") if home else N_("{name} moves to {field}."),
                        params={"seat": state.actor, "name": state.names[state.actor],
                                "field": field_words(action.to, state)})]
        return self._land(state.evolve(figures=tuple(figures)), action.to, away=state.phase == "away",
                          events=events), events

    def _do_reveal(self, state: GoldgraeberState, action: Reveal) -> tuple[GoldgraeberState, list[Event]]:
        events: list[Event] = []
        return self._apply_reveal(state, action, events), events

    def _do_raft(self, state: GoldgraeberState, action: Raft) -> tuple[GoldgraeberState, list[Event]]:
        events: list[Event] = []
        return self._apply_raft(state, action.to, events), events

    def _do_look(self, state: GoldgraeberState, action: Look) -> tuple[GoldgraeberState, list[Event]]:
        fields = self._chips_next_to(state, state.current)
        events = [Event(kind="look", message=N_("{name} looks secretly at the chips on {places}."),
                        params={"seat": state.current, "name": state.names[state.current],
                                "fields": ", ".join(fields), "places": fields_words(fields, state)})]
        return self._end_turn(state, events), events

    def _apply_roll(self, state: GoldgraeberState, face: str, events: list[Event]) -> GoldgraeberState:
        seat = state.actor
        events.append(Event(kind="roll", message=N_("{name} rolled {face}."),
                            params={"seat": seat, "name": state.names[seat], "face": face_words(face)}))
        if state.phase == "roll":
            if face == LOCOMOTIVE:
                return self._advance_train(state, events)
            steps = int(face)
            if not self.destinations(state, seat, steps):
                events.append(Event(kind="no_move", message=N_("No field can be reached with exactly {steps}; "
                                                               "the turn passes."), params={"steps": steps}))
                return self._end_turn(state, events)
            return state.evolve(phase="move", steps=steps)
        value = fight_value(face)
        if state.phase == "robber":
            return self._robber_roll(state, value, events)
        if state.phase == "brawl":
            return self._brawl_roll(state, value, events)
        return self._start_away(state, state.actor, state.figures[state.actor], value, events)

    def _advance_train(self, state: GoldgraeberState, events: list[Event]) -> GoldgraeberState:
        """GG-6 and GG-7: the train moves one rail field; figures there are robbed (GG-R13) and set back."""
        board = self.board
        driver = state.current
        position = state.locomotive + 1
        rail_field = board.ids[board.rail[position]]
        events.append(Event(kind="train", message=N_("The locomotive moves to {field}."),
                            params={"field": field_words(rail_field, state), "position": position,
                                    "last": len(board.rail) - 1}))
        figures = list(state.figures)
        open_chips = list(state.open_chips)
        for seat in range(len(figures)):
            if figures[seat] != rail_field:
                continue
            gold_only = state.options.train_takes == "open_gold"
            kept = tuple(chip for chip in open_chips[seat] if gold_only and chip[0] == "R")
            taken = tuple(chip for chip in open_chips[seat] if chip not in kept)
            if seat != driver and taken:
                open_chips[driver] = open_chips[driver] + taken
                events.append(Event(kind="train_robbed", message=N_("The engine driver {driver} takes {count} open "
                                                                    "chips from {name}."),
                                    params={"seat": seat, "name": state.names[seat], "driver": state.names[driver],
                                            "count": len(taken)}))
                open_chips[seat] = kept
            behind = [board.ids[board.rail[i]] for i in range(position - 1, -1, -1)]
            figures[seat] = next((f for f in behind if f not in figures), behind[0])
            events.append(Event(kind="train_hit", message=N_("{name} is set back to {field}."),
                                params={"seat": seat, "name": state.names[seat],
                                        "field": field_words(figures[seat], state)}))
        state = state.evolve(locomotive=position, figures=tuple(figures), open_chips=tuple(open_chips))
        if position == len(board.rail) - 1:
            events.append(Event(kind="game_over", message=N_("The train has reached Golden City: the game is "
                                                             "over."), params={"reason": "train"}))
            return state.evolve(phase="over", end_reason="train")
        return self._end_turn(state, events)

    def _land(self, state: GoldgraeberState, field: str, away: bool, events: list[Event]) -> GoldgraeberState:
        """What the field a move ends on does (GG-8, GG-11, GG-12, GG-14 ... GG-16, GG-R6)."""
        board = self.board
        seat = state.actor
        index = board.index[field]
        if index == board.houses[state.houses[seat]]:
            return self._end_turn(self._bring_home(state, seat, events), events)
        if field in state.rafts:
            boarded = state.evolve(phase="raft")
            if self.legal_actions(boarded):
                return boarded
            events.append(Event(kind="raft_stuck", message=N_("Every other shore field is taken; the raft stays."),
                                params={"seat": seat}))
            return self._end_turn(state, events)
        if away:
            return self._end_turn(state, events)
        others = [(other - seat) % len(state.figures) for other, f in enumerate(state.figures)
                  if f == field and other != seat]
        if others and index not in board.town:
            defender = (seat + min(others)) % len(state.figures)
            events.append(Event(kind="brawl", message=N_("Brawl on {field}: {name} attacks {defender}!"),
                                params={"seat": seat, "name": state.names[seat], "defender": state.names[defender],
                                        "field": field_words(field, state)}))
            return state.evolve(phase="brawl", defender=defender, fight_field=field)
        if field in state.face_down:
            return state.evolve(phase="reveal", fight_field=field)
        stack = self._stack_at(state, field)
        if stack is not None:
            events.append(Event(kind="challenge", message=N_("{name} challenges the robber of strength {strength} "
                                                             "on {field}."),
                                params={"seat": seat, "name": state.names[seat], "field": field_words(field, state),
                                        "strength": int(stack.robber[1])}))
            return state.evolve(phase="robber", fight_field=field)
        return self._end_turn(state, events)

    def _bring_home(self, state: GoldgraeberState, seat: int, events: list[Event]) -> GoldgraeberState:
        """GG-16: every open chip goes into the house, where it is safe."""
        chips = state.open_chips[seat]
        if not chips:
            return state
        events.append(Event(kind="home", message=N_("{name} brings {count} chips home ({points} points)."),
                            params={"seat": seat, "name": state.names[seat], "count": len(chips),
                                    "points": sum(chip_points(c) for c in chips)}))
        return state.evolve(open_chips=_replace(state.open_chips, seat, ()),
                            home_chips=_replace(state.home_chips, seat, state.home_chips[seat] + chips))

    def _apply_reveal(self, state: GoldgraeberState, action: Reveal, events: list[Event]) -> GoldgraeberState:
        """GG-8 ... GG-10: the turned chip leaves the unseen pool; gold is taken, a robber fights."""
        kind = f"{'G' if action.chip == 'gold' else 'R'}{action.value}"
        field = state.figures[state.actor]
        unseen = list(state.unseen)
        unseen[CHIP_KINDS.index(kind)] -= 1
        state = state.evolve(unseen=tuple(unseen), face_down=tuple(f for f in state.face_down if f != field))
        if action.chip == "gold":
            events.append(Event(kind="gold", message=N_("{name} finds gold worth {value}."),
                                params={"seat": state.actor, "name": state.names[state.actor], "value": action.value}))
            carried = state.open_chips[state.actor] + (kind,)
            state = state.evolve(open_chips=_replace(state.open_chips, state.actor, carried))
            return self._end_turn(state, events)
        events.append(Event(kind="robber", message=N_("{name} finds a robber of strength {value}!"),
                            params={"seat": state.actor, "name": state.names[state.actor], "value": action.value,
                                    "field": field_words(field, state)}))
        stacks = tuple(sorted(state.stacks + (Stack(field=field, robber=kind),), key=lambda s: s.field))
        return state.evolve(stacks=stacks, phase="robber", fight_field=field)

    def _robber_roll(self, state: GoldgraeberState, value: int, events: list[Event]) -> GoldgraeberState:
        """GG-10 and GG-11: beat the robber's strength to capture it (with its loot), else lose your chips."""
        seat = state.actor
        stack = self._stack_at(state, state.fight_field)
        assert stack is not None and state.fight_field is not None
        strength = int(stack.robber[1])
        if value == strength:
            events.append(Event(kind="tie", message=N_("Tie with the robber: roll again."), params={"seat": seat}))
            return state
        others = tuple(s for s in state.stacks if s.field != stack.field)
        if value > strength:
            message = (N_("{name} captures the robber with {count} chips.") if stack.loot else
                       N_("{name} captures the robber."))
            events.append(Event(kind="robber_captured", message=message,
                                params={"seat": seat, "name": state.names[seat], "count": len(stack.loot)}))
            taken = state.open_chips[seat] + (stack.robber,) + stack.loot
            state = state.evolve(stacks=others, open_chips=_replace(state.open_chips, seat, taken))
            return self._end_turn(state, events)
        lost = state.open_chips[seat]
        message = (N_("The robber beats {name} and keeps {count} chips.") if lost else
                   N_("The robber wins; {name} has no chips to lose."))
        events.append(Event(kind="robber_won", message=message,
                            params={"seat": seat, "name": state.names[seat], "count": len(lost)}))
        grown = stack.evolve(loot=stack.loot + lost)
        state = state.evolve(stacks=tuple(sorted(others + (grown,), key=lambda s: s.field)),
                             open_chips=_replace(state.open_chips, seat, ()))
        return self._start_away(state, seat, stack.field, value, events)

    def _brawl_roll(self, state: GoldgraeberState, value: int, events: list[Event]) -> GoldgraeberState:
        """GG-12: attacker rolls, defender rolls; ties repeat; the winner takes the loser's open chips."""
        attacker, defender = state.current, state.defender
        assert defender is not None
        if state.attacker_roll is None:
            return state.evolve(attacker_roll=value, actor=defender)
        if value == state.attacker_roll:
            events.append(Event(kind="tie", message=N_("Tie: the brawl goes on."), params={"seat": attacker}))
            return state.evolve(attacker_roll=None, actor=attacker)
        winner, loser = (attacker, defender) if state.attacker_roll > value else (defender, attacker)
        taken = state.open_chips[loser]
        message = (N_("{name} wins the brawl and takes {count} chips from {loser}.") if taken else
                   N_("{name} wins the brawl; {loser} has no chips to lose."))
        events.append(Event(kind="brawl_won", message=message,
                            params={"seat": winner, "name": state.names[winner], "loser": state.names[loser],
                                    "count": len(taken)}))
        open_chips = _replace(state.open_chips, winner, state.open_chips[winner] + taken)
        open_chips = _replace(open_chips, loser, ())
        return state.evolve(open_chips=open_chips, phase="away_roll", actor=winner, attacker_roll=None)

    def _start_away(self, state: GoldgraeberState, seat: int, start: str, steps: int,
                    events: list[Event]) -> GoldgraeberState:
        """GG-10 / GG-13: the figure must move away `steps` fields (without turning chips)."""
        if not self.destinations(state, seat, steps, start):
            events.append(Event(kind="no_move", message=N_("No field can be reached with exactly {steps}; "
                                                           "the figure stays."), params={"steps": steps}))
            return self._end_turn(state, events)
        return state.evolve(phase="away", actor=seat, steps=steps)

    def _apply_raft(self, state: GoldgraeberState, target: str, events: list[Event]) -> GoldgraeberState:
        """GG-15: raft and figure cross to the chosen shore field; the raft stays there."""
        here = state.figures[state.actor]
        rafts = tuple(target if raft == here else raft for raft in state.rafts)
        events.append(Event(kind="raft", message=N_("{name} crosses the lake by raft to {field}."),
                            params={"seat": state.actor, "name": state.names[state.actor], "from": here,
                                    "field": field_words(target, state)}))
        state = state.evolve(rafts=rafts, figures=_replace(state.figures, state.actor, target))
        return self._end_turn(state, events)

    def _end_turn(self, state: GoldgraeberState, events: list[Event]) -> GoldgraeberState:
        """Pass to the left of the player whose turn it was (GG-1, GG-13), unless the gold ran out (GG-17)."""
        left = self.gold_on_board(state)
        if left <= len(state.figures):
            events.append(Event(kind="game_over", message=N_("Only {left} gold left on the board: the game is "
                                                             "over."), params={"left": left, "reason": "gold"}))
            return state.evolve(phase="over", end_reason="gold", defender=None, attacker_roll=None, fight_field=None)
        following = (state.current + 1) % len(state.figures)
        return state.evolve(current=following, actor=following, phase="roll", steps=0, defender=None,
                            attacker_roll=None, fight_field=None)

    # -- reading the state -------------------------------------------------------------------------
    def gold_on_board(self, state: GoldgraeberState) -> int:
        """Gold still on the board, as the early end counts it (GG-17, GG-R7, GG-R12, GG-R15)."""
        nuggets = state.options.end_count == "nuggets"
        hidden_robbers = state.options.end_counts_hidden_robbers and not nuggets  # a robber has no nuggets
        face_down = sum((int(kind[1]) if nuggets else 1) * count
                        for kind, count in zip(CHIP_KINDS, state.unseen) if kind[0] == "G" or hidden_robbers)
        if not state.options.end_counts_stack_gold:
            return face_down
        in_stacks = sum((int(chip[1]) if nuggets else 1) for stack in state.stacks for chip in stack.loot
                        if chip[0] == "G")
        return face_down + in_stacks

    def _stack_at(self, state: GoldgraeberState, field: str | None) -> Stack | None:
        return next((stack for stack in state.stacks if stack.field == field), None)

    def _chips_next_to(self, state: GoldgraeberState, seat: int) -> list[str]:
        board = self.board
        here = board.index[state.figures[seat]]
        return sorted(board.ids[n] for n in board.neighbours[here] if board.ids[n] in state.face_down)

    def legal_actions(self, state: GoldgraeberState) -> list[ActionModel]:
        """Every allowed action (few enough to list in every phase)."""
        return self.listed_actions(state) or []

    def _rolls(self, state: GoldgraeberState) -> list[Roll]:
        return [Roll(values=(face,)) for face in DIE_FACES]

    def _looks(self, state: GoldgraeberState) -> list[Look]:
        return [Look()] if self._validate_look(state) is None else []

    def _moves(self, state: GoldgraeberState) -> list[Move]:
        return [Move(to=field) for field in sorted(self.destinations(state))]

    def _reveals(self, state: GoldgraeberState) -> list[Reveal]:
        return [Reveal(chip="gold" if kind[0] == "G" else "robber", value=int(kind[1]))
                for kind, count in zip(CHIP_KINDS, state.unseen) if count]

    def _rafts(self, state: GoldgraeberState) -> list[Raft]:
        board = self.board
        lake = board.lake_of_shore[board.index[state.figures[state.actor]]]
        return [Raft(to=board.ids[f]) for f in board.lake_shores[lake]
                if self._validate_raft(state, Raft(to=board.ids[f])) is None]

    # The phase table (GG-1, GG-17, GG-19) and the handler per action.  Looking is accepted whenever a roll
    # is due, so with the variant off it is refused by its own rule rather than as "not now".
    not_now_message = N_("Not now: first do what the screen asks for.")
    phases = FrozenDict({
        "roll": PhaseRule(allows=("roll", "look"), rule="GG-1",
                          offered={"look": lambda state: state.options.look_variant}),
        "move": PhaseRule(allows=("move",), rule="GG-1"),
        "away": PhaseRule(allows=("move",), rule="GG-1"),
        "reveal": PhaseRule(allows=("reveal",), rule="GG-1"),
        "robber": PhaseRule(allows=("roll",), rule="GG-1"),
        "brawl": PhaseRule(allows=("roll",), rule="GG-1"),
        "away_roll": PhaseRule(allows=("roll",), rule="GG-1"),
        "raft": PhaseRule(allows=("raft",), rule="GG-1"),
        "over": PhaseRule(allows=(), rule="GG-17", seated=False,
                          otherwise=lambda state: refuse("game.over", N_("The game is over."), "GG-17")),
    })
    handlers = FrozenDict({
        Roll: Handler(_validate_roll, _do_roll), Move: Handler(_validate_move, _do_move),
        Reveal: Handler(_validate_reveal, _do_reveal), Raft: Handler(_validate_raft, _do_raft),
        Look: Handler(_validate_look, _do_look)})
    candidates = FrozenDict({
        "roll": _rolls, "look": _looks, "move": _moves, "reveal": _reveals, "raft": _rafts})

    def is_over(self, state: GoldgraeberState) -> bool:
        return state.phase == "over"

    def scores(self, state: GoldgraeberState) -> list[int]:
        """Points in each house (GG-18); open chips count nothing, unless GG-R14's option lets open captured
        robbers score."""
        counted = state.home_chips
        if state.options.open_robbers_score:
            counted = tuple(home + tuple(chip for chip in carried if chip[0] == "R")
                            for home, carried in zip(state.home_chips, state.open_chips))
        return [sum(chip_points(chip) for chip in chips) for chips in counted]


def _replace(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]
