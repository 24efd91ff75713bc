"""Where frames come from, addressed like pyserial's URLs.

| address | frames from |
| --- | --- |
| `picamera:0` (or `picamera:`) | the Raspberry Pi camera on the ribbon connector, through picamera2 (Raspberry Pi OS's
  `python3-picamera2`, reached with a venv made `--system-site-packages`) |
| `v4l2:0`, `v4l2:/dev/video0`, `/dev/video0` | a V4L2/UVC webcam, through OpenCV |
| `file:PATH` or a plain path | an image or a folder of images (in name order), each held for `hold` frames as a
  camera looking at a still tray would give it, or a video file |
| `auto` | the Pi camera if there is one, else the first webcam that opens |

Options follow a `?`: `fps` (frames per second to deliver, default 10), `hold` (frames per image of a
folder, default 5), `width`/`height` (the resolution asked of a camera, default 640x480), `loop` (1: a
folder or video starts again at its end).  A file source that has delivered its last frame *ends*
(`FrameSource.read` returns None and `ended` is true); a camera that stops delivering is the bridge source's
business (it notices the silence).

`read()` raises `CameraGone` when the device or file went away or is used by another program: the bridge
source reports it once and tries again.
"""

from __future__ import annotations

import contextlib
import glob
import os
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import cv2
import numpy as np

from companion.camera.vision import Image
from companion.engine.errors import UserError
from firmware_bridge.events import CAMERA_BUSY, CAMERA_NOT_THERE, CAMERA_STOPPED, NO_CAMERA_FOUND

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
VIDEO_SUFFIXES = frozenset({".mp4", ".avi", ".mkv", ".mov", ".webm", ".mjpeg", ".mjpg"})
#: An image larger than this many pixels is refused before it is decoded (a bomb, not a photo).
MAX_PIXELS = 40_000_000


class CameraGone(Exception):
    """The camera or file is not there (unplugged, deleted), or another program holds it: one sentence."""


def read_image(path: str | Path) -> Image:
    """A picture from a file as BGR bytes; anything unreadable is a one-line UserError naming the file."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise UserError(f"{path}: cannot read: {error.strerror or error}") from None
    image = decode_image(data)
    if image is None:
        raise UserError(f"{path}: not an image OpenCV can read (JPEG, PNG, BMP, WebP or TIFF)")
    return image


def decode_image(data: bytes) -> Image | None:
    """Decode image bytes, refusing an image whose header claims more than MAX_PIXELS."""
    buffer = np.frombuffer(data, np.uint8)
    if not len(buffer):
        return None
    header = cv2.imdecode(buffer, cv2.IMREAD_REDUCED_GRAYSCALE_8)
    if header is None or header.size * 64 > MAX_PIXELS:
        return None
    image = cv2.imdecode(buffer, cv2.IMREAD_COLOR)
    return None if image is None else np.asarray(image, dtype=np.uint8)


def stamp(path: str) -> tuple[int, int] | None:
    """When a file or folder last changed, and its size (None when it is not there): a file source that has
    ended is read again once this changes."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


@dataclass(frozen=True)
class Address:
    """A parsed source address."""

    kind: str  # picamera, v4l2, image, folder, video, auto
    target: str
    fps: float = 10.0
    hold: int = 5
    width: int = 640
    height: int = 480
    loop: bool = False

    @property
    def is_file(self) -> bool:
        return self.kind in ("image", "folder", "video")


