"""Reading one die in a picture of the tray: its top face cut out, its pips counted, its look compared.

The second half of the camera's sight (vision.py finds the dice): pure functions of pictures and of what
teaching kept, each measuring how sure it is.

- **The top face** is the brightest square of the die's size inside the die's outline (the light comes
  from above; the sides a tilted camera also sees are darker), cut out square to the die's edges.
- **Pips are counted and their layout checked** against the six layouts a die can show, so a shadow or a
  scratch never adds a pip unnoticed; other faces are told apart by nearest taught example (colour after
  white balance against the tray, and shape under the four quarter turns).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

from companion.camera.vision import EPS, Floats, Image, Mask, Spot, as_bytes, as_floats, linear, luma
from companion.engine.core import N_

#: Face patches are cut out at this size (pixels per side).
PATCH = 48
#: A die is looked at in a square window of this many pixels (1.7 of its sides: the side 47 pixels).
WINDOW = 80
#: Shape descriptors are this many pixels per side.
SHAPE = 12
#: A face cut out with less of it inside the die's outline was not found whole.
COVERED = 0.92
#: A pip layout must fit at least this well.
PIP_FIT = 0.25


@dataclass(frozen=True)
class Face:
    """A die's top face cut out square to its edges (PATCH x PATCH, BGR), and how well it could be cut."""

    patch: Image
    doubts: tuple[str, ...] = field(default=())
    #: The same place a third larger: pips a patch cut off the face's middle has lost are found there.
    wide: Image | None = None
    #: The share of the cut-out square inside the die's own outline.
    covered: float = 1.0
    #: Where the face's middle is in the working frame (x, y).
    centre: tuple[float, float] = (0.0, 0.0)


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


