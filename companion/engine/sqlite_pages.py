"""Reading an SQLite file page by page, without SQLite: every row on every page that still parses.

Salvage must not depend on the b-trees that SQLite walks: one damaged interior page, index page or schema
page makes SQLite give up on every row beneath it, although those rows sit intact on their own pages.
SQLite's own answer is the `.recover` command of its shell, which reads raw pages through the
`sqlite_dbpage` table; Python's sqlite3 is not built with that table, so this module reads the file
format itself (https://www.sqlite.org/fileformat2.html): the 100-byte header, b-tree pages and their
cells, varints, records and overflow chains, and the WAL's committed frames laid over the main file.

Everything read from the file is distrusted: every offset is checked against its page, a varint has at
most nine bytes, a record's header must account for its body byte for byte, an overflow chain may not
visit a page twice nor run past what the payload needs, and the file is never read beyond its pages.
A page or cell that fails any check is skipped; nothing here raises on garbage.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAGIC = b"SQLite format 3\x00"
PAGE_SIZES = (4096, 512, 1024, 2048, 8192, 16384, 32768, 65536)  # SQLite's default first, for ties
WAL_MAGIC = (0x377F0682, 0x377F0683)
WAL_HEADER = 32
FRAME_HEADER = 24

LEAF_TABLE, INTERIOR_TABLE, LEAF_INDEX, INTERIOR_INDEX = 13, 5, 10, 2
_BTREE_TYPES = (LEAF_TABLE, INTERIOR_TABLE, LEAF_INDEX, INTERIOR_INDEX)
_INT_SIZES = (0, 1, 2, 3, 4, 6, 8)

Value = int | float | str | bytes | None


class Garbage(Exception):
    """Bytes that break the file format (caught where a page or cell is skipped)."""


def varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    """SQLite's big-endian varint at `pos` (at most 9 bytes, none at or past `end`): value and next pos."""
    value = 0
    for _ in range(8):
        if pos >= end:
            raise Garbage("varint runs off its page")
        byte = data[pos]
        pos += 1
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, pos
    if pos >= end:
        raise Garbage("varint runs off its page")
    return (value << 8) | data[pos], pos + 1


def signed(value: int) -> int:
    """A 64-bit varint read as the two's-complement integer it stores (rowids may be negative)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def record(payload: bytes, encoding: str = "utf-8") -> tuple[Value, ...]:
    """The column values of one record; Garbage unless header and body account for every byte.
    (Salvage parses every cell of a journal here: one-byte varints, nearly all of them, are read inline.)"""
    size = len(payload)
    if not size:
        raise Garbage("empty record")
    header_size, pos = (payload[0], 1) if payload[0] < 0x80 else varint(payload, 0, size)
    if not 1 <= header_size <= size or pos > header_size:
        raise Garbage("record header size")
    values: list[Value] = []
    body = header_size
    while pos < header_size:
        serial = payload[pos]
        if serial < 0x80:
            pos += 1
        else:
            serial, pos = varint(payload, pos, header_size)
        if serial >= 12:
            end = body + (serial - 12) // 2
            if end > size:
                raise Garbage("record body too short")
            if serial % 2:
                try:
                    values.append(payload[body:end].decode(encoding))
                except UnicodeDecodeError:
                    raise Garbage("text is not valid") from None
            else:
                values.append(bytes(payload[body:end]))
            body = end
        elif serial in (0, 8, 9):
            values.append(None if serial == 0 else serial - 8)
        elif serial in (10, 11):
            raise Garbage("reserved serial type")
        else:
            end = body + (_INT_SIZES[serial] if serial <= 6 else 8)
            if end > size:
                raise Garbage("record body too short")
            chunk = payload[body:end]
            values.append(int.from_bytes(chunk, "big", signed=True) if serial <= 6 else struct.unpack(">d", chunk)[0])
            body = end
    if body != size:
        raise Garbage("record body too long")
    return tuple(values)


def _u16(data: bytes, pos: int) -> int:
    return int.from_bytes(data[pos:pos + 2], "big")


def _u32(data: bytes, pos: int) -> int:
    return int.from_bytes(data[pos:pos + 4], "big")


@dataclass(frozen=True, slots=True)
class Cell:
    """One cell of a b-tree leaf (or interior index) page: its rowid (tables) and its record's values."""

    page: int
    rowid: int | None
    values: tuple[Value, ...]
    index: bool  # from an index b-tree (keys only) rather than a table
    overflow: tuple[int, ...] = ()  # the overflow pages holding the rest of its payload
    carved: bool = False  # found by `carve` on a page whose header is damaged


