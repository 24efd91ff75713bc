from typing import Any

from kivy.properties import StringProperty
from kivy.uix.scatter import Scatter

class VKeyboard(Scatter):
    layout: StringProperty
    target: Any
    callback: Any
    docked: bool
    def setup_mode(self, *largs: Any) -> None: ...
