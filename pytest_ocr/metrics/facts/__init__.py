"""olmOCR-Bench fact checks: simple, machine-checkable facts about a page's Markdown output.

Vision-language OCR engines return a page as Markdown. olmOCR-Bench (Poznanski et al., "olmOCR: Unlocking
Trillions of Tokens in PDFs with Vision Language Models", 2025) scores such a page by facts of six types:

``present`` / ``absent``
    a text is (not) in the page, fuzzily: rapidfuzz's ``partial_ratio`` against ``1 - max_diffs / len(text)``.
``order``
    ``before`` occurs before ``after``, each found with at most ``max_diffs`` edits (fuzzysearch).
``table``
    a table cell holds ``cell`` and its neighbours (``up``, ``down``, ``left``, ``right``) and headings
    (``top_heading``, ``left_heading``) hold the texts given; Markdown and HTML tables both count.
``baseline``
    the output is not empty, does not end in a loop of repeated n-grams and has no CJK, kana or emoji
    characters; with ``max_length`` it is instead the check that a blank page gives (almost) nothing.
``math``
    a LaTeX formula renders (KaTeX) like one of the page's formulas. Rendering is not done here: the
    caller passes a ``math`` callable (``pytest_ocr.metrics.math_check``) to :func:`check_fact`.

The verdicts are exactly olmOCR-Bench's (``olmocr/bench/tests.py`` of olmocr 0.4.27, which the tests use as
an oracle), including its quirks: the text normalisation is the same sequence of regular expressions, a
Markdown table's first row heads its columns, an HTML ``colspan`` does not widen the row it is on, a check
that raises in olmOCR-Bench (a non-numeric ``rowspan``) counts as failed, as its benchmark runner counts it.
Only the explanations differ: one line, quoting at most 40 characters of a text, that says what a failed check
found instead and where (the nearest text, the cell and its neighbours, at a line and column of the output), and
the spans of the output it looked at (``FactVerdict.spans``); they are worked out after the verdict, never change it,
and search at most once more within the same bounds.

The work is bounded where olmOCR-Bench's is not (its table parser is quadratic in places, fuzzysearch is
exponential in ``max_diffs`` for short texts, rapidfuzz's ``partial_ratio`` is O(N·M/64) for long texts):
each bound is a module constant below and a check that would exceed one fails with a reason that starts with
"not checked:" and names the bound. The bounds are 25 times or more what a real page needs (olmOCR writes at
most 8,000 tokens, some 40,000 characters), except one no real fact meets: an 'order' text shorter than
3 × (max_diffs + 1) characters with max_diffs of 8 or more, which olmOCR-Bench itself needs minutes a page for.
"""

from __future__ import annotations

import math as _math
import re
import unicodedata
import warnings
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import lru_cache
from typing import Any

from bs4 import BeautifulSoup, NavigableString, Tag
from fuzzysearch.common import Match, consolidate_overlapping_matches, get_best_match_in_group, group_matches  # type: ignore[import-untyped]
from fuzzysearch.levenshtein import find_near_matches_levenshtein  # type: ignore[import-untyped]
from rapidfuzz import fuzz, process

__all__ = [
    "FACT_TYPES",
    "Fact",
    "FactError",
    "FactVerdict",
    "MathChecker",
    "check_fact",
    "check_facts",
    "ngram_repeats",
    "normalize_text",
    "parse_fact",
]

FACT_TYPES = ("present", "absent", "order", "table", "baseline", "math")

# A math fact's check: (the fact, the output) -> (passed, reason). It gets the whole fact, not only its
# formula: ignore_dollar_delimited is a setting of each fact, which a callable bound once could not know.
MathChecker = Callable[["Fact", str], "tuple[bool, str]"]

# --- Bounds (see the module docstring). A page of olmOCR output is at most 8,000 tokens: ~40,000 characters.

# present/absent: rapidfuzz's partial_ratio with a text longer than 64 characters aligns it against the whole
# output bit-parallel: about len(output) × ceil(len(text) / 64) word operations (5 MB of text with a 1,000-
# character needle took minutes). Allowed: a 1,000-character text in 1,000,000 characters of output.
PRESENCE_MAX_WORK = 16_000_000
# order: fuzzysearch yields every approximate match before olmOCR keeps the best of each overlapping group;
# more than this many raw matches (a short text in a repetitive output) is not checked.
ORDER_MAX_MATCHES = 2_000_000
# order: a text shorter than 3 × (max_diffs + 1) characters takes fuzzysearch's candidate-list path, whose
# cost per character of output grows about 2.5-fold per allowed difference (1 µs at max_diffs 1, 2 ms at 10).
# Allowed: len(output) × 2.5 ** max_diffs up to this, i.e. 1,000,000 characters at max_diffs 5, 10,000 at 10.
ORDER_SLOW_PATH_MAX_WORK = 100_000_000
# order: up to this many raw matches, fuzzysearch's own consolidation groups them (it compares each match with
# every group so far); more are grouped by a sort, and only the groups that decide are handed to fuzzysearch.
ORDER_LIBRARY_CONSOLIDATION = 2_000
# order: the overlapping matches olmOCR groups one at a time (quadratic in their number) when the first
# 'before' group and the last 'after' group overlap and their best matches decide the verdict.
ORDER_MAX_GROUP = 20_000
# table: BeautifulSoup's html.parser takes 1-10 s a megabyte; an output with an HTML table longer than this is
# not parsed.
HTML_MAX_CHARS = 1_000_000
# table: element visits of olmOCR's HTML table walk (a nested table is walked once per enclosing table, its
# cells once per enclosing row) and cells of its rowspan/colspan grid; a flat 1 MB table needs about 800,000.
HTML_MAX_WORK = 10_000_000
# A failed check says where in the output it looked (line and column): the normalised text it checked is mapped
# back to the output, at some 40 bytes a character. Up to this length; beyond it, the reason names no position.
LOCATE_MAX_CHARS = 1_000_000
# table: an empty 'cell' matches every empty cell, padding included; the padding of a table (rows × widest row
# minus its cells) is examined up to this size.
TABLE_MAX_PADDING = 5_000_000


class FactError(ValueError):
    """A fact that is not well formed; the message names the key (``"order: max_diffs 7 is more than ..."``)."""


class _NotChecked(Exception):
    """Checking would exceed one of the bounds above; the message says which."""


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


# --- Facts


