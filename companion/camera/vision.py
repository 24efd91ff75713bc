"""Seeing dice in a picture of the tray: calibration, finding the dice, their top faces, and reading them.

Pure functions of pictures (numpy arrays in OpenCV's BGR order) and of what calibration and teaching kept;
no camera, file or screen here.  Every step measures how sure it is, and the reader (reader.py) asks the
table whenever one of them is not sure: a wrong roll played without asking is the one failure that must not
happen, a question is cheap.

- **Light-invariant comparison.** Colours are compared in linear light, as ratios to the empty tray: a lamp
  switched on, a warmer bulb or a shadow scale every channel of the floor alike (a gain, estimated from the
  floor itself and allowed to vary slowly across the tray), while a die changes the colour or the
  brightness of the floor by far more than any light does.
- **Sizes follow the dice.** A die's size in pixels comes from teaching, or from the dice that lie apart in
  the picture; dice that touch are split by their area into as many dice as fit.
- **The top face** is the brightest square of the die's size inside the die's outline (the light comes
  from above; the sides a tilted camera also sees are darker), cut out square to the die's edges.
- **Pips are counted and their layout checked** against the six layouts a die can show, so a shadow or a
  scratch never adds a pip unnoticed; other faces are told apart by nearest taught example (colour after
  white balance against the tray, and shape under the four quarter turns).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from companion.engine.core import N_

Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]

#: Pictures are read at most this wide (bigger frames are scaled down first); finding runs at half of it.
WORK_WIDTH = 640
#: Face patches are cut out at this size (pixels per side).
PATCH = 48
#: Shape descriptors are this many pixels per side.
SHAPE = 12
_EPS = 0.004
#: The doubt of a blob too small for a die (a crumb, a chip of paint); teaching does not mind it.
SPECK = "something small lies in the tray"
#: A face cut out with less of it inside the die's outline was not found whole.
COVERED = 0.92

# sRGB byte -> linear light, one table lookup per pixel.
_LINEAR: Floats = np.array([(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
                            for v in range(256)], dtype=np.float32)


class VisionError(ValueError):
    """A picture that cannot serve (calibration: too dark, out of focus, no tray): one sentence why."""


def to_work(frame: Image) -> Image:
    """The frame at the working size (at most WORK_WIDTH wide), 3 channels."""
    if frame.ndim == 2:
        frame = _bytes(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    elif frame.shape[2] == 4:
        frame = _bytes(cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR))
    height, width = frame.shape[:2]
    if width > WORK_WIDTH:
        scale = WORK_WIDTH / width
        frame = _bytes(cv2.resize(frame, (WORK_WIDTH, max(1, round(height * scale))), interpolation=cv2.INTER_AREA))
    return np.ascontiguousarray(frame)


def _bytes(array: object) -> Image:
    """OpenCV's result as the byte image it is (its stubs say only 'some array')."""
    return np.asarray(array, dtype=np.uint8)


def _floats(array: object) -> Floats:
    return np.asarray(array, dtype=np.float32)


def linear(image: Image) -> Floats:
    """Linear light from sRGB bytes."""
    return _LINEAR[image]


