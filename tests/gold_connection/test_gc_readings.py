"""Gold Connection readings GC-R3 and GC-R8, each option in both settings."""

from __future__ import annotations

from typing import Any

from companion.games.gold_connection.rules import GoldConnectionState
from tests.gold_connection.gc_helpers import GAME, act, refusal, turn_state, with_rows, with_safe


def six_and_two_fives(**options: Any) -> GoldConnectionState:
    """Seat 0 holds a complete 6-row and a 5-row, then completes a second 5-row and ends the turn."""
    state = turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}, game_end="series", **options)
    state = with_rows(state, 0, {"B6": (1, 2, 3, 4, 5, 6), "G5": (1, 2, 3, 4, 5), "R5": (1, 2, 3, 4)})
    state = with_safe(state, "S3", ("R5",))
    state, _ = act(state, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["R5"]},
                   {"type": "roll", "values": [6, 1]}, {"type": "end_turn"}, {"type": "sort", "rows": {"R5": [5]}})
    return state


def test_reading_r3_one_six_and_two_fives_end_the_game_by_default() -> None:
    """GC-R3 and GC-21 (default `two_six_or_any_three`): three complete series of any size end the game."""
    assert GAME.is_over(six_and_two_fives())
    assert not GAME.is_over(six_and_two_fives(series_reading="two_six_or_three_five"))


def test_reading_r3_any_two() -> None:
    """GC-R3 (`any_two`): a 6-row and a 5-row are enough; by default two such rows are not."""
    for reading, over in (("any_two", True), ("two_six_or_any_three", False)):
        state = turn_state({0: ("S2", "S3"), 1: ("S8", "S9")}, game_end="series", series_reading=reading)
        state = with_rows(state, 0, {"B6": (1, 2, 3, 4, 5, 6), "G5": (1, 2, 3, 4)})
        state = with_safe(state, "S3", ("G5",))
        state, _ = act(state, {"type": "move", "path": ["S3"]}, {"type": "loot", "bars": ["G5"]},
                       {"type": "roll", "values": [6, 1]}, {"type": "end_turn"},
                       {"type": "sort", "rows": {"G5": [5]}})
        assert GAME.is_over(state) is over


def looted_on_w(**options: Any) -> GoldConnectionState:
    """Seat 0 came from S5, stopped on the unnumbered safe W pointing to S6 and looted it successfully."""
    state = with_safe(turn_state({0: ("S5", "W"), 1: ("S8", "S9")}, **options), "W", ("B1",))
    state, _ = act(state, {"type": "move", "path": ["W"], "heading": "S6"}, {"type": "loot", "bars": ["B1"]},
                   {"type": "roll", "values": [6, 6]})
    assert state.phase == "turn" and state.robbers[0].arrow == "W"
    return state


def test_reading_r8_heading_binds_only_at_the_end_of_the_turn() -> None:
    """GC-R8 and GC-7 (default `turn_end`): after a loot on W the arrow may go on by either other passage."""
    state = looted_on_w()
    assert {move.path[0] for move in GAME.moves(state)} == {"S1", "S6"}
    went, _ = act(state, {"type": "move", "path": ["S1"]})
    assert went.robbers[0].arrow == "S1" and went.distance == 2
    assert refusal(state, {"type": "move", "path": ["S5"]}).code == "move.against_arrow"  # never back
    ended, _ = act(state, {"type": "end_turn"}, {"type": "sort", "rows": {"B6": [1]}})
    assert ended.robbers[0].stone == "W" and ended.robbers[0].heading == "S6"  # the turn ended there: it binds


def test_reading_r8_heading_binds_on_every_stop() -> None:
    """GC-R8 and GC-7 (`every_stop`): the direction said on W binds the next move of the same turn."""
    state = looted_on_w(choice_heading="every_stop")
    assert {move.path[0] for move in GAME.moves(state)} == {"S6"}
    found = refusal(state, {"type": "move", "path": ["S1"]})
    assert (found.code, found.rule) == ("move.against_arrow", "GC-7")
    went, _ = act(state, {"type": "move", "path": ["S6"]})
    assert went.robbers[0].arrow == "S6"
