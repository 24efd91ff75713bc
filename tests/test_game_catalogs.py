"""Every game's messages (engine, and its table panel where the panel uses the game's domain) have a German
and a French translation that keeps their placeholders, and the compiled catalogs match the .po files."""

from __future__ import annotations

import ast
import gettext
import re
import string
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.app.test_locale import read_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "companion" / "locale"
LANGUAGES = ("de", "fr")


@dataclass(frozen=True)
class GameDomain:
    """One game's gettext domain and where its translatable messages come from."""

    game: str
    sources: tuple[str, ...]
    markers: tuple[str, ...]  # the functions that mark a message for this domain in those sources
    least_messages: int  # a floor, so a broken extraction cannot pass by finding nothing
    least_po_entries: int
    same_in: frozenset[tuple[str, str]] = frozenset()  # (language, message) pairs that rightly stay as-is

    def messages(self) -> set[str]:
        return {message for source in self.sources
                for message in marked(ast.parse((ROOT / source).read_text(encoding="utf-8")), self.markers)}


def marked(tree: ast.AST, markers: tuple[str, ...]) -> list[str]:
    """The string literals a call of one of `markers` (N_, _) marks for translation in `tree`."""
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in markers
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)]


DOMAINS = [
    GameDomain("digger", ("companion/games/digger/rules.py", "companion/games/digger/words.py",
                         "companion/games/digger/putback.py"), ("N_",), least_messages=21, least_po_entries=1),
    GameDomain("gold_connection",
               ("companion/games/gold_connection/rules.py", "companion/games/gold_connection/words.py",
                "companion/games/gold_connection/putback.py", "companion/games/gold_connection/app/table.py",
                "companion/games/gold_connection/app/controller.py"),
               ("N_", "_"), least_messages=81, least_po_entries=81,
               same_in=frozenset({("fr", "distance {distance}"), ("de", "{safe}: {bars}"),
                                  ("de", "{colour} {number}"), ("fr", "{colour} {number}")})),  # blau 3, bleu 3
    GameDomain("goldgraeber", ("companion/games/goldgraeber/rules.py", "companion/games/goldgraeber/words.py",
                              "companion/games/goldgraeber/putback.py", "companion/games/goldgraeber/app/table.py"),
               ("N_", "_"), least_messages=61, least_po_entries=1,
               same_in=frozenset({("de", "Gold {value}"),  # German says Gold too
                                  ("de", "Golden City"), ("fr", "Golden City")})),  # the town's name on the board
    GameDomain("chinagold", ("companion/games/chinagold/rules.py", "companion/games/chinagold/words.py",
                            "companion/games/chinagold/putback.py", "companion/games/chinagold/app/table.py",
                            "companion/games/chinagold/app/controller.py"),
               ("N_", "_"), least_messages=45, least_po_entries=45,
               same_in=frozenset({("de", "Pi"), ("fr", "Pi"),  # the Pi opponent's name
                                  ("de", "{who}: {move}")})),  # German sets its colon as English does
]
CASES = [(domain, language) for domain in DOMAINS for language in LANGUAGES]
CASE_IDS = [f"{domain.game}-{language}" for domain, language in CASES]


def placeholders(text: str) -> set[str]:
    """The `{names}` a message formats (a malformed template raises instead of passing)."""
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def unescape(text: str) -> str:
    """A .po string literal's body as the text it stands for."""
    return text.replace("\\n", "\n").replace('\\"', '"')


@pytest.mark.parametrize(("domain", "language"), CASES, ids=CASE_IDS)
def test_every_message_is_translated_with_its_placeholders(domain: GameDomain, language: str) -> None:
    catalog = gettext.translation(domain.game, str(LOCALE), languages=[language])
    messages = domain.messages()
    assert len(messages) >= domain.least_messages
    for message in messages:
        translated = catalog.gettext(message)
        assert translated != message or (language, message) in domain.same_in, f"{language}: {message!r} untranslated"
        assert placeholders(translated) == placeholders(message), f"{language}: {message!r}"


