"""`goldtable camera list|calibrate|teach|read|watch`: the camera's command line (and the contract the
reading's tests are written against).  Bad input is one line on stderr and exit code 2."""

from __future__ import annotations

import argparse
import csv
import io
import json
from collections import Counter
from pathlib import Path
from typing import Any

from companion.engine.errors import UserError, read_text_file

#: Goldtable is installed from its folder, not from PyPI: `pip install 'goldtable[camera]'` would fetch
#: whatever PyPI has by that name.  On a Pi, Debian's OpenCV shares its numpy with picamera2 (OpenCV's own
#: wheel brings numpy 2 into the venv, ahead of the numpy 1.24 Bookworm's picamera2 helpers were built with).
_MISSING = ("OpenCV and numpy are needed for the camera: on a Raspberry Pi, sudo apt install python3-opencv; "
            "elsewhere, in Goldtable's folder, .venv/bin/pip install '.[camera]'")


def _require_camera() -> None:
    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401
    except ImportError:
        raise UserError(_MISSING) from None


def cmd_list(args: argparse.Namespace) -> int:
    _require_camera()
    from companion.camera.sources import list_cameras

    cameras = list_cameras()
    if not cameras:
        print("No cameras found.")
    for camera in cameras:
        print(f"{camera.address:24s} {camera.name}")
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    _require_camera()
    from companion.camera.profile import Profile, game_dice, needs_teaching, save_profile
    from companion.camera.sources import read_image
    from companion.camera.vision import VisionError, calibrate

    game_dice(args.game)
    image = read_image(args.image)
    try:
        calibration = calibrate(image)
    except VisionError as error:
        raise UserError(f"{args.image}: {error}") from None
    profile = Profile.from_calibration(args.game, calibration)
    save_profile(profile, args.output, replace=args.replace)
    blur = calibration.blur
    focus = "focus not judged (no edges in view)" if blur is None else f"edges blurred by {blur:.1f} px"
    print(f"{args.output}: the empty tray for {args.game} (light {calibration.brightness:.0f}/255, noise "
          f"{calibration.noise:.1f}, {focus})")
    if needs_teaching(args.game):
        print(f"next: goldtable camera teach --profile {args.output} LABELS.csv (each face at most 3 times)")
    return 0


def _labels(path: str) -> list[tuple[int, str, str]]:
    """The rows `image,face` of a labels file (line number, image, face); a header row is skipped."""
    text = read_text_file(path)
    rows = []
    for number, row in enumerate(csv.reader(io.StringIO(text)), start=1):
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != 2:
            raise UserError(f"{path}: line {number}: expected two columns, image and face, not {len(row)}")
        image, face = row[0].strip(), row[1].strip()
        if number == 1 and (image.lower(), face.lower()) == ("image", "face"):
            continue
        rows.append((number, image, face))
    if not rows:
        raise UserError(f"{path}: no rows; write one `image,face` row per picture")
    return rows


def cmd_teach(args: argparse.Namespace) -> int:
    _require_camera()
    from companion.camera.profile import SHOWS_PER_FACE, game_faces, load_profile, needs_teaching, save_profile
    from companion.camera.reader import Reader, teach_side
    from companion.camera.sources import read_image
    from companion.camera.vision import VisionError

    profile = load_profile(args.profile)
    faces = game_faces(profile.game)
    rows = _labels(args.labels)
    if not needs_teaching(profile.game):
        raise UserError(f"{args.profile}: {profile.game}'s pip dice are read without teaching")
    counts = Counter(face for _, _, face in rows)
    for number, _image, face in rows:
        if face not in faces:
            raise UserError(f"{args.labels}: line {number}: {face!r} is no face of {profile.game} "
                            f"(its faces: {' '.join(faces)})")
    too_many = [face for face, count in counts.items() if count > SHOWS_PER_FACE]
    if too_many:
        raise UserError(f"{args.labels}: face {too_many[0]} is shown {counts[too_many[0]]} times; "
                        f"{SHOWS_PER_FACE} are enough")
    folder = Path(args.labels).parent
    reader = Reader(profile, walls=False)
    taught, sides = [], []
    for number, image, face in rows:
        path = folder / image
        try:
            item, side = reader.teach_picture(read_image(path), face)
        except VisionError as error:
            raise UserError(f"{args.labels}: line {number}: {image} {error}") from None
        taught.append(item.model_copy(update={"image": image}))
        sides.append(side)
    profile = profile.with_taught(taught, teach_side(sides))
    save_profile(profile, args.profile, replace=True)
    shown = ", ".join(f"{face} ×{counts[face]}" for face in faces if face in counts)
    missing = profile.untaught()
    print(f"{args.profile}: taught {shown}" + (f"; still to teach: {' '.join(missing)}" if missing else
                                                 "; every face is taught"))
    return 0


