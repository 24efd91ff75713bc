"""docs/rules/gold_connection.md: every rule names real tests, and every rule id the engine cites exists."""

from __future__ import annotations

import re
from pathlib import Path

from companion.app.rules_doc import parse_rules

DOC = Path("docs/rules/gold_connection.md")
ENGINE = Path("companion/games/gold_connection")


def test_every_rule_names_tests_that_exist() -> None:
    text = DOC.read_text(encoding="utf-8")
    book = parse_rules(text)
    assert book.title == "Gold Connection — rules"
    ids = [rule.id for rule in book.rules]
    assert ids[:21] == [f"GC-{n}" for n in range(1, 22)]
    sections = re.split(r"^### ", text, flags=re.M)[1:]
    assert len(sections) == len(ids)
    for section in sections:
        tests = re.findall(r"`(tests/[^`:]+)::(\w+)`", section)
        assert tests, f"{section.splitlines()[0]} names no test"
        for path, name in tests:
            assert re.search(rf"^def {name}\(", Path(path).read_text(encoding="utf-8"), re.M), f"{path}::{name}"


def test_every_cited_rule_is_documented() -> None:
    documented = {rule.id for rule in parse_rules(DOC.read_text(encoding="utf-8")).rules}
    cited = set()
    for source in ENGINE.glob("*.py"):
        cited |= set(re.findall(r'"(GC-R?\d+)"', source.read_text(encoding="utf-8")))
    assert cited and cited <= documented
