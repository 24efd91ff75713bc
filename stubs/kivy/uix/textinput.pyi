from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.behaviors import FocusBehavior
from kivy.uix.widget import Widget

class TextInput(FocusBehavior, Widget):
    text: StringProperty
    hint_text: StringProperty
    multiline: BooleanProperty
    readonly: BooleanProperty
    input_filter: object
