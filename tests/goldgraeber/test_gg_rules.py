"""One or more tests per Goldgräber rule (GG-1 ... GG-19 and the readings GG-R*)."""

from __future__ import annotations

import pytest

from companion.engine.core import IllegalAction
from companion.engine.session import Session
from companion.games.goldgraeber.board import HEX_DIRECTIONS, Board, compile_board
from companion.games.goldgraeber.rules import (
    CHIP_KINDS,
    CHIP_POOL,
    Goldgraeber,
    GoldgraeberState,
    Look,
    Move,
    Raft,
    Reveal,
    Roll,
    Stack,
    chip_odds,
)
from tests.goldgraeber.gg_helpers import at, make_setup, with_figure, with_open


def roll(game: Goldgraeber, state: GoldgraeberState, face: str) -> GoldgraeberState:
    return game.apply(state, Roll(values=(face,)))[0]


def refusal(game: Goldgraeber, state: GoldgraeberState, action: object) -> tuple[str, str]:
    found = game.validate(state, action)  # type: ignore[arg-type]
    assert found is not None, f"{action} was accepted"
    with pytest.raises(IllegalAction):
        game.apply(state, action)  # type: ignore[arg-type]
    return found.rule, found.code


def dig_with_path_neighbour(game: Goldgraeber, board: Board, state: GoldgraeberState) -> tuple[str, str]:
    """A face-down dig field and a neighbour from which exactly 2 steps land on it."""
    for dig in state.face_down:
        for near in board.neighbours[board.index[dig]]:
            near_id = board.ids[near]
            if board.types[near] == "path" and dig in game.destinations(with_figure(state, 0, near_id), 0, 2):
                return dig, near_id
    raise AssertionError("no dig field next to a path field")


