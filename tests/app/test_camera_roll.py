"""A roll the camera is unsure of, from a file source standing in for the camera, reaches the Table
screen as the sensor's do: the dispute shows the camera's picture of the die with the same Confirm /
Enter by touch choices, and the confirmed roll is journalled with source `camera`."""

from __future__ import annotations

import contextlib
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kivy.factory import Factory

from companion.app.launch import pump
from companion.camera import photoset
from companion.camera.profile import Profile, game_dice, profile_path, save_profile
from companion.camera.reader import Reader
from companion.camera.sources import read_image
from firmware_bridge.camera_source import CameraSource
from tests.app.test_controller_inputs import open_game
from tests.app.ui import buttons, tap, until, visible_widgets
from tests.camera.helpers import SAMPLE, profile, profile_reads, rolls

GOLDGRAEBER = SAMPLE / "goldgraeber-000"


def wait_for(test: Any, what: str = "the camera's roll reaching the table", seconds: float = 30.0) -> None:
    until(test, what, seconds)


def camera_frames(session: Path, image: Path, folder: Path, game: str) -> Path:
    """A folder a file source plays as a camera over `session`'s tray: the empty tray, then the roll in
    `image` lying there for ten seconds (a folder that ends is a camera gone); the session's profile is
    saved as `game`'s."""
    folder.mkdir()
    shutil.copy(session / "empty.jpg", folder / "0.jpg")
    for copy in range(1, 40):
        shutil.copy(image, folder / f"{copy:02d}.jpg")
    save_profile(profile(session), profile_path(game), replace=True)
    return folder


def test_a_camera_roll_is_confirmed_on_the_table(table_app: Any, tmp_path: Path) -> None:
    app = table_app
    # A hand in the tray: the die is read as 4, but the reading is unsure, so the table is asked.
    roll = next(roll for roll in rolls(GOLDGRAEBER) if roll.case == "hand")
    frames = camera_frames(GOLDGRAEBER, roll.image, tmp_path / "frames", "goldgraeber")
    session = open_game(app, "goldgraeber")
    camera = CameraSource(f"{frames}?fps=30&hold=8", retry=(0.05, 0.5))
    try:
        app.hardware.add_source(camera)  # it reads what the table said is due: the game's first roll
        wait_for(lambda: camera.profile is not None, "the profile, read by a worker")
        assert camera.profile.game == "goldgraeber"
        wait_for(lambda: "camera is unsure" in app.table.notice_text)
        assert "(read as 4)" in app.table.notice_text
        assert app.table.notice_text.endswith(" Why: a hand or an object is in the tray."), "it says what it saw"
        assert app.table.notice_choices == ["confirm", "touch"]
        shown = [w for w in visible_widgets(app.root.current_screen) if isinstance(w, Factory.NoticeDie)]
        assert len(shown) == 1 and shown[0].crop is not None and shown[0].uncertain, "the die is shown as seen"
        assert not session.actions, "nothing is played before the table confirms"
        tap(app, "Confirm reading", frames=2)
        assert [action.source for action in session.actions] == ["camera"]
        assert list(session.actions[0].action["values"]) == ["4"]
        assert not app.table.notice_text
    finally:
        app.hardware.bridge.remove_source(camera.name)
        profile_path("goldgraeber").unlink()


def test_dice_that_touch_are_asked_about_as_dice_that_may_be_cocked(table_app: Any, tmp_path: Path) -> None:
    """Two dice lying flat against each other, their faces read clearly: the table says why it asks (one
    may lean on the other), marks those two, and Confirm plays the faces read."""
    app = table_app
    vault = SAMPLE / "gold_connection-000"
    roll = next(roll for roll in rolls(vault) if roll.image.name == "roll-002.jpg")
    frames = camera_frames(vault, roll.image, tmp_path / "frames", "gold_connection")
    session = open_game(app, "gold_connection")
    camera = CameraSource(f"{frames}?fps=30&hold=8", retry=(0.05, 0.5))
    try:
        app.hardware.add_source(camera)
        wait_for(lambda: "may be cocked" in app.table.notice_text)
        faces = " ".join(Reader(profile(vault)).read(read_image(roll.image), game_dice("gold_connection")).faces)
        assert sorted(faces.split()) == sorted(roll.faces)
        assert app.table.notice_text.startswith("Dice 1, 2 touch each other or the wall")
        assert f"(read as {faces})" in app.table.notice_text
        shown = [w for w in visible_widgets(app.root.current_screen) if isinstance(w, Factory.NoticeDie)]
        assert len(shown) == 2 and all(w.crop is not None and w.uncertain for w in shown)
        tap(app, "Confirm reading", frames=2)
        assert [(action.source, " ".join(map(str, action.action["values"]))) for action in session.actions] == \
            [("camera", faces)]
    finally:
        app.hardware.bridge.remove_source(camera.name)
        profile_path("gold_connection").unlink()


