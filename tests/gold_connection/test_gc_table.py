"""The Gold Connection table panel, headless: start safes, arrows, tapping destinations and bars, odds,
dice from touch, ending and sorting, refusals with their rule."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.table_helpers import kivy_ready_fixture, make_controller, played, show_panel, shown_panel, touch_at  # noqa: F401 - a fixture

pytestmark = pytest.mark.ui


@pytest.fixture
def table_and_panel(kivy_ready: Any) -> Any:
    from companion.engine.session import Session
    from tests.gold_connection.gc_helpers import setup

    controller = make_controller(Session.new(setup(2, 4)))
    panel = show_panel(kivy_ready, controller, "gold_connection", (780, 420))
    yield controller.table, panel
    panel.detach()
    kivy_ready.remove_widget(panel)


def press(panel: Any, text: str) -> None:
    """Press the choice button whose text starts with `text`."""
    button = next(b for b in panel.ids.choices.children if b.text.startswith(text))
    button.dispatch("on_release")


def tap(panel: Any, x: float, y: float) -> None:
    """A real touch through the window at board coordinates."""
    touch_at(*panel.board.to_window(x, y))


def tap_safe(panel: Any, safe: str) -> None:
    """A touch on the safe's lower edge (clear of its bars), again in the loupe if that opens it."""
    x, y = panel.board.centre_of(safe)
    tap(panel, x, y - panel.board.cell_spacing * 0.45)
    magnified = panel.board.loupe.magnified
    if magnified is not None:
        x, y = magnified.board.centre_of(safe)
        touch_at(*magnified.board.to_window(x, y - magnified.board.cell_spacing * 0.45))


def tap_bar(panel: Any, safe: str, bar: str) -> None:
    _, _, x, y, size = next(box for box in panel.board._bar_boxes if box[0] == safe and box[1] == bar)
    tap(panel, x + size / 2, y + size / 2)


def roll(panel: Any, first: str, second: str) -> None:
    for face in (first, second):
        next(b for b in panel.ids.faces.children if b.text == face).dispatch("on_release")


def start_game(table: Any, panel: Any) -> None:
    """Seat 0 starts on safe 12 pointing to E, seat 1 on safe 1 pointing to S2."""
    roll(panel, "6", "6")
    assert sorted(b.text for b in panel.ids.choices.children) == ["Start on safe 12", "Start on safe 6"]
    tap_safe(panel, "S12")
    roll(panel, "1", "1")
    assert sorted(panel.board.highlighted) == ["S1", "S2"]
    press(panel, "Start on safe 1")
    assert table.session.state.phase == "arrows" and sorted(panel.board.highlighted) == ["E", "S11"]
    tap_safe(panel, "E")
    press(panel, "Point to safe 2")  # the safe in table words, not its id
    assert table.session.state.phase == "turn" and table.session.state.current == 0


def test_table_module_is_found_and_setup_guide_lists_the_dealt_safes() -> None:
    from companion.app.tables import table_for
    from companion.engine.registry import get_game
    from companion.games.gold_connection.app.table import setup_steps
    from companion.games.gold_connection.words import bars_words
    from tests.gold_connection.gc_helpers import setup

    assert table_for("gold_connection").__name__ == "companion.games.gold_connection.app.table"
    steps = setup_steps(setup(4, 4))
    dealt = get_game("gold_connection").initial_state(setup(4, 4)).safes
    assert f"Safe 7: {bars_words(dealt['S7'])}" in steps
    assert f"The choice point on the left: {bars_words(dealt['W'])}" in steps
    assert any("4-rows" in step for step in steps)
    table_steps = setup_steps(setup(2, 4, deal="table"))
    assert not any(step.startswith("Safe ") for step in table_steps) and any("enter" in s for s in table_steps)


