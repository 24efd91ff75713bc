"""The Chinagold table panel, headless: taps on sites turn lines, refusals cite rules, the Pi plays."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from tests.table_helpers import drawn, kivy_ready_fixture, make_controller, played, show_panel, shown_panel, tap_cell  # noqa: F401 - a fixture

pytestmark = pytest.mark.ui


@contextmanager
def make_table(kivy_ready: Any, names: tuple[str, str] = ("Anna", "Ben")) -> Iterator[tuple[Any, Any]]:
    """The Chinagold controller playing a new game, with its panel on screen until the block ends."""
    from companion.engine.core import Player, Setup
    from companion.engine.session import Session

    controller = make_controller(Session.new(Setup(game="chinagold", players=(Player(name=names[0]),
                                                                                Player(name=names[1])), seed=3)))
    with shown_panel(kivy_ready, controller, "chinagold", (540, 390)) as panel:
        yield controller, panel


def wait_for(condition: Any, what: str, timeout: float = 10.0) -> None:
    """Run frames (the bot's answer comes back through Kivy's clock) until `condition()`."""
    from tests.app.ui import until

    until(condition, what, timeout)


def tap_site(panel: Any, site: int) -> None:
    """Real touches through the window on a site."""
    tap_cell(panel.board, site)


def test_table_module_is_found() -> None:
    from companion.app.tables import table_for

    assert table_for("chinagold").__name__ == "companion.games.chinagold.app.table"


def test_taps_turn_a_line_and_bad_lines_are_refused(kivy_ready: Any, tmp_path: Path) -> None:
    with make_table(kivy_ready) as (controller, panel):
        table = controller.table
        assert panel.throwing and panel.board.view.sites == "h" * 91
        for face in ("0", "2", "1"):                 # touch entry, one face per tile, named beside its faces
            assert panel.ids.tile.text in ("0|1", "0|2", "1|2")
            next(button for button in panel.ids.faces.children if button.text == face).dispatch("on_release")
        assert table.session.state.total == 3 and not panel.throwing
        tap_site(panel, 0)
        tap_site(panel, 8)                             # 0 -> 8 is not a straight line
        assert table.refusal_rule.startswith("CG-4") and table.session.state.total == 3
        tap_site(panel, 0)
        tap_site(panel, 2)                             # 0, 1, 2: a straight line of three
        state = table.session.state
        assert state.sites[:3] == "ggg" and state.to_move == 1
        assert panel.board.view.sites == state.sites
        kivy_ready.remove_widget(panel)
        kivy_ready.add_widget(panel)
        from companion.app.launch import pump
        pump(2)
        panel.export_to_png(str(tmp_path / "table.png"))
        assert (tmp_path / "table.png").stat().st_size > 5000


def test_virtual_throw_and_bury_by_tap(kivy_ready: Any) -> None:
    with make_table(kivy_ready) as (controller, panel):
        table = controller.table
        assert panel.tile_text == "Tiles in play: 0|1  0|2  1|2"
        controller.submit({"type": "throw", "values": [0, 0, 1]})
        assert panel.tile_text == "Thrown: 1 (0 + 0 + 1)"  # the faces the table sees, not the tiles again
        tap_site(panel, 40)
        tap_site(panel, 40)
        panel.controller.virtual_roll("virtual")
        assert table.session.state.phase == "move" and panel.can_bury
        panel.controller.toggle_bury()
        tap_site(panel, 41)                            # no gold there: refused with CG-5
        assert table.refusal_rule.startswith("CG-5")
        panel.controller.toggle_bury()
        tap_site(panel, 40)
        assert table.session.state.sites[40] == "h" and table.session.state.to_move == 0


def test_pi_marks_its_move_and_plays_it_on_done(kivy_ready: Any) -> None:
    with make_table(kivy_ready, names=("Anna", "Pi")) as (controller, panel):
        table = controller.table
        controller.submit({"type": "throw", "values": [1, 2, 2]})
        tap_site(panel, 0)
        tap_site(panel, 4)
        controller.submit({"type": "throw", "values": [0, 0, 1]})
        wait_for(lambda: panel.suggestion is not None, "the Pi's move")
        assert panel.pi_to_move
        assert panel.board.view.highlights, "the Pi marks the markers to turn"
        tap_site(panel, 50)                            # the humans cannot move for the Pi
        assert len(table.session.actions) == 3
        controller.press("confirm", "gpio")
        last = table.session.actions[-1]
        assert last.source == "bot" and table.session.state.to_move == 0


def test_the_pis_move_is_written_with_the_languages_colon(kivy_ready: Any) -> None:
    """French sets a space before its colon: "Pi : Retourner …", never the English "Pi: Retourner …"."""
    from companion.app.i18n import set_language

    with make_table(kivy_ready, names=("Anna", "Pi")) as (controller, panel):
        controller.submit({"type": "throw", "values": [1, 2, 2]})
        tap_site(panel, 0)
        tap_site(panel, 4)
        controller.submit({"type": "throw", "values": [0, 0, 1]})
        wait_for(lambda: panel.suggestion is not None, "the Pi's move")
        set_language("fr")
        try:
            written = panel.suggestion_text()
        finally:
            set_language("en")
        assert written.startswith("Pi : Retourner "), written


def against_the_pi(kivy_ready: Any, **controller_kwargs: Any) -> tuple[Any, Any]:
    """Anna against the Pi on the table panel (the Pi's turn comes after Anna's first line)."""
    from companion.engine.core import Player, Setup
    from companion.engine.session import Session

    controller = make_controller(Session.new(Setup(game="chinagold", players=(Player(name="Anna"), Player(name="Pi")),
                                                   seed=3)), **controller_kwargs)
    return controller, show_panel(kivy_ready, controller, "chinagold", (540, 390))


def play_annas_line(controller: Any) -> None:
    """Anna throws and turns a line; the next throw makes the Pi the one to move."""
    controller.submit({"type": "throw", "values": [1, 2, 2]})
    controller.tap_site(0)
    controller.tap_site(4)


def test_the_pi_thinks_off_the_ui_thread(kivy_ready: Any) -> None:
    """While the bot searches, Kivy's clock keeps firing: the timer and the screen never freeze."""
    import threading
    import time

    from kivy.clock import Clock

    from companion.app.launch import pump
    from companion.games.chinagold.app.controller import BOT_SECONDS
    from companion.games.chinagold.bot import hint

    threads: list[str] = []

    def search(state: Any, seconds: float) -> Any:
        threads.append(threading.current_thread().name)
        return hint(state, 2.0)  # the real search, given longer than BOT_SECONDS to measure frames by

    controller, panel = against_the_pi(kivy_ready, search=search)
    ticks: list[float] = []
    event = Clock.schedule_interval(lambda _dt: ticks.append(time.perf_counter()), 0)
    try:
        play_annas_line(controller)
        asked = time.perf_counter()
        controller.submit({"type": "throw", "values": [0, 0, 1]})  # the Pi is to move: it starts thinking
        assert time.perf_counter() - asked < BOT_SECONDS / 2 and controller.thinking
        pump(1)  # the frame that draws the new position
        started = time.perf_counter()
        wait_for(lambda: controller.suggestion is not None, "the Pi's move")
        answered = time.perf_counter()
        assert threads and threads[0] != threading.main_thread().name
        during = [tick for tick in ticks if started <= tick <= answered]
        gaps = sorted(later - earlier for earlier, later in pairwise(during))
        # on the UI thread the search would allow no tick at all until its answer
        assert len(during) >= 10 and gaps[len(gaps) // 2] < 0.1, (
            f"{len(during)} ticks in {answered - started:.2f} s, longest gap {gaps[-1]:.2f} s")
        assert panel.board.view.highlights
    finally:
        event.cancel()
        panel.detach()
        kivy_ready.remove_widget(panel)


