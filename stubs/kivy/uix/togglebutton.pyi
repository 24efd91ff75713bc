from kivy.uix.behaviors import ToggleButtonBehavior
from kivy.uix.button import Button

class ToggleButton(ToggleButtonBehavior, Button): ...
