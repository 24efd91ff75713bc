"""Which board and card files a game is played on, and the check that they are still the same.

Board geometry and card values are editable files (`layouts/`), read again whenever a game is replayed
or resumed.  A session therefore records each file's name and the sha256 of its bytes in the setup, and
replaying or resuming refuses, naming the file, once its content differs: an owner's later correction
of the board must never silently change a game already played on the old one.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from companion.engine.core import BoardFile, Game, Setup
from companion.engine.errors import UserError


def board_name(path: Path) -> str:
    """A shipped file by its place in the layouts folder (`chinagold/default.json`), any other by its path."""
    from companion.layout import LAYOUTS_DIR

    try:
        return path.resolve().relative_to(LAYOUTS_DIR.resolve()).as_posix()
    except ValueError:
        return str(path)


def board_path(name: str) -> Path:
    """Where a recorded name points today (the inverse of `board_name`)."""
    from companion.layout import LAYOUTS_DIR

    path = Path(name)
    return path if path.is_absolute() or not (LAYOUTS_DIR / path).exists() else LAYOUTS_DIR / path


def file_sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as error:
        raise UserError(f"{path}: cannot read: {error.strerror or error}") from None


def current_boards(game: Game, setup: Setup) -> tuple[BoardFile, ...]:  # type: ignore[type-arg]
    """The files `setup` would be played on now, with the hash of their present content."""
    return tuple(BoardFile(name=board_name(path), sha256=file_sha256(path)) for path in game.board_files(setup))


def check_boards(game: Game, setup: Setup, source: str) -> None:  # type: ignore[type-arg]
    """Refuse (UserError naming the file) when a recorded board file is gone or has another content now.

    A setup without `boards` was written before they were recorded (or by hand) and is taken as it is.
    """
    if not setup.boards:
        return
    now = {board.name: board.sha256 for board in current_boards(game, setup)}
    for board in setup.boards:
        path = board_path(board.name)
        if board.name not in now:
            raise UserError(f"{source}: boards: this game was played on {path}, which its setup no longer names")
        if now[board.name] != board.sha256:
            raise UserError(f"{source}: boards: {path} has changed since this game was played (sha256 "
                            f"{board.sha256[:12]}… then, {now[board.name][:12]}… now); put the file back as "
                            f"it was to replay this game")