def test_a_camera_set_in_settings_reads_the_dice_the_table_asked_for(table_app: Any, tmp_path: Path) -> None:
    """The camera comes after the table said what is due: once attached it reads with the game's profile,
    and its roll is played; a bad address is one sentence and changes nothing; no address drops it."""
    app = table_app
    roll = next(roll for roll in rolls(GOLDGRAEBER) if roll.case == "clean")
    frames = camera_frames(GOLDGRAEBER, roll.image, tmp_path / "frames", "goldgraeber")
    session = open_game(app, "goldgraeber")
    try:
        refused = app.preferences.apply_camera("ftp://tray")
        assert "ftp://tray" in refused and "\n" not in refused and app.hardware.camera is None
        assert not app.preferences.settings.camera_url
        assert "Hardware screen" in app.preferences.apply_camera(f"{frames}?fps=30&hold=8")
        assert app.preferences.settings.camera_url == f"{frames}?fps=30&hold=8"
        wait_for(lambda: session.actions)
        assert [(action.source, list(action.action["values"])) for action in session.actions] == \
            [("camera", list(roll.faces))]
        assert "No camera" in app.preferences.apply_camera("")
        wait_for(lambda: app.hardware.camera is None, "the camera to be dropped")
        assert not app.preferences.settings.camera_url
    finally:
        camera = app.hardware.camera
        if camera is not None:
            app.hardware.bridge.remove_source(camera.name)
        profile_path("goldgraeber").unlink()


def test_the_hardware_screen_calibrates_the_tray_and_teaches_face_by_face(table_app: Any, tmp_path: Path) -> None:
    from companion.camera.profile import load_profile
    from companion.camera.sources import read_image

    app = table_app
    open_game(app, "goldgraeber")
    path = profile_path("goldgraeber")
    path.unlink(missing_ok=True)
    camera = CameraSource(str(GOLDGRAEBER / "empty.jpg"))
    seen = {"picture": read_image(GOLDGRAEBER / "empty.jpg")}
    camera.latest_frame = lambda: seen["picture"]  # type: ignore[method-assign]  # what the camera sees now
    try:
        app.hardware.add_source(camera)
        app.go("hardware")
        wait_for(lambda: app.camera_setup.preview is not None, "the camera's preview")
        assert app.camera_setup.step == "calibrate"
        tap(app, "Calibrate", frames=2)
        settle(app)
        assert path.exists() and app.camera_setup.step == "teach" and app.camera_setup.face == "L"
        wait_for(lambda: app.camera_setup.floor_outline() is not None, "the floor's edge (found off this thread)")
        outline = app.camera_setup.floor_outline()  # where dice count as by a wall, drawn over the preview
        assert len(outline) >= 4 and outline.min() > 0.05 and outline.max() < 0.95
        app.camera_setup._show_frame()
        rgba = np.frombuffer(app.camera_setup.preview.pixels, np.uint8).reshape(-1, 4).astype(int)
        green = (rgba[:, 1] > 150) & (rgba[:, 0] < 120) & (rgba[:, 2] < 120)
        assert green.sum() > 400, "the floor's edge is drawn on the preview"
        seen["picture"] = read_image(GOLDGRAEBER / "empty.jpg")
        tap(app, "Take picture", frames=2)
        settle(app)
        assert "one die alone" in app.camera_setup.problem, "an empty tray teaches nothing"
        for show in range(3):
            seen["picture"] = read_image(GOLDGRAEBER / "teach" / f"L-{show}.jpg")
            tap(app, "Take picture", frames=2)
            settle(app)
        assert not app.camera_setup.problem
        assert [taught.face for taught in load_profile(path).taught] == ["L"] * 3
        assert app.camera_setup.floor_outline() is outline, "teaching keeps the tray: its edge is not sought again"
        assert app.camera_setup.face == "2" and app.camera_setup.shown == 0
        tap(app, "Calibrate", frames=2)
        assert app.camera_setup.step == "recalibrate", "taught faces are not thrown away on one tap"
        assert len(load_profile(path).taught) == 3
    finally:
        app.hardware.bridge.remove_source(camera.name)
        path.unlink(missing_ok=True)


