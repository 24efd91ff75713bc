"""What a Settings switch costs the screen's thread on a slow SD card (run: .venv/bin/python
benchmarks/bench_settings_save.py [--fsync-ms 200] [--changes 20]).

Settings are written durably (`write_durably`: the file and its folder flushed, so a power cut cannot bring
back the defaults).  Each child process flips a setting `--changes` times, one every 80 ms as a finger on
the switch would, and measures how long each flip held the calling thread (the UI thread in the app) and
how long until the last one was on the card.  Three children, in the same run:

- the disk as it is, saved through the app's saver thread (`saving.FileSaver`: the baseline);
- every fsync and fdatasync slowed by `--fsync-ms` (an LD_PRELOAD shim, tests/slow_fsync.c; an SD card's
  flush takes 100-300 ms), through the saver thread (the app as shipped);
- the same slow card with each flip written durably on the calling thread, as the screen would pay for it
  without the saver.

Needs a C compiler for the shim, and Linux.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FLIP_SECONDS = 0.08
MODES = (("saver thread, disk as it is", "saver", 0), ("saver thread, slow card", "saver", None),
         ("on the calling thread, slow card", "inline", None))


def flip(mode: str, data: Path, changes: int) -> dict[str, Any]:
    """In the child: `changes` flips of the sound setting; how long each held this thread, and how long from
    the last flip until it was on the card."""
    from companion.app.saving import FileSaver
    from companion.app.settings import AppSettings
    from companion.engine.paths import write_durably

    saver, path = FileSaver(), data / "app-settings.json"
    held: list[float] = []
    for number in range(changes):
        text = AppSettings(sound=number % 2 == 0).to_json()
        started = time.perf_counter()
        if mode == "saver":
            saver.save(path, text)
        else:
            write_durably(path, text)
        held.append(time.perf_counter() - started)
        time.sleep(max(0.0, FLIP_SECONDS - held[-1]))
    last = time.perf_counter()
    assert saver.flush(60), "the saver never finished"
    return {"held": held, "on_card": time.perf_counter() - last, "saved": path.read_text(encoding="utf-8") == text}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fsync-ms", type=int, default=200, help="how much longer every fsync takes")
    parser.add_argument("--changes", type=int, default=20, help="flips of the switch per child")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(flip(args.child[0], Path(args.child[1]), args.changes)))
        return
    sys.path.insert(0, str(ROOT))
    from tests.slow_disk import on_slow_cards

    header = ("| written | flips | calling thread held per flip, median / max ms | last flip to on the card ms |\n"
              "| --- | --- | --- | --- |")
    for name, delay, result in on_slow_cards(Path(__file__), MODES, args.fsync_ms, header,
                                             ("--changes", str(args.changes))):
        if not result["saved"]:
            raise SystemExit(f"{name}: the last flip is not what the file holds")
        held = result["held"]
        print(f"| {name} (fsync +{delay} ms) | {len(held)} | {statistics.median(held) * 1000:.2f} / "
              f"{max(held) * 1000:.2f} | {result['on_card'] * 1000:.0f} |", flush=True)

if __name__ == "__main__":
    main()
