"""Demo games for screenshots, benchmarks and tests: a four-player game (Digger unless asked for another)
played by a simple, deterministic policy through the Session (so every move is checked by the rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from companion.engine.core import Player, Setup, roll_rng
from companion.engine.journal import Journal
from companion.engine.registry import autoplay_for, get_game
from companion.engine.session import Session

DEMO_PLAYERS = (("Anna", "#d64541"), ("Ben", "#3a7bd5"), ("Chloé", "#2e9e5b"), ("David", "#e3b505"))


def demo_setup(game: str = "digger", seed: int = 7) -> Setup:
    """Four demo players, or as many as the game allows."""
    rules = get_game(game)
    count = max(rules.min_players, min(len(DEMO_PLAYERS), rules.max_players))
    return Setup(game=game, players=tuple(Player(name=n, colour=c) for n, c in DEMO_PLAYERS[:count]), seed=seed)


MAX_GENERIC_MOVES = 300


def next_move(session: Session) -> dict[str, Any] | None:
    """The demo policy.  Digger: roll; take every colour the roll allows (robbing when it can); stop
    after taking something or after three rolls.  Other games: roll when dice are due, else the game's
    own autoplay (seeded as the Pi's rolls are, by the game's seed and the move's number, so a demo game
    is the same every time and reaches its end with real scores), else the first legal action.  None when
    the game is over."""
    state: Any = session.state
    if session.is_over():
        return None
    if session.setup.game != "digger":
        return _generic_move(session)
    if not state.roll:
        return {"type": "roll"}
    legal = session.game.legal_actions(state) or []
    for action in legal:
        if action.type == "rob":
            return action.model_dump(mode="json")
    for action in legal:
        if action.type == "take":
            return action.model_dump(mode="json")
    if state.waiting.total() or state.rolls >= 3:
        return {"type": "stop"}
    return {"type": "roll"}


def _generic_move(session: Session) -> dict[str, Any] | None:
    prompt = session.prompt()
    if prompt.dice and prompt.roll_action and prompt.roll_action in prompt.expects:
        return {"type": "roll"}
    choose = autoplay_for(session.setup.game)
    if choose is not None:
        action = choose(session.game, session.state, roll_rng(session.setup.seed, len(session.actions)))
        return dict(action.model_dump(mode="json"))
    legal = session.game.legal_actions(session.state) or []
    return legal[0].model_dump(mode="json") if legal else None


def play_move(session: Session) -> bool:
    """Play one demo move (rolls come from the seeded virtual roller); False when the game is over."""
    move = next_move(session)
    if move is None:
        return False
    if move == {"type": "roll"}:
        outcome = session.virtual_roll("virtual")
        return outcome is not None and outcome.accepted
    return session.submit(move, "touch").accepted


def demo_session(journal_path: Path | None, moves: int | None, game: str = "digger") -> Session:
    """A Digger session after `moves` demo moves (None: to the end of the game)."""
    journal = Journal(journal_path) if journal_path is not None else None
    session = Session.new(demo_setup(game), journal)
    count = 0
    limit = moves if moves is not None else (None if game == "digger" else MAX_GENERIC_MOVES)
    while (limit is None or count < limit) and play_move(session):
        count += 1
    return session
