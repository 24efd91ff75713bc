"""Reading rolls from rendered photos of every game (the committed sample of tools/render_dice.py), and the
pip reader on faces drawn here: never a wrong roll without asking, and the cases that must be asked about
(a hand, a die missing, a cocked die) are."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from companion.camera.faces import PATCH, read_pips
from companion.camera.profile import game_dice
from companion.camera.reader import LEANS, Perspective, Reader, assign
from companion.camera.sources import read_image
from companion.camera.vision import Spot, VisionError, calibrate
from tests.camera.helpers import FACES, LEANING, game_of, profile, rolls, sessions

SESSIONS = sessions()


def test_the_sample_covers_every_game() -> None:
    assert {game_of(session) for session in SESSIONS} == {"digger", "gold_connection", "goldgraeber", "chinagold"}


@pytest.mark.parametrize("session", SESSIONS, ids=lambda path: path.name)
def test_no_roll_is_read_wrong_without_asking(session) -> None:
    reader = Reader(profile(session))
    dice = game_dice(game_of(session))
    right = asked = 0
    for roll in rolls(session):
        reading = reader.read(read_image(roll.image), dice)
        if roll.case == "cocked":
            continue  # test_a_cocked_die_is_asked_about
        if roll.case in ("hand", "missing"):
            assert reading.uncertain, f"{roll.image.name} ({roll.case}) was read without asking: {reading.faces}"
        if reading.uncertain:
            asked += 1
            continue
        assert sorted(reading.faces) == sorted(roll.faces), f"{roll.image.name}: {reading.faces} for {roll.faces}"
        assert assign(reading.faces, dice) is not None
        right += 1
    assert right >= 1, f"{session.name}: no roll read without asking ({asked} asked)"


def test_a_picture_read_again_reads_the_same() -> None:
    """Touching dice are split by k-means, which starts from OpenCV's random state: without a seed a
    second reading of the same picture could differ (a roll read right, then asked about)."""
    for session in SESSIONS:
        reader = Reader(profile(session))
        dice = game_dice(game_of(session))
        for roll in rolls(session):
            if roll.case == "touching":
                image = read_image(roll.image)
                first = reader.read(image, dice)
                cv2.kmeans(np.random.default_rng(1).random((50, 2), np.float32), 3, np.empty(0, np.int32),
                           (cv2.TERM_CRITERIA_MAX_ITER, 5, 0.1), 1, cv2.KMEANS_PP_CENTERS)  # moves the state on
                again = reader.read(image, dice)
                assert (again.faces, again.confidence, again.uncertain) == \
                    (first.faces, first.confidence, first.uncertain), roll.image.name


@pytest.mark.xfail(strict=True, reason="a die cocked on another die or on the tray's wall is noticed only when it lies "
                   "alone, in a taught game, and leans far enough off the perspective (docs/performance.md, Camera)")
def test_a_cocked_die_is_asked_about() -> None:
    cocked = [(session, roll) for session in SESSIONS for roll in rolls(session) if roll.case == "cocked"]
    assert cocked
    for session, roll in cocked:
        reading = Reader(profile(session)).read(read_image(roll.image), game_dice(game_of(session)))
        assert reading.uncertain, f"{roll.image} was read without asking: {reading.faces}"


def test_a_die_leaning_on_the_wall_is_asked_about_and_a_flat_die_by_the_wall_is_read() -> None:
    """Rendered pictures (seed 43): a dark die leaning on the tray's wall, its top turned into the tray, which
    the reader used to read as a 5 without asking; and a flat die 1.6 sides from the wall in the same tray."""
    reader = Reader(profile(LEANING))
    assert reader.perspective is not None
    dice = game_dice("goldgraeber")
    by_case = {roll.case: roll for roll in rolls(LEANING)}
    leaning = reader.read(read_image(by_case["cocked"].image), dice)
    assert leaning.uncertain and LEANS in leaning.reasons
    flat = reader.read(read_image(by_case["clean"].image), dice)
    assert not flat.uncertain and flat.faces == by_case["clean"].faces


def test_the_perspective_of_flat_dice_tells_a_die_that_leans() -> None:
    """Flat dice show the sides facing the point below the camera, more of them farther from it; a die that
    shows another side, or much more of one, leans."""
    below = (320.0, 240.0)
    seen = [(x, y, 0.02 * (x - below[0]), 0.02 * (y - below[1])) for x in (100, 300, 500) for y in (100, 250, 400)]
    perspective = Perspective.fit(seen, 40.0)
    assert perspective is not None
    spot = Spot(x=600.0, y=240.0, side=40.0, angle=0.0)
    assert not perspective.leans(spot, (5.6 + 2.0, 1.0))
    assert perspective.leans(spot, (5.6 - 8.0, 0.0))  # the side that faces away from the camera
    assert perspective.leans(spot, (5.6 + 8.0, 0.0))  # far more of the side that faces it
    assert Perspective.fit(seen[:5], 40.0) is None  # too few dice to know the perspective
    scattered = [(x, y, dx + (6.0 if index % 2 else -6.0), dy) for index, (x, y, dx, dy) in enumerate(seen)]
    assert Perspective.fit(scattered, 40.0) is None  # flat dice that disagree: the measure is too rough
    assert Perspective.fit(seen, None) is None


def pip_face(count: int, angle: float, dark_on_light: bool = True) -> np.ndarray:
    """A die face with `count` pips as a camera crop shows it: turned a little, blurred, noisy."""
    body, mark = ((235, 235, 230), (25, 25, 25)) if dark_on_light else ((40, 30, 160), (245, 245, 245))
    face = np.full((PATCH * 4, PATCH * 4, 3), body, np.uint8)
    layouts = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)],
               4: [(-1, -1), (1, -1), (-1, 1), (1, 1)], 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
               6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}
    centre, spacing = PATCH * 2, PATCH * 1.2
    for x, y in layouts[count]:
        cv2.circle(face, (int(centre + x * spacing), int(centre + y * spacing)), int(PATCH * 0.42), mark, -1,
                   cv2.LINE_AA)
    turn = cv2.getRotationMatrix2D((centre, centre), angle, 1.0)
    face = cv2.warpAffine(face, turn, face.shape[1::-1], borderMode=cv2.BORDER_REPLICATE)
    face = cv2.resize(cv2.GaussianBlur(face, (0, 0), 2.0), (PATCH, PATCH), interpolation=cv2.INTER_AREA)
    noise = np.random.default_rng(count).normal(0, 4, face.shape)
    return np.clip(face + noise, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("count", range(1, 7))
@pytest.mark.parametrize("angle", [0, 4, -6])
@pytest.mark.parametrize("dark_on_light", [True, False])
def test_pips_are_counted_on_both_kinds_of_dice(count: int, angle: float, dark_on_light: bool) -> None:
    pips = read_pips(pip_face(count, angle, dark_on_light))
    assert pips is not None and pips.count == count


def test_marks_that_do_not_lie_as_pips_are_no_pip_count() -> None:
    face = np.full((PATCH, PATCH, 3), 230, np.uint8)
    for x, y in [(12, 12), (36, 12), (24, 30)]:  # three pips, but not on a diagonal
        cv2.circle(face, (x, y), 4, (20, 20, 20), -1)
    assert read_pips(face) is None
    symbol = np.full((PATCH, PATCH, 3), 230, np.uint8)
    cv2.fillPoly(symbol, [np.array([[8, 30], [24, 8], [40, 30], [24, 40]], np.int32)], (20, 20, 20))
    assert read_pips(symbol) is None


def test_a_dark_mark_on_a_face_with_light_pips_is_no_pip() -> None:
    """A red die's 6 by another die, blurred (rendered, seed 41): a shade in the middle of the face, far
    fainter than the white pips, was read as a 1 without asking."""
    pips = read_pips(read_image(FACES / "six-by-another-die.png"))
    assert pips is None or pips.count == 6


def test_pips_that_read_as_another_count_at_another_level_are_not_counted() -> None:
    """A 3 blurred by the camera's motion (rendered, seed 41): at one level only its two outer pips stood
    out, which lie as a 2 does."""
    pips = read_pips(read_image(FACES / "three-blurred-by-motion.png"))
    assert pips is None or pips.count == 3


def test_dice_are_matched_to_the_tiles_that_have_those_faces() -> None:
    tiles = (("0", "1"), ("0", "2"), ("1", "2"))
    order = assign(["2", "0", "0"], tiles)
    assert order is not None and [["2", "0", "0"][index] for index in order] == ["0", "0", "2"]
    assert assign(["2", "2", "2"], tiles) is None  # only two tiles have a 2
    assert assign(["1", "2"], tiles) is None


def test_calibration_says_when_the_light_or_the_focus_is_too_poor() -> None:
    empty = read_image(SESSIONS[0] / "empty.jpg")
    calibrate(empty)
    with pytest.raises(VisionError, match="too dark"):
        calibrate((empty * 0.12).astype(np.uint8))
    with pytest.raises(VisionError, match="out of focus"):
        calibrate(cv2.GaussianBlur(empty, (0, 0), 5))
    assert math.isfinite(calibrate(empty).brightness)


def test_a_roll_is_read_from_two_still_frames_and_is_unsure_when_they_differ() -> None:
    from companion.camera.reader import DieReading, Reading, RollWatcher

    empty = read_image(SESSIONS[0] / "empty.jpg")
    roll = read_image(rolls(SESSIONS[0])[0].image)
    patch = np.zeros((PATCH, PATCH, 3), np.uint8)

    class Flicker:
        """A reader whose second look at the same still tray sees another face."""

        def __init__(self, faces: list[str]) -> None:
            self.faces = faces

        def read(self, frame: np.ndarray, dice: object) -> Reading:
            face = self.faces.pop(0)
            return Reading((DieReading(face, 0.9, patch),), (), 1)

    for faces, unsure in ((["4", "4"], False), (["4", "5"], True)):
        watcher = RollWatcher(Flicker(list(faces)), still=2)  # type: ignore[arg-type]
        heard = [watcher.feed(frame, [("4", "5")]) for frame in [empty, empty, roll, roll, roll, roll, roll, roll]]
        rests = [reading for state, reading in heard if state == "rest"]
        assert [state for state, _ in heard].count("moving") == 1
        assert len(rests) == 1 and rests[0] is not None and rests[0].uncertain == unsure
