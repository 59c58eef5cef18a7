"""A fact's verdict on an output: the check of its type, a bound or olmOCR-Bench's own exception made a
failed verdict with its reason."""

from __future__ import annotations

from collections.abc import Sequence

from .baseline import _check_baseline
from .cells import _check_table
from .model import Fact, FactVerdict, MathChecker
from .page import _NotChecked, _Page, _page
from .presence import _check_order, _check_presence
from .tables import _Raises
from .text import Span


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