def _reader(profile_path: str, game: str | None) -> Any:
    from companion.camera.profile import load_profile
    from companion.camera.reader import Reader

    profile = load_profile(profile_path, game)
    if profile.stale:
        raise UserError(f"{profile_path}: its faces were taught to another version of the camera's reader; "
                        "teach them again (goldtable camera teach)")
    missing = profile.untaught()
    if missing:
        raise UserError(f"{profile_path}: faces not taught yet: {' '.join(missing)} (goldtable camera teach)")
    return Reader(profile)


def _line(data: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(data, ensure_ascii=False)
    state = f"unsure: {'; '.join(data['reasons'])}" if data["uncertain"] else "sure"
    where = data.get("image") or data.get("source", "")
    return f"{where}: {' '.join(data['faces']) or '(no dice)'}  ({state})"


def cmd_read(args: argparse.Namespace) -> int:
    _require_camera()
    from companion.camera.profile import game_dice
    from companion.camera.sources import read_image
    from companion.camera.vision import VisionError

    reader = _reader(args.profile, args.game)
    dice = game_dice(reader.profile.game)
    images = [(path, read_image(path)) for path in args.images]  # every file is checked before any output
    lines = []
    for path, image in images:
        try:
            reading = reader.read(image, dice)
        except VisionError as error:
            raise UserError(f"{path}: {error}") from None
        lines.append(_line({"image": path, **reading.as_json()}, args.json))
    print("\n".join(lines))
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    _require_camera()
    from companion.camera.profile import game_dice
    from companion.camera.reader import RollWatcher
    from companion.camera.sources import CameraGone, open_source
    from firmware_bridge.cli import _signals_stop

    reader = _reader(args.profile, args.game)
    dice = game_dice(reader.profile.game)
    source = open_source(args.source or reader.profile.source or "auto")
    watcher = RollWatcher(reader)
    with _signals_stop() as stop:
        try:
            source.open()
        except CameraGone as error:
            raise UserError(f"--source: {error}") from None
        try:
            while not stop.is_set():
                try:
                    frame = source.read()
                except CameraGone as error:
                    raise UserError(f"--source: {error}") from None
                if frame is None:
                    break
                state, reading = watcher.feed(frame, dice)
                if state == "rest" and reading is not None:
                    print(_line({"source": source.name, **reading.as_json()}, args.json), flush=True)
        finally:
            source.close()
    return 0


def register(sub: Any) -> None:
    camera = sub.add_parser("camera", help="dice read by a camera: find cameras, calibrate, teach, read, watch")
    camera_sub = camera.add_subparsers(dest="camera_command", metavar="ACTION", required=True)

    p = camera_sub.add_parser("list", help="the cameras found, with their addresses and names")
    p.set_defaults(handler=cmd_list)

    p = camera_sub.add_parser("calibrate", help="make a profile from a picture of the empty tray")
    p.add_argument("--game", required=True, help="digger, gold_connection, goldgraeber or chinagold")
    p.add_argument("-o", "--output", required=True, metavar="PROFILE", help="the profile to write (must not exist)")
    p.add_argument("--replace", action="store_true", help="replace an existing profile (its taught faces are lost)")
    p.add_argument("image", metavar="EMPTY_TRAY_IMAGE")
    p.set_defaults(handler=cmd_calibrate)

    p = camera_sub.add_parser("teach", help="teach a profile the faces shown in pictures (rows image,face)")
    p.add_argument("--profile", required=True)
    p.add_argument("labels", metavar="LABELS.csv", help="rows image,face; images relative to this file's folder")
    p.set_defaults(handler=cmd_teach)

    for name, text in (("read", "read the roll in each picture"), ("watch", "print each roll as it comes to rest")):
        p = camera_sub.add_parser(name, help=text)
        p.add_argument("--profile", required=True)
        p.add_argument("--game", help="refuse a profile made for another game")
        p.add_argument("--json", action="store_true", help="one JSON object per line")
        if name == "read":
            p.add_argument("images", nargs="+", metavar="IMAGE")
            p.set_defaults(handler=cmd_read)
        else:
            p.add_argument("--source", metavar="URL",
                           help="picamera:0, v4l2:0, /dev/video0, a picture, a folder or a video (default: the "
                                "profile's camera, else the first found)")
            p.set_defaults(handler=cmd_watch)
