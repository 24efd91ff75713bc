"""Reading a roll from a picture, teaching faces, and telling when the dice have come to rest.

`Reader.read(frame, dice)` gives a `Reading`: the faces read, a confidence per face, and the doubts that
make it `uncertain` (the table is asked then).  `dice` is what the game's prompt asks for (one tuple of
faces per die), so the reader knows how many dice to expect and which faces each may show; a reading is
never certain when the count differs, a face is one the rules do not allow, any die's own read is unsure,
or a die touches another die or the wall (it may be cocked there).  `RollWatcher` turns a stream of frames
into readings, one per roll, when the tray is still.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.camera.faces import PIP_FIT, Face, colour_noise, features, nearest, read_pips, top_face
from companion.camera.profile import Profile, TaughtFace, flat_pieces, needs_teaching
from companion.camera.vision import SPECK, Image, Scene, Spot, VisionError, find_dice, to_work
from companion.engine.core import N_

#: A taught match is taken only when it is this much nearer than the best other face...
MARGIN = 0.62
#: ... and no farther from its examples than this.
FARTHEST = 0.9
#: Below this confidence a die's face is asked about.
SURE = 0.5
#: A die whose outline comes this near the tray's walls (in die sides) may lean on a wall.  One leaning there
#: reaches the wall's foot; the margin allows for a die whose body the floor swallows (a dark die on black
#: felt, its pips alone found: 0.19 sides short of the foot) and for a foot placed a little off.
WALL = 0.25
#: Nothing in a picture at this size tells a die cocked on a neighbour or on the wall from one lying flat
#: against it (docs/performance.md, Camera), and only a neighbour or a wall can hold a die cocked: so a die
#: that touches either is always asked about, however clearly its face reads.
MAY_LEAN_ON_DIE = N_("dice touch, so one may lean on another")
MAY_LEAN_ON_WALL = N_("a die lies by the wall, so it may lean on it")
#: ... unless the camera sees the die from the tray's side: its top face lies towards each wall near it, within
#: its outline, by this share of a side (the camera sees more of the die's other sides, so it sees the wall's
#: inner face too), and its outline stops short of the wall's foot.  A die touching a wall seen so reaches
#: over the foot in the picture, its top being higher than the floor; a die cocked on a wall turns its top
#: away from it, and shows the side by the wall.  docs/performance.md, Camera: a flat die by the wall.
TOP_TOWARDS_WALL = 0.05


@dataclass(frozen=True)
class DieReading:
    """One die or tile: the face read (`?` when none could be), how sure, its picture, and why not sure."""

    face: str
    confidence: float
    patch: Image
    doubt: str | None = None


@dataclass(frozen=True)
class Reading:
    """A roll as the camera read it, in the order of the prompt's dice when the faces fit them."""

    dice: tuple[DieReading, ...]
    doubts: tuple[str, ...]
    expected: int

    @property
    def faces(self) -> tuple[str, ...]:
        return tuple(die.face for die in self.dice)

    @property
    def confidence(self) -> tuple[float, ...]:
        return tuple(round(die.confidence, 3) for die in self.dice)

    @property
    def uncertain(self) -> bool:
        return bool(self.doubts) or any(die.doubt is not None for die in self.dice)

    @property
    def only_may_lean(self) -> bool:
        """Whether it is asked about only because dice touch each other or the wall, their faces read clearly."""
        return self.uncertain and set(self.reasons) <= {MAY_LEAN_ON_DIE, MAY_LEAN_ON_WALL}

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*self.doubts, *(die.doubt for die in self.dice if die.doubt)]))

    def values(self) -> tuple[list[str], list[int]]:
        """What goes to the table: one value per die the prompt wants, `?` for a die to tap in, and the
        dice to confirm.  A die missing is `?`; with one too many, every die is `?` (enter by touch)."""
        faces = [die.face for die in self.dice]
        if len(faces) > self.expected:
            return ["?"] * self.expected, list(range(self.expected))
        faces += ["?"] * (self.expected - len(faces))
        doubtful = [index for index, die in enumerate(self.dice) if die.doubt is not None]
        if self.uncertain and not doubtful and "?" not in faces:
            doubtful = list(range(len(faces)))
        return faces, doubtful

    def as_json(self) -> dict[str, object]:
        return {"faces": list(self.faces), "confidence": list(self.confidence), "uncertain": self.uncertain,
                "reasons": list(self.reasons)}


def seen_from_the_tray(face: Face, spot: Spot) -> bool:
    """Whether a die by the wall stands clear of it: its outline stops short of the walls' foot, and its top
    face lies towards every wall near it by TOP_TOWARDS_WALL (the camera sees it from the tray's side)."""
    if spot.to_wall <= 0 or not len(spot.walls):
        return False
    towards = (np.array(face.centre) - (spot.x, spot.y)) @ spot.walls.T / spot.side
    return float(towards.min()) >= TOP_TOWARDS_WALL


