"""Places read right in French and German.  A place is named by a Phrase (`games/<id>/words.py`, the put-back
places); a sentence asks for the grammatical form it needs (`{source:de}` reads "du milieu" in French,
`{target:wohin}` "in die Mitte" in German; `engine/putback.py`, `Word`).  Every place of every board is put into
every sentence that names a place, in English, French and German, and the text must read without "de le",
"à les", doubled articles, German "in dem" for "im", English words, or a form the catalog does not have."""

from __future__ import annotations

import copy
import gettext
import pickle
import re
import string
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from companion.app.i18n import set_language
from companion.app.table import TableModel
from companion.engine.core import Player, Setup
from companion.engine.putback import CONTEXT_SEPARATOR, Instruction, Phrase, Word, put_back
from companion.engine.registry import get_game
from tests.engine.test_putback import STEPS
from tests.test_table_words import GAMES, plays, shown

LOCALE = Path(__file__).resolve().parents[1] / "companion" / "locale"
#: The parameters through which engine messages name one place.
PLACE_PARAMS = {"source", "target", "field", "safe", "here", "there", "heading", "place", "start", "end"}
BAD = {
    "en": {"doubled article": r"\b(?i:the) the\b"},
    "fr": {"de/à with le/les": r"\b(?i:de|à) (le|les)\b",
           "doubled article": r"\b(?i:le|la|les|l'|du|des|au|aux) (le|la|les|l'|du|des|au|aux)\b",
           "no elision before a name": r"(?<![\w'])(?:de|que) [AEIOUYÀÂÉÈÊÎÔÛ]",
           "no article": r"\b(?i:dans|sur|vers|de|à|en|depuis|sous) (coffre|case|rive|maison|main|rangée|aiguillage|"
                         r"marqueur|plateau|banque|milieu|boîte)\b"},
    "de": {"doubled article": r"\b(?i:der|die|das|den|dem|des) (der|die|das|den|dem|des)\b",
           "uncontracted": r"\b(?i:von|in|an|bei|zu) dem\b|\b(?i:in|an|auf) das\b|\b(?i:zu) der\b",
           "no article": r"\b(?i:auf|in|nach|von|aus|zu|bei|unter|an) (Grabungsfeld|Wegfeld|Ufer|Haus|Hand|Kiste|Mitte|"
                         r"Dose|Bank|Ablagefach|Marker|Chips)\b"},
}
#: English words that must not show in a French or German sentence (lower case: German nouns are capitalised).
ENGLISH = (r"\b(the|of|from|into|onto|back|field|fields|safe|row|marker|shore|lake|house|hand|box|tin|middle|tray|"
           r"bank|left|right|north|south|east|west|stone|stones|bar|bars|figure|raft|chip|chips|just)\b")


def observed() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(game, template, params) of every put-back instruction, prompt, event and refusal of whole games."""
    for game_id, make in STEPS.items():
        for before, after, _ in make():
            for instruction in put_back(game_id, after, before):
                yield game_id, instruction.message, dict(instruction.params)
    for game_id in GAMES:
        game = get_game(game_id)
        for setup, actions in plays(game_id):
            for _kind, message, params in shown(game, setup, actions):
                yield game_id, message, dict(params or {})


def board_places(game_id: str) -> list[Phrase]:
    """Every place on the game's board in table words."""
    if game_id == "gold_connection":
        from companion.games.gold_connection.board import load_vault
        from companion.games.gold_connection.words import safe_words

        return [safe_words(spot.id) for spot in load_vault().layout.safes]
    if game_id == "goldgraeber":
        from companion.games.goldgraeber.board import load_board
        from companion.games.goldgraeber.words import field_words

        setup = Setup(game="goldgraeber", players=tuple(Player(name=n) for n in ("Anna", "Ben", "Chloé", "David")))
        state = get_game("goldgraeber").initial_state(setup)  # four of the six houses have an owner
        return [field_words(field, state) for field in load_board().ids]
    if game_id == "chinagold":
        from companion.games.chinagold.board import get_board
        from companion.games.chinagold.words import site_words

        setup, _actions = next(plays("chinagold"))
        state: Any = get_game("chinagold").initial_state(setup)
        return [site_words(site, state) for site in range(get_board(state.board, state.overlay).size)]
    return []  # Digger's places are the middle, the tin, a hand and a box: all met in the put-back games


