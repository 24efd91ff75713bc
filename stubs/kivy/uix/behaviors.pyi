from typing import Any

from kivy.properties import BooleanProperty, OptionProperty
from kivy.uix.widget import Widget

class ButtonBehavior:
    state: OptionProperty
    always_release: BooleanProperty
    last_touch: Any
    min_state_time: float
    def __init__(self, **kwargs: Any) -> None: ...
    def on_press(self) -> None: ...
    def on_release(self) -> None: ...
    def trigger_action(self, duration: float = ...) -> None: ...

class ToggleButtonBehavior(ButtonBehavior):
    group: Any
    allow_no_selection: BooleanProperty
    @staticmethod
    def get_widgets(groupname: str) -> list[Widget]: ...

class FocusBehavior:
    focus: BooleanProperty
