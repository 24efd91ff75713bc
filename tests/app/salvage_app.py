"""Run by test_salvage_app: the app starts on a damaged journal, the table taps Salvage once, then Resume,
and plays a move.  Prints one line per step for the test to check."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from companion.app.launch import pump, start_headless
from tests.app.ui import find_button, tap
from tests.table_helpers import played


def wait(condition, seconds: float = 60.0) -> bool:  # type: ignore[no-untyped-def]
    until = time.monotonic() + seconds
    while not condition() and time.monotonic() < until:
        pump(1)
    return bool(condition())


def main(data: Path) -> None:
    app = start_headless((800, 480), journal_path=data / "journal.sqlite3", settings_file=data / "settings.json",
                         use_system_hardware=False)
    assert wait(lambda: app.ready)
    pump(2)
    find_button(app, "Salvage the journal")
    print("OFFERED", json.dumps({"screen": app.root.current, "notice": app.journal_desk.journal_notice,
                                 "resume": app.journal_desk.resume_text}), flush=True)
    tap(app, "Salvage the journal")  # the one tap
    print("SALVAGING", json.dumps({"notice": app.journal_desk.journal_notice}), flush=True)
    assert wait(lambda: app.journal.needs_salvage is None and app.journal_desk.resume_text)
    pump(2)
    print("SALVAGED", json.dumps({"notice": app.journal_desk.journal_notice, "resume": app.journal_desk.resume_text,
                                  "offered": app.journal_desk.salvage_offered}), flush=True)
    tap(app, app.journal_desk.resume_text)
    session = app.table.session
    print("RESUMED", json.dumps({"screen": app.root.current, "notice": app.table.notice_text,
                                 "game": session.game_id, "moves": len(session.actions)}), flush=True)
    legal = session.game.legal_actions(session.state) or []
    move = next((action for action in legal if action.type != "roll"), None)
    accepted = (played(session, app.flow.controller.submit, move.model_dump(mode="json")) if move is not None
                else played(session, app.flow.controller.submit_roll, ["Y", "R", "B", "K", "G"], "touch"))
    print("PLAYED", json.dumps({"accepted": accepted, "moves": len(session.actions)}), flush=True)
    app.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
