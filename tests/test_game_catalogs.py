"""Every game's messages (engine, and its table panel where the panel uses the game's domain) have a German
and a French translation that keeps their placeholders, and the compiled catalogs match the .po files."""

from __future__ import annotations

import ast
import gettext
import re
import string
from dataclasses import dataclass
from pathlib import Path

import pytest

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
        found: set[str] = set()
        for source in self.sources:
            for node in ast.walk(ast.parse((ROOT / source).read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in self.markers \
                        and node.args and isinstance(node.args[0], ast.Constant) \
                        and isinstance(node.args[0].value, str):
                    found.add(node.args[0].value)
        return found


DOMAINS = [
    GameDomain("digger", ("companion/games/digger/rules.py", "companion/games/digger/words.py",
                         "companion/games/digger/putback.py"), ("N_",), least_messages=21, least_po_entries=1),
    GameDomain("gold_connection",
               ("companion/games/gold_connection/rules.py", "companion/games/gold_connection/words.py",
                "companion/games/gold_connection/putback.py", "companion/app/tables/gold_connection.py",
                "companion/app/controllers/gold_connection.py"),
               ("N_", "_"), least_messages=81, least_po_entries=81,
               same_in=frozenset({("fr", "distance {distance}"), ("de", "{safe}: {bars}"),
                                  ("de", "{colour} {number}"), ("fr", "{colour} {number}")})),  # blau 3, bleu 3
    GameDomain("goldgraeber", ("companion/games/goldgraeber/rules.py", "companion/games/goldgraeber/words.py",
                              "companion/games/goldgraeber/putback.py", "companion/app/tables/goldgraeber.py"),
               ("N_", "_"), least_messages=61, least_po_entries=1,
               same_in=frozenset({("de", "Gold {value}"),  # German says Gold too
                                  ("de", "Golden City"), ("fr", "Golden City")})),  # the town's name on the board
    GameDomain("chinagold", ("companion/games/chinagold/rules.py", "companion/games/chinagold/words.py",
                            "companion/games/chinagold/putback.py", "companion/app/tables/chinagold.py"),
               ("N_", "_"), least_messages=45, least_po_entries=45,
               same_in=frozenset({("de", "Pi"), ("fr", "Pi")})),  # the Pi opponent's name
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
        forms = [translated] if translated != message else [catalog.ngettext(message, message, n) for n in (1, 2)]
        for form in forms:  # one text, or a count's singular and plural
            assert form != message or (language, message) in domain.same_in, f"{language}: {message!r} untranslated"
            assert placeholders(form) == placeholders(message), f"{language}: {message!r}"


@pytest.mark.parametrize("language", ["en", "de", "fr"])
def test_a_count_of_one_reads_in_the_singular(language: str) -> None:
    """Events and buttons about a number of chips take the language's singular for one (French also for
    zero): "brings 1 chip home", not "1 chips"."""
    from companion.app.i18n import game_text, set_language

    one = {"en": ("1 chip ", "1 chip."), "de": ("1 Chip ", "1 Chip"), "fr": ("1 jeton ", "1 jeton.")}[language]
    many = {"en": "2 chips", "de": "2 Chips", "fr": "2 jetons"}[language]
    set_language(language)
    try:
        for domain, template, params in (
                ("goldgraeber", "{name} brings {count} chips home ({points} points).", {"name": "Anna", "points": 3}),
                ("goldgraeber", "The robber beats {name} and keeps {count} chips.", {"name": "Anna"}),
                ("gold_connection", "{player} spends {count} chips.", {"player": "Anna"})):
            assert any(words in game_text(domain, template, {**params, "count": 1}) for words in one), template
            assert many in game_text(domain, template, {**params, "count": 2}), template
        assert game_text("gold_connection", "Spend {count} chips", {"count": 1}).count("1 ") == 1
        if language == "fr":  # French counts zero in the singular
            assert "0 jeton." in game_text("gold_connection", "{player} spends {count} chips.",
                                            {"player": "Anna", "count": 0})
    finally:
        set_language("en")


@pytest.mark.parametrize(("domain", "language"), CASES, ids=CASE_IDS)
def test_compiled_catalog_matches_the_po_file(domain: GameDomain, language: str) -> None:
    po = (LOCALE / language / "LC_MESSAGES" / f"{domain.game}.po").read_text(encoding="utf-8")
    catalog = gettext.translation(domain.game, str(LOCALE), languages=[language])
    entries = re.findall(r'^(?:msgctxt "(.*)"\n)?msgid "(.+)"\nmsgstr "(.*)"$', po, flags=re.M)
    assert len(entries) >= domain.least_po_entries
    for context, msgid, msgstr in entries:
        found = catalog.pgettext(unescape(context), unescape(msgid)) if context else catalog.gettext(unescape(msgid))
        assert found == unescape(msgstr)