def test_a_stale_answer_is_dropped_and_a_fresh_one_marked(kivy_ready: Any) -> None:
    import threading

    from companion.app.launch import pump
    from companion.engine.core import Player, Setup
    from companion.engine.session import Session
    from companion.games.chinagold.rules import Turn
    from firmware_bridge.events import ButtonEvent

    release = threading.Event()
    workers: list[threading.Thread] = []

    def search(state: Any, seconds: float) -> Any:
        workers.append(threading.current_thread())
        release.wait(10)
        return Turn(start=40, end=40)

    controller = make_controller(Session.new(Setup(game="chinagold", players=(Player(name="Anna"), Player(name="Ben")),
                                                   seed=3)), search=search)
    controller.submit({"type": "throw", "values": [0, 0, 1]})
    controller.on_bridge_event(ButtonEvent(source="gpio", name="hint", action="down"))  # Chinagold's hint button
    assert controller.thinking
    controller.tap_site(0)
    # a move by touch while the bot thinks about the old position
    assert played(controller.session, controller.tap_site, 0)
    moves = len(controller.session.actions)
    release.set()
    workers[0].join(10)
    pump(3)
    assert controller.suggestion is None and len(controller.session.actions) == moves

    controller.submit({"type": "throw", "values": [0, 0, 1]})
    controller.request_hint()
    workers[-1].join(10)
    pump(3)
    assert controller.suggestion == Turn(start=40, end=40) and len(controller.session.actions) == moves + 1
    controller.undo()  # the position changed: the mark goes
    assert controller.suggestion is None and not controller.thinking


