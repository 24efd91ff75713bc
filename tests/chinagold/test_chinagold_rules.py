"""One or more tests per Chinagold rule (CG-n in docs/rules/chinagold.md) and per reading (CG-Rn)."""

from __future__ import annotations

import pytest

from companion.engine.core import IllegalAction
from companion.engine.session import Session
from companion.games.chinagold.rules import FIVE_GONE, FOUR_GONE, FULL_TILES, Bury, Throw, Turn
from tests.chinagold.cg_helpers import BOARD, GAME, new_setup, only_hidden, position, sites_of_mountain, sites_of_river


def refusal(state, action):  # type: ignore[no-untyped-def]
    result = GAME.validate(state, action)
    assert result is not None, f"{action} should be refused"
    return result


def unique_line_pair() -> tuple[int, int]:
    """Two neighbouring sites in one row that belong to different mountains."""
    for site in range(BOARD.size - 1):
        q, r = BOARD.grid.coords[site]
        if BOARD.grid.coords[site + 1] == (q + 1, r) and BOARD.site_mountain[site] != BOARD.site_mountain[site + 1]:
            return site, site + 1
    raise AssertionError("no such pair")


# -- CG-2 setup and turn order ------------------------------------------------------------------------
def test_setup_all_hidden_first_player_throws() -> None:
    """CG-2: setup, sides and turns."""
    state = GAME.initial_state(new_setup(first=1))
    assert state.sites == "h" * 91
    assert state.to_move == 1 and state.phase == "throw" and state.tiles == FULL_TILES
    assert GAME.prompt(state).player == 1


def test_players_alternate_after_each_move() -> None:
    state = GAME.initial_state(new_setup(first=0))
    state, _ = GAME.apply(state, Throw(values=(0, 0, 1)))
    state, _ = GAME.apply(state, Turn(start=40, end=40))
    assert state.to_move == 1 and state.phase == "throw" and state.total is None


# -- CG-3 tiles ----------------------------------------------------------------------------------------
def test_throw_sum_sets_the_count() -> None:
    state, events = GAME.apply(GAME.initial_state(new_setup()), Throw(values=(1, 2, 2)))
    assert state.total == 5 and state.phase == "move" and events[0].params["total"] == 5


def test_throw_refusals() -> None:
    state = GAME.initial_state(new_setup())
    assert refusal(state, Throw(values=(0, 1, 2))).code == "throw.face"     # tile 0|2 has no 1
    assert refusal(state, Throw(values=(0, 0))).code == "throw.count"
    thrown, _ = GAME.apply(state, Throw(values=(0, 0, 1)))
    assert refusal(thrown, Throw(values=(0, 0, 1))).code == "throw.not_now"
    assert refusal(state, Turn(start=0, end=0)).rule == "CG-3"


def test_virtual_throw_uses_the_faces_of_each_tile() -> None:
    from random import Random

    state = position(only_hidden(range(5)), fill="M")     # tiles 0|2, 1|2
    assert state.tiles == FIVE_GONE
    prompt = GAME.prompt(state)
    assert prompt.dice == (("0", "2"), ("1", "2"))
    action = GAME.virtual_roll(state, Random(3))
    assert isinstance(action, Throw) and action.values[0] in (0, 2) and action.values[1] in (1, 2)


# -- CG-4 turning a line -------------------------------------------------------------------------------
def test_turn_exact_straight_line_along_each_axis() -> None:
    g = BOARD.grid
    centre = g.index[(0, 0)]
    for step in ((1, 0), (0, 1), (-1, 1)):
        end = g.index[(2 * step[0], 2 * step[1])]
        state = position(total=3)
        after, _ = GAME.apply(state, Turn(start=end, end=centre))
        assert after.sites.count("g") == 3
        assert after.sites[centre] == "g" and after.sites[end] == "g"


def test_turn_refusals_not_straight_wrong_length_gold() -> None:
    g = BOARD.grid
    state = position({g.index[(1, 0)]: "g"}, total=3)
    not_straight = refusal(state, Turn(start=g.index[(0, 0)], end=g.index[(1, 1)]))
    assert (not_straight.code, not_straight.rule) == ("turn.not_straight", "CG-4")
    wrong = refusal(state, Turn(start=g.index[(0, -2)], end=g.index[(0, 1)]))
    assert (wrong.code, wrong.rule, wrong.params) == ("turn.length", "CG-4", {"want": 3, "got": 4})
    gold = refusal(state, Turn(start=g.index[(-1, 0)], end=g.index[(1, 0)]))
    assert (gold.code, gold.rule) == ("turn.gold", "CG-4")
    assert refusal(state, Turn(start=0, end=99)).code == "turn.site"