@dataclass(frozen=True)
class Fact:
    """One olmOCR-Bench fact. The fields are olmOCR-Bench's, with its defaults; a field that does not apply to
    the fact's type keeps its default. Texts are kept as written: they are normalised when checked. A Fact is
    validated when made (FactError), as olmOCR-Bench validates its tests, and stricter about types."""

    id: str
    type: str
    # present / absent
    text: str | None = None
    case_sensitive: bool = True
    first_n: int | None = None  # only the first n characters of the normalised output (0: all)
    last_n: int | None = None  # only the last n characters (with first_n: both ends, concatenated)
    # order
    before: str | None = None
    after: str | None = None
    # table
    cell: str | None = None
    up: str = ""
    down: str = ""
    left: str = ""
    right: str = ""
    top_heading: str = ""
    left_heading: str = ""
    ignore_markdown_tables: bool = False
    # baseline
    max_length: int | None = None  # a blank page: at most this many alphanumeric characters (no other check)
    max_length_skips_image_alt_tags: bool = False
    max_repeats: int = 30
    check_disallowed_characters: bool = True
    # math
    math: str | None = None
    ignore_dollar_delimited: bool = False
    # all types (unused by baseline and math, as in olmOCR-Bench)
    max_diffs: int = 0
    # bookkeeping a report may group facts by (an olmOCR-Bench JSONL file's name: "table_tests", ...); unused here
    category: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.type, str) or self.type not in FACT_TYPES:
            raise FactError(f"type: unknown fact type {self.type!r}; expected one of {', '.join(FACT_TYPES)}")
        kind = self.type
        if not isinstance(self.id, str) or not self.id:
            raise FactError(f"{kind}: 'id' must be a non-empty string, not {self.id!r}")
        if self.category is not None and not isinstance(self.category, str):
            raise FactError(f"{kind}: 'category' must be a string, not {type(self.category).__name__}")
        for f in fields(self):
            name = f.name
            if name in ("id", "type", "category"):
                continue
            value = getattr(self, name)
            if name not in _KEYS[kind]:
                if value != f.default:
                    raise FactError(f"{kind}: '{name}' does not apply to a {kind} fact")
                continue
            if name in _REQUIRED[kind] and value is None:
                raise FactError(f"{kind}: missing '{name}'")
            _check_value(kind, name, value)
        if kind in ("present", "absent"):
            assert self.text is not None
            if not normalize_text(self.text).strip():
                raise FactError(f"{kind}: 'text' is empty")
        elif kind == "order":
            for name in ("before", "after"):
                normalized = normalize_text(getattr(self, name))
                if not normalized.strip():
                    raise FactError(f"order: '{name}' is empty")
                if self.max_diffs > len(normalized) // 2:
                    raise FactError(
                        f"order: max_diffs {self.max_diffs} is more than half of '{name}' "
                        f"({len(normalized)} characters)"
                    )
        elif kind == "math":
            assert self.math is not None
            if not self.math.strip():
                raise FactError("math: 'math' is empty")

    def to_dict(self) -> dict[str, Any]:
        """The fact as an olmOCR-Bench JSON object: id, type and the fields that differ from their defaults."""
        data: dict[str, Any] = {"id": self.id, "type": self.type}
        for f in fields(self):
            if (f.name in _KEYS[self.type] or f.name == "category") and getattr(self, f.name) != f.default:
                data[f.name] = getattr(self, f.name)
        return data


_PRESENCE_KEYS = ("text", "case_sensitive", "first_n", "last_n", "max_diffs")
_KEYS: dict[str, frozenset[str]] = {
    "present": frozenset(_PRESENCE_KEYS),
    "absent": frozenset(_PRESENCE_KEYS),
    "order": frozenset(("before", "after", "max_diffs")),
    "table": frozenset(
        ("cell", "up", "down", "left", "right", "top_heading", "left_heading", "ignore_markdown_tables", "max_diffs")
    ),
    "baseline": frozenset(
        ("max_length", "max_length_skips_image_alt_tags", "max_repeats", "check_disallowed_characters", "max_diffs")
    ),
    "math": frozenset(("math", "ignore_dollar_delimited", "max_diffs")),
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "present": ("text",),
    "absent": ("text",),
    "order": ("before", "after"),
    "table": ("cell",),
    "baseline": (),
    "math": ("math",),
}
_STRINGS = frozenset(
    ("text", "before", "after", "cell", "up", "down", "left", "right", "top_heading", "left_heading", "math")
)
_BOOLEANS = frozenset(
    (
        "case_sensitive",
        "ignore_markdown_tables",
        "max_length_skips_image_alt_tags",
        "check_disallowed_characters",
        "ignore_dollar_delimited",
    )
)
_COUNTS = frozenset(("first_n", "last_n", "max_length", "max_repeats", "max_diffs"))  # whole numbers >= 0
# Keys a null may stand for: the field's default (olmOCR-Bench treats a null heading as no heading).
_NULLABLE = frozenset(("first_n", "last_n", "max_length", "up", "down", "left", "right", "top_heading", "left_heading"))
# olmOCR-Bench's bookkeeping: where the fact comes from and whether a person checked it. Not used here (a
# category is kept on the Fact for reports).
_BOOKKEEPING = frozenset(("pdf", "page", "checked", "url"))


def _check_value(kind: str, name: str, value: Any) -> None:
    if name in _STRINGS:
        if not isinstance(value, str):
            raise FactError(f"{kind}: '{name}' must be a string, not {type(value).__name__}")
    elif name in _BOOLEANS:
        if not isinstance(value, bool):
            raise FactError(f"{kind}: '{name}' must be true or false, not {value!r}")
    elif name in _COUNTS:
        optional = name in ("first_n", "last_n", "max_length")
        if value is None and optional:
            return
        # A bool is an int to Python (and to olmOCR's max_diffs check); not a count here.
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise FactError(f"{kind}: '{name}' must be a whole number >= 0, not {value!r}")


