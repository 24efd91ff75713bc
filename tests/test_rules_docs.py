"""docs/rules/<game>.md joins rulebook, engine and tests, for every game: each rule names tests that
exist, every rule id is named by a test, the Rules screen parses every rule, and every rule id the engine
cites is documented."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from companion.app.rules_doc import RuleBook, parse_rules

ROOT = Path(__file__).resolve().parents[1]
#: A test reference in a rule's section: `tests/<dir>/test_x.py::test_name`, optionally `[params]`.
REFERENCE = re.compile(r"`(tests/[^`:]+)::([A-Za-z0-9_]+)(?:\[[^`]*\])?`")


@dataclass(frozen=True)
class RulesDoc:
    """What each game's rules document promises."""

    game: str
    prefix: str
    title: str
    numbered_rules: int
    readings_name_tests: bool

    @property
    def path(self) -> Path:
        return ROOT / "docs" / "rules" / f"{self.game}.md"

    def text(self) -> str:
        return self.path.read_text(encoding="utf-8")

    def book(self) -> RuleBook:
        return parse_rules(self.text())

    def sections(self) -> list[str]:
        """The document from each `### ` heading to the next, heading line first."""
        return re.split(r"^### ", self.text(), flags=re.M)[1:]


DOCS = [
    RulesDoc("chinagold", "CG", "Chinagold — rules", 13, readings_name_tests=True),
    RulesDoc("digger", "DIG", "Digger — rules", 16, readings_name_tests=True),
    RulesDoc("gold_connection", "GC", "Gold Connection — rules", 21, readings_name_tests=True),
    RulesDoc("goldgraeber", "GG", "Goldgräber — rules", 20, readings_name_tests=True),
]


def is_reading(rule_id: str) -> bool:
    return "-R" in rule_id


def module_functions(path: str) -> set[str]:
    """Names of the top-level functions of a test module (what `path::name` can point at)."""
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.game)
def test_rules_are_numbered_in_order_then_readings(doc: RulesDoc) -> None:
    book = doc.book()
    assert book.title == doc.title
    ids = [rule.id for rule in book.rules]
    numbered = [f"{doc.prefix}-{n}" for n in range(1, doc.numbered_rules + 1)]
    assert ids[:doc.numbered_rules] == numbered
    assert [rule_id for rule_id in ids if not is_reading(rule_id)] == numbered
    assert any(rule_id.startswith(f"{doc.prefix}-R") for rule_id in ids)


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.game)
def test_rules_screen_parses_every_rule(doc: RulesDoc) -> None:
    book = doc.book()
    headings = [re.match(rf"({doc.prefix}-R?\d+) ", section) for section in doc.sections()]
    assert all(headings), "every ### heading is a rule id of this game"
    assert [rule.id for rule in book.rules] == [heading.group(1) for heading in headings if heading]
    assert all(rule.text and "Tests:" not in rule.text for rule in book.rules)


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.game)
def test_every_rule_names_tests_that_exist(doc: RulesDoc) -> None:
    for section in doc.sections():
        rule_id = section.split()[0]
        tests_lines = re.findall(r"^Tests:.*$", section, flags=re.M)
        for item in re.findall(r"`[^`]+`", "\n".join(tests_lines)):
            assert REFERENCE.fullmatch(item), f"{rule_id}: {item} is not a tests/...::test_name reference"
        if doc.readings_name_tests or not is_reading(rule_id):
            assert REFERENCE.findall("\n".join(tests_lines)), f"{rule_id} names no test on its Tests line"
        for path, name in REFERENCE.findall(section):
            assert name in module_functions(path), f"{rule_id}: {path}::{name} does not exist"


def function_texts() -> list[str]:
    """For every test function under tests/: its name, docstring and string literals (e.g. the rule a refusal
    must cite), joined; comments do not name a rule."""
    found: list[str] = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                strings = [leaf.value for leaf in ast.walk(node)
                           if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str)]
                found.append("\n".join([node.name, *strings]))
    return found


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.game)
def test_every_rule_is_named_by_a_test(doc: RulesDoc) -> None:
    """Each rule and reading id appears in a test function: its docstring, or the rule its refusal cites."""
    texts = function_texts()
    unnamed = [rule.id for rule in doc.book().rules
               if not any(re.search(rf"(?<![\w-]){re.escape(rule.id)}(?![\w-])", text) for text in texts)]
    assert not unnamed, f"named by no test: {unnamed}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: doc.game)
def test_every_cited_rule_is_documented(doc: RulesDoc) -> None:
    cited: set[str] = set()
    for source in (ROOT / "companion" / "games" / doc.game).glob("*.py"):
        cited |= set(re.findall(rf'"({doc.prefix}-R?\d+)"', source.read_text(encoding="utf-8")))
    documented = {rule.id for rule in doc.book().rules}
    assert cited and cited <= documented, sorted(cited - documented)
