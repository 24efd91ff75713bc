"""The Chinagold table panel, headless: taps on sites turn lines, refusals cite rules, the Pi plays."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.table_helpers import kivy_ready, make_controller, show_panel, touch_at  # noqa: F401 - a fixture

pytestmark = pytest.mark.ui


def make_table(kivy_ready: Any, names: tuple[str, str] = ("Anna", "Ben")) -> tuple[Any, Any]:
    """The Chinagold controller playing a new game, with its panel on screen."""
    from companion.engine.core import Player, Setup
    from companion.engine.session import Session

    controller = make_controller(Session.new(Setup(game="chinagold", players=(Player(name=names[0]),
                                                                                Player(name=names[1])), seed=3)))
    return controller, show_panel(kivy_ready, controller, "chinagold", (540, 390))


def wait_for(condition: Any, what: str, timeout: float = 10.0) -> None:
    """Run frames (the bot's answer comes back through Kivy's clock) until `condition()`."""
    import time

    from companion.app.launch import pump

    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        pump(1)


def tap_site(panel: Any, site: int) -> None:
    """A real touch through the window at the centre of a site."""
    touch_at(*panel.board.to_window(*panel.board.centre_of(site)))


def test_table_module_is_found() -> None:
    from companion.app.tables import table_modules

    assert "chinagold" in table_modules()


def test_taps_turn_a_line_and_bad_lines_are_refused(kivy_ready: Any, tmp_path: Path) -> None:
    controller, panel = make_table(kivy_ready)
    table = controller.table
    try:
        assert panel.throwing and panel.board.view.sites == "h" * 91
        for face in ("0", "2", "1"):                 # touch entry, one face per tile
            panel._enter_face(face)
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
    finally:
        panel.detach()
        kivy_ready.remove_widget(panel)


def test_virtual_throw_and_bury_by_tap(kivy_ready: Any) -> None:
    controller, panel = make_table(kivy_ready)
    table = controller.table
    try:
        controller.submit({"type": "throw", "values": [0, 0, 1]})
        tap_site(panel, 40)
        tap_site(panel, 40)
        panel.throw_for_me()
        assert table.session.state.phase == "move" and panel.can_bury
        panel.toggle_bury()
        tap_site(panel, 41)                            # no gold there: refused with CG-5
        assert table.refusal_rule.startswith("CG-5")
        panel.toggle_bury()
        tap_site(panel, 40)
        assert table.session.state.sites[40] == "h" and table.session.state.to_move == 0
    finally:
        panel.detach()
        kivy_ready.remove_widget(panel)


def test_pi_marks_its_move_and_plays_it_on_done(kivy_ready: Any) -> None:
    controller, panel = make_table(kivy_ready, names=("Anna", "Pi"))
    table = controller.table
    try:
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
    finally:
        panel.detach()
        kivy_ready.remove_widget(panel)
