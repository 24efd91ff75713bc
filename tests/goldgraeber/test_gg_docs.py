"""docs/rules/goldgraeber.md names real tests for every rule, and every rule the engine cites exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from companion.app.rules_doc import parse_rules

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "goldgraeber.md"
ENGINE = ROOT / "companion" / "games" / "goldgraeber" / "rules.py"


def test_every_rule_names_existing_tests() -> None:
    text = DOC.read_text(encoding="utf-8")
    book = parse_rules(text)
    rule_ids = [rule.id for rule in book.rules if "-R" not in rule.id]
    assert rule_ids == [f"GG-{n}" for n in range(1, len(rule_ids) + 1)]
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    for section in sections:
        rule_id = section.split()[0]
        tests = re.findall(r"`(tests/[^`:]+)::(\w+)`", section)
        if "-R" not in rule_id:
            assert tests, f"{rule_id} names no test"
        for path, name in tests:
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            names = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
            assert name in names, f"{rule_id}: {path}::{name} does not exist"


def test_every_cited_rule_is_documented() -> None:
    book = parse_rules(DOC.read_text(encoding="utf-8"))
    cited = set(re.findall(r'"(GG-\d+)"', ENGINE.read_text(encoding="utf-8")))
    assert cited and all(book.get(rule_id) is not None for rule_id in cited)
