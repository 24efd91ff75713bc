"""Chinagold rules (CG-1 ... in docs/rules/chinagold.md): throw tiles, turn a line or bury, captures.

The state keeps one character per site: `h` hidden marker, `g` gold side up, `M` taken by the mountain
player (seat 0), `R` taken by the river player (seat 1).  A taken site is a gap.  The tile set is a
function of the board (CG-9..CG-12) and is recomputed after every move, so the stored `tiles` always
match the board.  Internally masks (one bit per site) make the checks cheap.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from companion.engine.core import N_, ActionModel, DiceRefusals, Event, Prompt, Refusal, Setup, Value, refuse
from companion.engine.rules_kit import FrozenDict, Game, Handler, PhaseRule, check_dice
from companion.games.chinagold.board import BOARD_DIR, GENERATED, Board, get_board
from companion.games.chinagold.geometry import Grid, count_lines, sites_of
from companion.games.chinagold.words import player_words, site_words

HIDDEN, GOLD = "h", "g"
TAKEN = ("M", "R")
ROLE_NAMES = (N_("mountains"), N_("rivers"))

#: The three throw tiles by name, with their two faces.
TILE_FACES: dict[str, tuple[int, int]] = {"0|1": (0, 1), "0|2": (0, 2), "1|2": (1, 2)}
FULL_TILES = ("0|1", "0|2", "1|2")
FIVE_GONE = ("0|2", "1|2")
FOUR_GONE = ("0|1", "1|2")
FREE_MOVE_MAX = 2


class ChinagoldOptions(BaseModel):
    """Choices made before the game: which board, how the river sheet lies, and the open readings."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    board: str = Field("default", description="Board file in layouts/chinagold/ (without .json), or "
                       "generated-EDGE-SEED for a board made from a seed (EDGE 6 = 91 sites, 5 = 61 sites).")
    overlay: int = Field(0, ge=0, le=11, description="CG-1: the way the river sheet lies on the "
                         "mountains, 0 as printed, 1-5 turned by 60-degree steps, 6-11 flipped over and turned.")
    opponent_clears_alone: bool = Field(True, description="CG-R1: a move that completes only the opponent's "
                                        "region lets the opponent clear it (on) or leaves it gold (off).")


class Throw(ActionModel):
    """The faces the tiles in play show, one per tile in the prompt's order (CG-3)."""

    values: tuple[int, ...]


class Turn(ActionModel):
    """Turn every marker on the straight line from `start` to `end` gold side up (CG-4, CG-11)."""

    start: int
    end: int


class Bury(ActionModel):
    """Turn one gold marker back down instead of turning the thrown number (CG-5)."""

    site: int


class ChinagoldState(Value):
    """Where the game stands.  `board`/`overlay` name the board; `total` is the thrown sum, if any."""

    board: str
    overlay: int
    opponent_clears_alone: bool
    sites: str
    to_move: int
    phase: Literal["throw", "move", "over"]
    tiles: tuple[str, ...]
    thrown: tuple[int, ...] = ()
    total: int | None = None
    turn: int = 1


DICE = DiceRefusals(rule="CG-3", count_code="throw.count",
                    count_message=N_("{want} tiles are in play but {got} values were given."), face_code="throw.face",
                    face_message=N_("Tile {tile} has no side {value}."))


def _throw_not_now(state: ChinagoldState) -> Refusal:
    """A throw while the line is due: none when no tiles are left (CG-11), else already thrown (CG-3)."""
    if not state.tiles:
        return refuse("throw.no_tiles", N_("No tiles are in play any more: turn one marker or two neighbouring "
                                           "ones."), "CG-11")
    return refuse("throw.not_now", N_("The tiles were already thrown this turn ({total})."), "CG-3",
                  total=state.total)


def tiles_for(g: Grid, hidden: int) -> tuple[str, ...]:
    """The tiles in play for a board (CG-9..CG-12): fewer as long straight runs of hidden markers vanish."""
    if count_lines(g, hidden, 3, stop_at=2) <= 1:
        return ()
    if count_lines(g, hidden, 4, stop_at=2) <= 1:
        return FOUR_GONE
    if count_lines(g, hidden, 5, stop_at=2) <= 1:
        return FIVE_GONE
    return FULL_TILES