def luma(image: Image) -> Floats:
    return _floats(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def _small(work: Image) -> Floats:
    """Linear light at half the working size, lightly smoothed: what finding the dice works on."""
    small = _bytes(cv2.resize(work, (work.shape[1] // 2, work.shape[0] // 2), interpolation=cv2.INTER_AREA))
    return _floats(cv2.GaussianBlur(linear(small), (0, 0), 0.8))


# --- calibration -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Calibration:
    """The empty tray as calibration saw it: the floor (linear, half size), where dice may lie, the light."""

    background: Floats
    tray: Mask
    #: The floor's median brightness (0-255 luma) and its noise when calibrated.
    brightness: float
    noise: float
    #: Estimated blur of the sharpest edges in pixels at the working size (None: no edges to judge by).
    blur: float | None

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the working frame."""
        return self.background.shape[1] * 2, self.background.shape[0] * 2


#: Light and focus limits, in the working frame's 0-255 luma.
DARK_P95 = 45.0
GRAINY = 10.0
GLARE = 0.15
BLURRY = 2.6


def measure_blur(gray: Floats) -> float | None:
    """How soft the sharpest edges are, as the sigma of a Gaussian blur in pixels (None: no edges).

    A step edge seen through blur b has a peak gradient proportional to 1/sqrt(s^2 + b^2) at smoothing s, so
    the ratio of the peaks at two smoothings gives b, whatever the edge's contrast.
    """
    fine, coarse = 1.0, 3.0

    def gradient(sigma: float) -> Floats:
        smooth = cv2.GaussianBlur(gray, (0, 0), sigma)
        gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3) / 8
        gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3) / 8
        return np.asarray(cv2.magnitude(gx, gy), dtype=np.float32)

    g_fine, g_coarse = gradient(fine), gradient(coarse)
    threshold = max(float(np.percentile(g_coarse, 99.5)), 1.5)
    strong = g_coarse >= threshold
    if int(strong.sum()) < 20:
        return None
    ratio = float(np.median(g_fine[strong] / np.maximum(g_coarse[strong], 1e-3))) ** 2
    if ratio <= 1.0 + 1e-3:
        return 99.0
    return math.sqrt(max(0.0, (coarse**2 - ratio * fine**2) / (ratio - 1)))


def calibrate(frame: Image) -> Calibration:
    """The empty tray, seen once.  VisionError when the light or the focus is too poor to read dice."""
    work = to_work(frame)
    small = _small(work)
    height, width = small.shape[:2]
    gray = luma(work)
    if float(np.percentile(gray, 95)) < DARK_P95:
        raise VisionError(N_("the picture is too dark: switch on a light over the tray, or open the camera's aperture"))
    log_image = np.log(small + _EPS)
    centre = log_image[height * 3 // 8:height * 5 // 8, width * 3 // 8:width * 5 // 8].reshape(-1, 3)
    reference = np.median(centre, axis=0)
    difference = log_image - reference
    bright = difference.mean(axis=2)
    chroma = np.linalg.norm(difference - bright[..., None], axis=2)
    centre_chroma = chroma[height * 3 // 8:height * 5 // 8, width * 3 // 8:width * 5 // 8]
    centre_bright = bright[height * 3 // 8:height * 5 // 8, width * 3 // 8:width * 5 // 8]
    chroma_limit = max(0.15, 4 * float(np.percentile(centre_chroma, 90)))
    bright_limit = max(0.45, 4 * float(np.percentile(np.abs(centre_bright), 90)))
    floor = ((chroma < chroma_limit) & (np.abs(bright) < bright_limit)).astype(np.uint8)
    floor = cv2.morphologyEx(floor, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    count, labels = cv2.connectedComponents(floor)
    label = labels[height // 2, width // 2]
    if label == 0 or count < 2:
        raise VisionError(N_("no empty tray floor in the middle of the picture: point the camera at the middle "
                             "of the empty tray"))
    region = (labels == label).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    tray = np.zeros_like(region)
    cv2.fillConvexPoly(tray, hull, 1)
    if tray.sum() < 0.2 * tray.size:
        raise VisionError(N_("the tray's floor fills less than a fifth of the picture: bring the camera closer, "
                             "or clear the tray"))
    small_gray = cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)
    floor_gray = small_gray[tray > 0]
    # The floor by the walls lies in their shade and is left out above; dice lie there too.
    reach = max(3, width // 16)
    tray = cv2.dilate(tray, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))
    sharp = cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)
    noise = float(np.median(np.abs(sharp - cv2.GaussianBlur(sharp, (0, 0), 1.5))[tray > 0])) * 1.4826 * 2
    if noise > GRAINY:
        raise VisionError(N_("the picture is too grainy for the light there is: add light over the tray"))
    full_tray = cv2.resize(tray, (work.shape[1], work.shape[0]), interpolation=cv2.INTER_NEAREST) > 0
    clipped = float(np.mean(work[full_tray].max(axis=1) >= 250))
    if clipped > GLARE:
        raise VisionError(N_("the light is too bright or reflects on the tray: dim it or move it to the side"))
    blur = measure_blur(gray)
    if blur is not None and blur > BLURRY:
        raise VisionError(N_("the picture is out of focus: turn the camera's focus ring (or move the camera "
                             "to its focus distance) until the tray's edges are sharp"))
    return Calibration(background=small.astype(np.float32), tray=tray > 0,
                       brightness=float(np.median(floor_gray)), noise=noise, blur=blur)


# --- finding dice -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Spot:
    """One die (or tile) found: centre and side at the working size, and the angle of its edges."""

    x: float
    y: float
    side: float
    angle: float
    #: Its own pixels at half the working size (x, y), so its face is never looked for on a neighbour.
    pixels: Floats = field(compare=False, repr=False, default_factory=lambda: np.zeros((0, 2), np.float32))


@dataclass(frozen=True)
class Scene:
    """What finding saw: the dice, the light's gain against calibration, and anything that makes it unsure."""

    spots: tuple[Spot, ...]
    gain: tuple[float, float, float]
    doubts: tuple[str, ...]
    foreground: Mask
    side: float | None


def light_gain(small: Floats, calibration: Calibration) -> tuple[Floats, Floats]:
    """The log ratio of this frame to the empty tray after the light's change is taken out, and that change
    (per channel, over the whole tray); the change may vary slowly across the tray (a lamp moved)."""
    log_ratio = np.log(small + _EPS) - np.log(calibration.background + _EPS)
    tray = calibration.tray
    gain = np.median(log_ratio[tray], axis=0).astype(np.float32)
    residual = log_ratio - gain
    valid = (tray & (np.abs(residual).max(axis=2) < 0.25)).astype(np.float32)
    sigma = small.shape[1] / 12
    weight = cv2.GaussianBlur(valid, (0, 0), sigma) + 1e-3
    local = cv2.GaussianBlur(residual * valid[..., None], (0, 0), sigma) / weight[..., None]
    return (residual - local).astype(np.float32), gain


def foreground(small: Floats, calibration: Calibration) -> tuple[Mask, Floats]:
    """Pixels that are not the tray's floor under some light: a colour the floor does not have, or much
    brighter; a shadow (darker, same colour) is floor.  Returns the mask and the light's gain."""
    residual, gain = light_gain(small, calibration)
    residual = _floats(cv2.GaussianBlur(residual, (0, 0), 1.0))  # a die is many pixels, the sensor's noise one
    bright = residual.mean(axis=2)
    chroma = np.linalg.norm(residual - bright[..., None], axis=2)
    # How far the floor wanders in this frame decides the thresholds (noise in dim light, texture such as wood).
    tone = float(np.percentile(chroma[calibration.tray], 75))
    level = float(np.percentile(np.abs(bright[calibration.tray]), 75))
    mask = (chroma > max(0.2, 3 * tone)) | (bright > max(0.28, 3 * level)) | (bright < -1.4)
    mask &= calibration.tray
    mask = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))  # thin lines: edges
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return mask > 0, gain


def _fill(region: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, -1, 1, -1)
    return filled


def _dice_per_blob(sizes: list[float], expected: int) -> list[int]:
    """How many dice each blob holds, from its size in dice.  Where rounding each blob alone misses the
    roll's count by one although the blobs together are that many dice, the blob whose size lies nearest
    to the other count takes it (a group of dice at the picture's edge shows more of their sides)."""
    counts = [max(1, round(size)) for size in sizes]
    wanted = [size for size in sizes if size >= 0.45]
    change = expected - sum(count for size, count in zip(sizes, counts) if size >= 0.45)
    if abs(change) == 1 and abs(sum(wanted) - expected) < 0.6:
        choices = [(abs(size - (count + change)), index) for index, (size, count) in enumerate(zip(sizes, counts))
                   if size >= 0.45 and count + change >= 1]
        if choices:
            cost, index = min(choices)
            if cost < 0.65:
                counts[index] += change
    return counts


def find_dice(work: Image, calibration: Calibration, side: float | None, expected: int) -> Scene:
    """The dice in a working frame.  `side`: a die's side in working pixels when known (taught), else it is
    taken from the dice that lie alone; `expected`: how many the roll should have (to tell specks apart)."""
    small = _small(work)
    if small.shape[:2] != calibration.background.shape[:2]:
        raise VisionError(f"the picture is {work.shape[1]}x{work.shape[0]}, the calibration "
                          f"{calibration.size[0]}x{calibration.size[1]}: calibrate again for this camera")
    mask, gain = foreground(small, calibration)
    gain_tuple = (float(gain[0]), float(gain[1]), float(gain[2]))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    half_side = None if side is None else side / 2
    largest = max((float(stats[label, cv2.CC_STAT_AREA]) for label in range(1, count)), default=0.0)
    tiny = max(6.0, 0.15 * largest) if half_side is None else max(6.0, 0.2 * half_side * half_side)
    blobs = []
    for label in range(1, count):
        area = float(stats[label, cv2.CC_STAT_AREA])
        if area < tiny:
            continue
        region = _fill((labels == label).astype(np.uint8))
        (_, _), (w, h), _ = cv2.minAreaRect(cv2.findNonZero(region))
        if max(w, h) > 4.5 * max(min(w, h), 1.0):
            continue  # a line of light along a wall's edge (its shade changes with the light), not a die
        blobs.append((float(region.sum()), region))
    doubts: list[str] = []
    if half_side is None:
        singles = []
        for area, region in blobs:
            points = cv2.findNonZero(region)
            (_, _), (w, h), _ = cv2.minAreaRect(points)
            if min(w, h) > 0 and max(w, h) / min(w, h) < 1.3 and area / (w * h) > 0.72:
                singles.append(area)
        if expected == 1 and blobs:
            singles = [max(area for area, _ in blobs)]  # teaching: the largest thing in the tray is the die
        singles = [area for area in singles if area >= 0.5 * max(singles, default=0.0)]  # specks are no dice
        die_area = float(np.median(singles)) if singles else 0.0
        if not singles and blobs:
            # Every die touches another: the roll's own count gives their size, if the groups agree with it.
            die_area = sum(area for area, _ in blobs) / max(expected, 1)
            if any(abs(area / die_area - round(area / die_area)) > 0.25 for area, _ in blobs):
                return Scene((), gain_tuple, ("no die lies on its own, so their size is unknown",), mask, None)
        if not blobs:
            return Scene((), gain_tuple, (), mask, None)
    else:
        die_area = half_side * half_side * 1.1  # the outline shows some of the sides too
    counts = _dice_per_blob([area / die_area for area, _ in blobs], expected)
    spots: list[Spot] = []
    tray_edge = _bytes(cv2.morphologyEx(calibration.tray.astype(np.uint8), cv2.MORPH_GRADIENT,
                                        np.ones((5, 5), np.uint8)))
    for (area, region), number in zip(blobs, counts):
        dice = area / die_area
        hull = cv2.convexHull(cv2.findNonZero(region))
        solidity = area / max(float(cv2.contourArea(hull)), 1.0)
        if dice < 0.45:
            if dice > 0.25 and solidity > 0.8:
                doubts.append(SPECK)  # as big as a die's corner: perhaps a die mostly hidden
            continue
        at_edge = bool((region & tray_edge).any())
        if dice > 6.5 or (at_edge and dice > 3.5) or (dice > 2.5 and solidity < 0.7):
            doubts.append("a hand or an object is in the tray")
            continue
        if abs(dice - number) > 0.38 * number ** 0.5:
            doubts.append("a die lies on another or on its edge")
        points = np.column_stack(np.nonzero(region)[::-1]).astype(np.float32)
        if number == 1:
            groups = [points]
        else:
            criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.2)
            _, assigned, _ = cv2.kmeans(points, number, np.empty(0, np.int32), criteria, 3, cv2.KMEANS_PP_CENTERS)
            groups = [points[assigned.ravel() == k] for k in range(number)]
        for group in groups:
            (cx, cy), (w, h), angle = cv2.minAreaRect(group)
            share = len(group) / die_area
            if number > 1 and not 0.65 < share < 1.45:
                doubts.append("dice lie in a heap")
            border = min(group[:, 0].min(), group[:, 1].min(), mask.shape[1] - 1 - group[:, 0].max(),
                         mask.shape[0] - 1 - group[:, 1].max())
            if border < 1:
                doubts.append("a die lies at the edge of the picture")
            spots.append(Spot(x=cx * 2 + 1, y=cy * 2 + 1, side=0.0, angle=angle % 90, pixels=_floats(group)))
    die_side = (side if side is not None else 2 * math.sqrt(die_area / 1.1))
    spots = [Spot(s.x, s.y, die_side, s.angle, s.pixels) for s in spots]
    spots.sort(key=lambda s: (s.x, s.y))
    return Scene(tuple(spots), gain_tuple, tuple(dict.fromkeys(doubts)), mask, die_side)


# --- top faces --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Face:
    """A die's top face cut out square to its edges (PATCH x PATCH, BGR), and how well it could be cut."""

    patch: Image
    doubts: tuple[str, ...] = field(default=())
    #: The same place a third larger: pips a patch cut off the face's middle has lost are found there.
    wide: Image | None = None
    #: The share of the cut-out square inside the die's own outline.
    covered: float = 1.0


def _edge_angle(gray: Floats) -> float | None:
    """The angle of a square's edges (0-90 degrees) from the gradients' orientations, weighted by strength."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.hypot(gx, gy)
    if float(magnitude.max()) < 1e-3:
        return None
    theta = np.arctan2(gy, gx) * 4  # a square's four edge directions become one
    weight = magnitude**2
    c, s = float((weight * np.cos(theta)).sum()), float((weight * np.sin(theta)).sum())
    if math.hypot(c, s) < 0.15 * float(weight.sum()):
        return None
    return (math.degrees(math.atan2(s, c)) / 4) % 90


def _face_extent(lab: Floats, inside: Mask, cx: int, cy: int, box: int) -> tuple[float, float, float] | None:
    """The top face's centre and side in the die's window: the pixels of the face's own colour (pips and
    marks closed over) connected to the place found, measured along the die's edges."""
    half = box // 2
    sample = lab[max(0, cy - half):cy + half + 1, max(0, cx - half):cx + half + 1].reshape(-1, 3)
    body = np.median(sample, axis=0)
    difference = np.abs(lab - body)
    same = (difference[:, :, 0] < 22) & (np.hypot(difference[:, :, 1], difference[:, :, 2]) < 12) & inside
    same = cv2.morphologyEx(same.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    _, labels = cv2.connectedComponents(same)
    label = labels[cy, cx]
    if label == 0:
        return None
    return _square_of((labels == label).astype(np.uint8))


def _square_of(region: npt.NDArray[np.uint8]) -> tuple[float, float, float] | None:
    """Centre and side of a region that is nearly a square along the window's axes (rows and columns mostly
    inside it: a thin spill along a side does not count), else None."""
    ys, xs = np.nonzero(region)
    if len(xs) < 16:
        return None
    rows = np.bincount(ys - ys.min())
    cols = np.bincount(xs - xs.min())
    row_span = np.nonzero(rows >= 0.5 * rows.max())[0]
    col_span = np.nonzero(cols >= 0.5 * cols.max())[0]
    height = float(row_span[-1] - row_span[0] + 1)
    width = float(col_span[-1] - col_span[0] + 1)
    if not 0.75 < width / height < 1.33:
        return None
    return (xs.min() + (col_span[0] + col_span[-1]) / 2, ys.min() + (row_span[0] + row_span[-1]) / 2,
            (width + height) / 2)


def _lit_extent(lightness: Floats, inside: Mask, face_side: float) -> tuple[float, float, float] | None:
    """The top face as the lit part of the die: pips and marks smoothed away (a median the size of a pip),
    then the brighter of two levels inside the die's outline; the light comes from above, its sides are in
    shade."""
    size = max(3, int(face_side * 0.22) | 1)
    smooth = cv2.medianBlur(np.clip(lightness, 0, 255).astype(np.uint8), size)
    values = smooth[inside]
    if values.size < 16:
        return None
    level, _ = cv2.threshold(values.reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    lit = ((smooth > level) & inside).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(lit)
    if count < 2:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return _square_of((labels == largest).astype(np.uint8))


def top_face(work: Image, mask: Mask, spot: Spot) -> Face:
    """Cut out the spot's top face: square to the die's edges, the brightest place of the die's size inside
    its outline (sides seen by a tilted camera are darker than the lit top)."""
    side = spot.side
    window = round(side * 1.7)
    scale = 80.0 / window  # the window becomes 80x80, a die's side 47 pixels
    gray = luma(work)
    x0, y0 = int(spot.x - window / 2), int(spot.y - window / 2)
    crop = gray[max(0, y0):y0 + window, max(0, x0):x0 + window]
    angle = _edge_angle(_floats(cv2.GaussianBlur(crop, (0, 0), 1.0))) if crop.size else None
    if angle is None:
        angle = spot.angle
    rotation = cv2.getRotationMatrix2D((spot.x, spot.y), angle, scale)
    rotation[0, 2] += 40 - spot.x
    rotation[1, 2] += 40 - spot.y
    window_image = cv2.warpAffine(work, rotation, (80, 80), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    own = np.zeros(mask.shape, np.uint8)
    if len(spot.pixels):
        own[spot.pixels[:, 1].astype(int), spot.pixels[:, 0].astype(int)] = 1
    else:
        own[mask] = 1
    full_mask = cv2.resize(own, (work.shape[1], work.shape[0]), interpolation=cv2.INTER_NEAREST)
    window_mask = cv2.warpAffine(full_mask, rotation, (80, 80), flags=cv2.INTER_NEAREST).astype(np.float32)
    face_side = side * scale
    box = max(8, round(face_side * 0.6))
    inside = cv2.boxFilter(window_mask, -1, (box, box), normalize=True, borderType=cv2.BORDER_CONSTANT)
    lab = cv2.cvtColor(window_image, cv2.COLOR_BGR2LAB).astype(np.float32)
    mean = cv2.boxFilter(lab, -1, (box, box), borderType=cv2.BORDER_REPLICATE)
    square = cv2.boxFilter(lab * lab, -1, (box, box), borderType=cv2.BORDER_REPLICATE)
    chroma_spread = np.sqrt(np.maximum(square - mean * mean, 0)[:, :, 1:].sum(axis=2))
    best = float(inside.max())
    # The top face: inside the outline, of one colour (a box across an edge of a die whose faces differ in
    # colour is not), and the brightest such place (the sides a tilted camera sees are in shade).
    score = np.where(inside >= best - 0.04, mean[:, :, 0] * 100 / 255 - 2.0 * chroma_spread, -1e9)
    row, col = np.unravel_index(int(np.argmax(score)), score.shape)
    cx, cy, cut = float(col), float(row), face_side * 0.76
    for extent in (_face_extent(lab, window_mask > 0, int(col), int(row), box),
                   _lit_extent(lab[:, :, 0], window_mask > 0, face_side)):
        if extent is not None and 0.55 * face_side < extent[2] < 1.0 * face_side:
            cx, cy, cut = extent[0], extent[1], extent[2] * 0.92
            break
    def cut_out(side: float) -> Image:
        corners = np.array([[cx - side / 2, cy - side / 2], [cx + side / 2, cy - side / 2],
                            [cx + side / 2, cy + side / 2]], np.float32)
        target = np.array([[0, 0], [PATCH, 0], [PATCH, PATCH]], np.float32)
        return _bytes(cv2.warpAffine(window_image, cv2.getAffineTransform(corners, target), (PATCH, PATCH),
                                     flags=cv2.INTER_AREA if side > PATCH else cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE))

    left, top = round(cx - cut / 2), round(cy - cut / 2)
    inside_cut = window_mask[max(0, top):top + round(cut), max(0, left):left + round(cut)]
    covered = float(inside_cut.sum()) / max(cut * cut, 1.0)
    doubts = () if best > 0.85 and covered > COVERED else ("a die is partly hidden",)
    return Face(patch=cut_out(cut), doubts=doubts, wide=cut_out(cut * 1.35), covered=covered)


# --- pips ------------------------------------------------------------------------------------------------

#: The pip layouts a die shows, on a 3x3 grid (-1, 0, 1), in every quarter turn.
_LAYOUTS: dict[int, tuple[frozenset[tuple[int, int]], ...]] = {
    1: (frozenset({(0, 0)}),),
    2: (frozenset({(-1, -1), (1, 1)}), frozenset({(-1, 1), (1, -1)})),
    3: (frozenset({(-1, -1), (0, 0), (1, 1)}), frozenset({(-1, 1), (0, 0), (1, -1)})),
    4: (frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1)}),),
    5: (frozenset({(-1, -1), (-1, 1), (1, -1), (1, 1), (0, 0)}),),
    6: (frozenset({(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)}),
        frozenset({(-1, -1), (0, -1), (1, -1), (-1, 1), (0, 1), (1, 1)})),
}


