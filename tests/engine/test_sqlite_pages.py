"""The page reader behind salvage: SQLite's file format read without SQLite, checked against SQLite itself,
and bounded against garbage (loops, huge lengths, random bytes)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.engine.sqlite_pages import (
    MAGIC,
    Cell,
    Garbage,
    PageFile,
    _local_size,
    _overflow,
    carve,
    cells,
    guess_page_size,
    open_pages,
    record,
    scan,
    varint,
    wal_frames,
)

VALUES = [None, 0, 1, -1, 127, -128, 300, -40000, 2**23, 2**31 + 5, -(2**40), 2**47 + 3, 2**62, -(2**63), 1.5,
          -2.25e300, "", "text", "äöü €", "x" * 5000, b"", b"\x00\x01\xff", bytes(range(256)) * 40]


def _table(path: Path, rows: list[tuple[object, ...]], page_size: int = 4096, wal: bool = False,
           secure_delete: bool = True) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA page_size={page_size}")
    conn.execute(f"PRAGMA secure_delete={'ON' if secure_delete else 'OFF'}")
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("CREATE TABLE t (a, b)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t VALUES (?, ?)", rows)
    conn.execute("COMMIT")
    return conn


def _rows(cells: tuple[Cell, ...] | list[Cell]) -> set[tuple[object, ...]]:
    return {cell.values for cell in cells if not cell.index and len(cell.values) == 2}


def test_varints_of_one_to_nine_bytes_and_none_past_the_end() -> None:
    assert varint(b"\x05", 0, 1) == (5, 1)
    assert varint(b"\x81\x00", 0, 2) == (128, 2)
    assert varint(b"\xff" * 8 + b"\x01", 0, 9) == ((2**56 - 1) << 8 | 1, 9)
    with pytest.raises(Garbage):
        varint(b"\x81\x80", 0, 2)
    with pytest.raises(Garbage):
        varint(b"\x81\x00", 0, 1)  # the end given, not the buffer's, bounds it


def test_every_serial_type_reads_as_sqlite_wrote_it(tmp_path: Path) -> None:
    rows = [(index, value) for index, value in enumerate(VALUES)]
    _table(tmp_path / "db", rows).close()
    assert _rows(cells(open_pages(tmp_path / "db"))) == set(rows)  # overflowing text and blobs included


def test_a_record_must_account_for_every_byte() -> None:
    assert record(b"\x03\x01\x0f\x07x") == (7, "x")
    for bad in (b"\x03\x01\x0f\x07", b"\x03\x01\x0f\x07xy", b"\x05\x01", b"\x02\x0a", b"\x00", b"\x02\x11\xff\xfe"):
        with pytest.raises(Garbage):
            record(bad)


@pytest.mark.parametrize("page_size", [512, 1024, 4096, 8192, 65536])
def test_page_sizes_from_the_header_and_guessed_when_it_is_gone(tmp_path: Path, page_size: int) -> None:
    rows = [(n, f"row {n} " * (n % 7)) for n in range(400)]
    _table(tmp_path / "db", rows, page_size=page_size).close()
    data = bytearray((tmp_path / "db").read_bytes())
    assert open_pages(tmp_path / "db").page_size == page_size
    data[:100] = os.urandom(100)
    (tmp_path / "db").write_bytes(bytes(data))
    assert guess_page_size(bytes(data)) == page_size
    pages = open_pages(tmp_path / "db")
    assert (pages.page_size, pages.header_ok) == (page_size, False)
    assert _rows(cells(pages)) == set(rows)


def test_committed_wal_frames_are_laid_over_the_file_and_a_torn_or_bad_frame_ends_them(tmp_path: Path) -> None:
    path = tmp_path / "db"
    conn = _table(path, [(0, "in the file")], wal=True)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    for n in range(1, 4):  # three commits, each only in the WAL
        conn.execute("INSERT INTO t VALUES (?, ?)", (n, f"commit {n} " + "x" * 3000))
    copy = tmp_path / "copy"
    shutil.copyfile(path, copy)
    wal = Path(f"{path}-wal").read_bytes()
    conn.close()
    every = {(0, "in the file"), *((n, f"commit {n} " + "x" * 3000) for n in range(1, 4))}
    Path(f"{copy}-wal").write_bytes(wal)
    assert _rows(cells(open_pages(copy, Path(f"{copy}-wal")))) == every
    assert _rows(cells(open_pages(copy))) == {(0, "in the file")}  # without the WAL: the file alone
    frame = 24 + 4096
    frames, _size = wal_frames(wal, 4096)
    assert frames
    Path(f"{copy}-wal").write_bytes(wal[:-100])  # the last frame torn: the last commit is not there
    seen = _rows(cells(open_pages(copy, Path(f"{copy}-wal"))))
    assert (0, "in the file") in seen and (3, "commit 3 " + "x" * 3000) not in seen and len(seen) == 3
    damaged = bytearray(wal)
    damaged[32 + frame + 24 + 50] ^= 0xFF  # the second frame's page: its checksum fails, and all after it
    Path(f"{copy}-wal").write_bytes(bytes(damaged))
    assert len(_rows(cells(open_pages(copy, Path(f"{copy}-wal"))))) < 4
    Path(f"{copy}-wal").write_bytes(os.urandom(9000))  # another file's garbage: ignored
    assert _rows(cells(open_pages(copy, Path(f"{copy}-wal")))) == {(0, "in the file")}


def test_rows_on_freelist_pages_do_not_come_back(tmp_path: Path) -> None:
    path = tmp_path / "db"
    conn = _table(path, [(n, "gone " * 40) for n in range(300)] + [(1000, "stays")], secure_delete=False)
    conn.execute("DELETE FROM t WHERE a < 1000")
    conn.close()
    pages = open_pages(path)
    assert pages.free and b"gone gone" in path.read_bytes()  # the old rows are still on the free pages
    assert _rows(cells(pages)) == {(1000, "stays")}


def _page_file(data: bytes, page_size: int = 512) -> PageFile:
    return PageFile(main=data, page_size=page_size, usable=page_size, page_count=len(data) // page_size,
                    header_ok=False)


def test_an_overflow_chain_that_loops_or_runs_off_is_garbage_not_a_hang() -> None:
    page = bytearray(512)
    page[0] = 13  # a table leaf with one cell
    page[3:5] = (1).to_bytes(2, "big")
    page[8:10] = (400).to_bytes(2, "big")
    page[400:403] = b"\x97\x38\x01"  # a payload of 3000 bytes, rowid 1: six overflow pages' worth
    pointer = 403 + _local_size(3000, 512, index=False)
    for first, then in ((2, 2), (2, 3), (3, 2), (2, 0), (999_999, 0)):  # loops, a short chain, past the file
        data = bytearray(page) + bytearray(512 * 2)
        data[pointer:pointer + 4] = first.to_bytes(4, "big")
        data[512:516] = then.to_bytes(4, "big")
        data[1024:1028] = (2).to_bytes(4, "big")
        with pytest.raises(Garbage):
            _overflow(_page_file(bytes(data)), first, 3000 - _local_size(3000, 512, index=False), set())
        assert cells(_page_file(bytes(data))) == []


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=0, max_size=6000), st.sampled_from([512, 1024, 4096]))
def test_random_bytes_never_raise_and_never_hang(data: bytes, page_size: int) -> None:
    pages = _page_file(data, page_size)
    assert all(cell.page <= pages.page_count for cell in cells(pages, accept=lambda cell: True))
    guess_page_size(data)


def test_huge_lengths_are_refused_before_anything_is_read() -> None:
    page = bytearray(512)
    page[0] = 13
    page[3:5] = (1).to_bytes(2, "big")
    page[8:10] = (100).to_bytes(2, "big")
    page[100:109] = b"\xff" * 9  # a payload of 2**64-1 bytes
    assert cells(_page_file(bytes(page) + MAGIC * 32)) == []


def test_carving_finds_the_cells_of_a_page_whose_header_is_gone(tmp_path: Path) -> None:
    rows = [(n, f"row {n}") for n in range(60)]
    _table(tmp_path / "db", rows).close()
    data = bytearray((tmp_path / "db").read_bytes())
    data[4096:4096 + 64] = os.urandom(64)  # page 2, the table's only page: its header and cell pointers
    data[4096] = 0  # never a b-tree page type by chance
    (tmp_path / "db").write_bytes(bytes(data))
    pages = open_pages(tmp_path / "db")
    seen: list[Cell] = []
    assert scan(pages, seen.append).unreadable == (2,) and _rows(seen) == set()
    carved = list(carve(pages, 2, accept=lambda cell: len(cell.values) == 2 and isinstance(cell.values[1], str)))
    assert {cell.values for cell in carved} == set(rows) and all(cell.carved for cell in carved)
    assert _rows(cells(pages, accept=lambda cell: len(cell.values) == 2)) == set(rows)
