"""``pytest-ocr history comment``'s Markdown: a pull request's change against its merge-base's
recorded run, for a comment that CI posts once and updates on each push.

The change is the one comparison (run/comparison.py) in the words ``compare --markdown`` gives it
(markdown.comparison_lines: verdict, per-engine deltas with their intervals, regressed items
worst first, outcome changes), its regressed items linked to their cases in the HTML report when
its address is known, after how HEAD's own run was gated (markdown.gating_lines, when its report is
given); then the target branch's recent history per engine and metric as
sparklines (history_text.sparkline over history/trend.py's series). A hidden first line names
the suite, so a CI step finds its own comment among the others. Untrusted text is escaped as
markdown.escape does, and everything read from the store is untrusted (another program may have
written it): commits, branches, engines, metrics, kinds, suites, notes; the whole stays under
GitHub's 65,536-character limit on a comment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import quote, urlencode

from ..history.trend import Series
from ..run.aggregate import metric_order
from ..run.comparison import CaseComparison, Comparison
from ..run.record import Gating
from .history_text import short, sparkline
from .markdown import LIST_LIMIT, bounded, comparison_lines, escape, gating_lines
from .numbers import number

MAX_CHARS = 65_536  # GitHub refuses a comment body longer than this (characters)
MARKER = "<!-- pytest-ocr comment: {} -->"


def marker(suite: str) -> str:
    """The hidden line that names the comment's suite: percent-encoded, so that no name can end
    the HTML comment early or spread over lines, and a plain name reads as itself."""
    return MARKER.format(quote(suite, safe=""))


@dataclass(frozen=True)
class Comment:
    suite: str
    comparison: Comparison
    head: str  # what HEAD is: a report's path, or a recorded run
    notes: Sequence[str]  # how BASE was found (a nearest ancestor's run)
    branch: str  # the target branch the sparklines draw
    series: Sequence[Series]  # the branch's recent history, oldest first
    html_url: str | None  # where the HTML report of HEAD is published
    case_ids: Mapping[str, str]  # item key -> the id the HTML report names the case by
    gating: Gating | None = None  # how HEAD's run was gated, from its report (the store keeps no thresholds)


def comment_markdown(c: Comment, limit: int = LIST_LIMIT) -> str:
    """The comment, its lists capped at ``limit`` items each, fewer when that would pass GitHub's
    limit (each list says how many it left out); cut at a line only if even one item each would."""
    lines = _lines(c, limit)
    while limit > 1 and len("\n".join(lines)) >= MAX_CHARS:
        limit //= 2
        lines = _lines(c, limit)
    return bounded(lines, MAX_CHARS, len, f"{MAX_CHARS:,} characters", "a comment to 65,536 characters")


def _lines(c: Comment, limit: int) -> list[str]:
    return [
        marker(c.suite),
        f"### OCR: {escape(c.suite)}",
        "",
        f"HEAD ({escape(c.head)}) against {escape(c.comparison.name)}.",
        "",
        *[f"*Note: {escape(note, 400)}*" for note in c.notes],
        *([""] if c.notes else []),
        *(gating_lines(c.gating) if c.gating else []),
        *comparison_lines(c.comparison, limit, _link(c) if c.html_url else None),
        *_history(c, limit),
    ]


def _link(c: Comment) -> Callable[[CaseComparison], str]:
    base = c.html_url or ""

    def link(case: CaseComparison) -> str:
        # the report's script opens the case named in the address (report.js readHash)
        return f"{base}#{urlencode({'case': c.case_ids.get(case.key, case.key)})}"

    return link


def _history(c: Comment, limit: int) -> list[str]:
    if not c.series:
        return [f"*No recorded run on {escape(c.branch)} to draw its history from.*", ""]
    commits = c.series[0].commits
    lines = [
        f"#### {escape(c.branch)}: the last {len(commits)} commits, "
        f"{escape(short(commits[0]))} .. {escape(short(commits[-1]))}",
        "",
        "| engine | metric | oldest → newest | latest |",
        "|---|---|---|---|",
    ]
    shown = sorted(c.series, key=lambda s: (s.engine, metric_order(s.metric), s.kind))[: 2 * limit]
    for s in shown:
        last = s.cells[-1]
        latest = number(last.value) + (" (carried)" if last.carried else "")
        lines.append(
            f"| {escape(s.engine)} | {escape(s.metric)} {escape(s.kind)} | `{sparkline(s.cells)}` | {escape(latest)} |"
        )
    if len(c.series) > len(shown):
        lines.append(f"… and {len(c.series) - len(shown)} more")
    if any(cell.carried for s in shown for cell in s.cells):
        lines += ["", "· carried: the engine did not run at that commit (an earlier value, not measured)"]
    return [*lines, ""]
