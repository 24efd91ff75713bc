"""`goldtable doctor` and `goldtable kiosk install` (companion.system)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def cmd_doctor(args: argparse.Namespace) -> int:
    from companion.cli import journal_option
    from companion.system.doctor import run_checks

    journal = journal_option(args.journal)
    checks = run_checks(journal_folder=journal.parent if journal is not None else None)
    for check in checks:
        print(check.line())
    return 0 if all(check.ok for check in checks) else 1


def cmd_kiosk_install(args: argparse.Namespace) -> int:
    from companion.system.kiosk import ask_on_terminal, kiosk_files, next_steps, ours, retire_desktop_entry, write_files

    home = Path.home()
    files = kiosk_files(args.mode, args.rotate, home)
    ask = ask_on_terminal if sys.stdin.isatty() else None
    write_files(files, force=args.force, dry_run=args.dry_run, ask=ask, unedited=lambda path: ours(path, home))
    if args.mode == "console" and not args.dry_run:
        retire_desktop_entry(home)
    if not args.dry_run:
        print("Then run:")
    else:
        print("After writing them, run:")
    for step in next_steps(args.mode, files):
        print(f"  {step}")
    return 0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("doctor", help="check display, GPIO, serial ports, audio, journal, free space and "
                                             "the USB stick; exit 0 when all is fine, 1 otherwise")
    p.add_argument("--journal", metavar="FILE", help="journal file whose folder to check (default: the user's)")
    p.set_defaults(handler=cmd_doctor)

    kiosk = subparsers.add_parser("kiosk", help="start Goldtable at boot on a Raspberry Pi")
    kiosk_sub = kiosk.add_subparsers(dest="kiosk_command", metavar="COMMAND", required=True)
    p = kiosk_sub.add_parser("install", help="write the autostart entry / systemd user unit (docs/raspberry-pi.md)")
    p.add_argument("--mode", choices=("desktop", "console"), default="desktop",
                   help="desktop: start with the Bookworm desktop (default); console: no desktop, SDL on KMS/DRM")
    p.add_argument("--rotate", type=int, choices=(0, 90, 180, 270), default=0, help="turn the screen (degrees)")
    p.add_argument("--dry-run", action="store_true", help="show the files and the commands, write nothing")
    p.add_argument("--force", action="store_true", help="replace files that exist with other content")
    p.set_defaults(handler=cmd_kiosk_install)
