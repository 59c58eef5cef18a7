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
exponential in ``max_diffs`` for short texts, rapidfuzz's ``partial_ratio`` is O(N·M/64) for long texts): each
bound is a constant of the module whose check it bounds, and a check that would exceed one fails with a reason
that starts with "not checked:" and names the bound. The bounds are 25 times or more what a real page needs
(olmOCR writes at most 8,000 tokens, some 40,000 characters), except one no real fact meets: an 'order' text
shorter than 3 × (max_diffs + 1) characters with max_diffs of 8 or more, which olmOCR-Bench itself needs
minutes a page for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ... import lazy

if TYPE_CHECKING:
    from .baseline import ngram_repeats
    from .check import check_fact, check_facts
    from .model import FACT_TYPES, Fact, FactError, FactVerdict, MathChecker, parse_fact
    from .text import normalize_text

# Each name from its module when first used: a case file's facts are read (model.py) with every
# case, but only checking them needs BeautifulSoup, lxml and fuzzysearch (tables.py, presence.py).
_MODULES = {
    "ngram_repeats": "baseline",
    "check_fact": "check",
    "check_facts": "check",
    "FACT_TYPES": "model",
    "Fact": "model",
    "FactError": "model",
    "FactVerdict": "model",
    "MathChecker": "model",
    "parse_fact": "model",
    "normalize_text": "text",
}


__getattr__, __dir__ = lazy.names(__name__, _MODULES)


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
