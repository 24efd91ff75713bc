"""Every `goldtable` command, given a bad file or value, ends with exit 2 and one line on stderr that names
the file or the option: never a traceback, never exit 0, never a changed input file, never anything left
in the temp directory.  Successful Kivy commands print nothing on stderr (issue 16; no display: issue 12).

Each case runs as its own process, as a user would run it, with TMPDIR pointing at an empty folder.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "docs" / "examples"
LAYOUTS = REPO / "layouts"


@dataclass
class Run:
    code: int
    out: str
    err: str
    seconds: float


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    """A private data folder and an empty temp folder for the command under test."""
    (tmp_path / "tmp").mkdir()
    (tmp_path / "data").mkdir()
    return tmp_path


def environment(sandbox: Path, **extra: str) -> dict[str, str]:
    """A user's environment without a display and without what the test process set up for Kivy."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER", "KIVY_HOME")}
    return {**env, "TMPDIR": str(sandbox / "tmp"), "GOLDTABLE_DATA": str(sandbox / "data"), **extra}


def goldtable(sandbox: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 120) -> Run:
    """Run `goldtable ARGS` in a process of its own; afterwards its temp folder must still be empty."""
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "companion.cli", *args], cwd=sandbox,
                            env=environment(sandbox, **(env or {})),
                            capture_output=True, text=True, timeout=timeout)
    left = sorted(path.name for path in (sandbox / "tmp").iterdir())
    assert left == [], f"`goldtable {' '.join(args)}` left {left} in the temp folder"
    return Run(result.returncode, result.stdout, result.stderr, time.monotonic() - start)


def assert_refused(run: Run, *names: str) -> None:
    """Exit 2 and one line (argparse's usage line + error line also pass) naming each of `names`."""
    assert run.code == 2, (run.code, run.err[-2000:])
    assert "Traceback" not in run.err, run.err
    lines = run.err.splitlines()
    assert len(lines) == 1 or (len(lines) == 2 and lines[0].startswith("usage:")), run.err
    for name in names:
        assert name in lines[-1], (name, run.err)


def record(game: str, **changes: object) -> dict:
    data = json.loads((EXAMPLES / f"{game}.json").read_text(encoding="utf-8"))
    data.update(changes)
    return data


def vault(**changes: object) -> dict:
    data = json.loads((LAYOUTS / "gold_connection.json").read_text(encoding="utf-8"))
    data.update(changes)
    return data


def deep_record() -> str:
    return "[" * 100_000 + "]" * 100_000


def long_number_record() -> str:
    text = json.dumps(record("digger"))
    return text.replace('"seed": 2024', '"seed": ' + "7" * 5000, 1)


def chinagold_board(name: str) -> dict:
    return record("chinagold", options={"board": name, "overlay": 0, "opponent_clears_alone": True})


def duplicate_safe() -> dict:
    data = vault()
    first, second, *others = data["safes"]
    data["safes"] = [first, {**second, "id": first["id"]}, *others]
    return data


def write(sandbox: Path, name: str, content: str | bytes | dict) -> Path:
    path = sandbox / name
    if isinstance(content, dict):
        content = json.dumps(content)
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


# (file name, content or a function making it, command with {file} for its path, what the line must name)
FILE_CASES: list[tuple[str, Callable[[], str | bytes | dict], list[str], tuple[str, ...]]] = [
    ("deep.json", deep_record, ["replay", "{file}"], ("{file}", "nested too deeply")),
    ("long.json", long_number_record, ["replay", "{file}"], ("{file}", "digits")),
    ("board.json", lambda: chinagold_board("b" * 5000), ["replay", "{file}"], ("{file}", "board")),
    ("unknown.json", lambda: chinagold_board("no-such-board"), ["replay", "{file}"],
     ("{file}", "board", "no-such-board")),
    ("dup.json", duplicate_safe, ["layout", "render", "{file}", "-o", "out.png"], ("{file}", "used more than once")),
    ("wide.json", lambda: vault(width=1e30), ["layout", "check", "{file}"], ("{file}", "width")),
    ("nan.json", lambda: json.dumps(vault()).replace('"height": 600', '"height": NaN'), ["layout", "check", "{file}"],
     ("{file}", "height")),
    ("far.json", lambda: vault(safe_size=1e300), ["layout", "render", "{file}", "-o", "out.png"],
     ("{file}", "safe_size")),
    ("script.bin", lambda: bytes(range(256)) * 8, ["bridge", "simulate", "--script", "{file}"],
     ("{file}", "not UTF-8")),
    ("deep-pins.json", deep_record, ["bridge", "monitor", "--gpio", "--config", "{file}"], ("{file}",)),
    ("journal.sqlite3", lambda: b"SQLite format 3\x00" + bytes(4096), ["replay", "{file}"],
     ("{file}", "a database such as the game journal", "goldtable export ID -o FILE")),
    ("journal.sqlite3", lambda: b"SQLite format 3\x00" + bytes(4096), ["bridge", "monitor", "--gpio", "--config",
                                                                         "{file}"],
     ("{file}", "a database such as the game journal, not a text file")),
]


