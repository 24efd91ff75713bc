"""Where Goldtable keeps its files: the one rule for the journal's folder.

Light on purpose (no pydantic, no sqlite): the app asks for this folder before its first frame, to put
Kivy's log there.
"""

from __future__ import annotations

import os
import tempfile
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


def write_durably(path: Path, text: str, *, replace: bool = True) -> None:
    """Write `path` whole or not at all, and on the medium before returning: a temporary file beside it,
    flushed, renamed over it, then the folder flushed.  A power cut at any moment leaves the old file or
    the new one, never a torn one or none (a rename still in the page cache can otherwise undo itself).
    `replace=False` raises FileExistsError rather than write over a file already there.  OSError when it
    cannot be written; the temporary file is then gone."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        if not replace and (path.exists() or path.is_symlink()):
            raise FileExistsError(f"{path}: already exists")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_folder(folder)


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
