"""The End screen: scores per turn drawn as steps on labelled axes with a legend, ties said as ties,
the chess clock's time per player, everything readable at 800x480; History draws the same chart."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from kivy.metrics import sp
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.utils import get_color_from_hex

from companion.app.chart import READY_LABELS, ScoreChart, nice_step, session_turn_scores, step_points, turn_scores
from companion.app.demo import demo_session
from companion.app.launch import pump
from companion.app.screens.table_text import ranking_markup, standings
from companion.app.viewmodels import EndModel, headline
from tests.app.ui import history_read, visible_widgets


def test_turns_end_where_the_player_to_move_changes() -> None:
    movers = [None, None, 0, 0, 0, 1, 1, 0, None]
    scores = [[0, 0], [0, 0], [0, 0], [2, 0], [3, 0], [3, 0], [3, 4], [3, 4], [5, 4]]
    # Setup (nobody to move) is no turn; turn 1 ends at index 5, turn 2 at 7, turn 3 at 8 (game over).
    assert turn_scores(movers, scores) == [scores[2], scores[5], scores[7], scores[8]]
    # A turn under way counts as the last one.
    assert turn_scores(movers[:7], scores[:7]) == [scores[2], scores[5], scores[6]]
    assert turn_scores([], []) == []


def test_steps_run_along_then_up_or_down() -> None:
    points = step_points([0, 5, 2], [10, 20, 30])
    assert points == [10, 0, 20, 0, 20, 5, 30, 5, 30, 2]
    assert nice_step(30, 6) == 5 and nice_step(7, 10) == 1 and nice_step(180, 5) == 50


def test_ties_in_the_headline_and_the_ranking() -> None:
    names = ["Anna", "Ben", "Chloé"]
    assert headline(names, [30, 30, 12], [0, 1], True) == "Tie: Anna and Ben, 30 each"
    assert headline(names, [30, 30, 30], [0, 1, 2], True) == "Tie: Anna, Ben and Chloé, 30 each"
    assert headline(names, [12, 30, 9], [1], True) == "Ben wins!"
    assert headline(names, [12, 30, 9], [], False) == "Game not finished"
    rows = [{"name": n, "score": s, "colour": "#ffffff", "winner": w}
            for n, s, w in (("Chloé", 12, False), ("Anna", 30, True), ("Ben", 30, True), ("Dora", 12, False))]
    ranked = standings(rows)
    assert [(r["name"], r["place"], r["tie"]) for r in ranked] == [
        ("Anna", 1, True), ("Ben", 1, True), ("Chloé", 3, True), ("Dora", 3, True)]
    text = ranking_markup(rows, "en")
    assert text.count("1. ") == 2 and text.count("3. ") == 2 and text.count("tie") == 4
    # A name says nothing of its bearer: the winner's mark is a verb, never a gendered noun (Siegerin, gagnante).
    assert "1. [color=#ffffff]Anna[/color]  30  [b]gewinnt[/b], Gleichstand" in ranking_markup(rows, "de")
    assert "1. [color=#ffffff]Anna[/color]  30  [b]gagne[/b], ex æquo" in ranking_markup(rows, "fr")
    # A tie the game's tie-break decided: one winner, not a tie between the two.
    broken = standings([{**rows[1], "winner": False}, rows[2]])
    assert [(r["name"], r["place"], r["tie"], r["tie_break"]) for r in broken] == [
        ("Ben", 1, False, True), ("Anna", 2, False, False)]


@pytest.fixture(scope="module")
def finished() -> Any:
    session = demo_session(None, None)
    assert session.is_over()
    return session


def test_end_model_of_a_tied_demo_game(finished: Any) -> None:
    game = finished.game
    winners = game.winners(finished.state)
    names = [p.name for p in finished.setup.players]
    scores = finished.scores()
    model = EndModel()
    model.load(finished, ["#d64541", "#3a7bd5", "#2e9e5b", "#e3b505"])
    assert len(winners) == 2 and scores[winners[0]] == scores[winners[1]]  # the demo game ends in a tie
    assert model.winner_text == f"Tie: {names[winners[0]]} and {names[winners[1]]}, {scores[winners[0]]} each"
    assert [row["place"] for row in model.ranking][:2] == [1, 1]
    changes = sum(1 for before, after in zip(finished.states, finished.states[1:])
                  if game.to_move(before) != game.to_move(after))
    assert len(model.history) == changes + 1 < len(finished.states)
    assert model.history[-1] == list(scores) and model.names == names


def journalled(app: Any, finished: Any) -> Any:
    """The finished demo game again, in the app's journal."""
    return type(finished).from_record(finished.record(), app.journal)


def chart_of(app: Any) -> ScoreChart:
    charts = [w for w in visible_widgets(app.root.current_screen) if isinstance(w, ScoreChart)]
    assert len(charts) == 1
    return charts[0]