@pytest.mark.parametrize(("name", "make", "argv", "names"), FILE_CASES, ids=[case[0] for case in FILE_CASES])
def test_bad_file_is_one_line_and_left_unchanged(sandbox: Path, name: str, make: Callable[[], str | bytes | dict],
                                                 argv: list[str], names: tuple[str, ...]) -> None:
    path = write(sandbox, name, make())
    before = path.read_bytes()
    run = goldtable(sandbox, *(arg.format(file=path) for arg in argv))
    if argv[:2] == ["layout", "check"]:  # its report, one line per problem, is what it was asked for: stdout
        assert run.err == ""
        run.err, run.out = run.out, ""
    assert_refused(run, *(n.format(file=path) for n in names))
    assert path.read_bytes() == before
    assert not (sandbox / "out.png").exists()


OPTION_CASES: list[tuple[list[str], tuple[str, ...]]] = [
    (["screenshot", "table", "x.png", "--game", "chess"], ("--game", "chess")),
    (["screenshot", "home", "folder"], ("OUTPUT", "folder")),
    (["screenshot", "home", "x.png", "--size", "9999x9999"], ("--size",)),
    (["layout", "render", str(LAYOUTS / "gold_connection.json"), "-o", "folder"], ("-o", "folder")),
    (["layout", "render", str(LAYOUTS / "gold_connection.json"), "-o", "picture"], ("-o", ".png")),
    (["bridge", "simulate", "--interval", "-3"], ("--interval",)),
    (["bridge", "simulate", "--interval", "nan"], ("--interval",)),
    (["bridge", "simulate", "--interval", "inf"], ("--interval",)),
    (["bridge", "monitor", "--serial", "socket://localhost:notaport"], ("--serial", "socket://localhost:notaport")),
    (["bridge", "monitor", "--serial", "socket://localhost"], ("--serial", "PORT")),
    (["bridge", "monitor", "--serial", "socket://localhost:7777?colour=red"], ("--serial", "colour=red")),
    (["app", "--serial", "socket://localhost:notaport"], ("--serial", "socket://localhost:notaport")),
    (["app", "--journal", "folder"], ("--journal", "folder")),
    *((command, ("--journal", "the file name is empty")) for command in (
        ["games", "--journal", ""], ["export", "1", "--journal", ""], ["journal", "check", "--journal", ""],
        ["journal", "salvage", "--journal", " ", "-o", "new.sqlite3"],
        ["journal", "backup", "--journal", "", "-o", "c"], ["app", "--journal", ""], ["doctor", "--journal", ""])),
    (["chinagold", "generate", "--seed", "1", "--name", ""], ("--name",)),
    *((command, ("-o: folder is a folder; give the name of a new file in it",)) for command in (
        ["export", "1", "-o", "folder"], ["journal", "backup", "-o", "folder"], ["journal", "salvage", "-o", "folder"],
        ["chinagold", "generate", "--seed", "1", "-o", "folder"])),
]


@pytest.mark.parametrize(("argv", "names"), OPTION_CASES, ids=[" ".join(case[0][:4]) for case in OPTION_CASES])
def test_bad_option_is_one_line(sandbox: Path, argv: list[str], names: tuple[str, ...]) -> None:
    (sandbox / "folder").mkdir()
    run = goldtable(sandbox, *argv, timeout=30)
    assert_refused(run, *names)
    assert sorted(path.name for path in sandbox.iterdir()) == ["data", "folder", "tmp"]  # nothing written
    assert list((sandbox / "folder").iterdir()) == []


def test_app_refuses_a_bad_serial_url_exactly_as_the_monitor_does(sandbox: Path) -> None:
    monitor = goldtable(sandbox, "bridge", "monitor", "--serial", "bogus://x", timeout=30)
    app = goldtable(sandbox, "app", "--serial", "bogus://x", timeout=30)
    assert_refused(monitor, "--serial", "bogus://x")
    assert (app.code, app.err) == (monitor.code, monitor.err)


