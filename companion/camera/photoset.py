"""Photo sets as `tools/render_dice.py` writes them: one folder per session (a table: a game, a tray, a
camera, a light) with `empty.jpg`, `teach/labels.csv` and `rolls/` plus `truth.csv`.  The tests and
`benchmarks/bench_camera.py` read them through here, and make each session's profile as a family would:
calibrate on the empty tray, then teach from the labelled pictures."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.camera.profile import Profile
from companion.camera.reader import Reader, teach_side
from companion.camera.sources import read_image
from companion.camera.vision import VisionError, calibrate


@dataclass(frozen=True)
class Roll:
    """One rendered roll: its picture, the faces that lie on top (`?` for a cocked die) and its case
    (clean, touching, cocked, hand, missing)."""

    image: Path
    faces: tuple[str, ...]
    case: str


def sessions(root: Path) -> list[Path]:
    return sorted(folder for folder in root.iterdir() if (folder / "truth.csv").exists())


def game_of(session: Path) -> str:
    return session.name.rsplit("-", 1)[0]


def rolls(session: Path) -> list[Roll]:
    with (session / "truth.csv").open(newline="") as rows:
        return [Roll(session / row["image"], tuple(row["faces"].split()), row["case"]) for row in csv.DictReader(rows)]


def session_profile(session: Path, refused: Callable[[str, VisionError], None] | None = None) -> Profile:
    """The session's profile: its empty tray calibrated, its teaching pictures taught.  A teaching picture
    the reader refuses raises, or is passed to `refused` (its name and why) and left out."""
    made = Profile.from_calibration(game_of(session), calibrate(read_image(session / "empty.jpg")))
    labels = session / "teach" / "labels.csv"
    if not labels.exists():
        return made
    reader = Reader(made, walls=False)
    taught, sides = [], []
    with labels.open(newline="") as rows:
        for row in csv.DictReader(rows):
            try:
                item, side = reader.teach_picture(read_image(labels.parent / row["image"]), row["face"])
            except VisionError as error:
                if refused is None:
                    raise
                refused(row["image"], error)
                continue
            taught.append(item)
            sides.append(side)
    return made.with_taught(taught, teach_side(sides))