def test_end_screen_chart_legend_times_and_sizes(fresh_app: Any, finished: Any) -> None:
    app = fresh_app
    app.flow.open_table(journalled(app, finished))  # a finished game: the End screen follows
    app.clocks.totals = [{"name": "Anna", "used": "12:03"}, {"name": "Ben", "used": "9:41"}]  # as a clock leaves them
    pump(4)
    assert app.root.current == "end"
    screen = app.root.current_screen
    chart = chart_of(app)
    names = [p.name for p in finished.setup.players]
    texts = {w.text: w for w in visible_widgets(chart) if isinstance(w, Label) and w.text}
    for seat, name in enumerate(names):  # the legend: every name in its seat's colour
        assert list(texts[name].color) == pytest.approx(get_color_from_hex(app.end_model.colours[seat]))
    turns = len(app.end_model.history) - 1
    assert {"Score", "Turn", "0", str(turns)} <= set(texts)
    # One line per seat, drawn as steps over the turns.
    assert len(chart.lines) == len(names)
    for points in chart.lines:
        pairs = list(zip(points[0::2], points[1::2]))
        assert len({x for x, _y in pairs}) == turns + 1
        for (x1, y1), (x2, y2) in pairwise(pairs):
            assert x1 == x2 or y1 == y2, "a diagonal in the score chart"
    # The chess clock's time per player.
    shown = " ".join(w.text for w in visible_widgets(screen) if isinstance(w, Label))
    assert "Time used" in shown and "12:03" in shown and "9:41" in shown
    assert "Tie:" in screen.ids.headline.text
    # Readable from the chairs: no text under 18 sp, no button under 48 px, nothing outside the window.
    for widget in visible_widgets(screen):
        if isinstance(widget, Label) and widget.text:
            assert widget.font_size >= sp(18) - 0.01, widget.text
            x, y = widget.to_window(widget.x, widget.y)
            assert x >= 0 and y >= 0 and x + widget.width <= 801 and y + widget.height <= 481, widget.text
        if isinstance(widget, Button):
            assert widget.height >= 48 and widget.width >= 48, widget.text
    app.clocks.totals = []
    pump(1)
    assert "Time used" not in " ".join(w.text for w in visible_widgets(screen) if isinstance(w, Label))


def test_the_end_screen_is_built_before_the_last_move(fresh_app: Any) -> None:
    """Building the End screen cost the game's last tap 12 ms here (more on a Pi), and its chart's two
    dozen labels 8 ms more: both are made in the frame after the table opens, and the last move only
    fills them in."""
    app = fresh_app
    if app.root.has_screen("end"):
        app.root.remove_widget(app.root.get_screen("end"))
    started = demo_session(None, 3)
    session = type(started).from_record(started.record(), app.journal)
    app.flow.open_table(session)
    assert not app.root.has_screen("end")  # not inside the tap that opened the table
    pump(2)
    assert app.root.current == "table" and app.root.has_screen("end")
    chart = app.root.get_screen("end").ids.chart
    ready = list(chart.children)
    assert len(ready) >= READY_LABELS and all(isinstance(label, Label) for label in ready)
    for recorded in demo_session(None, None).record().actions[len(session.record().actions):]:
        app.flow.controller.submit(dict(recorded.action), "touch")
        app.journal_desk.writer.settle()
        pump(1)
    pump(2)
    assert app.root.current == "end"
    used = [label for label in chart.children if label.text]
    assert chart.children == ready and len(used) > 10  # the legend, the titles, the numbers: none made now


class CountedChart(ScoreChart):
    def __init__(self, **kwargs: Any) -> None:
        self.drawings: list[list[list[int]]] = []
        super().__init__(**kwargs)

    def _draw(self, history: list[list[int]]) -> int:
        self.drawings.append(history)
        return super()._draw(history)


def test_the_chart_is_drawn_once_however_many_of_its_inputs_change() -> None:
    chart = CountedChart(size=(500, 300))
    chart.history, chart.colours, chart.names = [[0, 0], [3, 1]], ["#d64541", "#3a7bd5"], ["Anna", "Ben"]
    chart.language = "de"
    pump(1)
    assert chart.drawings == [[[0, 0], [3, 1]]] and len(chart.lines) == 2


def test_history_draws_the_same_chart(fresh_app: Any, finished: Any) -> None:
    from companion.app.history import read_game

    app = fresh_app
    app.flow.open_table(journalled(app, finished))
    pump(2)
    app.screen("history").model.selected = -1  # (History keeps the game an earlier visit chose; this one is the newest)
    app.go("history")
    model = app.root.current_screen.model
    history_read(model)
    pump(1)
    summary = next(s for s in app.journal.games() if s.id == model.selected)
    expected = session_turn_scores(finished.game, finished.states)
    assert [list(row) for row in read_game(app.journal, summary).chart] == expected
    chart = chart_of(app)
    assert chart.history == expected and chart.names == [p.name for p in finished.setup.players]
    assert len(chart.lines) == len(finished.setup.players)


def test_the_chart_counts_turns_as_the_game_does_not_its_setup() -> None:
    """Gold Connection's start rolls and arrows pass from seat to seat before play: the chart's turns begin
    after them, so a game that ends at counter field 36 has 36 turns on the chart (it had 36 plus one per
    start roll, start safe and arrow)."""
    from companion.engine.record import load_record
    from companion.engine.session import Session

    record = load_record(Path(__file__).resolve().parents[2] / "docs" / "examples" / "gold_connection.json")
    session = Session.from_record(record)
    assert session.state.phase == "over" and session.state.counter == 36
    assert len(session_turn_scores(session.game, session.states)) == 1 + 36  # the start, then every turn


def test_the_chart_draws_its_axes_and_lines_as_meshes() -> None:
    """A wide `Line` is hundreds of triangles, and a translucent one (the axes) is drawn through the
    stencil buffer: the chart cost the End screen 8 ms a frame that way (docs/performance.md, App).
    Axes, ticks and each seat's steps are one mesh each; only the grid's hairlines stay `Line`s."""
    from kivy.graphics import Line, Mesh

    chart = ScoreChart(size=(500, 300))
    chart.history, chart.colours, chart.names = [[0, 0], [3, 1], [3, 6], [8, 6]], ["#d64541", "#3a7bd5"], ["A", "B"]
    pump(1)
    drawn = chart.canvas.before.children
    assert not [item for item in drawn if isinstance(item, Line) and item.width > 1]
    assert sum(isinstance(item, Mesh) for item in drawn) == 1 + len(chart.lines)