def test_records_layouts_and_pin_maps_saved_with_a_byte_order_mark_are_read(sandbox: Path) -> None:
    bom = b"\xef\xbb\xbf"
    saved = write(sandbox, "notepad.json", bom + (EXAMPLES / "digger.json").read_bytes())
    run = goldtable(sandbox, "replay", str(saved), "--json")
    assert run.code == 0 and run.err == "", run.err
    assert json.loads(run.out)["game"] == "digger"
    board = write(sandbox, "board.json", bom + (LAYOUTS / "gold_connection.json").read_bytes())
    run = goldtable(sandbox, "layout", "check", str(board))
    assert (run.code, run.out) == (0, f"{board}: ok\n")
    from firmware_bridge.config import DEFAULT_PIN_MAP_PATH, load_pin_map

    pins = write(sandbox, "pins.json", bom + DEFAULT_PIN_MAP_PATH.read_bytes())
    assert load_pin_map(pins) == load_pin_map()


@pytest.mark.ui
def test_successful_kivy_commands_print_nothing_on_stderr_and_log_to_the_data_folder(sandbox: Path) -> None:
    run = goldtable(sandbox, "screenshot", "players", "shot.png")  # a text field: Kivy probes for X11's cut buffer
    assert (run.code, run.err) == (0, "")
    run = goldtable(sandbox, "layout", "render", str(LAYOUTS / "goldgraeber.json"), "-o", "board.png")
    assert (run.code, run.err) == (0, "")
    assert (sandbox / "shot.png").read_bytes()[:4] == (sandbox / "board.png").read_bytes()[:4] == b"\x89PNG"
    log = (sandbox / "data" / "kivy" / "kivy.log").read_text(encoding="utf-8")
    assert "Window: Provider: sdl2" in log  # Kivy's chatter went here instead
    assert "CRITICAL" not in log and "Traceback" not in log  # nor a missing xclip's report, which misleads
    assert sorted(path.name for path in (sandbox / "data").iterdir()) == ["kivy"]  # the demo games are gone
    run = goldtable(sandbox, "layout", "render", str(LAYOUTS / "goldgraeber.json"), "-o", "board.png", "--verbose",
                    "--replace")
    assert run.code == 0 and "Window: Provider: sdl2" in run.err


@pytest.mark.ui
def test_the_app_log_says_when_a_source_came_and_went(sandbox: Path) -> None:
    """The Hardware screen's simulated sensor and pins connect: the bridge says so in the app's log, which
    is what a family sends in when a sensor drops out (not on stderr: a screenshot prints nothing)."""
    run = goldtable(sandbox, "screenshot", "hardware", "shot.png")
    assert (run.code, run.err) == (0, "")
    log = (sandbox / "data" / "kivy" / "kivy.log").read_text(encoding="utf-8")
    assert "INFO firmware_bridge.hub serial: connected (socket://127.0.0.1:" in log
    assert "INFO firmware_bridge.hub gpio: connected (" in log


def test_offscreen_kivy_does_not_probe_for_touch_devices() -> None:
    """The probe would start the mtdev provider; an offscreen render has no touch screen to read."""
    from kivy.config import Config  # the test process prepared Kivy offscreen (tests/conftest.py)

    assert [value for _, value in Config.items("input") if "probesysfs" in value] == []


