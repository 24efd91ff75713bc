"""Seeing dice in a picture of the tray: calibration and finding the dice (faces.py reads each one).

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
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import cast

import cv2
import numpy as np
import numpy.typing as npt

from companion.engine.core import N_

Image = npt.NDArray[np.uint8]
Floats = npt.NDArray[np.float32]
Mask = npt.NDArray[np.bool_]

#: Pictures are read at most this wide (bigger frames are scaled down first); finding runs at half of it.
WORK_WIDTH = 640
#: Added before a logarithm of light, so black is a number.
EPS = 0.004
#: The doubt of a blob too small for a die (a crumb, a chip of paint); teaching does not mind it.
SPECK = N_("something small lies in the tray")

# sRGB byte -> linear light, one table lookup per pixel.
_LINEAR: Floats = np.array([(v / 255 / 12.92) if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4
                            for v in range(256)], dtype=np.float32)


class VisionError(ValueError):
    """A picture that cannot serve (calibration: too dark, out of focus, no tray): one sentence why."""


def to_work(frame: Image) -> Image:
    """The frame at the working size (at most WORK_WIDTH wide), 3 channels."""
    if frame.ndim == 2:
        frame = as_bytes(cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR))
    elif frame.shape[2] == 4:
        frame = as_bytes(cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR))
    height, width = frame.shape[:2]
    if width > WORK_WIDTH:
        scale = WORK_WIDTH / width
        frame = as_bytes(cv2.resize(frame, (WORK_WIDTH, max(1, round(height * scale))), interpolation=cv2.INTER_AREA))
    return np.ascontiguousarray(frame)


def as_bytes(array: object) -> Image:
    """OpenCV's result as the byte image it is (its stubs say only 'some array')."""
    return np.asarray(array, dtype=np.uint8)


def as_floats(array: object) -> Floats:
    return np.asarray(array, dtype=np.float32)


# numpy reduces over a last axis of three slowly (4 ms for one half-size frame's maximum); the same sums and
# maxima taken plane by plane cost a tenth of it and give the same numbers.
def channel_mean(image: Floats) -> Floats:
    """The mean of a picture's three channels per pixel."""
    return cast(Floats, (image[..., 0] + image[..., 1] + image[..., 2]) / 3)  # (float32 stays float32)


def channel_norm(image: Floats) -> Floats:
    """The length of each pixel's three channels as a vector."""
    return cast(Floats, np.sqrt(image[..., 0] * image[..., 0] + image[..., 1] * image[..., 1]
                                + image[..., 2] * image[..., 2]))


def channel_max(image: Floats) -> Floats:
    """The largest of each pixel's three channels."""
    return np.maximum(np.maximum(image[..., 0], image[..., 1]), image[..., 2])


def brightness_and_colour(log_light: Floats) -> tuple[Floats, Floats]:
    """Per pixel, the mean of its three channels (in log light: how much brighter) and how far the channels
    stray from that mean (how much the colour differs)."""
    bright = channel_mean(log_light)
    return bright, channel_norm(log_light - bright[..., None])


def linear(image: Image) -> Floats:
    """Linear light from sRGB bytes."""
    return _LINEAR[image]


def luma(image: Image) -> Floats:
    return as_floats(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))


