"""`goldtable` command line.  Bad input ends in one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.engine.errors import UserError, refuse_a_folder, write_new_text

if TYPE_CHECKING:  # the journal (and pydantic) are imported by the commands that read one
    from companion.engine.journal import Journal

# Modules that add their own sub-commands with `register(subparsers)` (games add theirs: `GamePlugin.commands`).
COMMAND_MODULES: tuple[str, ...] = ("companion.layout.cli", "companion.app.cli", "companion.camera.cli",
                                     "companion.system.cli", "firmware_bridge.cli")

Handler = Callable[[argparse.Namespace], int]


def english(domain: str, template: str, params: Mapping[str, Any]) -> str:
    """A game message in English as the app writes it, from the game's catalog: "1 chip", "2 chips"."""
    from companion.app.i18n import game_text

    return game_text(domain, template, params, language="en")


def journal_option(text: str | None) -> Path | None:
    """`--journal FILE` as given: None for the default journal.  An empty name is refused in one line (as a
    path it would be the current folder)."""
    if text is None:
        return None
    if not text.strip():
        raise UserError("--journal: the file name is empty; give the journal's file name, or leave --journal "
                        "out for the default journal")
    return Path(text)


def _journal(args: argparse.Namespace) -> Journal:
    """The journal for a reading command: opened read-only, so nothing is created or changed."""
    from companion.engine.journal import Journal

    return Journal(journal_option(args.journal), read_only=True)


def _journal_file(args: argparse.Namespace) -> Path:
    from companion.engine.journal import default_path

    return journal_option(args.journal) or default_path()


def _notices(journal: Journal) -> None:
    """What the journal found while reading (damage), after the command's own output."""
    for notice in journal.notices:
        print(f"goldtable: {notice}", file=sys.stderr)


def cmd_replay(args: argparse.Namespace) -> int:
    """Re-apply every action of a record and print the final summary."""
    from companion.engine.record import load_record, replay, summary

    record = load_record(args.file)
    result = replay(record, args.file)
    info = summary(record, result.state)
    if args.json:
        print(json.dumps(info, ensure_ascii=False))
        return 0
    state = "over" if info["over"] else "not over"
    print(f"{record.game}: {info['actions']} actions, game {state}")
    for name, score in info["scores"].items():
        marker = "  (winner)" if name in info["winners"] else ""
        print(f"  {name}: {score}{marker}")
    return 0


