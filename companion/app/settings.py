"""What the app remembers between runs: language, sound, hardware choices, the last players.

One small JSON file next to the journal.  It is written durably (on the card before it counts; by the
app's saver thread, `saving`), and an unreadable file or value falls back to the default rather than
stopping the app at the table.  Plain dataclasses (no pydantic, no engine import) because the settings are
read before the first frame.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from companion.app.saving import saver
from companion.engine.paths import data_dir, write_durably

SEAT_COLOURS: tuple[str, ...] = ("#d64541", "#3a7bd5", "#2e9e5b", "#e3b505", "#8e44ad", "#e67e22")
LANGUAGE_CHOICES: tuple[str, ...] = ("system", "en", "de", "fr")
#: The game Home offers on a first start (and when the remembered one is no longer installed).
DEFAULT_GAME = "digger"


@dataclass(frozen=True)
class RememberedPlayer:
    """A name and seat colour from an earlier game."""

    name: str
    colour: str


@dataclass(frozen=True)
class AppSettings:
    """Everything the Settings and Players screens change."""

    language: str = "system"
    sound: bool = True
    fullscreen: bool = False
    gpio: bool = True
    serial_url: str = ""
    #: The camera over the dice tray (picamera:0, v4l2:0, ...); empty: no camera.
    camera_url: str = ""
    players: tuple[RememberedPlayer, ...] = field(default_factory=tuple)
    last_game: str = DEFAULT_GAME

    def model_copy(self, update: dict[str, Any]) -> AppSettings:
        """A copy with some fields changed (same name as pydantic's, which the rest of the code uses)."""
        return replace(self, **update)

    @classmethod
    def from_json(cls, raw: Any) -> AppSettings:
        """Settings from parsed JSON; each wrong or missing value takes its default."""
        default = cls()
        if not isinstance(raw, dict):
            return default
        values: dict[str, Any] = {}
        for name in ("sound", "fullscreen", "gpio"):
            values[name] = raw[name] if isinstance(raw.get(name), bool) else getattr(default, name)
        values["language"] = raw.get("language") if raw.get("language") in LANGUAGE_CHOICES else "system"
        values["serial_url"] = raw["serial_url"] if isinstance(raw.get("serial_url"), str) else ""
        values["camera_url"] = raw["camera_url"] if isinstance(raw.get("camera_url"), str) else ""
        values["last_game"] = raw["last_game"] if isinstance(raw.get("last_game"), str) else DEFAULT_GAME
        listed = raw.get("players")
        players = listed if isinstance(listed, list) else []
        values["players"] = tuple(
            RememberedPlayer(name=entry["name"][:24], colour=entry["colour"]) for entry in players
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"].strip()
            and isinstance(entry.get("colour"), str))
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2, ensure_ascii=False)


def settings_path() -> Path:
    """`app-settings.json` beside the journal (so GOLDTABLE_DATA moves both)."""
    return data_dir() / "app-settings.json"


def load_settings(path: Path | None = None) -> AppSettings:
    """The saved settings, or the defaults when there are none or they cannot be read."""
    path = path or settings_path()
    try:
        return AppSettings.from_json(json.loads(saver.read(path)))
    except (OSError, ValueError):
        return AppSettings()


def save_settings(settings: AppSettings, path: Path | None = None) -> None:
    """Write now, whole and on the medium (commands; the app saves through `saver`, off its UI thread)."""
    write_durably(path or settings_path(), settings.to_json())