def parse_fact(data: Mapping[str, Any], *, default_id: str | None = None) -> Fact:
    """A fact from one olmOCR-Bench JSONL object or one ``checks:`` entry of a case file.

    Accepts and ignores olmOCR-Bench's bookkeeping keys (pdf, page, checked, url; a category is kept on the fact
    for reports). ``default_id`` names a fact without an ``id`` (a case file's "check 3"). A null stands for the
    default of an optional field (first_n, last_n, max_length, the table's neighbours and headings). Raises
    FactError naming the key for an unknown key, a key of another type, a missing or ill-typed value, an empty
    text or a ``max_diffs`` olmOCR-Bench refuses."""
    if not isinstance(data, Mapping):
        raise FactError(f"a fact must be a mapping of keys to values, not {type(data).__name__}")
    if "type" not in data:
        raise FactError(f"type: missing; expected one of {', '.join(FACT_TYPES)}")
    kind = data["type"]
    if not isinstance(kind, str) or kind not in FACT_TYPES:
        raise FactError(f"type: unknown fact type {kind!r}; expected one of {', '.join(FACT_TYPES)}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in _BOOKKEEPING or key in ("id", "type", "category"):
            continue
        if key not in _KEYS[kind]:
            if any(key in keys for keys in _KEYS.values()):
                raise FactError(f"{kind}: '{key}' does not apply to a {kind} fact")
            raise FactError(f"{kind}: unknown key {key!r}")
        if value is None and key in _NULLABLE:
            continue
        values[key] = value
    fact_id = data.get("id", default_id)
    if fact_id is None:
        raise FactError(f"{kind}: missing 'id'")
    return Fact(id=fact_id, type=kind, category=data.get("category"), **values)


@dataclass(frozen=True)
class FactVerdict:
    id: str
    type: str
    passed: bool
    reason: str  # "" when passed; otherwise one line
    # Where a failed check looked in the output: its nearest match, the matches out of order, the cell it
    # examined (empty when there is no one place, or the output is beyond LOCATE_MAX_CHARS).
    spans: tuple[Span, ...] = ()


def check_fact(fact: Fact, text: str, *, math: MathChecker | None = None) -> FactVerdict:
    """The verdict of one fact on one page's output (Markdown, possibly with HTML tables).

    ``math`` checks a ``math`` fact: called with ``(fact, text)``, it returns ``(passed, reason)`` (bind the
    renderer beforehand; the fact carries ``math`` and ``ignore_dollar_delimited``); without it a math fact
    fails, saying so."""
    return _check(fact, _page(text), math)


def check_facts(facts: Sequence[Fact], text: str, *, math: MathChecker | None = None) -> list[FactVerdict]:
    """The verdicts of several facts on one output, in order; the output is normalised and its tables parsed
    once for all of them."""
    page = _page(text)
    return [_check(fact, page, math) for fact in facts]


# A check's verdict, why it fails and where it looked (see FactVerdict).
_Result = tuple[bool, str, tuple[Span, ...]]
_HOLDS: _Result = (True, "", ())


def _check(fact: Fact, page: _Page, math: MathChecker | None) -> FactVerdict:
    spans: tuple[Span, ...] = ()
    try:
        if fact.type in ("present", "absent"):
            passed, reason, spans = _check_presence(fact, page)
        elif fact.type == "order":
            passed, reason, spans = _check_order(fact, page)
        elif fact.type == "table":
            passed, reason, spans = _check_table(fact, page)
        elif fact.type == "baseline":
            passed, reason, spans = _check_baseline(fact, page)
        elif math is None:
            passed, reason = False, "not checked: math facts need the KaTeX renderer (pass check_fact a math checker)"
        else:
            passed, reason = math(fact, page.text)
    except _NotChecked as error:
        passed, reason = False, f"not checked: {error}"
    except _Raises as error:
        passed, reason = False, str(error)
    if passed:
        return FactVerdict(fact.id, fact.type, True, "")
    return FactVerdict(fact.id, fact.type, False, reason, spans)


class _Page:
    """One output and what its checks share, computed when first needed: the normalised text (and its lower
    case) and its tables."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._normalized: str | None = None
        self._lowered: str | None = None
        self._markdown_tables: list[_Table] | None = None
        self._html_tables: list[_Table] | str | None = None  # a str: why they could not be read
        self._located: dict[bool, _Located | None] = {}

    @property
    def normalized(self) -> str:
        if self._normalized is None:
            self._normalized = normalize_text(self.text)
        return self._normalized

    @property
    def lowered(self) -> str:
        if self._lowered is None:
            self._lowered = self.normalized.lower()
        return self._lowered

    def located(self, case_sensitive: bool = True) -> _Located | None:
        """The normalised text (lower-cased unless ``case_sensitive``) with where each character comes from;
        None for an output longer than LOCATE_MAX_CHARS."""
        if case_sensitive not in self._located:
            located = None
            if len(self.text) <= LOCATE_MAX_CHARS:
                located = _normalized_located(self.text)
                if not case_sensitive:
                    located = _lowered_located(located)
            self._located[case_sensitive] = located
        return self._located[case_sensitive]

    def at(self, span: Span | None) -> str:
        """Where a span starts, as ' at line L, column C' (nothing for no span)."""
        return f" at {_at(self.text, span[0])}" if span else ""

    @property
    def markdown_tables(self) -> list[_Table]:
        if self._markdown_tables is None:
            self._markdown_tables = _markdown_tables(self.text)
        return self._markdown_tables

    @property
    def html_tables(self) -> list[_Table] | str:
        if self._html_tables is None:
            try:
                self._html_tables = _html_tables(self.text)
            except _HtmlTableError as error:
                self._html_tables = str(error)
        return self._html_tables


@lru_cache(maxsize=2)
def _page(text: str) -> _Page:
    # check_fact on each fact of one page in turn (a test item per fact) parses the page's tables once.
    return _Page(text)


# --- present / absent


def _check_presence(fact: Fact, page: _Page) -> _Result:
    assert fact.text is not None
    query = normalize_text(fact.text)
    content = page.normalized
    if not fact.case_sensitive:
        query, content = query.lower(), page.lowered
    # olmOCR tests truthiness: a first_n or last_n of 0 means the whole output.
    where = ""
    if fact.first_n and fact.last_n:
        content = content[: fact.first_n] + content[-fact.last_n :]
        where = f" in the first {fact.first_n} and last {fact.last_n} characters"
    elif fact.first_n:
        content = content[: fact.first_n]
        where = f" in the first {fact.first_n} characters"
    elif fact.last_n:
        content = content[-fact.last_n :]
        where = f" in the last {fact.last_n} characters"
    threshold = 1.0 - (fact.max_diffs / (len(query) if len(query) > 0 else 1))
    if _beyond_presence_work(query, content):
        raise _NotChecked(
            f"a fuzzy search for a {len(query)}-character text in {len(content)} characters of output exceeds the "
            f"bound (PRESENCE_MAX_WORK)"
        )
    ratio = fuzz.partial_ratio(query, content) / 100.0
    if (ratio >= threshold) == (fact.type == "present"):
        return _HOLDS
    nearest = _nearest(query, content)
    span = None
    located = page.located(fact.case_sensitive)
    if nearest is not None and located is not None:
        n = len(located.text)
        span = located.span(
            _from_content(nearest[1], n, fact.first_n, fact.last_n),
            _from_content(nearest[2] - 1, n, fact.first_n, fact.last_n) + 1,
        )
    spans = (span,) if span else ()
    if fact.type == "present":
        near = f"; the nearest is {_quote(nearest[0])}{page.at(span)}" if nearest else ""
        reason = f"{_quote(query)} not found{where}: best match {ratio:.3f} < threshold {threshold:.3f}{near}"
        return False, reason, spans
    seen = f" as {_quote(nearest[0])}" if nearest and nearest[0] != query else ""
    reason = f"{_quote(query)} found{where}{page.at(span)}{seen}: best match {ratio:.3f} >= threshold {threshold:.3f}"
    return False, reason, spans


def _beyond_presence_work(query: str, content: str) -> bool:
    shorter, longer = sorted((len(query), len(content)))
    return shorter > 64 and longer * _math.ceil(shorter / 64) > PRESENCE_MAX_WORK


def _nearest(query: str, content: str) -> tuple[str, int, int, float] | None:
    """The part of ``content`` most like ``query`` as partial_ratio aligns them: (its text, start, end,
    similarity); None when nothing is alike. Costs what partial_ratio does: callers bound that first."""
    found = fuzz.partial_ratio_alignment(query, content)
    if found is None or found.score <= 0 or found.dest_end <= found.dest_start:
        return None
    return content[found.dest_start : found.dest_end], found.dest_start, found.dest_end, found.score / 100.0


def _from_content(k: int, n: int, first_n: int | None, last_n: int | None) -> int:
    """Where character k of a presence check's content is in the normalised text of n characters (the content
    is the text, or its first_n characters and/or its last_n)."""
    if first_n and last_n:
        head = min(first_n, n)
        return k if k < head else n - min(last_n, n) + (k - head)
    if last_n and not first_n:
        return n - min(last_n, n) + k
    return k


# --- order


def _check_order(fact: Fact, page: _Page) -> _Result:
    assert fact.before is not None and fact.after is not None
    before, after = normalize_text(fact.before), normalize_text(fact.after)
    content = page.normalized
    distance = fact.max_diffs
    found = f"with max_diffs {distance}" if distance else "exactly"
    before_spans = _approximate_spans(before, content, distance)
    if before_spans is None:
        return _order_text_missing("before", before, found, page)
    after_spans = _approximate_spans(after, content, distance)
    if after_spans is None:
        return _order_text_missing("after", after, found, page)
    # olmOCR passes if some 'before' match starts before some 'after' match: the first before the last.
    first, last = before_spans.first, after_spans.last
    if first.end <= last.start:  # every start in the first group precedes every start in the last
        passed = True
    elif first.start >= last.end:
        passed = False
    else:  # the groups overlap: their best matches decide
        passed = first.best().start < last.best().start
    if passed:
        return _HOLDS
    located = page.located()
    if located is None:
        return False, f"{_quote(before)} does not come before {_quote(after)}", ()
    spans = [located.span(first.start, first.end), located.span(last.start, last.end)]
    return (
        False,
        f"{_quote(before)} does not come before {_quote(after)} (the first 'before' match is{page.at(spans[0])}, "
        f"the last 'after' match{page.at(spans[1])})",
        tuple(span for span in spans if span),
    )


def _order_text_missing(name: str, text: str, found: str, page: _Page) -> _Result:
    """An order fact's text that is not in the output: the nearest text that is, where it is."""
    reason = f"'{name}' text {_quote(text)} not found {found}"
    content = page.normalized
    nearest = None if _beyond_presence_work(text, content) else _nearest(text, content)
    if nearest is None:
        return False, reason, ()
    located = page.located()
    span = located.span(nearest[1], nearest[2]) if located else None
    return (
        False,
        f"{reason}; the nearest is {_quote(nearest[0])}{page.at(span)} (similarity {nearest[3]:.3f})",
        (span,) if span else (),
    )


