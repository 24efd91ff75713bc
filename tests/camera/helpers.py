"""Shared by the camera tests: the committed sample photo set (tools/render_dice.py), read through
companion.camera.photoset, with each session's profile made once."""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from companion.camera import photoset
from companion.camera.photoset import Roll, game_of, rolls
from companion.camera.profile import Profile

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "camera" / "sample"
#: One session of a development set (seed 43) with a die leaning on the tray's wall and a flat die by it.
LEANING = SAMPLE.parent / "leaning" / "goldgraeber-001"
#: Faces as the reader cut them out of rendered rolls of development sets (PATCH pixels square).
FACES = SAMPLE.parent / "faces"
#: Chinagold tiles (dark, with light dots) cut out of rendered rolls of a development set (seed 89), each with
#: the empty tray cut at the same place, and the faces taught in that session.
TILES = SAMPLE.parent / "tiles"

__all__ = ["FACES", "LEANING", "SAMPLE", "TILES", "Roll", "game_of", "profile", "profile_reads", "rolls", "sessions"]


def sessions() -> list[Path]:
    return photoset.sessions(SAMPLE)


@cache
def profile(session: Path) -> Profile:
    """The session's profile: its empty tray calibrated, its teaching pictures taught."""
    return photoset.session_profile(session)


def profile_reads(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Path, threading.Thread]]:
    """Every profile file parsed from now on, and the thread that parsed it, in order."""
    import companion.camera.profile as profiles

    parsed: list[tuple[Path, threading.Thread]] = []
    read = profiles.read_json_file

    def counted(path: Any) -> Any:
        parsed.append((Path(path), threading.current_thread()))
        return read(path)

    monkeypatch.setattr(profiles, "read_json_file", counted)
    return parsed
