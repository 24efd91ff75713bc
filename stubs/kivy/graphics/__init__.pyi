from collections.abc import Callable, Sequence
from typing import Any

from kivy.graphics.instructions import Canvas as Canvas
from kivy.graphics.instructions import Instruction as Instruction
from kivy.graphics.instructions import InstructionGroup as InstructionGroup
from kivy.graphics.instructions import RenderContext
from kivy.graphics.texture import Texture

class Callback(Instruction):
    def __init__(self, callback: Callable[[Instruction], object] | None = ..., **kwargs: Any) -> None: ...

class Color(Instruction):
    def __init__(self, *args: float, **kwargs: Any) -> None: ...
    rgba: list[float]
    rgb: list[float]
    a: float

class VertexInstruction(Instruction):
    texture: Texture | None

class Rectangle(VertexInstruction):
    def __init__(self, **kwargs: Any) -> None: ...
    pos: tuple[float, float] | list[float]
    size: tuple[float, float] | list[float]

class RoundedRectangle(Rectangle):
    radius: list[Any]

class Ellipse(Rectangle):
    angle_start: float
    angle_end: float
    segments: int

class Triangle(VertexInstruction):
    def __init__(self, **kwargs: Any) -> None: ...
    points: list[float]

class Line(VertexInstruction):
    def __init__(self, **kwargs: Any) -> None: ...
    points: list[float]
    width: float
    circle: tuple[float, ...]
    rectangle: tuple[float, ...]
    close: bool

class Mesh(VertexInstruction):
    def __init__(self, **kwargs: Any) -> None: ...
    vertices: list[float]
    indices: list[int]
    mode: str

class Translate(Instruction):
    def __init__(self, *args: float, **kwargs: Any) -> None: ...
    xy: tuple[float, float]
    x: float
    y: float

class Scale(Instruction):
    def __init__(self, *args: float, **kwargs: Any) -> None: ...
    xyz: tuple[float, float, float]

class ClearColor(Instruction):
    def __init__(self, r: float, g: float, b: float, a: float, **kwargs: Any) -> None: ...

class ClearBuffers(Instruction):
    def __init__(self, clear_color: bool = ..., clear_depth: bool = ..., **kwargs: Any) -> None: ...

class Fbo(RenderContext):
    def __init__(self, size: Sequence[float] = ..., with_stencilbuffer: bool = ..., **kwargs: Any) -> None: ...
    texture: Texture
    size: tuple[int, int] | list[int]
    pixels: bytes
    def bind(self) -> None: ...
    def release(self) -> None: ...
    def clear_buffer(self) -> None: ...
    def draw(self) -> None: ...
