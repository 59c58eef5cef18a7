"""Repetition loops: generated text whose tail repeats one unit over and over.

Vision-language models sometimes fall into a loop ("Total: 0.00\\nTotal: 0.00\\n ...")
until they hit their token limit. The tail of such an output is periodic: with period
p, every character equals the one p positions earlier. The Z-array of the reversed
text gives, for every p at once, how far back from the end that holds, in linear time
(computed only for the periods that can repeat ``min_repeats`` times: a third of the
text by default; 10 million characters take about 3 s). The last few results are
cached: scoring asks for the same output's loop up to three times.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache, lru_cache

import numpy as np

MIN_REPEATS = 3
MIN_CHARS = 50


@dataclass(frozen=True)
class Loop:
    unit: str  # the repeated text, as it first occurs in the tail
    repeats: float  # tail length / unit length (the last unit may be cut off)
    start: int  # index where the periodic tail starts
    redundant_chars: int  # tail length minus one unit: what a loop-free output would not have


def _z_array(s: str, upto: int | None = None) -> list[int]:
    """z[i] = length of the longest common prefix of s and s[i:] (z[0] = len(s)), for
    i <= ``upto`` (all of s when None); z[i] only reads z of smaller i."""
    n = len(s)
    size = n if upto is None else min(n, upto + 1)
    z = [0] * size
    if n:
        z[0] = n
    left = right = 0
    for i in range(1, size):
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
    characters, or None (see ``_find_repetition``)."""
    return _cached(text, min_repeats, min_chars)


def _find_repetition(text: str, min_repeats: int = MIN_REPEATS, min_chars: int = MIN_CHARS) -> Loop | None:
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
    z = _z_array(text[::-1], n // min_repeats)
    has_alnum = _AlnumIndex(text)
    best: tuple[int, int] | None = None  # (tail length, period)
    for period in range(1, n // min_repeats + 1):
        # the last `period` characters recur z[period] characters further back
        tail = (z[period] if period < n else 0) + period
        if tail >= min_repeats * period and tail - period >= min_chars and (best is None or tail > best[0]):
            if has_alnum(n - tail, n - tail + period):
                best = (tail, period)
    if best is None:
        return None
    tail, period = best
    start = n - tail
    return Loop(unit=text[start : start + period], repeats=tail / period, start=start, redundant_chars=tail - period)


_cached = lru_cache(maxsize=2)(_find_repetition)


@cache
def _alnum_table() -> np.ndarray:
    return np.array([chr(cp).isalnum() for cp in range(sys.maxunicode + 1)], dtype=bool)


class _AlnumIndex:
    """Whether text[i:j] has a letter or digit, in constant time for long spans (prefix
    counts, built on first need): a rule of 10 million dashes has a candidate unit of
    every length, and scanning each would take quadratic time."""

    SHORT = 64

    def __init__(self, text: str):
        self.text = text
        self.prefix: np.ndarray | None = None

    def __call__(self, i: int, j: int) -> bool:
        if j - i <= self.SHORT:
            return any(c.isalnum() for c in self.text[i:j])
        if self.prefix is None:
            codes = np.frombuffer(self.text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
            self.prefix = np.concatenate(([0], np.cumsum(_alnum_table()[codes], dtype=np.int64)))
        return bool(self.prefix[j] > self.prefix[i])


def describe(loop: Loop) -> str:
    """A one-line warning for reports."""
    unit = loop.unit if len(loop.unit) <= 60 else loop.unit[:57] + "..."
    return (
        f"repetition loop: the output's tail repeats {unit!r} {loop.repeats:.1f} times "
        f"({loop.redundant_chars} redundant characters)"
    )