@dataclass(frozen=True)
class Pips:
    """A pip count whose layout is one a die can show, and how closely the pips sit on that layout (0-1)."""

    count: int
    fit: float


def _pip_candidates(gray: Floats, polarity: int, level: float) -> list[tuple[float, float, float]]:
    """Round marks of one polarity (dark on light = -1) the size of pips: (x, y, area) in patch pixels.
    `level`: the share of the contrast a pixel must reach (higher levels part pips that blur together)."""
    body = float(np.median(gray))
    extreme = float(np.percentile(gray, 2 if polarity < 0 else 98))
    contrast = (extreme - body) * polarity
    if contrast < 14:
        return []
    marks = ((gray - body) * polarity > contrast * level).astype(np.uint8)
    count, _labels, stats, centroids = cv2.connectedComponentsWithStats(marks, connectivity=4)
    found = []
    for label in range(1, count):
        x, y, w, h, area = (int(v) for v in stats[label])
        cx, cy = (float(v) for v in centroids[label])
        if area < PATCH * PATCH * 0.006:
            continue
        if area > PATCH * PATCH * 0.12 or max(w, h) > 2.2 * min(w, h) or area < 0.45 * w * h:
            if x == 0 or y == 0 or x + w == PATCH or y + h == PATCH:
                continue  # the shade of the die's rounded rim at the patch's edge
            return []  # a mark that is no pip: this is not a pip face (or not one we can read)
        if min(cx, cy, PATCH - cx, PATCH - cy) < PATCH * 0.07:
            continue  # shading at the rounded rim
        found.append((cx, cy, float(area)))
    return found