@pytest.mark.parametrize(("domain", "language"), CASES, ids=CASE_IDS)
def test_no_entry_outlives_its_message(domain: GameDomain, language: str) -> None:
    """Every sentence a game's catalog translates is still said somewhere: a game's messages, its "not
    now" refusal, its options' descriptions and choices.  An entry left behind by a reworded message
    costs translators work for nothing and hides that the new wording has no translation."""
    from companion.app.i18n import CHOICE_CONTEXT
    from companion.app.viewmodels import describe_field
    from companion.engine.registry import get_game

    game = get_game(domain.game)
    said = domain.messages() | {game.not_now_message}
    choices: set[str] = set()
    for name, info in game.options_model.model_fields.items():
        field = describe_field(name, info)
        said.add(field["description"])
        choices |= {str(value).replace("_", " ") for value in field.get("choices") or ()}
    said |= choices
    said |= {f"{CHOICE_CONTEXT}\x04{choice}" for choice in choices}
    entries = read_po(LOCALE / language / "LC_MESSAGES" / f"{domain.game}.po")
    sentences = [key for key in entries if isinstance(key, str)  # (other contexts: a word's forms)
                 and ("\x04" not in key or key.startswith(f"{CHOICE_CONTEXT}\x04"))]
    assert [message for message in sentences if message not in said] == []


@pytest.mark.parametrize("game_id", sorted({domain.game for domain, _language in CASES}))
def test_a_switch_is_described_in_on_and_off(game_id: str) -> None:
    """An option shown as a switch names its two sides as the switch does ("on"/"off"), never in
    programmers' words ("True"/"False") that a family reads beside an ON switch."""
    from companion.app.viewmodels import describe_field
    from companion.engine.registry import get_game

    for name, info in get_game(game_id).options_model.model_fields.items():
        field = describe_field(name, info)
        if field["kind"] == "bool":
            assert not re.search(r"\b(True|False)\b", field["description"]), field["description"]


@pytest.mark.parametrize("game_id", sorted({domain.game for domain, _language in CASES}))
def test_an_option_that_cites_its_rule_begins_with_it(game_id: str) -> None:
    """The Options screen lists every option alike: "GG-R7: gold under robbers ...", never the rule's id
    at the start of one line and at the end of the next."""
    from companion.engine.registry import get_game

    for info in get_game(game_id).options_model.model_fields.values():
        cited = re.findall(r"\b[A-Z]{2,3}-R?\d+\b", info.description or "")
        assert not cited or (info.description or "").startswith(cited[0]), info.description


def test_english_option_choices_read_as_words_and_their_words_stay_plain_in_messages() -> None:
    """An option's value ("app", "table") is shown to a family in words ("Goldtable deals") through the
    catalog's `choice` entries; the same word as a message's parameter is left alone (a player may be
    called Table)."""
    from companion.app import i18n

    i18n.set_language("en")
    assert i18n.choice_text("gold_connection", "app") == "Goldtable deals"
    assert i18n.choice_text("goldgraeber", "two_fields_only") == "only between two fields"
    assert i18n.choice_text("goldgraeber", "no_step_back") == "no step back"  # (no entry: the words)
    assert i18n.game_text("gold_connection", "{player} gets {chips} chips.", {"player": "table", "chips": 2}) \
        == "table gets 2 chips."
    i18n.set_language("de")
    try:
        assert i18n.choice_text("gold_connection", "app") == "die App teilt aus"  # (the plain entry)
    finally:
        i18n.set_language("en")


