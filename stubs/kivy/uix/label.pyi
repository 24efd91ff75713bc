from collections.abc import Sequence
from typing import Any

from kivy.graphics.texture import Texture
from kivy.properties import BooleanProperty, NumericProperty, OptionProperty, StringProperty
from kivy.uix.widget import Widget

class Label(Widget):
    text: StringProperty
    font_size: NumericProperty[float]
    font_name: StringProperty
    bold: BooleanProperty
    italic: BooleanProperty
    markup: BooleanProperty
    halign: OptionProperty
    valign: OptionProperty
    shorten: BooleanProperty
    max_lines: NumericProperty[float]
    line_height: NumericProperty[float]
    color: Sequence[float]
    text_size: Sequence[float | None]
    texture_size: tuple[float, float]
    texture: Texture | None
    padding: Sequence[float]
    refs: dict[str, list[Any]]
    def texture_update(self, *largs: Any) -> None: ...