def assign(faces: Sequence[str], dice: Sequence[Sequence[str]]) -> list[int] | None:
    """An order of the read faces that gives every die of the prompt a face it has (read left to right
    first), or None.  Dice of one kind accept any order; Chinagold's tiles each have their own two faces."""
    if len(faces) != len(dice):
        return None
    for order in itertools.permutations(range(len(faces))):
        if all(faces[index] in die for index, die in zip(order, dice)):
            return list(order)
    return None


class Reader:
    """Reads rolls with one profile."""

    def __init__(self, profile: Profile, *, walls: bool = True) -> None:
        """`walls`: find the tray's walls now (`find_walls`); a reader made on the screen's thread leaves
        that to the thread that reads, and one made only to teach has no use for them."""
        self.profile = profile
        self.calibration = profile.calibration()
        if walls:
            self.find_walls()
        self.examples = profile.examples()
        #: Colour differences this small are the light's and the camera's, not the faces' (faces.nearest).
        self.colour_noise = colour_noise(self.examples)
        self.pips_only = not needs_teaching(profile.game)
        #: Tiles, not dice: their face fills their outline (faces.top_face).
        self.flat = flat_pieces(profile.game)
        #: Taught faces whose pictures showed that many pips in a die's layout: only there must pips agree
        #: (a tile's numeral 2 is no pair of pips).
        self.pip_faces = {taught.face for taught in profile.usable if taught.pips is not None
                          and str(taught.pips) == taught.face}

    def find_walls(self) -> None:
        """Find where the tray's walls stand, and which way they are from each place (tens of milliseconds,
        once) before the first roll is read."""
        _ = self.calibration.toward_wall  # from `to_wall`, found with it

    def scene(self, frame: Image, expected: int) -> tuple[Image, Scene]:
        work = to_work(frame)
        return work, find_dice(work, self.calibration, self.profile.side, expected)

    def read_face(self, face: Face, gain: Sequence[float], allowed: Sequence[str]) -> DieReading:
        """One die's face: counted pips for pip dice, the nearest taught face otherwise (pips, where the
        face has them, must agree)."""
        pips = None
        if self.pips_only or self.pip_faces:  # (no taught face showed pips: counting them would tell nothing)
            pips = read_pips(face.patch)
            if (pips is None or pips.fit < PIP_FIT) and face.wide is not None:
                pips = read_pips(face.wide)  # the patch may have been cut a little off the face
        doubt = face.doubts[0] if face.doubts else None
        if self.pips_only:
            if pips is None or pips.fit < PIP_FIT:
                return DieReading("?", 0.0, face.patch, N_("the pips of a die cannot be counted"))
            return DieReading(str(pips.count), pips.fit, face.patch, doubt)
        match = nearest(features(face.patch, gain), self.examples, self.colour_noise)
        if match is None:
            return DieReading("?", 0.0, face.patch, N_("no faces are taught"))
        margin = match.margin
        confidence = max(0.0, min(1.0, (1 - margin) / (1 - MARGIN) * 0.5)) if margin < 1 else 0.0
        confidence = min(confidence, max(0.0, 1 - match.distance / (2 * FARTHEST)))
        if match.distance > FARTHEST:
            return DieReading("?", confidence, face.patch, N_("a face unlike any taught one"))
        told = str(pips.count) if pips is not None and pips.fit >= PIP_FIT else None
        if told is not None and pips is not None and told in self.pip_faces and told in allowed and (
                told == match.face or (margin > MARGIN and told == match.second)):
            # Two readings that agree: the counted pips in a die's layout and the taught look, or, where the
            # look cannot choose between two faces (a blurred die), the one of them the pips name.  Still
            # unsure when neither is sure (a face cut off its middle shows a pip or two of any count).
            sure = max(confidence, pips.fit) if told == match.face else pips.fit
            return DieReading(told, sure, face.patch, doubt if doubt else
                              (None if sure >= SURE else N_("not sure of this face")))
        counted = told is not None and match.face in self.pip_faces
        if margin > MARGIN:
            return DieReading(match.face, confidence, face.patch, N_("a face between two taught ones"))
        if counted:
            return DieReading(match.face, 0.0, face.patch, N_("its pips say otherwise"))
        if match.face not in allowed:
            return DieReading(match.face, confidence, face.patch, N_("a face the rules do not allow"))
        return DieReading(match.face, confidence, face.patch, doubt if doubt else
                          (None if confidence >= SURE else N_("not sure of this face")))

    def read_die(self, work: Image, scene: Scene, spot: Spot, allowed: Sequence[str]) -> DieReading:
        """One die's face, asked about when it touches another die or the wall, which it may lean on."""
        face = top_face(work, scene.foreground, spot, self.flat)
        reading = self.read_face(face, scene.gain, allowed)
        if reading.doubt is not None:
            return reading
        if not spot.alone:
            return replace(reading, doubt=MAY_LEAN_ON_DIE)
        if spot.to_wall < WALL and not seen_from_the_tray(face, spot):
            return replace(reading, doubt=MAY_LEAN_ON_WALL)
        return reading

    def read(self, frame: Image, dice: Sequence[Sequence[str]]) -> Reading:
        """The roll in `frame`; `dice` is what the prompt asks for (one tuple of faces per die)."""
        work, scene = self.scene(frame, len(dice))
        allowed = sorted({face for die in dice for face in die})
        readings = [self.read_die(work, scene, spot, allowed) for spot in scene.spots]
        doubts = list(scene.doubts)
        if len(readings) < len(dice):
            doubts.append(N_("a die is missing") if len(dice) - len(readings) == 1 else N_("dice are missing"))
        elif len(readings) > len(dice):
            extra = len(readings) - len(dice)
            doubts.append(N_("there is one die too many") if extra == 1 else N_("there are dice too many"))
        elif all(reading.face != "?" for reading in readings):
            order = assign([reading.face for reading in readings], dice)
            if order is None:
                doubts.append(N_("a face the rules do not allow"))
            else:
                readings = [readings[index] for index in order]
        return Reading(tuple(readings), tuple(dict.fromkeys(doubts)), len(dice))

    def teach_picture(self, frame: Image, face: str) -> tuple[TaughtFace, float]:
        """Features of a picture with one die showing `face`, and the die's side in pixels.  VisionError
        when the picture does not show exactly one die."""
        work = to_work(frame)
        scene = find_dice(work, self.calibration, None, 1, walls=False)
        doubts = [doubt for doubt in scene.doubts if doubt != SPECK]
        if len(scene.spots) != 1 or doubts:
            found = "no die" if not scene.spots else f"{len(scene.spots)} dice"
            extra = f" ({'; '.join(doubts)})" if doubts else ""
            raise VisionError(f"shows {found}{extra}; teaching needs one die (or tile) alone in the tray")
        spot = scene.spots[0]
        face_patch = top_face(work, scene.foreground, spot, self.flat)
        taught = features(face_patch.patch, scene.gain)
        pips = read_pips(face_patch.patch)
        return TaughtFace(face=face, colour=taught.colour, shape=taught.shape,
                          pips=None if pips is None or pips.fit < PIP_FIT else pips.count), spot.side


