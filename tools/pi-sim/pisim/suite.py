"""What `tools/pi-sim/check` runs, in order: checks 1 to 4, 6 to 8 and 10 on every release, 5 and 9 on trixie."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from pisim.camera import CAMERA, check_camera
from pisim.checks import (
    Run,
    attempt,
    check_console,
    check_gpio,
    check_install,
    check_kiosk,
    check_rotation,
    joined,
    shutdown_desktop,
)
from pisim.image import Target
from pisim.table_checks import check_power_cuts, check_sensor, check_slow_card
from pisim.vm import Machine

#: The checks on a trixie card's desktop, in the order they run; check 5's desktop half follows them and its
#: console half comes with check 9, on the same card booted without the desktop.
ON_THE_DESKTOP: tuple[tuple[int, Callable[[Run, Machine], None]], ...] = (
    (2, check_kiosk), (3, check_gpio), (4, check_sensor), (6, check_slow_card), (7, check_power_cuts),
    (8, check_rotation))
#: The checks on a Bookworm card's desktop (wayfire): the kiosk at boot, which its desktop starts, a game
#: by GPIO buttons and by the sensor board, the slow card, power cuts and rotation (Bookworm's kernel, file
#: system and Python under the same app). Shutting down and the console card stay trixie's.
ON_AN_OLDER_DESKTOP: tuple[tuple[int, Callable[[Run, Machine], None]], ...] = (
    (2, check_kiosk), (3, check_gpio), (4, check_sensor), (6, check_slow_card), (7, check_power_cuts),
    (8, check_rotation))


def to_run(run: Run, checks: tuple[tuple[int, Callable[[Run, Machine], None]], ...], shuts_down: bool = False
           ) -> list[tuple[int, Callable[[Run, Machine], None]]]:
    """The desktop checks `run` asks for, check 2 among them whenever a later one is, or check 5's desktop
    half (`shuts_down`): they play on the kiosk it installs (`--only 3,4` and `--only 5,9` alone found no
    Goldtable unit to restart)."""
    later = shuts_down or any(run.wanted(number) for number, _check in checks if number != 2)
    return [(number, check) for number, check in checks if run.wanted(number) or (number == 2 and later)]


def run_all(run: Run, targets: list[Target]) -> None:
    """On every release: the machines' checks, then the camera's (check 10), which needs only the image:
    `--only 10` starts no machine."""
    for target in targets:
        if run.only != {CAMERA}:
            on_machines(run, target)
        if run.wanted(CAMERA):
            check_camera(run, target)


def on_machines(run: Run, target: Target) -> None:
    """Checks 1 to 4 and 6 to 8 on every release (each release's own desktop, kernel and file system);
    5 and 9 on trixie (today's Raspberry Pi OS) only: they need a second card booted to the console."""
    trixie = target.suite == "trixie"
    on_the_desktop = ON_THE_DESKTOP if trixie else ON_AN_OLDER_DESKTOP
    wanted = trixie or run.wanted(1) or any(run.wanted(number) for number, _check in on_the_desktop)
    vm = check_install(run, target) if wanted else None
    if vm is None:
        return
    desktop_off = None
    try:
        for _number, check in to_run(run, on_the_desktop, shuts_down=trixie and run.wanted(5)):
            check(run, vm)
        if trixie and run.wanted(5):
            desktop_off = attempt(partial(shutdown_desktop, run, vm))
    finally:
        vm.shutdown()
    if trixie and (run.wanted(9) or run.wanted(5)):
        console_off = check_console(run, target)
        if run.wanted(5) and desktop_off is not None:
            run.check(5, "Shut down", joined(desktop_off, console_off))
