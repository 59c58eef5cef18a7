"""A case's checks (facts about the page) run on one output, and what a run keeps of them.

The facts are pure functions of the output (metrics/facts.py), except that a math fact
compares KaTeX renderings in a browser. This module owns that browser for the process:
started by the first math fact that needs a rendering, reused by every later one, closed
at exit. With repeats, a fact holds when it held in more than half of the outputs, as
olmOCR-Bench decides over its repeats.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import limits
from ..cases.model import Case
from ..codec import Coded
from ..metrics.facts import Fact, FactVerdict

UNCATEGORISED = "-"  # what summaries call the category of facts that name none


@dataclass(frozen=True)
class FactRecord(Coded):
    """One fact's verdict on an item, as reports keep it."""

    id: str
    type: str
    category: str | None
    passed: bool
    reason: str  # why it does not hold ("" when it does)
    passes: int = 1  # of runs: with repeats, how many outputs it held in
    runs: int = 1
    # Where the fact is written (its case file's checks: entry, an olmOCR-Bench JSONL line), as reports name files.
    # file, line and spans: not in reports of pytest-ocr 0.x before they were kept (read as these defaults).
    file: str | None = None
    line: int | None = None
    # Where in the item's output (the first, with repeats) it looked when it does not hold: [start, end) spans.
    spans: tuple[tuple[int, int], ...] = ()

    def message(self) -> str:
        held = f" (held in {self.passes} of {self.runs} outputs)" if self.runs > 1 else ""
        return f"check {self.id} ({self.type}) does not hold{held}: {self.reason}"


@dataclass(frozen=True)
class MathSettings:
    browser: str | None = None  # None: PYTEST_OCR_CHROMIUM, else chromium on the PATH
    directory: Path | None = None  # where renderings are cached between runs


_settings = MathSettings()
_renderer: Any = None


def configure(settings: MathSettings) -> None:
    """The browser math facts use in this process (the plugin's options)."""
    global _settings, _renderer
    if settings != _settings and _renderer is not None:
        _renderer.close()
        _renderer = None
    _settings = settings


@dataclass
class _MathTime:
    """The time one output's math facts may take (``--ocr-max-math-s``), and have taken."""

    seconds: float
    spent: float = 0.0


def _math(fact: Fact, text: str, time_left: _MathTime) -> tuple[bool, str]:
    """A math fact's verdict. A browser that cannot render raises (the item's error: the
    fact cannot be judged); a reference KaTeX refuses is a fact that cannot hold; past the
    output's time for math facts, it is not checked."""
    global _renderer
    from ..browser.katex import KatexRenderer  # the browser's code: only for math facts
    from ..metrics.math_check import OutOfTime, UnrenderableMath, math_check

    if _renderer is None:
        _renderer = KatexRenderer(_settings.directory, browser=_settings.browser)
    started = time.monotonic()
    try:
        return math_check(
            fact.math or "",
            text,
            ignore_dollar_delimited=fact.ignore_dollar_delimited,
            renderer=_renderer,
            deadline=started + time_left.seconds - time_left.spent,
        )
    except UnrenderableMath as exc:
        return False, f"malformed fact: {exc}"
    except OutOfTime:
        return False, (
            f"not checked: the output's math facts took the {time_left.seconds:g} s they may take "
            f"({limits.OPTIONS['max_math_s']}) before this one was decided"
        )
    finally:
        time_left.spent += time.monotonic() - started


def run(case: Case, text: str) -> tuple[FactVerdict, ...]:
    """The verdict of each of the case's facts on this output."""
    from ..metrics.facts import check_facts  # its parsers (BeautifulSoup, lxml, fuzzysearch): only with facts

    time_left = _MathTime(limits.active().max_math_s)
    return tuple(check_facts(case.checks, text, math=lambda fact, output: _math(fact, output, time_left)))


def records(case: Case, runs: Sequence[Sequence[FactVerdict]], name: Callable[[Path], str]) -> list[FactRecord]:
    """The facts' verdicts over one output or several (repeats): a fact holds when it held
    in more than half of them; the reason is its first failure's, and its spans too when
    that failure is the first output's (the one reports show). ``name``: a path as reports
    write it."""
    found = []
    for index, (fact, (file, line)) in enumerate(zip(case.checks, case.check_sources, strict=True)):
        verdicts = [run[index] for run in runs]
        passes = sum(v.passed for v in verdicts)
        failed = next((v for v in verdicts if not v.passed), None)
        passed = passes * 2 > len(verdicts)
        reason, spans = ("", ()) if passed or failed is None else (failed.reason, failed.spans)
        found.append(
            FactRecord(
                fact.id,
                fact.type,
                fact.category,
                passed,
                reason,
                passes,
                len(verdicts),
                name(file),
                line,
                spans if failed is verdicts[0] else (),
            )
        )
    return found


def unchecked(case: Case, why: str, name: Callable[[Path], str]) -> list[FactRecord]:
    """The case's facts on an item that has no output: none holds."""
    reason = f"not checked: the item has no output ({why})"
    return [
        FactRecord(f.id, f.type, f.category, False, reason, 0, 1, name(file), line)
        for f, (file, line) in zip(case.checks, case.check_sources, strict=True)
    ]
