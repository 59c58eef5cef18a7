"""Why an item, a gate or a rule failed, as the CI views write it for people (GitHub
annotations, Markdown, ``pytest-ocr compare``'s text): the same sentences as the
failure text and the JSON report, with numbers rounded by numbers.py.

Rounding must not make a verdict look wrong: a value that would round to the number it
was compared with (``cer = 0.0500, expected < 0.05: FAILED``) is shown in full
(``0.05000001``), so the comparison that decided still reads as it went. The JSON
report keeps every value exactly.
"""

from __future__ import annotations

from collections.abc import Callable

from ..cases.rules import format_number
from ..metrics import METRICS
from ..run.gates import GateResult
from ..run.noise import Family
from ..run.result import CaseResult
from ..scoring.thresholds import Check
from ..scoring.tolerance import Delta
from ..scoring.verdict import fact_reasons
from .numbers import number, signed


def shown(value: float, compared_with: float | None = None) -> str:
    """``value`` rounded, or in full when rounding would make it equal to what it was
    compared with while it is not."""
    text = number(value)
    if compared_with is not None and value != compared_with and text == number(compared_with):
        return format_number(value)
    return text


def check_text(check: Check) -> str:
    """``cer = 0.0726, expected < 0.05: FAILED``."""
    t = check.threshold
    if check.value is None:
        return check.message()
    verdict = "ok" if check.passed else "FAILED"
    return f"{t.metric} = {shown(check.value, t.bound)}, expected {t.expression}: {verdict}"


def delta_text(delta: Delta) -> str:
    """``cer: 0.1000 -> 0.2000 (+0.1000; lower is better; tolerance 0.005): REGRESSED``, and
    for an item with repeats how their noise entered the verdict."""
    change = delta.change
    sign = "+" if change > 0 else "-" if change < 0 else ""
    magnitude = shown(abs(change), delta.tolerance.allowed(delta.old))
    verdict = delta.verdict.upper() if delta.regressed else delta.verdict
    how = delta.how()
    return (
        f"{delta.metric}: {number(delta.old)} -> {number(delta.new)} ({sign}{magnitude}; "
        f"{METRICS[delta.metric].better} is better; tolerance {delta.tolerance}): {verdict}"
    ) + (f" ({how})" if how else "")


def worsening(result: CaseResult) -> str:
    """How a regressed item got worse, briefly: ``cer 0.0726 -> 0.1859 (+0.1134)``, and the
    checks it lost."""
    deltas = [d for d in (result.baseline.deltas if result.baseline else []) if d.regressed]
    parts = [f"{d.metric} {number(d.old)} -> {number(d.new)} ({signed(d.change)})" for d in deltas]
    lost = result.baseline.lost_facts if result.baseline else ()
    parts += [f"check {f.id} ({f.type}) lost" for f in lost]
    return "; ".join(parts)


def worst_delta(result: CaseResult) -> Delta | None:
    """The regressed metric that got worse by most beyond its tolerance (what
    ``ItemComparison.worst`` sorts by)."""
    deltas = [d for d in (result.baseline.deltas if result.baseline else []) if d.regressed]
    return max(deltas, key=lambda d: d.beyond, default=None)


def brief(result: CaseResult) -> str:
    """Why a failed item failed, on one line: ``cer = 0.1859 (expected < 0.05); regressed:
    cer +0.1134``."""
    parts = [
        f"{c.threshold.metric} = {shown(c.value, c.threshold.bound)} (expected {c.threshold.expression})"
        if c.value is not None
        else f"{c.threshold.metric} not computed (expected {c.threshold.expression})"
        for c in result.checks
        if not c.passed
    ]
    deltas = [d for d in (result.baseline.deltas if result.baseline else []) if d.regressed]
    if deltas:
        parts.append("regressed: " + ", ".join(f"{d.metric} {signed(d.change)}" for d in deltas))
    lost = result.baseline.lost_facts if result.baseline else ()
    if lost:
        parts.append("checks lost since the baseline: " + ", ".join(f.id for f in lost))
    return "; ".join(parts) or "; ".join(result.reasons())


def item_reasons(result: CaseResult) -> list[str]:
    """Why the item did not pass, one line each: the lines of ``CaseResult.reasons``."""
    if result.outcome != "failed":
        return result.reasons()
    lines = [check_text(c) for c in result.checks if not c.passed]
    if result.baseline is not None:
        lines += [delta_text(d) for d in result.baseline.deltas if d.regressed]
    lines += fact_reasons(result.checks, result.baseline, result.facts or ())
    return lines or result.reasons()


def threshold_miss(result: CaseResult) -> float:
    """How far the item's worst failed check is beyond its bound (for putting the worst
    first); a metric that could not be computed is the worst of all."""
    misses = []
    for c in result.checks:
        if c.passed:
            continue
        if c.value is None:
            return float("inf")
        bound, op = c.threshold.bound, c.threshold.op
        misses.append(abs(c.value - bound) if op == "==" else c.value - bound if "<" in op else bound - c.value)
    return max(misses, default=0.0)


def gate_source(gate: GateResult, path: Callable[[str], str]) -> tuple[str | None, int | None]:
    """Where the gate was declared, its file named by ``path`` (None: the command line)."""
    file, line = gate.source
    return (path(file) if file else None, line)


def gate_text(gate: GateResult, path: Callable[[str], str]) -> str:
    """The gate's message (run/gates.py wrote it) with its value rounded and the file it
    was declared in named by ``path`` instead of absolutely."""
    message = gate.message
    if gate.value is not None:
        bound = gate.gate.bound if gate.gate is not None else None
        message = message.replace(f" = {format_number(gate.value)} ", f" = {shown(gate.value, bound)} ", 1)
    file, line = gate.source
    if gate.gate is not None and file:
        message = message.replace(f"(declared at {gate.gate.source})", f"(declared at {path(file)}:{line})")
    return message


def noise_lines(families: list[Family]) -> list[str]:
    """How items with repeats were judged over the run, one sentence a line: each family
    of tests, each engine's overall change in it, and what the repeats cannot show."""
    lines = []
    for f in families:
        level = f"{format_number(round(f.confidence * 100, 6))}%"
        lines.append(
            f"items with repeats are compared as samples: {f.item_tests} item tests and {len(f.overall)} overall "
            f"changes, {f.tests} tests at {level} with Holm's method (a run where nothing changed fails with a "
            f"chance of at most {format_number(round((1 - f.confidence) * 100, 6))}%)"
        )
        lines += [f"overall: {o.message()}" for o in f.overall]
        note = f.note()
        if note:
            lines.append(f"note: {note}")
    return lines