def site_mask(sites: str, char: str) -> int:
    """Bit mask of the sites showing `char` (bit i = site i)."""
    mask = 0
    position = sites.find(char)
    while position >= 0:
        mask |= 1 << position
        position = sites.find(char, position + 1)
    return mask


def apply_turn_masks(board: Board, hidden: int, gold: int, line: int, mover: int,
                     opponent_clears_alone: bool) -> tuple[int, int, list[tuple[int, list[int], int]]]:
    """Turn `line` gold and resolve captures (CG-6, CG-7).

    Returns the new hidden and gold masks and the captures as (seat, region numbers, taken mask), the
    mover's first.  Shared with the bot, so what it searches is exactly what the engine plays.
    """
    hidden &= ~line
    gold |= line
    captures: list[tuple[int, list[int], int]] = []
    mover_taken = 0
    for seat in (mover, 1 - mover):
        regions = board.regions(seat)
        touched = {board.region_of(seat, site) for site in sites_of(line)}
        completed = [number for number in sorted(touched) if regions[number] & hidden == 0
                     and regions[number] & gold]
        if seat != mover and not mover_taken and not opponent_clears_alone:
            completed = []
        taken = 0
        for number in completed:
            taken |= regions[number] & gold
        if seat == mover:
            mover_taken = taken
        if completed:
            gold &= ~taken
            captures.append((seat, completed, taken))
    return hidden, gold, captures