def _small(work: Image) -> Floats:
    """Linear light at half the working size, lightly smoothed: what finding the dice works on."""
    small = as_bytes(cv2.resize(work, (work.shape[1] // 2, work.shape[0] // 2), interpolation=cv2.INTER_AREA))
    return as_floats(cv2.GaussianBlur(linear(small), (0, 0), 0.8))


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

    @functools.cached_property
    def log_background(self) -> Floats:
        """The floor in log light, which every frame read is compared with."""
        return as_floats(np.log(self.background + EPS))

    @functools.cached_property
    def to_wall(self) -> Floats:
        """Per pixel (half size), how far the tray's walls are in pixels: 0 by them, where a die may lean.

        The floor ends at the walls' foot (or, for a wall the camera looks over, at its top edge): each side
        is a straight line (`_within_feet`).  The floor's colour alone cannot place it, as walls of the
        floor's own wood pass for floor up to their outer edge."""
        bright, chroma, middle = _against_middle(self.background)
        smooth = as_floats(cv2.GaussianBlur(chroma, (0, 0), 1.5))
        limit = max(0.15, 4 * float(np.percentile(smooth[middle], 90)))
        rough = _middle_hull(as_bytes(cv2.morphologyEx(((smooth < limit) & (bright > -2.5)).astype(np.uint8),
                                                       cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))))
        if rough is None:  # not calibrate's picture (it checks this): every die asked about
            return as_floats(np.zeros(bright.shape, np.float32))
        colour_limit = max(FOOT_DEPARTS[0], FOOT_DEPARTS[1] * float(np.median(chroma[middle])))
        inside = rough & _within_feet(self.log_background, chroma, colour_limit, rough)
        inside[[0, -1], :] = inside[:, [0, -1]] = 0  # the picture's edge: what lies beyond is not seen
        return as_floats(cv2.distanceTransform(inside, cv2.DIST_L2, 3))

    @functools.cached_property
    def toward_wall(self) -> tuple[Floats, Floats]:
        """Per pixel (half size), the way to the nearest wall's foot (x and y of a unit vector; 0 where no
        way is clear, as on a line as far from two walls)."""
        rows, columns = np.gradient(self.to_wall)
        length = np.hypot(columns, rows)
        scale = np.where(length > 0.5, -1.0 / np.maximum(length, 1e-6), 0.0)
        return as_floats(columns * scale), as_floats(rows * scale)


def floor_outline(calibration: Calibration) -> Floats:
    """Where the floor ends as calibration found it (x, y as shares of the picture's width and height): the
    line by which a die counts as by a wall, for a family to see over the camera's picture."""
    inside = (calibration.to_wall > 0).astype(np.uint8)
    contours, _ = cv2.findContours(inside, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return as_floats(np.zeros((0, 2), np.float32))
    height, width = inside.shape
    return as_floats(max(contours, key=cv2.contourArea).reshape(-1, 2) / np.array([width, height], np.float32))


#: Light and focus limits, in the working frame's 0-255 luma (GRAINY: the sensor's noise as `sensor_noise`
#: measures it: the rendered sets' dimmest tray, black felt at a third of the usual light, measures 9.9 and
#: is read without a wrong reading).
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


#: Immerkær's mask: the difference of two Laplacians, blind to a floor's shading and to straight grain.
_NOISE_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)


def sensor_noise(gray: Floats, where: Mask) -> float:
    """The sensor's noise on `where` as a standard deviation in 0-255 luma (Immerkær's fast estimate).  A
    wooden floor's grain is no noise: the spread round a blur, measured before, took it for some and told
    families with a brightly lit wooden tray to add light."""
    response = np.abs(cv2.filter2D(gray, cv2.CV_32F, _NOISE_MASK))
    return math.sqrt(math.pi / 2) / 6 * float(np.mean(response[where]))


def _shade_band(width: int) -> npt.NDArray[np.uint8]:
    """The disc by which the floor seen in the open is widened to the tray, where dice may lie: the floor
    by the walls lies in their shade."""
    reach = max(3, width // 16)
    return as_bytes(cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1)))


def _against_middle(image: Floats) -> tuple[Floats, Floats, tuple[slice, slice]]:
    """Each pixel's brightness and colour (log, linear light) against the picture's middle, where the tray's
    floor is, and that middle: a shade changes the first, a wall or a die the second."""
    height, width = image.shape[:2]
    middle = (slice(height * 3 // 8, height * 5 // 8), slice(width * 3 // 8, width * 5 // 8))
    log_image = np.log(image + EPS)
    difference = log_image - np.median(log_image[middle].reshape(-1, 3), axis=0)
    bright, chroma = brightness_and_colour(difference)
    return as_floats(bright), as_floats(chroma), middle


def _middle_hull(floor: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8] | None:
    """The convex hull of the part of `floor` that holds the picture's middle (None: the middle is no floor)."""
    _count, labels = cv2.connectedComponents(floor)
    label = labels[floor.shape[0] // 2, floor.shape[1] // 2]
    if label == 0:
        return None
    contours, _ = cv2.findContours((labels == label).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = np.zeros_like(floor)
    cv2.fillConvexPoly(hull, cv2.convexHull(max(contours, key=cv2.contourArea)), 1)
    return hull


#: The walls' foot is looked for from this far inside the floor's rough outline to this far outside it, as
#: shares of the picture's width: walls of the floor's own wood put that outline at their tops' outer edge.
FOOT_REACH = (0.15, -0.04)
#: A line whose colour, as a median along it, departs from the floor's middle by this much (log colour), and
#: by this many times what the floor's middle departs from its own median (noise: a dark felt's colour is
#: noisy), no longer has the floor's colour: a wall's face or top, never floor in a wall's shade.
FOOT_DEPARTS = (0.10, 2.0)
#: A straight edge (log light across it, median along it) is a foot when it stands this many times above the
#: floor's own texture further in (wood grain) and at least this high.
FOOT_EDGE = (1.5, 0.12)
#: ... and when it is a step, not a slope: the light 1.5 px either side of it (half size) differs by at least
#: this share of what it differs 4 px either side.  Floor darkening evenly into a wall's soft shade keeps 3/8
#: (and was taken for the foot up to a die's side short of it); a step blurred as far as calibration allows
#: keeps about 3/4.
FOOT_CRISP = 0.55


def _within_feet(log_image: Floats, chroma: Floats, colour_limit: float,
                 rough: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """The floor inside the walls' feet: each side of the rough floor's outline moved to its wall's foot.

    From the middle outwards, the foot is the first straight step standing out of the floor's texture (a
    wall's face or top begins there).  A wall's inner face may look so like the floor that the first such
    step is its top, so the foot is never put more than a little beyond the first line whose colour departs
    from the floor's by `colour_limit` (the top of a wall the camera looks over, lit like the floor, differs
    in colour alone).  Both are medians along whole lines, which neither wood grain nor noise moves."""
    height, width = rough.shape
    contours, _ = cv2.findContours(rough, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = cv2.convexHull(max(contours, key=cv2.contourArea))
    corners = cv2.approxPolyDP(outline, 0.02 * cv2.arcLength(outline, True), True).reshape(-1, 2).astype(np.float64)
    centre = corners.mean(axis=0)
    offsets = np.arange(FOOT_REACH[0] * width, FOOT_REACH[1] * width, -0.5)
    slack = width / 160  # how far beyond the first line no longer of the floor's colour the foot may lie
    ys, xs = np.mgrid[0:height, 0:width]
    within = np.ones((height, width), np.uint8)
    for start, end in zip(corners, np.roll(corners, -1, axis=0)):
        length = float(np.linalg.norm(end - start))
        if length < width / 20:
            continue  # a cut corner: its neighbours' lines close it
        along = (end - start) / length
        inward = _inward(along, centre - start)
        (edge, edge_turn), (departed, departed_turn) = _foot_offsets(log_image, chroma, colour_limit,
                                                                     (start + end) / 2, along, inward, length,
                                                                     offsets)
        foot, turn = (edge, edge_turn) if edge >= departed - slack else (departed - slack, departed_turn)
        normal = _inward(_turned(along, turn), inward)
        point = (start + end) / 2 + foot * inward
        within &= ((xs - point[0]) * normal[0] + (ys - point[1]) * normal[1] >= 0).astype(np.uint8)
    return within


def _turned(vector: npt.NDArray[np.float64], radians: float) -> npt.NDArray[np.float64]:
    cos, sin = math.cos(radians), math.sin(radians)
    return np.array([cos * vector[0] - sin * vector[1], sin * vector[0] + cos * vector[1]])


def _inward(along: npt.NDArray[np.float64], towards: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The unit normal of a line along `along` on the side `towards` points to."""
    normal = np.array([-along[1], along[0]])
    return normal if float(np.dot(normal, towards)) > 0 else -normal


def _foot_offsets(log_image: Floats, chroma: Floats, colour_limit: float, middle: npt.NDArray[np.float64],
                  along: npt.NDArray[np.float64], inward: npt.NDArray[np.float64], length: float,
                  offsets: npt.NDArray[np.float64]) -> tuple[tuple[float, float], tuple[float, float]]:
    """For one side of the floor's outline: (offset, turn) of the first edge standing out of the floor's
    texture, and of the first line whose colour departs from the floor's by `colour_limit` (of lines turned up
    to 3 degrees either way, the one that departs farthest out).  `offsets` are distances inwards of the side,
    listed from the middle outwards; the last of them stands for "none found"."""
    spread = (np.linspace(0.15, 0.85, 64) - 0.5) * length
    edges = np.full(len(offsets), -1.0)
    crisp = np.zeros(len(offsets))
    edge_turns = np.zeros(len(offsets))
    departed = (math.inf, 0.0)
    for turn in np.radians(np.arange(-3.0, 3.01, 0.75)):
        line = _turned(along, turn)
        across = (1.5 * _inward(line, inward)).astype(np.float32)
        points = (middle + offsets[:, None, None] * inward + spread[None, :, None] * line).astype(np.float32)
        departs = np.median(_at(chroma, points), axis=1) > colour_limit
        first = float(offsets[int(np.argmax(departs))]) if departs.any() else float(offsets[-1])
        if first < departed[0]:
            departed = (first, float(turn))
        score, wide = (_step(log_image, points, across * reach) for reach in (1.0, 8 / 3))
        better = score > edges
        edges[better], edge_turns[better] = score[better], turn
        crisp[better] = score[better] / np.maximum(wide[better], 1e-6)
    threshold = max(FOOT_EDGE[0] * float(np.median(edges[: len(edges) // 2])), FOOT_EDGE[1])
    for index, value in enumerate(edges):
        peak = (index == 0 or value >= edges[index - 1]) and (index + 1 == len(edges) or value >= edges[index + 1])
        if value >= threshold and peak and crisp[index] >= FOOT_CRISP:
            return (float(offsets[index]), float(edge_turns[index])), departed
    return (float(offsets[-1]), 0.0), departed


def _step(log_image: Floats, points: npt.NDArray[np.float32], across: npt.NDArray[np.float32]) -> Floats:
    """Per line of `points`, how much the light changes from `across` before it to `across` beyond it (the larger
    of brightness and colour, median along the line)."""
    step = _at(log_image, points + across) - _at(log_image, points - across)
    step_bright, step_colour = brightness_and_colour(step)
    return as_floats(np.median(np.maximum(np.abs(step_bright), step_colour), axis=1))


def _at(image: Floats, points: npt.NDArray[np.float32]) -> Floats:
    """`image` at sub-pixel `points` (..., 2 as x, y), the picture's edge repeated beyond it."""
    return as_floats(cv2.remap(image, np.ascontiguousarray(points[..., 0]), np.ascontiguousarray(points[..., 1]),
                               cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))


def calibrate(frame: Image) -> Calibration:
    """The empty tray, seen once.  VisionError when the light or the focus is too poor to read dice."""
    work = to_work(frame)
    small = _small(work)
    height, width = small.shape[:2]
    gray = luma(work)
    if float(np.percentile(gray, 95)) < DARK_P95:
        raise VisionError(N_("the picture is too dark: switch on a light over the tray, or open the camera's aperture"))
    bright, chroma, middle = _against_middle(small)
    chroma_limit = max(0.15, 4 * float(np.percentile(chroma[middle], 90)))
    bright_limit = max(0.45, 4 * float(np.percentile(np.abs(bright[middle]), 90)))
    floor = ((chroma < chroma_limit) & (np.abs(bright) < bright_limit)).astype(np.uint8)
    tray = _middle_hull(as_bytes(cv2.morphologyEx(floor, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))))
    if tray is None:
        raise VisionError(N_("no empty tray floor in the middle of the picture: point the camera at the middle "
                             "of the empty tray"))
    if tray.sum() < 0.2 * tray.size:
        raise VisionError(N_("the tray's floor fills less than a fifth of the picture: bring the camera closer, "
                             "or clear the tray"))
    small_gray = cv2.resize(gray, (width, height), interpolation=cv2.INTER_AREA)
    floor_gray = small_gray[tray > 0]
    lit_floor = cv2.resize(cv2.erode(tray, np.ones((3, 3), np.uint8)), (work.shape[1], work.shape[0]),
                           interpolation=cv2.INTER_NEAREST) > 0
    noise = sensor_noise(gray, lit_floor)
    # The floor by the walls lies in their shade and is left out above; dice lie there too.
    tray = as_bytes(cv2.dilate(tray, _shade_band(width)))
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
    #: It touches no other die (a shared outline is split by area, not by edges; dice whose outlines the blur
    #: joined across floor are apart: _touching).
    alone: bool = True
    #: How near its outline comes to the foot of the tray's walls, in die sides (0: on or past it).
    to_wall: float = math.inf
    #: The ways (x, y unit vectors) to the walls its pixels within NEAR_WALL sides lie by, one per pixel.
    walls: Floats = field(compare=False, repr=False, default_factory=lambda: np.zeros((0, 2), np.float32))


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
    log_ratio = np.log(small + EPS) - calibration.log_background
    tray = calibration.tray
    gain = np.median(log_ratio[tray], axis=0).astype(np.float32)
    residual = log_ratio - gain
    valid = (tray & (channel_max(np.abs(residual)) < 0.25)).astype(np.float32)
    sigma = small.shape[1] / 12
    weight = wide_blur(valid, sigma) + 1e-3
    local = wide_blur(residual * valid[..., None], sigma) / weight[..., None]
    return (residual - local).astype(np.float32), gain


def wide_blur(image: Floats, sigma: float) -> Floats:
    """A Gaussian blur much wider than a pixel, made on an image `sigma / 4` times smaller and enlarged
    again: what it keeps varies over tens of pixels, and at full size the blur (a kernel six sigmas wide)
    was a third of reading a roll.  Shrinking and enlarging add a quarter of a step squared to its variance,
    taken off the blur's own; the image is first mirrored beyond its edges as the full blur mirrors it, so
    that the edges agree too (within a quarter of a percent of the image's range)."""
    step = int(sigma // 4)
    if step < 2:
        return as_floats(cv2.GaussianBlur(image, (0, 0), sigma))
    height, width = image.shape[:2]
    pad = math.ceil(3 * sigma / step) * step
    extra_rows, extra_columns = -(height + 2 * pad) % step, -(width + 2 * pad) % step  # whole steps
    padded = cv2.copyMakeBorder(image, pad, pad + extra_rows, pad, pad + extra_columns, cv2.BORDER_REFLECT_101)
    padded_height, padded_width = padded.shape[:2]
    small = cv2.resize(padded, (padded_width // step, padded_height // step), interpolation=cv2.INTER_AREA)
    blurred = cv2.GaussianBlur(small, (0, 0), math.sqrt(max(sigma ** 2 - step ** 2 / 4, 1.0)) / step)
    enlarged = cv2.resize(blurred, (padded_width, padded_height), interpolation=cv2.INTER_LINEAR)
    return as_floats(enlarged[pad:pad + height, pad:pad + width])


def foreground(small: Floats, calibration: Calibration) -> tuple[Mask, Floats, Floats]:
    """Pixels that are not the tray's floor under some light: a colour the floor does not have, or much
    brighter; a shadow (darker, same colour) is floor.  Returns the mask, the light's gain and each pixel's
    departure from the floor in linear light (`departure`)."""
    residual, gain = light_gain(small, calibration)
    floor_departure = departure(residual)
    residual = as_floats(cv2.GaussianBlur(residual, (0, 0), 1.0))  # a die is many pixels, the sensor's noise one
    bright, chroma = brightness_and_colour(residual)
    # How far the floor wanders in this frame decides the thresholds (noise in dim light, texture such as wood).
    tone = float(np.percentile(chroma[calibration.tray], 75))
    level = float(np.percentile(np.abs(bright[calibration.tray]), 75))
    unlike = (chroma > max(0.2, 3 * tone)) | (bright > max(0.28, 3 * level)) | (bright < -1.4)
    unlike &= calibration.tray
    mask = cv2.morphologyEx(unlike.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))  # thin lines: edges
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    return mask > 0, gain, floor_departure


def departure(residual: Floats) -> Floats:
    """How far each pixel's light lies from the floor's, in linear light (0: floor; 1: twice as bright or a
    colour as far off).  Unlike the log ratio that finds dice, a blurred edge mixes linearly: a pixel a die
    covers by a share c departs c times as far as the die does, however much brighter than the floor it is."""
    return as_floats(channel_norm(np.expm1(residual)))


#: Where two dice touch, at least half of any blur round the point of contact is die (two corners meeting
#: fill two quarters of it), so floor between them that departs less than a quarter as far as the dice do
#: (half that, for rounded corners and noise) means they lie apart.
APART = 0.25
#: How a die's own departure is taken: low among its pixels, so that its shaded sides and its marks count.
OWN_DEPARTURE = 25


def _touching(groups: list[Floats], floor_departure: Floats) -> list[bool]:
    """Which dice of a blob touch another.  The blob's outline is the log ratio's, smoothed: round a die
    much brighter than the floor (a white die on black felt) its blur's faint tail still passes the
    threshold, so dice a few pixels apart share an outline.  In linear light that tail is faint against the
    die, and dice that lie apart are parted by floor no touch shows, at least as wide as the floor the
    mask's own closing bridges, so that a seam between two dice (where a light one's and a dark one's
    mixture may cross the floor's colour, on a line thinner than a pixel) never parts them."""
    pixels = [group.astype(np.intp) for group in groups]
    own = min(float(np.percentile(floor_departure[rows, columns], OWN_DEPARTURE)) for columns, rows in
              (group.T for group in pixels))
    every = np.concatenate(pixels)
    left, top = every.min(axis=0)
    right, bottom = every.max(axis=0) + 1
    window = floor_departure[top:bottom, left:right]
    blob = np.zeros(window.shape, np.uint8)
    for group in pixels:
        blob[group[:, 1] - top, group[:, 0] - left] = 1
    die = ((window >= APART * own) & (blob > 0)).astype(np.uint8)
    die = as_bytes(cv2.morphologyEx(die, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))) & blob
    _count, labels = cv2.connectedComponents(die, connectivity=8)
    parts = [set(np.unique(labels[group[:, 1] - top, group[:, 0] - left]).tolist()) - {0} for group in pixels]
    return [any(part & other for other_index, other in enumerate(parts) if other_index != index)
            for index, part in enumerate(parts)]


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


#: A die's pixels this near a wall's foot (in die sides) say which way its walls are (`Spot.walls`): farther
#: than the reader's margin for a die that may lean on a wall.
NEAR_WALL = 0.5


def find_dice(work: Image, calibration: Calibration, side: float | None, expected: int, walls: bool = True) -> Scene:
    """The dice in a working frame.  `side`: a die's side in working pixels when known (taught), else it is
    taken from the dice that lie alone; `expected`: how many the roll should have (to tell specks apart);
    `walls`: measure how near each die lies to the walls (teaching has no use for it)."""
    small = _small(work)
    if small.shape[:2] != calibration.background.shape[:2]:
        raise VisionError(f"the picture is {work.shape[1]}x{work.shape[0]}, the calibration "
                          f"{calibration.size[0]}x{calibration.size[1]}: calibrate again for this camera")
    mask, gain, floor_departure = foreground(small, calibration)
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
                return Scene((), gain_tuple, (N_("no die lies on its own, so their size is unknown"),), mask, None)
        if not blobs:
            return Scene((), gain_tuple, (), mask, None)
    else:
        die_area = half_side * half_side * 1.1  # the outline shows some of the sides too
    counts = _dice_per_blob([area / die_area for area, _ in blobs], expected)
    die_side = (side if side is not None else 2 * math.sqrt(die_area / 1.1))
    spots: list[Spot] = []
    tray_edge = as_bytes(cv2.morphologyEx(calibration.tray.astype(np.uint8), cv2.MORPH_GRADIENT,
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
            doubts.append(N_("a hand or an object is in the tray"))
            continue
        if abs(dice - number) > 0.38 * number ** 0.5:
            doubts.append(N_("a die lies on another or on its edge"))
        points = as_floats(np.column_stack(np.nonzero(region)[::-1]))
        if number == 1:
            groups = [points]
        else:
            criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.2)
            cv2.setRNGSeed(number)  # k-means starts from OpenCV's random state: the same picture, the same split
            _, assigned, _ = cv2.kmeans(points, number, np.empty(0, np.int32), criteria, 3, cv2.KMEANS_PP_CENTERS)
            groups = [points[assigned.ravel() == k] for k in range(number)]
        touching = _touching(groups, floor_departure) if number > 1 else [False]
        for group, touches in zip(groups, touching):
            (cx, cy), (w, h), angle = cv2.minAreaRect(group)
            share = len(group) / die_area
            if number > 1 and not 0.65 < share < 1.45:
                doubts.append(N_("dice lie in a heap"))
            border = min(group[:, 0].min(), group[:, 1].min(), mask.shape[1] - 1 - group[:, 0].max(),
                         mask.shape[0] - 1 - group[:, 1].max())
            if border < 1:
                doubts.append(N_("a die lies at the edge of the picture"))
            columns, rows = group[:, 0].astype(np.intp), group[:, 1].astype(np.intp)
            to_wall, ways = math.inf, np.zeros((0, 2), np.float32)
            if walls:
                reach = calibration.to_wall[rows, columns] / (die_side / 2)
                to_wall = float(reach.min())
                near = reach < NEAR_WALL
                toward_x, toward_y = calibration.toward_wall
                ways = np.column_stack((toward_x[rows[near], columns[near]], toward_y[rows[near], columns[near]]))
            spots.append(Spot(x=cx * 2 + 1, y=cy * 2 + 1, side=die_side, angle=angle % 90, pixels=as_floats(group),
                              alone=not touches, to_wall=to_wall, walls=as_floats(ways)))
    spots.sort(key=lambda s: (s.x, s.y))
    return Scene(tuple(spots), gain_tuple, tuple(dict.fromkeys(doubts)), mask, die_side)
