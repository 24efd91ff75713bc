"""Text helpers for table.kv (kept out of the .kv so the layout holds no logic)."""

from __future__ import annotations

from typing import Any

from kivy.utils import escape_markup

from companion.app.hardware import SOURCE_WORDS, labelled, source_word
from companion.app.i18n import tr


def choice_label(choice: str, language: str) -> str:
    """Words on the buttons that offer a way on after a notice."""
    labels = {"confirm": tr("Confirm reading", language), "touch": tr("Enter by touch", language),
              "dismiss": tr("OK", language)}
    return labels.get(choice, choice)


def scores_markup(scores: list[dict[str, Any]]) -> str:
    """One line per seat, the seat colour on the name, the player to act in bold."""
    lines = []
    for row in scores:
        name = escape_markup(row["name"])
        line = f"[color={row['colour']}]{name}[/color]  {row['score']}"
        lines.append(f"[b]» {line}[/b]" if row["current"] else f"   {line}")
    return "\n".join(lines)


def standings(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows ({"name", "score", "colour", "winner"}) best first, each with its `place`; rows with the same
    score and outcome share a place and are marked `tie`; a winner whose score a loser has too won on
    the game's tie-break (`tie_break`)."""
    ordered = sorted(rows, key=lambda row: (not row["winner"], -row["score"]))
    keys = [(row["winner"], row["score"]) for row in ordered]
    losing_scores = {row["score"] for row in ordered if not row["winner"]}
    return [{**row, "place": keys.index(key) + 1, "tie": keys.count(key) > 1,
             "tie_break": row["winner"] and row["score"] in losing_scores} for row, key in zip(ordered, keys)]


def ranking_markup(ranking: list[dict[str, Any]], language: str) -> str:
    """Final standings, best first: winners marked, ties marked as ties (and sharing a place)."""
    lines = []
    winner = tr("winner", language)
    for row in standings(ranking):
        name = escape_markup(row["name"])
        marks = [f"[b]{winner}[/b]"] if row["winner"] else []
        if row["tie"]:
            marks.append(tr("tie", language))
        if row["tie_break"]:
            marks.append(tr("on the tie-break", language))
        mark = "  " + ", ".join(marks) if marks else ""
        lines.append(f"{row['place']}. [color={row['colour']}]{name}[/color]  {row['score']}{mark}")
    return "\n".join(lines)


def _detail_words(language: str) -> dict[str, str]:
    """The Hardware screen's words for the keys of a source's description (`describe()` in
    firmware_bridge); a key not listed here is shown as it is."""
    return {"kind": tr("kind", language), "url": tr("address", language), "port": tr("port", language),
            "device": tr("device", language), "firmware": tr("firmware", language),
            "pin_factory": tr("pin driver", language), "edges": tr("edges", language),
            "bounces_ignored": tr("bounces ignored", language), "events": tr("events", language),
            "frames": tr("frames", language), "rejected": tr("rejected", language),
            "duplicates": tr("repeated frames", language), "pending": tr("awaiting an answer", language),
            "acked": tr("recorded", language), "refused": tr("refused", language),
            "connects": tr("connections", language), "link_losses": tr("links lost", language),
            "commands_dropped": tr("commands dropped", language), "error": tr("error", language),
            "game": tr("game", language), "pictures": tr("pictures", language), "rolls": tr("rolls", language),
            "uncertain": tr("unsure", language), "faults": tr("faults", language), "detail": tr("detail", language),
            **{name: source_word(name, language) for name in SOURCE_WORDS}}


def sources_text(sources: list[dict[str, Any]], problems: list[str], simulated: bool, language: str) -> str:
    """The Hardware screen's list of sources with their state, and sources that could not be set up."""
    lines = [tr("Problem: {problem}", language).format(problem=problem) for problem in problems]
    words = _detail_words(language)
    for info in sources:
        state = tr("connected", language) if info.get("connected") else tr("not connected", language)
        details = ", ".join(labelled(words.get(key, key), _detail_value(key, value, words, language), language)
                            for key, value in info.items()
                            if key not in ("name", "connected") and not isinstance(value, (dict, list)))
        name = source_word(str(info.get("name", "?")), language)
        lines.append(labelled(name, state, language) + (f"\n   {details}" if details else ""))
    if simulated:
        lines.append(tr("No GPIO on this machine: the keyboard stands in for the buttons.", language))
    if not sources:
        lines.append(tr("No hardware sources attached.", language))
    return "\n".join(lines)


def _detail_value(key: str, value: Any, words: dict[str, str], language: str) -> str:
    if value is None:
        return "–"
    if key == "pending":  # the number of the sensor's frame that waits to be journalled and answered
        return tr("frame {number}", language).format(number=value)
    return words.get(value, value) if key == "kind" else str(value)
