from kivy.properties import BooleanProperty, NumericProperty
from kivy.uix.stencilview import StencilView
from kivy.uix.widget import Widget

class ScrollView(StencilView):
    scroll_x: NumericProperty[float]
    scroll_y: NumericProperty[float]
    do_scroll_x: BooleanProperty
    do_scroll_y: BooleanProperty
    def scroll_to(self, widget: Widget, padding: float = ..., animate: bool = ...) -> None: ...
