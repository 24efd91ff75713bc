"""Every Gold Connection message (engine and table panel) has a German and a French translation that keeps
its placeholders, and the compiled catalogs match the .po files."""

from __future__ import annotations

import ast
import gettext
import re
import string
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = (ROOT / "companion" / "games" / "gold_connection" / "rules.py",
           ROOT / "companion" / "app" / "tables" / "gold_connection.py")
LOCALE = ROOT / "companion" / "locale"


def marked_messages() -> set[str]:
    found: set[str] = set()
    for source in SOURCES:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("N_", "_") \
                    and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("language", ["de", "fr"])
def test_every_message_is_translated_with_its_placeholders(language: str) -> None:
    catalog = gettext.translation("gold_connection", str(LOCALE), languages=[language])
    messages = marked_messages()
    assert len(messages) > 80
    for message in messages:
        translated = catalog.gettext(message)
        same_word = language == "fr" and message == "distance {distance}"
        assert translated != message or same_word, f"{language}: {message!r} untranslated"
        assert placeholders(translated) == placeholders(message), f"{language}: {message!r}"


@pytest.mark.parametrize("language", ["de", "fr"])
def test_compiled_catalog_matches_the_po_file(language: str) -> None:
    po = (LOCALE / language / "LC_MESSAGES" / "gold_connection.po").read_text(encoding="utf-8")
    catalog = gettext.translation("gold_connection", str(LOCALE), languages=[language])
    pairs = re.findall(r'^msgid "(.+)"\nmsgstr "(.*)"$', po, flags=re.M)
    assert len(pairs) > 80
    for msgid, msgstr in pairs:
        assert catalog.gettext(msgid.replace('\\"', '"')) == msgstr.replace('\\"', '"')


def test_app_shows_a_refusal_in_german() -> None:
    from companion.app.i18n import current_language, game_text, set_language

    before = current_language()
    try:
        set_language("de")
        assert game_text("gold_connection", "Bar {bar} is not in safe {safe}.", {"bar": "B6", "safe": "S3"}) == \
            "Barren B6 liegt nicht im Schrank S3."
    finally:
        set_language(before)
