"""The table panel for a game without its own: dice keypad plus one button per choice the phase table
offers (every listed candidate but the roll, which the keypad enters)."""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.uix.stacklayout import StackLayout

from companion.app.controllers import TableController
from companion.app.i18n import game_text
from companion.app.table import TableModel
from companion.app.tables.common import DiceKeypad, TablePanel
from companion.app.widgets import resize
from companion.engine.core import ActionModel

MAX_BUTTONS = 24


def action_label(table: TableModel, action: ActionModel) -> str:
    """The action's type in the game's words (its catalog's entry for them, e.g. "stay" for `stay`) and the
    other fields, e.g. `take colour=Y`."""
    session = table.session
    words = action.type.replace("_", " ")
    name = game_text(session.game.id, words) if session is not None else words
    fields = " ".join(f"{key}={value}" for key, value in action.model_dump().items() if key != "type")
    return f"{name} {fields}".strip()


class GenericPanel(TablePanel):
    """The offered choices as buttons (for the types the game can list), the keypad when dice are due."""

    def __init__(self, controller: TableController, **kwargs: Any) -> None:
        super().__init__(controller, orientation="vertical", spacing=6, **kwargs)
        self.choices = StackLayout(spacing=4)
        self.add_widget(self.choices)
        self.add_widget(DiceKeypad(controller=controller))
        self.start()

    def refresh(self, *_args: Any) -> None:
        session = self.table.session
        actions: list[Any] = []
        if session is not None:
            game, state = session.game, session.state
            listed = [kind for kind in game.expects(state)
                      if kind in game.candidates and kind != self.table.roll_action]
            actions = [action for kind in listed for action in game.offered(state, kind, checked=True)]
        for button, action in zip(resize(self.choices, min(len(actions), MAX_BUTTONS), self._choice_button), actions):
            button.action, button.text = action, action_label(self.table, action)

    def _choice_button(self) -> Any:
        button = Factory.GButton(size_hint=(None, None), height=52, width=180)
        button.bind(on_release=lambda pressed: self.controller.submit(pressed.action))
        return button


def build_panel(controller: TableController) -> GenericPanel:
    return GenericPanel(controller)