class Chinagold(Game[ChinagoldState, ChinagoldOptions]):
    """Two players dig on the same sites, one for mountains, one for rivers; whoever completes a region
    takes its gold."""

    id, title, rule_prefix = "chinagold", "Chinagold", "CG"
    min_players, max_players = 2, 2

    # -- setup -----------------------------------------------------------------------------------------
    def options(self, raw: Mapping[str, Any]) -> ChinagoldOptions:
        options = super().options(raw)
        if not GENERATED.match(options.board):
            get_board(options.board, options.overlay)  # a missing or broken board is a UserError now
        return options

    def board_files(self, setup: Setup) -> tuple[Path, ...]:
        """A named board's file; a generated board is made from its seed and has none."""
        board = str(setup.options.get("board", "default"))
        return () if GENERATED.match(board) else (BOARD_DIR / f"{board}.json",)

    def initial_state(self, setup: Setup) -> ChinagoldState:
        options = self.options(setup.options)
        board = get_board(options.board, options.overlay)
        hidden = board.grid.all_mask
        tiles = tiles_for(board.grid, hidden)
        return ChinagoldState(board=options.board, overlay=options.overlay,
                              opponent_clears_alone=options.opponent_clears_alone,
                              sites=HIDDEN * board.size, to_move=setup.first_player,
                              phase="throw" if tiles else "move", tiles=tiles)

    @staticmethod
    def board(state: ChinagoldState) -> Board:
        return get_board(state.board, state.overlay)

    # -- rules -----------------------------------------------------------------------------------------
    def validate(self, state: ChinagoldState, action: ActionModel) -> Refusal | None:
        """The phase table and the action's handler (Game.validate); an action of another game is named."""
        if type(action) not in self.handlers and state.phase != "over":
            return refuse("action.unknown", N_("Chinagold has no action {type}."), "CG-2", type=action.type)
        return super().validate(state, action)

    def _check_throw(self, state: ChinagoldState, action: Throw) -> Refusal | None:
        return check_dice(self.prompt(state), action.values, DICE, tile=state.tiles)

    def _check_turn(self, state: ChinagoldState, action: Turn) -> Refusal | None:
        board = self.board(state)
        for site in (action.start, action.end):
            if not 0 <= site < board.size:
                return refuse("turn.site", N_("There is no site {site} on this board."), "CG-1", site=site)
        line = board.grid.line_between(action.start, action.end)
        if line is None:
            return refuse("turn.not_straight", N_("{start_words} and {end_words} do not lie on one "
                                                  "straight line."), "CG-4", start=action.start, end=action.end,
                          start_words=site_words(action.start, state), end_words=site_words(action.end, state))
        if state.total is None:
            if len(line) > FREE_MOVE_MAX:
                return refuse("turn.length", N_("Without tiles you turn one marker or two "
                                                "neighbouring ones, not {got}."), "CG-11", got=len(line))
        elif len(line) != state.total:
            return refuse("turn.length", N_("The tiles show {want}: turn exactly {want} markers, "
                                            "not {got}."), "CG-4", want=state.total, got=len(line))
        for site in line:
            if state.sites[site] in TAKEN:
                return refuse("turn.gap", N_("The marker at {place} is already gone; a line may not "
                                             "cross a gap."), "CG-8", site=site, place=site_words(site, state))
        for site in line:
            if state.sites[site] == GOLD:
                return refuse("turn.gold", N_("The marker at {place} already shows gold; a line may not "
                                              "include gold."), "CG-4", site=site, place=site_words(site, state))
        return None

    def _check_bury(self, state: ChinagoldState, action: Bury) -> Refusal | None:
        if state.total is None:
            return refuse("bury.no_tiles", N_("No tiles are in play any more, so gold can no "
                                              "longer be buried."), "CG-11")
        if not 0 <= action.site < len(state.sites):
            return refuse("bury.site", N_("There is no site {site} on this board."), "CG-1", site=action.site)
        if state.sites[action.site] != GOLD:
            return refuse("bury.not_gold", N_("The marker at {place} shows no gold to bury."), "CG-5",
                          site=action.site, place=site_words(action.site, state))
        return None

    def _apply_throw(self, state: ChinagoldState, action: Throw) -> tuple[ChinagoldState, list[Event]]:
        total = sum(action.values)
        event = Event(kind="throw", message=N_("{name} throws {total}."),
                      params={"role": ROLE_NAMES[state.to_move], "seat": state.to_move,
                              "name": player_words(state.to_move), "total": total})
        return state.evolve(phase="move", thrown=action.values, total=total), [event]

    def _apply_site(self, state: ChinagoldState, action: Turn | Bury) -> tuple[ChinagoldState, list[Event]]:
        """Turn a line or bury a gold, resolve captures, hand over (CG-4 ... CG-8)."""
        board = self.board(state)
        sites = list(state.sites)
        events: list[Event] = []
        if isinstance(action, Bury):
            sites[action.site] = HIDDEN
            events.append(Event(kind="bury", message=N_("The gold at {place} is turned face down again."),
                                params={"site": action.site, "place": site_words(action.site, state)}))
        else:
            assert isinstance(action, Turn)
            line = board.grid.line_between(action.start, action.end) or ()
            hidden, gold = site_mask(state.sites, HIDDEN), site_mask(state.sites, GOLD)
            line_mask = sum(1 << site for site in line)
            hidden, gold, captures = apply_turn_masks(board, hidden, gold, line_mask, state.to_move,
                                                      state.opponent_clears_alone)
            for site in line:
                sites[site] = GOLD
            events.append(Event(kind="turn", message=N_("Marker turned: {start}.") if len(line) == 1 else
                                N_("{count} markers turned: {start} to {end}."),
                                params={"count": len(line), "sites": list(line), "start": site_words(line[0], state),
                                        "end": site_words(line[-1], state)}))
            for seat, regions, taken in captures:
                for site in sites_of(taken):
                    sites[site] = TAKEN[seat]
                ids = board.region_ids(seat)
                events.append(Event(kind="capture" if seat == state.to_move else "clear",
                                    message=N_("{name} takes {gold} gold."),
                                    params={"role": ROLE_NAMES[seat], "seat": seat, "name": player_words(seat),
                                            "gold": taken.bit_count(),
                                            "regions": ", ".join(ids[n] for n in regions)}))
        return self._next_turn(state, board, "".join(sites), events)

    def _next_turn(self, state: ChinagoldState, board: Board, sites: str,
                   events: list[Event]) -> tuple[ChinagoldState, list[Event]]:
        """Hand over to the other player with the tile set the board now allows (CG-9..CG-13)."""
        hidden = site_mask(sites, HIDDEN)
        tiles = tiles_for(board.grid, hidden)
        if tiles != state.tiles:
            events.append(Event(kind="tiles", message=N_("Tiles in play now: {tiles}."),
                                params={"tiles": ", ".join(tiles) or N_("none")}))
        over = hidden == 0
        if over:
            events.append(Event(kind="over", message=N_("Every site is cleared.")))
        update = {"sites": sites, "to_move": 1 - state.to_move, "tiles": tiles, "thrown": (), "total": None,
                  "phase": "over" if over else ("throw" if tiles else "move"), "turn": state.turn + 1}
        return state.evolve(**update), events

    def _turns(self, state: ChinagoldState) -> list[Turn]:
        """Every line of unturned markers the throw (or the free move) allows."""
        board = self.board(state)
        hidden = site_mask(state.sites, HIDDEN)
        lengths = (state.total,) if state.total is not None else tuple(range(1, FREE_MOVE_MAX + 1))
        return [Turn(start=start, end=end) for length in lengths
                for mask, start, end in board.grid.lines[length] if mask & hidden == mask]

    def _buries(self, state: ChinagoldState) -> list[Bury]:
        return [Bury(site=site) for site in sites_of(site_mask(state.sites, GOLD))]

    def to_move(self, state: ChinagoldState) -> int | None:
        return self.phase_player(state, state.to_move)

    def legal_actions(self, state: ChinagoldState) -> list[ActionModel] | None:
        """Every turn and bury allowed now (throws are chance: None while the tiles are due)."""
        return self.listed_actions(state)

    def prompt(self, state: ChinagoldState) -> Prompt:
        role = {"role": ROLE_NAMES[state.to_move]}
        player, expects = self.to_move(state), self.expects(state)
        if state.phase == "over":
            return Prompt(player=player, expects=expects, message=N_("The game is over."))
        if state.phase == "throw":
            return Prompt(player=player, expects=expects, message=N_("Throw the tiles."), params=role,
                          dice=tuple(tuple(str(face) for face in TILE_FACES[tile]) for tile in state.tiles),
                          roll_action="throw")
        if state.total is None:
            return Prompt(player=player, expects=expects, message=N_("Turn one marker or two "
                          "neighbouring ones."), params=role)
        return Prompt(player=player, expects=expects, message=N_("Turn {total} markers "
                      "in a straight line, or bury one gold."), params=role | {"total": state.total})

    # The phase table (CG-3 ... CG-5, CG-11, CG-13) and the handler per action.
    phases = FrozenDict({
        "throw": PhaseRule(allows=("throw",), rule="CG-3", refusals={
            "turn": lambda state: refuse("turn.before_throw", N_("Throw the tiles first."), "CG-3"),
            "bury": lambda state: refuse("bury.before_throw", N_("Throw the tiles first; burying replaces "
                                                                 "turning the thrown number."), "CG-5")}),
        "move": PhaseRule(allows=("turn", "bury"), rule="CG-4", offered={"bury": lambda state: state.total is not None},
                          refusals={"throw": _throw_not_now}),
        "over": PhaseRule(allows=(), rule="CG-13", seated=False,
                          otherwise=lambda state: refuse("game.over", N_("The game is over."), "CG-13")),
    })
    handlers = FrozenDict({
        Throw: Handler(_check_throw, _apply_throw), Turn: Handler(_check_turn, _apply_site),
        Bury: Handler(_check_bury, _apply_site)})
    candidates = FrozenDict({
        "turn": _turns, "bury": _buries})

    # -- outcome ---------------------------------------------------------------------------------------
    def is_over(self, state: ChinagoldState) -> bool:
        return state.phase == "over"

    def scores(self, state: ChinagoldState) -> list[int]:
        return [state.sites.count(TAKEN[0]), state.sites.count(TAKEN[1])]