@dataclass
class _Group:
    """A maximal run of overlapping approximate matches, as fuzzysearch consolidates them."""

    start: int  # the run's extent (or its best match's, when that is known): what decides unless they overlap
    end: int
    matches: list[Match] = field(default_factory=list)  # in the order fuzzysearch found them
    _best: Match | None = None

    def best(self) -> Match:
        """The match fuzzysearch keeps for the group: its ``group_matches`` and ``get_best_match_in_group`` run
        on the group's matches alone build the same set, in the same order, as on all matches (other groups
        never merge with this one), so ties break the same way."""
        if self._best is None:
            if len(self.matches) > ORDER_MAX_GROUP:
                raise _NotChecked(f"{len(self.matches)} overlapping approximate matches exceed ORDER_MAX_GROUP")
            (group,) = group_matches(self.matches)
            self._best = get_best_match_in_group(group)
        return self._best


@dataclass
class _Spans:
    first: _Group
    last: _Group


def _approximate_spans(pattern: str, content: str, distance: int) -> _Spans | None:
    """The first and last groups of ``find_near_matches(pattern, content, max_l_dist=distance)``'s matches
    (None: no match). olmOCR's verdict only needs the first match of 'before' and the last of 'after'; this
    finds them without fuzzysearch's consolidation, which compares every match with every group so far."""
    if distance == 0:
        # fuzzysearch's exact search reports every occurrence, overlapping ones included.
        first, last = content.find(pattern), content.rfind(pattern)
        if first < 0:
            return None
        return _Spans(_exact_group(pattern, first), _exact_group(pattern, last))
    if len(pattern) // (distance + 1) < 3 and len(content) * 2.5**distance > ORDER_SLOW_PATH_MAX_WORK:
        raise _NotChecked(
            f"an approximate search for a {len(pattern)}-character text with max_diffs {distance} in {len(content)} "
            "characters exceeds the bound (ORDER_SLOW_PATH_MAX_WORK)"
        )
    starts, ends, dists = array("q"), array("q"), array("q")
    for match in find_near_matches_levenshtein(pattern, content, distance):
        starts.append(match.start)
        ends.append(match.end)
        dists.append(match.dist)
        if len(starts) > ORDER_MAX_MATCHES:
            raise _NotChecked(f"more than {ORDER_MAX_MATCHES} approximate matches of {_quote(pattern)}")
    if not starts:
        return None
    if len(starts) <= ORDER_LIBRARY_CONSOLIDATION:  # fuzzysearch's own consolidation, as find_near_matches does
        best = consolidate_overlapping_matches(
            [Match(s, e, d, content[s:e]) for s, e, d in zip(starts, ends, dists, strict=True)]
        )
        return _Spans(
            _Group(best[0].start, best[0].end, _best=best[0]), _Group(best[-1].start, best[-1].end, _best=best[-1])
        )
    order = sorted(range(len(starts)), key=starts.__getitem__)
    # Sweep the matches by start: a group ends where the next match starts at or after every end so far.
    groups: list[tuple[int, int]] = []  # (first, last) positions in ``order``
    group_start, reach = 0, ends[order[0]]
    for position in range(1, len(order)):
        index = order[position]
        if starts[index] >= reach:
            groups.append((group_start, position - 1))
            group_start = position
        reach = max(reach, ends[index])
    groups.append((group_start, len(order) - 1))

    def group(first: int, last: int) -> _Group:
        members = sorted(order[first : last + 1])  # the order fuzzysearch found them in
        matches = [Match(starts[i], ends[i], dists[i], content[starts[i] : ends[i]]) for i in members]
        return _Group(min(m.start for m in matches), max(m.end for m in matches), matches)

    return _Spans(group(*groups[0]), group(*groups[-1]))


def _exact_group(pattern: str, start: int) -> _Group:
    match = Match(start, start + len(pattern), 0, pattern)
    return _Group(match.start, match.end, _best=match)


# --- table


@dataclass
class _Table:
    """A table as olmOCR-Bench's TableData holds it, without the padding: ``rows`` are ragged (a cell past the
    end of its row is "", as numpy's padding makes it) and hold what olmOCR's numpy array returns (trailing NUL
    characters dropped). Heading lists are the texts of olmOCR's ``col_headers`` and ``row_headers``, in order
    (their row and column numbers are never used); None for a Markdown table, whose first row heads every
    column and whose first column heads every later row."""

    rows: list[list[str]]
    header_rows: set[int]
    header_cols: set[int]
    col_headers: dict[int, list[str]] | None = None
    row_headers: dict[int, list[str]] | None = None
    # Where its cells are written in the output, for explanations: a Markdown table's rows' lines (the offset
    # each starts at); an HTML table's cells' tags (-1 for a position a span from above fills).
    row_starts: list[int] | None = None
    cell_starts: list[list[int]] | None = None
    width: int = field(init=False)
    _normalized: list[list[str]] | None = field(default=None, init=False)
    _flat: list[str] | None = field(default=None, init=False)
    _columns: dict[int, list[tuple[int, str]]] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.width = max((len(row) for row in self.rows), default=0)

    def cell(self, i: int, j: int) -> str:
        row = self.rows[i]
        return row[j] if j < len(row) else ""

    def cell_span(self, text: str, i: int, j: int) -> Span | None:
        """Where cell (i, j) is written in ``text``, the output the table was read from (None: nowhere of its
        own, as a padding cell or a position a span from above fills)."""
        if self.row_starts is not None:
            return _markdown_cell_span(text, self.row_starts[i], j)
        starts = self.cell_starts[i] if self.cell_starts is not None else []
        if j >= len(starts) or starts[j] < 0:
            return None
        return starts[j], _html_cell_end(text, starts[j])

    def normalized(self, i: int, j: int) -> str:
        row = self.normalized_rows[i]
        return row[j] if j < len(row) else ""

    @property
    def normalized_rows(self) -> list[list[str]]:
        if self._normalized is None:
            self._normalized = [[normalize_text(cell) for cell in row] for row in self.rows]
        return self._normalized

    @property
    def flat(self) -> list[str]:
        """The normalised cells row by row, for rapidfuzz's batch scoring."""
        if self._flat is None:
            self._flat = [cell for row in self.normalized_rows for cell in row]
        return self._flat

    def column(self, j: int) -> list[tuple[int, str]]:
        """(row, normalised text) of the non-blank cells of column j, top to bottom."""
        if self._columns is None:
            columns: dict[int, list[tuple[int, str]]] = {}
            for i, (row, normalized) in enumerate(zip(self.rows, self.normalized_rows, strict=True)):
                for k, cell in enumerate(row):
                    if cell.strip():
                        columns.setdefault(k, []).append((i, normalized[k]))
            self._columns = columns
        return self._columns.get(j, [])

    def row_entries(self, i: int) -> list[tuple[int, str]]:
        """(column, normalised text) of the non-blank cells of row i, left to right."""
        return [(k, n) for k, (c, n) in enumerate(zip(self.rows[i], self.normalized_rows[i], strict=True)) if c.strip()]

    def column_heading_texts(self, j: int) -> list[str] | None:
        if self.col_headers is None:  # Markdown: every column, headed by row 0 (padding included)
            return [self.cell(0, j)] if j < self.width else None
        return self.col_headers.get(j)

    def row_heading_texts(self, i: int) -> list[str] | None:
        if self.row_headers is None:  # Markdown: every row but the first, headed by column 0
            return [self.cell(i, 0)] if i >= 1 and self.width > 0 else None
        return self.row_headers.get(i)


