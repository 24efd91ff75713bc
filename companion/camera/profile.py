"""A camera profile: one game's tray as calibration saw it, and the faces taught to it.

A profile is one JSON file (`goldtable-camera/1`), small enough to mail with a misread: the empty tray at
half the working size (a 16-bit PNG of linear light), where the tray's floor is (a 1-bit PNG), the light
and focus calibration measured, the die's size in pixels once teaching has seen one, and per taught
picture its features and where the die lay (not the picture).  Profiles live in the data folder's `camera/`
(one per game for the app), and `export`/`import` are plain copies: nothing in a profile depends on where it lies.

Which faces a game's dice have comes from the game's declaration (`GamePlugin.dice`), not from a list
here; a game whose faces are all pip counts 1-6 is read without teaching.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from companion.camera.faces import Features
from companion.camera.vision import Calibration
from companion.engine.errors import UserError, read_json_file
from companion.engine.paths import data_dir, write_durably

FORMAT = "goldtable-camera/1"
#: How taught faces' features are made (`faces.py`), for dice and for tiles (`flat_pieces`).  Raised
#: whenever a change there would read faces taught before it differently, so that a profile taught the old
#: way is taught again instead of misread; profiles without the field were taught as 1.  Tiles 2 (28 Nov
#: 2026): a tile's face is cut out whole.
FEATURES = {"dice": 1, "tiles": 2}
#: Teaching pictures kept per face: enough to read a face under other light, few enough to show quickly.
SHOWS_PER_FACE = 3
PIP_FACES = frozenset("123456")
#: A profile larger than this is not one of ours (the tray picture is at most a few hundred kB).
MAX_PROFILE_BYTES = 8 * 1024 * 1024
#: The app's profiles as last read or saved, by file, with the file's stamp then (`known_profile`); for a file
#: that was refused, the refusal and the game it was asked for.
_KNOWN: dict[str, tuple[tuple[int, int, int], Profile | UserError, str | None]] = {}
_KNOWN_LOCK = threading.Lock()


def game_dice(game_id: str) -> tuple[tuple[str, ...], ...]:
    """The dice of a game's full roll as its plugin declares them (one tuple of face tokens per die).  A
    game that is not installed is a UserError."""
    from companion.engine.registry import GameUnavailable, plugin_for

    try:
        return plugin_for(game_id).dice
    except GameUnavailable:
        raise UserError(f"--game: no game {game_id!r}") from None


def game_faces(game_id: str) -> tuple[str, ...]:
    """Every face a die or tile of the game can show, in the order the prompt lists them."""
    return tuple(dict.fromkeys(face for die in game_dice(game_id) for face in die))


def flat_pieces(game_id: str) -> bool:
    """Whether the game throws tiles (pieces of two faces, as Chinagold's): a piece with only a top and a
    bottom is flat, so no sides show around its top face."""
    return all(len(die) == 2 for die in game_dice(game_id))


def features_version(game_id: str) -> int:
    """The `FEATURES` version that faces of this game's pieces are taught with now."""
    return FEATURES["tiles" if flat_pieces(game_id) else "dice"]


def needs_teaching(game_id: str) -> bool:
    """Pip dice (faces 1-6 only) are read by counting; every other face is learned by showing it."""
    return not set(game_faces(game_id)) <= PIP_FACES


class TaughtFace(BaseModel):
    """One teaching picture's face and features."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    face: str = Field(min_length=1, max_length=1)
    colour: tuple[float, ...] = Field(min_length=6, max_length=6)
    shape: tuple[float, ...] = Field(min_length=1, max_length=400)
    #: The pips this picture showed in a die's layout (None: none, or not in a layout).
    pips: int | None = Field(default=None, ge=1, le=6)
    image: str = Field(default="", max_length=300)

    @model_validator(mode="before")
    @classmethod
    def _unused_place(cls, data: Any) -> Any:
        """Profiles taught in November 2026 kept where each die lay ("seen"), for a lean check since
        replaced; they still load."""
        if isinstance(data, dict) and "seen" in data:
            return {key: value for key, value in data.items() if key != "seen"}
        return data

    @property
    def features(self) -> Features:
        return Features(self.colour, self.shape)


def _png(array: np.ndarray) -> str:
    ok, data = cv2.imencode(".png", array)
    if not ok:
        raise ValueError("could not encode a PNG")
    return base64.b64encode(data.tobytes()).decode("ascii")


def _unpng(text: str, flags: int) -> np.ndarray:
    array = cv2.imdecode(np.frombuffer(base64.b64decode(text, validate=True), np.uint8), flags)
    if array is None:
        raise ValueError("not a PNG")
    return array


class Profile(BaseModel):
    """A game's camera profile (see the module's docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    format: Literal["goldtable-camera/1"] = "goldtable-camera/1"
    game: str
    width: int = Field(gt=0, le=8192)
    height: int = Field(gt=0, le=8192)
    background: str
    tray: str
    brightness: float
    noise: float
    blur: float | None
    #: A die's (or tile's) side in working pixels, once teaching has seen one.
    side: float | None = Field(default=None, gt=0)
    taught: tuple[TaughtFace, ...] = ()
    #: The camera calibrated with (a source URL), when calibration read one rather than a file.
    source: str | None = None
    #: The `FEATURES` version its faces were taught with.
    features: int = Field(default=1, ge=1)

    @classmethod
    def from_calibration(cls, game: str, calibration: Calibration, source: str | None = None) -> Profile:
        background = np.clip(calibration.background * 65535, 0, 65535).astype(np.uint16)
        width, height = calibration.size
        return cls(game=game, width=width, height=height, background=_png(background),
                   tray=_png(calibration.tray.astype(np.uint8) * 255), brightness=calibration.brightness,
                   noise=calibration.noise, blur=calibration.blur, source=source,
                   features=features_version(game))

    @property
    def stale(self) -> bool:
        """Its faces were taught by another version of the reader (older, or newer on a profile brought
        from another Goldtable): they are shown again before the camera reads, never matched as they are."""
        return bool(self.taught) and self.features != features_version(self.game)

    @property
    def usable(self) -> tuple[TaughtFace, ...]:
        """The taught pictures the reader may match faces against: none while the profile is stale."""
        return () if self.stale else self.taught

    def calibration(self) -> Calibration:
        """The calibration kept in the profile (ValueError when its pictures are damaged)."""
        background = _unpng(self.background, cv2.IMREAD_UNCHANGED)
        tray = _unpng(self.tray, cv2.IMREAD_GRAYSCALE)
        shape = (self.height // 2, self.width // 2)
        if background.shape != (*shape, 3) or background.dtype != np.uint16 or tray.shape != shape:
            raise ValueError("its tray pictures do not have the profile's size")
        return Calibration(background=(background / 65535).astype(np.float32), tray=tray > 0,
                           brightness=self.brightness, noise=self.noise, blur=self.blur)

    def examples(self) -> list[tuple[str, Features]]:
        return [(taught.face, taught.features) for taught in self.usable]

    def untaught(self) -> tuple[str, ...]:
        """The game's faces that still need teaching (none for pip dice)."""
        if not needs_teaching(self.game):
            return ()
        seen = {taught.face for taught in self.usable}
        return tuple(face for face in game_faces(self.game) if face not in seen)

    def with_taught(self, taught: Iterable[TaughtFace], side: float | None) -> Profile:
        """The profile with these pictures in place of earlier ones of the same faces (the newest
        SHOWS_PER_FACE of each face are kept); a stale profile's earlier pictures are all dropped."""
        new = list(taught)
        faces = {item.face for item in new}
        kept = [item for item in self.usable if item.face not in faces]
        for face in faces:
            kept += [item for item in new if item.face == face][-SHOWS_PER_FACE:]
        return self.model_copy(update={"taught": tuple(kept), "side": side if side is not None else self.side,
                                       "features": features_version(self.game)})


def load_profile(path: str | Path, game: str | None = None) -> Profile:
    """A profile from its file; anything else (not a profile, damaged, another game's) is a UserError."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_PROFILE_BYTES:
            raise UserError(f"{path}: too large to be a Goldtable camera profile")
    except OSError as error:
        raise UserError(f"{path}: cannot read: {error.strerror or error}") from None
    data = read_json_file(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UserError(f"{path}: not a Goldtable camera profile (made by `goldtable camera calibrate`)")
    try:
        profile = Profile.model_validate(data)
        game_dice(profile.game)
        profile.calibration()
    except (ValidationError, ValueError) as error:
        raise UserError(f"{path}: a damaged camera profile ({_first_problem(error)})") from None
    except UserError:
        raise UserError(f"{path}: a camera profile for an unknown game {profile.game!r}") from None
    if game is not None and profile.game != game:
        raise UserError(f"{path}: a camera profile for {profile.game}, not {game}")
    return profile


def _first_problem(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        return f"{'.'.join(str(part) for part in first['loc'])}: {first['msg']}"
    return str(error)


def save_profile(profile: Profile, path: str | Path, *, replace: bool) -> None:
    """Write a profile whole or not at all (a temporary file renamed over the target), and on the medium
    before returning: the app says "saved" after this, and a Pi may lose power a moment later.
    `replace=False` refuses an existing file, so calibrating never overwrites a profile without being asked."""
    path = Path(path)
    if not replace and (path.exists() or path.is_symlink()):
        raise UserError(f"{path}: already exists; choose another name (teaching updates an existing profile)")
    try:
        write_durably(path, profile.model_dump_json(indent=1) + "\n", replace=replace)
        _remember(path, profile, _stamp(path))
    except FileExistsError:  # made meanwhile by someone else
        raise UserError(f"{path}: already exists; choose another name") from None
    except OSError as error:
        raise UserError(f"{path}: cannot write: {error.strerror or error}") from None


def known_profile(path: str | Path, game: str | None = None) -> Profile:
    """`load_profile`, read again only when the file changed since it was last read or saved here (a damaged
    file is refused again without reading it again).  After a picture is taught the app asks for the profile
    from several places on the screen's thread, and a Pi takes tens of milliseconds to parse one; the save on
    the worker's thread leaves it known."""
    path = Path(path)
    stamp = _stamp(path)  # before reading: a file changed meanwhile is read again next time
    known = _known(path, stamp, game)
    if isinstance(known, UserError):
        raise UserError(str(known))  # (a new one: raising the kept one again would pile up its tracebacks)
    if known is not None:
        return known
    try:
        profile = load_profile(path, game)
    except UserError as error:
        _remember(path, error, stamp, game)
        raise
    _remember(path, profile, stamp, game)
    return profile


def holds_taught_faces(path: str | Path, game: str) -> bool:
    """Whether replacing the file would lose faces a family taught, so the app asks first.  A missing file,
    or one that cannot be read (damaged, another game's), holds nothing that could be used: replaced
    without asking."""
    path = Path(path)
    try:
        return path.exists() and bool(known_profile(path, game).usable)
    except UserError:
        return False


def is_known(path: str | Path, game: str | None = None) -> bool:
    """Whether `known_profile` would answer without reading the file: the screen's thread asks before it
    asks for the profile, and has a worker read it when not."""
    path = Path(path)
    return _known(path, _stamp(path), game) is not None


def _known(path: Path, stamp: tuple[int, int, int] | None, game: str | None) -> Profile | UserError | None:
    """What was last read or saved for the file as it stands, if that answers for `game`."""
    with _KNOWN_LOCK:
        known = _KNOWN.get(str(path))
    if stamp is None or known is None or known[0] != stamp:
        return None
    _stamp_then, kept, asked = known
    if isinstance(kept, UserError):
        return kept if asked == game else None
    return kept if game is None or kept.game == game else None


def _stamp(path: Path) -> tuple[int, int, int] | None:
    """What changes whenever a file is written (a saved profile is a new file renamed over the old); None
    for no file."""
    try:
        status = path.stat()
    except OSError:
        return None
    return (status.st_mtime_ns, status.st_size, status.st_ino)


def _remember(path: Path, kept: Profile | UserError, stamp: tuple[int, int, int] | None,
              game: str | None = None) -> None:
    if stamp is not None:
        with _KNOWN_LOCK:
            _KNOWN[str(path)] = (stamp, kept, game)


def profile_path(game: str) -> Path:
    """Where the app keeps a game's profile: the data folder's `camera/<game>.json`."""
    return data_dir() / "camera" / f"{game}.json"
