"""What the app remembers between runs: language, sound, hardware choices, the last players.

One small JSON file next to the journal.  It is written atomically (temp file, then rename), and an
unreadable file falls back to defaults rather than stopping the app at the table.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from companion.engine.journal import default_path

SEAT_COLOURS: tuple[str, ...] = ("#d64541", "#3a7bd5", "#2e9e5b", "#e3b505", "#8e44ad", "#e67e22")


class RememberedPlayer(BaseModel):
    """A name and seat colour from an earlier game."""

    name: str = Field(min_length=1, max_length=24)
    colour: str


class AppSettings(BaseModel):
    """Everything the Settings and Players screens change."""

    language: Literal["system", "en", "de", "fr"] = "system"
    sound: bool = True
    fullscreen: bool = False
    gpio: bool = True
    serial_url: str = ""
    players: list[RememberedPlayer] = Field(default_factory=list)
    last_game: str = "digger"


def settings_path() -> Path:
    """`app-settings.json` beside the journal (so GOLDTABLE_DATA moves both)."""
    return default_path().parent / "app-settings.json"


def load_settings(path: Path | None = None) -> AppSettings:
    """The saved settings, or the defaults when there are none or they cannot be read."""
    path = path or settings_path()
    try:
        return AppSettings.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, ValidationError):
        return AppSettings()


def save_settings(settings: AppSettings, path: Path | None = None) -> None:
    """Write atomically so a power cut leaves either the old or the new file."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(settings.model_dump_json(indent=2), encoding="utf-8")
    os.replace(temporary, path)
