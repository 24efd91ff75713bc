"""Render the camera's photo set: dice and tiles of the four games in a tray, physically based (Mitsuba 3).

Seeded and reproducible: the same `--seed` and options give the same pictures on the same Mitsuba version.
Each *session* is one table (a game, one face style, a tray, a camera, a base light) and gives what a
family would show the camera: the empty tray (calibration), single dice for teaching (`teach/labels.csv`,
at most three shows per face; not for Gold Connection, whose pips are read untaught) and rolls, each roll
under a light that drifts from the base one, with the truth in `truth.csv` (`image,faces,case`):

- `faces` is the roll's top faces as the engine writes them, space-separated, `?` for a die that is cocked
  (it rests on another die or leans on the wall and has no top face to read);
- `case` says what a reader must notice: `clean`, `touching`, `cocked`, `hand` (a hand enters the tray),
  `missing` (a die fell out of the tray: one face fewer than the game needs).

Usage (the committed sample is `--sessions 1 --rolls 6`, Gold Connection `--sessions 2`; the full set is
`--sessions 25 --rolls 20`: 2,000 rolls in about 3,200 pictures with the empty trays and teaching, some 6-8
hours of one core at 640x480 and 24 samples per pixel, so it is made on demand, never in the tests):

    python tools/render_dice.py --out OUT --seed 1 [--sessions N] [--rolls N] [--games digger,...]
        [--width 640 --height 480 --spp 24 --threads 1] [--cocked 0.10]

A cocked die leans on the tray's wall (Goldgräber's single die always, the others' half the time) or on
another die; which one, and how it lies on the wall, comes from the roll's own random stream, so adding
the wall left every other roll of a seed as it was.

Needs `pip install -e '.[render]'` (mitsuba, opencv-python-headless, numpy). Units are centimetres; the
tray's floor is z = 0 and the camera looks down from above it.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

GAMES = ("digger", "gold_connection", "goldgraeber", "chinagold")
#: Dice per roll; Chinagold throws its three tiles (fewer later in a game; the reader gets the count).
DICE = {"digger": 5, "gold_connection": 2, "goldgraeber": 1, "chinagold": 3}
#: Faces on the six sides of a die, in the order +z -z +x -x +y -y (opposite sides: 1|6, 2|5, 3|4).
DIE_SIDES = {"digger": ("B", "K", "Y", "W", "R", "G"), "gold_connection": ("1", "6", "2", "5", "3", "4"),
             "goldgraeber": ("L", "6", "2", "5", "3", "4")}
CHINAGOLD_TILES = ((0, 1), (0, 2), (1, 2))
COLOURS = {"B": (30, 80, 200), "Y": (240, 200, 30), "R": (200, 35, 30), "G": (30, 150, 60),
           "W": (242, 242, 236), "K": (28, 28, 30)}
#: Face styles per game: body colour and mark colour (sRGB), and how a face is drawn.
STYLES: dict[str, list[dict[str, Any]]] = {
    "digger": [{"name": "solid", "body": None, "mark": None},
               {"name": "symbol-light", "body": (236, 230, 214), "mark": None},
               {"name": "symbol-dark", "body": (40, 38, 36), "mark": None}],
    "gold_connection": [{"name": "white", "body": (240, 240, 236), "mark": (20, 20, 22)},
                        {"name": "red", "body": (190, 25, 30), "mark": (245, 245, 245)},
                        {"name": "black", "body": (30, 30, 32), "mark": (240, 240, 240)},
                        {"name": "engraved", "body": (225, 215, 190), "mark": (120, 105, 80)},
                        {"name": "blue", "body": (30, 70, 170), "mark": (250, 250, 250)}],
    "goldgraeber": [{"name": "light", "body": (232, 220, 190), "mark": (25, 25, 25)},
                    {"name": "dark", "body": (25, 70, 45), "mark": (230, 190, 60)}],
    "chinagold": [{"name": "digits", "body": (235, 225, 200), "mark": (150, 30, 25)},
                  {"name": "dots", "body": (35, 35, 40), "mark": (230, 185, 50)}],
}
TRAYS = {"green felt": (0.045, 0.20, 0.065), "blue felt": (0.035, 0.075, 0.25), "black felt": (0.018, 0.018, 0.02),
         "wood": None}
TRAY_HALF = (13.0, 10.0)  # inner half sizes of the tray floor
WALL = 3.0
DIE = 1.6
TILE = (2.4, 2.4, 0.35)
CELL = 160  # texture pixels per face


def srgb_to_linear(value: np.ndarray) -> np.ndarray:
    value = np.asarray(value, dtype=np.float32) / 255.0
    return np.where(value <= 0.04045, value / 12.92, ((value + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(value: np.ndarray) -> np.ndarray:
    value = np.clip(value, 0.0, 1.0)
    return np.where(value <= 0.0031308, value * 12.92, 1.055 * value ** (1 / 2.4) - 0.055)


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Linear RGB of a black body at `kelvin`, scaled to a green of 1 (Tanner Helland's fit, in sRGB)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.698727446 * (t - 60) ** -0.1332047592
    g = 99.4708025861 * math.log(t) - 161.1195681661 if t <= 66 else 288.1221695283 * (t - 60) ** -0.0755148492
    b = 255.0 if t >= 66 else 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    rgb = srgb_to_linear(np.clip(np.array([r, g, b]), 1, 255))
    return rgb / rgb[1]


# --- face art ----------------------------------------------------------------------------------------

PIPS = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}


def _bgr(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    return rgb[2], rgb[1], rgb[0]


def draw_pips(cell: np.ndarray, count: int, colour: tuple[int, int, int], rng: random.Random) -> None:
    spacing, radius = CELL * 0.25, CELL * rng.uniform(0.075, 0.095)
    for x, y in PIPS[count]:
        centre = (int(CELL / 2 + x * spacing), int(CELL / 2 + y * spacing))
        cv2.circle(cell, centre, int(radius), _bgr(colour), -1, cv2.LINE_AA)


def draw_locomotive(cell: np.ndarray, colour: tuple[int, int, int]) -> None:
    c = _bgr(colour)
    s = CELL / 160
    pts = lambda *xy: np.array([[int(x * s), int(y * s)] for x, y in xy], np.int32)  # noqa: E731
    cv2.fillPoly(cell, [pts((30, 70), (100, 70), (100, 105), (30, 105))], c, cv2.LINE_AA)  # boiler
    cv2.fillPoly(cell, [pts((95, 45), (132, 45), (132, 105), (95, 105))], c, cv2.LINE_AA)  # cab
    cv2.fillPoly(cell, [pts((40, 45), (54, 45), (54, 70), (40, 70))], c, cv2.LINE_AA)  # chimney
    cv2.fillPoly(cell, [pts((18, 105), (30, 90), (30, 105))], c, cv2.LINE_AA)  # cow-catcher
    for x, r in ((48, 13), (80, 13), (116, 15)):
        cv2.circle(cell, (int(x * s), int(115 * s)), int(r * s), c, -1, cv2.LINE_AA)


def draw_symbol(cell: np.ndarray, face: str, body: tuple[int, int, int]) -> None:
    """Digger's colour on a plain die: a six-pointed gem in the colour, outlined against the body."""
    centre, outer, inner = CELL / 2, CELL * 0.36, CELL * 0.2
    points = []
    for k in range(12):
        radius = outer if k % 2 == 0 else inner
        angle = math.pi / 6 * k
        points.append([int(centre + radius * math.cos(angle)), int(centre + radius * math.sin(angle))])
    poly = np.array(points, np.int32)
    cv2.fillPoly(cell, [poly], _bgr(COLOURS[face]), cv2.LINE_AA)
    outline = (120, 120, 120) if sum(body) > 380 else (200, 200, 200)
    cv2.polylines(cell, [poly], True, outline, max(2, CELL // 40), cv2.LINE_AA)


def draw_number(cell: np.ndarray, number: int, style: dict[str, Any]) -> None:
    if style["name"] == "digits":
        text = str(number)
        size, thick = CELL / 40, max(3, CELL // 18)
        (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, size, thick)
        cv2.putText(cell, text, (int((CELL - w) / 2), int((CELL + h) / 2)), cv2.FONT_HERSHEY_DUPLEX, size,
                    _bgr(style["mark"]), thick, cv2.LINE_AA)
    else:
        for k in range(number):
            x = CELL / 2 + (k - (number - 1) / 2) * CELL * 0.32
            cv2.circle(cell, (int(x), CELL // 2), int(CELL * 0.12), _bgr(style["mark"]), -1, cv2.LINE_AA)


def atlas(game: str, style: dict[str, Any], faces: tuple[str, ...], rng: random.Random) -> np.ndarray:
    """The texture of one die (or tile): six cells in a 3x2 grid, linear RGB floats."""
    image = np.zeros((2 * CELL, 3 * CELL, 3), np.uint8)
    for index, face in enumerate(faces):
        body = style["body"] if style["body"] is not None else COLOURS[face]
        cell = np.empty((CELL, CELL, 3), np.uint8)
        cell[:] = _bgr(body)
        if face == "":
            pass
        elif game == "digger" and style["body"] is not None:
            draw_symbol(cell, face, body)
        elif game == "chinagold":
            draw_number(cell, int(face), style)
        elif face == "L":
            draw_locomotive(cell, style["mark"])
        elif game in ("gold_connection", "goldgraeber"):
            draw_pips(cell, int(face), style["mark"], rng)
        row, col = divmod(index, 3)
        image[row * CELL:(row + 1) * CELL, col * CELL:(col + 1) * CELL] = cell
    return srgb_to_linear(image[:, :, ::-1].copy())


# --- geometry ----------------------------------------------------------------------------------------

def rounded_box_ply(path: Path, half: tuple[float, float, float], radius: float, steps: int = 14) -> None:
    """A box with rounded edges and corners as a PLY mesh, each side mapped to its cell of the 3x2 atlas."""
    # Denser near the edges, where the surface bends.
    grid = np.array([math.copysign(abs(math.sin(math.pi / 2 * t)) ** 0.7, t)
                     for t in np.linspace(-1, 1, steps)], np.float64)
    h = np.array(half, np.float64)
    core = h - radius
    sides = ((2, +1), (2, -1), (0, +1), (0, -1), (1, +1), (1, -1))
    vertices: list[tuple[float, ...]] = []
    faces: list[tuple[int, int, int]] = []
    for index, (axis, sign) in enumerate(sides):
        a, b = [k for k in range(3) if k != axis]
        if axis == 1:
            a, b = b, a  # every side's art seen from outside reads the right way round, none mirrored
        base = len(vertices)
        row, col = divmod(index, 3)
        for t in grid:
            for s in grid:
                p = np.zeros(3)
                p[axis] = sign * h[axis]
                p[a] = s * h[a] * sign
                p[b] = t * h[b]
                q = np.clip(p, -core, core)
                n = p - q
                n /= np.linalg.norm(n)
                v = q + radius * n
                u_tex = (col + (s + 1) / 2) / 3
                v_tex = (row + (1 - t) / 2) / 2  # Mitsuba reads v from the top row down
                vertices.append((*v, *n, u_tex, v_tex))
        for j in range(steps - 1):
            for i in range(steps - 1):
                k = base + j * steps + i
                quad = (k, k + 1, k + steps + 1, k + steps)
                tri1, tri2 = (quad[0], quad[1], quad[2]), (quad[0], quad[2], quad[3])
                # Outward winding: check against the side's normal.
                p0, p1, p2 = (np.array(vertices[x][:3]) for x in tri1)
                normal = np.cross(p1 - p0, p2 - p0)
                if normal[axis] * sign < 0:
                    tri1, tri2 = (tri1[0], tri1[2], tri1[1]), (tri2[0], tri2[2], tri2[1])
                faces += [tri1, tri2]
    header = ("ply\nformat binary_little_endian 1.0\n"
              f"element vertex {len(vertices)}\n"
              + "".join(f"property float {name}\n" for name in ("x", "y", "z", "nx", "ny", "nz", "u", "v"))
              + f"element face {len(faces)}\nproperty list uchar int vertex_indices\nend_header\n")
    rows = np.zeros(len(faces), dtype=[("n", "u1"), ("index", "<i4", 3)])
    rows["n"], rows["index"] = 3, faces
    path.write_bytes(header.encode() + np.asarray(vertices, "<f4").tobytes() + rows.tobytes())


#: Rotation (axis, degrees) that brings each side (+z -z +x -x +y -y) to the top.
SIDE_UP = ((None, 0), ((1, 0, 0), 180), ((0, 1, 0), -90), ((0, 1, 0), 90), ((1, 0, 0), 90), ((1, 0, 0), -90))


@dataclass
class Piece:
    """A die or tile placed in the tray: which side is up, where, how it is turned, whether it is cocked."""

    faces: tuple[str, ...]
    up: int
    x: float
    y: float
    yaw: float
    half: tuple[float, float, float]
    tilt: tuple[tuple[float, float, float], float] | None = None  # axis and degrees for a cocked die
    z: float = 0.0
    leans_on: str = ""  # a cocked die's support: "wall" or "die"
    texture: np.ndarray = field(default_factory=lambda: np.zeros((1, 1, 3), np.float32))

    @property
    def top(self) -> str:
        return "?" if self.tilt is not None else self.faces[self.up]

    def footprint(self) -> float:
        return math.hypot(self.half[0], self.half[1])


@dataclass
class Session:
    game: str
    style: dict[str, Any]
    tray: str
    camera: dict[str, Any]
    light: dict[str, Any]
    textures: list[np.ndarray]
    dice_faces: list[tuple[str, ...]]


def make_session(game: str, number: int, rng: random.Random) -> Session:
    style = STYLES[game][number % len(STYLES[game])]  # session by session through the styles
    tray = rng.choice(list(TRAYS))
    cam_height = rng.uniform(30, 45)
    tilt = rng.uniform(0, 20)
    azimuth = rng.uniform(0, 2 * math.pi)
    fov = 2 * math.degrees(math.atan((TRAY_HALF[0] + 1.2) / cam_height)) * rng.uniform(1.2, 1.35)  # all the floor
    camera = {"height": cam_height, "tilt": tilt, "azimuth": azimuth, "fov": fov, "yaw": rng.uniform(-8, 8),
              "target": (rng.uniform(-1, 1), rng.uniform(-1, 1))}
    light = {"kelvin": rng.uniform(2700, 6500), "hard": rng.random() < 0.5, "elevation": rng.uniform(40, 85),
             "azimuth": rng.uniform(0, 360), "power": rng.uniform(0.7, 1.3), "ambient": rng.uniform(0.04, 0.2),
             "brightness": rng.choice([rng.uniform(0.3, 0.6), rng.uniform(0.6, 1.2), rng.uniform(1.2, 1.7)])}
    if game == "chinagold":
        dice_faces = [(str(a), str(b), "", "", "", "") for a, b in CHINAGOLD_TILES]
    else:
        dice_faces = [DIE_SIDES[game]] * DICE[game]
    textures = [atlas(game, style, faces, rng) for faces in dice_faces]
    return Session(game, style, tray, camera, light, textures, dice_faces)


def drift(light: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The light of one roll: the session's base light, moved a little (a lamp, a cloud, the evening)."""
    return {**light, "kelvin": float(np.clip(light["kelvin"] + rng.uniform(-600, 600), 2700, 6500)),
            "azimuth": light["azimuth"] + rng.uniform(-25, 25), "power": light["power"] * rng.uniform(0.75, 1.25),
            "brightness": float(np.clip(light["brightness"] * rng.uniform(0.75, 1.3), 0.25, 1.8))}


#: Of the cocked dice in rolls of two or more, the share that leans on the wall rather than on another die.
WALL_SHARE = 0.5
#: The tray's walls: the direction into the tray from each (the way a die leaning on it tilts its top).
WALLS = {"east": math.pi, "west": 0.0, "north": -math.pi / 2, "south": math.pi / 2}


def lean_stream(seed: int, game: str, number: int, index: int) -> random.Random:
    """The random stream of one roll's cocked die, apart from the session's, so that how it leans never
    moves the dice or lights of the rolls after it."""
    return random.Random(f"{seed}:{game}:{number}:{index}:lean")


def turned(axis: tuple[float, float, float], degrees: float) -> np.ndarray:
    """The rotation matrix of `degrees` about `axis` (right-handed, as Mitsuba's `rotate`)."""
    a = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    t = math.radians(degrees)
    return np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * (k @ k)


def corners(piece: Piece) -> np.ndarray:
    """The eight corners of the piece's box around its centre, turned as the scene turns it."""
    box = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * np.array(piece.half)
    turn = turned(piece.tilt[0], piece.tilt[1]) if piece.tilt is not None else np.eye(3)
    turn = turn @ turned((0.0, 0.0, 1.0), piece.yaw)
    axis, degrees = SIDE_UP[piece.up]
    if axis is not None:
        turn = turn @ turned(axis, degrees)
    return box @ turn.T


def outline(piece: Piece) -> np.ndarray:
    """The piece's outline seen from above (x, y in cm, a convex polygon)."""
    return cv2.convexHull((corners(piece)[:, :2] + (piece.x, piece.y)).astype(np.float32)).reshape(-1, 2)


#: Pieces nearer than this (cm) touch: `place` keeps clean dice's centres apart, not their outlines, so two
#: dice turned corner to corner can meet; such a roll is labelled `touching`, which is what a reader sees.
TOUCH = 0.02


def gap(a: Piece, b: Piece) -> float:
    """How far apart two pieces are, seen from above (0 where they touch or overlap): between two convex
    outlines that do not overlap, the nearest points include a corner of one of them."""
    first, second = outline(a), outline(b)
    overlap, _ = cv2.intersectConvexConvex(first, second)
    if overlap > 0:
        return 0.0
    return max(0.0, min(-cv2.pointPolygonTest(polygon, (float(x), float(y)), True)
                        for points, polygon in ((first, second), (second, first)) for x, y in points))


def seen_case(case: str, pieces: list[Piece]) -> str:
    """The label a clean roll earns: `touching` when two of its pieces meet after all."""
    if case == "clean" and any(gap(a, b) < TOUCH for index, a in enumerate(pieces) for b in pieces[index + 1:]):
        return "touching"
    return case


def leaning(angle: float, degrees: float) -> tuple[tuple[float, float, float], float]:
    """The tilt of a die whose top turns `degrees` towards the direction `angle` (radians, in the floor's
    plane): a turn about the floor's line across that direction."""
    return (-math.sin(angle), math.cos(angle), 0.0), degrees


def lean_on_wall(victim: Piece, others: list[Piece], lean: random.Random) -> None:
    """Tilt `victim` 22-38 degrees with its upper side on the nearest wall (another if the dice there
    crowd it) and its lowest edge on the floor: its top turns away from the wall, into the tray.  One of
    its edges lies nearly along the wall, as a die that slid against it settles."""
    degrees = lean.uniform(22, 38)
    victim.yaw = round(victim.yaw / 90) * 90 + lean.uniform(-3, 3)
    spread = max(victim.half[:2]) * 1.5 + 0.1  # keep clear of the walls at the ends
    order = sorted(WALLS, key=lambda wall: {"east": TRAY_HALF[0] - victim.x, "west": TRAY_HALF[0] + victim.x,
                                            "north": TRAY_HALF[1] - victim.y, "south": TRAY_HALF[1] + victim.y}[wall])
    best: tuple[float, float, float, str] | None = None
    for attempt in range(40):
        wall = order[0] if attempt < 20 else lean.choice(order)
        angle = WALLS[wall]
        victim.tilt = leaning(angle, degrees)
        box = corners(victim)
        if wall in ("east", "west"):
            x = TRAY_HALF[0] - 0.005 - box[:, 0].max() if wall == "east" else -TRAY_HALF[0] + 0.005 - box[:, 0].min()
            y = victim.y if attempt == 0 else lean.uniform(-TRAY_HALF[1] + spread, TRAY_HALF[1] - spread)
            y = max(-TRAY_HALF[1] + spread, min(TRAY_HALF[1] - spread, y))
        else:
            y = TRAY_HALF[1] - 0.005 - box[:, 1].max() if wall == "north" else -TRAY_HALF[1] + 0.005 - box[:, 1].min()
            x = victim.x if attempt == 0 else lean.uniform(-TRAY_HALF[0] + spread, TRAY_HALF[0] - spread)
            x = max(-TRAY_HALF[0] + spread, min(TRAY_HALF[0] - spread, x))
        clear = min((math.hypot(x - p.x, y - p.y) - (p.footprint() + victim.footprint()) * 0.8 for p in others),
                    default=1.0)
        if best is None or clear > best[0]:
            best = (clear, float(x), float(y), wall)
        if clear > 0.15:
            break
    assert best is not None
    _clear, victim.x, victim.y, wall = best
    victim.tilt = leaning(WALLS[wall], degrees)
    victim.z = float(-corners(victim)[:, 2].min()) - victim.half[2]  # the lowest edge on the floor


def place(session: Session, rng: random.Random, case: str, count: int, indices: list[int],
          lean: random.Random | None = None) -> list[Piece]:
    """Dice at rest: apart, touching each other or the wall, or one cocked on another die or the wall.

    For a cocked roll, `lean` (the roll's own stream, `lean_stream`) says whether the last die leans on the
    first one or on the wall (always the wall when it is alone) and how it leans on the wall.  The session's
    `rng` is drawn from exactly as before the wall was added, so every roll of a set stays as it was except
    the cocked rolls whose die now leans on the wall."""
    tile = session.game == "chinagold"
    half = (TILE[0] / 2, TILE[1] / 2, TILE[2] / 2) if tile else (DIE / 2,) * 3
    pieces: list[Piece] = []
    margin = max(half[:2]) * 1.5
    for n in range(count):
        faces = session.dice_faces[indices[n]]
        up = rng.randrange(2) if tile else rng.randrange(6)
        for _attempt in range(200):
            if case == "touching" and pieces and rng.random() < 0.8:
                anchor = rng.choice(pieces)
                angle = rng.uniform(0, 2 * math.pi)
                dist = (anchor.footprint() + max(half[:2])) * rng.uniform(0.72, 0.85)
                x, y = anchor.x + dist * math.cos(angle), anchor.y + dist * math.sin(angle)
            elif case == "touching" and rng.random() < 0.5:
                x = rng.choice([-1, 1]) * (TRAY_HALF[0] - half[0] - 0.02)
                y = rng.uniform(-TRAY_HALF[1] + margin, TRAY_HALF[1] - margin)
            else:
                x = rng.uniform(-TRAY_HALF[0] + margin, TRAY_HALF[0] - margin)
                y = rng.uniform(-TRAY_HALF[1] + margin, TRAY_HALF[1] - margin)
            if abs(x) > TRAY_HALF[0] - half[0] or abs(y) > TRAY_HALF[1] - half[1]:
                continue
            near = min((math.hypot(x - p.x, y - p.y) - (p.footprint() + math.hypot(half[0], half[1])) * 0.72
                        for p in pieces), default=1.0)
            if near > (-0.05 if case == "touching" else 0.15):
                break
        yaw = rng.uniform(0, 360)
        if case == "touching" and pieces:
            yaw = pieces[-1].yaw + rng.choice([0, 90]) + rng.uniform(-4, 4)  # faces flush, as dice settle
        pieces.append(Piece(faces, up, x, y, yaw, half, texture=session.textures[indices[n]]))
    if case == "cocked":
        lean = lean or random.Random(0)
        victim = pieces[-1]
        if count == 1 or lean.random() < WALL_SHARE:
            if count > 1:
                rng.uniform(0, 2 * math.pi), rng.uniform(22, 38)  # the draws of a die on a die: later rolls unchanged
            lean_on_wall(victim, pieces[:-1], lean)
            victim.leans_on = "wall"
        else:
            prop = pieces[0]
            angle = rng.uniform(0, 2 * math.pi)
            degrees = rng.uniform(22, 38)
            victim.x = prop.x - math.cos(angle) * (prop.footprint() * 0.75 + half[0] * 1.1)
            victim.y = prop.y - math.sin(angle) * (prop.footprint() * 0.75 + half[0] * 1.1)
            victim.tilt = leaning(angle, degrees)
            victim.z = half[0] * math.sin(math.radians(degrees)) * 1.05
            victim.leans_on = "die"
    return pieces


# --- the scene -----------------------------------------------------------------------------------------

def camera_frame(camera: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The camera's position and its axes (left, up, forward as rows), placed as `scene_dict` places it."""
    tx, ty = camera["target"]
    tilt, azimuth = math.radians(camera["tilt"]), camera["azimuth"]
    origin = np.array([tx + camera["height"] * math.tan(tilt) * math.cos(azimuth),
                       ty + camera["height"] * math.tan(tilt) * math.sin(azimuth), camera["height"]])
    yaw = math.radians(camera["yaw"])
    up = np.array([math.cos(yaw + math.pi / 2), math.sin(yaw + math.pi / 2), 0.0])  # as `scene_dict` gives it
    forward = np.array([tx, ty, 0.0]) - origin
    forward /= np.linalg.norm(forward)
    left = np.cross(up, forward)
    left /= np.linalg.norm(left)
    return origin, np.stack([left, np.cross(forward, left), forward])


def focal_length(camera: dict[str, Any], width: int) -> float:
    """The camera's focal length in pixels of a picture `width` wide (its field of view spans the width)."""
    return (width / 2) / math.tan(math.radians(camera["fov"]) / 2)


def seen_floor(camera: dict[str, Any], width: int, height: int) -> np.ndarray:
    """Which pixels of the session's picture show the tray's floor, not hidden behind a wall: the truth the
    camera reader's walls' foot is measured against (its edge is the foot, or the top of a wall the camera
    looks over)."""
    origin, (left, up, forward) = camera_frame(camera)
    focal = focal_length(camera, width)
    u, v = np.meshgrid(np.arange(width) + 0.5, np.arange(height) + 0.5)
    rays = (-(u - width / 2) / focal)[..., None] * left + (-(v - height / 2) / focal)[..., None] * up + forward
    reach = -origin[2] / np.minimum(rays[..., 2], -1e-9)
    x, y = origin[0] + reach * rays[..., 0], origin[1] + reach * rays[..., 1]
    seen = (np.abs(x) < TRAY_HALF[0]) & (np.abs(y) < TRAY_HALF[1])
    # From the floor towards the camera, a wall hides the floor where the line enters it below the wall's top.
    for axis, other in ((0, 1), (1, 0)):
        ground, eye = (x, y)[axis], origin[axis]
        for sign in (1, -1):
            wall = sign * TRAY_HALF[axis]
            with np.errstate(divide="ignore", invalid="ignore"):
                share = (wall - ground) / (eye - ground)
            across = (x, y)[other] + share * (origin[other] - (x, y)[other])
            enters = (sign * eye > TRAY_HALF[axis]) & (share > 0) & (share < 1)
            seen &= ~(enters & (np.abs(across) < TRAY_HALF[other] + 1) & (share * origin[2] < WALL))
    return seen


def scene_dict(mi: Any, session: Session, pieces: list[Piece], light: dict[str, Any], hand: dict[str, Any] | None,
               meshes: dict[str, str], width: int, height: int, spp: int, seed: int) -> dict[str, Any]:
    T = mi.ScalarTransform4f
    cam = session.camera
    tx, ty = cam["target"]
    origin, _axes = camera_frame(cam)
    yaw = math.radians(cam["yaw"])
    up = [math.cos(yaw + math.pi / 2), math.sin(yaw + math.pi / 2), 0]
    colour = kelvin_rgb(light["kelvin"])
    scene: dict[str, Any] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 5},
        "sensor": {"type": "perspective", "fov": cam["fov"], "fov_axis": "x",
                   "to_world": T().look_at(origin=origin.tolist(), target=[tx, ty, 0], up=up),
                   "film": {"type": "hdrfilm", "width": width, "height": height, "rfilter": {"type": "gaussian"}},
                   "sampler": {"type": "independent", "sample_count": spp, "seed": seed}},
        "ambient": {"type": "constant", "radiance": {"type": "rgb", "value": (colour * light["ambient"]).tolist()}},
    }
    elevation, azimuth = math.radians(light["elevation"]), math.radians(light["azimuth"])
    distance = 90.0
    position = [distance * math.cos(elevation) * math.cos(azimuth), distance * math.cos(elevation) *
                math.sin(azimuth), distance * math.sin(elevation)]
    power = light["power"]
    def emitter(radiance: float) -> dict[str, Any]:
        return {"type": "area", "radiance": {"type": "rgb", "value": (colour * radiance * power).tolist()}}

    if light["hard"]:  # a small bright lamp: hard shadows
        scene["key"] = {"type": "sphere", "center": position, "radius": 0.6, "emitter": emitter(900)}
    else:  # a large soft panel (a window, a shaded lamp)
        aim = T().look_at(origin=position, target=[0, 0, 0], up=[0, 0, 1])
        scene["key"] = {"type": "rectangle", "to_world": aim @ T().scale([25, 25, 1]), "emitter": emitter(0.75)}
    if session.tray == "wood":
        floor_bsdf = {"type": "diffuse", "reflectance": {"type": "bitmap", "bitmap": mi.Bitmap(wood(seed)),
                                                          "raw": True}}
    else:
        floor_bsdf = {"type": "diffuse", "reflectance": {"type": "rgb", "value": list(TRAYS[session.tray])}}
    scene["floor"] = {"type": "rectangle", "to_world": T().scale([TRAY_HALF[0] + 1, TRAY_HALF[1] + 1, 1]),
                      "bsdf": floor_bsdf}
    wall_bsdf = {"type": "roughplastic", "alpha": 0.3,
                 "diffuse_reflectance": {"type": "rgb", "value": [0.28, 0.15, 0.07]}}
    for name, (cx, cy, sx, sy) in {"wall_e": (TRAY_HALF[0] + 0.5, 0, 0.5, TRAY_HALF[1] + 1),
                                   "wall_w": (-TRAY_HALF[0] - 0.5, 0, 0.5, TRAY_HALF[1] + 1),
                                   "wall_n": (0, TRAY_HALF[1] + 0.5, TRAY_HALF[0] + 1, 0.5),
                                   "wall_s": (0, -TRAY_HALF[1] - 0.5, TRAY_HALF[0] + 1, 0.5)}.items():
        scene[name] = {"type": "cube", "to_world": T().translate([cx, cy, WALL / 2]) @ T().scale([sx, sy, WALL / 2]),
                       "bsdf": wall_bsdf}
    scene["table"] = {"type": "rectangle", "to_world": T().translate([0, 0, -0.01]) @ T().scale([80, 80, 1]),
                      "bsdf": {"type": "diffuse", "reflectance": {"type": "rgb", "value": [0.3, 0.3, 0.32]}}}
    for index, piece in enumerate(pieces):
        transform = T().translate([piece.x, piece.y, piece.half[2] + piece.z])
        if piece.tilt is not None:
            transform = transform @ T().rotate(piece.tilt[0], piece.tilt[1])
        transform = transform @ T().rotate([0, 0, 1], piece.yaw)
        axis, degrees = SIDE_UP[piece.up]
        if axis is not None:
            transform = transform @ T().rotate(axis, degrees)
        scene[f"piece{index}"] = {
            "type": "ply", "filename": meshes["tile" if session.game == "chinagold" else "die"],
            "to_world": transform,
            "bsdf": {"type": "roughplastic", "alpha": 0.18,
                     "diffuse_reflectance": {"type": "bitmap", "bitmap": mi.Bitmap(piece.texture), "raw": True}}}
    if hand is not None:
        skin = {"type": "roughplastic", "alpha": 0.4,
                "diffuse_reflectance": {"type": "rgb", "value": hand["skin"]}}
        hx, hy, hz, angle = hand["x"], hand["y"], hand["z"], hand["angle"]
        scene["palm"] = {"type": "sphere", "center": [hx, hy, hz + 1.5], "radius": 4.2, "bsdf": skin}
        elbow = [hx - 30 * math.cos(math.radians(angle)), hy - 30 * math.sin(math.radians(angle)), hz + 9]
        scene["arm"] = {"type": "cylinder", "radius": 3.0, "p0": [hx, hy, hz + 0.5], "p1": elbow, "bsdf": skin}
        for finger in range(4):
            spread = math.radians(angle + (finger - 1.5) * 11)
            base = [hx + 4.2 * math.cos(spread), hy + 4.2 * math.sin(spread), hz]
            tip = [base[0] + 5.5 * math.cos(spread), base[1] + 5.5 * math.sin(spread), hz - 0.8]
            scene[f"finger{finger}"] = {"type": "cylinder", "radius": 0.8, "p0": base, "p1": tip, "bsdf": skin}
    return scene


def wood(seed: int) -> np.ndarray:
    """A light wood texture (grain along one axis), linear RGB."""
    rng = np.random.default_rng(seed)
    x = np.linspace(0, 1, 512)[None, :]
    y = np.linspace(0, 1, 256)[:, None]
    grain = np.sin((y * 40 + 3 * np.sin(x * 6 + rng.uniform(0, 6)) + rng.normal(0, 0.05, (256, 512))) * math.pi)
    base = np.array([0.40, 0.22, 0.10], np.float32)
    return (base[None, None, :] * (0.85 + 0.15 * grain[..., None])).astype(np.float32)


def develop(hdr: np.ndarray, light: dict[str, Any], rng: random.Random, blur: bool) -> np.ndarray:
    """The camera's part: auto exposure and partial white balance, focus and motion blur, noise, sRGB, JPEG."""
    luminance = hdr @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    exposure = 0.22 / max(float(np.mean(luminance)), 1e-4) * light["brightness"]
    image = hdr * exposure
    colour = kelvin_rgb(light["kelvin"])
    balance = 1.0 / colour
    strength = rng.uniform(0.3, 0.9)  # cameras correct warm light only partly
    image = image * (balance ** strength / (balance ** strength)[1])[None, None, :]
    if blur:
        if rng.random() < 0.5:
            sigma = rng.uniform(0.6, 1.8)
            image = cv2.GaussianBlur(image, (0, 0), sigma)
        else:
            length = rng.randint(3, 8)
            kernel = np.zeros((length, length), np.float32)
            kernel[length // 2, :] = 1.0 / length
            rotation = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), rng.uniform(0, 180), 1.0)
            kernel = cv2.warpAffine(kernel, rotation, (length, length))
            image = cv2.filter2D(image, -1, kernel / max(kernel.sum(), 1e-6))
    gain = 1.0 / max(light["brightness"], 0.2)
    noise_rng = np.random.default_rng(rng.randrange(2**32))
    shot = noise_rng.normal(0, 1, image.shape).astype(np.float32) * np.sqrt(np.clip(image, 0, None) * 0.0015 * gain)
    read = noise_rng.normal(0, 0.002 * gain, image.shape).astype(np.float32)
    image = linear_to_srgb(image + shot + read)
    return (image * 255 + 0.5).clip(0, 255).astype(np.uint8)


def save_jpeg(path: Path, rgb: np.ndarray, quality: int) -> None:
    ok, data = cv2.imencode(".jpg", rgb[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    path.write_bytes(data.tobytes())


class Renderer:
    def __init__(self, width: int, height: int, spp: int, threads: int) -> None:
        import drjit as dr
        import mitsuba as mi

        mi.set_variant("scalar_rgb")
        dr.set_thread_count(threads)
        self.mi, self.width, self.height, self.spp = mi, width, height, spp
        self._folder = tempfile.TemporaryDirectory(prefix="goldtable-render-")
        folder = Path(self._folder.name)
        self.meshes = {"die": str(folder / "die.ply"), "tile": str(folder / "tile.ply")}
        rounded_box_ply(Path(self.meshes["die"]), (DIE / 2,) * 3, DIE * 0.12)
        rounded_box_ply(Path(self.meshes["tile"]), (TILE[0] / 2, TILE[1] / 2, TILE[2] / 2), TILE[2] * 0.3)

    def render(self, session: Session, pieces: list[Piece], light: dict[str, Any], hand: dict[str, Any] | None,
               seed: int) -> np.ndarray:
        scene = self.mi.load_dict(scene_dict(self.mi, session, pieces, light, hand, self.meshes, self.width,
                                             self.height, self.spp, seed))
        return np.array(self.mi.render(scene), dtype=np.float32)[:, :, :3]

    def close(self) -> None:
        self._folder.cleanup()


def roll_case(rng: random.Random, game: str, cocked: float = 0.10) -> str:
    """The roll's case; `cocked` is the share of cocked rolls (the other cases keep their proportions)."""
    r = rng.random()
    if cocked != 0.10:  # the default's sets are drawn exactly as before the option
        r = r / cocked * 0.10 if r < cocked else 0.10 + (r - cocked) / (1 - cocked) * 0.90
    if r < 0.10:
        return "cocked"  # Goldgräber's single die on the wall, the others' on the wall or on another die
    if r < 0.16:
        return "hand"
    if r < 0.20:
        return "missing"
    if r < 0.50 and DICE[game] > 1:
        return "touching"
    return "clean"


def render_session(renderer: Renderer, out: Path, game: str, number: int, seed: int, rolls: int, shows: int,
                   log: Any, cocked: float = 0.10) -> dict[str, Any]:
    rng = random.Random(f"{seed}:{game}:{number}")
    session = make_session(game, number, rng)
    folder = out / f"{game}-{number:03d}"
    (folder / "rolls").mkdir(parents=True, exist_ok=True)
    image_seed = rng.randrange(2**31)

    def shoot(path: Path, pieces: list[Piece], light: dict[str, Any], hand: dict[str, Any] | None = None,
              blur: bool = False) -> None:
        nonlocal image_seed
        image_seed += 1
        hdr = renderer.render(session, pieces, light, hand, image_seed)
        save_jpeg(path, develop(hdr, light, rng, blur), rng.randint(60, 95))
        log(f"  {path.relative_to(out)}")

    shoot(folder / "empty.jpg", [], session.light)
    if game != "gold_connection":
        (folder / "teach").mkdir(exist_ok=True)
        rows = []
        carriers: dict[str, list[tuple[int, int]]] = {}
        for die, faces in enumerate(session.dice_faces):
            for side, face in enumerate(faces):
                if face:
                    carriers.setdefault(face, []).append((die, side))
        for face, where in carriers.items():
            for show in range(shows):  # one die (or tile) per picture, as `camera teach` wants
                die, side = where[show % len(where)]
                piece = place(session, rng, "clean", 1, [die])[0]
                piece.up = side
                name = f"teach/{face}-{show}.jpg"
                shoot(folder / name, [piece], drift(session.light, rng))
                rows.append((name, face))
        with (folder / "teach" / "labels.csv").open("w", newline="") as out_csv:
            writer = csv.writer(out_csv)
            writer.writerow(["image", "face"])
            writer.writerows((Path(name).name, face) for name, face in rows)
    truth = []
    for index in range(rolls):
        case = roll_case(rng, game, cocked)
        count = DICE[game] - (1 if case == "missing" else 0)
        indices = list(range(DICE[game]))
        if case == "missing":
            indices.pop(rng.randrange(len(indices)))
        pieces = place(session, rng, case, count, indices, lean_stream(seed, game, number, index))
        hand = None
        if case == "hand":
            edge = rng.uniform(0, 2 * math.pi)
            hand = {"x": TRAY_HALF[0] * 0.9 * math.cos(edge), "y": TRAY_HALF[1] * 0.9 * math.sin(edge),
                    "z": rng.uniform(4, 8), "angle": math.degrees(edge) + 180 + rng.uniform(-20, 20),
                    "skin": rng.choice([[0.55, 0.33, 0.24], [0.35, 0.2, 0.13], [0.15, 0.08, 0.05]])}
        name = f"rolls/roll-{index:03d}.jpg"
        shoot(folder / name, pieces, drift(session.light, rng), hand, blur=rng.random() < 0.25)
        truth.append((name, " ".join(piece.top for piece in pieces), seen_case(case, pieces)))
    with (folder / "truth.csv").open("w", newline="") as out_csv:
        writer = csv.writer(out_csv)
        writer.writerow(["image", "faces", "case"])
        writer.writerows(truth)
    return {"folder": folder.name, "game": game, "style": session.style["name"], "tray": session.tray,
            "camera": dict(session.camera), "light": session.light}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sessions", type=int, default=1, help="sessions (tables) per game")
    parser.add_argument("--first", type=int, default=0, help="number of the first session (to extend a set)")
    parser.add_argument("--rolls", type=int, default=6, help="rolls per session")
    parser.add_argument("--shows", type=int, default=3, help="teaching pictures per face (at most 3)")
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--spp", type=int, default=24, help="samples per pixel")
    parser.add_argument("--threads", type=int, default=1, help="render threads (the machine is shared)")
    parser.add_argument("--cocked", type=float, default=0.10,
                        help="share of cocked rolls (0.10; more to measure cocked dice, the other cases in proportion)")
    args = parser.parse_args(argv)
    games = [game for game in args.games.split(",") if game]
    if not set(games) <= set(GAMES) or not 1 <= args.shows <= 3 or not 0 < args.cocked < 1:
        parser.error(f"--games: choose from {', '.join(GAMES)}; --shows: 1-3; --cocked: between 0 and 1")
    renderer = Renderer(args.width, args.height, args.spp, args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {"sessions": []}
    manifest.update({"generator": "tools/render_dice.py", "seed": args.seed, "size": [args.width, args.height],
                     "spp": args.spp})
    if args.cocked != 0.10:
        manifest["cocked"] = args.cocked
    try:
        for number in range(args.first, args.first + args.sessions):
            for game in games:
                print(f"{game} session {number}", flush=True)
                entry = render_session(renderer, args.out, game, number, args.seed, args.rolls, args.shows,
                                       lambda line: print(line, flush=True), args.cocked)
                manifest["sessions"] = [s for s in manifest["sessions"] if s["folder"] != entry["folder"]] + [entry]
                manifest_path.write_text(json.dumps(manifest, indent=1) + "\n")
    finally:
        renderer.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
