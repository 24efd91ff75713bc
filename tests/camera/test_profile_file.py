"""The app's profile files: read once, read again when they change, refused as any profile would be."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from companion.camera.profile import Profile, holds_taught_faces, is_known, known_profile, save_profile
from companion.engine.errors import UserError
from tests.camera.helpers import SAMPLE, profile, profile_reads

GOLDGRAEBER = SAMPLE / "goldgraeber-000"


def test_a_saved_profile_is_known_without_reading_it_and_read_again_once_changed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = profile_reads(monkeypatch)
    path = tmp_path / "goldgraeber.json"
    saved = profile(GOLDGRAEBER)
    save_profile(saved, path, replace=True)
    assert known_profile(path, "goldgraeber") is saved and parsed == []
    changed = json.loads(path.read_text())
    changed["brightness"] = saved.brightness / 2
    path.with_name("other.json").write_text(json.dumps(changed))
    path.with_name("other.json").replace(path)  # another program's copy, put in place
    again = known_profile(path, "goldgraeber")
    assert [read for read, _thread in parsed] == [path] and again.brightness == saved.brightness / 2
    assert known_profile(path) is again and [read for read, _thread in parsed] == [path], \
        "unchanged since: not read again"


def test_a_known_file_that_goes_or_turns_into_another_games_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "goldgraeber.json"
    save_profile(profile(GOLDGRAEBER), path, replace=True)
    with pytest.raises(UserError, match="for goldgraeber, not digger"):
        known_profile(path, "digger")
    path.unlink()
    with pytest.raises(UserError, match="cannot read"):
        known_profile(path, "goldgraeber")
    shutil.copy(GOLDGRAEBER / "empty.jpg", path)
    with pytest.raises(UserError):
        known_profile(path, "goldgraeber")


def test_a_damaged_file_is_refused_again_without_reading_it_until_it_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = profile_reads(monkeypatch)
    path = tmp_path / "goldgraeber.json"
    path.write_text('{"side": ')
    assert not is_known(path, "goldgraeber")
    for _ in range(2):
        with pytest.raises(UserError, match=r"goldgraeber\.json"):
            known_profile(path, "goldgraeber")
    assert [read for read, _thread in parsed] == [path] and is_known(path, "goldgraeber")
    assert not is_known(path, "digger"), "refused for one game says nothing for another"
    saved = profile(GOLDGRAEBER)
    path.write_text(saved.model_dump_json())  # mended, by hand or by another program
    assert not is_known(path, "goldgraeber")
    assert known_profile(path, "goldgraeber") == saved and len(parsed) == 2 and is_known(path)


def test_a_saved_profile_is_on_the_medium_rename_and_all_before_save_returns(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[tuple[Path, bool]] = []
    path = tmp_path / "profiles" / "goldgraeber.json"
    monkeypatch.setattr("companion.engine.paths.sync_folder",
                        lambda folder: synced.append((folder, path.exists())))
    save_profile(profile(GOLDGRAEBER), path, replace=True)
    assert synced == [(path.parent, True)], "the folder is flushed once the file has its name"


def test_only_a_readable_profile_of_the_game_with_taught_faces_is_worth_asking_before_replacing(
        tmp_path: Path) -> None:
    path = tmp_path / "goldgraeber.json"
    assert not holds_taught_faces(path, "goldgraeber"), "no file"
    path.write_text('{"side": ')
    assert not holds_taught_faces(path, "goldgraeber"), "damaged"
    taught = profile(GOLDGRAEBER)
    save_profile(Profile.from_calibration("goldgraeber", taught.calibration(), "file:tray.jpg"), path,
                 replace=True)
    assert not holds_taught_faces(path, "goldgraeber"), "calibrated, nothing taught yet"
    save_profile(taught, path, replace=True)
    assert holds_taught_faces(path, "goldgraeber")
    assert not holds_taught_faces(path, "digger"), "another game's: nothing of this game's to keep"
