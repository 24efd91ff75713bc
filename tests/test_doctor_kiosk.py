"""`goldtable doctor` (one line per check, exit 0 only when all are fine), `goldtable kiosk install` (the
Bookworm start-up files, never overwriting a user's file silently) and the power actions of Settings."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from companion.cli import main
from companion.engine.errors import UserError
from companion.system import doctor, power
from companion.system.doctor import Check, Port, check_usb, run_checks
from companion.system.kiosk import kiosk_files, next_steps, write_files
from firmware_bridge import machine
from tests.slow_disk import medium_taking

ROOT = Path(__file__).resolve().parents[1]
CARDS = """ 0 [vc4hdmi0       ]: vc4-hdmi - vc4-hdmi-0
                      vc4-hdmi-0
 1 [Headphones     ]: bcm2835_headpho - bcm2835 Headphones
                      bcm2835 Headphones
"""


def fake_machine(tmp_path: Path, *, model: str | None = None, card: bool = True, sound: bool = True) -> Path:
    root = tmp_path / "root"
    (root / "dev" / "dri").mkdir(parents=True)
    (root / "proc" / "asound").mkdir(parents=True)
    if card:
        (root / "dev" / "dri" / "card1").touch()
    if model is not None:
        (root / "proc" / "device-tree").mkdir(parents=True)
        (root / "proc" / "device-tree" / "model").write_bytes(model.encode() + b"\x00")
    if sound:
        (root / "proc" / "asound" / "cards").write_text(CARDS)
    return root


PICO = Port("/dev/ttyACM0", 0x2E8A, 0x0005, "Board CDC")


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {check.name: check for check in checks}


def test_a_ready_machine_passes_every_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")  # a backend that loads here
    root = fake_machine(tmp_path)
    checks = run_checks({"WAYLAND_DISPLAY": "wayland-0"}, root, tmp_path / "data" / "goldtable", [PICO], sticks=[])
    assert [check.name for check in checks] == ["display", "gpio", "serial", "audio", "journal", "space", "usb"]
    assert all(check.ok for check in checks), [check.line() for check in checks]
    found = by_name(checks)
    assert found["display"].text == "desktop session (WAYLAND_DISPLAY=wayland-0)"
    assert found["gpio"].text == "MockFactory on this machine, 26 pins in the pin map"
    assert found["serial"].text == "/dev/ttyACM0 2E8A:0005 (Raspberry Pi Pico)"
    assert found["audio"].text == "vc4-hdmi-0, bcm2835 Headphones"
    assert (tmp_path / "data" / "goldtable").is_dir() and list((tmp_path / "data" / "goldtable").iterdir()) == []
    assert found["journal"].line().startswith("journal  ok       ")


def test_console_display_and_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    for module in ("lgpio", "RPi", "RPi.GPIO", "pigpio"):
        monkeypatch.setitem(sys.modules, module, None)
    root = fake_machine(tmp_path, model="Raspberry Pi 4 Model B Rev 1.5", sound=False)
    found = by_name(run_checks({}, root, tmp_path / "data", []))
    assert found["display"].ok and "on /dev/dri/card1 " in found["display"].text and "kmsdrm" in found["display"].text
    assert not found["gpio"].ok and "sudo apt install python3-lgpio" in found["gpio"].text
    assert "Raspberry Pi 4" in found["gpio"].text
    assert found["serial"].ok and "no serial ports" in found["serial"].text
    assert not found["audio"].ok and "Sound" in found["audio"].text
    assert found["gpio"].line().startswith("gpio     PROBLEM  GPIO on this Raspberry Pi 4")

    no_screen = fake_machine(tmp_path / "b", card=False)
    assert not doctor.check_display({}, no_screen).ok


def test_a_pc_without_pins_is_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    check = doctor.check_gpio(fake_machine(tmp_path))
    assert check.ok and "not a Raspberry Pi" in check.text


def test_an_unwritable_journal_folder_and_a_full_disk_are_problems(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")  # a folder cannot be made inside a file, also not by root
    check = doctor.check_journal(blocker / "goldtable")
    assert not check.ok and "GOLDTABLE_DATA" in check.text and str(blocker / "goldtable") in check.text
    full = doctor.check_space(tmp_path / "not-yet", usage=lambda _path: SimpleNamespace(free=50 * 10**6))
    assert not full.ok and full.text.startswith(f"only 0.1 GB free on {tmp_path}")
    assert doctor.check_space(tmp_path).ok


def test_the_usb_line_says_where_exports_go_and_why_a_stick_cannot_take_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When History says "Could not save", doctor's usb line says why: a stick locked read-only, full, or
    unreadable; with no stick in, where the exports go instead."""
    monkeypatch.setenv("GOLDTABLE_DATA", str(tmp_path / "data"))
    assert check_usb([]) == Check("usb", True, f"no USB stick: History's exports go to {tmp_path / 'data' / 'exports'}")
    stick = tmp_path / "STICK"

    def stats(flag: int = 0, free_blocks: int = 1000) -> Callable[[Path], SimpleNamespace]:
        return lambda _path: SimpleNamespace(f_flag=flag, f_bavail=free_blocks, f_frsize=4096)

    assert check_usb([stick], stats()) == Check("usb", True, f"{stick}, 4 MB free: History's exports go there")
    assert check_usb([stick], stats(free_blocks=2 * 10**6)).text == f"{stick}, 8.2 GB free: History's exports go there"
    locked = check_usb([stick], stats(flag=os.ST_RDONLY))
    assert not locked.ok and locked.text.startswith(f"{stick} is read-only (its lock switch")
    full = check_usb([stick], stats(free_blocks=10))
    assert full == Check("usb", False, f"{stick} is full: delete files on it, or use another stick")

    def gone(_path: Path) -> SimpleNamespace:
        raise OSError(errno.EIO, "Input/output error")

    assert check_usb([stick], gone) == Check("usb", False, f"{stick} cannot be read (Input/output error): take the "
                                                           "stick out and put it in again")


