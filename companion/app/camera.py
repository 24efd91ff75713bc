"""The Hardware screen's camera part: a preview, calibrating the empty tray, and teaching the faces.

A view-model (no widgets): it works on the game at the table, else the game chosen on Home, and keeps that
game's profile in the data folder (`companion.camera.profile.profile_path`), which the camera source reads
with as soon as every face is taught.  Teaching asks for each face the game's dice can show (from the
engine), at most three pictures each, one die alone in the tray.  Calibrating again replaces the taught
faces (they were seen against the old tray and light), so a profile with taught faces is only replaced
after a second tap.

Looking at a picture (calibrating, teaching, finding the floor's edge) takes tens of milliseconds here and
several times that on a Pi, and saving a profile waits for the SD card: that work runs on threads of its
own (one calibration or picture at a time), and its outcome is taken up on the screen's thread through
Kivy's Clock.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from kivy.clock import Clock, ClockEvent
from kivy.event import EventDispatcher
from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, OptionProperty, StringProperty

from companion.app.i18n import _, capitalised, tr
from companion.engine.core import N_
from companion.engine.errors import UserError, holds
from companion.engine.paths import export_folder, usb_folders, write_durably

if TYPE_CHECKING:
    from companion.app.game_flow import GameFlow
    from companion.app.hardware import HardwareLink
    from companion.app.table import TableModel
    from firmware_bridge.camera_source import CameraSource

log = logging.getLogger(__name__)

T = TypeVar("T")
#: `_imported`'s answer when the import would replace taught faces: a second tap confirms.
ASK_FIRST = "ask first"

#: Preview refreshes per second while the Hardware screen shows it.
PREVIEW_RATE = 4
PREVIEW_WIDTH = 320
#: The line drawn over the preview where calibration found the floor to end (BGR: green).
FLOOR_LINE = (60, 220, 60)


class CameraSetup(EventDispatcher):
    """What the camera part shows (`step`, `face`, `shown`, `problem`, `preview`, `busy`) and its buttons."""

    step = OptionProperty("none", options=["none", "loading", "calibrate", "recalibrate", "reimport", "reexport",
                                   "teach", "ready"])
    game = StringProperty("")
    face = StringProperty("")
    shown = NumericProperty(0)
    #: The last thing that went wrong, as a sentence in English (translated when shown).
    problem = StringProperty("")
    preview = ObjectProperty(None, allownone=True)
    #: A picture is being looked at or a profile saved (Calibrate and Take picture wait for it).
    busy = BooleanProperty(False)

    def __init__(self, hardware: HardwareLink, table: TableModel, flow: GameFlow, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.hardware = hardware
        self._table = table
        self._flow = flow
        self._preview_event: ClockEvent | None = None
        #: The floor's edge drawn over the preview: the game and profile file last looked at, the empty tray
        #: the edge was found on (teaching rewrites the file but keeps the tray), and the edge.
        self._outline: tuple[tuple[str, int], tuple[str, str] | None, Any] | None = None
        #: The profile file whose floor's edge is being found off this thread, if any.
        self._seeking: tuple[str, int] | None = None
        #: The profile file being read off this thread, if any (`_read_off_screen`).
        self._reading: Path | None = None

    def _off_screen(self, work: Callable[[], T], done: Callable[[T], None], *, busy: bool = True,
                    stick: bool = False) -> None:
        """Run `work()` on a thread of its own and `done(result)` on the screen's thread after it.  `busy`
        work holds the buttons back until it is done; a failure is logged and said as a problem.  Work on a
        USB stick (`stick`) runs on the exports' thread instead, which Quit and Restart wait for."""
        if busy:
            self.busy = True

        def run() -> None:
            try:
                result = work()
            except Exception:  # a fault in the camera's code must not take the table down
                log.exception("camera setup failed")
                Clock.schedule_once(lambda _dt: self._failed(busy))
                return
            Clock.schedule_once(lambda _dt: self._done(busy, done, result))

        if stick:
            from companion.app.history import exports

            exports.submit(run)
        else:
            threading.Thread(target=run, name="goldtable-camera-setup", daemon=True).start()

    def _done(self, busy: bool, done: Callable[[T], None], result: T) -> None:
        if busy:
            self.busy = False
        done(result)

    def _failed(self, busy: bool) -> None:
        if busy:
            self.busy = False
            self.problem = N_("Something went wrong while looking at the picture; try again.")

    @property
    def camera(self) -> CameraSource | None:
        return self.hardware.camera

    def chosen_game(self) -> str:
        """The game at the table, else the one chosen on Home."""
        session = self._table.session
        return str(session.setup.game if session is not None else self._flow.game_id)

    def _profile(self) -> Any:
        """The game's profile, None before calibrating (parsed only when the file changed: see `known_profile`)."""
        from companion.camera.profile import known_profile, profile_path

        path = profile_path(self.game)
        return known_profile(path, self.game) if path.exists() else None

    def refresh(self, *, tried: Path | None = None) -> None:
        """Where setting up the camera stands for the chosen game: teaching goes on until every face has
        been shown three times (the camera reads once each face has been shown once).  A profile not yet
        read is read by a worker first, unless it is the file `tried` (the worker has had its go)."""
        from companion.camera.profile import SHOWS_PER_FACE, game_faces, is_known, profile_path

        self.game = self.chosen_game()
        if self.camera is None:
            self.step = "none"
            return
        path = profile_path(self.game)
        if path != tried and path.exists() and not is_known(path, self.game):
            self._read_off_screen(path)
            return
        try:
            profile = self._profile()
        except UserError as error:
            self.problem, self.step = str(error), "calibrate"
            return
        if profile is None:
            self.step = "calibrate"
            return
        if profile.stale and not self.problem:  # (a retake's own problem says more just then)
            self.problem = N_("These faces were taught to an earlier version of the camera's reader: show each "
                              "face again.")
        shown = {face: sum(1 for taught in profile.usable if taught.face == face) for face in game_faces(self.game)}
        wanted = [face for face, count in shown.items() if count < SHOWS_PER_FACE] if profile.untaught() or \
            self.step == "teach" else []
        if wanted:
            self.face = self.face if self.face in wanted else wanted[0]
            self.shown, self.step = shown[self.face], "teach"
        else:
            self.step, self.face, self.shown = "ready", "", 0

    def _read_off_screen(self, path: Path) -> None:
        """A profile not yet read here (the screen opening, another game, a file copied in): a worker reads
        it, then the guide moves on; a refused file is kept known, so the guide says why without reading
        it again."""
        from companion.camera.profile import known_profile

        self.step = "loading"
        if self._reading == path:
            return
        self._reading = path
        game = self.game

        def read() -> None:
            try:
                known_profile(path, game)
            except UserError:
                pass  # kept known: the guide says why
            except Exception:  # logged; the guide reads it once more on this thread and says what it can
                log.exception("reading the camera profile failed")

        def done(_result: None) -> None:
            self._reading = None
            self.refresh(tried=path)

        self._off_screen(read, done, busy=False)

    # -- preview ----------------------------------------------------------------------------------------
    def start_preview(self) -> None:
        """The Hardware screen opens: what went wrong on an earlier visit is history by now."""
        self.problem = ""
        self.refresh()
        if self._preview_event is None:
            self._preview_event = Clock.schedule_interval(lambda _dt: self._show_frame(), 1 / PREVIEW_RATE)

    def stop_preview(self) -> None:
        if self._preview_event is not None:
            self._preview_event.cancel()
            self._preview_event = None

    def _show_frame(self) -> None:
        import cv2

        from companion.app.screens import picture_texture

        camera = self.camera
        frame = None if camera is None else camera.latest_frame()
        if frame is None:
            self.preview = None
            return
        height = round(frame.shape[0] * PREVIEW_WIDTH / frame.shape[1])
        picture = cv2.resize(frame, (PREVIEW_WIDTH, height), interpolation=cv2.INTER_AREA)
        outline = self.floor_outline()
        if outline is not None and len(outline):
            points = (outline * (PREVIEW_WIDTH, height)).round().astype("int32")
            cv2.polylines(picture, [points], True, FLOOR_LINE, 1, cv2.LINE_AA)
        self.preview = picture_texture(picture)

    def floor_outline(self) -> Any:
        """Where the chosen game's calibration found the tray's floor to end (shares of the picture), None
        before calibrating or while it is being found.  Found again (off this thread) only on another empty
        tray: teaching rewrites the profile at every picture."""
        from companion.camera.profile import is_known, profile_path

        path = profile_path(self.game)
        try:
            key = (self.game, path.stat().st_mtime_ns)
        except OSError:
            return None
        if self._outline is not None and self._outline[0] == key:
            return self._outline[2]
        if not is_known(path, self.game):  # changed by another program: a worker reads it first
            if self._reading != path:
                self.refresh()
            return None
        try:
            profile = self._profile()
        except UserError:  # a damaged profile: the camera part says so; nothing to draw until it changes
            profile = None
        tray = None if profile is None else (profile.background, profile.tray)
        if self._outline is not None and self._outline[1] == tray:
            self._outline = (key, tray, self._outline[2])
        elif profile is None:
            self._outline = (key, tray, None)
        elif self._seeking != key:
            self._seeking = key
            self._off_screen(lambda: _outline_of(profile), lambda outline: self._found_outline(key, tray, outline),
                             busy=False)
        return None if self._outline is None or self._outline[1] != tray else self._outline[2]

    def _found_outline(self, key: tuple[str, int], tray: tuple[str, str] | None, outline: Any) -> None:
        if self._seeking == key:
            self._seeking = None
        self._outline = (key, tray, outline)

    def _frame(self) -> Any:
        camera = self.camera
        frame = None if camera is None else camera.latest_frame()
        if frame is None:
            self.problem = N_("No picture from the camera yet.")
        return frame

    # -- the buttons --------------------------------------------------------------------------------------
    def calibrate(self) -> None:
        """Calibrate on what the camera sees now (the tray must be empty); a second tap replaces a
        profile whose faces are taught."""
        from companion.camera.profile import holds_taught_faces

        if self.busy or self.step == "loading":
            return
        self.problem = ""
        self.game = self.chosen_game()
        if self.step != "recalibrate" and holds_taught_faces(self._path(), self.game):
            self.step = "recalibrate"
            return
        camera, frame = self.camera, self._frame()
        if camera is None or frame is None:
            return
        self._off_screen(partial(_calibrated, self.game, frame, camera.url, self._path()), self._after_calibrating)

    def _after_calibrating(self, outcome: tuple[str | None, bool]) -> None:
        problem, refused = outcome
        if problem is not None:
            self.problem = problem
            if refused:  # the picture itself (too dark, no tray...): the guide says what to do next
                self.refresh()
            return
        self.face, self.shown = "", 0
        self.hardware.reload_camera_profile()
        self.refresh()

    def take_picture(self) -> None:
        """Teach the face asked for from what the camera sees now (one die alone in the tray)."""
        if self.busy or self.step == "loading":
            return
        self.problem = ""
        try:
            profile = self._profile()
        except UserError as error:
            self.problem = str(error)
            return
        frame = self._frame()
        if profile is None or frame is None or not self.face:
            return
        self._off_screen(partial(_taught, profile, frame, self.face, self._path()), self._after_teaching)

    def _after_teaching(self, problem: str | None) -> None:
        if problem is not None:
            self.problem = problem
            return
        self.hardware.reload_camera_profile()
        self.refresh()

    # -- export and import (a profile made at one table, used at another with the same tray and camera) --
    def export_profile(self) -> None:
        """Copy the game's profile to the USB stick (else the exports folder), as History exports games; a
        different profile there (another table's, say) is replaced only after a second tap.  Looked into,
        compared, written and flushed off the screen's thread: a stick takes up to seconds."""
        if self.busy:
            return
        self.game = self.chosen_game()
        self.problem = _("Saving {path}…").format(path=f"camera-{self.game}.json")
        self._off_screen(partial(_exported, self._path(), self.game, self.step == "reexport"),
                         self._after_exporting, stick=True)

    def _after_exporting(self, outcome: str) -> None:
        if outcome == ASK_FIRST:
            self.problem = ""
            self.step = "reexport"
            return
        if self.step == "reexport":
            self.refresh()
        self.problem = outcome

    def import_profile(self) -> None:
        """Use the profile `goldtable/camera-<game>.json` from a USB stick; one that would replace taught
        faces needs a second tap.  Looked for, read and saved off the screen's thread: saving waits for the
        card."""
        if self.busy or self.step == "loading":
            return
        self.game = self.chosen_game()
        self.problem = ""
        self._off_screen(partial(_imported, self.game, self._path(), self.step == "reimport"),
                         self._after_importing, stick=True)

    def _after_importing(self, outcome: str | None) -> None:
        if outcome == ASK_FIRST:
            self.step = "reimport"
            return
        if outcome is not None:
            self.problem = outcome
            return
        self.step, self.face = "none", ""
        self.hardware.reload_camera_profile()
        self.refresh()

    def _path(self) -> Any:
        from companion.camera.profile import profile_path

        return profile_path(self.game)


