from collections.abc import Callable
from typing import Any

from kivy.event import EventDispatcher
from kivy.graphics.instructions import Canvas
from kivy.uix.widget import Widget

class WindowBase(EventDispatcher):
    width: int
    height: int
    size: tuple[int, int]
    clearcolor: tuple[float, float, float, float] | list[float]
    fullscreen: bool | str
    rotation: int
    canvas: Canvas
    children: list[Widget]
    allow_vkeyboard: bool
    single_vkeyboard: bool
    docked_vkeyboard: bool
    use_syskeyboard: bool
    def to_widget(self, x: float, y: float, initial: bool = ..., relative: bool = ...) -> tuple[float, float]: ...
    def to_window(self, x: float, y: float, initial: bool = ..., relative: bool = ...) -> tuple[float, float]: ...
    def add_widget(self, widget: Widget, *args: Any, **kwargs: Any) -> None: ...
    def remove_widget(self, widget: Widget) -> None: ...
    def set_vkeyboard_class(self, cls: type | None) -> None: ...
    def release_all_keyboards(self) -> None: ...
    def request_keyboard(self, callback: Callable[[], None], target: Widget, input_type: str = ...) -> Any: ...
    def flip(self) -> None: ...
    def close(self) -> None: ...

Window: WindowBase
