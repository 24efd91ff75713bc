"""The journal file's format: where it lives, its tables and their migration, and how its rows are read.

Shared by the journal (companion/engine/journal.py), its triage (journal_triage.py) and salvage
(salvage.py), which reads the same rows page by page.  docs/record-format.md, "The journal file", says it
in words.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from companion.engine.core import Setup, Value
from companion.engine.paths import data_dir
from companion.engine.record import RecordedAction

#: 2 added entries.ref (the hardware frame an action came in); 3 the clocks table; 4 each game's setup kept
#: a second time among its moves (an entries row, kind 'setup', n = -1) and the 'cut' rows of a salvage.
SCHEMA_VERSION = 4
#: `PRAGMA application_id` of a Goldtable journal ("GdTb"); journals from before it have 0 there.
APPLICATION_ID = 0x47645462

#: The kinds of an entries row.  'setup' (n = -1) is the game's setup again, written by the trigger below
#: in the transaction that starts the game, so it lives in the entries' b-tree beside the game's first
#: moves and a lost `games` page costs no game; 'cut' marks where a salvage found moves missing (its
#: `action` says how many, and keeps the rows read after the gap).  Neither is a move.
ENTRY_KINDS = ("action", "undo", "setup", "cut")
_OLD_KIND_CHECK = "CHECK (kind IN ('action', 'undo'))"
_KIND_CHECK = "CHECK (kind IN ('action', 'undo', 'setup', 'cut'))"

TABLES = (
    """CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    setup TEXT NOT NULL,
    created TEXT NOT NULL,
    finished TEXT
)""",
    f"""CREATE TABLE IF NOT EXISTS entries (
    game_id INTEGER NOT NULL REFERENCES games(id),
    n INTEGER NOT NULL,
    kind TEXT NOT NULL {_KIND_CHECK},
    at TEXT NOT NULL,
    source TEXT NOT NULL,
    action TEXT,
    ref TEXT,
    PRIMARY KEY (game_id, n)
)""",
    """CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    state TEXT NOT NULL,
    saved TEXT NOT NULL
)""",
    """CREATE TRIGGER IF NOT EXISTS setup_beside_moves AFTER INSERT ON games BEGIN
    INSERT INTO entries (game_id, n, kind, at, source, action) VALUES (NEW.id, -1, 'setup', NEW.created, 'journal',
                                                                        NEW.setup);
END""",
)
SCHEMA = ";\n".join(TABLES) + ";"


class Cut(Value):
    """Where a salvage found a game's moves missing (the latest such place): the game goes on from the
    `moves` in force there, and the table must be set up as the board shows them."""

    moves: int  # the moves in force at the cut
    lost: int  # moves the journal had after them that no longer count: unreadable, or after the gap
    since: int  # rows journalled after the cut (0: nobody has played on yet)


def parse_row(kind: str, at: Any, source: Any, action: Any, ref: Any) -> RecordedAction | None:
    """One entries row (not the setup copy) as the journal's readers take it: the action for an action
    row, None for an undo or a cut; ValueError when anything in it is unreadable."""
    try:
        if kind == "action":
            return RecordedAction(at=datetime.fromisoformat(at), source=source, action=json.loads(action), ref=ref)
        datetime.fromisoformat(at)
        if kind == "cut":
            lost_at_cut(action)
        elif kind != "undo":
            raise ValueError(f"unknown row kind {kind!r}")
    except TypeError as error:  # a NULL or number where text belongs
        raise ValueError(str(error)) from None
    return None  # json and pydantic errors are ValueErrors already


def moves_in_force(kinds: Iterable[str]) -> int:
    """How many moves are in force after rows of these kinds: an action adds one, an undo takes one back."""
    count = 0
    for kind in kinds:
        count = count + 1 if kind == "action" else max(count - 1, 0) if kind == "undo" else count
    return count


def setup_or_none(text: Any) -> Setup | None:
    """A setup from its JSON, None if the text is not one (a damaged copy)."""
    try:
        return Setup.model_validate_json(text)
    except (ValidationError, ValueError, TypeError):
        return None


def lost_at_cut(payload: Any) -> int:
    """How many moves a cut row says were lost; ValueError if its text is not a JSON object."""
    found = json.loads(payload)
    if not isinstance(found, dict):
        raise ValueError("a cut row holds an object")
    lost = found.get("lost")
    return lost if isinstance(lost, int) and lost >= 0 else 0


def default_path() -> Path:
    """`journal.sqlite3` in the data folder (`companion.engine.paths.data_dir`)."""
    return data_dir() / "journal.sqlite3"


def migrate(conn: sqlite3.Connection) -> None:
    """Create or upgrade the tables in one transaction; a current journal is not written at all.

    No move is rewritten: an older journal gets the columns and tables it lacks, the wider CHECK on
    `entries.kind` (the table's schema text edited as SQLite documents for CHECK changes: the rows on
    disk do not change), the trigger, and one 'setup' row per game appended to `entries`."""
    application_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if application_id == APPLICATION_ID and version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for statement in TABLES:
            conn.execute(statement)
        columns = {row[1] for row in conn.execute("PRAGMA table_info(entries)")}
        if "ref" not in columns:  # a version 1 journal
            conn.execute("ALTER TABLE entries ADD COLUMN ref TEXT")
        _widen_kind_check(conn)
        conn.execute("INSERT INTO entries (game_id, n, kind, at, source, action) SELECT id, -1, 'setup', created, "
                     "'journal', setup FROM games WHERE NOT EXISTS (SELECT 1 FROM entries WHERE game_id = games.id "
                     "AND n = -1)")
        conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _widen_kind_check(conn: sqlite3.Connection) -> None:
    """Let a journal from before schema 4 take 'setup' and 'cut' rows: SQLite's documented way to change
    a CHECK constraint (https://www.sqlite.org/lang_altertable.html, "other kinds of table schema
    changes"), inside the caller's transaction."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()
    if row is None or _OLD_KIND_CHECK not in row[0]:
        return
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema=ON")
    try:
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE type = 'table' AND name = 'entries'",
                     (row[0].replace(_OLD_KIND_CHECK, _KIND_CHECK),))
        conn.execute(f"PRAGMA schema_version={version + 1}")
    finally:
        conn.execute("PRAGMA writable_schema=OFF")

