"""`goldtable layout check|render|schema`: look after the board files in `layouts/`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from companion.engine.errors import UserError
from companion.layout import board_reference, check_layout, layout_kinds, read_layout


def cmd_check(args: argparse.Namespace) -> int:
    problems = check_layout(args.file)
    for line in problems:
        print(line)
    if problems:
        return 2
    print(f"{args.file}: ok")
    return 0


def cmd_render(args: argparse.Namespace) -> int:
    from companion.headless import check_png_output
    from companion.layout.render import render_layout

    output = Path(args.output)
    check_png_output(output, "-o", args.replace)
    width, height = _size(args.size)
    kind, layout = read_layout(args.file)  # the same checks as `layout check`: a broken file is not drawn
    if board_reference(kind) is None:
        raise UserError(f"{args.file}: kind: {kind.kind} files hold data without a board picture")
    render_layout(kind, layout, output, (width, height), verbose=args.verbose)
    print(args.output)
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    kinds = layout_kinds()
    if args.kind not in kinds:
        raise UserError(f"kind: unknown layout kind {args.kind!r} (known: {', '.join(sorted(kinds))})")
    sys.stdout.write(json.dumps(kinds[args.kind].model.model_json_schema(), indent=2) + "\n")
    return 0


def _size(text: str) -> tuple[int, int]:
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--size: expected WIDTHxHEIGHT such as 800x480, not {text!r}") from None
    if not (64 <= width <= 4096 and 64 <= height <= 4096):
        raise UserError(f"--size: {text} is outside 64x64 ... 4096x4096")
    return width, height


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    layout = sub.add_parser("layout", help="check or render a board layout file")
    layout_sub = layout.add_subparsers(dest="layout_command", metavar="ACTION", required=True)

    p = layout_sub.add_parser("check", help="validate a layout file (exit 2 with one line per problem)")
    p.add_argument("file")
    p.set_defaults(handler=cmd_check)

    p = layout_sub.add_parser("render", help="draw a layout with its ids to a PNG")
    p.add_argument("file")
    p.add_argument("-o", "--output", required=True, help="PNG file to write")
    p.add_argument("--replace", action="store_true", help="draw over the PNG file if it is already there")
    p.add_argument("--size", default="1200x900", help="picture size, WIDTHxHEIGHT")
    p.add_argument("--verbose", action="store_true", help="show Kivy's log on stderr too (always in kivy.log "
                                                            "in the data folder)")
    p.set_defaults(handler=cmd_render)

    p = layout_sub.add_parser("schema", help="print the JSON Schema of a layout kind")
    p.add_argument("kind")
    p.set_defaults(handler=cmd_schema)
