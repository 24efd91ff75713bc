"""The German and French rule texts: they follow the English documents (the reference) id for id, are
really translated, and reach the Rules screen and the refusal box in the app's language."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.app import i18n
from companion.app.rules_doc import RULES_DIR, RuleBook, find_rule, rule_book, table_rules
from companion.app.viewmodels import RulesModel
from companion.engine.core import Player, Setup
from companion.engine.registry import declared
from companion.engine.session import Session
from tests.table_helpers import make_controller, played

GAMES = declared()  # every installed game (the shipped ones: no test plugin is installed here)
STEMS = (*GAMES, "README")
LANGS = ("de", "fr")
PAIRS = [(stem, lang) for stem in STEMS for lang in LANGS]


def book(stem: str, lang: str) -> RuleBook:
    return table_rules(lang) if stem == "README" else rule_book(stem, lang)


def paragraphs(text: str) -> list[str]:
    return [part for part in text.split("\n\n") if part.strip()]


def test_every_language_has_a_translation_of_every_document() -> None:
    for stem, lang in PAIRS:
        assert (RULES_DIR / f"{stem}.{lang}.md").is_file(), f"{stem}.{lang}.md is missing"


@pytest.mark.parametrize(("stem", "lang"), PAIRS)
def test_translation_has_every_english_rule_in_the_same_order(stem: str, lang: str) -> None:
    """An id the English document gained and the translation lacks fails here."""
    english, translated = book(stem, "en"), book(stem, lang)
    assert english.rules
    assert [rule.id for rule in translated.rules] == [rule.id for rule in english.rules]
    assert all(rule.title and rule.text and rule.section for rule in translated.rules)


@pytest.mark.parametrize(("stem", "lang"), PAIRS)
def test_translation_keeps_the_sections_and_translates_every_paragraph(stem: str, lang: str) -> None:
    english, translated = book(stem, "en"), book(stem, lang)
    if stem != "README":
        assert translated.title != english.title
    sections = {rule.section: rule.section for rule in translated.rules}
    english_sections = {rule.section: rule.section for rule in english.rules}
    assert len(sections) == len(english_sections)
    section_of = dict(zip(english_sections, sections))
    for source, rule in zip(english.rules, translated.rules):
        assert section_of[source.section] == rule.section, rule.id
        assert rule.title != source.title, f"{rule.id}: title not translated"
        assert len(paragraphs(rule.text)) == len(paragraphs(source.text)), f"{rule.id}: paragraphs differ"
        left_english = set(paragraphs(rule.text)) & set(paragraphs(source.text))
        assert not left_english, f"{rule.id}: English paragraph left untranslated"


@pytest.mark.parametrize(("stem", "lang"), PAIRS)
def test_tests_lines_are_kept_verbatim(stem: str, lang: str) -> None:
    def tests_lines(path: Path) -> list[str]:
        """The `Tests:` lines, and in README the indented lines that continue them."""
        lines = path.read_text(encoding="utf-8").splitlines()
        return [line for line in lines if line.startswith("Tests:")
                or (line.startswith("  ") and line.strip().startswith(("Tests:", "`tests/")))]

    english = tests_lines(RULES_DIR / f"{stem}.md")
    assert english
    assert tests_lines(RULES_DIR / f"{stem}.{lang}.md") == english


@pytest.mark.parametrize(("stem", "lang"), PAIRS)
def test_translation_says_the_english_document_is_the_reference(stem: str, lang: str) -> None:
    first = (RULES_DIR / f"{stem}.{lang}.md").read_text(encoding="utf-8").splitlines()[0]
    assert re.fullmatch(r"<!-- .+ -->", first)
    assert f"{stem}.md" in first
    assert {"de": "Maßgeblich ist das englische Dokument", "fr": "Le document anglais fait foi"}[lang] in first


def test_missing_translation_falls_back_to_english_and_a_lagging_one_per_rule(tmp_path: Path) -> None:
    (tmp_path / "tg.md").write_text("# TG — rules\n## Rules\n### TG-1 One\nFirst.\n### TG-2 Two\nSecond.\n",
                                    encoding="utf-8")
    (tmp_path / "tg.de.md").write_text("# TG — Regeln\n## Regeln\n### TG-1 Eins\nErste.\n", encoding="utf-8")
    assert rule_book("tg", "fr", tmp_path).title == "TG — rules"
    german = rule_book("tg", "de", tmp_path)
    assert [(rule.id, rule.text) for rule in german.rules] == [("TG-1", "Erste.")]
    assert rule_book("nothing", "de", tmp_path).rules == ()


@pytest.fixture
def language() -> Iterator[None]:
    """Put the app's language back after a test that switches it."""
    before = i18n.current_language()
    yield
    i18n.set_language(before)


@pytest.mark.usefixtures("language")
@pytest.mark.parametrize("game", GAMES)
def test_rules_screen_model_follows_the_language(game: str) -> None:
    model = RulesModel()
    i18n.set_language("de")
    model.game_id = game
    model.search()
    german = rule_book(game, "de")
    assert model.title == german.title
    assert [(row["rule_id"], row["title"], row["text"]) for row in model.results] == \
        [(rule.id, rule.title, rule.text) for rule in german.rules]
    i18n.set_language("fr")
    model.search()
    assert model.results[0]["text"] == rule_book(game, "fr").rules[0].text != german.rules[0].text


@pytest.mark.usefixtures("language")
@pytest.mark.parametrize("lang", LANGS)
def test_refusal_box_cites_the_translated_rule(lang: str) -> None:
    """A take before the first roll is refused (DIG-11); the box shows that rule in the app's language."""
    controller = make_controller(Session.new(Setup(game="digger", players=(Player(name="Anna"), Player(name="Ben")))))
    table = controller.table
    i18n.set_language(lang)
    assert not played(controller.session, controller.submit, {"type": "take", "colour": "Y"})
    rule_id = table.refusal_rule.split()[0]
    translated, english = find_rule("digger", rule_id, lang), find_rule("digger", rule_id, "en")
    assert translated is not None and english is not None
    assert translated == rule_book("digger", lang).get(rule_id)
    assert table.refusal_rule == f"{rule_id} {translated.title}"
    assert table.refusal_rule_text == translated.text != english.text


@pytest.mark.parametrize("lang", LANGS)
def test_table_rules_are_found_in_the_language(lang: str) -> None:
    rule = find_rule("chinagold", "TABLE-1", lang)
    assert rule is not None and rule == table_rules(lang).get("TABLE-1")
    assert rule.text != table_rules("en").rules[0].text
