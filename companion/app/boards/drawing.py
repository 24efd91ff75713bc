"""Drawing helpers shared by the hex boards (Goldgräber, Chinagold): pointy-top axial geometry,
filled hexes and centred labels, so both boards place, hit-test and label hexes the same way.
"""

from __future__ import annotations

import math

from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, InstructionGroup, Mesh, Rectangle

SQRT3 = math.sqrt(3.0)

RGB = tuple[float, float, float]


def hex_centre(origin: tuple[float, float], radius: float, q: float, r: float) -> tuple[float, float]:
    """Pixel centre of the pointy-top hex at axial (q, r); r grows downwards on screen."""
    return origin[0] + radius * SQRT3 * (q + r / 2), origin[1] - radius * 1.5 * r


def axial_at(origin: tuple[float, float], radius: float, x: float, y: float) -> tuple[int, int]:
    """The axial (q, r) of the hex under a pixel (cube rounding: the inverse of `hex_centre`)."""
    px = (x - origin[0]) / radius
    py = -(y - origin[1]) / radius
    r = py / 1.5
    q = px / SQRT3 - r / 2
    s = -q - r
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    return rq, rr


def hex_corners(cx: float, cy: float, size: float) -> list[float]:
    """The six corners (x, y, x, y, ...) of a pointy-top hex of circumradius `size`."""
    points: list[float] = []
    for k in range(6):
        angle = math.radians(60 * k + 30)
        points += [cx + size * math.cos(angle), cy + size * math.sin(angle)]
    return points


def fill_hex(group: InstructionGroup, cx: float, cy: float, size: float, rgb: RGB) -> None:
    """A filled pointy-top hex (a triangle fan around its centre) added to `group`."""
    corners = hex_corners(cx, cy, size)
    vertices = [cx, cy, 0.0, 0.0]
    for k in range(7):
        vertices += [corners[(2 * k) % 12], corners[(2 * k + 1) % 12], 0.0, 0.0]
    group.add(Color(*rgb))
    group.add(Mesh(vertices=vertices, indices=list(range(8)), mode="triangle_fan"))


def centred_text(group: InstructionGroup, text: str, cx: float, cy: float, size: float, rgb: RGB) -> None:
    """Bold text centred on (cx, cy) added to `group` (never smaller than 6 px)."""
    label = CoreLabel(text=text, font_size=max(6.0, size), bold=True)
    label.refresh()
    texture = label.texture
    group.add(Color(*rgb))
    group.add(Rectangle(texture=texture, size=texture.size, pos=(cx - texture.width / 2, cy - texture.height / 2)))
