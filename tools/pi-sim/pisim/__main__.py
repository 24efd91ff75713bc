"""`tools/pi-sim/check`: see docs/raspberry-pi.md, "A Raspberry Pi in a box"."""

from __future__ import annotations

import argparse
import sys
import time

from firmware_bridge.simulator import Simulator
from pisim import checks, suite
from pisim.card import repository_server
from pisim.host import CACHE, Failure, Log, prepare_host
from pisim.image import Target
from pisim.pico import Pico


def main() -> int:
    parser = argparse.ArgumentParser(prog="tools/pi-sim/check", description=__doc__)
    parser.add_argument("--only", default="", help="comma-separated check numbers (default: all)")
    parser.add_argument("--suite", choices=("trixie", "bookworm"), action="append",
                        help="Debian release to check (default: both; checks 5 and 9 run on trixie only)")
    args = parser.parse_args()
    try:
        only = {int(part) for part in args.only.split(",") if part.strip()}
    except ValueError:
        parser.error(f"--only: {args.only!r} is not a list of check numbers")
    suites = args.suite or ["trixie", "bookworm"]
    log = Log(CACHE / "logs" / f"check-{time.strftime('%Y%m%d-%H%M%S')}.log")
    print(f"pi-sim: log in {log.path}", flush=True)
    try:
        prepare_host(log)
    except Failure as failure:
        print(f"FAIL 0 host: {failure}", flush=True)
        return 1
    # the sensor board: `goldtable bridge simulate`'s device on the host, plugged into every machine as a Pico
    sensor = Simulator(dice=2, faces="123456", log=lambda line: log.write(f"sensor: {line}")).start()
    pico = Pico(("127.0.0.1", sensor.port or 0), log).start()
    try:
        with repository_server(log) as repository:
            run = checks.Run(log, repository, only, sensor, pico.port)
            suite.run_all(run, [Target(name) for name in suites])
    finally:
        pico.stop()
        sensor.stop()
    failed = [number for number, ok, _text in run.results if not ok]
    print(f"pi-sim: {len(run.results) - len(failed)} ok, {len(failed)} failed, "
          f"{time.monotonic() - log.started:.0f} s", flush=True)
    return 1 if failed or not run.results else 0


if __name__ == "__main__":
    sys.exit(main())
