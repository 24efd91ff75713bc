"""Undo's put-back instructions: for every action type of every game, apply the action, undo it, and check
that the instructions' changes turn the table after the action back into the table before it, that
every sentence reads in en/de/fr without internal ids, and that each action type gets the words it needs."""

from __future__ import annotations

import gettext
import json
import re
import string
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

import pytest

from companion.engine.core import ActionModel, Game, Player, Setup, Value
from companion.engine.putback import (
    Instruction,
    Phrase,
    apply_changes,
    changes_between,
    put_back,
    put_back_refused,
    putback_for,
)
from companion.engine.record import GameRecord
from companion.engine.registry import get_game
from companion.engine.session import Session

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "companion" / "locale"
SAME_IN_EVERY_LANGUAGE = {"Golden City", "{colour} {number}"}  # a name, and a bar as "red 3"
RAW_ID = re.compile(r"\b(?:[A-Z]\d+|H-\w+|S\d+|R\d+|T\d+|D\d+|[A-Z][A-Z]?-\w+)\b|[{}]")


def every_type(game: Game) -> set[str]:  # type: ignore[type-arg]
    union = game.action_adapter.json_schema()
    return {schema["properties"]["type"]["const"] for schema in union["$defs"].values() if "type" in schema.get(
        "properties", {})}


def steps_from_example(game_id: str) -> list[tuple[Value, Value, ActionModel]]:
    record = GameRecord.model_validate(json.loads((ROOT / "docs" / "examples" / f"{game_id}.json").read_text()))
    session = Session.from_record(record)
    game = session.game
    return [(session.states[i], session.states[i + 1], game.parse_action(entry.action))
            for i, entry in enumerate(session.actions)]


def steps_from_play(setup: Setup, seed: int, choose: Any, limit: int = 3000) -> list[tuple[Value, Value, ActionModel]]:
    game = get_game(setup.game)
    rng = Random(seed)
    state = game.initial_state(setup)
    steps = []
    while not game.is_over(state) and len(steps) < limit:
        action = choose(game, state, rng)
        after, _ = game.apply(state, action)
        steps.append((state, after, action))
        state = after
    return steps


def random_legal(game: Game, state: Value, rng: Random) -> ActionModel:  # type: ignore[type-arg]
    """Digger: a roll when no roll lies yet (or sometimes anyway), else any allowed choice, Stop more often."""
    legal = game.legal_actions(state)
    assert legal
    choices = [action for action in legal if action.type != "roll"]
    if not choices or rng.random() < 0.3:
        return rng.choice([action for action in legal if action.type == "roll"])
    return rng.choice(choices)


def digger_steps() -> list[tuple[Value, Value, ActionModel]]:
    steps = steps_from_example("digger")
    for seed, options in enumerate(({"fumble_robbed_to": "owner", "fumble_needs_black": False},
                                    {"blue_to_tin_at_once": True, "game_end": "blue_ran_out_in_turn"})):
        setup = Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben"), Player(name="Cleo")),
                      options=options, seed=seed)
        steps += steps_from_play(setup, seed, random_legal, limit=1500)
    return steps


def gold_connection_steps() -> list[tuple[Value, Value, ActionModel]]:
    from companion.games.gold_connection.bot import choose_action
    from companion.games.gold_connection.rules import ALL_BARS, EnterSafe

    def deal_then_bot(game: Any, state: Any, rng: Random) -> ActionModel:
        """The table deals: the next empty safe gets six bars of those not yet laid out."""
        if state.phase != "enter_safes":
            return choose_action(game, state, rng)
        pool = Counter(ALL_BARS) - Counter(bar for bars in state.safes.values() for bar in bars)
        safe = next(safe for safe, bars in sorted(state.safes.items()) if not bars)
        return EnterSafe(safe=safe, bars=tuple(rng.sample(sorted(pool.elements()), 6)))

    steps = steps_from_example("gold_connection")
    setup = Setup(game="gold_connection", players=(Player(name="Anna"), Player(name="Ben"), Player(name="Cleo")),
                  options={"deal": "table"}, seed=3)
    return steps + steps_from_play(setup, 3, deal_then_bot)


def goldgraeber_steps() -> list[tuple[Value, Value, ActionModel]]:
    from companion.games.goldgraeber.bot import choose_action

    def sometimes_look(game: Any, state: Any, rng: Random) -> ActionModel:
        looks = [action for action in game.legal_actions(state) or [] if action.type == "look"]
        return looks[0] if looks and rng.random() < 0.3 else choose_action(game, state, rng)

    steps = steps_from_example("goldgraeber")
    for seed in range(3):
        setup = Setup(game="goldgraeber", players=tuple(Player(name=n) for n in ("Anna", "Ben", "Cleo", "Dora")),
                      options={"look_variant": seed == 0}, seed=seed)
        steps += steps_from_play(setup, seed, sometimes_look)
    return steps


