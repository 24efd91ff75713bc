"""docs/rules/digger.md is the contract between the rulebook, the engine and the tests: keep them joined."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from companion.app.rules_doc import parse_rules

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "digger.md"
RULES_SOURCE = ROOT / "companion" / "games" / "digger" / "rules.py"


def sections() -> dict[str, list[str]]:
    """Rule id -> the test references on its Tests line."""
    found: dict[str, list[str]] = {}
    current = None
    for line in DOC.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^### (DIG-R?\d+) ", line)
        if heading:
            current = heading.group(1)
            found[current] = []
        elif line.startswith("Tests:") and current:
            found[current] = re.findall(r"`([^`]+)`", line)
    return found


def test_every_rule_names_tests_that_exist() -> None:
    found = sections()
    assert [rule for rule in found if not rule.startswith("DIG-R")] == [f"DIG-{n}" for n in range(1, 17)]
    for rule, tests in found.items():
        assert tests, f"{rule} names no test"
        for reference in tests:
            path, name = reference.split("::")
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            names = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
            assert name in names, f"{rule}: {reference} does not exist"


def test_every_cited_rule_is_documented() -> None:
    cited = set(re.findall(r'"(DIG-R?\d+)"', RULES_SOURCE.read_text(encoding="utf-8")))
    assert cited and cited <= set(sections())


def test_rules_screen_parses_every_rule() -> None:
    book = parse_rules(DOC.read_text(encoding="utf-8"))
    assert book.title == "Digger — rules"
    assert [rule.id for rule in book.rules] == list(sections())
    assert all(rule.text and "Tests:" not in rule.text for rule in book.rules)