def test_doctor_exit_code_is_0_only_when_all_is_fine(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    fine = [Check("display", True, "x"), Check("audio", True, "y")]
    monkeypatch.setattr(doctor, "run_checks", lambda **_kwargs: fine)
    assert main(["doctor"]) == 0
    assert capsys.readouterr().out.splitlines() == ["display  ok       x", "audio    ok       y"]
    monkeypatch.setattr(doctor, "run_checks", lambda **_kwargs: [*fine, Check("space", False, "full")])
    assert main(["doctor"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "space    PROBLEM  full"


# -- kiosk ----------------------------------------------------------------------------------------------
def test_desktop_mode_starts_from_the_session_autostart_with_its_display(tmp_path: Path) -> None:
    unit, entry = kiosk_files("desktop", 180, tmp_path, env={}, python="/opt/gt/bin/python3")
    assert unit.path == tmp_path / ".config" / "systemd" / "user" / "goldtable.service"
    assert entry.path == tmp_path / ".config" / "autostart" / "goldtable.desktop"
    assert "ExecStart=/opt/gt/bin/python3 -m companion.cli app --fullscreen" in unit.text
    assert "Environment=KCFG_GRAPHICS_ROTATION=180" in unit.text
    assert "graphical-session.target" not in unit.text and "[Install]" not in unit.text.splitlines()
    assert "Restart=on-failure" in unit.text and "SDL_VIDEODRIVER" not in unit.text
    exec_line = next(line for line in entry.text.splitlines() if line.startswith("Exec="))
    assert "import-environment WAYLAND_DISPLAY DISPLAY" in exec_line
    assert "restart goldtable.service" in exec_line
    assert not any(step.startswith("systemctl --user enable") for step in next_steps("desktop", [unit, entry]))


def test_console_mode_draws_on_kms_and_starts_at_boot(tmp_path: Path) -> None:
    unit, rule = kiosk_files("console", 0, tmp_path, env={"XDG_CONFIG_HOME": str(tmp_path / "cfg")},
                             user="anna")
    assert unit.path == tmp_path / "cfg" / "systemd" / "user" / "goldtable.service"
    assert "Environment=SDL_VIDEODRIVER=kmsdrm" in unit.text and "KCFG_GRAPHICS_ROTATION" not in unit.text
    assert "[Install]\nWantedBy=default.target" in unit.text
    assert 'subject.user == "anna"' in rule.text and "org.freedesktop.login1.power-off" in rule.text
    steps = next_steps("console", [unit, rule])
    assert "systemctl --user enable goldtable.service" in steps and 'sudo loginctl enable-linger "$USER"' in steps
    assert any(step.startswith(f"sudo cp {rule.path} /etc/polkit-1/rules.d/") for step in steps)


def test_a_bad_rotation_is_refused() -> None:
    with pytest.raises(UserError, match="--rotate: 45"):
        kiosk_files("desktop", 45, Path("/nonexistent"), env={})


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("mode", ["desktop", "console"])
def test_systemd_accepts_the_unit(tmp_path: Path, mode: str) -> None:
    unit = kiosk_files(mode, 90, tmp_path, env={}, python=sys.executable)[0]  # type: ignore[arg-type]
    path = tmp_path / "goldtable.service"
    path.write_text(unit.text.replace("WorkingDirectory=%h", f"WorkingDirectory={tmp_path}"))
    result = subprocess.run(["systemd-analyze", "verify", "--man=no", str(path)], capture_output=True, text=True,
                            timeout=60)
    complaints = [line for line in result.stderr.splitlines() if "goldtable.service" in line]
    assert complaints == []


def test_writing_never_replaces_a_users_file_silently(tmp_path: Path) -> None:
    files = kiosk_files("desktop", 0, tmp_path, env={})
    out: list[str] = []
    write_files(files, force=False, dry_run=True, ask=None, out=out.append)
    assert not files[0].path.exists() and any("(new)" in line for line in out)
    write_files(files, force=False, dry_run=False, ask=None, out=out.append)
    assert files[0].path.read_text() == files[0].text
    out.clear()
    write_files(files, force=False, dry_run=False, ask=None, out=out.append)
    assert all(line.startswith("unchanged") for line in out)

    files[0].path.write_text("# my own unit\n")
    with pytest.raises(UserError, match=rf"{files[0].path}: exists with other content; .*--force"):
        write_files(files, force=False, dry_run=False, ask=None, out=out.append)
    asked: list[str] = []
    write_files(files, force=False, dry_run=False, ask=lambda q: asked.append(q) or False, out=out.append)
    assert files[0].path.read_text() == "# my own unit\n" and "Replace it?" in asked[0]
    write_files(files, force=False, dry_run=False, ask=lambda _q: True, out=out.append)
    assert files[0].path.read_text() == files[0].text
    files[0].path.write_text("# my own unit\n")
    write_files(files, force=True, dry_run=False, ask=None, out=out.append)
    assert files[0].path.read_text() == files[0].text


def _goldtable(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], capture_output=True, text=True,
                          env=env, cwd=home, stdin=subprocess.DEVNULL, timeout=120)


def test_kiosk_install_command(tmp_path: Path) -> None:
    dry = _goldtable(["kiosk", "install", "--dry-run"], tmp_path)
    assert dry.returncode == 0 and "After writing them, run:" in dry.stdout
    assert not (tmp_path / ".config").exists()
    done = _goldtable(["kiosk", "install", "--rotate", "90"], tmp_path)
    assert done.returncode == 0, done.stderr
    unit = tmp_path / ".config" / "systemd" / "user" / "goldtable.service"
    assert "KCFG_GRAPHICS_ROTATION=90" in unit.read_text()
    autostart = tmp_path / ".config" / "autostart" / "goldtable.desktop"
    assert autostart.exists()
    # switching mode or rotation replaces what kiosk install wrote itself, without --force or a question
    console = _goldtable(["kiosk", "install", "--mode", "console"], tmp_path)
    assert console.returncode == 0, console.stderr
    assert "SDL_VIDEODRIVER=kmsdrm" in unit.read_text() and "KCFG_GRAPHICS_ROTATION" not in unit.read_text()
    assert not autostart.exists() and f"removed    {autostart}" in console.stdout  # no desktop to start it
    # a unit the user has edited is theirs: kept, and the command says so in one line
    unit.write_text(unit.read_text() + "Environment=MY_SETTING=1\n")
    again = _goldtable(["kiosk", "install"], tmp_path)
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert again.stderr.startswith(f"goldtable: {unit}: exists with other content")
    assert "MY_SETTING" in unit.read_text()


def test_a_unit_the_card_cannot_take_whole_stays_as_it_was(tmp_path: Path) -> None:
    """A card that fills up while `kiosk install --force` replaces the unit: one line, and the old unit is
    still whole (a torn unit would leave the Pi booting to nothing), with nothing beside it."""
    unit = tmp_path / ".config" / "systemd" / "user" / "goldtable.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("# my own unit\n", encoding="utf-8")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config")}
    done = subprocess.run([sys.executable, "-m", "companion.cli", "kiosk", "install", "--force"], env=env,
                          cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
                          preexec_fn=medium_taking(100))
    assert done.returncode == 2 and done.stderr == f"goldtable: {unit}: cannot write: File too large\n"
    assert unit.read_text(encoding="utf-8") == "# my own unit\n"
    assert [entry.name for entry in unit.parent.iterdir()] == ["goldtable.service"]


def test_a_symlinked_unit_keeps_its_link(tmp_path: Path) -> None:
    """Someone who keeps their dotfiles elsewhere and links them in: the file behind the link is replaced."""
    files = kiosk_files("desktop", 0, tmp_path, env={})
    kept = tmp_path / "dotfiles" / "goldtable.service"
    kept.parent.mkdir()
    kept.write_text("# my own unit\n", encoding="utf-8")
    files[0].path.parent.mkdir(parents=True)
    files[0].path.symlink_to(kept)
    write_files(files[:1], force=True, dry_run=False, ask=None, out=lambda _line: None)
    assert files[0].path.is_symlink() and kept.read_text(encoding="utf-8") == files[0].text


# -- power -----------------------------------------------------------------------------------------------
def _runner(returncode: int, stdout: str = "", stderr: str = "") -> Any:
    calls: list[list[str]] = []

    def run(command: list[str], **_kwargs: Any) -> SimpleNamespace:
        calls.append(command)
        return SimpleNamespace(returncode=returncode, stdout=stdout, stderr=stderr)

    run.calls = calls  # type: ignore[attr-defined]
    return run


def test_power_off_is_offered_only_when_logind_says_yes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    assert power.can_power_off(_runner(0, 's "yes"\n'))
    assert not power.can_power_off(_runner(0, 's "challenge"\n'))
    assert not power.can_power_off(_runner(1, "", "Failed to connect to bus"))
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    assert not power.can_power_off(_runner(0, 's "yes"\n'))


def test_power_off_reports_why_it_failed() -> None:
    accepted = _runner(0)
    assert power.power_off(accepted) is None and accepted.calls == [["systemctl", "poweroff"]]
    assert power.power_off(_runner(1, "", "Call to PowerOff failed: Access denied\n")) == \
        "Call to PowerOff failed: Access denied"
    assert power.power_off(_runner(3)) == "systemctl poweroff exited with 3"


def test_restart_runs_the_same_command_again() -> None:
    seen: list[tuple[str, list[str]]] = []
    power.restart(lambda path, argv: seen.append((path, argv)), argv=["app", "--serial", "/dev/ttyACM0"])
    assert seen == [(sys.executable, [sys.executable, "-m", "companion.cli", "app", "--serial", "/dev/ttyACM0"])]


def test_pi_model_file_is_read_through_the_same_helper_as_gpio(tmp_path: Path) -> None:
    root = fake_machine(tmp_path, model="Raspberry Pi 5 Model B Rev 1.0")
    assert machine.raspberry_pi_model(root / "proc" / "device-tree" / "model") == "Raspberry Pi 5 Model B Rev 1.0"


def test_the_units_rotation_setting_turns_kivys_window(tmp_path: Path) -> None:
    """`--rotate` writes KCFG_GRAPHICS_ROTATION; Kivy reads it and turns the window (drawing and touch)."""
    unit = kiosk_files("desktop", 90, tmp_path, env={})[0]
    variable, value = next(line.removeprefix("Environment=").split("=") for line in unit.text.splitlines()
                           if "KCFG_GRAPHICS_ROTATION" in line)
    code = ("from companion.headless import prepare_kivy; prepare_kivy((800, 480), offscreen=True); "
            "from kivy.core.window import Window; print(Window.rotation, *Window.size)")
    env = {**os.environ, variable: value, "KIVY_HOME": str(tmp_path / "kivy"), "GOLDTABLE_DATA": str(tmp_path)}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT,
                            timeout=120)
    assert result.stdout.split() == ["90", "480", "800"], result.stderr[-2000:]