def parse_address(url: str) -> Address:
    """Parse a source address; a malformed one is a UserError (one line)."""
    text, _, query = url.strip().partition("?")
    if not text:
        raise UserError("--source: the address is empty; give e.g. picamera:0, v4l2:0, /dev/video0 or a file")
    options: dict[str, Any] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        try:
            if key == "fps":
                options[key] = float(value)
                if not 0.2 <= options[key] <= 120:
                    raise ValueError
            elif key in ("hold", "width", "height"):
                options[key] = int(value)
                if not 1 <= options[key] <= 8192:
                    raise ValueError
            elif key == "loop":
                options[key] = value not in ("", "0", "false", "no")
            else:
                raise UserError(f"--source: {url}: unknown option {key!r} (fps, hold, width, height, loop)")
        except ValueError:
            raise UserError(f"--source: {url}: {key}={value!r} is not a sensible value") from None
    scheme, colon, rest = text.partition(":")
    scheme = scheme.lower()
    if text == "auto":
        return Address("auto", "", **options)
    if colon and scheme in ("picamera", "picam"):
        index = rest or "0"
        if not index.isdigit():
            raise UserError(f"--source: {url}: picamera: takes a camera number (picamera:0)")
        return Address("picamera", index, **options)
    if colon and scheme == "v4l2":
        target = rest.removeprefix("//")
        if not (target.isdigit() or target.startswith("/dev/")):
            raise UserError(f"--source: {url}: v4l2: takes a number or a device (v4l2:0, v4l2:/dev/video0)")
        return Address("v4l2", target, **options)
    if text.startswith("/dev/video"):
        return Address("v4l2", text, **options)
    path = Path(rest.removeprefix("//") if colon and scheme == "file" else text)
    if colon and len(scheme) > 1 and scheme not in ("file",) and not path.exists():
        raise UserError(f"--source: {url}: unknown kind of source {scheme!r} (picamera:, v4l2:, file:)")
    if path.is_dir():
        return Address("folder", str(path), **options)
    suffix = path.suffix.lower()
    if suffix in VIDEO_SUFFIXES:
        return Address("video", str(path), **options)
    if suffix in IMAGE_SUFFIXES or path.exists():
        return Address("image", str(path), **options)
    raise UserError(f"--source: {url}: no such file or folder")


class FrameSource(ABC):
    """Frames from one address.  `open` may raise CameraGone; `read` returns the next frame (waiting for
    it at most about a second), None when a file source has ended, and raises CameraGone when the device
    went away."""

    def __init__(self, address: Address) -> None:
        self.address = address
        self.ended = False

    @abstractmethod
    def open(self) -> None: ...

    @abstractmethod
    def read(self) -> Image | None: ...

    def close(self) -> None:  # noqa: B027 — most sources have nothing to release
        """Release the device or file."""

    @property
    def name(self) -> str:
        return f"{self.address.kind}:{self.address.target}" if self.address.target else self.address.kind


class FileSource(FrameSource):
    """An image, a folder of images or a video, delivered at `fps` (for tests, and for a misread sent in)."""

    def __init__(self, address: Address) -> None:
        super().__init__(address)
        self._frames: list[str] = []
        self._index = 0
        self._repeat = 0
        self._video: Any = None
        self._next_time = 0.0

    def open(self) -> None:
        target = Path(self.address.target)
        if not target.exists():
            raise CameraGone(f"{target} is not there")
        if self.address.kind == "video":
            video = cv2.VideoCapture(str(target))
            if not video.isOpened():
                raise CameraGone(f"{target}: OpenCV cannot read this video")
            self._video = video
        elif self.address.kind == "folder":
            self._frames = sorted(str(path) for path in target.iterdir() if path.suffix.lower() in IMAGE_SUFFIXES)
        else:
            self._frames = [str(target)]
        self._index = self._repeat = 0
        self.ended = False

    def _pace(self) -> None:
        now = time.monotonic()
        if self._next_time > now:
            time.sleep(self._next_time - now)
        self._next_time = max(now, self._next_time) + 1 / self.address.fps

    def read(self) -> Image | None:
        if self.ended:
            return None
        self._pace()
        if self._video is not None:
            ok, frame = self._video.read()
            if not ok:
                if self.address.loop:
                    self._video.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    ok, frame = self._video.read()
                if not ok:
                    if not Path(self.address.target).exists():
                        raise CameraGone(f"{self.address.target} is not there any more")
                    self.ended = True
                    return None
            return np.asarray(frame, dtype=np.uint8)
        if self._index >= len(self._frames):
            if self.address.loop and self._frames:
                self._index = 0
            else:
                self.ended = True
                return None
        path = self._frames[self._index]
        self._repeat += 1
        if self._repeat >= self.address.hold:
            self._repeat = 0
            self._index += 1
        try:
            data = Path(path).read_bytes()
        except OSError:
            raise CameraGone(f"{path} is not there any more") from None
        image = decode_image(data)
        if image is None:
            raise CameraGone(f"{path}: not an image")
        return image

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None


