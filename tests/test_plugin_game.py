"""A game is found through its entry point alone: Dice race, a game from outside Goldtable (tests/plugins),
shows up in the CLI, in records and the journal, for the camera and in the put-back guide without a line of
Goldtable changed for it (its Home and table are tests/app/test_plugin_game_home.py's, its rules in play the
conformance suite's).  Without it the shipped games are as they were; a plugin that is broken or declared
twice is named and leaves the other games working."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.registry import GameUnavailable, all_games, declared, get_game, plugin_for, problems
from companion.engine.session import Session
from tests.plugin_games import installed, plugin_folder

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ["chinagold", "digger", "gold_connection", "goldgraeber"]


def goldtable(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The CLI in a process of its own, which finds the installed games itself (PYTHONPATH as set now)."""
    paths = os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))
    return subprocess.run([sys.executable, "-m", "companion.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": paths}, timeout=120)


def race(journal: Journal | None = None, **options: object) -> Session:
    """A game of Dice race for Ada and Ben, played to its end: Ada always advances, Ben stays."""
    session = Session.new(Setup(game="dice_race", players=(Player(name="Ada"), Player(name="Ben")),
                                options=options, seed=3), journal)
    while not session.is_over():
        if "roll" in session.prompt().expects:
            assert session.submit({"type": "roll", "values": ["6"]}, "touch").accepted
        else:
            ada = session.prompt().player == 0
            assert session.submit({"type": "advance" if ada else "stay"}, "touch").accepted
    return session


def test_the_plugin_is_one_of_the_games_while_it_is_installed(dice_race: str) -> None:
    assert declared() == sorted([*SHIPPED, dice_race]) and problems() == []
    game = get_game(dice_race)
    assert (game.title, game.min_players, game.max_players) == ("Dice race", 2, 4)
    assert plugin_for(dice_race).table is None and plugin_for(dice_race).controller is None


def test_without_the_plugin_the_shipped_games_are_all_there_is() -> None:
    assert declared() == SHIPPED and sorted(all_games()) == SHIPPED and problems() == []
    with pytest.raises(GameUnavailable, match=r"unknown game 'dice_race' \(known: chinagold, digger, "
                                              r"gold_connection, goldgraeber\)"):
        get_game("dice_race")


def test_its_games_are_journalled_listed_exported_and_replayed_by_the_cli(dice_race: str, tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite3")
    try:
        race(journal, finish=12)
    finally:
        journal.close()
    listed = goldtable("games", "--journal", "journal.sqlite3", "--json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    [game] = json.loads(listed.stdout)
    assert (game["game"], game["finished"], game["players"]) == (dice_race, True, ["Ada", "Ben"])
    exported = goldtable("export", str(game["id"]), "--journal", "journal.sqlite3", "-o", "race.json", cwd=tmp_path)
    assert exported.returncode == 0, exported.stderr
    replayed = goldtable("replay", "race.json", "--json", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    assert json.loads(replayed.stdout) == {"game": dice_race, "over": True, "actions": 6,
                                           "scores": {"Ada": 12, "Ben": 0}, "winners": ["Ada"]}


def test_a_record_of_a_game_that_is_not_installed_is_one_line_naming_the_games_there_are(tmp_path: Path) -> None:
    with installed():
        (tmp_path / "race.json").write_text(race().record().to_json(), encoding="utf-8")
    result = goldtable("replay", "race.json", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr == (
        "goldtable: race.json: game: unknown game 'dice_race' (known: chinagold, digger, gold_connection, "
        "goldgraeber)\n")


def test_the_camera_reads_the_dice_the_plugin_declares(dice_race: str) -> None:
    from companion.camera.profile import game_dice, game_faces, needs_teaching

    assert game_dice(dice_race) == (("1", "2", "3", "4", "5", "6"),)
    assert game_faces(dice_race) == ("1", "2", "3", "4", "5", "6") and not needs_teaching(dice_race)


def test_an_undo_says_in_the_plugins_own_words_what_to_put_back(dice_race: str) -> None:
    from companion.app import i18n
    from companion.engine.putback import put_back

    session = Session.new(Setup(game=dice_race, players=(Player(name="Ada"), Player(name="Ben")), seed=1))
    for action in ({"type": "roll", "values": ["3"]}, {"type": "advance"},
                   {"type": "roll", "values": ["3"]}, {"type": "advance"}):  # Ben lands on Ada: she goes back
        assert session.submit(action, "touch").accepted
    now = session.state
    assert session.undo().accepted
    said = sorted(i18n.phrase_text(dice_race, line) for line in put_back(dice_race, now, session.state))
    assert said == ["Put Ada's pawn back from the start to square 3.",
                    "Put Ben's pawn back from square 3 to the start."]
    i18n.set_language("de")
    try:
        said = sorted(i18n.phrase_text(dice_race, line) for line in put_back(dice_race, now, session.state))
    finally:
        i18n.set_language("en")
    assert said == ["Stell die Figur von Ada vom Start zurück auf Feld 3.",
                    "Stell die Figur von Ben von Feld 3 zurück auf den Start."]


def test_a_broken_plugin_is_named_and_the_other_games_still_work(tmp_path: Path) -> None:
    folder = plugin_folder(tmp_path / "site", "broken_game", "broken = broken_game:GAME",
                            "import no_such_dependency\n")
    record = tmp_path / "digger.json"
    digger = Session.new(Setup(game="digger", players=(Player(name="A"), Player(name="B"))))
    record.write_text(digger.record().to_json(), encoding="utf-8")
    with installed(folder):
        assert sorted(all_games()) == SHIPPED and declared() == sorted([*SHIPPED, "broken"])
        why = ("game 'broken' cannot be loaded: broken_game:GAME cannot be imported "
               "(ModuleNotFoundError: No module named 'no_such_dependency')")
        assert problems() == [why]
        with pytest.raises(GameUnavailable, match="broken_game:GAME cannot be imported"):
            get_game("broken")
        replayed = goldtable("replay", str(record), cwd=tmp_path)
        assert replayed.returncode == 0 and replayed.stdout.startswith("digger: 0 actions"), replayed.stderr
        (tmp_path / "broken.json").write_text(record.read_text(encoding="utf-8").replace('"digger"', '"broken"'),
                                              encoding="utf-8")
        refused = goldtable("replay", "broken.json", cwd=tmp_path)
        assert refused.returncode == 2 and refused.stderr == f"goldtable: broken.json: game: {why}\n"


def test_a_game_two_packages_declare_is_played_by_neither(dice_race: str, tmp_path: Path) -> None:
    folder = plugin_folder(tmp_path / "site", "other_race", "dice_race = other_race:GAME", "GAME = None\n")
    with installed(folder):
        assert sorted(all_games()) == SHIPPED
        [why] = problems()
        assert why.startswith("game 'dice_race' is declared by more than one package (") and "other_race 1.0" in why
        assert why.endswith("uninstall all but one")
        with pytest.raises(GameUnavailable, match="declared by more than one package"):
            get_game(dice_race)