@pytest.mark.ui
def test_the_app_starts_offscreen_without_a_word_on_stderr(sandbox: Path) -> None:
    process = subprocess.Popen([sys.executable, "-m", "companion.cli", "app", "--offscreen", "--no-gpio"],
                               cwd=sandbox, env=environment(sandbox), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    try:
        journal = sandbox / "data" / "journal.sqlite3"
        deadline = time.monotonic() + 60
        while not journal.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # the journal opens right after the first frame
        assert journal.exists() and process.poll() is None
        time.sleep(1)
    finally:
        process.terminate()  # as systemd stops the kiosk: the app closes itself and exits normally
        _, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (0, "")
    assert list((sandbox / "tmp").iterdir()) == []


def test_the_app_writes_its_frame_log_and_refuses_one_it_cannot_write(sandbox: Path) -> None:
    log = sandbox / "frames.log"
    process = subprocess.Popen([sys.executable, "-m", "companion.cli", "app", "--offscreen", "--no-gpio"],
                               cwd=sandbox, env=environment(sandbox, GOLDTABLE_FRAME_LOG=str(log)),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(log.read_text().splitlines() if log.exists() else []) < 20 and time.monotonic() < deadline:
            time.sleep(0.2)
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert (process.returncode, err) == (0, "")
    rows = [line.split() for line in log.read_text().splitlines()[1:]]
    assert len(rows) >= 20 and all(len(row) == 5 for row in rows)
    assert all(float(row[4]) <= float(row[1]) for row in rows)  # blocked is part of the gap
    assert_refused(goldtable(sandbox, "app", "--offscreen", env={"GOLDTABLE_FRAME_LOG": str(sandbox / "no" / "f")}),
                   "GOLDTABLE_FRAME_LOG", str(sandbox / "no" / "f"))


def test_timer_beeps_are_written_to_a_private_folder_that_is_removed(sandbox: Path) -> None:
    code = ("from companion.headless import prepare_kivy; prepare_kivy((800, 480));"
            "from companion.app.timer import Sounds; import tempfile, pathlib;"
            "s = Sounds(); s.play('warning'); s.play('expired');"
            "print(sorted(p.name for p in pathlib.Path(tempfile.gettempdir()).rglob('*')))")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=environment(sandbox, SDL_AUDIODRIVER="dummy"),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    during = result.stdout.strip()
    assert "expired.wav" in during and "warning.wav" in during and "goldtable-sounds-" in during
    assert list((sandbox / "tmp").iterdir()) == []


# -- no display (issue 12) ----------------------------------------------------------------------------

def free_x_display() -> int:
    """A display number no X server uses here."""
    for number in range(90, 200):
        path = f"/tmp/.X11-unix/X{number}"
        if not os.path.exists(path):
            with socket.socket(socket.AF_UNIX) as probe:
                try:
                    probe.connect("\0" + path)
                except OSError:
                    return number
    pytest.skip("no free X display number")


@pytest.fixture
def broken_x_server() -> Iterator[int]:
    """Something listening where an X server would, that hangs up at once (a dying or foreign server):
    the socket check passes and SDL itself cannot open a window."""
    number = free_x_display()
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(f"\0/tmp/.X11-unix/X{number}")
    listener.listen(8)
    listener.settimeout(0.2)
    stop = False

    def serve() -> None:
        while not stop:
            try:
                connection, _ = listener.accept()
            except OSError:
                continue
            connection.close()

    import threading

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield number
    stop = True
    thread.join()
    listener.close()


def assert_no_display(run: Run) -> None:
    assert_refused(run, "no display", "--offscreen", "DISPLAY", "kmsdrm")
    assert run.seconds < 15


def test_app_without_any_display_exits_at_once(sandbox: Path) -> None:
    assert_no_display(goldtable(sandbox, "app", "--no-gpio", timeout=30))


def test_app_with_display_set_to_a_dead_x_server_exits_at_once(sandbox: Path) -> None:
    run = goldtable(sandbox, "app", "--no-gpio", env={"DISPLAY": f":{free_x_display()}"}, timeout=30)
    assert_no_display(run)
    assert "no X server is listening" in run.err


def test_app_with_a_dead_wayland_socket_exits_at_once(sandbox: Path) -> None:
    run = goldtable(sandbox, "app", "--no-gpio", env={"WAYLAND_DISPLAY": "wayland-9",
                                                      "XDG_RUNTIME_DIR": str(sandbox)}, timeout=30)
    assert_no_display(run)
    assert "WAYLAND_DISPLAY=wayland-9" in run.err


@pytest.mark.ui
def test_app_on_a_display_sdl_cannot_use_exits_instead_of_drawing_offscreen(sandbox: Path,
                                                                          broken_x_server: int) -> None:
    run = goldtable(sandbox, "app", "--no-gpio", env={"DISPLAY": f":{broken_x_server}"}, timeout=30)
    assert_no_display(run)
    assert "SDL could not open a window" in run.err


def test_a_generated_board_never_writes_over_a_file_someone_edited(sandbox: Path) -> None:
    edited = write(sandbox, "board.json", "{\"kind\": \"chinagold-board\", \"name\": \"ours\"}\n")
    before = edited.read_bytes()
    run = goldtable(sandbox, "chinagold", "generate", "--seed", "3", "-o", str(edited), timeout=60)
    assert_refused(run, str(edited), "already exists")
    assert edited.read_bytes() == before
    fresh = sandbox / "new.json"
    for _ in range(2):  # the same board again lands on the same file
        run = goldtable(sandbox, "chinagold", "generate", "--seed", "3", "-o", str(fresh), timeout=60)
        assert (run.code, run.out) == (0, f"{fresh}\n"), run.err


def test_a_picture_already_there_is_drawn_over_only_with_replace(sandbox: Path) -> None:
    """Someone's earlier screenshot or board picture is kept unless they say so; refused before drawing."""
    shot = write(sandbox, "shot.png", b"an earlier picture")
    run = goldtable(sandbox, "screenshot", "home", str(shot), timeout=30)
    assert_refused(run, "OUTPUT", str(shot), "already exists; add --replace")
    board = write(sandbox, "board.png", b"an earlier picture")
    render = ["layout", "render", str(LAYOUTS / "gold_connection.json"), "-o", str(board), "--size", "200x150"]
    run = goldtable(sandbox, *render, timeout=30)
    assert_refused(run, "-o", str(board), "already exists; add --replace")
    assert shot.read_bytes() == board.read_bytes() == b"an earlier picture"
    run = goldtable(sandbox, *render, "--replace")
    assert (run.code, run.out) == (0, f"{board}\n"), run.err
    assert board.read_bytes().startswith(b"\x89PNG")