def _similarity(a: str, b: str) -> float:
    return fuzz.ratio(a, b) / 100.0


def _threshold(max_diffs: int, text: str) -> float:
    return max(0.5, 1.0 - (max_diffs / (len(text) if len(text) > 0 else 1)))


def _check_table(fact: Fact, page: _Page) -> _Result:
    assert fact.cell is not None
    target = normalize_text(fact.cell)
    tables = [] if fact.ignore_markdown_tables else list(page.markdown_tables)
    html = page.html_tables
    if isinstance(html, str):  # olmOCR-Bench's parser raised: its runner counts the check as failed
        return False, html, ()
    tables += html
    if not tables:
        return False, "no table found in the output", ()
    threshold = _threshold(fact.max_diffs, target)
    matcher = _CellMatcher(fact)
    failures: list[str] = []
    first: tuple[_Table, int, int] | None = None  # the matching cell whose failures are told
    failed_cells = 0
    for table in tables:
        for i, j in _matching_cells(table, target, threshold):
            reasons = matcher.check(table, i, j)
            if not reasons:
                return _HOLDS
            failed_cells += 1
            if not failures:
                failures, first = reasons, (table, i, j)
    if first is None:
        reason = f"no cell matching {_quote(target)} (threshold {threshold:.2f}) in {_count(len(tables), 'table')}"
        nearest = _nearest_cell(tables, target)
        if nearest is None:
            return False, reason, ()
        table, i, j, similarity = nearest
        span = table.cell_span(page.text, i, j)
        return (
            False,
            f"{reason}; the nearest is {_quote(table.normalized(i, j))} (similarity {similarity:.2f}) "
            f"{_cell_place(page, table, i, j, span)}{_neighbours(table, i, j)}",
            (span,) if span else (),
        )
    more = f" (and {_count(failed_cells - 1, 'other matching cell')})" if failed_cells > 1 else ""
    table, i, j = first
    span = table.cell_span(page.text, i, j)
    place = _cell_place(page, table, i, j, span)
    return False, f"cell {_quote(target)} found {place}, but {'; '.join(failures)}{more}", (span,) if span else ()


def _nearest_cell(tables: list[_Table], target: str) -> tuple[_Table, int, int, float] | None:
    """The cell most like ``target`` (the first of equals, tables and rows in order): (its table, row, column,
    similarity); None when no table has a cell."""
    best: tuple[_Table, int, float] | None = None
    for table in tables:
        if table.flat:
            _, score, index = process.extractOne(target, table.flat, scorer=fuzz.ratio, processor=None)
            if best is None or score > best[2]:
                best = (table, index, score)
    if best is None:
        return None
    table, index, score = best
    for i, row in enumerate(table.rows):
        if index < len(row):
            return table, i, index, score / 100.0
        index -= len(row)
    raise AssertionError("a flat index beyond the table's cells")


def _cell_place(page: _Page, table: _Table, i: int, j: int, span: Span | None) -> str:
    """Where a cell is: its line in the output, its row and column in its table (from 1)."""
    line = f"on line {page.text.count(chr(10), 0, span[0]) + 1}, " if span else ""
    return f"{line}row {i + 1}, column {j + 1} of its table"


def _neighbours(table: _Table, i: int, j: int) -> str:
    """The texts around a cell, as a table fact's up/down/left/right would read them."""
    around = (
        ("above", i > 0, i - 1, j),
        ("below", i < len(table.rows) - 1, i + 1, j),
        ("left", j > 0, i, j - 1),
        ("right", j < table.width - 1, i, j + 1),
    )
    shown = [f"{name} {_quote(table.normalized(row, column), 20)}" for name, has, row, column in around if has]
    return f", with {', '.join(shown)}" if shown else ""


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _matching_cells(table: _Table, target: str, threshold: float) -> Iterator[tuple[int, int]]:
    """(row, column) of the cells whose normalised text is ``threshold``-similar to ``target``, row by row as
    olmOCR visits its padded array."""
    # rapidfuzz scores all cells in one call. Its cut-off is not exact (a score equal to it can be dropped), so
    # it only pre-filters, a point lower; olmOCR's own comparison (ratio / 100 >= threshold) then decides.
    flat = table.flat
    candidates = process.extract(
        target, flat, scorer=fuzz.ratio, processor=None, score_cutoff=max(0.0, threshold * 100 - 1), limit=None
    )
    hits = sorted(index for _, _, index in candidates if _similarity(target, flat[index]) >= threshold)
    padding_matches = _similarity(target, "") >= threshold  # only an empty target matches a padding cell
    if padding_matches and len(table.rows) * table.width - len(table.flat) > TABLE_MAX_PADDING:
        raise _NotChecked(f"an empty 'cell' matches more padding cells than TABLE_MAX_PADDING ({TABLE_MAX_PADDING})")
    hit, offset = 0, 0
    for i, row in enumerate(table.rows):
        end = offset + len(row)
        while hit < len(hits) and hits[hit] < end:
            yield i, hits[hit] - offset
            hit += 1
        if padding_matches:
            for j in range(len(row), table.width):
                yield i, j
        offset = end


class _BestBefore:
    """olmOCR's heading search along one line of cells: the first strictly best similarity to ``target`` among
    the entries before a position. Positions are asked for in increasing order (cells are visited row by row),
    so each entry is scored once."""

    def __init__(self, target: str, entries: list[tuple[int, str]]) -> None:
        self.target = target
        self.entries = entries
        self.next = 0
        self.similarity = 0.0
        self.text = ""

    def before(self, position: int) -> tuple[float, str]:
        while self.next < len(self.entries) and self.entries[self.next][0] < position:
            text = self.entries[self.next][1]
            similarity = _similarity(self.target, text)
            if similarity > self.similarity:
                self.similarity, self.text = similarity, text
            self.next += 1
        return self.similarity, self.text


