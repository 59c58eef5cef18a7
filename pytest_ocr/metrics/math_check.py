"""olmOCR-Bench's ``math`` fact: does an equation appear in an engine's Markdown output?

``math_check`` gives the verdict of olmOCR-Bench's ``MathTest.run`` (olmocr 0.4.27,
``olmocr/bench/tests.py``) and ``same_rendering`` that of its
``compare_rendered_equations`` (``olmocr/bench/katex/render.py``), ported here (no
Playwright; MathML read by BeautifulSoup, as olmOCR reads it) so that pytest-ocr's verdicts
are olmOCR's:

1. every LaTeX span of the output is taken out, delimiter kind by delimiter kind, each
   kind's spans removed before the next is looked for: ``\\(...\\)``, ``\\[...\\]``, then
   (unless ``ignore_dollar_delimited``) ``$$...$$`` and ``$...$`` (shortest matches across
   lines, contents stripped);
2. a span equal to the reference, character for character, passes at once;
3. otherwise the spans are tried most similar first (rapidfuzz's ``fuzz.ratio`` to the
   reference), each rendered by KaTeX (a ``Renderer``: ``pytest_ocr.browser.katex``'s
   ``KatexRenderer``) and compared with the reference's rendering; the first that renders
   the same passes.

Where pytest-ocr differs from olmocr 0.4.27, on purpose:

- a reference KaTeX cannot render raises ``UnrenderableMath`` (the fact is malformed).
  olmOCR means to (``MathTest`` raises ValidationError when the rendering is None), but its
  ``render_equation`` returns a rendering carrying the error instead of None, so such a
  fact passes olmOCR whenever the output has an equation that is not the reference's
  exact text (the error's rendering has no spans, and matching no characters always
  succeeds) and fails when it has none;
- the span matching is a loop, not a recursion, so an equation of more than about a
  thousand characters is compared where olmOCR's recursion would raise RecursionError;
- the work is bounded where olmOCR's is not: a fact renders and compares at most
  ``max_equations`` distinct equations of the output (``--ocr-max-math-equations``), most
  similar first, and stops at a ``deadline`` (the time left to the output's math facts,
  ``--ocr-max-math-s``: checked before each rendering and during each comparison, which is
  quadratic in the equations' characters). Past either it cannot hold: "not checked: ...".
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from bs4 import BeautifulSoup
from rapidfuzz import fuzz

from .. import limits
from .facts.text import _quote

# MathTest.run's patterns, in its order; each kind's spans are cut out before the next kind
# is looked for (so "$$x$$" is one $$ span, not two empty $ spans around "x").
_BRACKETED = (r"\\\((.+?)\\\)", r"\\\[(.+?)\\\]")
_DOLLARS = (r"\$\$(.+?)\$\$", r"\$(.+?)\$")


@dataclass(frozen=True)
class Box:
    """A span's ``getBoundingClientRect()`` in CSS pixels of the 800 x 400 page."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Span:
    """An innermost ``<span>`` of KaTeX's HTML with some non-whitespace text (trimmed)."""

    text: str
    box: Box