def _outline_of(profile: Any) -> Any:
    """Off the screen's thread: where the profile's empty tray's floor ends."""
    from companion.camera.vision import floor_outline

    return floor_outline(profile.calibration())


def _exported(source: Path, game: str, confirmed: bool) -> str:
    """Off the screen's thread: copy the game's profile `source` to the stick as `camera-<game>.json`, on
    the stick before "Saved as" is said; ASK_FIRST when a different profile is there and replacing it was
    not `confirmed`.  Gives what to say."""
    from companion.app.journal_desk import write_problem

    folder = export_folder()[0]
    target = folder / f"camera-{game}.json"
    try:
        try:
            content = source.read_bytes()
        except FileNotFoundError:
            return N_("Nothing to export yet: calibrate first.")
        if not confirmed and (target.exists() or target.is_symlink()) and not holds(target, content):
            return ASK_FIRST
        write_durably(target, content)
    except OSError as error:
        return _("Could not save: {problem}").format(problem=write_problem(target, error))
    return _("Saved as {path}").format(path=str(target))


def _imported(game: str, path: Path, confirmed: bool) -> str | None:
    """Off the screen's thread: save the stick's profile `goldtable/camera-<game>.json` as the game's,
    unless it would replace taught faces and that was not `confirmed` (ASK_FIRST).  Gives the problem, None
    when saved."""
    from companion.camera.profile import holds_taught_faces, load_profile, save_profile

    found = [stick / "goldtable" / f"camera-{game}.json" for stick in usb_folders()]
    found = [source for source in found if source.exists()]
    if not found:
        return _("No camera profile for this game on a USB stick (goldtable/camera-{game}.json).").format(game=game)
    try:
        profile = load_profile(found[0], game)
    except UserError as error:
        return str(error)
    if not confirmed and holds_taught_faces(path, game):
        return ASK_FIRST
    try:
        save_profile(profile, path, replace=True)
    except UserError as error:
        return str(error)
    return None