def test_refused_action_leaves_session_unchanged() -> None:
    session = Session.new(new_setup())
    session.submit(Throw(values=(0, 2, 1)), "touch")
    before = session.state
    outcome = session.submit({"type": "turn", "start": 0, "end": 7}, "touch")
    assert not outcome.accepted and outcome.refusal is not None and outcome.refusal.rule == "CG-4"
    assert session.state == before and len(session.actions) == 1


# -- CG-5 burying --------------------------------------------------------------------------------------
def test_bury_turns_one_gold_back_and_ends_the_turn() -> None:
    state = position({10: "g", 11: "g"}, total=4)
    after, _ = GAME.apply(state, Bury(site=10))
    assert after.sites[10] == "h" and after.sites[11] == "g" and after.to_move == 1 and after.phase == "throw"


def test_bury_refusals() -> None:
    state = position({10: "g"}, total=2)
    assert refusal(state, Bury(site=11)).code == "bury.not_gold"
    unthrown = position({10: "g"})
    assert refusal(unthrown, Bury(site=10)).code == "bury.before_throw"


# -- CG-6 capturing own regions ------------------------------------------------------------------------
def test_turning_the_last_marker_takes_the_mountain() -> None:
    """CG-6: taking your own regions."""
    mountain = sites_of_mountain(1)
    last, rest = mountain[0], mountain[1:]
    river = sites_of_river(BOARD.site_river[last])
    assert set(river) - set(mountain), "precondition: the river has other hidden sites"
    state = position(dict.fromkeys(rest, "g"), total=1, to_move=0)
    after, events = GAME.apply(state, Turn(start=last, end=last))
    assert all(after.sites[site] == "M" for site in mountain)
    assert GAME.scores(after) == [len(mountain), 0]
    assert [event.kind for event in events if event.kind in ("capture", "clear")] == ["capture"]


def test_one_line_can_complete_two_own_regions() -> None:
    a, b = unique_line_pair()
    mountain_a, mountain_b = sites_of_mountain(BOARD.site_mountain[a]), sites_of_mountain(BOARD.site_mountain[b])
    gold = {site: "g" for site in mountain_a + mountain_b if site not in (a, b)}
    state = position(gold, total=2, to_move=0)
    after, _ = GAME.apply(state, Turn(start=a, end=b))
    assert all(after.sites[site] == "M" for site in mountain_a + mountain_b)
    assert GAME.scores(after)[0] == len(mountain_a) + len(mountain_b)


def test_river_player_takes_rivers_not_mountains() -> None:
    river = sites_of_river(3)
    last = river[-1]
    state = position(dict.fromkeys(river[:-1], "g"), total=1, to_move=1)
    after, _ = GAME.apply(state, Turn(start=last, end=last))
    assert all(after.sites[site] == "R" for site in river)
    assert GAME.scores(after) == [0, len(river)]


# -- CG-7 the opponent clears their region completed by the same move ------------------------------------
def test_opponent_clears_what_is_left_of_his_completed_region() -> None:
    """CG-7: the opponent clears what the same move finished for them."""
    site = BOARD.grid.index[(0, 0)]
    mountain = sites_of_mountain(BOARD.site_mountain[site])
    river = sites_of_river(BOARD.site_river[site])
    gold = {other: "g" for other in mountain + river if other != site}
    state = position(gold, total=1, to_move=0)
    after, events = GAME.apply(state, Turn(start=site, end=site))
    assert all(after.sites[other] == "M" for other in mountain)
    assert all(after.sites[other] == "R" for other in river if other not in mountain)
    assert GAME.scores(after) == [len(mountain), len(set(river) - set(mountain))]
    assert [event.kind for event in events if event.kind in ("capture", "clear")] == ["capture", "clear"]


# -- CG-8 cleared sites are gaps -----------------------------------------------------------------------
def test_line_across_a_cleared_site_is_refused() -> None:
    state = position({2: "R"}, total=3)
    gap = refusal(state, Turn(start=1, end=3))
    assert (gap.code, gap.rule, gap.params["site"]) == ("turn.gap", "CG-8", 2)


