from kivy.properties import BooleanProperty
from kivy.uix.widget import Widget

class Switch(Widget):
    active: BooleanProperty
