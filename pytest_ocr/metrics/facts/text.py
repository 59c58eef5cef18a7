"""The text a fact is checked on: olmOCR-Bench's normalisation, and where each character of a normalised
text comes from in the output (for explanations), with the words a reason quotes a text in."""

from __future__ import annotations

import re
import unicodedata
from array import array

# --- Text normalisation, exactly olmOCR-Bench's ``normalize_text``: the same regular expressions in the same
# order (matching it byte for byte is the spec: a fact's threshold is computed on the normalised text).

_BR = re.compile(r"<br/?>")
_WHITESPACE = re.compile(r"\s+")
_BOLD_STARS = re.compile(r"\*\*(.*?)\*\*")
_BOLD_UNDERSCORES = re.compile(r"__(.*?)__")
_B_TAG = re.compile(r"</?b>")
_I_TAG = re.compile(r"</?i>")
_ITALIC_STAR = re.compile(r"\*(.*?)\*")
_ITALIC_UNDERSCORE = re.compile(r"_(.*?)_")
# Curly quotes, dashes and the fullwidth low line to ASCII; the micro sign to the Greek mu. Each maps one
# character to one ASCII (or mu) character that is not itself mapped, so one translate() equals olmOCR's
# replace() calls in sequence.
_REPLACEMENTS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\uff3f": "_",
        "\u2013": "-",
        "\u2014": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2212": "-",
        "\u00b5": "\u03bc",
    }
)
_GROUP = r"\1"  # a match replaced by its first group
# olmOCR's regular expressions, in its order, each with what replaces a match; then NFC and _REPLACEMENTS.
_STEPS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_BR, " "),
    (_WHITESPACE, " "),
    (_BOLD_STARS, _GROUP),
    (_BOLD_UNDERSCORES, _GROUP),
    (_B_TAG, ""),
    (_I_TAG, ""),
    (_ITALIC_STAR, _GROUP),
    (_ITALIC_UNDERSCORE, _GROUP),
)
# A text of printable ASCII without '*', '_', '<' or two spaces in a row is its own normalisation (no rule
# above can change it); most table cells are, and a 5 MB table has a million of them.
_MAY_CHANGE = re.compile(r"[^\x20-\x7e]|[*_<]|  ")


def normalize_text(text: str) -> str:
    """olmOCR-Bench's normalisation: ``<br>`` to a space, whitespace runs to one space, Markdown bold and
    italics and ``<b>``/``<i>`` tags removed, NFC, curly quotes and dashes to ASCII, micro sign to mu.

    Not idempotent (a fullwidth low line becomes '_' after the italics rule ran): normalise a text once."""
    if not _MAY_CHANGE.search(text):
        return text
    for pattern, replacement in _STEPS:
        text = pattern.sub(replacement, text)
    text = unicodedata.normalize("NFC", text)
    return text.translate(_REPLACEMENTS)


def _quote(text: str, limit: int = 40) -> str:
    """A text for a reason: quoted, cut to ``limit`` characters as olmOCR cuts it (marked with '…')."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


# --- Where a check looked, in the output as the engine wrote it. Only explanations use this: a check decides on
# the normalised text, and a failed one then says where in the output its nearest match is.

Span = tuple[int, int]  # characters [start, end) of the output (code points)


class _Located:
    """A text made from an output (normalised, lower-cased, whitespace collapsed) and, for each of its characters,
    the characters of the output it comes from: ``starts[k]`` to ``ends[k]`` (a run of whitespace made one
    space comes from the whole run)."""

    def __init__(self, text: str, starts: array[int] | None = None, ends: array[int] | None = None) -> None:
        self.text = text
        self.starts = array("q", range(len(text))) if starts is None else starts
        self.ends = array("q", range(1, len(text) + 1)) if ends is None else ends

    def span(self, start: int, end: int) -> Span | None:
        """The output's characters that characters [start, end) of this text come from."""
        if not 0 <= start < end <= len(self.text):
            return None
        return self.starts[start], self.ends[end - 1]


