from typing import Any

from kivy.uix.widget import Widget

class Layout(Widget):
    def do_layout(self, *largs: Any) -> None: ...