@dataclass
class PageFile:
    """The pages of one database as SQLite would see them: the main file with the WAL's committed frames
    laid over it.  `page(n)` is None for a page the file does not have."""

    main: bytes
    page_size: int
    usable: int
    page_count: int
    header_ok: bool  # the main file's (or the WAL's page 1) header was readable
    encoding: str = "utf-8"
    wal_pages: dict[int, bytes] = field(default_factory=dict)
    free: frozenset[int] = frozenset()

    def page(self, number: int) -> bytes | None:
        if not 1 <= number <= self.page_count:
            return None
        if number in self.wal_pages:
            return self.wal_pages[number]
        start = (number - 1) * self.page_size
        data = self.main[start:start + self.page_size]
        return data if len(data) == self.page_size else None


def open_pages(path: Path, wal: Path | None = None, limit: int = -1) -> PageFile:
    """Read a database file (and its WAL, when there is one) into a `PageFile`; with `limit`, only the
    first `limit` bytes of each (enough to recognise a file, not to read it all)."""
    with path.open("rb") as file:
        main = file.read(limit)
    wal_data = b""
    if wal is not None:
        with contextlib.suppress(FileNotFoundError), wal.open("rb") as file:
            wal_data = file.read(limit)
    header_ok = main.startswith(MAGIC) and len(main) >= 100
    page_size = _header_page_size(main) if header_ok else None
    if page_size is None:
        header_ok = False
        page_size = _wal_page_size(wal_data) or guess_page_size(main)
    frames, committed_pages = wal_frames(wal_data, page_size)
    count = committed_pages or len(main) // page_size
    pages = PageFile(main=main, page_size=page_size, usable=page_size, page_count=count, header_ok=header_ok,
                     wal_pages=frames)
    first = pages.page(1)
    if first is not None and first.startswith(MAGIC) and _header_page_size(first) == page_size:
        pages.header_ok = True
        pages.usable = page_size - first[20]
        pages.encoding = {2: "utf-16-le", 3: "utf-16-be"}.get(_u32(first, 56), "utf-8")
        pages.free = frozenset(_freelist(pages, _u32(first, 32), _u32(first, 36)))
    elif header_ok:  # page 1 in the WAL is damaged, the main file's header still tells the rest
        pages.usable = page_size - main[20]
    return pages


def _header_page_size(header: bytes) -> int | None:
    raw = _u16(header, 16)
    size = 65536 if raw == 1 else raw
    return size if size in PAGE_SIZES else None


def _wal_page_size(wal: bytes) -> int | None:
    if len(wal) < WAL_HEADER or _u32(wal, 0) not in WAL_MAGIC:
        return None
    size = _u32(wal, 8)
    return size if size in PAGE_SIZES else None


