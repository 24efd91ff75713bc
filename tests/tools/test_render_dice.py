"""tools/render_dice.py without rendering: where `place` puts a cocked die (on the wall or on another die),
and that how it leans never changes what the session's random stream draws (the committed sample stays as
it was rendered)."""

from __future__ import annotations

import importlib.util
import math
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("cv2", reason="needs opencv (the camera extra)")


def _load() -> object:
    """tools/render_dice.py by its path (`tools` here is this test folder's package)."""
    path = Path(__file__).resolve().parents[2] / "tools" / "render_dice.py"
    spec = importlib.util.spec_from_file_location("render_dice", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("render_dice", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


render_dice: Any = _load()


def rotation(axis: tuple[float, ...], degrees: float) -> np.ndarray:
    a = np.asarray(axis, float) / np.linalg.norm(axis)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    t = math.radians(degrees)
    return np.eye(3) + math.sin(t) * k + (1 - math.cos(t)) * k @ k


def corners(piece: Any) -> np.ndarray:
    """The piece's eight corners in the tray, transformed as scene_dict does (tilt, then yaw, then side up)."""
    box = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * np.array(piece.half)
    turn = np.eye(3)
    if piece.tilt is not None:
        turn = rotation(piece.tilt[0], piece.tilt[1])
    turn = turn @ rotation((0, 0, 1), piece.yaw)
    axis, degrees = render_dice.SIDE_UP[piece.up]
    if axis is not None:
        turn = turn @ rotation(axis, degrees)
    return box @ turn.T + np.array([piece.x, piece.y, piece.half[2] + piece.z])


def cocked_roll(game: str, leans_on: str) -> tuple[list[Any], random.Random]:
    """A cocked roll of `game` whose die leans on `leans_on`, and the session stream after it."""
    session = render_dice.make_session(game, 0, random.Random(5))
    count = render_dice.DICE[game]
    for seed in range(100):
        rng = random.Random(11)
        pieces = render_dice.place(session, rng, "cocked", count, list(range(count)), random.Random(seed))
        if pieces[-1].leans_on == leans_on:
            return pieces, rng
    raise AssertionError(f"no lean on the {leans_on} in 100 streams")


@pytest.mark.parametrize("game", render_dice.GAMES)
def test_a_die_cocked_against_the_wall_leans_on_it_with_its_top_turned_away(game: str) -> None:
    pieces, _rng = cocked_roll(game, "wall")
    die = pieces[-1]
    assert die.top == "?" and die.tilt is not None and 22 <= die.tilt[1] <= 38
    points = corners(die)
    assert points[:, 2].min() == pytest.approx(0, abs=1e-6)  # an edge on the floor, none below it
    # Its upper side reaches one wall, and nothing goes through any.
    east, north = render_dice.TRAY_HALF
    gaps = {"east": east - points[:, 0].max(), "west": east + points[:, 0].min(),
            "north": north - points[:, 1].max(), "south": north + points[:, 1].min()}
    wall = min(gaps, key=lambda name: gaps[name])
    assert all(gap >= -1e-6 for gap in gaps.values()) and gaps[wall] <= 0.01
    touching = points[:, 2] > points[:, 2].min() + 0.3  # the corners that touch the wall are the raised ones
    outward = {"east": points[:, 0], "west": -points[:, 0], "north": points[:, 1], "south": -points[:, 1]}[wall]
    assert outward[touching].max() == pytest.approx(outward.max())
    # The top face turns away from the wall, into the tray: it leans on the wall, not off it.
    top = rotation(die.tilt[0], die.tilt[1]) @ np.array([0, 0, 1.0])
    into = {"east": (-1, 0), "west": (1, 0), "north": (0, -1), "south": (0, 1)}[wall]
    assert top[0] * into[0] + top[1] * into[1] == pytest.approx(math.sin(math.radians(die.tilt[1])))
    for other in pieces[:-1]:  # and it stays clear of the dice lying flat
        assert other.tilt is None
        assert math.hypot(other.x - die.x, other.y - die.y) > other.footprint() * 0.8 + die.footprint() * 0.8


@pytest.mark.parametrize("game", ["digger", "gold_connection", "chinagold"])
def test_where_a_cocked_die_leans_never_changes_the_session_stream(game: str) -> None:
    on_die, after_die = cocked_roll(game, "die")
    on_wall, after_wall = cocked_roll(game, "wall")
    assert on_die[-1].tilt is not None and on_die[-1].leans_on == "die"
    assert after_die.getstate() == after_wall.getstate()  # the next rolls are drawn alike
    assert [(p.x, p.y, p.up) for p in on_die[:-1]] == [(p.x, p.y, p.up) for p in on_wall[:-1]]


def test_goldgraebers_single_die_is_sometimes_cocked_and_then_on_the_wall() -> None:
    rng = random.Random(3)
    cases = [render_dice.roll_case(rng, "goldgraeber") for _ in range(400)]
    assert 20 <= cases.count("cocked") <= 60
    pieces, _rng = cocked_roll("goldgraeber", "wall")
    assert len(pieces) == 1 and pieces[0].leans_on == "wall"


def flat_die(x: float, y: float, yaw: float) -> Any:
    return render_dice.Piece(("1",) * 6, 0, x, y, yaw, (render_dice.DIE / 2,) * 3)


def test_the_gap_between_two_dice_is_measured_between_their_outlines() -> None:
    side = render_dice.DIE
    assert render_dice.gap(flat_die(0, 0, 0), flat_die(side + 0.3, 0, 0)) == pytest.approx(0.3)
    assert render_dice.gap(flat_die(0, 0, 0), flat_die(side, 0, 0)) == pytest.approx(0.0, abs=1e-9)  # face to face
    assert render_dice.gap(flat_die(0, 0, 0), flat_die(side * 0.9, 0, 30)) == 0.0  # overlapping
    # Turned 45 degrees, a die reaches half its diagonal: centres 1.1 sides apart meet, 1.3 do not.
    reach = side / 2 + side / math.sqrt(2)
    assert render_dice.gap(flat_die(0, 0, 0), flat_die(reach - 0.01, 0, 45)) == 0.0
    assert render_dice.gap(flat_die(0, 0, 0), flat_die(reach + 0.05, 0, 45)) == pytest.approx(0.05, abs=1e-6)


@pytest.mark.parametrize("game", [game for game in render_dice.GAMES if render_dice.DICE[game] > 1])
def test_a_clean_roll_whose_pieces_meet_is_labelled_touching(game: str) -> None:
    """`place` keeps clean pieces' centres apart, not their outlines: a roll whose pieces meet all the
    same is labelled `touching` (a reader is right to ask about it), and a clean label means a gap."""
    session = render_dice.make_session(game, 0, random.Random(5))
    count = render_dice.DICE[game]
    labels = []
    for seed in range(300):
        pieces = render_dice.place(session, random.Random(seed), "clean", count, list(range(count)))
        label = render_dice.seen_case("clean", pieces)
        nearest = min(render_dice.gap(a, b) for index, a in enumerate(pieces) for b in pieces[index + 1:])
        assert (label == "touching") == (nearest < render_dice.TOUCH)
        labels.append(label)
    assert "clean" in labels
    assert "touching" in labels or count == 2  # two dice alone meet too seldom to count on it in 300 rolls
    assert render_dice.seen_case("cocked", pieces) == "cocked"


def pixel(camera: dict[str, Any], point: tuple[float, float, float], width: int = 640,
          height: int = 480) -> tuple[int, int]:
    """Where the camera of `seen_floor` pictures a point of the tray (column, row)."""
    origin, (left, up, forward) = render_dice.camera_frame(camera)
    focal = render_dice.focal_length(camera, width)
    ray = np.asarray(point, float) - origin
    depth = float(ray @ forward)
    return int(width / 2 - focal * float(ray @ left) / depth), int(height / 2 - focal * float(ray @ up) / depth)


def test_the_floor_seen_ends_at_the_walls_foot_or_behind_a_wall_the_camera_looks_over() -> None:
    """The truth the camera reader's walls' foot is measured against.  From straight above, the floor is seen
    to its foot all round; from a camera beyond the east wall (tilted 20 degrees, 40 cm up: 14.6 cm east of
    the middle), that wall hides the floor within 0.13 cm of it (where the line to the camera passes below
    the wall's 3 cm top)."""
    above = {"height": 40.0, "tilt": 0.0, "azimuth": 0.0, "fov": 45.0, "yaw": 0.0, "target": (0.0, 0.0)}
    seen = render_dice.seen_floor(above, 640, 480)
    half_x, half_y = render_dice.TRAY_HALF
    for x, y in [(0, 0), (half_x - 0.05, 0), (-half_x + 0.05, 0), (0, half_y - 0.05), (3, -half_y + 0.05)]:
        column, row = pixel(above, (x, y, 0))
        assert seen[row, column], (x, y)
    for x, y, z in [(half_x + 0.5, 0, render_dice.WALL), (0, half_y + 0.3, render_dice.WALL), (half_x + 2, 0, 0)]:
        column, row = pixel(above, (x, y, z))
        assert not seen[row, column], (x, y, z)
    beyond_east = {**above, "tilt": 20.0}
    seen = render_dice.seen_floor(beyond_east, 640, 480)
    for x, visible in [(half_x - 0.3, True), (half_x - 0.2, True), (half_x - 0.08, False), (-half_x + 0.05, True)]:
        column, row = pixel(beyond_east, (x, 0, 0))
        assert bool(seen[row, column]) == visible, x
