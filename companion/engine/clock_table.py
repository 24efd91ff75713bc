"""The chess clocks kept beside a journal's games: one row per game in the journal's `clocks` table.

Time never enters a game's record (the rules do not depend on it), so a clock is not a move: each save
replaces the one kept before, in a small transaction of its own, and a row that cannot be read is never
a reason to quarantine a game.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from companion.engine.record import now_utc

if TYPE_CHECKING:
    from companion.engine.journal import Journal


class ClockTable:
    """A journal's `clocks` table (`Journal.clocks`): a game's `TimeBank.snapshot()` as JSON."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    def save(self, game_id: int, state: str, wait_for_disk: bool = True) -> None:
        """Keep a game's clock, replacing the one kept before.

        `wait_for_disk=False` (the periodic saves while a clock runs) commits without SQLite's fsync: it
        survives a killed app at once and a power cut as soon as the next action or clock save that waits
        for the disk is committed."""
        self._journal.commit([("INSERT INTO clocks (game_id, state, saved) VALUES (?, ?, ?) ON CONFLICT (game_id) "
                               "DO UPDATE SET state = excluded.state, saved = excluded.saved",
                               (game_id, state, now_utc().isoformat()))], wait_for_disk=wait_for_disk)

    def load(self, game_id: int) -> str | None:
        """The clock last kept for a game (JSON, see `save`), None if it never had one or the row cannot be
        read."""
        try:
            row = self._journal.query("SELECT state FROM clocks WHERE game_id = ?", (game_id,)).fetchone()
        except sqlite3.DatabaseError:
            return None
        return row[0] if row is not None and isinstance(row[0], str) else None