#: The words of a count in each language, for 1 and for 2 (French also says 0 in the singular).
COUNTED = {
    "chips": {"en": ("1 chip", "2 chips"), "de": ("1 Chip", "2 Chips"), "fr": ("1 jeton", "2 jetons")},
    "open chips": {"en": ("1 open chip", "2 open chips"), "de": ("1 offenen Chip", "2 offene Chips"),
                   "fr": ("1 jeton", "2 jetons")},
    "points": {"en": ("1 point", "2 points"), "de": ("1 Punkt", "2 Punkte"), "fr": ("1 point", "2 points")},
    "bars": {"en": ("1 bar", "2 bars"), "de": ("1 Barren", "2 Barren"), "fr": ("1 lingot", "2 lingots")},
    "safes": {"en": ("1 safe", "2 safes"), "de": ("1 Schrank", "2 Schränke"), "fr": ("1 coffre", "2 coffres")},
    "fields": {"en": ("1 field", "2 fields"), "de": ("1 Feld", "2 Felder"), "fr": ("1 case", "2 cases")},
    "steps": {"en": ("1 step", "2 steps"), "de": ("1 Schritt", "2 Schritte"), "fr": ("1 pas", "2 pas")},
    "markers": {"en": ("1 marker", "2 markers"), "de": ("1 Marker", "2 Marker"), "fr": ("1 marqueur", "2 marqueurs")},
    "markers turned": {"en": ("1 marker turned", "2 markers turned"),
                       "de": ("1 Marker umgedreht", "2 Marker umgedreht"),
                       "fr": ("1 marqueur retourné", "2 marqueurs retournés")},
    "tiles are": {"en": ("1 tile is", "2 tiles are"), "de": ("1 Wurfplättchen ist", "2 Wurfplättchen sind"),
                  "fr": ("1 plaquette est", "2 plaquettes sont")},
    "stones": {"en": ("1 stone", "2 stones"), "de": ("1 Stein", "2 Steine"), "fr": ("1 pierre", "2 pierres")},
    "values were given": {"en": ("1 value was given", "2 values were given"),
                          "de": ("1 Wert wurde angegeben", "2 Werte wurden angegeben"),
                          "fr": ("1 valeur a été donnée", "2 valeurs ont été données")},
}
#: Every game message about a number of things: its domain, template, other words, and which parameters count what.
COUNTS: list[tuple[str, str, dict[str, object], dict[str, str]]] = [
    ("goldgraeber", "{name} brings {count} chips home ({points} points).", {"name": "Anna"},
     {"count": "chips", "points": "points"}),
    ("goldgraeber", "The robber beats {name} and keeps {count} chips.", {"name": "Anna"}, {"count": "chips"}),
    ("goldgraeber", "{name} captures the robber with {count} chips.", {"name": "Anna"}, {"count": "chips"}),
    ("goldgraeber", "{name} wins the brawl and takes {count} chips from {loser}.", {"name": "Anna", "loser": "Ben"},
     {"count": "chips"}),
    ("goldgraeber", "The engine driver {driver} takes {count} open chips from {name}.",
     {"driver": "Anna", "name": "Ben"}, {"count": "open chips"}),
    ("goldgraeber", "Face down: {count} chips\nRobber behind one: {chance}%\nAverage dig: {gold:.1f} nuggets",
     {"chance": 50, "gold": 2.5}, {"count": "chips"}),
    ("goldgraeber", "Robber of strength {strength} on {field} (guarding {loot} chips): roll higher to win.",
     {"strength": 3, "field": "Golden City"}, {"loot": "chips"}),
    ("goldgraeber", "Tap a highlighted field ({steps} steps).", {}, {"steps": "steps"}),
    ("goldgraeber", "Move your figure exactly {steps} fields.", {}, {"steps": "fields"}),
    ("goldgraeber", "After the fight the figure moves away exactly {steps} fields; {field} is not one of them.",
     {"field": "Golden City"}, {"steps": "fields"}),
    ("goldgraeber", "{field} cannot be reached with exactly {steps} steps.", {"field": "Golden City"},
     {"steps": "steps"}),
    ("gold_connection", "{player} spends {count} chips.", {"player": "Anna"}, {"count": "chips"}),
    ("gold_connection", "Spend {count} chips", {}, {"count": "chips"}),
    ("gold_connection", "{name}: {score} points, {chips} chips, {bars} bars", {"name": "Anna"},
     {"score": "points", "chips": "chips", "bars": "bars"}),
    ("gold_connection", "{victim}'s box holds {count} bars; it takes at least 10 to plunder it.", {"victim": "Anna"},
     {"count": "bars"}),
    ("gold_connection", "Lay six shuffled bars into {safe} and enter them ({left} safes to go).", {"safe": "x"},
     {"left": "safes"}),
    ("gold_connection", "Roll {target} or more: {chance}% ({chance_with_chips}% with {chips} chips).",
     {"target": 7, "chance": 50, "chance_with_chips": 60}, {"chips": "chips"}),
    ("gold_connection", "Roll {target} or more: {chance}% · with {chips} chips {chance_with_chips}%",
     {"target": 7, "chance": 50.0, "chance_with_chips": 60.0}, {"chips": "chips"}),
    ("gold_connection", "{player}: roll {target} or more ({chance}%; with your {chips} chips {chance_with_chips}%).",
     {"player": "Anna", "target": 7, "chance": 50, "chance_with_chips": 60}, {"chips": "chips"}),
    ("gold_connection", "Spend exactly {shortfall} chips to reach the target, or none.", {}, {"shortfall": "chips"}),
    ("gold_connection", "{player}: {shortfall} short. Spend {shortfall} chips, or accept the failure.",
     {"player": "Anna"}, {"shortfall": "chips"}),
    ("gold_connection", "The roll fails: put {bars} back into {safe}; {player} gets {chips} chips.",
     {"bars": "y", "safe": "x", "player": "Anna"}, {"chips": "chips"}),
    ("gold_connection", "The roll fails; {player} gets {chips} chips.", {"player": "Anna"}, {"chips": "chips"}),
    ("gold_connection", "The {row} holds at most {capacity} bars.", {"row": "x"}, {"capacity": "bars"}),
    ("gold_connection", "The {row} holds {length} bars; the next ones must be {expected}.",
     {"row": "x", "expected": "y"}, {"length": "bars"}),
    ("digger", "{digger} called Stop and keeps {kept} stone(s).", {"digger": "Anna"}, {"kept": "stones"}),
    ("digger", "{digger} fumbled: {lost} stone(s) taken this turn go back.", {"digger": "Anna"}, {"lost": "stones"}),
    ("digger", "Time is up for {digger}: {lost} stone(s) go back to the middle.", {"digger": "Anna"},
     {"lost": "stones"}),
    ("chinagold", "Turn {total} markers in a straight line, or bury one gold.", {}, {"total": "markers"}),
    ("chinagold", "{count} markers turned: {start} to {end}.", {"start": "A1", "end": "A2"},
     {"count": "markers turned"}),
    ("chinagold", "{want} tiles are in play but {got} values were given.", {},
     {"want": "tiles are", "got": "values were given"}),
]