def test_tap_destination_bars_odds_dice_end_and_sort(table_and_panel: Any, tmp_path: Path) -> None:
    table, panel = table_and_panel
    start_game(table, panel)
    tap_bar(panel, "S12", table.session.state.safes["S12"][0])  # the arrow's own safe: a loot, not a loop
    assert table.refusal_rule.startswith("GC-7 ") and table.session.state.distance == 0
    # Lit are only safes where a loot could still succeed (issue 13), no longer every end of a move: E
    # (one step) and S8 (two) hold bars within reach, S12 (where the turn began, six steps round the
    # loop) and S1 (Ben's stone, his box too empty to plunder) are reachable but not lit.
    lit = set(panel.board.highlighted)
    assert {"E", "S8"} <= lit and not lit & {"S12", "S1"}
    assert "S12" in {move.path[-1] for move in panel.game.moves(table.session.state)}
    tap_safe(panel, "E")
    assert panel.pending_move is not None and table.session.state.distance == 0
    assert panel.lit_text == "Arrow to the choice point on the right: which way does it point then?"
    press(panel, "Then point to safe 8")
    state = table.session.state
    assert state.robbers[0].arrow == "E" and state.robbers[0].heading == "S8" and state.distance == 1
    tap_safe(panel, "S8")
    state = table.session.state
    assert state.robbers[0].arrow == "S8" and state.distance == 2
    first, second = state.safes["S8"][:2]
    tap_bar(panel, "S8", first)
    press(panel, second)
    assert sorted(panel.picked) == sorted([first, second])
    assert sum(1 for b in panel.ids.choices.children if b.text.startswith("[")) == 2
    target = 2 + int(first[1]) + int(second[1])
    assert panel.odds_text.startswith(f"Roll {target} or more") and "chips" not in panel.odds_text  # none yet
    tap_bar(panel, "S1", table.session.state.safes["S1"][0])
    assert table.refusal_rule.startswith("GC-8 ") and "(safe 8)" in table.refusal_text  # the arrow's, in words
    assert sorted(panel.picked) == sorted([first, second])  # the picks stay for the loot
    press(panel, "Loot")
    assert table.session.state.phase == "roll" and panel.rolling and f"Roll {target}" in panel.odds_text
    roll(panel, "6", "6")
    state = table.session.state
    assert state.tray and state.last_success == "loot"
    press(panel, "End the turn")
    assert table.session.state.phase == "sort"
    press(panel, "Sort, longest rows first")
    state = table.session.state
    assert state.current == 1 and state.robbers[0].stone == "S8" and state.counter == 2
    assert state.robbers[0].bar_count() + len(state.safes["S8"]) >= 6
    assert "Ada" in panel.boxes_text and "Counter 2 of 36" in panel.status_text
    panel.export_to_png(str(tmp_path / "table.png"))
    assert (tmp_path / "table.png").stat().st_size > 5000


def test_lit_safes_are_those_where_a_loot_or_plunder_could_succeed() -> None:
    """GC-8, GC-9, GC-16: not the start safe, not looted this turn, not under another stone (unless its box
    may be plundered), and distance plus the cheapest bar within two dice and the player's chips."""
    from companion.games.gold_connection.app.table import loot_targets
    from tests.gold_connection.gc_helpers import GAME, turn_state, with_chips, with_rows, with_safe

    state = turn_state({0: ("S12", "E"), 1: ("S1", "S2")})
    assert set(loot_targets(GAME, state)) == {"E", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10",
                                              "S11", "W"}
    far = with_safe(state.evolve(distance=8, looted=("S7",)), "S8", ("B5", "G5", "R5", "Y5", "B6", "G6"))
    # S7 was looted, S8 (10 fields) needs 15; E (9 fields) and S6, S9 (11) need 10 and 12: within two dice
    assert loot_targets(GAME, far) == {"E": 9, "S6": 11, "S9": 11}
    # three chips reach 15: S8 now too, and safes up to 14 fields with a 1 in them; S3 (15 fields, no 1) not
    assert loot_targets(GAME, with_chips(far, 0, 3)) == {"E": 9, "S8": 10, "S6": 11, "S9": 11, "W": 12,
                                                         "S10": 12, "S5": 13, "S11": 13, "S2": 14, "S4": 14}
    rich = with_rows(state, 1, {"B6": (1, 2, 3, 4, 5), "G6": (1, 2, 3, 4, 5)})  # ten bars: may be plundered
    assert "S1" in loot_targets(GAME, rich) and "S1" not in loot_targets(GAME, rich.evolve(plundered=(1,)))
    assert loot_targets(GAME, state.evolve(phase="roll")) == {}  # no move offered: nothing to light