def test_the_pi_searches_in_a_worker_process(kivy_ready: Any) -> None:
    """The real bot is sent to the worker process (its own interpreter, so it does not share the UI
    thread's interpreter lock); its move comes back and is marked on the board."""
    import time

    from kivy.clock import Clock

    from companion.app.controllers.worker import process_pool, stop_workers

    stop_workers()
    controller, panel = against_the_pi(kivy_ready)
    ticks: list[float] = []
    event = Clock.schedule_interval(lambda _dt: ticks.append(time.perf_counter()), 0)
    try:
        play_annas_line(controller)
        controller.submit({"type": "throw", "values": [0, 0, 1]})  # the Pi is to move: it starts thinking
        assert process_pool.cache_info().currsize == 1 and controller.thinking
        started = time.perf_counter()
        wait_for(lambda: controller.suggestion is not None, "the Pi's move from the worker process")
        during = [tick for tick in ticks if tick >= started]
        gaps = sorted(later - earlier for earlier, later in pairwise(during))
        assert len(during) >= 10 and gaps[len(gaps) // 2] < 0.1, f"{len(during)} ticks, longest gap {gaps[-1]:.2f} s"
        assert panel.board.view.highlights
        controller.close()
    finally:
        event.cancel()
        stop_workers()


def test_a_full_board_costs_the_same_draw_calls_as_an_empty_one(kivy_ready: Any) -> None:
    """Markers and rings are one mesh per colour: late in a game, one wide line per taken site made the
    board's frame grow to ~90 ms on a software renderer (docs/performance.md)."""
    from companion.games.chinagold.app.board import BoardView

    with make_table(kivy_ready) as (_controller, panel):
        board = panel.board
        counts = []
        for sites in ("h" * 91, ("MRgh" * 23)[:91]):
            board.view = BoardView(sites=sites, selected=40, highlights={3, 4, 5}, line_length=1)
            counts.append(len(list(board._pieces.instructions())))
        assert counts[0] == counts[1]


def test_a_taken_site_is_a_filled_dot_in_its_sides_colour_on_a_light_rim(kivy_ready: Any) -> None:
    """From a chair a thin ring of the side's colour vanished on the earth tones and beside the rivers: a
    taken site is a light disc with a smaller disc of the taking side's colour on it (each a sprite, a
    textured quad on the site: solid in its middle, which a ring's is not), and the two sides' colours
    differ."""
    import math

    from kivy.graphics import Color, Mesh

    from companion.games.chinagold.app.board import TAKEN_RIM, TAKEN_SITE, BoardView

    with make_table(kivy_ready) as (_controller, panel):
        board = panel.board
        board.view = BoardView(sites="MR" + "h" * 89)

        def key(rgb: Any) -> tuple[float, ...]:
            return tuple(round(channel, 3) for channel in rgb)

        colour: tuple[float, ...] = ()
        quads: dict[tuple[float, ...], list[tuple[float, float, Any]]] = {}
        for instruction in board._pieces.instructions():
            if isinstance(instruction, Color):
                colour = key(instruction.rgb)
            elif isinstance(instruction, Mesh) and instruction.texture is not None:
                vertices = list(instruction.vertices)
                for first in range(0, len(vertices), 16):  # a quad: its corners' x, y, u, v
                    x0, y0, x1, y1 = vertices[first], vertices[first + 1], vertices[first + 12], vertices[first + 13]
                    quads.setdefault(colour, []).append(((x0 + x1) / 2, (y0 + y1) / 2, instruction.texture))

        def disc(colour_rgb: tuple[float, float, float], site: int) -> tuple[bool, float]:
            """The sprite of that colour on the site: whether its middle is solid, and its radius in pixels."""
            cx, cy = board.centre_of(site)
            (texture,) = [texture for x, y, texture in quads.get(key(colour_rgb), [])
                          if math.hypot(x - cx, y - cy) <= 1]
            side, alpha = texture.width, drawn(texture)[3::4]
            middle = alpha[(side // 2) * side:(side // 2 + 1) * side]
            return middle[side // 2] == 255, sum(value > 127 for value in middle) / 2

        hidden = board._radius * 0.46  # a hidden marker's radius
        for site, mark in ((0, "M"), (1, "R")):
            (dot_solid, dot), (rim_solid, rim) = disc(TAKEN_SITE[mark], site), disc(TAKEN_RIM, site)
            assert dot_solid and dot >= 0.5 * hidden, f"{mark}: no filled dot in the side's colour"
            assert rim_solid and rim > dot, f"{mark}: no light rim round the dot"
        assert TAKEN_SITE["M"] != TAKEN_SITE["R"]


def test_rings_lie_between_their_inner_and_outer_radius(kivy_ready: Any) -> None:  # a Mesh needs the GL context
    import math

    from companion.app.boards.drawing import rings

    mesh = rings([(100.0, 50.0), (-20.0, 7.5)], radius=10.0, width=2.0, segments=12)
    reach = 2.0 / math.cos(math.pi / 12)  # the width to either side, along a corner
    vertices = list(mesh.vertices)
    points = [(vertices[i], vertices[i + 1]) for i in range(0, len(vertices), 4)]
    assert len(points) == 2 * 2 * 12
    for index, (x, y) in enumerate(points):
        cx, cy = (100.0, 50.0) if index < 24 else (-20.0, 7.5)
        assert math.hypot(x - cx, y - cy) == pytest.approx(10.0 + reach if index % 2 == 0 else 10.0 - reach)
    assert max(mesh.indices) == len(points) - 1 and len(mesh.indices) == 2 * 12 * 6


@pytest.mark.parametrize("language", ["fr", "de"])
def test_action_labels_name_sites_with_their_articles(kivy_ready: Any, language: str) -> None:
    """The choice buttons name sites in the form their sentence needs ("Retourner du marqueur 4 … au
    marqueur 6 …", not "de rangée 1 … à rangée 1 …"); German buttons say what they do first, as a label
    ("Umdrehen: Reihe 1, …"), not as a sentence with the verb in front ("Umdrehen von Reihe 1 …")."""
    import re

    from companion.app.i18n import set_language
    from companion.games.chinagold.app.table import action_label
    from companion.games.chinagold.rules import Bury, Turn
    from tests.test_place_words import BAD, ENGLISH

    with make_table(kivy_ready) as (controller, _panel):
        set_language(language)
        try:
            labels = [action_label(controller.table, action)
                      for action in (Turn(start=3, end=5), Turn(start=3, end=3), Bury(site=3))]
        finally:
            set_language("en")
    for label in labels:
        assert not re.search(ENGLISH, label), label
        assert not [what for what, pattern in BAD[language].items() if re.search(pattern, label)], label
    if language == "de":
        assert [label.split(": ")[0] for label in labels] == ["Umdrehen", "Umdrehen", "Vergraben"], labels


def test_setup_guide_names_a_board_only_when_it_is_not_the_shipped_one_and_tells_how_the_pi_plays() -> None:
    from companion.engine.core import Player, Setup
    from companion.games.chinagold.app.table import setup_steps

    players = (Player(name="Anna"), Player(name="pi"))
    shipped = setup_steps(Setup(game="chinagold", players=players))
    assert shipped[0] == "Lay out the board." and any("The Pi plays" in step for step in shipped)
    other = setup_steps(Setup(game="chinagold", players=players[:1] + (Player(name="Ben"),),
                              options={"board": "generated-6-42"}))
    assert other[0] == "Lay out the board (generated-6-42)." and not any("The Pi plays" in step for step in other)
