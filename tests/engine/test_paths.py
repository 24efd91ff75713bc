"""A small file written whole and on the medium (`write_durably`): after a power cut at any moment the old
file or the new one is there, never a torn one or none, and nothing is left beside it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.engine import paths
from companion.engine.paths import write_durably


def test_the_new_text_is_flushed_before_it_takes_the_name_and_the_rename_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "settings" / "app-settings.json"
    steps: list[tuple[str, str | None]] = []
    fsync = os.fsync

    def shown() -> str | None:
        return path.read_text(encoding="utf-8") if path.exists() else None

    def flush_file(fd: int) -> None:
        steps.append(("file", shown()))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", flush_file)
    monkeypatch.setattr(paths, "sync_folder", lambda folder: steps.append((f"folder {folder.name}", shown())))
    write_durably(path, "new")
    assert steps == [("file", None), ("folder settings", "new")]
    assert [entry.name for entry in path.parent.iterdir()] == ["app-settings.json"]


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "clocks.json"
    path.write_text("old", encoding="utf-8")

    def full_disk(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError, match="No space"):
        write_durably(path, "new")
    assert path.read_text(encoding="utf-8") == "old" and list(tmp_path.iterdir()) == [path]


def test_without_replace_a_file_already_there_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "profile.json"
    path.write_text("someone's", encoding="utf-8")
    with pytest.raises(FileExistsError):
        write_durably(path, "ours", replace=False)
    assert path.read_text(encoding="utf-8") == "someone's" and list(tmp_path.iterdir()) == [path]
    write_durably(tmp_path / "other.json", "ours", replace=False)
    assert (tmp_path / "other.json").read_text(encoding="utf-8") == "ours"


def someone_writes_it_meanwhile(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program makes `path` while ours is being written, and any look at it comes just before."""
    fsync = os.fsync

    def flush_and_file_appears(fd: int) -> None:
        fsync(fd)
        if not path.exists():
            path.write_text("someone's", encoding="utf-8")

    monkeypatch.setattr(os, "fsync", flush_and_file_appears)
    monkeypatch.setattr(Path, "exists", lambda self: False)
    monkeypatch.setattr(Path, "is_symlink", lambda self: False)


@pytest.mark.parametrize("kernel", ["renameat2", "hard link"])
def test_without_replace_a_file_made_meanwhile_is_kept_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           kernel: str) -> None:
    """The name is taken in one step: a file made between a look and the rename is never written over."""
    if kernel == "hard link":
        monkeypatch.setattr(paths, "_renameat2_no_replace", lambda temporary, path: False)
    path = tmp_path / "goldtable-games.csv"
    someone_writes_it_meanwhile(path, monkeypatch)
    with pytest.raises(FileExistsError):
        write_durably(path, "ours", replace=False)
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "someone's" and list(tmp_path.iterdir()) == [path]


def test_without_hard_links_or_renameat2_the_look_still_keeps_a_file(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A FUSE stick may have neither: the file is then looked for first, as well as can be."""
    def no_links(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(paths, "_renameat2_no_replace", lambda temporary, path: False)
    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "game.json"
    path.write_text("someone's", encoding="utf-8")
    with pytest.raises(FileExistsError):
        write_durably(path, "ours", replace=False)
    write_durably(tmp_path / "other.json", "ours", replace=False)
    assert path.read_text(encoding="utf-8") == "someone's"
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["game.json", "other.json"]
    assert (tmp_path / "other.json").read_text(encoding="utf-8") == "ours"


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_a_written_file_gets_the_mode_a_new_file_gets_not_the_temporary_files(tmp_path: Path, umask: int) -> None:
    """An exported record or picture is for others to read as well, unless the umask says otherwise."""
    before = os.umask(umask)
    try:
        write_durably(tmp_path / "game.json", b"{}")
        (tmp_path / "plain.json").write_bytes(b"{}")
    finally:
        os.umask(before)
    assert (tmp_path / "game.json").stat().st_mode & 0o777 == (tmp_path / "plain.json").stat().st_mode & 0o777
    assert (tmp_path / "game.json").read_bytes() == b"{}"


def test_a_missing_folder_is_made_only_when_asked(tmp_path: Path) -> None:
    """A command's `-o` on a stick that is not in names the stick's empty mount folder: nothing is written
    on the card under it instead."""
    with pytest.raises(FileNotFoundError):
        write_durably(tmp_path / "stick" / "game.json", "{}", make_folder=False)
    assert list(tmp_path.iterdir()) == []
    write_durably(tmp_path / "settings" / "app-settings.json", "{}")
    assert (tmp_path / "settings" / "app-settings.json").read_text(encoding="utf-8") == "{}"