def _calibrated(game: str, frame: Any, url: str, path: Any) -> tuple[str | None, bool]:
    """Off the screen's thread: calibrate on `frame` and save the game's new profile.  Gives the problem
    (None when saved) and whether it was the picture that was refused."""
    from companion.camera.profile import Profile, save_profile
    from companion.camera.vision import VisionError, calibrate

    try:
        save_profile(Profile.from_calibration(game, calibrate(frame), url), path, replace=True)
    except VisionError as error:
        return str(error), True
    except UserError as error:
        return str(error), False
    return None, False


def _taught(profile: Any, frame: Any, face: str, path: Any) -> str | None:
    """Off the screen's thread: teach `face` from `frame` and save the profile; the problem, if any."""
    from companion.camera.profile import flat_pieces, save_profile
    from companion.camera.reader import Reader, teach_side
    from companion.camera.vision import VisionError

    try:
        taught, side = Reader(profile, walls=False).teach_picture(frame, face)
    except VisionError:
        return N_("Put exactly one tile alone in the tray, then take the picture again.") \
            if flat_pieces(profile.game) else N_("Put exactly one die alone in the tray, then take the picture again.")
    earlier = [item for item in profile.usable if item.face == face]
    sides = [side] if profile.side is None or profile.stale else [profile.side, side]
    try:
        save_profile(profile.with_taught([*earlier, taught], teach_side(sides)), path, replace=True)
    except UserError as error:
        return str(error)
    return None