class _CellMatcher:
    """A table fact's relations, checked at one matching cell at a time as olmOCR's TableTest.run checks them."""

    def __init__(self, fact: Fact) -> None:
        self.max_diffs = fact.max_diffs
        self.up, self.down = normalize_text(fact.up), normalize_text(fact.down)
        self.left, self.right = normalize_text(fact.left), normalize_text(fact.right)
        self.top_heading, self.left_heading = normalize_text(fact.top_heading), normalize_text(fact.left_heading)
        # per table: the heading searches along its columns (header rows only, all rows) and rows
        self.scans: dict[tuple[int, str, int], _BestBefore] = {}

    def check(self, table: _Table, i: int, j: int) -> list[str]:
        """Why the cell at (i, j) does not satisfy the fact's relations (empty: it does)."""
        reasons: list[str] = []
        neighbours = (
            (self.up, i > 0, i - 1, j, "the cell above"),
            (self.down, i < len(table.rows) - 1, i + 1, j, "the cell below"),
            (self.left, j > 0, i, j - 1, "the cell to the left"),
            (self.right, j < table.width - 1, i, j + 1, "the cell to the right"),
        )
        for expected, exists, row, column, where in neighbours:
            # olmOCR skips a relation the cell has no neighbour for (a match in the first row has no 'up').
            if expected and exists:
                got = table.normalized(row, column)
                similarity = _similarity(expected, got)
                threshold = _threshold(self.max_diffs, expected)
                if similarity < threshold:
                    reasons.append(
                        f"{where} is {_quote(got)}, not {_quote(expected)} "
                        f"(similarity {similarity:.2f} < {threshold:.2f})"
                    )
        if self.top_heading:
            reason = self._heading(table, i, j, vertical=True)
            if reason:
                reasons.append(reason)
        if self.left_heading:
            reason = self._heading(table, i, j, vertical=False)
            if reason:
                reasons.append(reason)
        return reasons

    def _heading(self, table: _Table, i: int, j: int, *, vertical: bool) -> str:
        """olmOCR's three-step heading search: the recorded headings of the cell's column (row), then the
        cells above it in header rows (left of it in header columns), then, if nothing so far was at all
        similar, any non-blank cell above (to the left)."""
        target = self.top_heading if vertical else self.left_heading
        threshold = _threshold(self.max_diffs, target)
        line, position = (j, i) if vertical else (i, j)
        headers = table.header_rows if vertical else table.header_cols
        best_similarity, best_text = 0.0, ""
        recorded = table.column_heading_texts(j) if vertical else table.row_heading_texts(i)
        for text in recorded or ():
            text = normalize_text(text)
            similarity = _similarity(target, text)
            if similarity > best_similarity:
                best_similarity, best_text = similarity, text
                if best_similarity >= threshold:
                    return ""
        if headers:
            similarity, text = self._scan(table, vertical, "headers", line).before(position)
            if similarity > best_similarity:
                best_similarity, best_text = similarity, text
            if best_similarity >= threshold:
                return ""
        if not best_text and position > 0:
            best_similarity, best_text = self._scan(table, vertical, "all", line).before(position)
        noun = "top heading" if vertical else "left heading"
        if not best_text:
            return f"no {noun} found for the cell at row {i}, column {j}"
        if best_similarity < threshold:
            return (
                f"the {noun} is {_quote(best_text)}, not {_quote(target)} "
                f"(similarity {best_similarity:.2f} < {threshold:.2f})"
            )
        return ""

    @staticmethod
    def _negative_header_columns(table: _Table, i: int) -> list[tuple[int, str]]:
        """A negative header column (after a negative colspan) indexes olmOCR's padded numpy row from its end;
        it precedes every cell, and one beyond the row's start raises."""
        entries = []
        for j in sorted(j for j in table.header_cols if j < 0):
            if j < -table.width:
                raise _Raises(f"an HTML table's header column {j} is outside its {table.width} columns (IndexError)")
            if table.cell(i, table.width + j).strip():
                entries.append((j, table.normalized(i, table.width + j)))
        return entries

    def _scan(self, table: _Table, vertical: bool, which: str, line: int) -> _BestBefore:
        key = (id(table), ("column " if vertical else "row ") + which, line)
        scan = self.scans.get(key)
        if scan is None:
            entries = table.column(line) if vertical else table.row_entries(line)
            if which == "headers":
                headers = table.header_rows if vertical else table.header_cols
                entries = [entry for entry in entries if entry[0] in headers]
                if not vertical and min(headers) < 0:
                    entries = self._negative_header_columns(table, line) + entries
            scan = _BestBefore(self.top_heading if vertical else self.left_heading, entries)
            self.scans[key] = scan
        return scan


# Markdown tables, as olmOCR-Bench's parse_markdown_tables reads them: a run of lines with a '|' (at least two
# lines) is a table; the first separator-like line and the lines of only '-', ' ', ':' and '|' are skipped.


def _markdown_tables(text: str) -> list[_Table]:
    tables: list[_Table] = []
    run: list[str] = []
    run_starts: list[int] = []  # where each line of the run starts in ``text``
    offset = len(text) - len(text.lstrip())
    for line in [*text.strip().split("\n"), ""]:  # a final line without '|' ends the last run
        if "|" in line:
            run.append(line)
            run_starts.append(offset)
        else:
            if len(run) >= 2:
                kept: list[int] = []
                rows = _markdown_rows(run, kept)
                if rows:
                    starts = [run_starts[k] for k in kept]
                    tables.append(_Table(rows=rows, header_rows={0}, header_cols={0}, row_starts=starts))
            run, run_starts = [], []
        offset += len(line) + 1
    return tables


def _markdown_cell_span(text: str, line_start: int, j: int) -> Span | None:
    """Where cell j of the Markdown table row on the line at ``line_start`` is written: its text, or the
    space between its pipes when it is blank (cut into cells as _markdown_rows cuts them)."""
    line_end = text.find("\n", line_start)
    line = text[line_start : len(text) if line_end < 0 else line_end]
    pipes = [-1, *(k for k, c in enumerate(line) if c == "|"), len(line)]
    cells = list(zip([p + 1 for p in pipes[:-1]], pipes[1:], strict=True))
    if cells and not line[slice(*cells[0])].strip():  # the leading pipe
        cells = cells[1:]
    if cells and not line[slice(*cells[-1])].strip():  # the trailing pipe
        cells = cells[:-1]
    if j >= len(cells) or cells[j][0] >= cells[j][1]:
        return None
    start, end = cells[j]
    written = line[start:end]
    if written.strip():
        start += len(written) - len(written.lstrip())
        end = start + len(written.strip())
    return line_start + start, line_start + end


def _markdown_rows(lines: list[str], kept: list[int] | None = None) -> list[list[str]]:
    """The rows of a run of table lines (``kept``, if given, gets the index of each row's line)."""
    separator = None
    for index, line in enumerate(lines):
        content = line.replace("|", "").strip()
        if content and all(c in "- :" for c in content):
            separator = index
            break
    rows: list[list[str]] = []
    for index, line in enumerate(lines):
        if index == separator or (line.strip() and all(c in "- :|" for c in line)):
            continue
        cells = [cell.strip() for cell in line.split("|")]
        if cells and cells[0] == "":  # the leading pipe
            cells = cells[1:]
        if cells and cells[-1] == "":  # the trailing pipe
            cells = cells[:-1]
        if cells:
            rows.append([cell.rstrip("\x00") for cell in cells])  # numpy drops trailing NULs
            if kept is not None:
                kept.append(index)
    return rows


# HTML tables, as olmOCR-Bench's parse_html_tables reads them with BeautifulSoup's html.parser.


class _HtmlTableError(Exception):
    """The output's HTML tables cannot be read: olmOCR-Bench's parser raises on them (_Raises) or they exceed a
    bound. Every table fact on the output fails."""