def test_an_unlit_reachable_safe_still_moves_the_arrow(table_and_panel: Any) -> None:
    from companion.games.gold_connection.words import safe_words

    table, panel = table_and_panel
    start_game(table, panel)
    assert "S1" not in panel.board.highlighted
    tap_safe(panel, "S1")  # onto Ben's stone: allowed (GC-7), though nothing can be looted there
    state = table.session.state
    assert state.robbers[0].arrow == "S1" and state.distance == 5
    lit = set(panel.board.highlighted)  # moving on from here: the safes worth it, each with its distance
    assert lit and panel.lit_text.startswith("Lit safes") and not panel.odds_text
    assert all(f"{panel.game.vault.numbers[safe] or safe_words(safe).text()} ({panel.targets[safe]})" in panel.lit_text
               for safe in lit)
    assert {"E", "W"} & set(lit), "a choice point is lit, named in words, not by its id"


def test_the_lit_safes_follow_the_lines_above_them_or_the_choices(table_and_panel: Any) -> None:
    """At a turn's start the table waits for a tap on the board and offers no buttons: the lit safes are
    written under the counter, not at the foot of the column.  With choices they follow the last choice
    and scroll with them: in German six lines of them at the foot hid "Hier anhalten" under the fold."""
    from kivy.uix.label import Label

    from companion.app.launch import pump

    table, panel = table_and_panel
    start_game(table, panel)
    pump(2)
    labels = {label.text: label for label in panel.walk() if isinstance(label, Label) and label.text}
    assert not panel.ids.choices.children and panel.lit_text.startswith("Lit safes") and not panel.odds_text
    status, lit = labels[panel.status_text], labels[panel.lit_text]
    gap = status.to_window(0, status.y)[1] - lit.to_window(0, lit.top)[1]
    assert gap < 30, "the lit safes stand apart from the lines above them"
    tap_safe(panel, "S11")  # choices: the bars, "Stop here", and the lit safes under them
    pump(2)
    labels = {label.text: label for label in panel.walk() if isinstance(label, Label) and label.text}
    lit, grid = labels[panel.lit_text], panel.ids.choices
    assert grid.children and lit.parent is grid.parent and lit.top <= grid.y + 1
    stop = next(button for button in grid.children if button.text.startswith("Stop here"))
    scroll = grid.parent.parent
    assert scroll.to_window(0, scroll.y)[1] <= stop.to_window(0, stop.y)[1], "Stop here below the fold"


def test_a_picked_bar_keeps_the_choices_in_two_columns_in_german(table_and_panel: Any) -> None:
    """German "ausräumen" is a little wider than a half-width button: its button shrinks the word to the
    table's smallest readable size rather than turning the choices into one column, which would push
    "… ausräumen" below the fold the moment a bar is picked."""
    from companion.app.i18n import set_language
    from companion.app.launch import pump

    table, panel = table_and_panel
    start_game(table, panel)
    tap_safe(panel, "S11")
    set_language("de")
    try:
        arrow = table.session.state.robbers[0].arrow
        panel.controller.tap_bar(arrow, table.session.state.safes[arrow][0])
        pump(2)
        texts = [button.text for button in panel.ids.choices.children]
        assert any(text.endswith("ausräumen") for text in texts), texts
        assert panel.ids.choices.cols == 2
    finally:
        set_language("en")


@pytest.mark.parametrize(("rows", "tray", "buttons"), [
    ({}, ("B3",), ["Nothing fits a row: put B3 back into safe 12"]),
    ({"B6": (1, 2)}, ("B3",), ["Sort: B6+3"]),
    ({}, ("B1",), ["Sort, longest rows first: B6+1", "Sort, shortest rows first: B4+1"])])
def test_sorting_offers_each_different_sorting_once_and_says_when_nothing_fits(
        table_and_panel: Any, rows: dict[str, tuple[int, ...]], tray: tuple[str, ...], buttons: list[str]) -> None:
    """GC-13: two suggested sortings only where they differ; where no bar fits a row, the table says the bars
    go back into the robber's safe instead of offering two buttons that both read "-"."""
    from tests.gold_connection.gc_helpers import with_rows

    table, panel = table_and_panel
    start_game(table, panel)
    state = with_rows(table.session.state, 0, rows).evolve(tray=tray)
    panel._choices = []
    panel._sort_choices(state)
    assert [text for text, *_rest in panel._choices] == buttons


