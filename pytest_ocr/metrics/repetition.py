"""Repetition loops: generated text whose tail repeats one unit over and over.

Vision-language models sometimes fall into a loop ("Total: 0.00\\nTotal: 0.00\\n ...")
until they hit their token limit. The tail of such an output is periodic: with period
p, every character equals the one p positions earlier. The Z-array of the reversed
text gives, for every p at once, how far back from the end that holds, in linear time.
"""

from __future__ import annotations

from dataclasses import dataclass

MIN_REPEATS = 3
MIN_CHARS = 50


@dataclass(frozen=True)
class Loop:
    unit: str  # the repeated text, as it first occurs in the tail
    repeats: float  # tail length / unit length (the last unit may be cut off)
    start: int  # index where the periodic tail starts
    redundant_chars: int  # tail length minus one unit: what a loop-free output would not have


def _z_array(s: str) -> list[int]:
    """z[i] = length of the longest common prefix of s and s[i:] (z[0] = len(s))."""
    n = len(s)
    z = [0] * n
    if n:
        z[0] = n
    left = right = 0
    for i in range(1, n):
        k = min(right - i, z[i - left]) if i < right else 0
        while i + k < n and s[k] == s[i + k]:
            k += 1
        z[i] = k
        if i + k > right:
            left, right = i, i + k
    return z


def find_repetition(text: str, min_repeats: int = MIN_REPEATS, min_chars: int = MIN_CHARS) -> Loop | None:
    """The longest periodic tail of ``text`` (trailing whitespace ignored) that repeats its
    unit at least ``min_repeats`` times and has at least ``min_chars`` redundant
    characters, or None. Units without a letter or digit (rules of dashes, dot leaders)
    are not loops: receipts and tables of contents end in them legitimately."""
    text = text.rstrip()
    n = len(text)
    # A loop with min_chars redundant characters repeats its last min_chars characters
    # one period earlier; when they occur nowhere else (nearly every output), there is
    # no loop, and the linear but pure-Python Z-array is not needed.
    if min_chars > 0 and (n < min_chars or text.find(text[n - min_chars :]) == n - min_chars):
        return None
    z = _z_array(text[::-1])
    best: tuple[int, int] | None = None  # (tail length, period)
    for period in range(1, n // min_repeats + 1):
        # the last `period` characters recur z[period] characters further back
        tail = (z[period] if period < n else 0) + period
        if tail >= min_repeats * period and tail - period >= min_chars and (best is None or tail > best[0]):
            unit = text[n - tail : n - tail + period]
            if any(c.isalnum() for c in unit):
                best = (tail, period)
    if best is None:
        return None
    tail, period = best
    start = n - tail
    return Loop(unit=text[start : start + period], repeats=tail / period, start=start, redundant_chars=tail - period)


def describe(loop: Loop) -> str:
    """A one-line warning for reports."""
    unit = loop.unit if len(loop.unit) <= 60 else loop.unit[:57] + "..."
    return (
        f"repetition loop: the output's tail repeats {unit!r} {loop.repeats:.1f} times "
        f"({loop.redundant_chars} redundant characters)"
    )