def read_pips(patch: Image) -> Pips | None:
    """The number of pips on a face when they lie as a die's pips do, else None (not readable as pips)."""
    gray = luma(patch)
    best: Pips | None = None
    for polarity, level in itertools.product((-1, 1), (0.45, 0.6, 0.75)):
        marks = _pip_candidates(gray, polarity, level)
        if not 1 <= len(marks) <= 6:
            continue
        areas = [area for _, _, area in marks]
        if max(areas) > 2.3 * min(areas):
            continue
        half = PATCH / 2
        if len(marks) == 1:
            distance = math.hypot(marks[0][0] - half, marks[0][1] - half) / half
            fit = max(0.0, 1 - distance / 0.35)
            candidate = Pips(1, fit) if fit > 0 else None
        else:
            # Every layout is symmetric about the face's middle, so the pips' own centre is the face's:
            # a patch cut a little off the face still reads.
            cx = sum(x for x, _, _ in marks) / len(marks)
            cy = sum(y for _, y, _ in marks) / len(marks)
            if math.hypot(cx - half, cy - half) > 0.35 * half:
                continue
            coords = [((x - cx) / half, (y - cy) / half) for x, y, _ in marks]
            spacing = float(np.median([max(abs(a), abs(b)) for a, b in coords if max(abs(a), abs(b)) > 0.25] or [0]))
            if not 0.3 < spacing < 0.85:
                continue
            snapped = [(round(a / spacing), round(b / spacing)) for a, b in coords]
            error = max(max(abs(a / spacing - sa), abs(b / spacing - sb)) for (a, b), (sa, sb) in zip(coords, snapped))
            if any(abs(sa) > 1 or abs(sb) > 1 for sa, sb in snapped) or frozenset(snapped) not in _LAYOUTS[len(marks)]:
                continue
            fit = max(0.0, 1 - error / 0.3)
            candidate = Pips(len(marks), fit) if fit > 0 else None
        if candidate is not None and (best is None or candidate.fit > best.fit):
            best = candidate
    return best


