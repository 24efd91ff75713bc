"""`goldtable chinagold generate|hint`: make boards from a seed, ask the bot for a move."""

from __future__ import annotations

import argparse
import json

from companion.engine.errors import UserError, write_new_text


def cmd_generate(args: argparse.Namespace) -> int:
    from companion.games.chinagold.board import generate_layout, layout_json

    if args.name is not None and not args.name.strip():
        raise UserError("--name: must not be empty")
    layout = generate_layout(args.seed, args.edge)
    if args.name is not None:
        layout = layout.model_copy(update={"name": args.name})
    text = layout_json(layout)
    if args.output in (None, "-"):
        print(text, end="")
        return 0
    write_new_text(args.output, text)
    print(args.output)
    return 0


def cmd_hint(args: argparse.Namespace) -> int:
    from companion.engine.record import load_record, replay
    from companion.games.chinagold.bot import describe_action, hint

    record = load_record(args.record)
    if record.game != "chinagold":
        raise UserError(f"{args.record}: game: a Chinagold record is needed, not {record.game!r}")
    state = replay(record, args.record).state
    action = hint(state, seconds=args.seconds)  # type: ignore[arg-type]
    if action is None:
        print("No move to suggest now (the tiles must be thrown, or the game is over).")
        return 0
    if args.json:
        print(json.dumps(action.model_dump(mode="json")))
    else:
        print(describe_action(state, action))  # type: ignore[arg-type]
    return 0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.01 <= value <= 60:
        raise argparse.ArgumentTypeError("must be between 0.01 and 60 seconds")
    return value


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    chinagold = sub.add_parser("chinagold", help="Chinagold boards and move hints")
    chinagold_sub = chinagold.add_subparsers(dest="chinagold_command", metavar="ACTION", required=True)

    p = chinagold_sub.add_parser("generate", help="write a valid board made from a seed")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--edge", type=int, choices=(5, 6), default=6, help="sites per edge: 6 (91) or 5 (61)")
    p.add_argument("--name", help="board name written into the file")
    p.add_argument("-o", "--output", help="a new JSON file (default: standard output)")
    p.set_defaults(handler=cmd_generate)

    p = chinagold_sub.add_parser("hint", help="the bot's suggested move for the player to move in a record")
    p.add_argument("record", help="game record (JSON) of a game in progress")
    p.add_argument("--seconds", type=_seconds, default=1.0, help="thinking time (default 1)")
    p.add_argument("--json", action="store_true", help="print the move as an action object")
    p.set_defaults(handler=cmd_hint)
