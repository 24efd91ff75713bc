"""Random playouts of any installed game through a Session, checking at every step what every game owes the
table: the conformance suite (test_conformance.py) plays every game with them, and a game's own tests play
through them to check that game's invariants (`visit`).

At every position: the prompt agrees with the phase table and asks only for dice the game declares; every
listed action is valid; every candidate the phase table offers is valid or refused citing the game's rules;
the state survives a JSON round trip; the prompt reads in en, de and fr.  Inputs the rules refuse (a
malformed action, an action of a type the phase does not take, a roll of the wrong dice, a candidate the
rules turn down) are refused with a rule id and translated words, and leave the session exactly as it was.
Now and then a move is taken back: the state before it returns, and the put-back guide's changes lead there.
At the end the record, through JSON, replays to the same state.
"""

from __future__ import annotations

import re
import string
import typing
from collections import Counter
from collections.abc import Callable, Mapping
from random import Random
from typing import Any

import annotated_types
from hypothesis import strategies as st

from companion.app import i18n
from companion.engine.core import ActionModel, Game, Player, Setup
from companion.engine.putback import Phrase, apply_changes, changes_between, put_back, putback_for
from companion.engine.record import GameRecord, replay
from companion.engine.registry import autoplay_for, get_game, plugin_for
from companion.engine.session import Session

#: Languages a message must be translated into (English is the messages' own language).
TRANSLATED = ("de", "fr")
#: Rule ids the table itself cites besides the game's (companion/engine/session.py).
TABLE_RULE = "TABLE-"
NAMES = ("Ada", "Ben", "Cleo", "Dan", "Eve", "Fay")
#: How many of an offered type's candidates are checked at one position.
SAMPLED = 12