class _Raises(_HtmlTableError):
    """olmOCR-Bench's check raises an exception on this output, which its benchmark runner counts as a failed
    check (the check's explanation is the exception's message)."""

    def __init__(self, what: str) -> None:
        super().__init__(f"olmOCR-Bench's check raises here: {what}; it counts as failed")


_TABLE_TAG = re.compile(r"<table", re.IGNORECASE)


def _html_tables(text: str) -> list[_Table]:
    # html.parser makes a <table> element only from "<table" (any case): without one there is no HTML table.
    if not _TABLE_TAG.search(text):
        return []
    if len(text) > HTML_MAX_CHARS:
        raise _HtmlTableError(
            f"not checked: the output has an HTML table and {len(text)} characters, more than HTML_MAX_CHARS "
            f"({HTML_MAX_CHARS})"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bs4's hints (markup that resembles a file name, XML) are not ours
        soup = BeautifulSoup(text, "html.parser")
    budget = _Budget(HTML_MAX_WORK - _walk_cost(soup))
    # html.parser numbers lines by "\n" alone and columns from the line's start: offsets, for explanations
    lines = [0, *(match.end() for match in _NEWLINE.finditer(text))]
    return [_html_table(table, budget, lines) for table in soup.find_all("table") if isinstance(table, Tag)]


_NEWLINE = re.compile("\n")
# What ends an HTML table cell's markup: the next cell, row or table tag (a closing cell tag included).
_CELL_END = re.compile(r"<(/?)(td|th|tr|table)\b[^>]*>?", re.IGNORECASE)


def _html_cell_end(text: str, start: int) -> int:
    opened = text.find(">", start)
    found = _CELL_END.search(text, opened + 1) if opened >= 0 else None
    if found is None:
        return len(text)
    return found.end() if found.group(1) and found.group(2).lower() in ("td", "th") else found.start()


class _Budget:
    def __init__(self, left: int) -> None:
        self.left = left
        self.spend(0)

    def spend(self, work: int) -> None:
        self.left -= work
        if self.left < 0:
            raise _HtmlTableError(
                f"not checked: the output's HTML tables need more work than HTML_MAX_WORK ({HTML_MAX_WORK}) "
                "(deeply nested tables or huge rowspan/colspan)"
            )


def _walk_cost(soup: BeautifulSoup) -> int:
    """The element visits of olmOCR's walk: each table searches its subtree for rows, each row (of each table
    it is in) its subtree for cells, each cell (of each row it is in) its subtree for <br> and text."""
    # per element: (tables above it, Σ over rows above it of the tables above that row,
    #               Σ over cells at or above it of the same for that cell)
    costs: dict[int, tuple[int, int, int]] = {id(soup): (0, 0, 0)}
    total = 0
    for node in soup.descendants:
        parent = node.parent
        assert parent is not None
        tables, rows, cells = costs[id(parent)]
        if parent.name == "table":
            tables += 1
        elif parent.name == "tr":
            rows += costs[id(parent)][0]
        if isinstance(node, Tag):
            if node.name in ("th", "td"):
                cells += rows
            costs[id(node)] = (tables, rows, cells)
        total += tables + 2 * rows + 2 * cells + 1
    return total


class _RowIndex:
    """``rows.index(row)`` as olmOCR calls it: the first row that *equals* it (BeautifulSoup compares tags by
    name, attributes and contents), not necessarily itself. Equal rows have equal keys, so only the rows with
    the key of ``row`` are compared (``rows.index`` compares each <thead> row with every row before it)."""

    def __init__(self, rows: list[Tag]) -> None:
        self.rows = rows
        self.by_key: dict[tuple[object, ...], list[int]] = {}
        for index, row in enumerate(rows):
            self.by_key.setdefault(self.key(row), []).append(index)

    @staticmethod
    def key(row: Tag) -> tuple[object, ...]:
        """The row's elements (names and attributes) and its text, in document order. A string is keyed by its
        text alone: BeautifulSoup compares strings as str (a comment equals the same text)."""
        parts: list[object] = []
        for node in row.descendants:
            if isinstance(node, Tag):
                attributes = sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in node.attrs.items())
                parts.append((node.name, tuple(attributes)))
            elif isinstance(node, NavigableString):
                parts.append(str.__str__(node))
        return tuple(parts)

    def index(self, row: Tag) -> int:
        for index in self.by_key.get(self.key(row), ()):
            other = self.rows[index]
            if other is row or other == row:
                return index
        raise AssertionError("a row of the table is not among its rows")


