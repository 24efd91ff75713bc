"""The put-back instructions as the Table screen shows them, in the app's language."""

from __future__ import annotations

from companion.app.i18n import _, phrase_text
from companion.engine.core import ActionModel, Value
from companion.engine.putback import Instruction, put_back, put_back_refused
from companion.engine.session import Session


def lines(domain: str, instructions: list[Instruction]) -> str:
    """One bulleted line per instruction, or "" when nothing on the table moved."""
    return "\n".join(f"• {phrase_text(domain, instruction)}" for instruction in instructions)


def after_undo(session: Session, undone: Value) -> tuple[str, list[str]]:
    """What to put back after the session has undone the move that led to `undone`, and the board ids
    those instructions are about (for the board to highlight)."""
    instructions = put_back(session.game.id, undone, session.state)
    found = lines(session.game.id, instructions)
    text = _("Put back on the table:") + "\n" + found if found else _("Nothing on the table needs to move.")
    return text, [place for instruction in instructions for place in instruction.places]


def after_refusal(session: Session, action: ActionModel | None) -> str:
    """What to put back if the table already made a move the rules refused ("" when nothing moved)."""
    if action is None:
        return ""
    found = lines(session.game.id, put_back_refused(session.game, session.state, action))
    return _("If you already made this move, put back:") + "\n" + found if found else ""