def settle(app: Any) -> None:
    """Wait until the camera part has looked at its picture (on its own thread) and taken up the outcome."""
    wait_for(lambda: not app.camera_setup.busy, "the camera part to look at its picture")


@contextlib.contextmanager
def hardware_over_an_empty_tray(app: Any, session: Path = GOLDGRAEBER, saved: Profile | None = None) -> \
        Iterator[CameraSource]:
    """The Hardware screen for `session`'s game, its profile `saved` (else none), and a camera that sees
    the session's empty tray; the profile and the camera are removed afterwards."""
    game = photoset.game_of(session)
    open_game(app, game)
    path = profile_path(game)
    path.unlink(missing_ok=True)
    if saved is not None:
        save_profile(saved, path, replace=True)
    camera = CameraSource(str(session / "empty.jpg"))
    camera.latest_frame = lambda: read_image(session / "empty.jpg")  # type: ignore[method-assign]
    try:
        app.hardware.add_source(camera)
        app.go("hardware")
        wait_for(lambda: app.camera_setup.preview is not None, "the camera's preview")
        wait_for(lambda: not app.root.transition.is_active, "the Hardware screen in place (sliding, it takes no tap)")
        yield camera
    finally:
        app.hardware.bridge.remove_source(camera.name)
        path.unlink(missing_ok=True)


