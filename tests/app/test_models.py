"""The pure parts of the app without a window: rules documents, settings, the options form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.app.rules_doc import find_rule, parse_rules, rule_book
from companion.app.settings import AppSettings, load_settings, save_settings
from companion.app.viewmodels import describe_field
from companion.engine.journal import default_path
from companion.engine.paths import data_dir
from companion.engine.registry import get_game

DOC = """# Test game — rules
Our words.
## Rules
### TG-1 First rule
A rule that is
wrapped over lines.

Second paragraph.
Tests: `tests/x.py::test_a`
### TG-2 Second rule
- one
- two
## Readings we chose
### TG-R1 A reading
Default and option.
"""


def test_rules_document_is_parsed_by_id() -> None:
    book = parse_rules(DOC)
    assert book.title == "Test game — rules"
    assert [rule.id for rule in book.rules] == ["TG-1", "TG-2", "TG-R1"]
    first = book.get("TG-1")
    assert first is not None and first.text == "A rule that is wrapped over lines.\n\nSecond paragraph."
    assert book.get("TG-2").text == "- one\n- two"  # type: ignore[union-attr]
    assert book.get("TG-R1").section == "Readings we chose"  # type: ignore[union-attr]
    assert [rule.id for rule in book.search("wrapped")] == ["TG-1"]


def test_every_digger_refusal_rule_is_in_the_documents() -> None:
    book = rule_book("digger")
    assert len(book.rules) >= 10
    for rule_id in ("DIG-4", "DIG-6", "DIG-12", "DIG-R3", "TABLE-1", "TABLE-2"):
        assert find_rule("digger", rule_id) is not None, rule_id


def test_settings_live_beside_the_journal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("GOLDTABLE_DATA", str(tmp_path))
    assert data_dir() == default_path().parent
    monkeypatch.delenv("GOLDTABLE_DATA")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert data_dir() == default_path().parent


def test_settings_round_trip_and_bad_values_fall_back(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    settings = AppSettings(language="fr", sound=False)
    save_settings(settings, path)
    assert load_settings(path) == settings
    path.write_text(json.dumps({"language": "xx", "sound": "loud", "players": [{"name": "Anna", "colour": "#fff"},
                                                                               {"name": ""}, 7]}))
    loaded = load_settings(path)
    assert loaded.language == "system" and loaded.sound is True
    assert [player.name for player in loaded.players] == ["Anna"]
    path.write_text("{not json")
    assert load_settings(path) == AppSettings()


def test_options_form_kinds_come_from_the_model() -> None:
    model = get_game("digger").options_model
    kinds = {name: describe_field(name, info)["kind"] for name, info in model.model_fields.items()}
    assert kinds["side"] == "choice"
    assert kinds["timer_seconds"] == "int"
    assert kinds["fumble_needs_black"] == "bool"
    assert kinds["black_cards"] == "other"
    timer = describe_field("timer_seconds", model.model_fields["timer_seconds"])
    assert (timer["min"], timer["max"]) == (5, 600)


def test_a_bad_serial_url_is_reported_not_fatal() -> None:
    from companion.app.hardware import default_sources

    sources, problems = default_sources(gpio=False, serial_url="nonsense://sensor")
    assert sources == []
    assert problems and problems[0].startswith("serial nonsense://sensor:")


def test_bridge_events_read_as_short_lines_in_the_app_s_language() -> None:
    from companion.app.hardware import event_line
    from firmware_bridge.events import NO_USB_DEVICE, ButtonEvent, RejectedEvent, RollEvent, StatusEvent, TimerEvent

    events = [RollEvent(source="sensor", seq=3, values=("Y", "R", "B", "K", "G")),
              RollEvent(source="sensor", values=("Y", "?")), ButtonEvent(source="gpio", name="stop", action="down"),
              TimerEvent(source="sensor", state="flip"), StatusEvent(source="sensor", state="link_lost"),
              StatusEvent(source="gpio", state="connected", detail="19 inputs, 1 LEDs via MockFactory"),
              StatusEvent(source="sensor", state="hello", device="sim-1", firmware="sim-1.0"),
              RejectedEvent(source="sensor", reason="checksum", frame="$ROLL,1*00")]
    assert [event_line(event, "en") for event in events] == [
        "sensor: roll Y R B K G", "sensor: roll Y ? (unsure)", "GPIO pins: button stop pressed",
        "sensor: hourglass turned over", "sensor: link lost (no heartbeat)",
        "GPIO pins: connected: 19 inputs, 1 LED via MockFactory", "sensor: device sim-1, firmware sim-1.0",
        "sensor: frame refused (checksum): $ROLL,1*00"]
    assert [event_line(event, "de") for event in events] == [
        "sensor: Wurf Y R B K G", "sensor: Wurf Y ? (unsicher)", "GPIO-Pins: Taste stop gedrückt",
        "sensor: Sanduhr umgedreht", "sensor: Verbindung verloren (kein Lebenszeichen)",
        "GPIO-Pins: verbunden: 19 Eingänge, 1 LED über MockFactory", "sensor: Gerät sim-1, Firmware sim-1.0",
        "sensor: Rahmen abgewiesen (checksum): $ROLL,1*00"]
    assert event_line(StatusEvent(source="sensor", state="disconnected", detail="/dev/ttyACM0: gone"), "fr") == \
        "sensor\u00a0: hors ligne (/dev/ttyACM0: gone)"
    unplugged = StatusEvent(source="serial", state="disconnected", detail=NO_USB_DEVICE.format(ids="2E8A:0005"))
    assert event_line(unplugged, "fr") == ("capteur série\u00a0: hors ligne "
                                           "(aucun appareil série d'identifiant USB 2E8A:0005)")
    assert event_line(unplugged, "de") == "serieller Sensor: getrennt (kein serielles Gerät mit der USB-ID 2E8A:0005)"


def test_every_status_detail_of_the_bridge_is_said_in_the_app_s_language() -> None:
    """The sources write their status details in English (the log's language); the Hardware screen says each
    in the app's language, its fields (an address, a number) carried over."""
    from companion.app.hardware import detail_text
    from firmware_bridge.events import STATUS_DETAILS

    fields = {"ids": "2E8A:0005", "seconds": "2.5", "camera": "/dev/video0"}
    for template in STATUS_DETAILS:
        detail = template.format(**fields)
        for language in ("de", "fr"):
            said = detail_text(detail, language)
            assert said != detail, (language, detail)
            assert all(value in said for name, value in fields.items() if "{" + name + "}" in template)
    assert detail_text("socket://127.0.0.1:1: [Errno 111] Connection refused", "fr") == \
        "socket://127.0.0.1:1: [Errno 111] Connection refused"


def test_the_gpio_source_s_own_connected_line_is_said_in_the_app_s_language() -> None:
    """The app reads the counts out of the GPIO source's status detail: this pins that sentence."""
    from gpiozero.pins.mock import MockFactory

    from companion.app.hardware import event_line
    from firmware_bridge.config import load_pin_map
    from firmware_bridge.gpio import GpioSource

    events: list[object] = []
    source = GpioSource(load_pin_map(), pin_factory=MockFactory(), tick_interval=None)
    source.start(events.append)
    try:
        line = event_line(events[0], "de")
    finally:
        source.stop()
    assert line.startswith("GPIO-Pins: verbunden: ") and " Eingänge, " in line and line.endswith(" über MockFactory")


def test_the_hardware_screen_s_source_details_are_in_the_app_s_language() -> None:
    from companion.app.screens.table_text import sources_text

    info = {"kind": "serial", "name": "sensor", "url": "socket://127.0.0.1:1", "connected": True, "pending": None,
            "acked": 1, "pins": {"stop": 5}}
    assert sources_text([info], [], False, "de") == ("sensor: verbunden\n   Art: serieller Sensor, Adresse: "
                                                     "socket://127.0.0.1:1, wartet auf Antwort: –, verbucht: 1")
    assert sources_text([info], [], False, "fr").startswith("sensor\u00a0: en ligne\n"
                                                            "   type\u00a0: capteur série, adresse\u00a0: ")
    assert sources_text([{**info, "name": "serial"}], [], False, "de").startswith("serieller Sensor: verbunden\n")
    assert "wartet auf Antwort: Rahmen 7," in sources_text([{**info, "pending": 7}], [], False, "de")


def test_players_seat_order_colours_and_first_player() -> None:
    from companion.app.settings import RememberedPlayer
    from companion.app.viewmodels import PlayersModel

    settings = AppSettings(players=(RememberedPlayer(name="Anna", colour="#d64541"),
                                    RememberedPlayer(name="Ben", colour="#3a7bd5"),
                                    RememberedPlayer(name="Chloé", colour="#2e9e5b")))
    model = PlayersModel()
    model.load(get_game("digger"), settings)
    assert [seat["name"] for seat in model.seats] == ["Anna", "Ben", "Chloé"]
    model.set_first(1)
    model.move(1, -1)  # Ben moves up a seat; he stays the first player
    assert [seat["name"] for seat in model.seats] == ["Ben", "Anna", "Chloé"] and model.first_player == 0
    model.next_colour(0)
    colours = [seat["colour"] for seat in model.seats]
    assert len(set(colours)) == 3 and colours[0] != "#3a7bd5"
    model.rename(2, "Anna")
    assert model.problem == "Two players have the same name."
    model.rename(2, "Chloé")
    model.remove(2)
    model.remove(1)  # Digger needs two players: the last removal is refused
    assert len(model.seats) == 2 and not model.problem
    remembered = model.remember(AppSettings(players=settings.players))
    assert [player.name for player in remembered.players] == ["Ben", "Anna", "Chloé"]


def test_a_remembered_name_takes_a_placeholder_seat_then_a_new_seat_then_the_last_seat() -> None:
    """Tapping an earlier player fills "Player N" first (a fresh table starts with two of them), adds a
    seat while there is room, and at a full table takes the last seat, whose name is offered again."""
    from companion.app.settings import RememberedPlayer
    from companion.app.viewmodels import PlayersModel

    model = PlayersModel()
    model.load(get_game("digger"), AppSettings())
    assert [seat["name"] for seat in model.seats] == ["Player 1", "Player 2"] and not model.knows_names
    model.seat_remembered("Anna")
    assert [seat["name"] for seat in model.seats] == ["Anna", "Player 2"]
    model.seat_remembered("Ben")
    model.seat_remembered("Chloé")
    assert [seat["name"] for seat in model.seats] == ["Anna", "Ben", "Chloé"]

    full = PlayersModel()
    full.load(get_game("chinagold"), AppSettings(players=(RememberedPlayer(name="Mia", colour="#d64541"),
                                                          RememberedPlayer(name="Leo", colour="#3a7bd5"))))
    full.seat_remembered("Ben")
    assert [seat["name"] for seat in full.seats] == ["Mia", "Ben"] and "Leo" in full.remembered
    assert full.knows_names


def test_a_seat_still_called_player_n_is_not_remembered_as_a_person() -> None:
    """A table of Pi and "Player 2": the next table must not seat that remembered "Player 2" beside a new
    "Player 2" (two players of one name, and Pi then took the remembered one's seat and colour)."""
    from companion.app.settings import RememberedPlayer
    from companion.app.viewmodels import PlayersModel

    model = PlayersModel()
    model.load(get_game("chinagold"), AppSettings(), bot_name="Pi")
    model.seat_remembered("Pi")
    settings = model.remember(AppSettings(players=(RememberedPlayer(name="Player 1", colour="#3a7bd5"),)))
    assert settings.players == ()
    again = PlayersModel()
    again.load(get_game("chinagold"), AppSettings(players=(RememberedPlayer(name="Player 2", colour="#d64541"),)),
               bot_name="Pi")  # (as an older version remembered it)
    assert [seat["name"] for seat in again.seats] == ["Player 1", "Player 2"] and not again.problem
    assert again.remembered == ["Pi"] and not again.knows_names


def test_a_game_goldtable_can_play_offers_its_seat_first_and_never_remembers_it_as_a_person() -> None:
    from companion.app.settings import RememberedPlayer
    from companion.app.viewmodels import PlayersModel

    settings = AppSettings(players=(RememberedPlayer(name="Mia", colour="#d64541"),
                                    RememberedPlayer(name="Leo", colour="#3a7bd5"),
                                    RememberedPlayer(name="Pi", colour="#2e9e5b")))
    model = PlayersModel()
    model.load(get_game("chinagold"), settings, bot_name="Pi")
    assert model.remembered == ["Pi"]  # (Mia and Leo are seated; the old "Pi" entry is not offered twice)
    model.seat_remembered("Pi")
    assert [seat["name"] for seat in model.seats] == ["Mia", "Pi"] and model.remembered == ["Leo"]
    assert [player.name for player in model.remember(settings).players] == ["Mia", "Leo"]
