from collections.abc import Sequence

from kivy.properties import NumericProperty, OptionProperty
from kivy.uix.layout import Layout

class BoxLayout(Layout):
    orientation: OptionProperty
    spacing: NumericProperty[float]
    padding: Sequence[float]