@pytest.mark.parametrize("language", ["en", "de", "fr"])
@pytest.mark.parametrize(("domain", "template", "words", "counted"), COUNTS, ids=[case[1][:40] for case in COUNTS])
def test_a_count_of_one_reads_in_the_singular(language: str, domain: str, template: str, words: dict[str, object],
                                             counted: dict[str, str]) -> None:
    """A message about a number of things says "1 chip", not "1 chips", in every language, also beside a
    second count ("brings 1 chip home (2 points)"); French also says 0 in the singular."""
    from companion.app.i18n import game_text, set_language

    set_language(language)
    try:
        for number in (1, 2):
            for other in (1, 2):  # each count read beside both forms of the others
                params = {**words, **{name: number if index == 0 else other for index, name in enumerate(counted)}}
                text = game_text(domain, template, params)
                for name, key in counted.items():
                    one, many = COUNTED[key][language]
                    assert (one if params[name] == 1 else many) in text, f"{language}: {text!r} ({name}={params[name]})"
                    wrong = many.replace("2", "1", 1)  # "1 chips"
                    assert params[name] != 1 or wrong == one or wrong not in text, f"{language}: {text!r}"
        if language == "fr":
            key = next(iter(counted.values()))
            zero = COUNTED[key]["fr"][0].replace("1", "0", 1)
            assert zero in game_text(domain, template, {**words, **dict.fromkeys(counted, 0)})
    finally:
        set_language("en")


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_every_counted_word_a_sentence_asks_for_is_in_its_catalog(language: str) -> None:
    """`{count:chips}` in a translated sentence needs the catalog's plural entry "chips" (msgctxt count),
    else the sentence reads in English; any other word after a colon is a form of a place or colour."""
    from companion.app.i18n import COUNT_CONTEXT

    app_po = (LOCALE / language / "LC_MESSAGES" / "goldtable.po").read_text(encoding="utf-8")
    for domain in DOMAINS:
        path = LOCALE / language / "LC_MESSAGES" / f"{domain.game}.po"
        po = path.read_text(encoding="utf-8") if path.exists() else ""
        counts = set(re.findall(rf'^msgctxt "{COUNT_CONTEXT}"\nmsgid "(.*)"$', po, flags=re.M))
        forms = set(re.findall(r'^msgctxt "(.*)"$', po + app_po, flags=re.M)) - {COUNT_CONTEXT}
        catalog = gettext.translation(domain.game, str(LOCALE), languages=[language], fallback=True)
        for message in domain.messages():
            for _, name, spec, _ in string.Formatter().parse(catalog.gettext(message)):
                if name and spec and re.fullmatch(r"[^\W\d_]+(?: [^\W\d_]+)*", spec):
                    assert spec in counts | forms, f"{language}/{domain.game}: {spec!r} of {message!r}"
                    assert spec not in counts & forms, f"{spec!r} is both a count's words and a form"


@pytest.mark.parametrize(("domain", "language"), CASES, ids=CASE_IDS)
def test_compiled_catalog_matches_the_po_file(domain: GameDomain, language: str) -> None:
    po = (LOCALE / language / "LC_MESSAGES" / f"{domain.game}.po").read_text(encoding="utf-8")
    catalog = gettext.translation(domain.game, str(LOCALE), languages=[language])
    entries = re.findall(r'^(?:msgctxt "(.*)"\n)?msgid "(.+)"\nmsgstr "(.*)"$', po, flags=re.M)
    assert len(entries) >= domain.least_po_entries
    for context, msgid, msgstr in entries:
        found = catalog.pgettext(unescape(context), unescape(msgid)) if context else catalog.gettext(unescape(msgid))
        assert found == unescape(msgstr)