def guess_page_size(main: bytes, sample: int = 256) -> int:
    """The page size under which the most pages (of the first `sample`) parse cleanly, for a file whose
    header is gone: at the true size every page start is a page header whose cells parse; a smaller
    size cuts pages in half, a larger one sees only some of them."""
    best, best_score = PAGE_SIZES[0], -1
    for size in PAGE_SIZES:
        if len(main) < size:
            continue
        count = min(len(main) // size, sample)
        pages = PageFile(main=main, page_size=size, usable=size, page_count=count, header_ok=False)
        score = sum(1 for number in range(1, count + 1) if _clean_page(pages, number))
        if score > best_score:
            best, best_score = size, score
    return best


def _clean_page(pages: PageFile, number: int) -> bool:
    """A b-tree page with at least one cell, all of whose cells parse."""
    try:
        offsets = _cell_offsets(pages, number, strict=True)
        for _ in _page_cells(pages, number, offsets, strict=True):
            pass
    except Garbage:
        return False
    return bool(offsets)


def _wal_checksum(data: bytes, big_endian: bool, s0: int, s1: int) -> tuple[int, int]:
    words = struct.unpack(f"{'>' if big_endian else '<'}{len(data) // 4}I", data)
    for index in range(0, len(words), 2):
        s0 = (s0 + words[index] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[index + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_frames(wal: bytes, page_size: int) -> tuple[dict[int, bytes], int]:
    """The newest committed version of every page in a WAL, and the database's page count at its last
    commit (0 without one).  Frames count only while salts and the running checksum hold, as for SQLite;
    frames after the last commit frame belong to a transaction that never committed."""
    if len(wal) < WAL_HEADER or _u32(wal, 0) not in WAL_MAGIC or _u32(wal, 8) != page_size:
        return {}, 0
    big_endian = _u32(wal, 0) & 1 == 1
    s0, s1 = _wal_checksum(wal[:24], big_endian, 0, 0)
    if (s0, s1) != (_u32(wal, 24), _u32(wal, 28)):
        return {}, 0
    salts = wal[16:24]
    committed: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    size = 0
    pos = WAL_HEADER
    while pos + FRAME_HEADER + page_size <= len(wal):
        header = wal[pos:pos + FRAME_HEADER]
        data = wal[pos + FRAME_HEADER:pos + FRAME_HEADER + page_size]
        if header[8:16] != salts:
            break
        s0, s1 = _wal_checksum(header[:8], big_endian, s0, s1)
        s0, s1 = _wal_checksum(data, big_endian, s0, s1)
        if (s0, s1) != (_u32(header, 16), _u32(header, 20)):
            break
        pending[_u32(header, 0)] = data
        if _u32(header, 4):  # a commit frame: everything up to here is committed
            committed.update(pending)
            pending.clear()
            size = _u32(header, 4)
        pos += FRAME_HEADER + page_size
    return committed, size


def _freelist(pages: PageFile, trunk: int, count: int) -> set[int]:
    """The pages on the freelist (trunk pages and the leaves they list), bounded by the file."""
    free: set[int] = set()
    while trunk and trunk not in free and len(free) <= pages.page_count:
        data = pages.page(trunk)
        if data is None:
            break
        free.add(trunk)
        leaves = _u32(data, 4)
        if leaves > (pages.usable - 8) // 4:
            break
        free.update(n for n in (_u32(data, 8 + 4 * i) for i in range(leaves)) if 1 <= n <= pages.page_count)
        trunk = _u32(data, 0)
    return free if len(free) <= count else set()  # a freelist longer than the header says is garbage


def _cell_offsets(pages: PageFile, number: int, strict: bool = False) -> list[int]:
    """Where a b-tree page's cells start; pointers outside the page's cell area are dropped (or, strict,
    make the whole page Garbage).  Garbage if the page is not a b-tree page at all."""
    data = pages.page(number)
    if data is None:
        raise Garbage("no such page")
    start = 100 if number == 1 else 0
    kind = data[start]
    if kind not in _BTREE_TYPES:
        raise Garbage("not a b-tree page")
    count = _u16(data, start + 3)
    pointers = start + (8 if kind in (LEAF_TABLE, LEAF_INDEX) else 12)
    end = pointers + 2 * count
    if end > pages.usable:
        raise Garbage("cell count too large for the page")
    offsets = []
    for index in range(count):
        offset = _u16(data, pointers + 2 * index)
        if end <= offset < pages.usable:
            offsets.append(offset)
        elif strict:
            raise Garbage("cell pointer outside the page")
    return offsets


def _local_size(payload: int, usable: int, index: bool) -> int:
    """How much of a payload is on the cell's own page (the rest is on overflow pages)."""
    largest = (usable - 12) * 64 // 255 - 23 if index else usable - 35
    if payload <= largest:
        return payload
    smallest = (usable - 12) * 32 // 255 - 23
    local = smallest + (payload - smallest) % (usable - 4)
    return local if local <= largest else smallest


def _overflow(pages: PageFile, first: int, needed: int, chain: set[int]) -> bytes:
    """The rest of a payload from its overflow pages; Garbage for a loop, a missing page or a short chain."""
    parts = []
    number = first
    while needed > 0:
        if number in chain or number in pages.free:
            raise Garbage("overflow chain loops")
        data = pages.page(number)
        if data is None:
            raise Garbage("overflow page missing")
        chain.add(number)
        part = data[4:pages.usable][:needed]
        parts.append(part)
        needed -= len(part)
        number = _u32(data, 0)
        if needed > 0 and number == 0:
            raise Garbage("overflow chain ends early")
    return b"".join(parts)


def _cell_at(pages: PageFile, number: int, data: bytes, offset: int, kind: int) -> tuple[Cell, int]:
    """The cell of a page of `kind` that starts at `offset`, and where it ends on the page."""
    limit = pages.usable
    index = kind in (LEAF_INDEX, INTERIOR_INDEX)
    pos = offset + (4 if kind == INTERIOR_INDEX else 0)
    size, pos = varint(data, pos, limit)
    rowid = None
    if kind == LEAF_TABLE:
        raw, pos = varint(data, pos, limit)
        rowid = signed(raw)
    if size > pages.page_count * pages.usable:
        raise Garbage("payload larger than the file")
    local = _local_size(size, pages.usable, index)
    end = pos + local + (4 if local < size else 0)
    if end > limit:
        raise Garbage("cell runs off its page")
    payload = data[pos:pos + local]
    chain: set[int] = set()
    if local < size:
        payload += _overflow(pages, _u32(data, pos + local), size - local, chain)
    cell = Cell(page=number, rowid=rowid, values=record(payload, pages.encoding), index=index,
                overflow=tuple(sorted(chain)))
    return cell, end


def _page_cells(pages: PageFile, number: int, offsets: list[int], strict: bool = False) -> Iterator[Cell]:
    data = pages.page(number)
    kind = _kind(pages, number)
    if data is None or kind == INTERIOR_TABLE:
        return  # child pointers and rowid bounds only
    for offset in offsets:
        try:
            yield _cell_at(pages, number, data, offset, kind)[0]
        except Garbage:
            if strict:
                raise


def carve(pages: PageFile, number: int, accept: Callable[[Cell], bool]) -> Iterator[Cell]:
    """Table-leaf cells on a page whose header or cell pointers are damaged, found by trying every offset
    (the cells themselves usually sit intact at the page's end).  Only cells `accept` recognises count,
    and the search goes on after each one: bytes that merely parse are not taken for a row."""
    data = pages.page(number)
    if data is None:
        return
    offset = 100 if number == 1 else 0
    while offset < pages.usable - 3:
        try:
            cell, end = _cell_at(pages, number, data, offset, LEAF_TABLE)
        except Garbage:
            offset += 1
            continue
        if accept(cell):
            yield Cell(page=cell.page, rowid=cell.rowid, values=cell.values, index=False, overflow=cell.overflow,
                       carved=True)
            offset = end
        else:
            offset += 1


@dataclass(frozen=True)
class Scan:
    """What a scan saw: the pages that are neither b-tree pages, nor overflow pages some cell reached, nor
    free: the damaged ones (an overflow page whose cell was lost counts among them too)."""

    page_count: int
    unreadable: tuple[int, ...]


def scan(pages: PageFile, visit: Callable[[Cell], object], accept: Callable[[Cell], bool] | None = None) -> Scan:
    """`visit` every cell of every b-tree page that is not on the freelist, whatever tree it belongs to,
    page by page (a large journal's cells are never all held at once); with `accept`, then also the
    cells `carve` finds on the pages that turn out unreadable."""
    btree: set[int] = set()
    overflow: set[int] = set()
    for number in range(1, pages.page_count + 1):
        if number in pages.free:
            continue
        try:
            offsets = _cell_offsets(pages, number)
        except Garbage:
            continue
        found = False
        for cell in _page_cells(pages, number, offsets):
            found = True
            overflow.update(cell.overflow)
            visit(cell)
        if found or not offsets or _kind(pages, number) == INTERIOR_TABLE:  # not a page whose every cell is garbage
            btree.add(number)
    known = btree | pages.free | overflow
    unreadable = tuple(n for n in range(1, pages.page_count + 1) if n not in known and _has_bytes(pages, n))
    if accept is not None:
        for number in unreadable:
            for cell in carve(pages, number, accept):
                visit(cell)
    return Scan(page_count=pages.page_count, unreadable=unreadable)


def cells(pages: PageFile, accept: Callable[[Cell], bool] | None = None) -> list[Cell]:
    """Every cell `scan` visits, in a list (a small file, or the first pages of one)."""
    found: list[Cell] = []
    scan(pages, found.append, accept)
    return found


def _kind(pages: PageFile, number: int) -> int:
    data = pages.page(number)
    return data[100 if number == 1 else 0] if data is not None else -1


def _has_bytes(pages: PageFile, number: int) -> bool:
    """False for an all-zero page (a page SQLite zeroed, e.g. a freed one with secure_delete)."""
    data = pages.page(number)
    return data is not None and data.count(0) != len(data)
