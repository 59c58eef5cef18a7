"""A case's checks (facts about the page) run on one output, and what a run keeps of them.

The facts are pure functions of the output (metrics/facts.py), except that a math fact
compares KaTeX renderings in a browser. This module owns that browser for the process:
started by the first math fact that needs a rendering, reused by every later one, closed
at exit. With repeats, a fact holds when it held in more than half of the outputs, as
olmOCR-Bench decides over its repeats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import limits
from ..cases.model import Case
from ..metrics.facts import Fact, FactVerdict, check_facts

UNCATEGORISED = "-"  # what summaries call the category of facts that name none


@dataclass(frozen=True)
class FactRecord:
    """One fact's verdict on an item, as reports keep it."""

    id: str
    type: str
    category: str | None
    passed: bool
    reason: str  # why it does not hold ("" when it does)
    passes: int = 1  # of runs: with repeats, how many outputs it held in
    runs: int = 1

    def line(self) -> str:
        held = f" (held in {self.passes} of {self.runs} outputs)" if self.runs > 1 else ""
        return f"check {self.id} ({self.type}) does not hold{held}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "category": self.category,
            "passed": self.passed,
            "reason": self.reason,
            "passes": self.passes,
            "runs": self.runs,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FactRecord:
        return cls(**{k: data[k] for k in ("id", "type", "category", "passed", "reason", "passes", "runs")})


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


def _math(fact: Fact, text: str) -> tuple[bool, str]:
    """A math fact's verdict. A browser that cannot render raises (the item's error: the
    fact cannot be judged); a reference KaTeX refuses is a fact that cannot hold."""
    global _renderer
    from ..metrics.katex import KatexRenderer  # the browser's code: only for math facts
    from ..metrics.math_check import UnrenderableMath, math_check

    if _renderer is None:
        _renderer = KatexRenderer(_settings.directory, browser=_settings.browser, timeout=limits.active().max_render_s)
    try:
        return math_check(
            fact.math or "", text, ignore_dollar_delimited=fact.ignore_dollar_delimited, renderer=_renderer
        )
    except UnrenderableMath as exc:
        return False, f"malformed fact: {exc}"


def run(case: Case, text: str) -> tuple[FactVerdict, ...]:
    """The verdict of each of the case's facts on this output."""
    return tuple(check_facts(case.checks, text, math=_math))


def records(case: Case, runs: Sequence[Sequence[FactVerdict]]) -> list[FactRecord]:
    """The facts' verdicts over one output or several (repeats): a fact holds when it held
    in more than half of them; the reason is its first failure's."""
    found = []
    for index, fact in enumerate(case.checks):
        verdicts = [run[index] for run in runs]
        passes = sum(v.passed for v in verdicts)
        failed = next((v.reason for v in verdicts if not v.passed), "")
        passed = passes * 2 > len(verdicts)
        found.append(
            FactRecord(fact.id, fact.type, fact.category, passed, "" if passed else failed, passes, len(verdicts))
        )
    return found


def unchecked(case: Case, why: str) -> list[FactRecord]:
    """The case's facts on an item that has no output: none holds."""
    reason = f"not checked: the item has no output ({why})"
    return [FactRecord(f.id, f.type, f.category, False, reason, 0, 1) for f in case.checks]