@dataclass(frozen=True)
class Rendering:
    """What KaTeX made of one equation.

    When KaTeX refused the equation (``throwOnError``), ``error`` holds its message, there
    are no spans, and ``mathml`` holds the message too: olmOCR's RenderedEquation is made
    so, and its comparison reads an error's "MathML" like any other (see
    ``math_check.same_rendering``)."""

    equation: str
    mathml: str  # the outerHTML of KaTeX's <math> element ("" if it made none)
    spans: tuple[Span, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def to_json(self) -> dict[str, Any]:
        return {
            "equation": self.equation,
            "mathml": self.mathml,
            "spans": [[s.text, s.box.x, s.box.y, s.box.width, s.box.height] for s in self.spans],
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Rendering:
        return cls(
            equation=str(data["equation"]),
            mathml=str(data["mathml"]),
            spans=tuple(
                Span(str(text), Box(float(x), float(y), float(width), float(height)))
                for text, x, y, width, height in data["spans"]
            ),
            error=None if data["error"] is None else str(data["error"]),
        )


class Renderer(Protocol):
    """What renders equations with KaTeX (``pytest_ocr.browser.katex.KatexRenderer``)."""

    def render(self, equation: str) -> Rendering: ...


class OutOfTime(Exception):
    """The deadline a math fact was given passed before it was decided."""


def _in_time(deadline: float) -> None:
    if time.monotonic() > deadline:
        raise OutOfTime


class UnrenderableMath(ValueError):
    """The fact's reference equation is empty, or KaTeX cannot render it: a malformed fact."""

    def __init__(self, reference: str, reason: str) -> None:
        super().__init__(f"the math fact's equation {reference!r} {reason}")
        self.reference = reference
        self.reason = reason


def math_spans(text: str, *, ignore_dollar_delimited: bool = False) -> list[str]:
    """The LaTeX spans of ``text`` as MathTest.run finds them, in its order, stripped."""
    patterns = _BRACKETED if ignore_dollar_delimited else _BRACKETED + _DOLLARS
    equations: list[str] = []
    remaining = text
    for pattern in patterns:
        equations.extend(found.strip() for found in re.findall(pattern, remaining, re.DOTALL))
        remaining = re.sub(pattern, "", remaining, flags=re.DOTALL)
    return equations


def math_check(
    reference: str,
    text: str,
    *,
    ignore_dollar_delimited: bool = False,
    renderer: Renderer,
    max_equations: int | None = None,
    deadline: float = math.inf,
) -> tuple[bool, str]:
    """olmOCR-Bench's math fact: (True, "") when an equation of ``text`` is the reference,
    or renders as it does; else (False, why). Raises UnrenderableMath for a reference that
    is empty or that KaTeX refuses, RendererError when the browser cannot render, and
    OutOfTime when ``deadline`` (``time.monotonic()``) passes first. ``max_equations``: the
    distinct equations of ``text`` compared at most (None: ``--ocr-max-math-equations``)."""
    if not reference.strip():
        raise UnrenderableMath(reference, "is empty")
    limit = limits.active().max_math_equations if max_equations is None else max_equations
    # MathTest renders its reference when the fact is loaded, whatever the output holds.
    _in_time(deadline)
    expected = renderer.render(reference)
    if expected.error is not None:
        raise UnrenderableMath(reference, f"cannot be rendered by KaTeX: {expected.error}")
    equations = math_spans(text, ignore_dollar_delimited=ignore_dollar_delimited)
    if reference in equations:
        return True, ""
    # Most similar source first: only the order of the (costly) renderings, not the verdict,
    # unless there are more than the limit; an equation written twice renders alike twice.
    equations.sort(key=lambda equation: -fuzz.ratio(equation, reference))
    distinct = list(dict.fromkeys(equations))
    for equation in distinct[:limit]:
        _in_time(deadline)
        if same_rendering(expected, renderer.render(equation), deadline):
            return True, ""
    delimiters = r"\(...\), \[...\]" + ("" if ignore_dollar_delimited else ", $$...$$ or $...$")
    if not equations:
        return False, f"the output has no equation ({delimiters}) to compare with {reference!r}"
    if len(distinct) > limit:
        return False, (
            f"not checked: none of the {limit:,} equations most like {reference!r} renders as it does, and the "
            f"output has {len(distinct) - limit:,} more, beyond what a math fact compares "
            f"({limits.OPTIONS['max_math_equations']})"
        )
    if len(equations) == 1:
        return False, f"{reference!r} is not in the output: its one equation, {_quote(equations[0])}, renders otherwise"
    return False, (
        f"{reference!r} is not in the output: none of its {len(equations)} equations ({delimiters}) "
        f"renders as it does (the closest in source: {_quote(equations[0])})"
    )


# -- comparing two renderings ----------------------------------------------------------------


def same_rendering(reference: Rendering, hypothesis: Rendering, deadline: float = math.inf) -> bool:
    """olmOCR's compare_rendered_equations: does ``hypothesis`` render as ``reference``?

    Yes when the reference's MathML (the content of its <semantics>, less the TeX
    annotation, whitespace removed) is a substring of the hypothesis's; else when every
    character of the reference's rendering can be given its own character of the
    hypothesis's, the same, such that each has, up, down, left and right, a neighbour
    exactly where the other has one, with the same text (see _characters_match). Raises
    OutOfTime when ``deadline`` passes first."""
    if _squeeze(semantics_content(reference.mathml)) in _squeeze(semantics_content(hypothesis.mathml)):
        return True
    return _characters_match(_characters(reference.spans), _characters(hypothesis.spans), deadline)


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@dataclass(frozen=True)
class _Character:
    text: str
    x: float  # the centre of its share of its span's box
    y: float


def _characters(spans: Sequence[Span]) -> list[_Character]:
    """One entry per character of each span's text, zero-width-space spans left out (KaTeX's
    struts), each character given an equal slice of its span's box, left to right: olmOCR's
    expand_span_info, with its arithmetic in its order (float for float the same centres)."""
    characters = []
    for span in spans:
        if span.text == "\u200b":
            continue
        count = len(span.text)
        box = span.box
        for index, character in enumerate(span.text):
            x = box.x + (box.width * index) / count
            width = box.width / count
            characters.append(_Character(character, x + width / 2, box.y + box.height / 2))
    return characters


_DIRECTIONS = ("up", "down", "left", "right")
_TOLERANCE = 5  # px: how far off a character's column (row) another may be and still be above (beside) it


def _neighbours(characters: Sequence[_Character], deadline: float) -> list[dict[str, int | None]]:
    """For each character, the nearest other character straight above, below, left and
    right of its centre (within the tolerance across); the first found at a tie."""
    found: list[dict[str, int | None]] = []
    for i, here in enumerate(characters):
        _in_time(deadline)
        up = down = left = right = None
        up_gap = down_gap = left_gap = right_gap = 0.0
        for j, other in enumerate(characters):
            if i == j:
                continue
            if abs(other.x - here.x) <= _TOLERANCE:
                if other.y < here.y and (up is None or here.y - other.y < up_gap):
                    up, up_gap = j, here.y - other.y
                if other.y > here.y and (down is None or other.y - here.y < down_gap):
                    down, down_gap = j, other.y - here.y
            if abs(other.y - here.y) <= _TOLERANCE:
                if other.x < here.x and (left is None or here.x - other.x < left_gap):
                    left, left_gap = j, here.x - other.x
                if other.x > here.x and (right is None or other.x - here.x < right_gap):
                    right, right_gap = j, other.x - here.x
        found.append({"up": up, "down": down, "left": left, "right": right})
    return found


def _characters_match(reference: Sequence[_Character], hypothesis: Sequence[_Character], deadline: float) -> bool:
    """olmOCR's backtracking search, as a loop: is there a one-to-one assignment of the
    reference's characters (in order) to equal characters of the hypothesis such that, for
    each reference character and direction where it has a neighbour, its partner has one
    there too, with the neighbour's text, and, when that neighbour comes earlier in the
    order (so has a partner already), that partner is the neighbour?"""
    candidates = []
    for character in reference:
        same = [j for j, other in enumerate(hypothesis) if other.text == character.text]
        if not same:
            return False
        candidates.append(same)
    reference_neighbours = _neighbours(reference, deadline)
    hypothesis_neighbours = _neighbours(hypothesis, deadline)

    def fits(i: int, partner: int, assignment: list[int]) -> bool:
        for direction in _DIRECTIONS:
            mine = reference_neighbours[i][direction]
            if mine is None:
                continue
            theirs = hypothesis_neighbours[partner][direction]
            if theirs is None:
                return False
            if mine < i:
                if assignment[mine] != theirs:
                    return False
            elif hypothesis[theirs].text != reference[mine].text:
                return False
        return True

    n = len(reference)
    used = [False] * len(hypothesis)
    assignment = [-1] * n
    tried = [0] * (n + 1)  # how many of its candidates each position has tried
    i = steps = 0
    while 0 <= i < n:
        steps += 1
        if steps % 4096 == 0:
            _in_time(deadline)
        if assignment[i] != -1:  # back here from a dead end further on: free this partner
            used[assignment[i]] = False
            assignment[i] = -1
        while tried[i] < len(candidates[i]):
            partner = candidates[i][tried[i]]
            tried[i] += 1
            if not used[partner] and fits(i, partner, assignment):
                assignment[i] = partner
                used[partner] = True
                i += 1
                tried[i] = 0
                break
        else:
            i -= 1
    return i == n


# -- MathML as olmOCR reads it -----------------------------------------------------------------


def semantics_content(mathml: str) -> str:
    """olmOCR's extract_inner: KaTeX's MathML read by BeautifulSoup's "xml" parser (lxml's
    libxml2 in recover mode), the children of its first <semantics> element but the
    <annotation>s as BeautifulSoup prints them; without one, the whole document as printed.
    The substring test compares those strings, so they are made by the same parser."""
    try:
        soup = BeautifulSoup(mathml, "xml")
        semantics = soup.find("semantics")
        if semantics is None:
            return str(soup)
        return "".join(str(child) for child in semantics.contents if getattr(child, "name", None) != "annotation")
    except Exception:  # as olmOCR: MathML the parser refuses (a lone surrogate) is compared as it is
        return mathml
