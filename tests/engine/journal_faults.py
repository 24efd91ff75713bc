"""Helpers for the journal fault tests: small journals, damage, mounts that refuse writes even to root."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from companion.engine.core import Player, Setup
from companion.engine.journal import Journal
from companion.engine.session import Session
from tests.engine.counting_game import COUNTING_ID

ROOT = Path(__file__).resolve().parents[2]


def setup(target: int = 40, names: tuple[str, ...] = ("Ada", "Bo")) -> Setup:
    return Setup(game=COUNTING_ID, players=tuple(Player(name=name) for name in names), options={"target": target})


def journal_with_games(path: Path, games: int = 3, rolls: int = 3) -> list[int]:
    """A closed journal with `games` unfinished games of `rolls` rolls each; returns their ids."""
    journal = Journal(path)
    ids = []
    for _ in range(games):
        session = Session.new(setup(), journal)
        for value in "3625416"[:rolls]:
            assert session.submit({"type": "roll", "values": [value]}, "touch").accepted
        assert session.game_id is not None
        ids.append(session.game_id)
    journal.close()
    return ids


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def python(code: str, *args: str) -> subprocess.Popen[str]:
    """A child Python with the project importable (and the counting game registered)."""
    prelude = ("from companion.engine import registry; from tests.engine.counting_game import CountingGame; "
               "registry._load_all(); registry._GAMES['counting_test'] = CountingGame()\n")
    return subprocess.Popen([sys.executable, "-c", prelude + code, *args], cwd=ROOT, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def _mount(*args: str) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs or a read-only bind mount")
    result = subprocess.run(["mount", *args], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"mount not allowed here: {result.stderr.strip()}")


@contextmanager
def small_disk(folder: Path, size_kib: int = 256) -> Iterator[Path]:
    """A tmpfs of `size_kib` at `folder` (root can still not write past a full disk)."""
    folder.mkdir()
    _mount("-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(folder))
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True)


def fill(folder: Path) -> Path:
    """Fill the disk holding `folder` to the last byte; returns the filler file (delete it to free space)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:
        for chunk in (65536, 4096, 512, 1):
            try:
                while True:
                    os.write(fd, b"x" * chunk)
            except OSError:
                continue
    finally:
        os.close(fd)
    return filler


@contextmanager
def read_only_view(folder: Path, view: Path) -> Iterator[Path]:
    """`folder` seen read-only at `view` (a read-only bind mount: root cannot write there either)."""
    view.mkdir()
    _mount("--bind", "-o", "ro", str(folder), str(view))
    try:
        yield view
    finally:
        subprocess.run(["umount", "-l", str(view)], check=True)


def digger_journal(path: Path, seed: int, games: int) -> None:
    """A closed journal of `games` Digger games played through Session by the example's table bot, the
    way a table fills it: 2-4 players, some games cut short, a few undos (each action entered again),
    one game in three abandoned, every other one with a kept chess clock."""
    from random import Random

    from companion.engine.timebank import BankState
    from companion.games.digger.example import EXAMPLE_SETUP, play_example

    rng = Random(seed)
    journal = Journal(path)
    for index in range(games):
        players = EXAMPLE_SETUP.players[:rng.randint(2, 4)]
        record = play_example(EXAMPLE_SETUP.evolve(seed=seed * 1000 + index, players=players, first_player=0))
        session = Session.new(record.setup(), journal)
        assert session.game_id is not None
        length = len(record.actions) if rng.random() < 0.6 else rng.randint(1, len(record.actions))
        for entry in record.actions[:length]:
            assert session.submit(entry.action, entry.source, entry.at).accepted
            if rng.random() < 0.03 and not session.is_over():
                assert session.undo().accepted
                assert session.submit(entry.action, entry.source, entry.at).accepted
        if index % 2:
            journal.clocks.save(session.game_id, BankState(used=(12.5,) * len(players), seat=0).to_json())
        if index % 3 == 2 and not session.is_over():
            journal.abandon(session.game_id)
    journal.close()

