"""The camera's reading over a photo set: per game, rolls read right, asked about, and wrong without asking;
CPU per 640x480 frame; time from rest to the roll event.

    .venv/bin/python benchmarks/bench_camera.py [--set DIR]... [--latency N]

A set is what tools/render_dice.py writes (sessions with `empty.jpg`, `teach/labels.csv`, `rolls/`,
`truth.csv`); the default is the committed sample (tests/data/camera/sample).  Each session is calibrated on
its empty tray and taught from its own teaching pictures, as a family would, then every roll is read with
the game's first-roll dice from the engine.  A roll counts as *right* when it is read without asking and the
faces are the truth (as a multiset: dice of one kind have no order; Chinagold's tiles are matched to faces
they have), *asked* when the reading is uncertain, *wrong* when it is read without asking and differs.
A cocked die's truth is `?`, so any reading of it without asking is wrong; hands and missing dice must be
asked about too.  The same three outcomes are also counted per case (clean, touching, cocked, hand,
missing), which shows where the wrong and the asked rolls come from.

CPU: `time.process_time` around each read (decode excluded), against the same run's baseline of decoding
the JPEG: the ratio stays meaningful on a busier or faster machine.  Rest to event: a folder source at
10 frames per second (a Pi camera's rate here) plays an empty tray and then the roll; the clock runs from
the first frame of the roll being handed to the reader to the `roll` event in a Bridge subscriber (the
reader waits for 3 still frames: 0.3 s of it is that wait, by design).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

import cv2
import numpy as np

from companion.camera import photoset
from companion.camera.profile import Profile, game_dice
from companion.camera.reader import Reader, assign
from companion.camera.vision import VisionError

SAMPLE = Path(__file__).resolve().parents[1] / "tests" / "data" / "camera" / "sample"


def session_profile(folder: Path) -> Profile:
    return photoset.session_profile(folder, lambda image, error: print(f"  {folder.name}: teaching picture "
                                                                       f"{image} refused: {error}"))


def right(faces: tuple[str, ...], truth: tuple[str, ...], dice: tuple[tuple[str, ...], ...]) -> bool:
    return "?" not in truth and sorted(faces) == sorted(truth) and assign(list(faces), dice) is not None


def read_sets(sets: list[Path]) -> tuple[dict[str, Counter[str]], list[float], list[float], list[str]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    cpu, decode, wrong = [], [], []
    for root in sets:
        for folder in photoset.sessions(root):
            game = photoset.game_of(folder)
            try:
                reader = Reader(session_profile(folder))
            except VisionError as error:
                print(f"  {folder.name}: calibration refused: {error}")
                counts[game]["calibration refused"] += 1
                continue
            dice = game_dice(game)
            for roll in photoset.rolls(folder):
                data = roll.image.read_bytes()
                start = time.process_time()
                image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
                decode.append(time.process_time() - start)
                start = time.process_time()
                reading = reader.read(image, dice)
                cpu.append(time.process_time() - start)
                counts[game]["rolls"] += 1
                counts[game][f"case {roll.case}"] += 1
                if reading.uncertain:
                    outcome = "asked"
                elif right(reading.faces, roll.faces, dice):
                    outcome = "right"
                else:
                    outcome = "wrong"
                counts[game][outcome] += 1
                counts[game][f"case {roll.case} {outcome}"] += 1
                if outcome == "wrong":
                    wrong.append(f"{folder.name}/{roll.image.name} ({roll.case}): read {' '.join(reading.faces)}, "
                                 f"truth {' '.join(roll.faces)}")
    return counts, cpu, decode, wrong


def watch_cost(frames: int = 200) -> list[float]:
    """CPU seconds of `RollWatcher.feed` for frames in which dice move (no reading: most frames of a
    camera's stream), alternating two pictures of a roll so every frame is motion."""
    from companion.camera.reader import RollWatcher

    session = SAMPLE / "digger-000"
    watcher = RollWatcher(Reader(session_profile(session)))
    pictures = [cv2.imread(str(roll.image)) for roll in photoset.rolls(session)[:2]]
    dice = game_dice("digger")
    costs = []
    for index in range(frames):
        start = time.process_time()
        watcher.feed(pictures[index % 2], dice)
        costs.append(time.process_time() - start)
    return costs[1:]


def rest_to_event(samples: int) -> list[float]:
    """Seconds from the first frame of a resting roll to its `roll` event, through the real bridge source."""
    from companion.camera import sources
    from firmware_bridge.camera_source import CameraSource
    from firmware_bridge.events import RollEvent
    from firmware_bridge.hub import Bridge

    session = SAMPLE / "digger-000"
    profile = session_profile(session)
    clean = [roll.image for roll in photoset.rolls(session) if roll.case == "clean"]
    stamps: dict[str, float] = {}

    class Timed(sources.FileSource):
        """A folder source that notes when the roll's first frame is handed over."""

        def read(self) -> sources.Image | None:
            frame = super().read()
            if self._index == 1 and self._repeat == 1 and "frame" not in stamps:
                stamps["frame"] = time.perf_counter()
            return frame

    open_source = sources.open_source
    sources.open_source = lambda url: Timed(sources.parse_address(url))  # type: ignore[assignment]
    results = []
    try:
        with tempfile.TemporaryDirectory(prefix="goldtable-bench-camera-") as temporary:
            for index in range(samples):
                folder = Path(temporary) / f"run{index}"
                folder.mkdir()
                shutil.copy(session / "empty.jpg", folder / "0.jpg")
                shutil.copy(clean[index % len(clean)], folder / "1.jpg")
                stamps.clear()
                done = threading.Event()

                def heard(event: object, done: threading.Event = done) -> None:
                    if isinstance(event, RollEvent):
                        stamps["event"] = time.perf_counter()
                        done.set()

                bridge = Bridge()
                bridge.subscribe(heard)
                bridge.add_source(CameraSource(f"{folder}?fps=10&hold=8", profile))
                with bridge:
                    done.wait(30)
                if "event" in stamps and "frame" in stamps:
                    results.append(stamps["event"] - stamps["frame"])
    finally:
        sources.open_source = open_source
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", type=Path, help="a photo set folder (repeatable)")
    parser.add_argument("--latency", type=int, default=5, help="rolls timed from rest to event")
    args = parser.parse_args()
    sets = args.set or [SAMPLE]
    counts, cpu, decode, wrong = read_sets(sets)
    print("| game | rolls | right | asked | wrong, not asked | right of all |")
    print("| --- | --- | --- | --- | --- | --- |")
    total: Counter[str] = Counter()
    for game in ("digger", "gold_connection", "goldgraeber", "chinagold"):
        row = counts.get(game, Counter())
        total.update(row)
        share = row["right"] / row["rolls"] * 100 if row["rolls"] else 0.0
        print(f"| {game} | {row['rolls']} | {row['right']} | {row['asked']} | {row['wrong']} | {share:.0f} % |")
    share = total["right"] / total["rolls"] * 100 if total["rolls"] else 0.0
    print(f"| all | {total['rolls']} | {total['right']} | {total['asked']} | {total['wrong']} | {share:.0f} % |")
    for line in wrong:
        print(f"  wrong: {line}")
    cases = sorted(key[5:] for key in total if key.startswith("case ") and key.count(" ") == 1)
    print("cases: " + ", ".join(f"{case} {total[f'case {case}']} (right {total[f'case {case} right']}, asked "
                                f"{total[f'case {case} asked']}, wrong {total[f'case {case} wrong']})"
                                for case in cases))
    ms = [value * 1000 for value in cpu]
    base = statistics.median(decode) * 1000
    print(f"CPU per 640x480 frame read: median {statistics.median(ms):.1f} ms, p90 "
          f"{sorted(ms)[int(len(ms) * 0.9)]:.1f} ms, max {max(ms):.1f} ms "
          f"({statistics.median(ms) / base:.1f}x the JPEG decode of the same frame, {base:.1f} ms)")
    watching = [value * 1000 for value in watch_cost()]
    print(f"CPU per 640x480 frame while dice move (motion only, no reading): median "
          f"{statistics.median(watching):.2f} ms, max {max(watching):.2f} ms")
    if args.latency:
        latency = rest_to_event(args.latency)
        if latency:
            print(f"rest to roll event at 10 frames/s: median {statistics.median(latency) * 1000:.0f} ms, max "
                  f"{max(latency) * 1000:.0f} ms ({len(latency)} rolls; 300 ms of it is the 3 still frames)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