STEPS = {"digger": digger_steps, "gold_connection": gold_connection_steps, "goldgraeber": goldgraeber_steps,
         "chinagold": lambda: steps_from_example("chinagold")}


def translator(domain: str, language: str) -> Any:
    game = gettext.translation(domain, str(LOCALE), languages=[language], fallback=True)
    app = gettext.translation("goldtable", str(LOCALE), languages=[language], fallback=True)

    def translate(message: str) -> str:
        found = game.gettext(message)
        return found if found != message else app.gettext(message)
    return translate


def templates(phrase: Phrase) -> set[str]:
    found = {phrase.message} if phrase.message.strip("{}p0123456789,; ") else set()
    for value in phrase.params.values():
        if isinstance(value, Phrase):
            found |= templates(value)
    return found


@pytest.fixture(scope="module", params=sorted(STEPS))
def game_steps(request: pytest.FixtureRequest) -> tuple[str, list[tuple[Value, Value, ActionModel]]]:
    return request.param, STEPS[request.param]()


def test_every_action_type_of_every_game_is_reached(game_steps: tuple[str, list[Any]]) -> None:
    game_id, steps = game_steps
    assert {action.type for _, _, action in steps} == every_type(get_game(game_id))


def test_undo_instructions_lead_back_to_the_table_before(game_steps: tuple[str, list[Any]]) -> None:
    game_id, steps = game_steps
    putback = putback_for(game_id)
    moved: Counter[str] = Counter()
    for before, after, action in steps:
        now, wanted = putback.table(after), putback.table(before)
        changes = changes_between(now, wanted, putback.turns_into)
        assert apply_changes(now, changes) == +wanted, action
        # every piece is accounted for on the table: nothing comes from or goes to nowhere
        assert all(change.source and change.target for change in changes), (action, changes)
        if game_id == "chinagold":  # markers never wander from one site to another
            assert not any(c.source.startswith("site:") and c.target.startswith("site:") and c.source != c.target
                           for c in changes)
        instructions = put_back(game_id, after, before)
        assert bool(instructions) == (now != wanted)
        if instructions:
            moved[action.type] += 1
        for instruction in instructions:
            text = instruction.text()
            assert not RAW_ID.search(text), text
    # every action type that moves something on the table was seen doing so
    physical = {"digger": {"take", "rob", "stop", "fumble", "time_up"},
                "gold_connection": {"enter_safe", "choose_start", "place_arrow", "move", "sort", "use_chips", "roll",
                                    "end_turn"},
                "goldgraeber": {"roll", "move", "reveal", "raft"},
                "chinagold": {"turn", "bury"}}[game_id]
    assert physical <= set(moved), physical - set(moved)


@pytest.mark.parametrize("language", ["de", "fr"])
def test_every_sentence_is_translated_with_its_placeholders(game_steps: tuple[str, list[Any]],
                                                            language: str) -> None:
    game_id, steps = game_steps
    translate = translator(game_id, language)
    seen: set[str] = set()
    for before, after, _ in steps:
        for instruction in put_back(game_id, after, before):
            seen |= templates(instruction)
            text = instruction.text(translate)
            assert "{" not in text and "}" not in text, text
    assert seen
    for message in seen:
        translated = translate(message)
        assert translated != message or message in SAME_IN_EVERY_LANGUAGE, f"{language}: {message!r} untranslated"
        names = {name for _, name, _, _ in string.Formatter().parse(message) if name}
        assert {name for _, name, _, _ in string.Formatter().parse(translated) if name} == names


def texts(instructions: list[Instruction]) -> list[str]:
    return [instruction.text() for instruction in instructions]


def test_digger_take_rob_and_stop_in_table_words() -> None:
    game = get_game("digger")
    setup = Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben")))
    state = game.initial_state(setup)
    rolled, _ = game.apply(state, game.parse_action({"type": "roll", "values": ["B", "Y", "Y", "R", "R"]}))
    took, _ = game.apply(rolled, game.parse_action({"type": "take", "colour": "B"}))
    assert texts(put_back("digger", took, rolled)) == ["Put the blue stone from Anna's hand back into the middle."]
    again, _ = game.apply(took, game.parse_action({"type": "roll", "values": ["W", "Y", "Y", "R", "R"]}))
    took_white, _ = game.apply(again, game.parse_action({"type": "take", "colour": "W"}))
    stopped, _ = game.apply(took_white, game.parse_action({"type": "stop"}))
    assert sorted(texts(put_back("digger", stopped, took_white))) == [
        "Put the blue stone from the tin back into Anna's hand.",
        "Put the white stone from Anna's box back into Anna's hand."]
    ben_rolls, _ = game.apply(stopped, game.parse_action({"type": "roll", "values": ["W", "K", "Y", "Y", "R"]}))
    robbed, _ = game.apply(ben_rolls, game.parse_action({"type": "rob", "colour": "W", "victim": 0}))
    assert texts(put_back("digger", robbed, ben_rolls)) == ["Put the white stone from Ben's hand back into Anna's box."]


