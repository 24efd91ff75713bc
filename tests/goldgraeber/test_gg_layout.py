"""The shipped board file passes its checks, and the checks catch what they promise to catch."""

from __future__ import annotations

import json

from companion.games.goldgraeber.board import DEFAULT_LAYOUT, GoldgraeberLayout, load_board, problems


def shipped() -> dict:  # type: ignore[type-arg]
    return json.loads(DEFAULT_LAYOUT.read_text(encoding="utf-8"))


def test_shipped_layout_is_sound_and_says_it_is_reconstructed() -> None:
    raw = shipped()
    layout = GoldgraeberLayout.model_validate(raw)
    assert problems(layout) == []
    assert "RECONSTRUCTION" in raw["note"]
    board = load_board()
    assert len(board.dig_fields) == 64 and len(board.houses) == 6 and len(board.raft_posts) == 6
    assert len(board.layout.lakes) == 3


def test_unknown_references_are_reported() -> None:
    raw = shipped()
    raw["houses"][0]["door"] = "T999"
    raw["lakes"][1]["raft_posts"][0] = "P1"
    raw["rail"][3] = "X"
    found = problems(GoldgraeberLayout.model_validate(raw))
    assert any("houses[0]" in p and "unknown field 'T999'" in p for p in found)
    assert any("raft_posts" in p and "P1" in p for p in found)
    assert any(p.startswith("rail: unknown field 'X'") for p in found)


def test_wrong_counts_and_broken_rail_are_reported() -> None:
    raw = shipped()
    first_dig = next(f for f in raw["fields"] if f["type"] == "dig")
    first_dig["type"] = "path"
    raw["rail"] = raw["rail"][:3] + raw["rail"][4:]
    found = problems(GoldgraeberLayout.model_validate(raw))
    assert any("63 dig fields" in p for p in found)
    assert any(p.startswith("rail:") and "not neighbours" in p for p in found)
    raw = shipped()
    raw["rail"] = raw["rail"][::-1]  # the train would start in town
    found = problems(GoldgraeberLayout.model_validate(raw))
    assert any("is not at the board edge" in p for p in found)


def test_unreachable_fields_are_reported() -> None:
    raw = shipped()
    by_pos = {(f["q"], f["r"]): f for f in raw["fields"]}
    directions = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

    def around(f: dict) -> list[dict]:  # type: ignore[type-arg]
        return [by_pos[(f["q"] + dq, f["r"] + dr)] for dq, dr in directions if (f["q"] + dq, f["r"] + dr) in by_pos]

    target = next(f for f in raw["fields"] if f["type"] == "path" and len(around(f)) == 6
                  and all(n["type"] == "path" for n in around(f)))
    for neighbour in around(target):
        neighbour["type"] = "lake"
        raw["lakes"][0]["water"].append(neighbour["id"])
    found = problems(GoldgraeberLayout.model_validate(raw))
    assert found == [f"fields.{target['id']}: cannot be reached on foot from Golden City"]
