from kivy.uix.widget import Widget

class Scatter(Widget):
    do_rotation: bool
    do_scale: bool
    do_translation: bool
    scale: float