@pytest.mark.parametrize(("language", "odds", "average"), [("en", "91.7", "2.5"), ("de", "91,7", "2,5"),
                                                           ("fr", "91,7", "2,5")])
def test_a_number_with_a_fraction_is_written_with_the_languages_decimal_mark(language: str, odds: str,
                                                                           average: str) -> None:
    """German and French write 91,7, in a game's message (Gold Connection's odds, Goldgräber's average
    dig) and on the app's own screens (a player's average score)."""
    from companion.app.i18n import decimal_text, game_text

    text = game_text("gold_connection", "Roll {target} or more: {chance}% · with {chips} chips {chance_with_chips}%",
                     {"target": 4, "chance": 91.7, "chips": 1, "chance_with_chips": 91.7}, language)
    assert text.count(odds) == 2
    assert decimal_text(2.5, ".1f", language) == average and decimal_text(3.0, ".0f", language) == "3"
    dig = game_text("goldgraeber", "Face down: {count} chips\nRobber behind one: {chance}%\nAverage dig: "
                    "{gold:.1f} nuggets", {"count": 4, "chance": 25, "gold": 2.5}, language)
    assert average in dig and ("25%" if language == "en" else "25\u00a0%") in dig


#: German verbs the games' prompts tell a player to do something with, in the infinitive.
INSTRUCTING_INFINITIVES = re.compile(
    r"\b(würfeln|werfen|nehmen|rauben|legen|eingeben|ziehen|wegziehen|setzen|einsetzen|stellen|drehen|annehmen|"
    r"rufen|einräumen|ausräumen|anhalten|wählen|sortieren|vergraben)\b")


def prompt_messages(game_id: str) -> list[str]:
    """Every message a game's `prompt` can show (the N_ literals in its source)."""
    import inspect

    from companion.engine.registry import get_game

    return marked(ast.parse(textwrap.dedent(inspect.getsource(type(get_game(game_id)).prompt))), ("N_",))


@pytest.mark.parametrize("game_id", sorted({domain.game for domain, _language in CASES}))
def test_a_german_prompt_tells_the_player_in_the_du_form(game_id: str) -> None:
    """The prompt speaks to the player whose turn it is ("Anna: würfle …"), as the rulebooks speak to their
    readers; an infinitive ("Anna: würfeln") reads as a label.  Buttons and the setup and put-back
    checklists keep the infinitive."""
    catalog = gettext.translation(game_id, str(LOCALE), languages=["de"])
    messages = prompt_messages(game_id)
    assert len(messages) >= 3
    infinitives = {message: catalog.gettext(message) for message in messages
                   if INSTRUCTING_INFINITIVES.search(catalog.gettext(message))}
    assert infinitives == {}


#: One word for one thing at the table: per game and language, the word the catalog uses (the rulebook's
#: where it has one) and the synonyms that crept in beside it and read as a different piece.
GLOSSARY: dict[tuple[str, str], dict[str, tuple[str, ...]]] = {
    ("gold_connection", "de"): {"Ablagefach": ("Ablage",), "Zug-Zähler": ("Rundenzähler",)},
    ("gold_connection", "fr"): {"lingot": ("barres?",), "aiguillage": ("carrefour",),
                                "compte-tours": ("compteur de tours",)},
    ("goldgraeber", "de"): {"Grabungsfeld": ("Schürffeld(er|ern)?",)},
    ("goldgraeber", "fr"): {"case de voie": ("cases? de rail",), "jetons visibles": ("jetons ouverts", "or ouvert")},
    ("chinagold", "de"): {"Flussscheibe": ("Flussfolie",)},
    ("digger", "de"): {"eingeräumt": (r"verstau\w*",), "Goldwäscher": ("Gräber",)},
    ("goldtable", "de"): {"Wert": ("Lesung",), "Sensorplatine": ("Sensorbrett",)},  # the app's own messages
    ("goldtable", "fr"): {"à l'écran": ("au toucher",), "carte de capteurs": ("carte capteurs",)},
    ("chinagold", "fr"): {"feuille des rivières": ("calque",)},
}


@pytest.mark.parametrize(("domain", "language"), sorted(GLOSSARY))
def test_one_thing_is_called_by_one_word(domain: str, language: str) -> None:
    catalog = gettext.translation(domain, str(LOCALE), languages=[language])
    texts = [text for text in catalog._catalog.values() if isinstance(text, str)]
    assert len(texts) > 50
    for word, synonyms in GLOSSARY[domain, language].items():
        assert any(word in text for text in texts), word
        for synonym in synonyms:
            found = [text for text in texts if re.search(rf"\b{synonym}\b", text)]
            assert found == [], f"{synonym!r} instead of {word!r}"
