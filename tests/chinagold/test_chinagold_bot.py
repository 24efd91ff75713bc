"""The Chinagold bot: legal engine actions for either side, obvious captures, hints, the time budget."""

from __future__ import annotations

import json
import time
from pathlib import Path
from random import Random

import pytest

from companion.cli import main
from companion.engine.session import Session
from companion.games.chinagold.bot import (
    choose_move,
    expected_best,
    greedy_move,
    hint,
    moves,
    position_of,
    throw_distribution,
)
from companion.games.chinagold.rules import Turn
from tests.chinagold.cg_helpers import BOARD, GAME, new_setup, position, sites_of_mountain, sites_of_river


def test_throw_distribution_of_each_tile_set() -> None:
    assert throw_distribution(("0|1", "0|2", "1|2")) == ((1, 0.125), (2, 0.25), (3, 0.25), (4, 0.25), (5, 0.125))
    assert throw_distribution(("0|1", "1|2")) == ((1, 0.25), (2, 0.5), (3, 0.25))


@pytest.mark.parametrize("seat", [0, 1])
def test_bot_moves_are_legal_for_either_side_through_a_game(seat: int) -> None:
    rng = Random(seat)
    session = Session.new(new_setup(first=seat, board="small"))
    while not session.is_over():
        if session.state.phase == "throw":
            session.virtual_roll()
            continue
        action = hint(session.state, seconds=0.02)
        assert action is not None
        if session.state.to_move != seat:
            action = greedy_move(position_of(session.state), rng).action()
        assert session.submit(action, "bot").accepted
    assert sum(session.scores()) == 61


def test_bot_takes_an_obvious_capture() -> None:
    mountain = sites_of_mountain(4)
    last = mountain[-1]
    state = position(dict.fromkeys(mountain[:-1], "g"), total=1, to_move=0)
    assert hint(state, seconds=0.2) == Turn(start=last, end=last)


def test_bot_does_not_complete_the_opponents_river() -> None:
    river = sites_of_river(5)
    open_site = river[0]
    state = position(dict.fromkeys(river[1:], "g"), total=1, to_move=0)
    action = hint(state, seconds=0.2)
    assert action is not None and action != Turn(start=open_site, end=open_site)


def test_expected_threat_sees_an_open_region() -> None:
    river = sites_of_river(6)
    state = position(dict.fromkeys(river[1:], "g"), total=1, to_move=0)
    pos = position_of(state)
    fresh = position_of(position(total=1))
    # A river finished up to one marker: any throw lets the river player take it (at least its size).
    assert expected_best(BOARD, pos.hidden, pos.gold, 1, True) >= len(river)
    assert expected_best(BOARD, pos.hidden, pos.gold, 1, True) > expected_best(BOARD, fresh.hidden, fresh.gold, 1, True)


def test_moves_match_engine_legal_actions() -> None:
    state = position({3: "g", 40: "M"}, total=3)
    engine = {a.model_dump_json() for a in GAME.legal_actions(state) or []}
    ours = {m.action().model_dump_json() for m in moves(BOARD, position_of(state).hidden,
                                                         position_of(state).gold, 3)}
    assert ours == engine


def test_hint_is_none_while_tiles_are_due() -> None:
    assert hint(GAME.initial_state(new_setup())) is None


def test_move_within_one_second_on_the_full_board() -> None:
    state = position(total=2)
    start = time.monotonic()
    choose_move(position_of(state), seconds=1.0)
    assert time.monotonic() - start < 1.5


def test_hint_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    session = Session.new(new_setup())
    session.submit({"type": "throw", "values": [0, 2, 1]}, "touch")
    record = tmp_path / "game.json"
    record.write_text(session.record().to_json())
    assert main(["chinagold", "hint", str(record), "--seconds", "0.1", "--json"]) == 0
    action = json.loads(capsys.readouterr().out)
    assert session.check(action)[1] is None
