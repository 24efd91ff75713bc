from collections.abc import Sequence

from kivy.uix.layout import Layout

class GridLayout(Layout):
    cols: int | None
    rows: int | None
    spacing: Sequence[float]
    padding: Sequence[float]
    row_force_default: bool
    row_default_height: float
    col_force_default: bool
    col_default_width: float
