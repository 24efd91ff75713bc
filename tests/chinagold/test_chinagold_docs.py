"""docs/rules/chinagold.md: every rule names real tests, and every rule the engine cites exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from companion.app.rules_doc import parse_rules

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "chinagold.md"


def test_every_rule_names_existing_tests() -> None:
    text = DOC.read_text(encoding="utf-8")
    book = parse_rules(text)
    ids = [rule.id for rule in book.rules]
    assert ids[:13] == [f"CG-{n}" for n in range(1, 14)]
    assert any(rule_id.startswith("CG-R") for rule_id in ids)
    blocks = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(blocks) == len(ids)
    for block in blocks:
        references = re.findall(r"`(tests/[^`:]+)::([A-Za-z0-9_]+)(?:\[[^`]*\])?`", block)
        assert references, f"no tests named under {block.splitlines()[0]}"
        for path, name in references:
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            names = {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
            assert name in names, f"{path}::{name} (cited under {block.splitlines()[0]}) does not exist"


def test_every_cited_rule_is_documented() -> None:
    source = (ROOT / "companion" / "games" / "chinagold" / "rules.py").read_text(encoding="utf-8")
    cited = set(re.findall(r'rule="(CG-\d+)"', source))
    documented = {rule.id for rule in parse_rules(DOC.read_text(encoding="utf-8")).rules}
    assert cited and cited <= documented
