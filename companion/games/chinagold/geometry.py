"""The hexagonal Chinagold grid: sites, neighbours, straight lines and the hexagon's 12 symmetries.

Sites are numbered in reading order (top row first, left to right).  Coordinates are axial (q, r) with
pointy-top cells, so rows are horizontal and the whole board is a hexagon with `edge` sites per side.
Straight lines run along three axes; every line of every length is precomputed once per board size as
a bit mask, because the tile reduction counts them before every turn and the bot counts them constantly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import sqrt

Coord = tuple[int, int]

#: The three directions a straight line can run in (the other three are their opposites).
AXES: tuple[Coord, ...] = ((1, 0), (0, 1), (-1, 1))
NEIGHBOUR_STEPS: tuple[Coord, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (-1, 1), (1, -1))

#: Longest line the rules ever ask for (tiles 0|1 + 0|2 + 1|2 at most show 1 + 2 + 2).
MAX_LINE = 5


def hex_coords(edge: int) -> tuple[Coord, ...]:
    """Axial coordinates of a hexagon with `edge` sites per side, in reading order."""
    radius = edge - 1
    return tuple((q, r) for r in range(-radius, radius + 1)
                 for q in range(max(-radius, -r - radius), min(radius, -r + radius) + 1))


def symmetry(index: int, coord: Coord) -> Coord:
    """Apply one of the hexagon's 12 symmetries: 0-5 rotate by index*60 degrees, 6-11 mirror and rotate.

    Works on cube coordinates (x, y, z) = (q, -q-r, r); a 60-degree turn maps (x, y, z) to (-z, -x, -y),
    the mirror swaps y and z.
    """
    x, z = coord
    y = -x - z
    if index >= 6:
        y, z = z, y
    for _ in range(index % 6):
        x, y, z = -z, -x, -y
    return (x, z)


#: Indices of the six symmetries that are mirror images (reflections).
REFLECTIONS: tuple[int, ...] = (6, 7, 8, 9, 10, 11)


@dataclass(frozen=True)
class Grid:
    """Everything about a board size that does not depend on the regions."""

    edge: int
    coords: tuple[Coord, ...]
    index: dict[Coord, int]
    neighbours: tuple[tuple[int, ...], ...]
    #: lines[k] = tuple of (mask, first site, last site) for every straight run of k sites.
    lines: tuple[tuple[tuple[int, int, int], ...], ...]
    #: lines_through[k][site] = indices into lines[k] of the lines that contain the site.
    lines_through: tuple[tuple[tuple[int, ...], ...], ...]
    all_mask: int

    @property
    def size(self) -> int:
        return len(self.coords)

    def line_between(self, start: int, end: int) -> tuple[int, ...] | None:
        """The sites from `start` to `end` inclusive when both lie on one straight line, else None."""
        (q0, r0), (q1, r1) = self.coords[start], self.coords[end]
        dq, dr = q1 - q0, r1 - r0
        if not (dq == 0 or dr == 0 or dq == -dr):
            return None
        steps = max(abs(dq), abs(dr), abs(dq + dr))
        if steps == 0:
            return (start,)
        step = (dq // steps, dr // steps)
        return tuple(self.index[(q0 + step[0] * i, r0 + step[1] * i)] for i in range(steps + 1))

    def pixel(self, site: int) -> tuple[float, float]:
        """Centre of a site for unit-size hexagons (x to the right, y downwards)."""
        q, r = self.coords[site]
        return sqrt(3) * (q + r / 2), 1.5 * r


def mask_of(sites: list[int] | tuple[int, ...] | set[int]) -> int:
    """The bit mask with one bit per site."""
    mask = 0
    for site in sites:
        mask |= 1 << site
    return mask


def sites_of(mask: int) -> list[int]:
    """The sites whose bits are set, ascending."""
    result = []
    while mask:
        low = mask & -mask
        result.append(low.bit_length() - 1)
        mask ^= low
    return result


@cache
def grid(edge: int) -> Grid:
    """The grid of a board size, with every straight line precomputed (cached per size)."""
    coords = hex_coords(edge)
    index = {coord: i for i, coord in enumerate(coords)}
    neighbours = tuple(tuple(index[(q + dq, r + dr)] for dq, dr in NEIGHBOUR_STEPS if (q + dq, r + dr) in index)
                       for q, r in coords)
    lines: list[tuple[tuple[int, int, int], ...]] = [()]
    through: list[tuple[tuple[int, ...], ...]] = [()]
    for length in range(1, MAX_LINE + 1):
        found: list[tuple[int, int, int]] = []
        axes = AXES[:1] if length == 1 else AXES
        for site, (q, r) in enumerate(coords):
            for dq, dr in axes:
                run = [(q + dq * i, r + dr * i) for i in range(length)]
                if all(cell in index for cell in run):
                    found.append((mask_of([index[cell] for cell in run]), site, index[run[-1]]))
        lines.append(tuple(found))
        per_site: list[list[int]] = [[] for _ in coords]
        for number, (mask, _, _) in enumerate(found):
            for site in sites_of(mask):
                per_site[site].append(number)
        through.append(tuple(tuple(numbers) for numbers in per_site))
    return Grid(edge=edge, coords=coords, index=index, neighbours=neighbours, lines=tuple(lines),
                lines_through=tuple(through), all_mask=(1 << len(coords)) - 1)


def count_lines(g: Grid, hidden: int, length: int, stop_at: int = 1 << 30) -> int:
    """How many straight runs of `length` hidden markers there are (stops counting at `stop_at`)."""
    count = 0
    for mask, _, _ in g.lines[length]:
        if mask & hidden == mask:
            count += 1
            if count >= stop_at:
                break
    return count


def is_connected(g: Grid, sites: set[int]) -> bool:
    """True when the sites form one piece through neighbouring cells."""
    if not sites:
        return False
    start = next(iter(sites))
    seen = {start}
    todo = [start]
    while todo:
        for other in g.neighbours[todo.pop()]:
            if other in sites and other not in seen:
                seen.add(other)
                todo.append(other)
    return len(seen) == len(sites)
