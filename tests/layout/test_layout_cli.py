"""`goldtable layout check|render|schema`: the generic layout tooling, exercised on the Gold Connection vault."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.games.gold_connection.board import GoldConnectionLayout

VAULT = Path("layouts/gold_connection.json")


def vault_data() -> dict[str, Any]:
    return json.loads(VAULT.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def write(tmp_path: Path, data: dict[str, Any] | str) -> Path:
    path = tmp_path / "board.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    code = main(["layout", "check", str(path)])
    captured = capsys.readouterr()
    return code, captured.out.splitlines(), captured.err


def test_shipped_layout_passes(capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, _ = check(VAULT, capsys)
    assert code == 0 and lines == [f"{VAULT}: ok"]


def test_unknown_references_are_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = vault_data()
    data["connections"].append(["S1", "S99"])
    data["walls"][0] = ["S3", "Q"]
    code, lines, _ = check(write(tmp_path, data), capsys)
    assert code == 2
    assert any("connections[17]: unknown safe 'S99'" in line for line in lines)
    assert any("walls[0]: unknown safe 'Q'" in line for line in lines)
    assert all(line.startswith(str(tmp_path / "board.json") + ": ") for line in lines)


def test_unreachable_safe_is_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = vault_data()
    data["walls"] = [["S6", "S7"], ["S7", "E"]]
    code, lines, _ = check(write(tmp_path, data), capsys)
    assert code == 2
    assert any("safes.S7: unreachable" in line for line in lines)


def test_wrong_counts_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = vault_data()
    data["safes"] = [safe for safe in data["safes"] if safe["id"] != "S12"]
    data["connections"] = [pair for pair in data["connections"] if "S12" not in pair]
    data["counter"] = data["counter"][:35]
    code, lines, _ = check(write(tmp_path, data), capsys)
    assert code == 2
    assert any("safes: 13 safes, the vault has 14" in line for line in lines)
    assert any("numbers must be 1-12" in line for line in lines)
    assert any(line.endswith("counter: 35 fields; the track needs fields 1-36, each once (GC-1)") for line in lines)


def test_a_wall_on_no_connection_and_a_third_passage_on_a_numbered_safe(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    data = vault_data()
    data["walls"][1] = ["S1", "S9"]
    code, lines, _ = check(write(tmp_path, data), capsys)
    assert code == 2 and any("walls[1]: S1-S9 is not a listed connection" in line for line in lines)
    data = vault_data()
    data["walls"] = data["walls"][:1]
    code, lines, _ = check(write(tmp_path, data), capsys)
    assert any("walls: 1 walls, the vault has 2" in line for line in lines)
    assert any("safes.S10: a numbered safe needs exactly 2 open passages" in line for line in lines)


def test_malformed_json_is_one_line_and_exit_two(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, lines, err = check(write(tmp_path, '{"kind": "gold_connection", "safes": ['), capsys)
    assert code == 2 and lines == []
    assert len(err.strip().splitlines()) == 1 and "not valid JSON" in err and "Traceback" not in err


def test_schema_violation_names_the_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = vault_data()
    data["safes"][0]["number"] = 13
    code, out, _ = check(write(tmp_path, data), capsys)
    assert code == 2 and len(out) == 1 and "safes.0.number" in out[0]


def test_unknown_kind_and_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = check(write(tmp_path, {"kind": "chess"}), capsys)
    assert code == 2 and "unknown layout kind 'chess'" in err
    code, _, err = check(tmp_path / "nope.json", capsys)
    assert code == 2 and "cannot read" in err


def test_exported_schema_is_up_to_date() -> None:
    exported = json.loads(Path("docs/schemas/gold_connection.schema.json").read_text(encoding="utf-8"))
    assert exported == GoldConnectionLayout.model_json_schema()


@pytest.mark.ui
def test_render_writes_a_png_of_the_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "vault.png"
    assert main(["layout", "render", str(VAULT), "-o", str(output), "--size", "500x300"]) == 0
    data = output.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (500, 300)
    assert len(data) > 5000
    assert capsys.readouterr().out.strip() == str(output)


def test_render_refuses_a_bad_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["layout", "render", str(VAULT), "-o", "/tmp/x.png", "--size", "huge"]) == 2
    assert "--size" in capsys.readouterr().err


def test_a_game_reading_its_own_kind_needs_no_other_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With its kind given, `load_layout` never asks the registry (which imports every game)."""
    import companion.layout
    from companion.engine.errors import UserError
    from companion.games.gold_connection.board import LAYOUT_KIND

    def no_registry() -> None:
        raise AssertionError("layout_kinds() must not run when the kind is given")

    monkeypatch.setattr(companion.layout, "layout_kinds", no_registry)
    assert isinstance(companion.layout.load_layout(VAULT, LAYOUT_KIND), GoldConnectionLayout)
    other = write(tmp_path, {**vault_data(), "kind": "goldgraeber-board"})
    with pytest.raises(UserError, match=r"board.json: kind: Input should be 'gold_connection'"):
        companion.layout.load_layout(other, LAYOUT_KIND)


def test_check_lists_every_schema_problem_on_its_own_line(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "vault.json"
    path.write_text('{"kind": "gold_connection"}', encoding="utf-8")
    assert main(["layout", "check", str(path)]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) > 1 and all(line.startswith(f"{path}: ") for line in lines)
    assert f"{path}: safes: Field required" in lines and f"{path}: walls: Field required" in lines
