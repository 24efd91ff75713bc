"""The Pi as a Chinagold opponent, hints for people, and the greedy baseline it is measured against.

Search runs on bit masks (one bit per site) with the engine's own capture routine
(`rules.apply_turn_masks`), and proposes engine actions (`Turn`, `Bury`).  The bot is an expectimax
search with chance nodes for the opponent's tile throw:

1. for every legal move: the gold it wins or gives away at once;
2. minus the opponent's expected best reply, averaged over every throw the tiles in play allow (or their
   best choice of one or two markers once the tiles are gone);
3. plus a share of our own expected best follow-up on the board we leave;
4. while time remains, the most promising moves are searched one level deeper: every reply the
   opponent could make to each throw, each followed by our own expected best answer.

Only lines that cover every remaining hidden marker of some region can capture anything, so the best
reply is found from the few nearly finished regions instead of from all ~200 lines.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from itertools import product
from random import Random

from companion.engine.core import ActionModel
from companion.games.chinagold.board import Board
from companion.games.chinagold.geometry import MAX_LINE, count_lines
from companion.games.chinagold.rules import (
    FREE_MOVE_MAX,
    GOLD,
    HIDDEN,
    ROLE_NAMES,
    TILE_FACES,
    Bury,
    Chinagold,
    ChinagoldState,
    Throw,
    Turn,
    apply_turn_masks,
    site_mask,
    tiles_for,
)
from companion.games.chinagold.words import site_words

#: Weight of our own next-turn chances in the two-level evaluation.
FOLLOW_UP_WEIGHT = 0.4
#: How many of the best two-level moves get the deeper search, at most.
DEEP_CANDIDATES = 12


@dataclass(frozen=True)
class Move:
    """A candidate move on masks: a line to turn (`bury` False) or one gold site to bury."""

    mask: int
    start: int
    end: int
    bury: bool = False

    def action(self) -> ActionModel:
        return Bury(site=self.start) if self.bury else Turn(start=self.start, end=self.end)


@dataclass(frozen=True)
class Position:
    """The part of a state the search needs, as masks."""

    board: Board
    hidden: int
    gold: int
    to_move: int
    total: int | None
    opponent_clears_alone: bool


def position_of(state: ChinagoldState) -> Position:
    return Position(board=Chinagold.board(state), hidden=site_mask(state.sites, HIDDEN),
                    gold=site_mask(state.sites, GOLD), to_move=state.to_move, total=state.total,
                    opponent_clears_alone=state.opponent_clears_alone)


@cache
def throw_distribution(tiles: tuple[str, ...]) -> tuple[tuple[int, float], ...]:
    """Each possible sum of the tiles with its probability (every face equally likely)."""
    outcomes = list(product(*(TILE_FACES[tile] for tile in tiles)))
    counts: dict[int, int] = {}
    for faces in outcomes:
        counts[sum(faces)] = counts.get(sum(faces), 0) + 1
    return tuple((total, count / len(outcomes)) for total, count in sorted(counts.items()))


def moves(board: Board, hidden: int, gold: int, total: int | None) -> list[Move]:
    """Every legal move for a thrown total (None: tiles gone, one or two markers, no burying)."""
    lengths = (total,) if total is not None else tuple(range(1, FREE_MOVE_MAX + 1))
    found = [Move(mask, start, end) for length in lengths for mask, start, end in board.grid.lines[length]
             if mask & hidden == mask]
    if total is not None:
        bits = gold
        while bits:
            low = bits & -bits
            found.append(Move(low, low.bit_length() - 1, low.bit_length() - 1, bury=True))
            bits ^= low
    return found


def play(board: Board, hidden: int, gold: int, move: Move, mover: int,
         opponent_clears_alone: bool) -> tuple[int, int, int]:
    """Hidden and gold masks after a move and its net gold for the mover (taken minus given away)."""
    if move.bury:
        return hidden | move.mask, gold & ~move.mask, 0
    hidden, gold, captures = apply_turn_masks(board, hidden, gold, move.mask, mover, opponent_clears_alone)
    net = 0
    for seat, _, taken in captures:
        net += taken.bit_count() if seat == mover else -taken.bit_count()
    return hidden, gold, net


def _open_regions(board: Board, hidden: int) -> list[int]:
    """Hidden-marker masks of every region (both kinds) that one line could still finish."""
    found = []
    for regions in (board.mountains, board.rivers):
        for region in regions:
            left = region & hidden
            if left and left.bit_count() <= MAX_LINE:
                found.append(left)
    return found


def best_net(board: Board, hidden: int, gold: int, player: int, length: int, can_bury: bool,
             opponent_clears_alone: bool, open_regions: list[int]) -> int:
    """The most gold `player` can net with one line of `length` (0 when a quiet move exists)."""
    lines = board.grid.lines[length]
    through = board.grid.lines_through[length]
    seen: set[int] = set()
    best: int | None = None
    for left in open_regions:
        if left.bit_count() > length:
            continue
        anchor = (left & -left).bit_length() - 1
        for number in through[anchor]:
            mask = lines[number][0]
            if number in seen or mask & hidden != mask or mask & left != left:
                continue
            seen.add(number)
            net = play(board, hidden, gold, Move(mask, 0, 0), player, opponent_clears_alone)[2]
            if best is None or net > best:
                best = net
    if best is None:
        return 0
    if best < 0 and (can_bury or count_lines(board.grid, hidden, length, stop_at=len(seen) + 1) > len(seen)):
        return 0
    return best


def expected_best(board: Board, hidden: int, gold: int, player: int, opponent_clears_alone: bool) -> float:
    """What `player` can expect to net on their next turn from this board (their throw still unknown)."""
    if not hidden:
        return 0.0
    open_regions = _open_regions(board, hidden)
    if not open_regions:
        return 0.0
    tiles = tiles_for(board.grid, hidden)
    if not tiles:
        return float(max(best_net(board, hidden, gold, player, length, False, opponent_clears_alone, open_regions)
                         for length in range(1, FREE_MOVE_MAX + 1)))
    return sum(chance * best_net(board, hidden, gold, player, total, gold != 0, opponent_clears_alone,
                                 open_regions) for total, chance in throw_distribution(tiles))


def _two_level(pos: Position, move: Move) -> tuple[float, int, int]:
    """Score of a move: its net gold, minus the opponent's expected reply, plus our follow-up."""
    hidden, gold, net = play(pos.board, pos.hidden, pos.gold, move, pos.to_move, pos.opponent_clears_alone)
    opponent = 1 - pos.to_move
    threat = expected_best(pos.board, hidden, gold, opponent, pos.opponent_clears_alone)
    chance = expected_best(pos.board, hidden, gold, pos.to_move, pos.opponent_clears_alone)
    return net - threat + FOLLOW_UP_WEIGHT * chance, hidden, gold


