"""The hex geometry both hex boards share: hit-testing a pixel finds the hex drawn there."""

from __future__ import annotations

import math

from companion.app.boards.drawing import SQRT3, axial_at, hex_centre, outline


def test_every_point_well_inside_a_hex_hits_that_hex() -> None:
    origin, radius = (400.0, 240.0), 17.0
    for q in range(-6, 7):
        for r in range(-6, 7):
            cx, cy = hex_centre(origin, radius, q, r)
            for k in range(12):
                angle = math.radians(30 * k)
                reach = 0.95 * radius * SQRT3 / 2  # just inside the inscribed circle
                assert axial_at(origin, radius, cx + reach * math.cos(angle), cy + reach * math.sin(angle)) == (q, r)


def hex_corners(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    """The corners of the hex drawn at (cx, cy): `drawing.hexes` draws each with this outline."""
    return [(cx + dx, cy + dy) for dx, dy in outline(radius, segments=6, first_corner=30)]


def test_corners_lie_on_the_circumcircle_and_neighbours_share_an_edge() -> None:
    origin, radius = (0.0, 0.0), 10.0
    points = hex_corners(*hex_centre(origin, radius, 0, 0), radius)
    assert len(points) == 6 and all(math.isclose(math.hypot(x, y), radius) for x, y in points)
    right = hex_corners(*hex_centre(origin, radius, 1, 0), radius)
    shared = {(round(x, 6), round(y, 6)) for x, y in points} & {(round(x, 6), round(y, 6)) for x, y in right}
    assert len(shared) == 2
