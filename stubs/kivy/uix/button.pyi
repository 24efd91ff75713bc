from kivy.properties import StringProperty
from kivy.uix.behaviors import ButtonBehavior as ButtonBehavior
from kivy.uix.label import Label

class Button(ButtonBehavior, Label):
    background_normal: StringProperty
    background_down: StringProperty
    background_color: list[float]