class _Building:
    """A _Located being written piece by piece from another."""

    def __init__(self, source: _Located) -> None:
        self.source = source
        self.pieces: list[str] = []
        self.starts: array[int] = array("q")
        self.ends: array[int] = array("q")

    def keep(self, start: int, end: int) -> None:
        """Characters [start, end) of the source, as they are."""
        self.pieces.append(self.source.text[start:end])
        self.starts += self.source.starts[start:end]
        self.ends += self.source.ends[start:end]

    def put(self, text: str, start: int, end: int) -> None:
        """``text`` in place of the source's characters [start, end)."""
        self.pieces.append(text)
        self.starts += array("q", [self.source.starts[start]] * len(text))
        self.ends += array("q", [self.source.ends[end - 1]] * len(text))

    def built(self) -> _Located:
        return _Located("".join(self.pieces), self.starts, self.ends)


def _sub_located(pattern: re.Pattern[str], replacement: str, located: _Located) -> _Located:
    """``pattern.sub(replacement, text)`` (a literal text or _GROUP), keeping where each character comes from."""
    building = _Building(located)
    done = 0
    for match in pattern.finditer(located.text):
        start, end = match.span()
        building.keep(done, start)
        if replacement == _GROUP:
            building.keep(*match.span(1))
        elif replacement:
            building.put(replacement, start, end)
        done = end
    if not done:
        return located
    building.keep(done, len(located.text))
    return building.built()


# A run of non-ASCII characters and the character before it. No canonical composition has an ASCII character
# second and none reorders across one, so NFC of a text is NFC of its pieces cut before each ASCII character.
_NON_ASCII_RUN = re.compile(r"[\x00-\x7f]?[^\x00-\x7f]+")


def _nfc_located(located: _Located) -> _Located:
    text = located.text
    if unicodedata.is_normalized("NFC", text):
        return located
    building = _Building(located)
    done = 0
    for match in _NON_ASCII_RUN.finditer(text):
        start, end = match.span()
        building.keep(done, start)
        for piece_start, piece_end, composed in _nfc_pieces(text, start, end):
            if composed == text[piece_start:piece_end]:
                building.keep(piece_start, piece_end)
            else:  # each composed character comes from the whole piece
                building.put(composed, piece_start, piece_end)
        done = end
    building.keep(done, len(text))
    return building.built()


def _nfc_pieces(text: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """text[start:end] cut before each starter (combining class 0), each piece with its NFC, when the pieces'
    NFC is the whole's (Hangul syllables and a few scripts' vowel signs compose two starters); else one piece."""
    whole = unicodedata.normalize("NFC", text[start:end])
    cuts = [k for k in range(start + 1, end) if not unicodedata.combining(text[k])]
    bounds = zip([start, *cuts], [*cuts, end], strict=True)
    pieces = [(a, b, unicodedata.normalize("NFC", text[a:b])) for a, b in bounds]
    if "".join(composed for _, _, composed in pieces) == whole:
        return pieces
    return [(start, end, whole)]


def _normalized_located(text: str) -> _Located:
    """normalize_text(text), with where each of its characters comes from in ``text``."""
    located = _Located(text)
    if not _MAY_CHANGE.search(text):
        return located
    for pattern, replacement in _STEPS:
        located = _sub_located(pattern, replacement, located)
    located = _nfc_located(located)
    return _Located(located.text.translate(_REPLACEMENTS), located.starts, located.ends)  # one for one


def _lowered_located(located: _Located) -> _Located:
    lowered = located.text.lower()
    if len(lowered) == len(located.text):  # every character lowers to one
        return _Located(lowered, located.starts, located.ends)
    building = _Building(located)
    for k, character in enumerate(located.text):
        building.put(character.lower(), k, k + 1)
    return building.built()


def _at(text: str, offset: int) -> str:
    """Where character ``offset`` of an output is, as a reader finds it: line and column, from 1."""
    line_start = text.rfind("\n", 0, offset) + 1
    return f"line {text.count(chr(10), 0, offset) + 1}, column {offset - line_start + 1}"
