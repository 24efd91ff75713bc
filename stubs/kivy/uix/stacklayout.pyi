from collections.abc import Sequence

from kivy.properties import OptionProperty
from kivy.uix.layout import Layout

class StackLayout(Layout):
    orientation: OptionProperty
    spacing: Sequence[float]
    padding: Sequence[float]
