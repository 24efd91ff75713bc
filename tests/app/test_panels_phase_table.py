"""Every table panel (the four games' and the generic one) shows only what the engine's phase table offers
and the rules accept: over random playouts, every enabled choice button stands for an action `validate`
accepts, every lit field could be chosen, and dice buttons are shown exactly when a roll is expected.
After a language switch every panel text is what a fresh panel in that language shows, with no action
in between."""

from __future__ import annotations

from collections.abc import Iterator
from random import Random
from typing import Any

import pytest
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from companion.app.demo import demo_session, demo_setup
from companion.app.launch import pump
from companion.app.tables import table_for
from companion.app.tables.common import DiceKeypad
from companion.app.tables.generic import GenericPanel
from companion.engine.core import ActionModel
from companion.engine.registry import autoplay_for, declared
from companion.engine.session import Session
from tests.app.ui import visible_widgets
from tests.table_helpers import played

GAMES = declared()  # every installed game (the shipped ones: no test plugin is installed here)
STEPS = 45


def panel_of(app: Any) -> Widget:
    return app.root.get_screen("table").ids.panel.children[0]


def open_session(app: Any, session: Session) -> Widget:
    app.flow.open_table(session)
    pump(2)
    return panel_of(app)


def shown(panel: Widget) -> Iterator[Widget]:
    """Widgets the table can see in the panel (drawn, sized), with their parents all drawn."""
    yield from visible_widgets(panel)


def offered_buttons(panel: Widget) -> list[Any]:
    """Visible, enabled buttons that stand for an action (`action` set by the panel)."""
    return [widget for widget in shown(panel) if isinstance(widget, ButtonBehavior) and not widget.disabled
            and getattr(widget, "action", None) is not None]


def dice_buttons(panel: Widget) -> list[Widget]:
    """The visible face buttons: a panel's own `faces` box or its dice keypad's."""
    boxes = [panel.ids["faces"]] if "faces" in panel.ids else []
    boxes += [keypad.ids.faces for keypad in panel.walk() if isinstance(keypad, DiceKeypad)]
    visible = set(shown(panel))
    return [button for box in boxes if box in visible for button in box.children
            if isinstance(button, ButtonBehavior) and button in visible]


def lit(panel: Widget, game_id: str) -> set[str]:
    if game_id == "gold_connection":
        return set(panel.board.highlighted)
    if game_id == "goldgraeber":
        return set(panel.board.view.highlights)
    if game_id == "chinagold":
        return {str(site) for site in panel.board.view.highlights}
    return set()


def choosable(game: Any, state: Any, place: str) -> bool:
    """Whether a tap on `place` could play an action the rules accept now."""
    if game.id == "gold_connection":
        actions: list[Any] = [{"type": "choose_start", "safe": place}, {"type": "place_arrow", "heading": place}]
        if "move" in game.expects(state):
            actions += [move for move in game.moves(state, 17) if move.path[-1] == place]
    elif game.id == "goldgraeber":
        actions = [{"type": "move", "to": place}, {"type": "raft", "to": place}]
    else:
        return True  # Chinagold lights only the suggested move's sites, checked as an action below
    return any(game.validate(state, game.parse_action(a) if isinstance(a, dict) else a) is None for a in actions)


