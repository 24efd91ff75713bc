"""A wheel built from the repository, installed NON-editable into a fresh venv (no system site-packages),
runs from another directory: replay, layout check on a user's edited copy, screenshots that read the
shipped layouts and rule texts, doctor and the kiosk templates.  So every file read at run time must be
package data (companion/data, locale, kv, kiosk templates).

Builds the wheel with this venv's pip (`pip wheel --no-deps`, with build isolation) and installs the
dependencies, pip having a home and a cache of its own in the test's folder: about a minute on this
machine, hence marked `slow` (deselect with `-m "not slow"` for a quick run; the default run includes it).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.cli import main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "companion", "firmware_bridge", "layouts", "docs")


class Installed:
    """The wheel, the venv it went into, and a way to run its `goldtable` somewhere else."""

    def __init__(self, base: Path, wheel: Path) -> None:
        self.base = base
        self.wheel = wheel
        self.venv = base / "venv"
        self.elsewhere = base / "elsewhere"
        self.elsewhere.mkdir()
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("PYTHONPATH", "VIRTUAL_ENV", "KIVY_HOME", "GOLDTABLE_DATA")}
        self.env.update(HOME=str(base / "home"), GOLDTABLE_DATA=str(base / "data"), PYTHONDONTWRITEBYTECODE="1",
                        XDG_CONFIG_HOME=str(base / "home" / ".config"))

    def run(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.venv / "bin" / "goldtable"), *args], capture_output=True, text=True,
                              cwd=self.elsewhere, env=self.env, timeout=timeout, stdin=subprocess.DEVNULL)


def own_home(home: Path) -> dict[str, str]:
    """The environment with a home of its own, for pip and the venv's ensurepip: pip asks `rustc --version`
    for its user agent, and rustup then writes ~/.rustup; pip's cache would land in the user's home too.
    The user's own pip settings are still read."""
    home.mkdir(exist_ok=True)
    return {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_CONFIG_HOME": os.environ.get("XDG_CONFIG_HOME", str(Path.home() / ".config"))}


def _pip(*args: str, home: Path, python: str = sys.executable) -> None:
    result = subprocess.run([python, "-m", "pip", "--disable-pip-version-check", "-q", *args],
                            capture_output=True, text=True, timeout=900, env=own_home(home))
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    base = tmp_path_factory.mktemp("wheel")
    source = base / "source"  # a copy, so the build's build/ and egg-info never land in the work tree
    source.mkdir()
    for name in SOURCES:
        origin = ROOT / name
        if origin.is_dir():
            shutil.copytree(origin, source / name, symlinks=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
        else:
            shutil.copy2(origin, source / name)
    home = base / "pip-home"
    _pip("wheel", "--no-deps", "-w", str(base / "dist"), str(source), home=home)
    wheel = next((base / "dist").glob("goldtable-*.whl"))
    subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True, timeout=300, env=own_home(home))
    _pip("install", str(wheel), home=home, python=str(base / "venv" / "bin" / "python"))
    yield Installed(base, wheel)
    shutil.rmtree(base, ignore_errors=True)


def test_the_wheel_holds_the_run_time_files(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for shipped in (ROOT / "layouts").rglob("*.json"):
        assert f"companion/data/layouts/{shipped.relative_to(ROOT / 'layouts').as_posix()}" in names
    for rules in (ROOT / "docs" / "rules").glob("*.md"):
        assert f"companion/data/rules/{rules.name}" in names
    for kiosk in ("goldtable.service", "goldtable.desktop", "50-goldtable-poweroff.rules"):
        assert f"companion/system/kiosk/{kiosk}" in names
    for required in ("companion/locale/de/LC_MESSAGES/goldtable.mo", "companion/app/screens/settings.kv",
                     "companion/games/digger/app/table.kv", "firmware_bridge/pinmap.default.json"):
        assert required in names
    entry_points = next(name for name in names if name.endswith(".dist-info/entry_points.txt"))
    games = zipfile.ZipFile(installed.wheel).read(entry_points).decode().split("[goldtable.games]")[1]
    assert {line.split(" = ")[0] for line in games.split("[")[0].split("\n") if " = " in line} == {
        "chinagold", "digger", "gold_connection", "goldgraeber"}  # every game is found through its entry point


def test_it_runs_from_the_installed_package_not_the_source_tree(installed: Installed) -> None:
    where = subprocess.run([str(installed.venv / "bin" / "python"), "-c",
                            "import companion.data, companion.layout as l; print(l.LAYOUTS_DIR)"],
                           capture_output=True, text=True, cwd=installed.elsewhere, env=installed.env, timeout=60)
    layouts = Path(where.stdout.strip())
    assert layouts.is_relative_to(installed.venv) and not layouts.is_symlink()
    assert (layouts / "goldgraeber.json").read_bytes() == (ROOT / "layouts" / "goldgraeber.json").read_bytes()


@pytest.mark.parametrize("game", ["digger", "goldgraeber"])
def test_replay_from_another_directory(installed: Installed, game: str, capsys: pytest.CaptureFixture[str]) -> None:
    record = installed.elsewhere / f"{game}.json"
    shutil.copy(ROOT / "docs" / "examples" / f"{game}.json", record)
    result = installed.run("replay", record.name, "--json")
    assert result.returncode == 0, result.stderr
    assert main(["replay", str(record), "--json"]) == 0
    assert json.loads(result.stdout) == json.loads(capsys.readouterr().out)


def test_layout_check_on_a_users_edited_copy(installed: Installed) -> None:
    copy = installed.elsewhere / "my-vault.json"
    shutil.copy(ROOT / "layouts" / "gold_connection.json", copy)
    good = installed.run("layout", "check", copy.name)
    assert good.returncode == 0, good.stderr
    data = json.loads(copy.read_text(encoding="utf-8"))
    data["kind"] = "no-such-kind"
    copy.write_text(json.dumps(data), encoding="utf-8")
    bad = installed.run("layout", "check", copy.name)
    assert bad.returncode == 2 and bad.stderr.startswith("goldtable: my-vault.json: kind: unknown layout kind")


@pytest.mark.parametrize(("screen", "game"), [("rules", "gold_connection"), ("table", "goldgraeber"),
                                              ("settings", "digger")])
def test_screenshots_read_the_shipped_data(installed: Installed, screen: str, game: str) -> None:
    result = installed.run("screenshot", screen, f"{screen}.png", "--game", game, "--lang", "de")
    assert result.returncode == 0, result.stderr[-2000:]
    png = installed.elsewhere / f"{screen}.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000


def test_doctor_and_kiosk_templates_from_the_wheel(installed: Installed) -> None:
    doctor = installed.run("doctor")
    assert doctor.returncode in (0, 1) and doctor.stderr == ""
    assert [line.split()[0] for line in doctor.stdout.splitlines()] == ["display", "gpio", "serial", "audio",
                                                                       "journal", "space", "usb"]
    kiosk = installed.run("kiosk", "install", "--dry-run", "--mode", "console")
    assert kiosk.returncode == 0 and f"{installed.venv}/bin/python" in kiosk.stdout
