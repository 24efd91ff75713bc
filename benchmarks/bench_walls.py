"""Where calibration puts the tray's walls, against where the rendered floor really ends.

    .venv/bin/python benchmarks/bench_walls.py [--set DIR]...

For each session of a set that tools/render_dice.py wrote (default: the committed sample), the empty tray is
calibrated as the app does, and `Calibration.to_wall` (how far each pixel lies from the walls' foot) is
compared with the floor the session's camera really sees (`render_dice.seen_floor`, worked out from the
scene).  Printed per tray, in die sides, over the band within 1.5 sides of the floor's edge: how far the
floor found reaches *past* the floor seen (90th percentile; above 0 a die leaning there may be read without
asking) and how far it stops short, typically (median) and where it stops shortest (5th percentile: one
side of the tray may stop well short while the others fit; a flat die there is asked about needlessly).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import cv2
import numpy as np

from companion.camera import photoset
from companion.camera.sources import read_image
from companion.camera.vision import VisionError, calibrate

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "camera" / "sample"


def generator() -> ModuleType:
    """tools/render_dice.py, for its scene's geometry (no rendering)."""
    spec = importlib.util.spec_from_file_location("render_dice", ROOT / "tools" / "render_dice.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["render_dice"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def side_pixels(render_dice: ModuleType, camera: dict[str, Any], width: int) -> float:
    """A die side at the tray's middle, in pixels of the half-size maps."""
    origin, (_left, _up, forward) = render_dice.camera_frame(camera)
    depth = float(-origin @ forward)
    return render_dice.focal_length(camera, width) * render_dice.DIE / depth / 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", type=Path, help="a photo set folder (repeatable)")
    sets = parser.parse_args().set or [SAMPLE]
    render_dice = generator()
    past_all: list[float] = []
    shortest_all: list[float] = []
    for root in sets:
        cameras = {entry["folder"]: entry for entry in json.loads((root / "manifest.json").read_text())["sessions"]}
        for folder in photoset.sessions(root):
            entry = cameras[folder.name]
            picture = read_image(folder / "empty.jpg")
            try:
                to_wall = calibrate(picture).to_wall
            except VisionError as error:
                print(f"{root.name}/{folder.name}: calibration refused: {error}")
                continue
            height, width = picture.shape[:2]
            seen = render_dice.seen_floor(entry["camera"], width, height).astype(np.uint8)
            seen = cv2.resize(seen, (to_wall.shape[1], to_wall.shape[0]), interpolation=cv2.INTER_AREA) > 0
            # Signed: inside the floor seen, how far its edge is; outside it, minus how far the floor is.
            truth = (cv2.distanceTransform(seen.astype(np.uint8), cv2.DIST_L2, 3)
                     - cv2.distanceTransform((~seen).astype(np.uint8), cv2.DIST_L2, 3))
            side = side_pixels(render_dice, entry["camera"], width)
            band = (seen | (to_wall > 0)) & (np.abs(truth) < 1.5 * side)
            difference = (to_wall[band] - truth[band]) / side
            past = float(np.percentile(difference, 90))
            short, shortest = (max(0.0, -float(np.percentile(difference, q))) for q in (50, 5))
            past_all.append(past)
            shortest_all.append(shortest)
            print(f"{root.name}/{folder.name} ({entry['tray']}, tilt {entry['camera']['tilt']:.0f}°): "
                  f"past the floor {max(0.0, past):.2f}, short of it {short:.2f} (at most {shortest:.2f}) die sides")
    over = sum(past > 0.1 for past in past_all)
    print(f"trays whose floor found reaches more than 0.1 die side past the floor seen: {over} of {len(past_all)}")
    if shortest_all:
        print(f"where a tray's floor found stops shortest (die sides): median {np.median(shortest_all):.2f}, "
              f"largest {max(shortest_all):.2f}; trays stopping more than half a side short somewhere: "
              f"{sum(value > 0.5 for value in shortest_all)} of {len(shortest_all)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
