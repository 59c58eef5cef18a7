"""Text fitted to a terminal's width: the one owner of how wide a terminal is, how many
columns a piece of text takes, and how a line too wide is shortened or wrapped.

The width is ``COLUMNS`` when it is set, the terminal's own when the output is one, and
none at all otherwise (a CI log or a file is never cut: nothing is gained by it).
"""

from __future__ import annotations

import os
import shutil
import sys

from ..visible import visible

# wcwidth (its tables take 10 ms to import) is imported where text is measured: every
# pytest session asks how wide the terminal is (plugin/options.py), few measure text.

ELLIPSIS = "…"
NARROWEST = 40  # below this a terminal is not worth fitting to; lines are fitted to 40


def width(text: str) -> int:
    """Columns the text takes in a terminal: CJK and other wide characters take two,
    combining marks none (wcwidth; unprintable characters count one each)."""
    from wcwidth import wcswidth

    columns = wcswidth(text)
    return columns if columns >= 0 else len(text)


def _char_width(ch: str) -> int:
    from wcwidth import wcwidth

    w = wcwidth(ch)
    return w if w >= 0 else 1


def ljust(text: str, columns: int) -> str:
    return text + " " * (columns - width(text))


def rjust(text: str, columns: int) -> str:
    return " " * (columns - width(text)) + text


def terminal_columns() -> int | None:
    """How wide the output may be: ``COLUMNS``, else the terminal's width when standard
    output is a terminal, else None (no limit)."""
    given = os.environ.get("COLUMNS", "").strip()
    if given.isdigit() and int(given) > 0:
        return max(NARROWEST, int(given))
    try:
        if sys.stdout.isatty():
            return max(NARROWEST, shutil.get_terminal_size().columns)
    except (AttributeError, ValueError, OSError):  # a replaced or closed stdout
        pass
    return None


def _take(text: str, columns: int, from_end: bool = False) -> str:
    """The longest start (or end) of the text that takes at most ``columns``."""
    taken, used = [], 0
    for ch in reversed(text) if from_end else text:
        used += _char_width(ch)
        if used > columns:
            break
        taken.append(ch)
    return "".join(reversed(taken) if from_end else taken)


def middle(text: str, columns: int | None) -> str:
    """The text, or its start and end around ``…`` when it is wider than ``columns``
    (for ids and paths, whose both ends tell them apart)."""
    if columns is None or width(text) <= columns:
        return text
    room = max(2, columns - 1)
    return _take(text, (room + 1) // 2) + ELLIPSIS + _take(text, room // 2, from_end=True)


def item_line(indent: str, name: str, rest: str, columns: int | None, first: str = "") -> list[str]:
    """One entry of a list, ``indent first name rest``, on as many lines as it needs: the
    name (made visible) shortened so that the entry fits, down to 24 columns, an item's
    file path first and never its case id or engine (``…eipts.ocr.yaml::sroie-359[tesseract]``);
    then the entry wraps, so the message in ``rest`` is never cut."""
    name = visible(name)
    if columns is not None:
        name = short_id(name, max(24, columns - width(indent + first + rest)))
    return wrap(indent + first + name + rest, columns)


def short_id(name: str, columns: int) -> str:
    """An item's id or key (``PATH::CASE[ENGINE]``) in ``columns``: the path's end kept
    after ``…``, the case and engine whole even when they alone are wider; anything else
    shortened in the middle."""
    if width(name) <= columns:
        return name
    path, sep, tail = name.rpartition("::")
    if not sep:
        return middle(name, columns)
    room = columns - width(sep + tail) - 1
    return (ELLIPSIS + _take(path, room, from_end=True) if room > 0 else ELLIPSIS) + sep + tail


def wrap(line: str, columns: int | None) -> list[str]:
    """A line wider than ``columns`` broken at spaces into lines that fit, each
    continuation indented two more than the line (a word wider than a line is cut)."""
    if columns is None or width(line) <= columns:
        return [line]
    indent = " " * (len(line) - len(line.lstrip(" ")))
    follow = indent + "  "
    lines: list[str] = []
    current = indent
    for word in line.split():
        joined = current + " " + word if current.strip() else current + word
        if width(joined) <= columns:
            current = joined
            continue
        if current.strip():
            lines.append(current)
            current = follow
        while width(current + word) > columns:  # a word wider than a whole line
            piece = _take(word, columns - width(current)) or word[0]
            lines.append(current + piece)
            word = word[len(piece) :]
            current = follow
        current += word
    if current.strip():
        lines.append(current)
    return lines


def fit(lines: list[str], columns: int | None) -> list[str]:
    """Every line wrapped to ``columns`` (none: as they are)."""
    return [part for line in lines for part in wrap(line, columns)]