# --- taught faces -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Features:
    """What a face is recognised by: its colours (white-balanced against the tray, relative brightness) and
    its marks' shape (contrast-normalised, in the die's frame, any quarter turn)."""

    colour: tuple[float, ...]
    shape: tuple[float, ...]


def features(patch: Image, gain: Sequence[float]) -> Features:
    """Features of a face patch seen under a light whose gain against calibration is `gain` (log, BGR): the
    colours are taken back to the calibration's light before they are described."""
    light = linear(patch).reshape(-1, 3) / np.exp(np.asarray(gain, np.float32))
    mean = light.mean(axis=0)
    distance = np.linalg.norm(np.log(light + _EPS) - np.log(mean + _EPS), axis=1)
    marked = light[distance >= np.percentile(distance, 80)]
    body = light[distance <= np.percentile(distance, 50)]

    def describe(colour: Floats) -> list[float]:
        b, g, r = (float(v) + _EPS for v in colour)
        total = b + g + r
        return [math.log(r / g), math.log(b / g), 0.5 * math.log(total)]

    colour = describe(body.mean(axis=0)) + describe(marked.mean(axis=0))
    gray = cv2.resize(luma(patch), (SHAPE, SHAPE), interpolation=cv2.INTER_AREA)
    gray = gray - gray.mean()
    spread = float(gray.std())
    shape = (gray / spread if spread > 6 else gray * 0).ravel()
    return Features(tuple(colour), tuple(float(v) for v in shape))