def options_strategy(game: Game[Any, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Random values for the options a form can choose (choices, switches, bounded numbers); every other
    option keeps its default."""
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for name, info in game.options_model.model_fields.items():
        if typing.get_origin(info.annotation) is typing.Literal:
            fields[name] = st.sampled_from(typing.get_args(info.annotation))
        elif info.annotation is bool:
            fields[name] = st.booleans()
        elif info.annotation is int:
            low = next((item.ge for item in info.metadata if isinstance(item, annotated_types.Ge)), None)
            high = next((item.le for item in info.metadata if isinstance(item, annotated_types.Le)), None)
            if low is not None and high is not None:
                fields[name] = st.integers(int(low), int(high))  # type: ignore[call-overload]
    return st.fixed_dictionaries({}, optional=fields)


def setup_for(game: Game[Any, Any], players: int, seed: int, options: Mapping[str, Any]) -> Setup:
    return Setup(game=game.id, players=tuple(Player(name=name) for name in NAMES[:players]), options=dict(options),
                 seed=seed, first_player=seed % players)


def assert_translated(domain: str, message: str, params: Mapping[str, Any]) -> None:
    """A game message (or a Phrase's words inside it) has an entry in the game's catalog (or the app's, for
    the table's own messages) in every language, keeps its placeholders there, and reads without error in
    English too.  (A message of placeholders alone, such as a list "{p0}, {p1}", has no words to translate;
    a name such as "Golden City" may be translated by itself.)"""
    has_words = re.search(r"[^\W\d_]", re.sub(r"\{[^}]*\}", "", message)) is not None
    for language in TRANSLATED:
        entries = [getattr(i18n.catalog(name, language), "_catalog", {}) for name in (domain, i18n.APP_DOMAIN)]
        assert any(message in found for found in entries) or not has_words, \
            f"{domain}: {message!r} has no {language} translation"
        translated = i18n._lookup(domain, message, language)
        assert _placeholders(translated) == _placeholders(message), f"{domain} {language}: {message!r}"
    for language in ("en", *TRANSLATED):
        assert i18n.game_text(domain, message, params, language)
    for value in params.values():
        if isinstance(value, Phrase):
            assert_translated(domain, value.message, value.params)


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def sample(items: list[ActionModel], rng: Random) -> list[ActionModel]:
    """A few of many candidates (Digger lists 252 rolls): over a game's steps, each kind gets its turn."""
    return rng.sample(items, min(len(items), SAMPLED))


def check_position(session: Session, rng: Random) -> None:
    """What the table may rely on in the session's current position (see the module's docstring)."""
    game, state = session.game, session.state
    prompt = game.prompt(state)
    row = game.phases[game.phase_of(state)]
    assert prompt.expects == game.expects(state) and set(prompt.expects) <= set(row.allows)
    assert game.to_move(state) == prompt.player
    assert not Counter(prompt.dice) - Counter(plugin_for(game.id).dice), f"{prompt.dice} are not the game's dice"
    assert_translated(game.id, prompt.message, prompt.params)
    assert game.state_from_json(game.state_to_json(state)) == state
    for action in sample(game.legal_actions(state) or [], rng):
        assert action.type in prompt.expects and game.validate(state, action) is None, action
    for kind in prompt.expects:
        for action in sample(list(game.offered(state, kind)) if kind in game.candidates else [], rng):
            refusal = game.validate(state, action)
            assert refusal is None or refusal.rule.startswith(f"{game.rule_prefix}-"), (action, refusal)


def refused_inputs(session: Session, rng: Random) -> list[ActionModel | dict[str, Any]]:
    """Inputs a confused table or a noisy sensor might send now, of every kind the rules refuse."""
    game, state = session.game, session.state
    prompt, row = game.prompt(state), game.phases[game.phase_of(state)]
    inputs: list[ActionModel | dict[str, Any]] = [{"type": "no_such_action"}]
    inputs += [action_class.model_construct() for action_class in game.handlers
               if action_class.model_fields["type"].default not in row.allows]
    if prompt.dice and prompt.roll_action:
        faces = [rng.choice(die) for die in prompt.dice]
        inputs += [{"type": prompt.roll_action, "values": faces + faces[:1]},
                   {"type": prompt.roll_action, "values": ["X"] * len(faces)}]
    for kind in prompt.expects:
        if kind in game.candidates:
            inputs += [action for action in sample(list(game.offered(state, kind)), rng)
                       if game.validate(state, action) is not None]
    return rng.sample(inputs, min(len(inputs), 4))


def try_refused(session: Session, raw: ActionModel | dict[str, Any]) -> None:
    """Submit an input the rules refuse: nothing changes, and the refusal cites a rule in every language."""
    state, count = session.state, len(session.actions)
    _parsed, refusal = session.check(raw)
    if refusal is None:
        return  # not refused after all (a candidate of a choice with no own check)
    outcome = session.submit(raw, "serial")
    assert not outcome.accepted and outcome.refusal == refusal
    assert session.state is state and len(session.actions) == count
    assert refusal.rule.startswith((f"{session.game.rule_prefix}-", TABLE_RULE)), refusal
    assert_translated(session.game.id, refusal.message, refusal.params)


def take_back(session: Session) -> None:
    """Undo the last move: the state before it returns, and the put-back guide leads the table there."""
    now, before = session.states[-1], session.states[-2]
    assert session.undo().accepted
    assert session.state == before
    guide = putback_for(session.game.id)
    changes = changes_between(guide.table(now), guide.table(before), guide.turns_into)
    assert apply_changes(guide.table(now), changes) == guide.table(before)
    for instruction in put_back(session.game.id, now, before):
        assert_translated(session.game.id, instruction.message, instruction.params)


def move(session: Session, rng: Random) -> bool:
    """Play one move: a random listed choice, the game's own autoplay, or a virtual roll when the dice
    are due; False when no move can be found."""
    game, state = session.game, session.state
    prompt = game.prompt(state)
    choose = autoplay_for(game.id)
    legal = game.legal_actions(state)
    choices = [action for action in legal or [] if action.type != prompt.roll_action]
    roll_due = bool(prompt.dice) and prompt.roll_action in prompt.expects
    action: ActionModel | None = None
    if choose is not None and (legal is None or rng.random() < 0.5):
        action = choose(game, state, rng)
    elif choices and (not roll_due or rng.random() < 0.7):
        action = rng.choice(choices)
    elif roll_due:
        outcome = session.virtual_roll()
        assert outcome is not None and outcome.accepted, outcome
        return True
    if action is None:
        return False
    outcome = session.submit(action, "touch")
    assert outcome.accepted, (action, outcome.refusal)
    return True


def play(game_id: str, seed: int, players: int, options: Mapping[str, Any], steps: int = 300,
         visit: Callable[[Session], None] | None = None) -> Session:
    """A random game of up to `steps` moves, checked at every position as the module's docstring says;
    `visit(session)` checks the game's own invariants there too (the state before is `session.states[-2]`).
    Returns the session for checks at the end."""
    game = get_game(game_id)
    players = max(game.min_players, min(players, game.max_players))
    session = Session.new(setup_for(game, players, seed, options))
    rng = Random(seed)
    for _step in range(steps):
        check_position(session, rng)
        if visit is not None:
            visit(session)
        if session.is_over():
            break
        for raw in refused_inputs(session, rng):
            try_refused(session, raw)
        if session.actions and rng.random() < 0.03:
            take_back(session)
        elif not move(session, rng):
            break
    check_position(session, rng)
    if visit is not None:
        visit(session)
    record = GameRecord.model_validate_json(session.record().to_json())
    assert game.state_to_json(replay(record).state) == game.state_to_json(session.state)
    return session