def test_calibrating_looks_at_the_picture_off_the_screens_thread_and_holds_the_buttons_meanwhile(
        table_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Pi takes a few hundred milliseconds to calibrate and an SD card may take longer to save: the
    screen keeps drawing meanwhile, and a second tap on Calibrate or Take picture waits its turn."""
    import companion.camera.vision as vision

    app = table_app
    release, threads = threading.Event(), []
    calibrate = vision.calibrate

    def slow_calibrate(frame: Any) -> Any:
        threads.append(threading.current_thread())
        assert release.wait(30), "the test never let calibration finish"
        return calibrate(frame)

    monkeypatch.setattr(vision, "calibrate", slow_calibrate)
    try:
        with hardware_over_an_empty_tray(app):
            path = profile_path("goldgraeber")
            tap(app, "Calibrate", frames=2)
            pump(5)
            assert app.camera_setup.busy and len(threads) == 1 and threads[0] is not threading.main_thread()
            assert not path.exists(), "nothing is saved before the picture has been looked at"
            assert buttons(app, "Calibrate", disabled=True) and buttons(app, "Take picture", disabled=True), \
                "the buttons wait for the picture"
            app.camera_setup.calibrate()
            assert len(threads) == 1, "a second tap does not start a second calibration"
            release.set()
            settle(app)
            assert path.exists() and app.camera_setup.step == "teach" and not app.camera_setup.problem
            assert buttons(app, "Calibrate") and buttons(app, "Take picture")
    finally:
        release.set()


def test_after_the_screen_opens_no_profile_is_parsed_on_the_screens_thread(table_app: Any,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """After each picture taught, the guide, the camera and the green line all want the profile a worker
    just saved; a Pi takes tens of milliseconds to parse one, so the saved one is used, not read again."""
    app = table_app
    parsed = profile_reads(monkeypatch)
    with hardware_over_an_empty_tray(app) as camera:
        parsed.clear()  # (the screen opening reads a profile it has not seen: none here yet)
        tap(app, "Calibrate", frames=2)
        settle(app)
        wait_for(lambda: app.camera_setup.floor_outline() is not None, "the floor's edge (found off this thread)")
        camera.latest_frame = lambda: read_image(GOLDGRAEBER / "teach" / "L-0.jpg")  # type: ignore[method-assign]
        tap(app, "Take picture", frames=2)
        settle(app)
        pump(3)
        assert app.camera_setup.shown == 1 and not app.camera_setup.problem
        assert app.camera_setup.floor_outline() is not None
        assert threading.main_thread() not in [thread for _path, thread in parsed], \
            "the screen's thread parsed a profile a worker had saved"


def test_a_fault_while_looking_at_the_picture_is_said_and_the_buttons_come_back(
        table_app: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    import companion.camera.vision as vision

    def broken(_frame: Any) -> Any:
        raise MemoryError("the camera's picture was too much")

    monkeypatch.setattr(vision, "calibrate", broken)
    with hardware_over_an_empty_tray(table_app):
        table_app.camera_setup.calibrate()
        settle(table_app)
        assert "went wrong while looking at the picture" in table_app.camera_setup.problem
        assert not profile_path("goldgraeber").exists()
        assert "camera setup failed" in caplog.text, "the fault is in the log for whoever looks into it"
        assert buttons(table_app, "Calibrate")


def test_a_profile_not_read_yet_is_read_off_the_screens_thread_by_the_table_and_the_hardware_screen(
        table_app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A profile the app has not read (just started, or the file copied in) is parsed by a worker when a table
    opens and when the Hardware screen opens: a Pi takes tens of milliseconds, and both are opening a
    screen.  Meanwhile the camera reads nothing with the last game's profile, and the guide says it is
    reading."""
    import companion.camera.profile as profiles

    app = table_app
    parsed = profile_reads(monkeypatch)
    gate, read = threading.Event(), profiles.read_json_file

    def held(file: Any) -> Any:
        """A slow card: the worker waits until the test has looked at the screen meanwhile."""
        assert gate.wait(30), "the test never let the profile be read"
        return read(file)

    monkeypatch.setattr(profiles, "read_json_file", held)
    digger, taught = profile(SAMPLE / "digger-000"), profile(GOLDGRAEBER)
    path = profile_path("goldgraeber")
    save_profile(digger, profile_path("digger"), replace=True)
    camera = CameraSource(str(GOLDGRAEBER / "empty.jpg"))
    camera.latest_frame = lambda: read_image(GOLDGRAEBER / "empty.jpg")  # type: ignore[method-assign]
    try:
        open_game(app, "digger")
        app.hardware.add_source(camera)
        wait_for(lambda: camera.profile is not None, "the camera to read Digger")
        path.write_text(taught.model_dump_json())  # as another program writes it: unknown to the app
        open_game(app, "goldgraeber")
        pump(3)
        assert camera.profile is None, "never Digger's profile for Goldgräber's dice"
        gate.set()
        wait_for(lambda: camera.profile is not None, "the camera to read Goldgräber")
        assert camera.profile == taught
        path.write_text(taught.model_copy(update={"taught": taught.taught[:3]}).model_dump_json())
        gate.clear()
        app.go("hardware")
        wait_for(lambda: app.camera_setup.step == "loading", "the guide to say it is reading")
        wait_for(lambda: not app.root.transition.is_active, "the Hardware screen in place")
        assert any("Reading the camera profile for Goldgräber" in getattr(widget, "text", "")
                   for widget in visible_widgets(app.root.current_screen))
        assert buttons(app, "Calibrate", disabled=True), "nothing to calibrate over before it is read"
        gate.set()
        wait_for(lambda: app.camera_setup.step == "teach", "the guide to ask for faces")
        assert app.camera_setup.shown < 3 and buttons(app, "Calibrate")
        assert [read for read, _thread in parsed] == [path, path], "each version read once"
        assert threading.main_thread() not in [thread for _path, thread in parsed]
    finally:
        app.hardware.bridge.remove_source(camera.name)
        path.unlink(missing_ok=True)
        profile_path("digger").unlink(missing_ok=True)


def test_tiles_taught_to_an_earlier_reader_are_shown_again_before_the_camera_reads(table_app: Any) -> None:
    """A Chinagold profile taught before tiles were cut whole: the Hardware screen says why and asks for
    each face from the first picture, and the camera reads nothing with it meanwhile."""
    chinagold = SAMPLE / "chinagold-000"
    app = table_app
    with hardware_over_an_empty_tray(app, chinagold, profile(chinagold).model_copy(update={"features": 1})) as camera:
        setup = app.camera_setup
        assert (setup.step, setup.shown) == ("teach", 0) and setup.face in ("0", "1", "2")
        assert "earlier version of the camera's reader" in setup.problem
        assert camera.profile is None, "a stale profile is never read with"
        tap(app, "Take picture", frames=2)
        settle(app)
        assert "one tile alone" in setup.problem, "an empty tray teaches nothing; Chinagold throws tiles"


def test_a_profile_goes_to_a_usb_stick_and_comes_back(table_app: Any, tmp_path: Path,
                                                      monkeypatch: Any) -> None:
    from companion.app import camera as camera_screen
    from companion.camera.profile import load_profile

    app = table_app
    stick = tmp_path / "stick"
    stick.mkdir()
    monkeypatch.setenv("GOLDTABLE_USB", str(stick))
    open_game(app, "goldgraeber")
    looked: list[threading.Thread] = []

    def stick_folder() -> tuple[Path, bool]:
        looked.append(threading.current_thread())
        return stick / "goldtable", True

    monkeypatch.setattr(camera_screen, "export_folder", stick_folder)
    path = profile_path("goldgraeber")
    camera = CameraSource(str(GOLDGRAEBER / "empty.jpg"))
    try:
        app.hardware.add_source(camera)
        app.go("hardware")
        pump(2)
        path.unlink(missing_ok=True)
        export(app)
        assert "calibrate first" in app.camera_setup.problem and not list(stick.iterdir())
        taught = profile(GOLDGRAEBER)
        save_profile(taught, path, replace=True)
        export(app)
        exported = stick / "goldtable" / "camera-goldgraeber.json"
        assert exported.read_bytes() == path.read_bytes()
        assert app.camera_setup.problem == f"Saved as {exported}", "said once on the stick"
        save_profile(taught.model_copy(update={"taught": taught.taught[:3]}), path, replace=True)
        tap(app, "Import", frames=2)
        wait_for(lambda: not app.camera_setup.busy, "the stick's profile to be read")
        assert app.camera_setup.step == "reimport" and len(load_profile(path).taught) == 3, "asked first"
        tap(app, "Import", frames=2)
        wait_for(lambda: not app.camera_setup.busy, "the stick's profile to be saved")
        assert load_profile(path) == taught and app.camera_setup.step == "ready"
        wait_for(lambda: camera.profile == taught, "the camera to read with the imported profile")
        export(app)
        assert exported.read_bytes() == path.read_bytes() and app.camera_setup.step == "ready", \
            "the same profile again is simply saved"
        other = taught.model_copy(update={"taught": taught.taught[:3]})  # another table's, brought to import
        save_profile(other, exported, replace=True)
        export(app)
        assert app.camera_setup.step == "reexport" and load_profile(exported) == other, "asked first"
        export(app)
        assert load_profile(exported) == taught and app.camera_setup.step == "ready"
        assert app.camera_setup.problem == f"Saved as {exported}"
        assert {thread.name for thread in looked} == {"goldtable-export"}, \
            "the stick is looked into on the exports' thread, which Quit and Restart wait for"
    finally:
        app.hardware.bridge.remove_source(camera.name)
        path.unlink(missing_ok=True)


def export(app: Any) -> None:
    """Tap Export and wait until the profile is written (or refused)."""
    tap(app, "Export", frames=2)
    wait_for(lambda: not app.camera_setup.busy, "the export to be done")
    pump(1)


def test_an_import_waits_for_the_card_off_the_screens_thread_and_replaces_a_damaged_profile(
        table_app: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Saving a profile waits for the SD card's flush (seconds on a slow card): the screen keeps drawing and
    the buttons wait.  A damaged profile holds no taught faces to keep, so the import replaces it at once."""
    import companion.camera.profile as profiles
    from companion.camera.profile import load_profile

    app = table_app
    stick = tmp_path / "stick"
    (stick / "goldtable").mkdir(parents=True)
    monkeypatch.setenv("GOLDTABLE_USB", str(stick))
    taught = profile(GOLDGRAEBER)
    save_profile(taught, stick / "goldtable" / "camera-goldgraeber.json", replace=True)
    release, threads, save = threading.Event(), [], profiles.save_profile

    def slow_card(*args: Any, **kwargs: Any) -> None:
        threads.append(threading.current_thread())
        assert release.wait(30), "the test never let the card take the profile"
        save(*args, **kwargs)

    monkeypatch.setattr(profiles, "save_profile", slow_card)
    try:
        with hardware_over_an_empty_tray(app):
            path = profile_path("goldgraeber")
            path.write_text('{"format": "goldtable-camera/1", "game": "goldgr')  # cut short
            wait_for(lambda: app.camera_setup.step == "calibrate", "the damaged profile to be said")
            tap(app, "Import", frames=2)
            pump(3)
            assert app.camera_setup.busy and len(threads) == 1 and threads[0] is not threading.main_thread()
            assert buttons(app, "Import", disabled=True) and buttons(app, "Calibrate", disabled=True)
            release.set()
            wait_for(lambda: not app.camera_setup.busy, "the profile to be saved")
            assert load_profile(path) == taught and app.camera_setup.step == "ready" and not app.camera_setup.problem
    finally:
        release.set()


def test_the_hardware_screen_keeps_a_long_status_under_its_heading(table_app: Any) -> None:
    """With a sensor, a camera and the keyboard's help, the status is taller than its column: it scrolls
    under the heading instead of running over it (seen on the 800x480 screen with a camera connected)."""
    from companion.app.widgets import Scroll
    from firmware_bridge.serial_source import SerialSource

    app = table_app
    camera = CameraSource(str(GOLDGRAEBER / "empty.jpg"))
    sensor = SerialSource(None)  # looking for the Pico, as the app does at start: none is plugged in
    try:
        app.hardware.add_source(sensor)
        app.hardware.add_source(camera)
        app.go("hardware")
        wait_for(lambda: "camera" in app.root.current_screen.ids.status.text
                 and "serial" in app.root.current_screen.ids.status.text, "the camera and the sensor in the status")
        pump(3)
        screen = app.root.current_screen
        heading = next(w for w in visible_widgets(screen) if isinstance(w, Factory.Heading))
        status, scroll = screen.ids.status, screen.ids.status_scroll
        assert isinstance(scroll, Scroll)
        assert status.parent.height > scroll.height, "the status is taller than its column here"
        heading_bottom = heading.to_window(heading.x, heading.y)[1]
        assert scroll.to_window(scroll.x, scroll.top)[1] <= heading_bottom
        assert status.to_window(status.x, status.top)[1] <= heading_bottom + 0.5, "the status starts under the heading"
    finally:
        app.hardware.bridge.remove_source(camera.name)
        app.hardware.bridge.remove_source(sensor.name)


def test_teaching_asks_for_each_face_in_words_in_the_apps_language() -> None:
    """A family is asked for "blue" or "the locomotive", never for the engine's token B or L."""
    from companion.app.camera import camera_guide

    assert "showing blue (picture 2 of 3)" in camera_guide("teach", "digger", "B", 1, "", "en")
    assert "blau oben" in camera_guide("teach", "digger", "B", 0, "", "de")
    assert "noir en haut" in camera_guide("teach", "digger", "K", 0, "", "fr")
    assert "showing the locomotive" in camera_guide("teach", "goldgraeber", "L", 0, "", "en")
    assert "die Lok oben" in camera_guide("teach", "goldgraeber", "L", 0, "", "de")
    assert "showing 4 (picture 3 of 3)" in camera_guide("teach", "goldgraeber", "4", 2, "", "en")
    assert "showing 2 " in camera_guide("teach", "chinagold", "2", 0, "", "en")


def test_chinagold_teaching_asks_for_a_tile_not_a_die() -> None:
    """Chinagold throws tiles: its teaching (and the retake it asks for) says tile in every language."""
    from companion.app.camera import camera_guide

    assert camera_guide("teach", "chinagold", "0", 0, "", "en").startswith("Put one tile alone in the tray")
    assert camera_guide("teach", "chinagold", "0", 0, "", "de").startswith("Lege ein Wurfplättchen allein")
    assert camera_guide("teach", "chinagold", "0", 0, "", "fr").startswith("Posez une plaquette seule")
    retake = "Put exactly one tile alone in the tray, then take the picture again."
    assert "Wurfplättchen" in camera_guide("teach", "chinagold", "1", 1, retake, "de")
    assert "Put one die alone" in camera_guide("teach", "digger", "B", 0, "", "en")
