"""The app's twin on the host: where a button is on the screen, and what a screen looks like.

The check taps the guest's screen at pixel positions; they come from the same app, started offscreen on
the host at the guest's screen size and language, shown the same screen, its widgets found by id or
by their text. Run by the check with the project's venv (it imports Kivy and Goldtable) as a child that
answers JSON lines on stdin/stdout:

    {"go": "settings"}                       -> {"ok": true}
    {"choose": "digger"}                     -> the game Home has chosen (as the guest last chose it)
    {"power_off": true}                      -> Settings offers Shut down, as logind allows in the guest
    {"find": "Shut down", "screen": "settings"} -> {"x": 512, "y": 24}   (pixels from the top left)
    {"press": "Quit"}                        -> the widget's own action, so the twin follows the guest
    {"shot": "/tmp/home.png"}                -> the current screen as a PNG (the guest's reference)
    {"record": "/tmp/game.json"}             -> the guest's game (`goldtable export`) on the twin's table,
                                                so its screen and its buttons are the guest's
    {"place": "S12"}                         -> where a board place (a safe, a field, a site) is drawn,
                                                in the board's loupe when it is open
    {"bar": ["S3", "B2"]}                    -> where a bar in a safe is drawn (Gold Connection)
    {"tap": [412, 230]}                      -> a touch there, as the guest's screen gets it
    {"loupe": true}                          -> {"open": true} while the board's loupe is open
    {"roll": ["3", "4"]} / {"button": "confirm"} -> what the guest's sensor board sends, given to the twin
    {"expects": true} / {"offered": "choose_start"} -> what the rules offer now (action types, actions)
    {"resume_text": true}                    -> the text of Home's Resume button

`"find"` accepts a widget id (`quit`, `confirm_yes`) or a button's text in the app's language.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any


def main() -> None:
    width, height, language = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    folder = tempfile.mkdtemp(prefix="pi-sim-mirror-")
    os.environ["GOLDTABLE_DATA"] = folder
    from companion.headless import prepare_kivy

    prepare_kivy((width, height), offscreen=True)
    from companion.app.launch import pump, start_headless, stop_headless
    from companion.app.settings import AppSettings, save_settings
    from companion.app.widgets import BACKGROUND_RGBA
    from companion.headless import export_png

    settings = Path(folder) / "app-settings.json"
    save_settings(AppSettings(language=language), settings)
    app = start_headless((width, height), journal_path=Path(folder) / "journal.sqlite3", settings_file=settings,
                         use_system_hardware=False)
    try:
        for line in sys.stdin:
            request = json.loads(line)
            try:
                answer = handle(app, request, height, export_png, BACKGROUND_RGBA)
            except LookupError as error:
                answer = {"error": str(error)}
            pump(3)
            print(json.dumps(answer), flush=True)
    finally:
        stop_headless(app)
        import shutil

        shutil.rmtree(folder, ignore_errors=True)


def handle(app: Any, request: dict[str, Any], height: int, export_png: Any, background: Any) -> dict[str, Any]:
    if "go" in request:
        app.go(request["go"])
        return {"ok": True}
    if "choose" in request:
        app.flow.choose_game(request["choose"])
        return {"ok": True}
    if "power_off" in request:  # whether the guest may power off (Settings then shows Shut down)
        from companion.system import power

        allowed = bool(request["power_off"])
        power.can_power_off = lambda *_args: allowed
        return {"ok": True}
    if "find" in request or "press" in request:
        widget = find(app, request.get("find") or request["press"])
        x, y = widget.to_window(*widget.center)
        if "press" in request:
            widget.dispatch("on_press")
            widget.dispatch("on_release")
        return {"x": round(x), "y": round(height - y)}
    if "record" in request:
        from companion.engine.record import GameRecord
        from companion.engine.session import Session

        record = GameRecord.model_validate_json(Path(request["record"]).read_text(encoding="utf-8"))
        app.flow.open_table(Session.from_record(record, app.journal))
        return {"actions": len(record.actions)}
    if "place" in request or "bar" in request:
        board = topmost_board(app)
        if "place" in request:
            x, y = board.centre_of(request["place"])
            if hasattr(board, "bar_at"):  # a Gold Connection safe is tapped on its lower edge, clear of its bars
                y -= board.cell_spacing * 0.45
            x, y = board.to_window(x, y)
        else:
            safe, bar = request["bar"]
            box = next((box for box in board._bar_boxes if box[0] == safe and box[1] == bar), None)
            if box is None:
                raise LookupError(f"no bar {bar} drawn in safe {safe}")
            x, y = board.to_window(box[2] + box[4] / 2, box[3] + box[4] / 2)
        return {"x": round(x), "y": round(height - y)}
    if "loupe" in request:
        try:
            board = topmost_board(app)
        except LookupError:
            return {"open": False}
        return {"open": hasattr(board, "centre_of") and board is not next(
            widget for widget in app.root.current_screen.walk(restrict=True) if hasattr(widget, "centre_of"))}
    if "tap" in request:
        from kivy.tests.common import UnitTestTouch

        touch = UnitTestTouch(request["tap"][0], height - request["tap"][1])
        touch.touch_down()
        touch.touch_up()
        return {"ok": True}
    if "roll" in request:
        app.flow.controller.hardware_roll(list(request["roll"]), [], "serial")
        return {"ok": True}
    if "button" in request:
        app.flow.controller.press(request["button"], "serial")
        return {"ok": True}
    if "resume_text" in request:  # Home's Resume button says which game and how far it went
        return {"text": app.journal_desk.resume_text}
    if "expects" in request:
        return {"expects": list(app.flow.controller.expects())}
    if "offered" in request:
        session = app.flow.controller.session
        actions = session.game.offered(session.state, request["offered"], checked=True)
        return {"actions": [action.model_dump(mode="json") for action in actions]}
    if "shot" in request:
        export_png(app.root, Path(request["shot"]), background=background)
        return {"ok": True}
    if "screen" in request:
        return {"screen": app.root.current}
    raise LookupError(f"unknown request {request}")


def topmost_board(app: Any) -> Any:
    """The current screen's board, or its magnified copy while the loupe is open."""
    board = next((widget for widget in app.root.current_screen.walk(restrict=True) if hasattr(widget, "centre_of")),
                 None)
    if board is None:
        raise LookupError(f"no board on the {app.root.current} screen")
    loupe = getattr(board, "loupe", None)
    magnified = getattr(loupe, "magnified", None)
    return magnified.board if magnified is not None else board


def find(app: Any, selector: str) -> Any:
    """The visible, enabled widget on the current screen with this id, else a button with this text."""
    screen = app.root.current_screen
    widgets = list(screen.walk(restrict=True))
    for widget in widgets:
        for scope in (getattr(widget, "ids", {}),):
            if selector in scope and usable(scope[selector]):
                return scope[selector]
    for widget in widgets:
        if getattr(widget, "text", None) == selector and hasattr(widget, "on_release") and usable(widget):
            return widget
    raise LookupError(f"no visible widget {selector!r} on the {screen.name} screen")


def usable(widget: Any) -> bool:
    return bool(widget.opacity > 0 and not widget.disabled and widget.width > 0 and widget.height > 0)


if __name__ == "__main__":
    main()