def teach_side(sides: Sequence[float]) -> float | None:
    return float(np.median(sides)) if sides else None


def tray_motion(previous: Image, current: Image) -> float:
    """The share of the picture that changed between two frames (small gray frames), beyond sensor noise."""
    difference = cv2.absdiff(previous, current)
    return float(np.count_nonzero(difference > 18)) / difference.size


class RollWatcher:
    """Frames in, rolls out: a roll is read once the tray has been still for `still` frames after a change
    (dice thrown, a die turned by hand), never twice for the same rest.  It is read twice, from two frames
    in a row, and a reading that differs between them is unsure (a face that flickers with the sensor's
    noise is no face to play without asking)."""

    def __init__(self, reader: Reader, still: int = 3, moving: float = 0.002) -> None:
        self.reader = reader
        self.still = still
        self.moving = moving
        self._previous: Image | None = None
        self._quiet = 0
        self._rest_frame: Image | None = None
        self._first: Reading | None = None
        self.in_motion = False

    def _small(self, frame: Image) -> Image:
        work = to_work(frame)
        gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        return np.asarray(cv2.resize(gray, (gray.shape[1] // 4, gray.shape[0] // 4), interpolation=cv2.INTER_AREA))

    def feed(self, frame: Image, dice: Sequence[Sequence[str]]) -> tuple[str, Reading | None]:
        """`("moving", None)` when motion starts, `("rest", reading)` when a roll comes to rest, else
        `("", None)`.  An empty tray at rest gives no reading."""
        small = self._small(frame)
        previous, self._previous = self._previous, small
        if previous is None or previous.shape != small.shape:
            self._rest_frame = small
            return "", None
        if tray_motion(previous, small) > self.moving:
            self._quiet, self._first = 0, None
            if not self.in_motion:
                self.in_motion = True
                return "moving", None
            return "", None
        self._quiet += 1
        if self._quiet < self.still:
            return "", None
        if self._first is None and not self.in_motion and \
                (self._rest_frame is None or tray_motion(self._rest_frame, small) <= self.moving):
            return "", None  # the rest already read
        try:
            reading = self.reader.read(frame, dice)
        except VisionError:
            return "", None
        first, self._first = self._first, None
        if first is None:
            self._first = reading  # read again from the next frame before it counts
            return "", None
        self.in_motion = False
        self._rest_frame = small
        if not reading.dice:
            return "", None  # the dice were taken out (or only a hand is there): no roll
        if first.faces != reading.faces:
            reading = Reading(reading.dice, (*reading.doubts, N_("the reading changed from one picture to the next")),
                              reading.expected)
        return "rest", reading


__all__ = ["DieReading", "Reader", "Reading", "RollWatcher", "assign", "teach_side"]