def test_gold_connection_sort_is_told_bar_by_bar_into_the_safe() -> None:
    for before, after, action in steps_from_example("gold_connection"):
        if action.type == "sort" and getattr(action, "rows", None):
            words = texts(put_back("gold_connection", after, before))
            assert any(re.match(r"Lay bars? (?:(?:blue|green|red|yellow) \d(?:, )?)+ from \w+'s \w+ row of \d "
                                r"back into the tray\.", line) for line in words), words
            return
    pytest.fail("the example has no sort with bars")


def test_goldgraeber_move_names_the_figure_and_both_fields() -> None:
    for before, after, action in steps_from_example("goldgraeber"):
        if action.type == "move":
            words = texts(put_back("goldgraeber", after, before))
            assert words[0].startswith(f"Move {before.names[before.actor]}'s figure back from "), words  # type: ignore[attr-defined]
            instruction = put_back("goldgraeber", after, before)[0]
            assert instruction.places == (action.to, before.figures[before.actor])  # type: ignore[attr-defined]
            return
    pytest.fail("no move in the example")


def test_chinagold_turn_is_undone_by_turning_the_same_sites_face_down() -> None:
    game = get_game("chinagold")
    for before, after, action in steps_from_example("chinagold"):
        if action.type == "turn" and after.sites.count("M") == before.sites.count("M") \
                and after.sites.count("R") == before.sites.count("R"):  # type: ignore[attr-defined]
            board = game.board(before)
            line = board.grid.line_between(action.start, action.end)  # type: ignore[attr-defined]
            instructions = put_back("chinagold", after, before)
            assert len(instructions) == 1 and instructions[0].text().startswith("Turn ")
            assert sorted(int(site) for site in instructions[0].places) == sorted(line)
            return
    pytest.fail("no plain turn in the example")


def test_a_refused_move_the_table_made_is_put_back() -> None:
    game = get_game("goldgraeber")
    before = next(step[0] for step in steps_from_example("goldgraeber") if step[2].type == "move")
    reachable = game.destinations(before)  # type: ignore[attr-defined]
    wrong = next(field for field in game.board.ids  # type: ignore[attr-defined]
                 if field not in reachable and game.board.types[game.board.index[field]] == "path")  # type: ignore[attr-defined]
    refused = game.parse_action({"type": "move", "to": wrong})
    assert game.validate(before, refused) is not None
    words = texts(put_back_refused(game, before, refused))
    assert len(words) == 1 and words[0].startswith(f"Move {before.names[before.actor]}'s figure back")  # type: ignore[attr-defined]
    assert put_back_refused(game, before, game.parse_action({"type": "move", "to": "nowhere"})) == []


def test_a_refused_move_the_table_cannot_have_made_has_nothing_to_put_back() -> None:
    game = get_game("digger")
    state = game.initial_state(Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben"))))
    rolled, _ = game.apply(state, game.parse_action({"type": "roll", "values": ["W", "K", "B", "W", "Y"]}))
    empty_box = game.parse_action({"type": "rob", "colour": "Y", "victim": 1})  # Ben's box is empty
    assert game.validate(rolled, empty_box) is not None
    assert put_back_refused(game, rolled, empty_box) == []
    twice = game.parse_action({"type": "take", "colour": "W"})  # white shows twice, but the stone can be taken
    assert texts(put_back_refused(game, rolled, twice)) == [
        "Put the white stone from Anna's hand back into the middle."]


@pytest.mark.parametrize("game_id", sorted(STEPS))
def test_undoing_a_whole_example_game_through_the_session_walks_the_table_back(game_id: str) -> None:
    record = GameRecord.model_validate(json.loads((ROOT / "docs" / "examples" / f"{game_id}.json").read_text()))
    session = Session.from_record(record)
    putback = putback_for(game_id)
    start = putback.table(session.states[0])
    table = putback.table(session.state)
    while session.actions:
        undone = session.state
        assert session.undo().accepted
        changes = changes_between(putback.table(undone), putback.table(session.state), putback.turns_into)
        table = apply_changes(table, changes)  # only the instructions move pieces, never a fresh reading
        assert table == +putback.table(session.state)
    assert table == +start
