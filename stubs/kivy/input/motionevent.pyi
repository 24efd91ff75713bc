from typing import Any

class MotionEvent:
    x: float
    y: float
    pos: tuple[float, float]
    sx: float
    sy: float
    uid: int
    id: str
    is_double_tap: bool
    is_mouse_scrolling: bool
    button: str
    grab_current: Any
    profile: list[str]
    ud: dict[str, Any]
    def grab(self, class_instance: Any, exclusive: bool = ...) -> None: ...
    def ungrab(self, class_instance: Any) -> None: ...
    def apply_transform_2d(self, transform: Any) -> None: ...
    def push(self, attrs: Any = ...) -> None: ...
    def pop(self) -> None: ...