def _span(cell: Tag, name: str) -> int:
    value = cell.attrs.get(name, 1)
    try:
        # as olmOCR reads it: " 2 " and "1_0" are numbers, "2px" and "" are not (nor a list: a multi-valued
        # attribute, which rowspan and colspan are not)
        return int(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise _Raises(f"an HTML table cell has {name}={value!r}, not a number (ValueError)") from None


def _html_table(table: Tag, budget: _Budget, lines: list[int]) -> _Table:
    rows = [row for row in table.find_all(["tr"]) if isinstance(row, Tag)]
    header_rows: set[int] = set()
    header_cols: set[int] = set()
    col_headers: dict[int, list[str]] = {}
    row_headers: dict[int, list[str]] = {}
    # Rows of a <thead> are header rows.
    thead = table.find("thead")
    if isinstance(thead, Tag):
        index_of = _RowIndex(rows)
        for tr in thead.find_all("tr"):
            assert isinstance(tr, Tag)
            header_rows.add(index_of.index(tr))
    # (row, column) -> the text a rowspan/colspan from an earlier cell puts there: the cell's own text directly
    # below it, "" elsewhere. olmOCR's grid and a row's cells disagree (a colspan advances the grid column but
    # adds one cell to the row); this is reproduced, not fixed.
    grid: dict[tuple[int, int], str] = {}
    col_span_info: dict[str, set[int]] = {}  # a header text spanning columns -> its columns
    row_span_info: dict[str, set[int]] = {}  # a header text spanning rows -> its rows
    data: list[list[str]] = []
    cell_starts: list[list[int]] = []  # parallel to data: where each cell's tag is (-1: filled by a span)
    for row_index, row in enumerate(rows):
        cells = [cell for cell in row.find_all(["th", "td"]) if isinstance(cell, Tag)]
        row_data: list[str] = []
        row_starts: list[int] = []
        column = 0
        if row.find("th"):  # a row with a <th> is a header row
            header_rows.add(row_index)
        for cell in cells:
            while (row_index, column) in grid:  # positions a span from above fills
                row_data.append(grid[(row_index, column)])
                row_starts.append(-1)
                column += 1
            for br in cell.find_all("br"):
                br.replace_with("\n")
            text = cell.get_text().strip()
            rowspan, colspan = _span(cell, "rowspan"), _span(cell, "colspan")
            row_data.append(text)
            known = cell.sourceline is not None and cell.sourcepos is not None
            row_starts.append(lines[cell.sourceline - 1] + cell.sourcepos if known else -1)  # type: ignore[operator]
            # Grid positions past the last row are never read: spans end at the table's end. (A negative colspan
            # moves back: the walk above may then read up to that many positions again.)
            down_to = min(rowspan, len(rows) - row_index)
            budget.spend(max(0, down_to) * max(0, colspan) + abs(colspan))
            for i in range(down_to):
                for j in range(colspan):
                    if i == 0 and j == 0:
                        continue
                    grid[(row_index + i, column + j)] = text if j == 0 and i > 0 else ""
            if cell.name == "th":
                for j in range(colspan):
                    header_cols.add(column + j)
                for i in range(1, down_to):
                    header_rows.add(row_index + i)
                for j in range(colspan):
                    col_headers.setdefault(column + j, []).append(text)
                    if text and colspan > 1:
                        col_span_info.setdefault(text, set()).add(column + j)
                if text and rowspan > 1:
                    row_span_info.setdefault(text, set()).update(range(row_index, row_index + down_to))
            if cell.name == "td" and rowspan > 1 and column in header_cols:
                for i in range(1, down_to):
                    row_headers.setdefault(row_index + i, []).append(text)
            column += colspan
        data.append(row_data)
        cell_starts.append(row_starts)
    _spread_headings(data, header_rows, header_cols, col_headers, row_headers, col_span_info, row_span_info, budget)
    return _Table(
        rows=[[cell.rstrip("\x00") for cell in row] for row in data],
        header_rows=header_rows,
        header_cols=header_cols,
        col_headers=col_headers,
        row_headers=row_headers,
        cell_starts=cell_starts,
    )


def _spread_headings(
    data: list[list[str]],
    header_rows: set[int],
    header_cols: set[int],
    col_headers: dict[int, list[str]],
    row_headers: dict[int, list[str]],
    col_span_info: dict[str, set[int]],
    row_span_info: dict[str, set[int]],
    budget: _Budget,
) -> None:
    """olmOCR's second pass, without its repeated scans of every heading list (the same lists, in the same
    order, in time linear in the result)."""
    # A heading spanning columns heads every column from its first to the end of the longest data row.
    data_width = max((len(row) for index, row in enumerate(data) if index not in header_rows), default=None)
    seen: dict[int, set[str]] = {}
    for text, columns in col_span_info.items():
        if data_width is None:
            break
        budget.spend(max(0, data_width - min(columns)))
        for j in range(min(columns), data_width):
            texts = col_headers.setdefault(j, [])
            known = seen.setdefault(j, set(texts))
            if text not in known:
                texts.append(text)
                known.add(text)
    # A heading spanning rows heads each of its rows.
    for text, spanned in row_span_info.items():
        for i in spanned:
            if i < len(data):
                texts = row_headers.setdefault(i, [])
                if text not in texts:
                    texts.append(text)
    # Each non-blank cell of a header column heads its row, columns taken in the header set's order.
    order = list(header_cols)
    rank = {j: k for k, j in enumerate(order)}
    negative = any(j < 0 for j in order)  # only from a negative colspan; Python indexes from the row's end
    for i, row in enumerate(data):
        if negative or len(order) <= len(row):
            in_row = [j for j in order if j < len(row)]
            if in_row and min(in_row) < -len(row):
                raise _Raises(f"an HTML table's header column {min(in_row)} is outside row {i} (IndexError)")
        else:  # many header columns, a short row: only the row's own columns can head it
            in_row = sorted((j for j in range(len(row)) if j in rank), key=rank.__getitem__)
        budget.spend(len(in_row))
        for j in in_row:
            if row[j].strip():
                texts = row_headers.setdefault(i, [])
                if row[j] not in texts:
                    texts.append(row[j])


# --- baseline


# CJK Unified Ideographs, Hiragana, Katakana, emoticons, pictographs, transport symbols, regional indicators.
_DISALLOWED = re.compile(
    "[\u4e00-\u9fff\u3040-\u309f\u30a0-\u30ff\U0001f600-\U0001f64f\U0001f300-\U0001f5ff"
    "\U0001f680-\U0001f6ff\U0001f1e0-\U0001f1ff]"
)


def _check_baseline(fact: Fact, page: _Page) -> _Result:
    text = page.text
    length = _alphanumerics(text)
    if fact.max_length is not None:  # a blank page: nothing else is checked
        if fact.max_length_skips_image_alt_tags:
            length = _alphanumerics(_without_images(text))
        if length > fact.max_length:
            return (
                False,
                f"{length} alphanumeric characters on a page expected blank (max_length {fact.max_length})",
                (),
            )
        return _HOLDS
    if length == 0:
        return False, "the output has no alphanumeric characters", ()
    for size, count in enumerate(ngram_repeats(text), start=1):
        if count > fact.max_repeats:
            unit = _WHITESPACE.sub(" ", text)[-size:]
            span = None
            if len(text) <= LOCATE_MAX_CHARS:
                collapsed = _sub_located(_WHITESPACE, " ", _Located(text))
                span = collapsed.span(len(collapsed.text) - count * size, len(collapsed.text))
            return (
                False,
                f"the output ends with {count} repeats of the {size}-gram {_quote(unit)} "
                f"(max_repeats {fact.max_repeats}){page.at(span).replace(' at ', ', from ', 1)}",
                (span,) if span else (),
            )
    if fact.check_disallowed_characters:
        found = _DISALLOWED.findall(text)
        if found:
            shown = "".join(dict.fromkeys(found))
            first = _DISALLOWED.search(text)
            assert first is not None
            return (
                False,
                f"the output has {_count(len(found), 'disallowed character')} (CJK, kana or emoji): "
                f"{_quote(shown, 20)}, the first{page.at(first.span())}",
                (first.span(),),
            )
    return _HOLDS


def _alphanumerics(text: str) -> int:
    # olmOCR: len("".join(c for c in text if c.isalnum()).strip()); no alphanumeric character is whitespace.
    return sum(map(str.isalnum, text))


def _without_images(text: str) -> str:
    """``re.sub(r"!\\[.*?\\]\\(.*?\\)", "", text)`` in linear time (the regular expression retries every '!['
    to the end of its line: quadratic on a line of them). An image at '![' runs to the first ')' after the
    first '](' after it, all on one line; if the line has no such '](' and ')', no later '![' on it has."""
    pieces: list[str] = []
    done = 0  # text[:done] is settled
    search = 0
    while True:
        start = text.find("![", search)
        if start < 0:
            break
        line_end = text.find("\n", start)
        if line_end < 0:
            line_end = len(text)
        bracket = text.find("](", start + 2, line_end)
        close = text.find(")", bracket + 2, line_end) if bracket >= 0 else -1
        if close < 0:
            search = line_end
            continue
        pieces.append(text[done:start])
        done = search = close + 1
    pieces.append(text[done:])
    return "".join(pieces)


def ngram_repeats(text: str, max_ngram_size: int = 5) -> list[int]:
    """olmOCR's RepeatDetector.ngram_repeats: for n = 1..max_ngram_size, how many times the text's last n
    characters (whitespace runs as one space) repeat back to back at its end (0 if the text is shorter).

    Counted by doubling and halving (str.endswith in C) instead of olmOCR's character loop: 5 MB of one
    letter takes milliseconds."""
    result = [0] * max_ngram_size
    if not text:
        return result
    text = _WHITESPACE.sub(" ", text)
    for size in range(1, max_ngram_size + 1):
        if len(text) < size:
            continue
        unit = text[-size:]
        most = len(text) // size
        low, high = 1, 1  # text ends with unit * low; find high with it not (or high > most)
        while high <= most and text.endswith(unit * high):
            low, high = high, high * 2
        high = min(high, most + 1)
        while high - low > 1:
            middle = (low + high) // 2
            if text.endswith(unit * middle):
                low = middle
            else:
                high = middle
        result[size - 1] = low
    return result
