"""What the table reads speaks the table's language: every log line, prompt and refusal shown while whole
games are played (the example records, and bot games) names places, pieces and players as they are on
the board — no internal ids (`S7`, `D14`, `H-red`, `site 46`, `place_arrow`) and no Python reprs — in
English, German and French."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from random import Random
from types import SimpleNamespace
from typing import Any

import pytest

from companion.app.i18n import set_language
from companion.app.table import TableModel
from companion.engine.core import ActionModel, Game, Value
from companion.engine.record import load_record, parse_recorded
from companion.engine.registry import declared, get_game

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
GAMES = declared()  # every installed game (the shipped ones: no test plugin is installed here)

#: Shown to no one at the table, in any game: Python reprs, unfilled or leftover templates, snake_case
#: action types (`place_arrow`, `use_chips`).
COMMON = {
    "python list/tuple": r"\[[^\]]*\]|\(\s*\d+\s*, |\('",  # (a decimal comma, "(91,7 %", has no space)
    "repr of a value": r"Phrase\(|FrozenDict|message=",
    "template braces": r"[{}]",
    "action type": r"\b[a-z]+_[a-z_]+\b",
}
#: Internal ids of each game's pieces and places.
PATTERNS = {
    "digger": {"dice letters": r"\b[BYRGWK](,? [BYRGWK])+\b"},
    "gold_connection": {"safe id": r"\bS\d+\b", "choice point id": r"\b[EW]\b", "bar or row code": r"\b[BGRY]\d\b"},
    "goldgraeber": {"field id": r"\b[A-Z]\d+\b", "house id": r"\bH-\w+", "die letter": r"\bL\b"},
    "chinagold": {"site number": r"\b[Ss]ites? \d+", "region id": r"\b[MR]\d+\b",
                  "side instead of name": r"\b(mountains|rivers|Berg\w*|Fluss\w*|montagnes|rivières)\b"},
}


def bot_game(game_id: str, seed: int) -> Iterator[ActionModel]:
    """A whole game the project's bots play (Gold Connection, Goldgräber), with its setup first."""
    from companion.engine.core import Player, Setup

    setup = Setup(game=game_id, players=(Player(name="Anna"), Player(name="Ben"), Player(name="Chloé")), seed=seed)
    yield setup  # type: ignore[misc]
    game, rng = get_game(game_id), Random(seed)
    state = game.initial_state(setup)
    if game_id == "gold_connection":
        from companion.games.gold_connection.bot import choose_action
    else:
        from companion.games.goldgraeber.bot import choose_action  # type: ignore[assignment]
    for _ in range(3000):
        if game.is_over(state):
            return
        action = choose_action(game, state, rng)  # type: ignore[arg-type]
        yield action
        state, _events = game.apply(state, action)


def plays(game_id: str) -> Iterator[tuple[Any, list[ActionModel]]]:
    record = load_record(EXAMPLES / f"{game_id}.json")
    game = get_game(game_id)
    yield record.setup(), [parse_recorded(game, entry, "example", i) for i, entry in enumerate(record.actions)]
    if game_id in ("gold_connection", "goldgraeber"):
        moves = bot_game(game_id, 7)
        setup = next(moves)
        yield setup, list(moves)


def shown(game: Game, setup: Any, actions: list[ActionModel]) -> Iterator[tuple[str, Any, Any]]:
    """(kind, message, params) of every prompt, event and refusal the table would see: refusals are what
    the rules say to the actions played a little earlier or later, entered at the wrong moment."""
    state: Value = game.initial_state(setup)
    for index, action in enumerate(actions):
        prompt = game.prompt(state)
        yield "prompt", prompt.message, prompt.params
        for other in actions[max(0, index - 3):index + 6]:
            refusal = game.validate(state, other)
            if refusal is not None:
                yield "refusal", refusal.message, refusal.params
        state, events = game.apply(state, action)
        for event in events:
            if event.message:
                yield "event", event.message, event.params
    prompt = game.prompt(state)
    yield "prompt", prompt.message, prompt.params


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_no_internal_id_reaches_the_table(game_id: str, language: str) -> None:
    game = get_game(game_id)
    patterns = {**COMMON, **PATTERNS[game_id]}
    table = TableModel()
    set_language(language)
    try:
        texts: dict[str, str] = {}
        for setup, actions in plays(game_id):
            table.session = SimpleNamespace(game=game, setup=setup)  # what TableModel reads to word a message
            for kind, message, params in shown(game, setup, actions):
                texts.setdefault(table.game_text(message, params), kind)
    finally:
        set_language("en")
    assert len(texts) > 40  # whole games were played and worded
    found = [f"{kind} {what}: {text!r}" for text, kind in texts.items()
             for what, pattern in patterns.items() if re.search(pattern, text)]
    assert not found, "\n".join(found[:30])