def test_gap_splits_runs_for_tile_counting() -> None:
    # Row 0 holds sites 0-5; with site 2 cleared only the run 3-4-5 is left: one line of three.
    state = position(only_hidden([0, 1, 3, 4, 5]), fill="M")
    assert state.tiles == ()


# -- CG-9 .. CG-11 tile reduction (line-counting examples) ---------------------------------------------
def test_two_runs_of_five_keep_all_tiles() -> None:
    """CG-9: fewer tiles: 0|1 leaves."""
    # The top row 0-5 is one run of six: two lines of five (0-4, 1-5).
    assert position(only_hidden(range(6)), fill="M").tiles == FULL_TILES


def test_one_run_of_five_sends_tile_01_away() -> None:
    # Sites 0-4: exactly one line of five, but two lines of four (0-3, 1-4): tiles 0|2 and 1|2 remain.
    state = position(only_hidden(range(5)), fill="M")
    assert state.tiles == FIVE_GONE
    assert GAME.prompt(state).dice == (("0", "2"), ("1", "2"))


def test_one_run_of_four_replaces_02_by_01() -> None:
    """CG-10: at most one run of four hidden markers swaps tile 0|2 for 0|1."""
    # Sites 0-3: one line of four, two lines of three (0-2, 1-3): tiles 0|1 and 1|2, results 1-3.
    assert position(only_hidden(range(4)), fill="M").tiles == FOUR_GONE


def test_no_line_of_five_but_two_of_four_in_different_rows() -> None:
    # Runs 0-3 and 6-9 (second row): zero lines of five, two lines of four.
    assert position(only_hidden([0, 1, 2, 3, 6, 7, 8, 9]), fill="M").tiles == FIVE_GONE


def test_one_run_of_three_removes_all_tiles() -> None:
    state = position(only_hidden(range(3)), fill="M")
    assert state.tiles == () and state.phase == "move" and state.total is None
    assert GAME.prompt(state).expects == ("turn",)


def test_without_tiles_one_or_two_neighbours_and_no_burying() -> None:
    state = position(only_hidden(range(3), gold=(4,)), fill="M")
    assert GAME.validate(state, Turn(start=0, end=0)) is None
    assert GAME.validate(state, Turn(start=1, end=2)) is None
    three = refusal(state, Turn(start=0, end=2))
    assert (three.code, three.rule) == ("turn.length", "CG-11")
    no_bury = refusal(state, Bury(site=4))
    assert (no_bury.code, no_bury.rule) == ("bury.no_tiles", "CG-11")
    assert refusal(state, Throw(values=(1,))).code == "throw.no_tiles"


def test_tiles_shrink_after_a_move() -> None:
    """CG-10: a move that leaves one run of four makes the next throw use 0|1 and 1|2."""
    state = position(only_hidden(range(6)), fill="M", total=2)
    after, events = GAME.apply(state, Turn(start=0, end=1))    # run 2-5 is left: one line of four
    assert after.tiles == FOUR_GONE
    assert any(event.kind == "tiles" for event in events)


# -- CG-12 a bury can bring tiles back -----------------------------------------------------------------
def test_bury_that_makes_new_lines_brings_the_tiles_back() -> None:
    """CG-12: a bury can bring tiles back."""
    # Hidden 0-3 and 5, gold on 4: one line of four -> tiles 0|1, 1|2.
    state = position(only_hidden([0, 1, 2, 3, 5], gold=(4,)), fill="M", total=2)
    assert state.tiles == FOUR_GONE
    after, _ = GAME.apply(state, Bury(site=4))     # row 0-5 hidden again: two lines of five
    assert after.tiles == FULL_TILES and after.phase == "throw"


# -- CG-13 end and winner -------------------------------------------------------------------------------
def test_game_ends_when_every_site_is_cleared() -> None:
    """CG-13: end and winner."""
    mountain = sites_of_mountain(0)
    marks = {site: ("M" if site % 2 else "R") for site in range(BOARD.size)}
    marks.update(dict.fromkeys(mountain, "g"))
    last = mountain[0]
    marks[last] = "h"
    for site in sites_of_river(BOARD.site_river[last]):
        if marks[site] != "h":
            marks[site] = "g" if site in mountain else "R"
    state = position(marks, to_move=0)
    assert state.tiles == ()
    after, events = GAME.apply(state, Turn(start=last, end=last))
    assert GAME.is_over(after) and after.phase == "over"
    assert "h" not in after.sites and "g" not in after.sites
    scores = GAME.scores(after)
    assert sum(scores) == BOARD.size
    assert GAME.winners(after) == [scores.index(max(scores))]
    assert refusal(after, Turn(start=0, end=0)).code == "game.over"
    assert events[-1].kind == "over"


