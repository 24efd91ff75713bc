"""The shipped pin map, docs/hardware.md's pin table and the wiring picture agree, and the map has the parts
issue 12 asks for: six Digger colour buttons and Chinagold's hint button."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

from PIL import Image

from companion.engine.registry import all_games, declared, plugin_for
from companion.games.digger.rules import FACES
from firmware_bridge.config import load_pin_map

ROOT = Path(__file__).resolve().parents[2]
HARDWARE = ROOT / "docs" / "hardware.md"
PICTURE = ROOT / "docs" / "wiring" / "gpio-wiring.png"


def load_script(path: Path) -> ModuleType:
    """A file that is not in a package (a drawing script, the Pico's board.py) loaded as a module."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def drawing() -> ModuleType:
    return load_script(ROOT / "docs" / "wiring" / "draw_wiring.py")


def test_the_default_map_has_colour_and_hint_buttons_on_free_pins() -> None:
    pin_map = load_pin_map()
    assert {name for name in pin_map.buttons if name.startswith("colour_")} == {f"colour_{face}" for face in FACES}
    assert "hint" in pin_map.buttons
    assert sorted(pin for pin, _ in pin_map.pin_uses()) == list(range(2, 28))  # each GPIO once, all of them


def test_the_pin_table_in_hardware_md_is_the_shipped_map() -> None:
    pin_map = load_pin_map()
    draw = drawing()
    header_pin = {bcm: pin for pin, bcm in draw.BCM_AT_PIN.items()}
    section = HARDWARE.read_text(encoding="utf-8").split("### Pin map (shipped default")[1].split("###")[0]
    rows = re.findall(r"^\| (.+?) \| (\d+) \| (\d+) \| (\d+) \|$", section, re.M)
    documented = {}
    for what, bcm, pin, ground in rows:
        found = re.search(r"`(\w+)`", what)
        name = found.group(1) if found else "buzzer"
        label = f"buttons.{name}" if what.startswith("button") else f"leds.{name}" if what.startswith("LED") else name
        documented[label] = int(bcm)
        assert header_pin[int(bcm)] == int(pin), what
        assert int(ground) == draw.nearest_ground(int(pin)) and int(ground) in draw.GROUND, what
    assert documented == {label: pin for pin, label in pin_map.pin_uses()}


def test_the_wiring_picture_is_drawn_from_the_map(tmp_path: Path) -> None:
    draw = drawing()
    out = draw.render(tmp_path / "wiring.png")
    with Image.open(out) as fresh, Image.open(PICTURE) as committed:
        assert fresh.size == committed.size == (draw.W, draw.H)
    wired = draw.uses({"buttons": {"colour_Y": 8, "hint": 24}, "leds": {"seat1": 4}, "buzzer": 18,
                       "timer_tilt": 26})
    assert wired == {8: ("colour", "colour_Y  (Digger die Y)"), 24: ("button", "button hint"),
                     4: ("led", "LED seat1 + 330 Ω"), 18: ("buzzer", "buzzer  (1 kΩ to NPN base)"),
                     26: ("switch", "timer_tilt  (tilt switch, hourglass)")}
    assert "gpio-wiring.png" in HARDWARE.read_text(encoding="utf-8")


NO_USE = "no use in this game"


def section(title: str) -> str:
    return HARDWARE.read_text(encoding="utf-8").split(f"### {title}")[1].split("\n##")[0]


def per_game_rows() -> dict[str, tuple[int, dict[str, str]]]:
    """The per-game table: input name -> (GPIO in the doc, {game id: what it does}); its columns are the
    shipped games, by their titles."""
    ids = {game.title: game_id for game_id, game in all_games().items()}
    games: list[str] = []
    rows = {}
    for line in section("What each wired part does in each game").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if cells[:2] == ["part", "GPIO"]:
            games = [ids[title] for title in cells[2:]]
            assert sorted(games) == declared(), "one column per game"
        name = re.match(r"`(\w+)`", cells[0]) if games and len(cells) == 2 + len(games) else None
        if name:
            rows[name.group(1)] = (int(cells[1]), dict(zip(games, cells[2:])))
    return rows


def test_every_wired_input_has_a_job_or_no_use_in_every_game() -> None:
    pin_map = load_pin_map()
    inputs = {**pin_map.buttons, "timer_tilt": pin_map.timer_tilt, "timer_flat": pin_map.timer_flat}
    rows = per_game_rows()
    assert set(rows) == set(inputs), "every pin-map input has exactly one row in the per-game table"
    for name, (gpio, jobs) in rows.items():
        assert gpio == inputs[name], f"{name}: the per-game table says GPIO {gpio}, the pin map {inputs[name]}"
        assert all(jobs.values()), f"{name}: a game's cell is empty"


def test_the_table_says_no_use_exactly_where_the_game_has_no_such_die_face() -> None:
    """The dice are each game's declared ones (`GamePlugin.dice`): what a sensor must read."""
    face_count = {game: max(len(die) for die in plugin_for(game).dice) for game in declared()}
    colours = {game: {face for die in plugin_for(game).dice for face in die} for game in declared()}
    for name, (_gpio, jobs) in per_game_rows().items():
        for game, job in jobs.items():
            if name.startswith("value_"):
                assert job.startswith(NO_USE) == (int(name[6:]) > face_count[game]), (name, game, job)
            elif name.startswith("colour_"):
                assert job.startswith(NO_USE) == (name[7] not in colours[game]), (name, game, job)
            elif name == "hint":
                assert job.startswith(NO_USE) == (game != "chinagold"), (name, game, job)


def test_gpio_numbers_in_the_prose_are_the_shipped_map() -> None:
    """The interfaces that must stay off are the ones whose pins the map uses, and the buzzer's pin."""
    pin_map = load_pin_map()
    text = HARDWARE.read_text(encoding="utf-8")
    used = {pin for pin, _ in pin_map.pin_uses()}
    assert re.findall(r"GPIO (\d+) → 1 kΩ → base", text) == [str(pin_map.buzzer)]
    for bus, pins in (("I²C", {2, 3}), ("SPI", set(range(7, 12)))):
        found = re.search(rf"\*\*{bus}\*\*\s+\(GPIO (\d+)[/–](\d+)", text)
        assert found, bus
        first, last = int(found.group(1)), int(found.group(2))
        documented = {first, last} if bus == "I²C" else set(range(first, last + 1))
        assert documented == pins and pins <= used, bus
    assert "on GPIO 14/15" in text and {14, 15} <= used


def pico_board() -> ModuleType:
    return load_script(ROOT / "firmware_bridge" / "firmware" / "board.py")


def pico_tray_drawing() -> ModuleType:
    return load_script(ROOT / "docs" / "wiring" / "draw_pico_tray.py")


def test_the_colour_tray_section_is_board_py() -> None:
    board = pico_board()
    pico_pin = pico_tray_drawing().PICO_PIN
    tray = section("Digger's 5-die colour tray")
    cell = r" (GP[AB]?\d+) \((Pico )?pin (\d+)\) \|"
    rows = re.findall(rf"^\| (\d) \|{cell}{cell}{cell}$", tray, re.M)
    assert [int(row[0]) for row in rows] == list(range(1, len(board.EXPANDER_SLOTS) + 1))
    on_pico = []
    for row, slot in zip(rows, board.EXPANDER_SLOTS):
        for bit, line in enumerate(slot):
            name, pico, pin = row[1 + 3 * bit], row[2 + 3 * bit], int(row[3 + 3 * bit])
            assert name == line
            if line[:3] in ("GPA", "GPB"):
                number = int(line[3])
                assert not pico and number < 7, f"{line}: GPA7/GPB7 are outputs only, never a die bit"
                assert pin == (21 + number if line[2] == "A" else 1 + number)
            else:
                assert pico and pin == pico_pin[int(line[2:])]
                on_pico.append((int(line[2:]), pin))
    # the Pico line is in the Pico pin table and on no other part of the board
    pico_table = section("Pin map (`firmware_bridge/firmware/board.py`)")
    for gp, pin in on_pico:
        assert re.search(rf"^\| colour tray: die \d bit \d \| {gp} \| {pin} \|$", pico_table, re.M), gp
        assert gp not in [*board.BUTTONS.values(), *board.LEDS.values(), *board.EXPANDER_I2C[1:], board.BUZZER,
                          board.TIMER_TILT, board.TIMER_FLAT, board.TRAY_MOTION]
    assert "GPA7 and GPB7 (pins 28 and 8): leave them unconnected" in tray
    _block, sda, scl = board.EXPANDER_I2C
    assert f"GP{sda} (pin {sda + 1}) → expander SDA" in tray and f"GP{scl} (pin {scl + 1}) → SCL" in tray
    assert f"**0x{board.EXPANDER_ADDRESS:02X}**" in tray
    assert f"EXPANDER_I2C = {board.EXPANDER_I2C}" in tray and f"EXPANDER_FREQ = {board.EXPANDER_FREQ}" in tray
    codes = section("Dice reader")
    faces = re.search(r"^\| colour tray reads \|(.+)\|$", codes, re.M)
    assert faces and [cell.strip()[1] for cell in faces.group(1).split("|")] == list(board.COLOUR_FACES)
    assert set(board.COLOUR_FACES[1:7]) == set(FACES) and board.COLOUR_FACES[0] == board.COLOUR_FACES[7] == "?"


def test_the_colour_tray_picture_is_drawn_from_board_py(tmp_path: Path) -> None:
    draw = pico_tray_drawing()
    out = draw.render(tmp_path / "tray.png")
    with Image.open(out) as fresh, Image.open(ROOT / "docs" / "wiring" / "pico-colour-tray.png") as committed:
        assert fresh.size == committed.size == (draw.W, draw.H)
    assert [draw.expander_pin(n) for n in (0, 7, 8, 15)] == [("GPA0", 21), ("GPA7", 28), ("GPB0", 1), ("GPB7", 8)]
    assert [draw.slot_line(name) for name in ("GPA6", "GPB0", "GP15", "GP0")] == [(True, 27), (True, 1), (False, 20),
                                                                                 (False, 1)]
    assert "wiring/pico-colour-tray.png" in HARDWARE.read_text(encoding="utf-8")


def test_the_face_strings_in_the_doc_give_each_game_its_own_faces() -> None:
    """A tray set up as the doc says reads faces the game accepts (codes 1-6), and `?` for 0 and 7."""
    from companion.games.gold_connection.rules import DIE_FACES as PIP
    from companion.games.goldgraeber.rules import DIE_FACES as GOLDGRAEBER

    board = pico_board()
    reader = section("Dice reader")
    pip = re.search(r'`PIP_FACES = "([^"]+)"` for pip dice', reader)
    locomotive = re.search(r'`"([^"]+)"` for the Goldgräber die', reader)
    colour = re.search(r'`COLOUR_FACES = "([^"]+)"` for\s+Digger', reader)
    assert pip and locomotive and colour
    assert pip.group(1) == board.PIP_FACES and colour.group(1) == board.COLOUR_FACES
    for faces, game_faces in ((pip.group(1), PIP), (locomotive.group(1), GOLDGRAEBER), (colour.group(1), FACES)):
        assert faces[0] == faces[7] == "?" and tuple(faces[1:7]) == tuple(game_faces), faces