def test_the_bars_stay_under_the_finger_while_bars_are_picked(table_and_panel: Any) -> None:
    """Picking a bar changes the text beside the choices (the lit safes give way to the odds); a family
    taps bar after bar, so no bar button may move meanwhile."""
    from companion.app.launch import pump

    table, panel = table_and_panel
    start_game(table, panel)
    tap_safe(panel, "S11")
    pump(2)

    def places() -> dict[str, tuple[float, float]]:
        return {button.text.strip("[]"): tuple(button.to_window(*button.pos)) for button in panel.ids.choices.children
                if " " not in button.text and button.action is not None and "bars" in button.action.model_dump()}

    before = places()
    state = table.session.state
    panel.controller.tap_bar(state.robbers[0].arrow, state.safes[state.robbers[0].arrow][0])
    pump(2)
    assert before and places() == before


def test_short_roll_offers_chips_and_failure_sends_the_arrow_home(table_and_panel: Any) -> None:
    table, panel = table_and_panel
    start_game(table, panel)
    tap_safe(panel, "S11")
    assert table.session.state.distance == 5
    press(panel, "Stop here (roll 5+)")
    roll(panel, "1", "2")
    state = table.session.state
    assert state.current == 1 and state.robbers[0].chips == 2 and state.robbers[0].arrow == "S12"
    tap_safe(panel, "S4")
    press(panel, "Stop here (roll 3+)")
    assert not played(table.session, panel.controller.submit_roll, ["1", "7"], "serial")
    assert table.session.state.phase == "roll"
    assert played(table.session, panel.controller.submit_roll, ["1", "1"], "serial")
    assert table.session.actions[-1].source == "serial"
    state = table.session.state
    assert state.current == 0 and state.robbers[1].chips == 2
    tap_safe(panel, "S11")
    press(panel, "Stop here")
    roll(panel, "1", "2")
    assert table.session.state.phase == "chips"
    press(panel, "Spend 2 chips")
    state = table.session.state
    assert state.robbers[0].stone == "S11" and state.robbers[0].chips == 0 and state.current == 1


def test_table_dealt_setup_is_entered_bar_by_bar(kivy_ready: Any) -> None:
    from companion.app.launch import pump
    from companion.app.tables import table_for
    from companion.engine.session import Session
    from companion.games.gold_connection.words import safe_words
    from tests.gold_connection.gc_helpers import fresh, setup

    controller = make_controller(Session.new(setup(2, 4, deal="table")))
    table = controller.table
    panel = table_for("gold_connection").build_panel(controller)
    kivy_ready.add_widget(panel)
    pump(2)
    try:
        dealt = fresh(2, 9).safes
        for safe, bars in dealt.items():
            for bar in bars:
                assert panel.ids.choices.children[-1].text.startswith(f"{safe_words(safe).text().capitalize()}: ")
                press(panel, bar)
        assert table.session.state.phase == "start_roll" and table.session.state.safes == dealt
    finally:
        panel.detach()
        kivy_ready.remove_widget(panel)


def test_hardware_buttons_loot_roll_end_the_turn_and_sort(table_and_panel: Any) -> None:
    """confirm loots the picked bars, value_6 twice rolls 6 6, next ends the turn and then sorts."""
    table, panel = table_and_panel
    controller = panel.controller
    start_game(table, panel)
    tap_safe(panel, "E")
    press(panel, "Then point to safe 8")
    tap_safe(panel, "S8")
    first, second = table.session.state.safes["S8"][:2]
    controller.tap_bar("S8", first)
    controller.tap_bar("S8", second)
    controller.press("confirm", "gpio")
    assert table.session.state.phase == "roll" and table.session.actions[-1].action["type"] == "loot"
    controller.press("value_6", "gpio")
    controller.press("value_6", "gpio")
    assert table.session.actions[-1].action == {"type": "roll", "values": [6, 6]}
    assert table.session.actions[-1].source == "gpio" and table.session.state.last_success == "loot"
    controller.press("next", "gpio")
    assert table.session.state.phase == "sort"
    controller.press("next", "gpio")
    state = table.session.state
    assert state.current == 1 and state.robbers[0].stone == "S8"
    tap_safe(panel, "S4")
    controller.press("stop", "gpio")  # Stop here: the loot roll for the move is announced
    assert table.session.actions[-1].action == {"type": "stop"} and table.session.state.phase == "roll"


