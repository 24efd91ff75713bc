"""Where Goldtable keeps its files: the one rule for the journal's folder.

Light on purpose (no pydantic, no sqlite): the app asks for this folder before its first frame, to put
Kivy's log there.
"""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """`$GOLDTABLE_DATA`, else `$XDG_DATA_HOME` (or ~/.local/share)/goldtable: the journal, the app's
    settings and Kivy's folder live here."""
    base = os.environ.get("GOLDTABLE_DATA")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "goldtable"


def sync_folder(folder: Path) -> None:
    """Flush a folder's entries to the medium (a file made or renamed there survives a cut or a pulled stick)."""
    _sync(folder)


def sync_to_disk(path: Path) -> None:
    """Flush a file just written, and its folder's entry, to the medium: OSError when it cannot be."""
    _sync(path)
    _sync(path.parent)


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
