"""The hex geometry both hex boards share: hit-testing a pixel finds the hex drawn there."""

from __future__ import annotations

import math

from companion.app.boards.drawing import SQRT3, axial_at, hex_centre, hex_corners


def test_every_point_well_inside_a_hex_hits_that_hex() -> None:
    origin, radius = (400.0, 240.0), 17.0
    for q in range(-6, 7):
        for r in range(-6, 7):
            cx, cy = hex_centre(origin, radius, q, r)
            for k in range(12):
                angle = math.radians(30 * k)
                reach = 0.95 * radius * SQRT3 / 2  # just inside the inscribed circle
                assert axial_at(origin, radius, cx + reach * math.cos(angle), cy + reach * math.sin(angle)) == (q, r)


def test_corners_lie_on_the_circumcircle_and_neighbours_share_an_edge() -> None:
    origin, radius = (0.0, 0.0), 10.0
    corners = hex_corners(*hex_centre(origin, radius, 0, 0), radius)
    points = list(zip(corners[::2], corners[1::2]))
    assert len(points) == 6 and all(math.isclose(math.hypot(x, y), radius) for x, y in points)
    right = hex_corners(*hex_centre(origin, radius, 1, 0), radius)
    shared = {(round(x, 6), round(y, 6)) for x, y in points} & {(round(x, 6), round(y, 6))
                                                                 for x, y in zip(right[::2], right[1::2])}
    assert len(shared) == 2