@cache
def sentences() -> dict[str, dict[tuple[str, str], tuple[dict[str, Any], dict[str, Phrase]]]]:
    """Per game: (template, place parameter) -> (params as met, every place met in that parameter)."""
    found: dict[str, dict[tuple[str, str], tuple[dict[str, Any], dict[str, Phrase]]]] = {game: {} for game in GAMES}
    for game_id, template, params in observed():
        for key, value in params.items():
            if key in PLACE_PARAMS and isinstance(value, Phrase) and value.message.strip("{}p0123456789,; "):
                entry = found[game_id].setdefault((template, key), (params, {}))
                entry[1][value.model_dump_json()] = value  # a place, not a list of them ("{p0}, {p1}")
    return found


def variants(game_id: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every sentence that names a place with each place met there, and with every place of the board where it
    named one of the board's."""
    board = {place.message: place for place in board_places(game_id)}
    board_list = board_places(game_id)
    for (template, key), (params, met) in sentences()[game_id].items():
        places = list(met.values())
        if any(place.message in board for place in places):
            places += board_list
        for place in places:
            yield template, {**params, key: place}


def catalog(domain: str, language: str) -> gettext.NullTranslations:
    return gettext.translation(domain, str(LOCALE), languages=[language], fallback=True)


def lookup(domain: str, language: str, message: str) -> str:
    """The game's catalog, then the app's (as the app looks words up)."""
    found = catalog(domain, language).gettext(message)
    return found if found != message else catalog("goldtable", language).gettext(message)


def missing_forms(domain: str, language: str, translated: str, params: dict[str, Any]) -> list[str]:
    """The forms a translated template asks of its Phrase parameters that the catalogs do not give, looking
    into each form's own words too."""
    missing = []
    for _text, name, spec, _conversion in string.Formatter().parse(translated):
        value = params.get(name or "")
        if not isinstance(value, Phrase):
            continue
        inner = lookup(domain, language, value.message)
        if spec:
            key = f"{spec}{CONTEXT_SEPARATOR}{value.message}"
            inner = lookup(domain, language, key)
            if inner == key:
                missing.append(f"{spec} of {value.message!r}")
                continue
        missing += missing_forms(domain, language, inner, dict(value.params))
    return missing


@pytest.mark.parametrize("game_id", GAMES)
@pytest.mark.parametrize("language", ["en", "fr", "de"])
def test_every_place_reads_right_in_every_sentence(game_id: str, language: str) -> None:
    table = TableModel()
    game = get_game(game_id)
    set_language(language)
    problems: dict[str, str] = {}
    count = 0
    try:
        table.session = SimpleNamespace(game=game, setup=None)
        for template, params in variants(game_id):
            text = table.game_text(template, params)
            count += 1
            for what, pattern in BAD[language].items():
                if re.search(pattern, text):
                    problems.setdefault(text, what)
            if language != "en":
                if re.search(ENGLISH, text):
                    problems.setdefault(text, "English word")
                for form in missing_forms(game_id, language, lookup(game_id, language, template), params):
                    problems.setdefault(f"{template!r} with {params}", f"no form {form}")
    finally:
        set_language("en")
    assert count > {"digger": 6, "gold_connection": 500, "goldgraeber": 2000, "chinagold": 500}[game_id]
    assert not problems, "\n".join(f"{what}: {text}" for text, what in list(problems.items())[:30])


def test_a_form_is_the_catalogs_entry_with_that_context_and_the_plain_text_without_one() -> None:
    words = {"the middle": "le milieu", f"de{CONTEXT_SEPARATOR}the middle": "du milieu",
             "the {colour} stone": "la pierre {colour:f}", f"f{CONTEXT_SEPARATOR}white": "blanche",
             "white": "blanc"}
    translate = lambda message: words.get(message, message)  # noqa: E731 — a catalog in one line
    middle, stone = Phrase(message="the middle"), Phrase(message="the {colour} stone",
                                                         params={"colour": Phrase(message="white")})
    word = middle.text(translate)
    assert isinstance(word, Word) and word == "le milieu"
    assert f"{word:de} / {word:à} / {word} / {word:>10}" == "du milieu / le milieu / le milieu /  le milieu"
    assert stone.text(translate) == "la pierre blanche"  # a form inside a phrase's own words
    assert stone.text() == "the white stone" and f"{middle.text():de}" == "the middle"  # English has no forms
    assert type(copy.deepcopy(word)) is str and pickle.loads(pickle.dumps(word)) == "le milieu"


def test_a_form_asked_of_a_plain_word_falls_back_to_the_english_sentence() -> None:
    from companion.app.i18n import game_text

    set_language("fr")
    try:  # a number where a place was expected must not break the sentence
        text = game_text("digger", "Put the {colour} stone from {source} back into {target}.",
                         {"colour": "blue", "source": 3, "target": Phrase(message="the middle")})
    finally:
        set_language("en")
    assert text == "Put the blue stone from 3 back into the middle."



def test_french_elides_before_names_and_colours_agree_with_the_stone() -> None:
    """"de" becomes "d'" before a name that begins with a vowel or a mute h, not before a consonant; a
    colour word takes the form the sentence asks for ("une pierre blanche", not "blanc")."""
    from companion.app.i18n import game_text

    time_up = "Time is up for {digger}: {lost} stone(s) go back to the middle."
    set_language("fr")
    try:
        names = [game_text("digger", time_up, {"digger": name, "lost": 2}) for name in ("Anna", "Ben", "Hugo")]
        took = game_text("digger", "{digger} took a {colour} stone from the middle.",
                         {"digger": "Émile", "colour": "white"})
    finally:
        set_language("en")
    assert [text.split(" est ")[0] for text in names] == ["Le temps d'Anna", "Le temps de Ben", "Le temps d'Hugo"]
    assert took == "Émile a pris une pierre blanche au milieu."


def test_german_stones_are_named_by_a_declined_colour() -> None:
    """"einen gelben Stein", "kein gelber Stein": the colour declined as the sentence needs, never the
    clumsy "ein Stein der Farbe gelb"."""
    from companion.app.i18n import game_text

    set_language("de")
    try:
        took = game_text("digger", "{digger} took a {colour} stone from the middle.",
                         {"digger": "Chloé", "colour": "yellow"})
        none_left = game_text("digger", "No {colour} stone is left in the middle.", {"colour": "white"})
        robbed = game_text("digger", "{digger} robbed a {colour} stone from {victim}.",
                           {"digger": "Anna", "colour": "red", "victim": "Ben"})
    finally:
        set_language("en")
    assert took == "Chloé hat einen gelben Stein aus der Mitte genommen."
    assert none_left == "In der Mitte liegt kein weißer Stein mehr."
    assert robbed == "Anna hat Ben einen roten Stein geraubt."


def test_french_sentences_about_a_player_agree_with_no_gender() -> None:
    """A name says nothing of its bearer, so a French sentence never makes a participle agree with one
    ("Anna est replacé"): it speaks of the player's piece instead."""
    from companion.app.i18n import game_text
    from companion.engine.putback import Phrase

    rail_field = Phrase(message="rail field {number}", params={"number": 6})
    set_language("fr")
    try:
        set_back = game_text("goldgraeber", "{name} is set back to {field}.", {"name": "Anna", "field": rail_field})
    finally:
        set_language("en")
    assert set_back.startswith("Le pion d'Anna est replacé "), set_back


@pytest.mark.parametrize(("language", "said"), [
    ("de", "Jetzt schürft Ben; die Sanduhr hat Anna (Meister der Zeit)."),
    ("fr", "Ben cherche maintenant ; Anna tient le sablier (maître du temps).")])
def test_the_keeper_of_the_time_is_named_by_the_sand_timer_not_by_a_gendered_title(language: str, said: str) -> None:
    """Digger's "master of time" is the game's word for a task, not something a player is ("Anna ist Meister
    der Zeit"): the sentence says who holds the sand timer and names the task beside it."""
    from companion.app.i18n import game_text

    set_language(language)
    try:
        text = game_text("digger", "{digger} digs next; {keeper} keeps the time.", {"digger": "Ben", "keeper": "Anna"})
    finally:
        set_language("en")
    assert text == said


def test_the_undo_screens_put_back_lines_elide_before_names_too() -> None:
    """The put-back list after an undo is written by `companion.app.putback`, not `game_text`: the same
    French ("la flèche d'Anna du coffre 6")."""
    from companion.app.putback import lines
    from companion.games.gold_connection.board import load_vault
    from companion.games.gold_connection.words import safe_words

    six = next(safe for safe, number in load_vault().numbers.items() if number == 6)

    def take_off(name: str) -> Instruction:
        return Instruction(message="Take {name}'s arrow off {source}.",
                           params={"name": name, "source": safe_words(six)})

    set_language("fr")
    try:
        shown = lines("gold_connection", [take_off("Anna"), take_off("Ben")])
    finally:
        set_language("en")
    assert shown == "• Retirer la flèche d'Anna du coffre 6.\n• Retirer la flèche de Ben du coffre 6."


def test_french_goldgraeber_names_the_robber_as_its_rulebook_does() -> None:
    """The French rulebook calls the robber "voleur" throughout; the table, the undo and the options say the
    same, never "bandit" beside it."""
    catalog = Path(__file__).resolve().parents[1] / "companion/locale/fr/LC_MESSAGES/goldgraeber.po"
    said = [line for line in catalog.read_text(encoding="utf-8").splitlines() if line.startswith(("msgstr", '"'))]
    assert said and not [line for line in said if "bandit" in line.lower()]
    assert any("voleur" in line for line in said)