def check_panel(app: Any, game_id: str, panel: Widget) -> None:
    session = app.table.session
    game, state = session.game, session.state
    expects = game.expects(state)
    for button in offered_buttons(panel):
        action: ActionModel = button.action
        assert action.type in expects, f"{button.text!r} offers {action.type}; the phase table offers {expects}"
        refusal = game.validate(state, action)
        assert refusal is None, f"{button.text!r} offers {action}, refused: {refusal.text()}"
    roll = app.table.roll_action or ("throw" if game_id == "chinagold" else "roll")
    faces = dice_buttons(panel)
    assert bool(faces) == (roll in expects), f"dice buttons {[b.text for b in faces]} while {expects} is expected"
    if isinstance(panel, GenericPanel):
        return
    for place in lit(panel, game_id):
        assert choosable(game, state, place), f"{place} is lit but no tap there is allowed ({expects})"
    suggestion = getattr(panel, "suggestion", None)
    if suggestion is not None:
        assert game.validate(state, suggestion) is None
    if game_id == "digger":
        assert panel.can_stop == (game.validate(state, game.parse_action({"type": "stop"})) is None)
        assert panel.can_call_time == ("time_up" in expects)
    if game_id == "chinagold":
        assert panel.can_bury == any(game.validate(state, game.parse_action({"type": "bury", "site": site})) is None
                                     for site in range(len(state.sites)))
        assert panel.can_hint == ("turn" in expects)
    if game_id == "goldgraeber":
        assert panel.can_look == (game.validate(state, game.parse_action({"type": "look"})) is None
                                  and "look" in expects)


def next_action(session: Session, rng: Random) -> ActionModel | None:
    """A varied playout: the games' own autoplay where they have one, else random choices; None: roll
    virtually."""
    game, state = session.game, session.state
    roll = session.prompt().roll_action
    choose = autoplay_for(game.id)
    if choose is not None:
        action = choose(game, state, rng)
        return None if action.type == roll else action
    choices = [action for kind in game.expects(state) if kind != roll and kind in game.candidates
               for action in game.offered(state, kind, checked=True)]
    if roll in game.expects(state) and (not choices or rng.random() < 0.3):
        return None
    return rng.choice(choices)


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("generic", [False, True], ids=["own panel", "generic panel"])
def test_panels_offer_only_what_the_phase_table_offers_and_the_rules_accept(table_app: Any, game_id: str,
                                                                            generic: bool) -> None:
    app = table_app
    session = Session.new(demo_setup(game_id, seed=5))
    panel = open_session(app, session)
    if generic:
        app.root.get_screen("table").show_panel(table_for("no such game"), app.flow.controller)
        panel = panel_of(app)
        assert isinstance(panel, GenericPanel)
    rng = Random(game_id)
    kinds: set[str] = set()
    for _step in range(STEPS):
        pump(1)
        check_panel(app, game_id, panel)
        kinds.update(session.game.expects(session.state))
        if session.is_over():
            break
        action = next_action(session, rng)
        assert played(app.table.session, app.flow.controller.virtual_roll, "virtual") if action is None else \
            played(app.table.session, app.flow.controller.submit, action)
    assert len(kinds) >= 3, kinds  # the playout went through several kinds of choice


def panel_texts(panel: Widget) -> list[str]:
    return sorted(widget.text for widget in shown(panel) if isinstance(widget, Label) and widget.text.strip())


@pytest.mark.parametrize("game_id", GAMES)
def test_a_language_switch_redraws_every_panel_text_at_once(table_app: Any, game_id: str) -> None:
    app = table_app
    panel = open_session(app, demo_session(None, moves=8, game=game_id))
    english = panel_texts(panel)
    for language in ("de", "fr"):
        app.preferences.set_language(language)
        pump(2)
        switched = panel_texts(panel_of(app))
        app.root.get_screen("table").show_panel(table_for(game_id), app.flow.controller)
        pump(2)
        fresh = panel_texts(panel_of(app))
        assert switched == fresh, f"{language}: after the switch {switched}, a fresh panel shows {fresh}"
        assert switched != english, f"{language}: the panel still shows {english}"
    app.preferences.set_language("en")
    pump(2)
    assert panel_texts(panel_of(app)) == english


def test_no_panel_or_controller_reads_a_phase_by_name() -> None:
    """What a tap may mean is asked of the phase table (`TableController.expects`, `Game.offered`), so a
    phase renamed or split in the engine cannot leave a panel or controller silently out of step."""
    import re
    from pathlib import Path

    app = Path(__file__).resolve().parents[2] / "companion" / "app"
    readers = [f"{path.relative_to(app)}:{number}" for path in sorted(app.rglob("*.py")) + sorted(app.rglob("*.kv"))
               for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if re.search(r"\.phase\b(?!_)", line)]
    assert readers == []