def _face_extent(lab: Floats, inside: Mask, cx: int, cy: int, box: int,
                 flat: bool) -> tuple[float, float, float] | None:
    """The top face's centre and side in the die's window: the pixels of the face's own colour (pips and
    marks closed over) connected to the place found, measured along the die's edges.  A tile's bright dots
    draw the place onto one of them, so for a tile (`flat`) the region is the one that fills most of the box
    there: without an extent its face is cut a die's size, too small for it.  On a die the region under the
    place is kept (taking the fuller one changed no reading for the better on the development sets)."""
    half = box // 2
    sample = lab[max(0, cy - half):cy + half + 1, max(0, cx - half):cx + half + 1].reshape(-1, 3)
    body = np.median(sample, axis=0)
    difference = np.abs(lab - body)
    same = (difference[:, :, 0] < 22) & (np.hypot(difference[:, :, 1], difference[:, :, 2]) < 12) & inside
    same = cv2.morphologyEx(same.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    _, labels = cv2.connectedComponents(same)
    if flat:
        counts = np.bincount(labels[max(0, cy - half):cy + half + 1, max(0, cx - half):cx + half + 1].ravel())
        counts[0] = 0
        label = int(np.argmax(counts))
    else:
        label = int(labels[cy, cx])
    if label == 0:
        return None
    return _square_of((labels == label).astype(np.uint8))


def _box_of(region: npt.NDArray[np.uint8]) -> tuple[float, float, float, float] | None:
    """Centre, width and height of a region along the window's axes, counting the rows and columns mostly
    inside it (a thin spill along a side does not count); None for a region of a few pixels."""
    ys, xs = np.nonzero(region)
    if len(xs) < 16:
        return None
    rows = np.bincount(ys - ys.min())
    cols = np.bincount(xs - xs.min())
    row_span = np.nonzero(rows >= 0.5 * rows.max())[0]
    col_span = np.nonzero(cols >= 0.5 * cols.max())[0]
    return (xs.min() + (col_span[0] + col_span[-1]) / 2, ys.min() + (row_span[0] + row_span[-1]) / 2,
            float(col_span[-1] - col_span[0] + 1), float(row_span[-1] - row_span[0] + 1))


def _square_of(region: npt.NDArray[np.uint8]) -> tuple[float, float, float] | None:
    """Centre and side of a region that is nearly a square along the window's axes, else None."""
    box = _box_of(region)
    if box is None or not 0.75 < box[2] / box[3] < 1.33:
        return None
    return box[0], box[1], (box[2] + box[3]) / 2


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


def top_face(work: Image, mask: Mask, spot: Spot, flat: bool = False) -> Face:
    """Cut out the spot's top face: square to the die's edges, the brightest place of the die's size inside
    its outline (sides seen by a tilted camera are darker than the lit top).  `flat`: the piece is a tile,
    whose sides are too thin to show, so its face may fill its outline."""
    side = spot.side
    window = round(side * 1.7)
    scale = WINDOW / window
    gray = luma(work)
    x0, y0 = int(spot.x - window / 2), int(spot.y - window / 2)
    crop = gray[max(0, y0):y0 + window, max(0, x0):x0 + window]
    angle = _edge_angle(as_floats(cv2.GaussianBlur(crop, (0, 0), 1.0))) if crop.size else None
    if angle is None:
        angle = spot.angle
    rotation = cv2.getRotationMatrix2D((spot.x, spot.y), angle, scale)
    rotation[0, 2] += WINDOW / 2 - spot.x
    rotation[1, 2] += WINDOW / 2 - spot.y
    window_image = cv2.warpAffine(work, rotation, (WINDOW, WINDOW), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    own = np.zeros(mask.shape, np.uint8)
    if len(spot.pixels):
        own[spot.pixels[:, 1].astype(int), spot.pixels[:, 0].astype(int)] = 1
    else:
        own[mask] = 1
    full_mask = cv2.resize(own, (work.shape[1], work.shape[0]), interpolation=cv2.INTER_NEAREST)
    window_mask = cv2.warpAffine(full_mask, rotation, (WINDOW, WINDOW), flags=cv2.INTER_NEAREST).astype(np.float32)
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
    own_colour = _face_extent(lab, window_mask > 0, int(col), int(row), box, flat)
    lit = _lit_extent(lab[:, :, 0], window_mask > 0, face_side)
    # A die's side is taken from its outline's area less a tenth, for the sides it shows, so a region of
    # the face's colour as large is its sides' colour spilling over.  A tile shows no sides: its face is its
    # whole outline, about 1.05 of that side (the region never reaches beyond the outline).
    largest = math.inf if flat else face_side
    for extent in (own_colour, lit):
        if extent is not None and 0.55 * face_side < extent[2] < largest:
            cx, cy, cut = extent[0], extent[1], extent[2] * 0.92
            break

    def cut_out(side: float) -> Image:
        corners = np.array([[cx - side / 2, cy - side / 2], [cx + side / 2, cy - side / 2],
                            [cx + side / 2, cy + side / 2]], np.float32)
        target = np.array([[0, 0], [PATCH, 0], [PATCH, PATCH]], np.float32)
        return as_bytes(cv2.warpAffine(window_image, cv2.getAffineTransform(corners, target), (PATCH, PATCH),
                                     flags=cv2.INTER_AREA if side > PATCH else cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE))

    left, top = round(cx - cut / 2), round(cy - cut / 2)
    inside_cut = window_mask[max(0, top):top + round(cut), max(0, left):left + round(cut)]
    covered = float(inside_cut.sum()) / max(cut * cut, 1.0)
    doubts = () if best > 0.85 and covered > COVERED else (N_("a die is partly hidden"),)
    x, y = cv2.invertAffineTransform(rotation) @ (cx, cy, 1.0)
    return Face(patch=cut_out(cut), doubts=doubts, wide=cut_out(cut * 1.35), covered=covered,
                centre=(float(x), float(y)))


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


#: The turns (rotation matrices, applied to row vectors) under which pips are fitted to a layout.  The patch
#: is cut square to the die's edges as found, which a slanted view or a blurred outline can leave some 20
#: degrees off (a red die's 2 on wood: 19), so the pips may set their own grid, up to 21 degrees either way
#: (every 3, the patch's own first).  No farther: turned 45 degrees, two pips side by side (a 4 whose other
#: pips went unseen) lie as a 2 does, and the light gaps between a 5's dark pips as a 4.
_GRID_TURNS = np.stack([np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
                        for angle in sorted((math.radians(degrees) for degrees in range(-21, 22, 3)), key=abs)])


def _layout_fit(coords: Floats) -> float:
    """How well marks (about their centre, in half-patches) lie on a layout's 3x3 grid under the best of
    `_GRID_TURNS`: 1 on it, 0 off it by 0.3 of the grid's step or more, or not a layout of that many pips.
    All turns at once: one per call took as long as the rest of counting the pips."""
    turned = np.einsum("nk,tkj->tnj", coords, _GRID_TURNS)
    steps = np.abs(turned).max(axis=2)
    # The grid's step: the median step of the marks off the middle (sorted first, the others last).
    off = steps > 0.25
    off_middle = np.sort(np.where(off, steps, np.inf), axis=1)
    count = off.sum(axis=1)
    low, high = np.maximum(count - 1, 0) // 2, count // 2
    spacing = (np.take_along_axis(off_middle, low[:, None], 1) + np.take_along_axis(off_middle, high[:, None], 1))
    spacing = spacing[:, 0] / 2
    spacing[~((count > 0) & (spacing > 0.3) & (spacing < 0.85))] = np.nan
    scaled = turned / spacing[:, None, None]
    snapped = np.rint(scaled)
    fits = 1 - np.abs(scaled - snapped).max(axis=(1, 2)) / 0.3
    fits[~(np.abs(snapped).max(axis=(1, 2)) <= 1)] = 0.0  # off the grid, or no spacing (NaN)
    for turn in np.argsort(-fits, kind="stable"):
        if fits[turn] <= 0:
            break
        if frozenset(map(tuple, snapped[turn].astype(int).tolist())) in _LAYOUTS[len(coords)]:
            return float(fits[turn])
    return 0.0


def read_pips(patch: Image) -> Pips | None:
    """The number of pips on a face when they lie as a die's pips do, else None (not readable as pips)."""
    gray = luma(patch)
    body = float(np.median(gray))
    strength = {-1: body - float(np.percentile(gray, 2)), 1: float(np.percentile(gray, 98)) - body}
    # Pips are a face's strongest marks, all of one polarity: marks of the other polarity at less than half
    # their contrast are shade or specks (a shade on a red die with white pips is no pip).
    polarities = [polarity for polarity in (-1, 1) if strength[polarity] >= 0.5 * max(strength.values())]
    readings: list[Pips] = []
    most = 0
    for polarity, level in itertools.product(polarities, (0.45, 0.6, 0.75)):
        marks = _pip_candidates(gray, polarity, level)
        if not 1 <= len(marks) <= 6:
            continue
        areas = [area for _, _, area in marks]
        if max(areas) > 2.3 * min(areas):
            continue
        most = max(most, len(marks))
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
            coords = np.array([((x - cx) / half, (y - cy) / half) for x, y, _ in marks])
            fit = _layout_fit(coords)
            candidate = Pips(len(marks), fit) if fit > 0 else None
        if candidate is not None:
            readings.append(candidate)
    # Pips stand out at every level of their contrast; marks that lie as another count at another level (a
    # pip lost in blur: a 3 whose middle pip fades is a 2) make the count unsure.
    if len({reading.count for reading in readings if reading.fit >= PIP_FIT}) > 1:
        return None
    # Nor is a count below the marks seen at another level, where they lay as no layout (a face cut off its
    # middle, its far pips fainter: the near pair alone, turned, would lie as a 2).
    best = max(readings, key=lambda reading: reading.fit, default=None)
    return None if best is not None and best.count < most else best


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
    distance = np.linalg.norm(np.log(light + EPS) - np.log(mean + EPS), axis=1)
    marked = light[distance >= np.percentile(distance, 80)]
    body = light[distance <= np.percentile(distance, 50)]

    def describe(colour: Floats) -> list[float]:
        b, g, r = (float(v) + EPS for v in colour)
        total = b + g + r
        return [math.log(r / g), math.log(b / g), 0.5 * math.log(total)]

    colour = describe(body.mean(axis=0)) + describe(marked.mean(axis=0))
    gray = cv2.resize(luma(patch), (SHAPE, SHAPE), interpolation=cv2.INTER_AREA)
    gray = gray - gray.mean()
    spread = float(gray.std())
    shape = (gray / spread if spread > 6 else gray * 0).ravel()
    return Features(tuple(colour), tuple(float(v) for v in shape))


@functools.lru_cache(maxsize=128)  # four games' taught faces, 3 pictures each: under 80; 1.8 MB at most
def _turns(shape: tuple[float, ...]) -> Floats:
    """The shape under the four quarter turns and shifted by up to one cell each way (a face cut a little
    off its middle), as rows of the inner (SHAPE-2)^2 cells.  Kept for the taught faces, which every die of
    every roll is compared with (making them again was a third of a roll's reading); read-only, as shared."""
    grid = np.asarray(shape, np.float32).reshape(SHAPE, SHAPE)
    inner = SHAPE - 2
    turned = np.stack([np.rot90(grid, k)[dy:dy + inner, dx:dx + inner].ravel()
                       for k in range(4) for dy in range(3) for dx in range(3)])
    turned.flags.writeable = False
    return turned


def _colour_distance(a: Features, b: Features) -> float:
    """How unlike two faces are in colour: log chromaticity and brightness, weighted."""
    ca, cb = np.asarray(a.colour), np.asarray(b.colour)
    weights = np.array([1.0, 1.0, 0.35, 0.6, 0.6, 0.2])
    return float(np.sqrt(((ca - cb) ** 2 * weights).sum()))


def distances(a: Features, b: Features) -> tuple[float, float]:
    """How unlike two faces are in colour and in shape (under the best quarter turn and shift)."""
    inner = np.asarray(a.shape, np.float32).reshape(SHAPE, SHAPE)[1:-1, 1:-1].ravel()
    shape = float(np.sqrt(np.mean((_turns(b.shape) - inner) ** 2, axis=1)).min())
    return _colour_distance(a, b), 0.35 * shape


def colour_noise(examples: Sequence[tuple[str, Features]]) -> float:
    """The colour difference that the light and the camera alone make between pictures of one face: the
    spread (largest colour distance between two of its teaching pictures) of the steadiest taught face; 0
    with no face taught twice.  The steadiest, as other faces spread more where a picture was cut or lit
    worse: a profile's typical spread also hid colour differences that tell faces of similar shape apart
    (a Goldgräber 5 from a 6), and the widest one, from a badly cut picture, hid Digger's colours."""
    spreads: dict[str, float] = {}
    for (label, a), (other, b) in itertools.combinations(examples, 2):
        if label == other:
            spreads[label] = max(spreads.get(label, 0.0), _colour_distance(a, b))
    return min(spreads.values(), default=0.0)


@dataclass(frozen=True)
class Match:
    """The nearest taught face, its distance, the nearest other face's distance, and the part of both that
    every face shares (the colour distance of the face nearest in colour: where all faces have one colour,
    as a game's digits or pips on one die, it is the light's and the camera's noise, not a difference)."""

    face: str
    distance: float
    runner_up: float
    floor: float = 0.0
    #: The face of the runner-up distance (None: one face taught).
    second: str | None = None

    @property
    def margin(self) -> float:
        """Best over runner-up above the shared part: 0 is a clear decision, near 1 a toss-up."""
        if not math.isfinite(self.runner_up):
            return 0.0
        return (self.distance - self.floor) / max(self.runner_up - self.floor, 1e-6)


def nearest(face: Features, examples: Sequence[tuple[str, Features]], noise: float) -> Match | None:
    """The taught face nearest to `face` (by its nearest example) and the best other face's distance.
    Colour differences no larger than `noise` (colour_noise of the examples) count for nothing: where all
    faces share their colours (Chinagold's white tiles with a red numeral), a face's colour varies more
    between its own pictures than between faces, and it outvoted the shape that alone tells them apart."""
    best: dict[str, float] = {}
    colour_floor = math.inf
    for label, example in examples:
        colour, shape = distances(face, example)
        colour = max(0.0, colour - noise)
        colour_floor = min(colour_floor, colour)
        if colour + shape < best.get(label, math.inf):
            best[label] = colour + shape
    if not best:
        return None
    ranked = sorted(best.items(), key=lambda item: item[1])
    runner_up, second = (ranked[1][1], ranked[1][0]) if len(ranked) > 1 else (math.inf, None)
    return Match(ranked[0][0], ranked[0][1], runner_up, min(colour_floor, ranked[0][1]), second)