def camera_guide(step: str, game: str, face: str, shown: int, problem: str, language: str) -> str:
    """The camera part's words in the app's language: what to do next, and what went wrong last."""
    from companion.app.tables import table_for
    from companion.engine.registry import get_game

    title = get_game(game).title if game else ""
    face_word = getattr(table_for(game), "face_word", None) if game and face else None
    lines = {
        "none": tr("No camera is set up (Settings: camera address).", language),
        "loading": tr("Reading the camera profile for {game}…", language).format(game=title),
        "calibrate": tr("Empty the tray, then tap Calibrate: the camera learns the tray and the light for "
                        "{game}.", language).format(game=title),
        "recalibrate": tr("Calibrating again means showing every face again. Tap Calibrate once more to do "
                          "it.", language),
        "reimport": tr("The profile on the USB stick replaces the faces taught here. Tap Import once more to "
                       "use it.", language),
        "reexport": tr("The USB stick holds another camera profile for {game}. Tap Export once more to "
                       "replace it.", language).format(game=title),
        "ready": tr("The camera reads the rolls of {game}.", language).format(game=title),
    }
    text = lines.get(step, "")
    if step == "teach":  # a camera is there, and with it the camera's own modules
        from companion.camera.profile import flat_pieces

        show = tr("Put one tile alone in the tray showing {face} (picture {n} of 3), then tap Take picture.",
                  language) if flat_pieces(game) else \
            tr("Put one die alone in the tray showing {face} (picture {n} of 3), then tap Take picture.", language)
        text = show.format(face=face_word(face, language) if face_word else face, n=shown + 1)
    if step in ("teach", "ready"):
        text += "\n" + tr("The green line marks the floor's edge. If it runs over a wall, put the camera "
                           "straight above the tray and calibrate again.", language)
    if problem:
        said = tr(problem, language)
        text += "\n" + capitalised(said)
    return text