def _turns(shape: Sequence[float]) -> Floats:
    """The shape under the four quarter turns and shifted by up to one cell each way (a face cut a little
    off its middle), as rows of the inner (SHAPE-2)^2 cells."""
    grid = np.asarray(shape, np.float32).reshape(SHAPE, SHAPE)
    inner = SHAPE - 2
    return np.stack([np.rot90(grid, k)[dy:dy + inner, dx:dx + inner].ravel()
                     for k in range(4) for dy in range(3) for dx in range(3)])


def distances(a: Features, b: Features) -> tuple[float, float]:
    """How unlike two faces are in colour (log chromaticity and brightness, weighted) and in shape (under
    the best quarter turn and shift)."""
    ca, cb = np.asarray(a.colour), np.asarray(b.colour)
    weights = np.array([1.0, 1.0, 0.35, 0.6, 0.6, 0.2])
    colour = float(np.sqrt(((ca - cb) ** 2 * weights).sum()))
    inner = np.asarray(a.shape, np.float32).reshape(SHAPE, SHAPE)[1:-1, 1:-1].ravel()
    shape = float(np.sqrt(np.mean((_turns(b.shape) - inner) ** 2, axis=1)).min())
    return colour, 0.35 * shape


@dataclass(frozen=True)
class Match:
    """The nearest taught face, its distance, the nearest other face's distance, and the part of both that
    every face shares (the colour distance of the face nearest in colour: where all faces have one colour,
    as a game's digits or pips on one die, it is the light's and the camera's noise, not a difference)."""

    face: str
    distance: float
    runner_up: float
    floor: float = 0.0

    @property
    def margin(self) -> float:
        """Best over runner-up above the shared part: 0 is a clear decision, near 1 a toss-up."""
        if not math.isfinite(self.runner_up):
            return 0.0
        return (self.distance - self.floor) / max(self.runner_up - self.floor, 1e-6)


def nearest(face: Features, examples: Sequence[tuple[str, Features]]) -> Match | None:
    """The taught face nearest to `face` (by its nearest example) and the best other face's distance."""
    best: dict[str, float] = {}
    colour_floor = math.inf
    for label, example in examples:
        colour, shape = distances(face, example)
        colour_floor = min(colour_floor, colour)
        if colour + shape < best.get(label, math.inf):
            best[label] = colour + shape
    if not best:
        return None
    ranked = sorted(best.items(), key=lambda item: item[1])
    runner_up = ranked[1][1] if len(ranked) > 1 else math.inf
    return Match(ranked[0][0], ranked[0][1], runner_up, min(colour_floor, ranked[0][1]))
