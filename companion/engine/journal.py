"""Crash-safe journal: every accepted action is on disk before the table hears "OK".

One SQLite file (stdlib sqlite3, WAL, synchronous=FULL).  Rows are only ever added: an undo is a row
of its own, so the whole history of a game survives and a killed process or a power cut resumes with
exactly the actions that were acknowledged.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Literal

from companion.engine.core import Setup, Value
from companion.engine.record import GameRecord, RecordedAction, Source, now_utc

SCHEMA_VERSION = 2  # 2 added entries.ref (the hardware frame an action came in)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    created TEXT NOT NULL,
    finished TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    at TEXT NOT NULL,
    source TEXT NOT NULL,
    action TEXT,
    ref TEXT,
    PRIMARY KEY (game_id, n)
);
"""


class JournalError(Exception):
    """The journal could not write; the action was not acknowledged and nothing changed."""


class GameSummary(Value):
    """One line of `goldtable games`."""

    id: int
    game: str
    players: tuple[str, ...]
    created: datetime
    updated: datetime
    actions: int
    finished: bool


def default_path() -> Path:
    """`$GOLDTABLE_DATA/journal.sqlite3`, else under `$XDG_DATA_HOME` (or ~/.local/share)/goldtable."""
    base = os.environ.get("GOLDTABLE_DATA")
    if base:
        return Path(base) / "journal.sqlite3"
    xdg = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(xdg) / "goldtable" / "journal.sqlite3"


class Journal:
    """The journal file.  If it is unreadable it is moved aside intact and a fresh one is started;
    `notice` then says where the old file went, so the app and CLI can tell the user."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.notice: str | None = None
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._conn = self._open()
        except sqlite3.DatabaseError as error:
            moved = self._move_aside()
            self.notice = (f"The game journal {self.path} could not be read ({error}); it was kept as "
                           f"{moved} and a new journal was started.")
            self._conn = self._open()

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                raise sqlite3.DatabaseError(f"integrity check failed: {check}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"schema version {version} is newer than this program")
            conn.executescript(_SCHEMA)
            columns = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
            if "ref" not in columns:  # a version 1 journal
                conn.execute("ALTER TABLE entries ADD COLUMN ref TEXT")
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError:
            conn.close()
            raise
        return conn

    def _move_aside(self) -> Path:
        stamp = now_utc().strftime("%Y%m%dT%H%M%S")
        target = self.path.with_name(f"{self.path.stem}.unreadable-{stamp}{self.path.suffix}")
        for suffix in ("", "-wal", "-shm"):
            part = Path(str(self.path) + suffix)
            if part.exists():
                shutil.move(part, Path(str(target) + suffix))
        return target

    def close(self) -> None:
        """Close the file (all rows are already durable)."""
        self._conn.close()

    # -- writing -----------------------------------------------------------------------------------
    def _write(self, sql: str, args: tuple[object, ...]) -> int:
        try:
            with self._conn:
                self._conn.execute("BEGIN IMMEDIATE")
                cursor = self._conn.execute(sql, args)
            return int(cursor.lastrowid or 0)
        except sqlite3.Error as error:
            raise JournalError(f"could not write the game journal {self.path}: {error}") from error

    def new_game(self, setup: Setup) -> int:
        """Start a game; returns its journal id."""
        return self._write("INSERT INTO games (game, setup, created) VALUES (?, ?, ?)",
                           (setup.game, setup.model_dump_json(), now_utc().isoformat()))

    def append(self, game_id: int, kind: Literal["action", "undo"], entry: RecordedAction | None,
               at: datetime | None = None) -> None:
        """Add one action (or an undo) to a game, durable when this returns."""
        when = entry.at if entry is not None else (at or now_utc())
        source = entry.source if entry is not None else "touch"
        action = json.dumps(entry.action, sort_keys=True) if entry is not None else None
        ref = entry.ref if entry is not None else None
        self._write("INSERT INTO entries (game_id, n, kind, at, source, action, ref) VALUES "
                    "(?, (SELECT COALESCE(MAX(n), -1) + 1 FROM entries WHERE game_id = ?), ?, ?, ?, ?, ?)",
                    (game_id, game_id, kind, when.isoformat(), source, action, ref))

    def mark_finished(self, game_id: int, finished: bool = True) -> None:
        """Note that a game reached its end (it no longer offers itself for resuming), or, after an
        undo of the last action, that it is open again."""
        self._write("UPDATE games SET finished = ? WHERE id = ?",
                    (now_utc().isoformat() if finished else None, game_id))

    # -- reading -----------------------------------------------------------------------------------
    def setup(self, game_id: int) -> Setup:
        """The setup a journalled game started from; KeyError if there is no such game."""
        row = self._conn.execute("SELECT setup FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in the journal {self.path}")
        return Setup.model_validate_json(row[0])

    def actions(self, game_id: int) -> list[RecordedAction]:
        """The actions in force: every journalled action with the undone ones taken back."""
        kept: list[RecordedAction] = []
        rows = self._conn.execute("SELECT kind, at, source, action, ref FROM entries WHERE game_id = ? ORDER BY n",
                                  (game_id,))
        for kind, at, source, action, ref in rows:
            if kind == "undo":
                if kept:
                    kept.pop()
            else:
                kept.append(RecordedAction(at=datetime.fromisoformat(at), source=source,
                                           action=json.loads(action), ref=ref))
        return kept

    def history(self, game_id: int) -> list[tuple[str, RecordedAction | None]]:
        """Every row of a game including undos, oldest first (nothing is ever deleted)."""
        rows = self._conn.execute("SELECT kind, at, source, action FROM entries WHERE game_id = ? ORDER BY n",
                                  (game_id,))
        return [(kind, RecordedAction(at=datetime.fromisoformat(at), source=source, action=json.loads(action))
                 if action is not None else None) for kind, at, source, action in rows]

    def record(self, game_id: int) -> GameRecord:
        """A game as a game record (for export and `goldtable replay`)."""
        created = self._conn.execute("SELECT created FROM games WHERE id = ?", (game_id,)).fetchone()
        return GameRecord.from_setup(self.setup(game_id), tuple(self.actions(game_id)),
                                     started=datetime.fromisoformat(created[0]) if created else None)

    def games(self) -> list[GameSummary]:
        """Every journalled game, newest first."""
        rows = self._conn.execute(
            "SELECT g.id, g.game, g.setup, g.created, g.finished, MAX(e.at), "
            "SUM(CASE e.kind WHEN 'action' THEN 1 WHEN 'undo' THEN -1 ELSE 0 END) "
            "FROM games g LEFT JOIN entries e ON e.game_id = g.id GROUP BY g.id ORDER BY g.id DESC")
        summaries = []
        for game_id, game, setup_json, created, finished, last, count in rows:
            setup = Setup.model_validate_json(setup_json)
            summaries.append(GameSummary(
                id=game_id, game=game, players=tuple(p.name for p in setup.players),
                created=datetime.fromisoformat(created),
                updated=datetime.fromisoformat(last or created),
                actions=max(int(count or 0), 0), finished=finished is not None))
        return summaries

    def latest_unfinished(self) -> int | None:
        """The most recent game that has not ended, for the Home screen's Resume."""
        row = self._conn.execute("SELECT id FROM games WHERE finished IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return int(row[0]) if row else None


__all__ = ["GameSummary", "Journal", "JournalError", "Source", "default_path"]
