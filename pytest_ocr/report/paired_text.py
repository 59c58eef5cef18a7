"""Paired statistics of two runs (run/paired.py) in words: the change with its interval,
what the suite can tell from noise, and whether a tolerance decided. The statistics
return numbers; every view, and the messages of gates and rules judged on them, words
them here."""

from __future__ import annotations

from ..cases.rules import Tolerance
from ..run.comparison import Decision, Violation
from ..run.paired import Paired
from .numbers import number, signed


def describe(p: Paired) -> str:
    """``0.0412 -> 0.0450 (+0.0038; 95% interval +0.0010 to +0.0066, p = 0.004, n = 38)``"""
    return f"{number(p.old)} -> {number(p.new)} ({signed(p.change)}; {spread(p)})"


def spread(p: Paired) -> str:
    """``95% interval +0.0010 to +0.0066, p = 0.004, n = 38``"""
    return f"{p.level} interval {signed(p.low)} to {signed(p.high)}, p = {p.p_value:.3g}, n = {p.n}"


def noise(p: Paired) -> str:
    """What the suite can tell from noise, in words."""
    if p.low == p.high:
        return f"no item's change varies, so these {p.n} items show no noise to tell a change from"
    return f"a worsening below {number(p.detectable)} cannot be told from noise at {p.level} with these {p.n} items"


def verdict(p: Paired, tolerance: Tolerance) -> str:
    """Whether the comparison decided, in words."""
    allowed = number(tolerance.allowed(p.old))
    worsening = "{} to {}".format(*(number(v) for v in p.worsening))
    if p.regressed(tolerance):
        if tolerance.confidence is None:
            return f"REGRESSED (worse by {number(p.worse_by)}, more than {allowed})"
        return f"REGRESSED (the interval of the worsening, {worsening}, lies above {allowed})"
    if tolerance.confidence is None:
        return "ok"
    if p.worsening[1] > tolerance.allowed(p.old):
        return f"ok (not decided: the interval of the worsening, {worsening}, does not lie above {allowed})"
    return f"ok (the interval of the worsening, {worsening}, lies within {allowed})"


def judged(p: Paired, tolerance: Tolerance) -> str:
    """An aggregate judged against a tolerance: its statistics and the verdict."""
    return f"{describe(p)}, tolerance +{tolerance}: {verdict(p, tolerance)}"


def decided(d: Decision) -> str:
    """An aggregate rule's decision on an engine: ``fake (macro): cer: ..., tolerance +0.002@95%: ...``"""
    return f"{d.engine} ({d.paired.kind}): {d.paired.metric}: {judged(d.paired, d.tolerance)}"


def violation_message(v: Violation) -> str:
    """A broken rule's message, its values as the reports hold them."""
    return decided(v.decision) if v.decision is not None else v.message or ""