class OpenCVSource(FrameSource):
    """A V4L2/UVC webcam through OpenCV."""

    def __init__(self, address: Address) -> None:
        super().__init__(address)
        self._capture: Any = None

    def _device(self) -> str | int:
        target = self.address.target
        return int(target) if target.isdigit() else target

    def open(self) -> None:
        device = self._device()
        path = f"/dev/video{device}" if isinstance(device, int) else device
        if not os.path.exists(path):
            raise CameraGone(CAMERA_NOT_THERE.format(camera=path))
        capture = cv2.VideoCapture(device, cv2.CAP_V4L2)
        if not capture.isOpened():
            capture.release()
            raise CameraGone(CAMERA_BUSY.format(camera=path))
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, self.address.width)
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, self.address.height)
        capture.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        self._capture = capture

    def read(self) -> Image | None:
        if self._capture is None:
            raise CameraGone("the camera is not open")
        ok, frame = self._capture.read()
        if not ok or frame is None:
            raise CameraGone(CAMERA_STOPPED)
        return np.asarray(frame, dtype=np.uint8)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2 (a Raspberry Pi OS package, not from PyPI)."""

    def __init__(self, address: Address) -> None:
        super().__init__(address)
        self._camera: Any = None

    def open(self) -> None:
        try:
            from picamera2 import Picamera2
        except ImportError:
            raise CameraGone("picamera2 is not installed (sudo apt install python3-picamera2, and a venv made "
                             "with --system-site-packages)") from None
        try:
            camera = Picamera2(int(self.address.target or 0))
            config = camera.create_video_configuration(
                main={"size": (self.address.width, self.address.height), "format": "RGB888"})
            camera.configure(config)
            camera.start()
        except (RuntimeError, IndexError, OSError) as error:
            raise CameraGone(f"the Pi camera cannot be started ({error}); another program may be using it") \
                from None
        self._camera = camera

    def read(self) -> Image | None:
        if self._camera is None:
            raise CameraGone("the camera is not open")
        try:
            frame = self._camera.capture_array("main")
        except (RuntimeError, OSError) as error:
            raise CameraGone(f"the Pi camera stopped ({error})") from None
        return np.ascontiguousarray(frame[:, :, :3], dtype=np.uint8)  # picamera2's RGB888 is BGR in memory

    def close(self) -> None:
        if self._camera is not None:
            with contextlib.suppress(RuntimeError, OSError):
                self._camera.close()
            self._camera = None


@dataclass(frozen=True)
class CameraInfo:
    """A camera found on this machine: its address and the name its driver gives."""

    address: str
    name: str


def list_cameras() -> list[CameraInfo]:
    """Pi cameras (through picamera2, when installed) and V4L2 capture devices, with their names."""
    found: list[CameraInfo] = []
    try:
        from picamera2 import Picamera2
    except ImportError:
        pass
    else:
        try:
            infos = Picamera2.global_camera_info()
        except (RuntimeError, OSError):
            infos = []
        for index, info in enumerate(infos):
            found.append(CameraInfo(f"picamera:{index}", str(info.get("Model", "Raspberry Pi camera"))))
    for device in sorted(glob.glob("/dev/video*"), key=lambda path: (len(path), path)):
        sys_name = Path("/sys/class/video4linux") / Path(device).name / "name"
        try:
            name = sys_name.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            name = "video device"
        if "pispbe" in name or "rpi-hevc" in name or "bcm2835-codec" in name or "bcm2835-isp" in name:
            continue  # the Pi's own image and codec blocks, not cameras
        found.append(CameraInfo(f"v4l2:{device}", name))
    return found


def open_source(url: str) -> FrameSource:
    """The frame source for an address (not yet opened); `auto` picks the first camera found."""
    address = parse_address(url)
    if address.kind == "auto":
        cameras = list_cameras()
        if not cameras:
            raise CameraGone(NO_CAMERA_FOUND)
        address = parse_address(cameras[0].address + (f"?fps={address.fps:g}" if address.fps != 10.0 else ""))
    if address.kind == "picamera":
        return PiCameraSource(address)
    if address.kind == "v4l2":
        return OpenCVSource(address)
    return FileSource(address)