@pytest.mark.parametrize("language, letters", [("fr", ("V", "J")), ("de", ("Gr", "Ge"))])
def test_bars_and_rows_are_written_with_the_languages_colour_letters(kivy_ready: Any, language: str,
                                                                      letters: tuple[str, str]) -> None:
    """Green and yellow bars read V4/J5 in French and Gr4/Ge5 in German (as Digger's dice), never the
    engine's English G4/Y5, on every button and line of the panel through the example game; and every
    button's text fits inside it, no word broken in two."""
    import re

    from kivy.core.text import Label as CoreLabel
    from kivy.uix.behaviors import ButtonBehavior
    from kivy.uix.label import Label

    from companion.app.i18n import set_language
    from companion.app.launch import pump
    from companion.engine.record import load_record
    from companion.engine.session import Session

    record = load_record(Path(__file__).resolve().parents[2] / "docs" / "examples" / "gold_connection.json")
    controller = make_controller(Session.from_record(record.evolve(actions=())))
    set_language(language)
    panel = show_panel(kivy_ready, controller, "gold_connection", (780, 420))
    texts: set[str] = set()
    overflowing: set[str] = set()
    try:
        for recorded in record.actions[:80]:
            pump(1)
            labels = [widget for widget in panel.walk() if isinstance(widget, Label) and widget.opacity]
            texts |= {label.text for label in labels}
            buttons = [label for label in labels if isinstance(label, ButtonBehavior)]
            overflowing |= {button.text for button in buttons if button.texture_size[1] > button.height + 1}
            overflowing |= {button.text for button in buttons if any(  # a word broken inside
                CoreLabel(font_size=button.font_size, font_name=button.font_name).get_extents(word)[0]
                > button.text_size[0] for word in button.text.split())}
            assert played(controller.session, controller.submit, dict(recorded.action), recorded.source)
    finally:
        set_language("en")
        panel.detach()
        kivy_ready.remove_widget(panel)
    shown = "\n".join(texts)
    assert not re.findall(r"\b[GY]\d", shown)
    assert not re.findall(r"\bS\d", shown), "a safe named by its layout id"
    assert all(re.search(rf"\b{letter}\d", shown) for letter in letters)
    assert not overflowing


def test_a_colours_rows_in_a_box_wrap_together(kivy_ready: Any) -> None:
    """In the narrow column beside the vault (German, the 7" screen) a box's line wraps between colours,
    never inside one: each drawn line holds whole colours, three rows each ("Gr 4:- 5:- 6:-")."""
    from kivy.uix.label import Label

    from companion.app.i18n import set_language
    from companion.engine.session import Session
    from tests.gold_connection.gc_helpers import setup

    set_language("de")
    try:
        with shown_panel(kivy_ready, make_controller(Session.new(setup(3, 4))), "gold_connection",
                         (560, 420)) as panel:
            label = next(widget for widget in panel.walk()
                         if isinstance(widget, Label) and widget.text == panel.boxes_text)
            drawn = ["".join(word.text for word in line.words) for line in label._label._cached_lines]
    finally:
        set_language("en")
    rows_lines = [line for line in drawn if ":" in line and "Punkte" not in line]
    assert len(rows_lines) > 3, "the rows wrap in this column (else the test shows nothing)"
    for line in rows_lines:
        assert all(group.count(":") == 3 for group in line.split(" ") if group), line


def test_a_tap_on_a_safes_bars_is_the_safes_while_the_table_waits_for_a_safe(table_and_panel: Any) -> None:
    """Bars cover most of a safe: aiming at a start safe, at the safe an arrow points to, or at where the
    arrow moves, a person hits a bar; that is the safe's tap.  Once the arrow has moved, a bar is a loot's."""
    table, panel = table_and_panel
    state = table.session.state
    roll(panel, "6", "6")
    tap_bar(panel, "S12", state.safes["S12"][0])
    assert table.session.state.robbers[0].stone == "S12"
    roll(panel, "1", "1")
    tap_bar(panel, "S1", state.safes["S1"][-1])
    assert table.session.state.robbers[1].stone == "S1" and table.session.state.phase == "arrows"
    tap_bar(panel, "S11", state.safes["S11"][0])  # safe 12's arrow points to safe 11
    press(panel, "Point to safe 2")
    assert table.session.state.robbers[0].heading == "S11" and table.session.state.phase == "turn"
    tap_bar(panel, "S11", table.session.state.safes["S11"][0])  # before moving: the arrow moves there
    moved = table.session.state
    assert moved.robbers[0].arrow == "S11" and moved.distance == 1
    tap_bar(panel, "S11", moved.safes["S11"][0])  # now a bar to loot
    assert panel.picked == [moved.safes["S11"][0]] and table.session.state.distance == 1