def _three_level(pos: Position, move: Move, deadline: float) -> float | None:
    """Net gold of a move minus the opponent's expected best reply, each reply answered by our best."""
    board, me = pos.board, pos.to_move
    opponent = 1 - me
    hidden, gold, net = play(board, pos.hidden, pos.gold, move, me, pos.opponent_clears_alone)
    if not hidden:
        return float(net)
    tiles = tiles_for(board.grid, hidden)
    totals = throw_distribution(tiles) if tiles else ((None, 1.0),)
    expected_reply = 0.0
    for total, chance in totals:
        best_reply: float | None = None
        for reply in moves(board, hidden, gold, total):
            if time.monotonic() > deadline:
                return None
            after_hidden, after_gold, reply_net = play(board, hidden, gold, reply, opponent,
                                                       pos.opponent_clears_alone)
            value = reply_net - expected_best(board, after_hidden, after_gold, me, pos.opponent_clears_alone)
            if best_reply is None or value > best_reply:
                best_reply = value
        expected_reply += chance * (best_reply or 0.0)
    return net - expected_reply


def choose_move(pos: Position, seconds: float = 1.0, seed: int = 0) -> Move:
    """The bot's move for the player to move (the tiles already thrown, or gone)."""
    deadline = time.monotonic() + seconds * 0.8
    candidates = moves(pos.board, pos.hidden, pos.gold, pos.total)
    if not candidates:
        raise ValueError("no legal move: the tiles must be thrown first, or the game is over")
    rng = Random(seed ^ pos.hidden ^ (pos.gold << 1))
    rng.shuffle(candidates)
    immediate = [play(pos.board, pos.hidden, pos.gold, move, pos.to_move, pos.opponent_clears_alone)[2]
                 for move in candidates]
    order = sorted(range(len(candidates)), key=lambda index: -immediate[index])
    two_level: list[tuple[float, int, Move]] = []
    for index in order:
        if two_level and time.monotonic() > deadline:
            break
        two_level.append((_two_level(pos, candidates[index])[0], index, candidates[index]))
    scored = sorted(two_level, key=lambda entry: (-entry[0], entry[1]))
    best = scored[0][2]
    deep: list[tuple[float, Move]] = []
    for value, _, move in scored[:DEEP_CANDIDATES]:
        if time.monotonic() > deadline:
            break
        result = _three_level(pos, move, deadline)
        if result is None:
            break
        deep.append((result + FOLLOW_UP_WEIGHT * 0.5 * value, move))
    if len(deep) >= 2:
        best = max(deep, key=lambda entry: entry[0])[1]
    return best


def greedy_move(pos: Position, rng: Random) -> Move:
    """The baseline: the move that nets the most gold right now; ties broken at random among lines."""
    candidates = moves(pos.board, pos.hidden, pos.gold, pos.total)
    lines = [move for move in candidates if not move.bury]
    scored = [(play(pos.board, pos.hidden, pos.gold, move, pos.to_move, pos.opponent_clears_alone)[2], move)
              for move in lines]
    best = max(value for value, _ in scored)
    if best < 0 and len(lines) < len(candidates):
        return rng.choice([move for move in candidates if move.bury])
    return rng.choice([move for value, move in scored if value == best])


def choose_action(game: Chinagold, state: ChinagoldState, rng: Random) -> ActionModel:
    """The game's autoplay (see `GamePlugin`): the tiles thrown from `rng`, then the greedy baseline's move,
    so demo games and random playouts run as people's games do."""
    if "throw" in game.expects(state):
        return Throw(values=tuple(rng.choice(TILE_FACES[tile]) for tile in state.tiles))
    return greedy_move(position_of(state), rng).action()


def hint(state: ChinagoldState, seconds: float = 1.0) -> ActionModel | None:
    """The bot's suggestion for whoever is to move; None when the phase table offers no turn (the tiles
    must be thrown, or the game is over)."""
    if "turn" not in Chinagold().expects(state):
        return None
    return choose_move(position_of(state), seconds).action()


def describe_action(state: ChinagoldState, action: ActionModel) -> str:
    """A move in words for the table (`goldtable chinagold hint`, the app's Pi-opponent banner)."""
    role = ROLE_NAMES[state.to_move]
    if isinstance(action, Bury):
        return f"{role}: bury the gold at {site_words(action.site, state)}"
    assert isinstance(action, Turn)
    if action.start == action.end:
        return f"{role}: turn the marker at {site_words(action.start, state)}"
    return f"{role}: turn the markers from {site_words(action.start, state)} to {site_words(action.end, state)}"
