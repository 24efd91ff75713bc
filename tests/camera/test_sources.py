"""Camera addresses as pyserial's URLs are written, and file sources (pictures, folders, videos) that
play a camera: each picture held for `hold` frames, a video to its end, then `ended`."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.camera.sources import CameraGone, FileSource, OpenCVSource, PiCameraSource, open_source, parse_address
from companion.engine.errors import UserError
from tests.camera.helpers import SAMPLE

EMPTY = SAMPLE / "digger-000" / "empty.jpg"


def test_addresses_name_the_kind_of_source(tmp_path: Path) -> None:
    assert parse_address("picamera:1").kind == "picamera" and parse_address("picamera:1").target == "1"
    assert parse_address("v4l2:0").target == "0" and parse_address("/dev/video2").kind == "v4l2"
    assert parse_address("v4l2:///dev/video3").target == "/dev/video3"
    assert parse_address(f"file:{EMPTY}").kind == "image" and parse_address(str(EMPTY.parent)).kind == "folder"
    assert parse_address(str(tmp_path / "roll.mp4")).kind == "video"
    options = parse_address(f"{EMPTY}?fps=5&hold=2&loop=1&width=1280&height=720")
    assert (options.fps, options.hold, options.loop, options.width, options.height) == (5, 2, True, 1280, 720)
    assert isinstance(open_source("picamera:0"), PiCameraSource) and isinstance(open_source("v4l2:0"), OpenCVSource)


@pytest.mark.parametrize("url, words", [("", "empty"), ("ftp://host/x", "unknown kind"), ("v4l2:cam", "v4l2:"),
                                        ("picamera:x", "camera number"), ("/nowhere/x", "no such file"),
                                        (f"{EMPTY}?fps=0", "fps"), (f"{EMPTY}?zoom=2", "unknown option")])
def test_a_bad_address_is_one_sentence(url: str, words: str) -> None:
    with pytest.raises(UserError, match=words):
        parse_address(url)


def test_a_missing_webcam_is_gone_not_an_error() -> None:
    with pytest.raises(CameraGone, match="not there"):
        OpenCVSource(parse_address("/dev/video99")).open()


def test_a_folder_holds_each_picture_then_ends(tmp_path: Path) -> None:
    for name in ("b.png", "a.jpg"):
        cv2.imwrite(str(tmp_path / name), cv2.imread(str(EMPTY)))
    (tmp_path / "notes.txt").write_text("not a picture")
    source = FileSource(parse_address(f"{tmp_path}?fps=120&hold=3"))
    source.open()
    frames = []
    while (frame := source.read()) is not None:
        frames.append(frame)
    assert len(frames) == 6 and source.ended and source.read() is None


def test_a_video_plays_to_its_end(tmp_path: Path) -> None:
    video = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for shade in range(5):
        writer.write(np.full((48, 64, 3), shade * 40, np.uint8))
    writer.release()
    source = FileSource(parse_address(f"{video}?fps=120"))
    source.open()
    shades = []
    while (frame := source.read()) is not None:
        shades.append(round(float(frame.mean()) / 40))
    assert shades == [0, 1, 2, 3, 4] and source.ended