# -- readings -------------------------------------------------------------------------------------------
def completing_only_the_river() -> tuple[dict[int, str], int, list[int]]:
    """A move by the mountain player that completes a river but none of their mountains."""
    site = BOARD.grid.index[(0, 0)]
    river = sites_of_river(BOARD.site_river[site])
    return {other: "g" for other in river if other != site}, site, river


def test_reading_r1_default_opponent_clears_even_without_own_capture() -> None:
    """CG-R1 (default): the opponent clears a region the mover finished for them alone."""
    marks, site, river = completing_only_the_river()
    after, _ = GAME.apply(position(marks, total=1, to_move=0), Turn(start=site, end=site))
    assert all(after.sites[other] == "R" for other in river)
    assert GAME.scores(after) == [0, len(river)]


def test_reading_r1_option_leaves_the_region_gold() -> None:
    """CG-R1 (`opponent_clears_alone: false`): that region stays gold on the board."""
    marks, site, river = completing_only_the_river()
    state = position(marks, total=1, to_move=0, opponent_clears_alone=False)
    after, _ = GAME.apply(state, Turn(start=site, end=site))
    assert all(after.sites[other] == "g" for other in river)
    assert GAME.scores(after) == [0, 0]


def test_reading_r1_option_still_clears_alongside_an_own_capture() -> None:
    site = BOARD.grid.index[(0, 0)]
    mountain, river = sites_of_mountain(BOARD.site_mountain[site]), sites_of_river(BOARD.site_river[site])
    gold = {other: "g" for other in mountain + river if other != site}
    state = position(gold, total=1, to_move=0, opponent_clears_alone=False)
    after, _ = GAME.apply(state, Turn(start=site, end=site))
    assert GAME.scores(after) == [len(mountain), len(set(river) - set(mountain))]


def test_reading_r2_clearing_never_completes_a_region() -> None:
    """CG-R2: clearing removes gold only, so it never finishes another region."""
    # After any capture, no region is left with gold only: clearing removes gold, never a hidden marker.
    site = BOARD.grid.index[(0, 0)]
    mountain, river = sites_of_mountain(BOARD.site_mountain[site]), sites_of_river(BOARD.site_river[site])
    gold = {other: "g" for other in mountain + river if other != site}
    after, _ = GAME.apply(position(gold, total=1, to_move=0), Turn(start=site, end=site))
    for regions in (BOARD.mountains, BOARD.rivers):
        for region in regions:
            left = [s for s in range(BOARD.size) if region >> s & 1 and after.sites[s] in "hg"]
            assert not left or any(after.sites[s] == "h" for s in left)


def test_reading_r3_tiles_follow_the_board_not_the_history() -> None:
    """CG-R3: the tiles are recomputed from the board, whatever led to it."""
    # The same board gives the same tiles however it was reached (here: straight from setup vs. a bury).
    via_bury, _ = GAME.apply(position(only_hidden([0, 1, 2, 3, 5], gold=(4,)), fill="M", total=1), Bury(site=4))
    assert via_bury.tiles == position(only_hidden(range(6)), fill="M").tiles


def test_reading_r4_capture_is_automatic() -> None:
    """CG-R4: a finished region is taken at once; nobody has to point it out."""
    mountain = sites_of_mountain(2)
    state = position(dict.fromkeys(mountain[1:], "g"), total=1, to_move=0)
    after, _ = GAME.apply(state, Turn(start=mountain[0], end=mountain[0]))
    assert GAME.legal_actions(after) is None and after.phase == "throw"
    assert all(after.sites[site] == "M" for site in mountain)


def test_illegal_apply_raises_with_rule() -> None:
    with pytest.raises(IllegalAction) as raised:
        GAME.apply(position(total=2), Turn(start=0, end=0))
    assert raised.value.refusal.rule == "CG-4"