# -- GG-1 setup and turn order -----------------------------------------------------------------------
def test_setup_puts_everything_in_place(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    assert len(start.face_down) == 64 == sum(start.unseen)
    assert dict(zip(CHIP_KINDS, start.unseen)) == dict(zip(CHIP_KINDS, CHIP_POOL))
    assert sum(start.unseen[:5]) == 48 and sum(start.unseen[5:]) == 16
    assert set(start.rafts) == {board.ids[p] for p in board.raft_posts} and len(start.rafts) == 6
    assert board.ids[board.rail[start.locomotive]] == board.layout.rail[0]
    for seat, field in enumerate(start.figures):
        assert field == board.ids[board.houses[start.houses[seat]]]
    assert game.scores(start) == [0, 0, 0, 0]


def test_player_colour_chooses_the_house(game: Goldgraeber, board: Board) -> None:
    setup = make_setup(3)
    players = (setup.players[0].evolve(colour="blue"), *setup.players[1:])
    state = game.initial_state(setup.evolve(players=players))
    assert board.house_colours[state.houses[0]] == "blue"
    assert len(set(state.houses)) == 3
    app_colours = ("#d64541", "#3a7bd5", "#2e9e5b", "#e3b505", "#8e44ad", "#e67e22")  # the app's seat colours
    players = tuple(p.evolve(colour=c) for p, c in zip(make_setup(6).players, app_colours))
    state = game.initial_state(make_setup(6).evolve(players=players))
    assert [board.house_colours[h] for h in state.houses[:4]] == ["red", "blue", "green", "yellow"]
    assert sorted(state.houses) == list(range(6))


def test_play_passes_to_the_left(game: Goldgraeber, start: GoldgraeberState) -> None:
    state = start
    for expected in (1, 2, 3, 0):
        state = roll(game, state, "L")
        assert state.current == expected and state.phase == "roll"


def test_three_to_six_players(game: Goldgraeber) -> None:
    assert (game.min_players, game.max_players) == (3, 6)


# -- GG-2 the die ------------------------------------------------------------------------------------
def test_roll_of_one_is_refused_with_rule(game: Goldgraeber, start: GoldgraeberState) -> None:
    session = Session.new(make_setup())
    before = game.state_to_json(session.state)  # type: ignore[arg-type]
    outcome = session.submit({"type": "roll", "values": ["1"]}, "touch")
    assert not outcome.accepted and outcome.refusal is not None
    assert (outcome.refusal.rule, outcome.refusal.code) == ("GG-2", "roll.one")
    assert game.state_to_json(session.state) == before  # type: ignore[arg-type]
    assert refusal(game, start, Roll(values=("7",))) == ("GG-2", "roll.face")
    assert refusal(game, start, Roll(values=("2", "3"))) == ("GG-2", "roll.count")


def test_die_faces_offered_are_locomotive_and_two_to_six(game: Goldgraeber, start: GoldgraeberState) -> None:
    assert game.prompt(start).dice == (("L", "2", "3", "4", "5", "6"),)


# -- GG-3 exact-count movement -----------------------------------------------------------------------
def test_move_must_use_the_exact_count(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    state = roll(game, start, "3")
    door = board.ids[board.doors[start.houses[0]]]
    assert door not in game.destinations(state)  # one step away, not three (out and back would be a shuttle)
    far = next(board.ids[f] for f in range(len(board.ids)) if board.types[f] == "path"
               and f not in game.walk_ends(state, 0, board.houses[start.houses[0]], 3, back_steps=True))
    assert refusal(game, state, Move(to=far)) == ("GG-3", "move.not_reachable")
    assert refusal(game, state, Move(to="nowhere")) == ("GG-3", "move.unknown_field")
    target = sorted(game.destinations(state))[0]
    moved, _ = game.apply(state, Move(to=target))
    assert moved.figures[0] == target


def test_occupied_fields_may_be_passed_and_cost_a_step(game: Goldgraeber, board: Board,
                                                       start: GoldgraeberState) -> None:
    """Surrounding the figure with other figures (and chips) changes nothing: each still costs one step."""
    free = with_figure(at(start, face_down=[]), 0, "P57")
    ring = [board.ids[n] for n in board.neighbours[board.index["P57"]]]
    crowded = at(free, face_down=ring[3:])
    for seat, field in enumerate(ring[:3], start=1):
        crowded = with_figure(crowded, seat, field)
    for steps in range(2, 7):
        assert game.destinations(crowded, 0, steps) == game.destinations(free, 0, steps)
    assert set(ring) <= game.destinations(crowded, 0, 3)  # e.g. round a triangle onto a neighbour


def test_no_shuttling_but_fields_may_be_revisited(game: Goldgraeber, start: GoldgraeberState) -> None:
    state = with_figure(start, 0, "P100")
    assert "P100" not in game.destinations(state, 0, 2)  # only by going there and straight back
    assert "P100" in game.destinations(state, 0, 3)  # round a triangle of three fields


# -- GG-4 the locomotive blocks ----------------------------------------------------------------------
def test_locomotive_may_be_neither_entered_nor_passed(game: Goldgraeber, board: Board,
                                                     start: GoldgraeberState) -> None:
    rail = [board.ids[r] for r in board.rail]
    state = at(with_figure(start, 0, rail[4]), locomotive=5)
    state = roll(game, state, "2")
    assert refusal(game, state, Move(to=rail[5])) in {("GG-4", "move.locomotive")}
    assert rail[6] not in game.destinations(state)
    assert refusal(game, state, Move(to=rail[6])) == ("GG-4", "move.past_locomotive")


# -- GG-5 houses -------------------------------------------------------------------------------------
def test_house_is_left_and_entered_only_through_the_door(game: Goldgraeber, board: Board,
                                                         start: GoldgraeberState) -> None:
    house = board.houses[start.houses[0]]
    door = board.doors[start.houses[0]]
    assert board.neighbours[house] == (door,)
    (hq, hr) = board.coords[house]
    wall = next(n for n in board.neighbours[door] if n != house  # touches the house, but not through the door
                and (board.coords[n][0] - hq, board.coords[n][1] - hr) in HEX_DIRECTIONS)
    assert board.ids[house] not in game.destinations(with_figure(start, 0, board.ids[wall]), 0, 1)
    assert board.ids[house] in game.destinations(with_figure(start, 0, board.ids[wall]), 0, 2)  # via the door
    leaving = roll(game, start, "2")
    assert all(board.index[f] in board.neighbours[door] for f in game.destinations(leaving))
    state = roll(game, with_figure(start, 0, board.ids[door]), "2")
    assert refusal(game, state, Move(to=board.ids[house])) == ("GG-5", "move.house_count")


def test_other_players_houses_are_closed(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-5 and GG-R3: only the owner enters a house, nobody else walks into or through it."""
    other_house = board.ids[board.houses[start.houses[1]]]
    state = roll(game, with_figure(start, 0, "T1"), "2")
    assert refusal(game, state, Move(to=other_house)) == ("GG-5", "move.other_house")
    their_door = board.ids[board.doors[start.houses[1]]]
    for shuttle in ("no_step_back", "two_fields_only"):
        options = start.options.model_validate(start.options.model_dump() | {"shuttle": shuttle})
        beside = at(with_figure(start, 0, their_door), options=options)
        assert all(other_house not in game.destinations(beside, 0, steps) for steps in range(2, 7))


# -- GG-6 / GG-7 the train ---------------------------------------------------------------------------
def test_locomotive_roll_moves_the_train_not_the_figure(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-6: rolling the locomotive."""
    state, events = game.apply(start, Roll(values=("L",)))
    assert state.locomotive == 1 and state.figures == start.figures
    assert any(e.kind == "train" for e in events)


def test_train_robs_a_figure_on_the_rail_and_sets_it_behind(game: Goldgraeber, board: Board,
                                                           start: GoldgraeberState) -> None:
    rail = [board.ids[r] for r in board.rail]
    state = at(with_open(with_figure(start, 1, rail[3]), 1, "G4", "R2"), locomotive=2)
    state = with_open(state, 0, "G1")
    after = roll(game, state, "L")
    assert after.locomotive == 3
    assert after.open_chips[0] == ("G1", "G4", "R2") and after.open_chips[1] == ()
    assert after.figures[1] == rail[2]
    assert after.phase == "roll" and after.current == 1  # no brawl


def test_train_sets_the_figure_on_the_first_free_field_behind(game: Goldgraeber, board: Board,
                                                              start: GoldgraeberState) -> None:
    rail = [board.ids[r] for r in board.rail]
    state = at(with_figure(with_figure(with_figure(start, 1, rail[5]), 2, rail[3]), 3, rail[2]), locomotive=4)
    after = roll(game, state, "L")
    assert after.figures[1] == rail[4]
    state = at(with_figure(with_figure(with_figure(start, 1, rail[5]), 2, rail[3]), 3, rail[2]), locomotive=4)
    state = with_figure(state, 0, rail[4])  # cannot happen in play (the train stands there); shows the search
    assert roll(game, at(state, locomotive=4), "L").figures[1] == rail[1]


# -- GG-8 hidden chips -------------------------------------------------------------------------------
def test_landing_on_a_chip_asks_what_it_shows(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    dig, near = dig_with_path_neighbour(game, board, start)
    state = game.apply(roll(game, with_figure(start, 0, near), "2"), Move(to=dig))[0]
    assert state.phase == "reveal" and game.prompt(state).expects == ("reveal",)
    assert dig in state.face_down


def test_reveal_is_checked_against_the_chips_left(game: Goldgraeber, board: Board,
                                                  start: GoldgraeberState) -> None:
    dig, near = dig_with_path_neighbour(game, board, start)
    unseen = list(start.unseen)
    unseen[CHIP_KINDS.index("R1")] = 0
    state = game.apply(roll(game, with_figure(at(start, unseen=unseen), 0, near), "2"), Move(to=dig))[0]
    assert refusal(game, state, Reveal(chip="robber", value=1)) == ("GG-8", "reveal.none_left")
    assert refusal(game, state, Reveal(chip="gold", value=6)) == ("GG-8", "reveal.value")
    assert refusal(game, state, Roll(values=("3",)))[0] == "GG-1"


def test_odds_come_from_the_unseen_chips(start: GoldgraeberState) -> None:
    odds = chip_odds(start)
    assert odds.unseen == 64
    assert odds.robber_chance == pytest.approx(16 / 64)
    assert odds.expected_gold == pytest.approx((8 * 1 + 10 * 2 + 12 * 3 + 10 * 4 + 8 * 5) / 64)
    fewer = at(start, unseen=[0, 0, 0, 0, 2, 0, 0, 0, 0, 2])
    assert chip_odds(fewer).robber_chance == pytest.approx(0.5)
    assert chip_odds(fewer).expected_gold == pytest.approx(2.5)


# -- GG-9 gold ---------------------------------------------------------------------------------------
def test_gold_is_taken_open(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-9: finding gold."""
    dig, near = dig_with_path_neighbour(game, board, start)
    state = game.apply(roll(game, with_figure(start, 0, near), "2"), Move(to=dig))[0]
    state, events = game.apply(state, Reveal(chip="gold", value=4))
    assert [e.text() for e in events if e.kind == "gold"] == ["A finds gold worth 4."]
    assert state.open_chips[0] == ("G4",) and dig not in state.face_down
    assert state.unseen[CHIP_KINDS.index("G4")] == 9 and state.current == 1


# -- GG-10 robbers -----------------------------------------------------------------------------------
def robber_fight(game: Goldgraeber, board: Board, start: GoldgraeberState, strength: int,
                 carrying: tuple[str, ...] = ()) -> tuple[GoldgraeberState, str]:
    dig, near = dig_with_path_neighbour(game, board, start)
    state = with_open(with_figure(start, 0, near), 0, *carrying)
    state = game.apply(game.apply(roll(game, state, "2"), Move(to=dig))[0], Reveal(chip="robber", value=strength))[0]
    assert state.phase == "robber"
    return state, dig


def test_higher_roll_captures_the_robber(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    state, _ = robber_fight(game, board, start, 3, ("G2",))
    state = roll(game, state, "5")
    assert state.open_chips[0] == ("G2", "R3") and not state.stacks and state.current == 1


def test_lower_roll_loses_the_chips_to_a_robber_stack_and_moves_away(game: Goldgraeber, board: Board,
                                                                    start: GoldgraeberState) -> None:
    state, dig = robber_fight(game, board, start, 5, ("G2", "R1"))
    state = roll(game, state, "3")
    assert state.stacks == (Stack(field=dig, robber="R5", loot=("G2", "R1")),)
    assert state.open_chips[0] == () and state.phase == "away" and state.steps == 3
    chip_field = next(f for f in game.destinations(state) if f in state.face_down)
    after = game.apply(state, Move(to=chip_field))[0]
    assert chip_field in after.face_down and after.phase == "roll" and after.current == 1  # not turned


def test_a_fight_over_no_chips_names_no_count(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-10: a robber guarding nothing is captured, and a player carrying nothing loses nothing; the table
    says so, never "with 0 chips" or "keeps 0 chips"."""
    state, _ = robber_fight(game, board, start, 3)
    captured = [event.text() for event in game.apply(state, Roll(values=("5",)))[1] if event.kind == "robber_captured"]
    lost = [event.text() for event in game.apply(state, Roll(values=("2",)))[1] if event.kind == "robber_won"]
    assert captured == ["A captures the robber."] and lost == ["The robber wins; A has no chips to lose."]
    state, _ = robber_fight(game, board, start, 3, ("G2", "R1"))
    lost = [event.text() for event in game.apply(state, Roll(values=("2",)))[1] if event.kind == "robber_won"]
    assert lost == ["The robber beats A and keeps 2 chips."]


def test_tie_with_robber_rolls_again_and_locomotive_counts_one(game: Goldgraeber, board: Board,
                                                               start: GoldgraeberState) -> None:
    state, _ = robber_fight(game, board, start, 2)
    tied = roll(game, state, "2")
    assert tied.phase == "robber"
    state, _ = robber_fight(game, board, start, 1)
    tied = roll(game, state, "L")
    assert tied.phase == "robber" and tied.locomotive == 0
    state, _ = robber_fight(game, board, start, 2)
    lost = roll(game, state, "L")
    assert lost.phase in ("away", "roll") and lost.locomotive == 0 and lost.stacks[0].robber == "R2"


# -- GG-11 robber stacks -----------------------------------------------------------------------------
def test_challenging_a_robber_stack(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    dig, near = dig_with_path_neighbour(game, board, start)
    base = at(start, face_down=[f for f in start.face_down if f != dig],
              stacks=[Stack(field=dig, robber="R3", loot=("G5", "G1"))])
    state = game.apply(roll(game, with_open(with_figure(base, 0, near), 0, "G2"), "2"), Move(to=dig))[0]
    assert state.phase == "robber"
    won = roll(game, state, "4")
    assert won.open_chips[0] == ("G2", "R3", "G5", "G1") and won.stacks == ()
    lost = roll(game, state, "2")
    assert lost.stacks[0].loot == ("G5", "G1", "G2") and lost.open_chips[0] == ()


# -- GG-12 / GG-13 brawls ----------------------------------------------------------------------------
def brawl(game: Goldgraeber, start: GoldgraeberState) -> GoldgraeberState:
    state = with_open(with_open(with_figure(with_figure(start, 0, "P100"), 2, "P57"), 2, "G3"), 0, "G1")
    assert "P57" in game.destinations(state, 0, 2)
    state = game.apply(roll(game, state, "2"), Move(to="P57"))[0]
    assert state.phase == "brawl" and state.defender == 2 and state.actor == 0
    return state


def test_brawl_higher_roll_takes_the_open_chips(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-12: brawls between gold diggers."""
    state = roll(game, brawl(game, start), "3")
    assert state.actor == 2
    state = roll(game, state, "5")
    assert state.open_chips[2] == ("G3", "G1") and state.open_chips[0] == ()
    assert state.phase == "away_roll" and state.actor == 2


def test_a_brawl_won_against_empty_hands_says_so(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-12: the loser gives up every open chip; with none, the log says there was nothing to take
    rather than "takes 0 chips"."""
    state = brawl(game, start)
    state = state.evolve(open_chips=tuple(() if seat == 2 else chips  # the defender holds nothing open
                                          for seat, chips in enumerate(state.open_chips)))
    state = roll(game, state, "5")
    after, events = game.apply(state, Roll(values=("2",)))
    won = next(event for event in events if event.kind == "brawl_won")
    assert won.message == "{name} wins the brawl; {loser} has no chips to lose."
    assert after.open_chips[0] == state.open_chips[0]
    taken = game.apply(roll(game, brawl(game, start), "5"), Roll(values=("2",)))[1]
    assert next(event for event in taken if event.kind == "brawl_won").params["count"] == 1


def test_brawl_ties_repeat_and_locomotive_counts_one(game: Goldgraeber, start: GoldgraeberState) -> None:
    state = roll(game, roll(game, brawl(game, start), "L"), "L")
    assert state.phase == "brawl" and state.actor == 0 and state.locomotive == 0
    state = roll(game, roll(game, state, "2"), "L")
    assert state.open_chips[0] == ("G1", "G3") and state.actor == 0 and state.phase == "away_roll"


def test_winner_moves_away_without_digging_and_play_goes_left_of_attacker(game: Goldgraeber,
                                                                         start: GoldgraeberState) -> None:
    state = roll(game, roll(game, brawl(game, start), "2"), "6")  # defender (seat 2) wins
    state = roll(game, state, "4")
    assert state.phase == "away" and state.actor == 2 and state.steps == 4
    target = next(iter(sorted(f for f in game.destinations(state) if f in state.face_down)),
                  sorted(game.destinations(state))[0])
    after = game.apply(state, Move(to=target))[0]
    assert after.figures[2] == target and after.figures[0] == "P57"  # loser stays
    assert after.current == 1 and after.phase == "roll"  # left of the attacker (seat 0)
    assert target not in start.face_down or target in after.face_down


# -- GG-14 no brawls in town or on rafts -------------------------------------------------------------
def test_no_brawl_in_golden_city(game: Goldgraeber, start: GoldgraeberState) -> None:
    state = with_figure(with_figure(start, 0, "T1"), 1, "T9")
    assert "T9" in game.destinations(state, 0, 2)
    after = game.apply(roll(game, state, "2"), Move(to="T9"))[0]
    assert after.phase == "roll" and after.current == 1 and after.figures[0] == after.figures[1] == "T9"


def test_an_occupied_raft_cannot_be_landed_on(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    post = start.rafts[0]
    near = board.ids[board.neighbours[board.index[post]][0]]
    state = with_figure(with_figure(start, 1, post), 0, near)
    state = roll(game, state, "3")
    if post in game.destinations(with_figure(state, 1, "T1")):
        assert refusal(game, state, Move(to=post)) == ("GG-15", "move.raft_taken")
    assert post not in game.destinations(state)


# -- GG-15 rafts -------------------------------------------------------------------------------------
def raft_trip_start(game: Goldgraeber, board: Board, start: GoldgraeberState) -> tuple[GoldgraeberState, str]:
    post = start.rafts[0]
    for near in board.neighbours[board.index[post]]:
        state = with_figure(start, 0, board.ids[near])
        if post in game.destinations(state, 0, 2):
            return game.apply(roll(game, state, "2"), Move(to=post))[0], post
    raise AssertionError("raft post not reachable")


def test_landing_on_a_raft_crosses_the_lake(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    state, post = raft_trip_start(game, board, start)
    assert state.phase == "raft"
    lake = board.lake_of_shore[board.index[post]]
    far = board.ids[max(board.lake_shores[lake], key=lambda f: sum(map(abs, board.coords[f])))]
    other_lake = board.ids[board.lake_shores[(lake + 1) % 3][0]]
    assert refusal(game, state, Raft(to=other_lake)) == ("GG-15", "raft.other_lake")
    assert refusal(game, state, Raft(to=post)) == ("GG-15", "raft.stay")
    after = game.apply(state, Raft(to=far))[0]
    assert after.figures[0] == far and far in after.rafts and post not in after.rafts
    assert after.current == 1


def test_raft_refuses_a_shore_field_with_a_raft_or_figure(game: Goldgraeber, board: Board,
                                                          start: GoldgraeberState) -> None:
    state, post = raft_trip_start(game, board, start)
    lake = board.lake_of_shore[board.index[post]]
    other_post = next(r for r in state.rafts if r != post and board.lake_of_shore[board.index[r]] == lake)
    assert refusal(game, state, Raft(to=other_post)) == ("GG-15", "raft.occupied")
    free = next(board.ids[f] for f in board.lake_shores[lake] if board.ids[f] not in state.rafts)
    assert refusal(game, with_figure(state, 3, free), Raft(to=free)) == ("GG-14", "raft.figure")


def test_a_figure_on_a_raft_leaves_over_land(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    state, post = raft_trip_start(game, board, start)
    lake = board.lake_of_shore[board.index[post]]
    far = board.ids[max(board.lake_shores[lake], key=lambda f: sum(map(abs, board.coords[f])))]
    state = game.apply(state, Raft(to=far))[0]
    state = at(state, current=0, actor=0)
    stays = roll(game, state, "L")
    assert stays.figures[0] == far
    moving = roll(game, state, "3")
    assert far not in game.destinations(moving)  # coming back round onto the same raft is no crossing
    assert refusal(game, moving, Move(to=far)) == ("GG-15", "move.raft_again")


def test_lakes_are_water(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    water = board.layout.lakes[0].water[0]
    state = roll(game, start, "2")
    assert refusal(game, state, Move(to=water)) == ("GG-15", "move.lake")
    assert all(board.neighbours[board.index[w]] == () for lake in board.layout.lakes for w in lake.water)


# -- GG-16 bringing chips home -----------------------------------------------------------------------
def test_chips_are_safe_at_home(game: Goldgraeber, board: Board, start: GoldgraeberState) -> None:
    """GG-16: bringing the gold home."""
    house = board.ids[board.houses[start.houses[0]]]
    state = with_open(with_figure(start, 0, "T1"), 0, "G5", "R2", "G1")
    assert house in game.destinations(state, 0, 2)
    after, events = game.apply(roll(game, state, "2"), Move(to=house))
    assert after.home_chips[0] == ("G5", "R2", "G1") and after.open_chips[0] == ()
    assert game.scores(after)[0] == 5 + 2 + 1
    assert events[0].message == "{name} goes home."  # not "Anna moves to Anna's house."


# -- GG-17 end of the game ---------------------------------------------------------------------------
def test_game_ends_when_the_train_reaches_golden_city(game: Goldgraeber, board: Board,
                                                      start: GoldgraeberState) -> None:
    state = at(start, locomotive=len(board.rail) - 2)
    after = roll(game, state, "L")
    assert game.is_over(after) and after.end_reason == "train"
    assert refusal(game, after, Roll(values=("3",))) == ("GG-17", "game.over")
    assert game.prompt(after).player is None


def test_game_ends_when_no_more_gold_than_players(game: Goldgraeber, board: Board,
                                                  start: GoldgraeberState) -> None:
    dig, near = dig_with_path_neighbour(game, board, start)
    unseen = [0, 0, 0, 0, 5, 0, 0, 0, 0, 0]
    state = at(with_figure(start, 0, near), unseen=unseen, face_down=[dig, *start.face_down[:4]])
    state = game.apply(game.apply(roll(game, state, "2"), Move(to=dig))[0], Reveal(chip="gold", value=5))[0]
    assert game.is_over(state) and state.end_reason == "gold"


def test_gold_under_robbers_counts_unless_the_option_says_no(game: Goldgraeber, start: GoldgraeberState) -> None:
    """GG-R7 (stack gold counts, or not) and GG-R12 (chips or nuggets), each option in both settings."""
    state = at(start, unseen=[0, 0, 0, 0, 3, 0, 0, 0, 0, 0],
               stacks=[Stack(field=start.face_down[0], robber="R2", loot=("G1", "G2", "R1"))])
    assert game.gold_on_board(state) == 5
    no_stacks = at(state, options=state.options.model_validate(state.options.model_dump()
                                                               | {"end_counts_stack_gold": False}))
    assert game.gold_on_board(no_stacks) == 3
    nuggets = at(state, options=state.options.model_validate(state.options.model_dump() | {"end_count": "nuggets"}))
    assert game.gold_on_board(nuggets) == 15 + 3


# -- GG-18 scoring -----------------------------------------------------------------------------------
def test_only_chips_at_home_score(game: Goldgraeber, start: GoldgraeberState) -> None:
    state = at(with_open(start, 1, "G5", "G5"), home_chips=[("G3", "R5"), (), ("R1", "R2"), ("G1",)])
    assert game.scores(state) == [5, 0, 4, 1]
    assert game.winners(state) == [0]


# -- GG-19 the look-instead-of-roll variant ----------------------------------------------------------
def test_look_variant(game: Goldgraeber, board: Board) -> None:
    plain = game.initial_state(make_setup())
    variant = game.initial_state(make_setup(look_variant=True))
    dig, near = dig_with_path_neighbour(game, board, plain)
    assert refusal(game, with_figure(plain, 0, near), Look()) == ("GG-19", "look.off")
    assert refusal(game, variant, Look()) == ("GG-19", "look.nothing")
    state, events = game.apply(with_figure(variant, 0, near), Look())
    assert state.current == 1 and state.face_down == variant.face_down and state.unseen == variant.unseen
    assert any(e.kind == "look" and dig in e.params["fields"] for e in events)
    assert Look() in game.legal_actions(with_figure(variant, 0, near))


# -- GG-R8 no legal move -----------------------------------------------------------------------------
def test_turn_passes_when_no_field_can_be_reached(board: Board, start: GoldgraeberState) -> None:
    """GG-R8: On a board where P100 has one way out, into a dead end, a 2 cannot be moved."""
    here = board.index["P100"]
    exit_field = board.neighbours[here][0]
    flooded = {n for n in board.neighbours[here] if n != exit_field}
    flooded |= {n for n in board.neighbours[exit_field] if n != here}
    fields = tuple(f.model_copy(update={"type": "lake"}) if i in flooded else f
                   for i, f in enumerate(board.layout.fields))
    island = compile_board(board.layout.model_copy(update={"fields": fields}))

    class IslandGame(Goldgraeber):
        @property
        def board(self) -> Board:
            return island

    game = IslandGame()
    state = with_figure(start, 0, "P100")
    assert game.destinations(state, 0, 2) == set()
    after, events = game.apply(state, Roll(values=("2",)))
    assert after.current == 1 and after.figures[0] == "P100" and any(e.kind == "no_move" for e in events)
