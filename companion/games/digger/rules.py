"""Digger (Roberto Fraga): roll five colour dice against a 30-second sand timer and grab unique colours.

Rule ids (DIG-n, DIG-Rn) refer to docs/rules/digger.md.  The engine never reads a clock: the sand timer
runs in the app (companion.engine.countdown.Countdown) and its end enters the game as a `time_up` action.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, combinations_with_replacement
from pathlib import Path
from random import Random
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from companion.engine.core import N_, ActionModel, DiceRefusals, Event, Prompt, Refusal, Setup, Value, refuse
from companion.engine.errors import UserError
from companion.engine.rules_kit import DiceRoll, FrozenDict, Game, Handler, PhaseRule, roll_check
from companion.games.digger.cards import DEFAULT_CARDS_FILE, SCORING_COLOURS, Card, DiggerCardsLayout, load_cards
from companion.games.digger.words import faces_words

Colour = Literal["B", "Y", "R", "G", "W"]
COLOURS: tuple[Colour, ...] = ("B", "Y", "R", "G", "W")  # blue (water), yellow, red, green, white
BLACK = "K"
FACES: tuple[str, ...] = COLOURS + (BLACK,)
DICE_COUNT = 5
STONES_PER_COLOUR = 10
ROBBABLE: tuple[Colour, ...] = ("Y", "R", "G", "W")
COLOUR_NAMES = {"B": "blue", "Y": "yellow", "R": "red", "G": "green", "W": "white", "K": "black"}


# -- options ----------------------------------------------------------------------------------------
class DiggerOptions(BaseModel):
    """Variants and the readings we chose (docs/rules/digger.md, DIG-R1 ... DIG-R6)."""

    model_config = ConfigDict(extra="forbid")

    side: Literal["white", "black"] = Field("white", description="Scoring-card side: white (basic game, all "
                                            "cards alike) or black (the variant, every card different)")
    cards_file: str | None = Field(None, description="The owner's own card file instead of "
                                   "layouts/digger_cards.json")
    black_cards: tuple[str, ...] | None = Field(None, description="Black card id per seat (black side only); "
                                                "dealt by the seed when left out")
    timer_seconds: int = Field(30, ge=5, le=600, description="Length of the sand timer in seconds")
    fumble_robbed_to: Literal["middle", "owner"] = Field("middle", description="DIG-R1: where stones robbed "
                                                         "in a fumbled turn go")
    game_end: Literal["no_blue_after_turn", "blue_ran_out_in_turn"] = Field(
        "no_blue_after_turn", description="DIG-R2: when the last blue stone counts as gone")
    fumble_needs_black: bool = Field(True, description="DIG-R3: a fumble can only be entered after a roll "
                                     "that allows robbing")
    blue_to_tin_at_once: bool = Field(False, description="DIG-R4: blue stones go into the tin as soon as "
                                      "they are taken")
    time_up_keeps_stowed: bool = Field(True, description="DIG-R5: at time up the table may mark colours "
                                       "already stowed, which the digger keeps")
    tie_break: Literal["shared", "most_stones"] = Field("shared", description="DIG-R6: how a tie for the "
                                                        "best score is settled")

    @field_validator("cards_file")
    @classmethod
    def _cards_file_readable(cls, path: str | None) -> str | None:
        """A bad card file is reported where the option is set (record, options file, Options screen)."""
        if path is not None:
            try:
                load_cards(path)
            except UserError as error:
                raise ValueError(str(error)) from None
        return path

    @field_validator("black_cards")
    @classmethod
    def _black_cards_known(cls, chosen: tuple[str, ...] | None, info: ValidationInfo) -> tuple[str, ...] | None:
        """Each chosen card must exist in the card file, and one physical card can sit at one seat only."""
        if chosen is None or "cards_file" not in info.data:
            return chosen
        known = {card.id for card in load_cards(info.data["cards_file"]).black}
        for seat, card_id in enumerate(chosen):
            if card_id not in known:
                raise ValueError(f"seat {seat}: no black card {card_id!r} (known: {', '.join(sorted(known))})")
            if chosen.index(card_id) != seat:
                raise ValueError(f"seat {seat}: card {card_id!r} is already held by seat {chosen.index(card_id)}")
        return chosen


class DiggerRules(Value):
    """The option values the rules need while playing, carried in the state so it is self-contained."""

    timer_seconds: int
    fumble_robbed_to: Literal["middle", "owner"]
    game_end: Literal["no_blue_after_turn", "blue_ran_out_in_turn"]
    fumble_needs_black: bool
    blue_to_tin_at_once: bool
    time_up_keeps_stowed: bool
    tie_break: Literal["shared", "most_stones"]


# -- state ------------------------------------------------------------------------------------------
class Stones(Value):
    """A heap of stones counted per colour (the middle, the stones waiting, one player's box)."""

    B: int = 0
    Y: int = 0
    R: int = 0
    G: int = 0
    W: int = 0

    def count(self, colour: str) -> int:
        return int(getattr(self, colour))

    def plus(self, colour: str, amount: int = 1) -> Stones:
        return self.evolve(**{colour: getattr(self, colour) + amount})

    def total(self) -> int:
        return self.B + self.Y + self.R + self.G + self.W

    def only(self, colours: tuple[str, ...] | frozenset[str]) -> Stones:
        """The stones of the given colours, the others left out."""
        return Stones(**{colour: self.count(colour) for colour in colours})

    def add(self, other: Stones) -> Stones:
        return Stones(B=self.B + other.B, Y=self.Y + other.Y, R=self.R + other.R, G=self.G + other.G,
                      W=self.W + other.W)

    def subtract(self, other: Stones) -> Stones:
        return Stones(B=self.B - other.B, Y=self.Y - other.Y, R=self.R - other.R, G=self.G - other.G,
                      W=self.W - other.W)


class Robbery(Value):
    """One stone robbed this turn: its colour and the seat it came from (for DIG-R1 "owner")."""

    colour: str
    victim: int


class DiggerState(Value):
    """Everything on the table.  Blue stones in boxes are always 0: stowed blue goes into the tin."""

    names: tuple[str, ...]
    cards: tuple[Card, ...]
    rules: DiggerRules
    middle: Stones
    boxes: tuple[Stones, ...]
    tin: int = 0
    waiting: Stones = Stones()
    robbed: tuple[Robbery, ...] = ()
    digger: int
    keeper: int
    turn: int = 1
    rolls: int = 0
    roll: tuple[str, ...] = ()
    claimed: tuple[str, ...] = ()
    timer_running: bool = False
    blue_ran_out: bool = False
    over: bool = False


# -- actions ----------------------------------------------------------------------------------------
class Roll(DiceRoll):
    """The five colour dice as they lie."""


class Take(ActionModel):
    """Take one stone of a colour from the middle."""

    colour: Colour


class Rob(ActionModel):
    """Rob one stone of a colour from another player's box."""

    colour: Colour  # blue is read, then refused by DIG-6 rather than by the schema
    victim: int


class Stop(ActionModel):
    """The digger has stowed everything and calls Stop before the sand ran out."""


class Fumble(ActionModel):
    """While robbing, the digger touched or shifted a neighbouring pile."""


class TimeUp(ActionModel):
    """The sand ran out before Stop.  `stowed`: colours the table saw already stowed (blue: in the tin)."""

    stowed: tuple[Colour, ...] = ()


# Every distinct roll once (faces sorted): the dice are identical, so order never matters to the rules.
ALL_ROLLS: tuple[Roll, ...] = tuple(Roll(values=values)
                                    for values in combinations_with_replacement(FACES, DICE_COUNT))
# Actions are values, so legal_actions hands out shared instances instead of building new ones each time.
_TAKES = {colour: Take(colour=colour) for colour in COLOURS}
_ROBS = {(colour, seat): Rob(colour=colour, victim=seat) for colour in ROBBABLE for seat in range(5)}
_STOP = Stop()
_FUMBLE = Fumble()


@lru_cache(maxsize=64)
def _time_ups(waiting: tuple[Colour, ...], may_mark_stowed: bool) -> tuple[TimeUp, ...]:
    """Every time-up the table may enter: each subset of the waiting colours marked as stowed."""
    sizes = range(len(waiting) + 1) if may_mark_stowed else range(1)
    return tuple(TimeUp(stowed=subset) for size in sizes for subset in combinations(waiting, size))


DICE = DiceRefusals(rule="DIG-2", count_code="roll.dice_count",
                    count_message=N_("Roll all five dice at once, not {count}."), face_code="roll.bad_face",
                    face_message=N_("A colour die has no face {face}; its faces are B Y R G W K."))


def unique_colours(roll: tuple[str, ...]) -> tuple[Colour, ...]:
    """Stone colours that show on exactly one die (DIG-4)."""
    return tuple(colour for colour in COLOURS if roll.count(colour) == 1)


def may_rob(roll: tuple[str, ...]) -> bool:
    """Robbing needs black on exactly one die (DIG-6)."""
    return roll.count(BLACK) == 1


def takeable(state: DiggerState) -> list[Colour]:
    """Colours the digger may still take from the middle after this roll (DIG-4, DIG-5)."""
    return [colour for colour in unique_colours(state.roll)
            if colour not in state.claimed and state.middle.count(colour)]


def robbable(state: DiggerState) -> list[Colour]:
    """Colours the digger may still rob from another box after this roll (DIG-4, DIG-6)."""
    if not may_rob(state.roll):
        return []
    return [colour for colour in unique_colours(state.roll) if colour != "B" and colour not in state.claimed
            and any(box.count(colour) for seat, box in enumerate(state.boxes) if seat != state.digger)]


class Digger(Game[DiggerState, DiggerOptions]):
    """The rules of Digger."""

    id, title, rule_prefix = "digger", "Digger", "DIG"
    min_players, max_players = 2, 5

    # -- setup -------------------------------------------------------------------------------------
    def board_files(self, setup: Setup) -> tuple[Path, ...]:
        cards_file = setup.options.get("cards_file")
        return (Path(cards_file) if cards_file else DEFAULT_CARDS_FILE,)

    def initial_state(self, setup: Setup) -> DiggerState:
        """All 50 stones in the middle, one card per seat; the first digger's right neighbour keeps time.

        Options that fail validation raise pydantic's ValidationError (callers name the file they came from).
        """
        options = DiggerOptions.model_validate(setup.options)
        self.check_setup(setup)
        players = len(setup.players)
        cards = self._cards(options, players, setup.seed)
        first = setup.first_player % players
        rules = DiggerRules(**options.model_dump(include=set(DiggerRules.model_fields)))
        return DiggerState(
            names=tuple(player.name for player in setup.players), cards=cards, rules=rules,
            middle=Stones(**dict.fromkeys(COLOURS, STONES_PER_COLOUR)),
            boxes=tuple(Stones() for _ in range(players)), digger=first, keeper=(first - 1) % players)

    @staticmethod
    def _cards(options: DiggerOptions, players: int, seed: int) -> tuple[Card, ...]:
        """White side: the same card for all.  Black side: the chosen cards, else dealt by the seed (DIG-15)."""
        layout: DiggerCardsLayout = load_cards(options.cards_file)
        if options.side == "white":
            return tuple(Card.from_values("white", "white", layout.white) for _ in range(players))
        by_id = {card.id: card for card in layout.black}
        chosen = options.black_cards
        if chosen is None:
            chosen = tuple(Random(f"digger-cards:{seed}").sample(sorted(by_id), players))
        if len(chosen) != players:
            raise UserError(f"options: black_cards: {len(chosen)} card ids for {players} players")
        return tuple(Card.from_values(card_id, "black", by_id[card_id]) for card_id in chosen)

    # -- rules -------------------------------------------------------------------------------------
    def phase_of(self, state: DiggerState) -> str:
        """`start` before the turn's first roll, `rolled` after it, `over` at the end."""
        return "over" if state.over else ("rolled" if state.roll else "start")

    def _check_take(self, state: DiggerState, action: Take) -> Refusal | None:
        return self._check_claim(state, action.colour) or self._check_middle(state, action.colour)

    def _check_robbing(self, state: DiggerState, action: Rob) -> Refusal | None:
        return self._check_claim(state, action.colour) or self._check_rob(state, action)

    def _check_fumble(self, state: DiggerState, action: Fumble) -> Refusal | None:
        if state.rules.fumble_needs_black and not may_rob(state.roll):
            return refuse("fumble.not_robbing",
                          N_("A fumble can only happen while robbing, and this roll does not allow robbing."),
                          "DIG-R3")
        return None

    def _check_stop(self, state: DiggerState, action: Stop) -> Refusal | None:
        return None  # always allowed once the turn has begun

    @staticmethod
    def _check_claim(state: DiggerState, colour: str) -> Refusal | None:
        """One stone per colour shown on exactly one die, once per roll (DIG-4, DIG-6)."""
        shown = state.roll.count(colour)
        if shown != 1:
            return refuse("claim.not_unique",
                          N_("{colour} shows on {count} dice; only a colour on exactly one die may be taken."), "DIG-4",
                          colour=COLOUR_NAMES[colour], count=shown)
        if colour in state.claimed:
            return refuse("claim.already",
                          N_("A {colour} stone was already taken for this roll; roll again for another."), "DIG-4",
                          colour=COLOUR_NAMES[colour])
        return None

    @staticmethod
    def _check_middle(state: DiggerState, colour: str) -> Refusal | None:
        if state.middle.count(colour) == 0:
            return refuse("take.none_left", N_("No {colour} stone is left in the middle."), "DIG-5",
                          colour=COLOUR_NAMES[colour])
        return None

    @staticmethod
    def _check_rob(state: DiggerState, action: Rob) -> Refusal | None:
        if action.colour not in ROBBABLE:
            return refuse("rob.blue", N_("Blue stones can never be robbed; take them from the middle."), "DIG-6")
        if not may_rob(state.roll):
            return refuse("rob.no_black", N_("Robbing needs black on exactly one die; it shows on {count}."), "DIG-6",
                          count=state.roll.count(BLACK))
        if not 0 <= action.victim < len(state.names):
            return refuse("rob.no_such_player", N_("There is no seat {victim}."), "DIG-6", victim=action.victim)
        if action.victim == state.digger:
            return refuse("rob.self", N_("The digger cannot rob their own box."), "DIG-6")
        if state.boxes[action.victim].count(action.colour) == 0:
            return refuse("rob.empty", N_("{victim} has no {colour} stone to rob."), "DIG-6",
                          victim=state.names[action.victim], colour=COLOUR_NAMES[action.colour])
        return None

    def _check_time_up(self, state: DiggerState, action: TimeUp) -> Refusal | None:
        if not state.timer_running:
            return refuse("time_up.not_running", N_("The sand timer is not running."), "DIG-12")
        if action.stowed and not state.rules.time_up_keeps_stowed:
            return refuse("time_up.no_stowing",
                          N_("With this house rule nothing counts as stowed when the sand runs out."), "DIG-R5")
        for colour in action.stowed:
            if state.waiting.count(colour) == 0:
                return refuse("time_up.nothing_to_stow",
                              N_("No {colour} stone is waiting, so none can have been stowed."), "DIG-12",
                              colour=COLOUR_NAMES[colour])
        if len(set(action.stowed)) != len(action.stowed):
            return refuse("time_up.repeated_colour", N_("Name each stowed colour once."), "DIG-12")
        return None

    # -- applying ----------------------------------------------------------------------------------
    def _stop(self, state: DiggerState, action: Stop) -> tuple[DiggerState, list[Event]]:
        return self._end_turn(state, stowed=COLOURS, reason="stop")

    def _fumble(self, state: DiggerState, action: Fumble) -> tuple[DiggerState, list[Event]]:
        return self._end_turn(state, stowed=(), reason="fumble")

    def _time_up(self, state: DiggerState, action: TimeUp) -> tuple[DiggerState, list[Event]]:
        return self._end_turn(state, stowed=tuple(action.stowed), reason="time_up")

    def _roll(self, state: DiggerState, action: Roll) -> tuple[DiggerState, list[Event]]:
        events = []
        if not state.timer_running:
            events.append(Event(kind="timer_start", message=N_("{keeper}: turn the sand timer now."),
                                params={"keeper": state.names[state.keeper], "seconds": state.rules.timer_seconds}))
        events.append(Event(kind="rolled", message=N_("{digger} rolled {faces}."),
                            params={"digger": state.names[state.digger], "faces": faces_words(action.values),
                                    "unique": list(unique_colours(action.values)), "rob": may_rob(action.values)}))
        return state.evolve(roll=tuple(action.values), rolls=state.rolls + 1, claimed=(), timer_running=True), events

    def _take(self, state: DiggerState, action: Take) -> tuple[DiggerState, list[Event]]:
        colour = action.colour
        middle = state.middle.plus(colour, -1)
        update: dict[str, object] = {"middle": middle, "claimed": state.claimed + (colour,)}
        if colour == "B" and state.rules.blue_to_tin_at_once:
            update["tin"] = state.tin + 1
        else:
            update["waiting"] = state.waiting.plus(colour)
        if colour == "B" and middle.B == 0:
            update["blue_ran_out"] = True
        event = Event(kind="took", message=N_("{digger} took a {colour} stone from the middle."),
                      params={"digger": state.names[state.digger], "colour": COLOUR_NAMES[colour]})
        return state.evolve(**update), [event]

    def _rob(self, state: DiggerState, action: Rob) -> tuple[DiggerState, list[Event]]:
        boxes = list(state.boxes)
        boxes[action.victim] = boxes[action.victim].plus(action.colour, -1)
        event = Event(kind="robbed", message=N_("{digger} robbed a {colour} stone from {victim}."),
                      params={"digger": state.names[state.digger], "colour": COLOUR_NAMES[action.colour],
                              "victim": state.names[action.victim]})
        return state.evolve(boxes=tuple(boxes), waiting=state.waiting.plus(action.colour),
                            claimed=state.claimed + (action.colour,),
                            robbed=state.robbed + (Robbery(colour=action.colour, victim=action.victim),)), [event]

    def _end_turn(self, state: DiggerState, stowed: tuple[str, ...],
                  reason: Literal["stop", "fumble", "time_up"]) -> tuple[DiggerState, list[Event]]:
        """Stow what counts as stowed, send the rest back (DIG-9, DIG-10, DIG-12), pass the dice (DIG-3)."""
        kept = state.waiting.only(tuple(stowed))
        lost = state.waiting.subtract(kept)
        boxes = list(state.boxes)
        boxes[state.digger] = boxes[state.digger].add(kept.evolve(B=0))
        middle = state.middle.add(lost)
        if reason == "fumble" and state.rules.fumble_robbed_to == "owner":
            for robbery in state.robbed:
                middle = middle.plus(robbery.colour, -1)
                boxes[robbery.victim] = boxes[robbery.victim].plus(robbery.colour)
        digger = state.names[state.digger]
        messages = {"stop": N_("{digger} called Stop and keeps {kept} stone(s)."),
                    "fumble": N_("{digger} fumbled: {lost} stone(s) taken this turn go back."),
                    "time_up": N_("Time is up for {digger}: {lost} stone(s) go back to the middle.")}
        if (kept if reason == "stop" else lost).total() == 0:  # said without "0 stones"
            messages = {"stop": N_("{digger} called Stop with no stone to keep."),
                        "fumble": N_("{digger} fumbled; no stone taken this turn has to go back."),
                        "time_up": N_("Time is up for {digger}; no stone has to go back.")}
        events = [Event(kind=reason, message=messages[reason],
                        params={"digger": digger, "kept": kept.total(), "lost": lost.total()})]
        players = len(state.names)
        ended = middle.B == 0 or (state.rules.game_end == "blue_ran_out_in_turn" and state.blue_ran_out)
        update: dict[str, object] = {
            "boxes": tuple(boxes), "middle": middle, "tin": state.tin + kept.B, "waiting": Stones(),
            "robbed": (), "rolls": 0, "roll": (), "claimed": (), "timer_running": False}
        if ended:
            update["over"] = True
            new_state = state.evolve(**update)
            scores = self.scores(new_state)
            events.append(Event(kind="game_over", message=N_("No blue stone is left in the middle: the game is over."),
                                params={"scores": dict(zip(state.names, scores))}))
            return new_state, events
        update.update({"digger": (state.digger + 1) % players, "keeper": state.digger, "turn": state.turn + 1})
        new_state = state.evolve(**update)
        events.append(Event(kind="next_turn", message=N_("{digger} digs next; {keeper} keeps the time."),
                            params={"digger": state.names[new_state.digger], "keeper": digger}))
        return new_state, events

    # -- choices -----------------------------------------------------------------------------------
    def legal_actions(self, state: DiggerState) -> list[ActionModel]:
        """Every allowed action.  The rolls come first, each distinct roll once with its faces in B Y R G W K
        order (any order of the same faces is equally legal), so `[len(ALL_ROLLS):]` is the digger's choices."""
        return self.listed_actions(state) or []

    @staticmethod
    def _takes(state: DiggerState) -> list[Take]:
        return [_TAKES[colour] for colour in takeable(state)]

    @staticmethod
    def _robs(state: DiggerState) -> list[Rob]:
        return [_ROBS[colour, seat] for colour in robbable(state) for seat, box in enumerate(state.boxes)
                if seat != state.digger and box.count(colour)]

    @staticmethod
    def _time_up_choices(state: DiggerState) -> tuple[TimeUp, ...]:
        waiting = tuple(colour for colour in COLOURS if state.waiting.count(colour))
        return _time_ups(waiting, state.rules.time_up_keeps_stowed)

    def to_move(self, state: DiggerState) -> int | None:
        return self.phase_player(state, state.digger)

    def prompt(self, state: DiggerState) -> Prompt:
        dice = (FACES,) * DICE_COUNT
        who = {"digger": state.names[state.digger], "keeper": state.names[state.keeper], "turn": state.turn}
        player, expects = self.to_move(state), self.expects(state)
        if state.over:
            return Prompt(player=player, expects=expects, message=N_("The game is over."), params=who)
        if not state.roll:
            return Prompt(player=player, expects=expects, dice=dice, roll_action="roll", params=who,
                          message=N_("{digger}: roll all five colour dice. {keeper} turns the sand timer "
                                     "at the first roll."))
        return Prompt(player=player, expects=expects, dice=dice, roll_action="roll",
                      params=who | {"take": takeable(state), "rob": robbable(state),
                                    "waiting": state.waiting.model_dump()},
                      message=N_("{digger}: take or rob what this roll allows, roll again, or stow and call "
                                 "Stop. {keeper} calls time when the sand runs out."))

    # The phase table (DIG-3, DIG-4, DIG-6, DIG-11 ... DIG-13) and the handler per action.  A time-up is
    # accepted before the first roll too, so it is refused by its own rule (the sand is not running).
    phases = FrozenDict({
        "start": PhaseRule(allows=("roll", "time_up"), rule="DIG-11", offered={"time_up": lambda state: False},
                           otherwise=lambda state: refuse(
                               "turn.roll_first",
                               N_("{digger} has not rolled yet; a turn starts with a roll of all five dice."),
                               "DIG-11", digger=state.names[state.digger])),
        "rolled": PhaseRule(allows=("roll", "take", "rob", "stop", "fumble", "time_up"), rule="DIG-4", offered={
            "take": lambda state: bool(takeable(state)), "rob": lambda state: bool(robbable(state)),
            "fumble": lambda state: not state.rules.fumble_needs_black or may_rob(state.roll)}),
        "over": PhaseRule(allows=(), rule="DIG-13", seated=False,
                          otherwise=lambda state: refuse("game.over", N_("The game is over."), "DIG-13")),
    })
    handlers = FrozenDict({
        Roll: Handler(roll_check(DICE), _roll), Take: Handler(_check_take, _take),
        Rob: Handler(_check_robbing, _rob), Stop: Handler(_check_stop, _stop),
        Fumble: Handler(_check_fumble, _fumble), TimeUp: Handler(_check_time_up, _time_up)})
    candidates = FrozenDict({
        "roll": lambda game, state: ALL_ROLLS, "take": lambda game, state: game._takes(state),
        "rob": lambda game, state: game._robs(state), "stop": lambda game, state: (_STOP,),
        "fumble": lambda game, state: (_FUMBLE,), "time_up": lambda game, state: game._time_up_choices(state)})

    # -- outcome -----------------------------------------------------------------------------------
    def is_over(self, state: DiggerState) -> bool:
        return state.over

    def scores(self, state: DiggerState) -> list[int]:
        """Stones in the box times the card's value of their colour; blue scores nothing (DIG-14)."""
        return [sum(box.count(colour) * card.value(colour) for colour in SCORING_COLOURS)
                for box, card in zip(state.boxes, state.cards)]

    def winners(self, state: DiggerState) -> list[int]:
        """Best score wins; a tie is shared unless DIG-R6 `most_stones` prefers the fuller box."""
        best = super().winners(state)
        if state.rules.tie_break == "most_stones" and len(best) > 1:
            most = max(state.boxes[seat].total() for seat in best)
            best = [seat for seat in best if state.boxes[seat].total() == most]
        return best
