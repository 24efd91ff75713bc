"""Shared by the camera tests: the committed sample photo set (tools/render_dice.py) and profiles made
from it the way a family would make them (calibrate on the empty tray, teach from the labelled pictures)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from companion.camera.profile import Profile
from companion.camera.reader import Reader, teach_side
from companion.camera.sources import read_image
from companion.camera.vision import calibrate

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "camera" / "sample"


@dataclass(frozen=True)
class Roll:
    image: Path
    faces: tuple[str, ...]
    case: str


def sessions() -> list[Path]:
    return sorted(folder for folder in SAMPLE.iterdir() if (folder / "truth.csv").exists())


def game_of(session: Path) -> str:
    return session.name.rsplit("-", 1)[0]


def rolls(session: Path) -> list[Roll]:
    with (session / "truth.csv").open(newline="") as rows:
        return [Roll(session / row["image"], tuple(row["faces"].split()), row["case"]) for row in csv.DictReader(rows)]


@cache
def profile(session: Path) -> Profile:
    """The session's profile: its empty tray calibrated, its teaching pictures taught."""
    made = Profile.from_calibration(game_of(session), calibrate(read_image(session / "empty.jpg")))
    labels = session / "teach" / "labels.csv"
    if not labels.exists():
        return made
    reader = Reader(made)
    taught, sides = [], []
    with labels.open(newline="") as rows:
        for row in csv.DictReader(rows):
            item, side = reader.teach_picture(read_image(labels.parent / row["image"]), row["face"])
            taught.append(item)
            sides.append(side)
    return made.with_taught(taught, teach_side(sides))
