"""Where Goldtable keeps its files: the one rule for the journal's folder.

Light on purpose (no pydantic, no sqlite): the app asks for this folder before its first frame, to put
Kivy's log there.
"""

from __future__ import annotations

import contextlib
import errno
import getpass
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


USB_ENV = "GOLDTABLE_USB"  # a folder to use as "the USB stick" (tests, or a stick mounted elsewhere)


def usb_folders() -> list[Path]:
    """Mounted USB sticks: /media/$USER/* and /run/media/$USER/* (and /media/* where the system mounts
    there), or the folder named by $GOLDTABLE_USB."""
    override = os.environ.get(USB_ENV)
    if override:
        return [Path(override)] if Path(override).is_dir() else []
    user = os.environ.get("USER") or getpass.getuser()
    found: list[Path] = []
    for root in (Path("/media") / user, Path("/run/media") / user, Path("/media")):
        try:
            children = sorted(root.iterdir())
        except OSError:
            continue
        found += [child for child in children if child.is_dir() and os.path.ismount(child) and child not in found]
    return found


def local_exports() -> Path:
    """Where exports go when no USB stick is in: the `exports` folder beside the journal."""
    return data_dir() / "exports"


def export_folder() -> tuple[Path, bool]:
    """Where exports go: the first USB stick (True), else `local_exports()`."""
    sticks = usb_folders()
    if sticks:
        return sticks[0] / "goldtable", True
    return local_exports(), False


def sync_folder(folder: Path) -> None:
    """Flush a folder's entries to the medium (a file made or renamed there survives a cut or a pulled stick)."""
    _sync(folder)


def sync_to_disk(path: Path) -> None:
    """Flush a file just written, and its folder's entry, to the medium: OSError when it cannot be."""
    _sync(path)
    _sync(path.parent)


def write_durably(path: Path, content: str | bytes, *, replace: bool = True, make_folder: bool = True) -> None:
    """Write `path` whole or not at all, and on the medium before returning: a temporary file beside it,
    flushed, renamed over it, then the folder flushed.  A power cut at any moment leaves the old file or
    the new one, never a torn one or none (a rename still in the page cache can otherwise undo itself),
    and a full or failing disk leaves nothing that looks like the file.  `replace=False` raises
    FileExistsError rather than write over a file already there; `make_folder=False` FileNotFoundError
    rather than make a missing folder.  OSError when it cannot be written; the temporary file is then gone."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    folder = path.parent
    if make_folder:
        folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            _give_usual_mode(out.fileno())
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if replace:
            os.replace(temporary, path)
        else:
            _rename_without_replacing(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    sync_folder(folder)


def _rename_without_replacing(temporary: str, path: Path) -> None:
    """Give `temporary` the name `path` only if no file has it, in one step where the file system allows:
    a look first and a rename after would write over a file made in between.  The kernel's
    `renameat2(RENAME_NOREPLACE)` does it on ext4 and on FAT and exFAT sticks; a hard link where a file
    system lacks that; the look and the rename only where it has neither (a FUSE stick may)."""
    if _renameat2_no_replace(temporary, path):
        return
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise
    except OSError:  # no hard links here
        if path.exists() or path.is_symlink():
            raise FileExistsError(errno.EEXIST, "already exists", str(path)) from None
        os.replace(temporary, path)
    else:
        os.unlink(temporary)


def _renameat2_no_replace(temporary: str, path: Path) -> bool:
    """The kernel's no-replace rename: True when done, False when this system or file system has none
    (FileExistsError when the name is taken, OSError for any other failure)."""
    import ctypes  # only here: the app asks this module for its folders before its first frame

    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:  # a C library older than glibc 2.28
        return False
    at_cwd, no_replace = -100, 1  # AT_FDCWD, RENAME_NOREPLACE
    if renameat2(at_cwd, os.fsencode(temporary), at_cwd, os.fsencode(path), no_replace) == 0:
        return True
    number = ctypes.get_errno()
    if number in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(number, os.strerror(number), str(path))


def _give_usual_mode(handle: int) -> None:
    """The mode `open` gives a new file (0666 less the umask), which `mkstemp`'s owner-only 0600 is not: an
    exported record or picture is for others to read too.  The umask is read, not set and set back, as
    setting it would change it meanwhile for the app's other threads."""
    mode = 0o644
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                mode = 0o666 & ~int(line.split()[1], 8)
    with contextlib.suppress(OSError):  # a file system without Unix modes (a FAT stick) may refuse
        os.fchmod(handle, mode)


def _sync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