def cmd_games(args: argparse.Namespace) -> int:
    """List the games in the journal."""
    from companion.engine.journal import default_path

    if journal_option(args.journal) is None and not default_path().exists():  # a new install: nothing saved yet
        print("No saved games.")
        return 0
    journal = _journal(args)
    games = journal.games()
    _notices(journal)
    if args.json:
        print(json.dumps([g.model_dump(mode="json") for g in games], ensure_ascii=False))
        return 0
    if not games:
        print("No saved games.")
    for g in games:
        status = "DAMAGED" if g.damaged else "finished" if g.finished else "in progress"
        when = f"{g.updated:%Y-%m-%d %H:%M}" if g.updated else "?"
        cut = f"  (cut after move {g.cut.moves}: {g.cut.lost} moves lost)" if g.cut else ""
        print(f"{g.id:4d}  {g.game:16s} {when:16s}  {g.actions:4d} actions  {status:11s}  {', '.join(g.players)}{cut}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Write a journalled game as a game record."""
    if args.output not in (None, "-"):
        refuse_a_folder(Path(args.output))
    journal = _journal(args)
    if journal.integrity != "ok":
        _notices(journal)
    try:
        record = journal.record(args.id)
    except KeyError as error:  # DamagedGame is a UserError already
        raise UserError(str(error.args[0])) from None
    text = record.to_json()
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        write_new_text(args.output, text)
        print(args.output)  # where it went, as `chinagold generate` and `layout render` say
    return 0


def cmd_journal_check(args: argparse.Namespace) -> int:
    """Exit 0 when SQLite's check and every game read cleanly, 1 when something is damaged (told on stdout,
    with what `journal salvage` would copy)."""
    from companion.engine.journal import JournalDamaged
    from companion.engine.salvage import survey

    path = _journal_file(args)
    try:
        report = _journal(args).check()
    except JournalDamaged as error:
        print(f"SQLite cannot read the journal: {error.problem}")
    else:
        if report.integrity != "ok":
            print(f"SQLite integrity check: {report.integrity}")
        for game_id, problem in sorted(report.damaged.items()):
            print(f"game {game_id}: damaged ({problem})")
        readable = report.games - len(report.damaged)
        if report.clean:
            print(f"{path}: {readable} of {report.games} games readable")
            return 0
        print(f"{path}: {readable} of {report.games} games readable with SQLite")
    found = survey(path)
    print(f"`goldtable journal salvage -o NEW` would copy {_counted(len(found.copied), 'game')} "
          f"({_counted(found.moves, 'move')}), {len(found.cut)} of them cut where moves are missing; "
          f"{len(found.lost)} could not be read")
    return 1


def _counted(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def cmd_journal_salvage(args: argparse.Namespace) -> int:
    """Copy every readable move into a new journal, read page by page; say what was cut or lost."""
    from companion.engine.salvage import salvage_file

    refuse_a_folder(Path(args.output))
    report = salvage_file(_journal_file(args), args.output)
    for game_id, problem in sorted(report.lost.items()):
        print(f"game {game_id}: not copied ({problem})")
    for game_id, cut in sorted(report.cut.items()):
        print(f"game {game_id}: cut after move {cut.moves}: {_counted(cut.lost, 'move')} lost")
    unreadable = f"; {len(report.unreadable)} of {report.pages} pages unreadable" if report.unreadable else ""
    print(f"{_counted(len(report.copied), 'game')} ({_counted(report.moves, 'move')}) copied to {args.output}, "
          f"{len(report.cut)} cut, {len(report.lost)} could not be read{unreadable}")
    return 0 if not report.lost and not report.cut else 1


def cmd_journal_backup(args: argparse.Namespace) -> int:
    """A consistent copy of the journal, taken while the app may be writing."""
    refuse_a_folder(Path(args.output))
    journal = _journal(args)
    print(f"{journal.path} copied to {journal.backup(args.output)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="goldtable", description="Goldtable: referee, scorer and timer "
                                     "for gold-rush board games.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("replay", help="re-apply a game record and print the result")
    p.add_argument("file", help="game record (JSON)")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("games", help="list the games in the journal")
    p.add_argument("--journal", help="journal file (default: the user's data directory)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_games)

    p = sub.add_parser("export", help="write a journalled game as a game record")
    p.add_argument("id", type=int, help="game id from `goldtable games`")
    p.add_argument("-o", "--output", help="a new file (default: standard output)")
    p.add_argument("--journal", help="journal file (default: the user's data directory)")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("journal", help="check, repair or back up the journal")
    journal_sub = p.add_subparsers(dest="journal_command", metavar="ACTION", required=True)
    q = journal_sub.add_parser("check", help="read every game; exit 1 if any is damaged")
    q.add_argument("--journal", help="journal file (default: the user's data directory)")
    q.set_defaults(handler=cmd_journal_check)
    q = journal_sub.add_parser("salvage", help="copy every readable game into a new journal")
    q.add_argument("--journal", help="journal file (default: the user's data directory)")
    q.add_argument("-o", "--output", required=True, help="the new journal (must not exist)")
    q.set_defaults(handler=cmd_journal_salvage)
    q = journal_sub.add_parser("backup", help="copy the journal consistently, also while the app runs")
    q.add_argument("--journal", help="journal file (default: the user's data directory)")
    q.add_argument("-o", "--output", required=True, help="the copy (must not exist)")
    q.set_defaults(handler=cmd_journal_backup)

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    for module in game_commands():
        module.register(sub)
    return parser


def game_commands() -> list[Any]:
    """The modules of the installed games that have `goldtable` sub-commands of their own.  A broken game
    adds none (its problem is told where the game is asked for), so it never takes the CLI down."""
    from companion.engine.registry import GameUnavailable, declared, load_part, plugin_for

    found = []
    for game_id in declared():
        try:
            module = plugin_for(game_id).commands
            if module is not None:
                found.append(load_part(game_id, module))
        except GameUnavailable:
            continue
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 0
    try:
        return handler(args)
    except UserError as error:
        print(f"goldtable: {error.text(english)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
