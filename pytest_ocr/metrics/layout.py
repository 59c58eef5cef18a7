"""Structural sequence accuracy (SSA): character matches minus a penalty for every
edit that involves whitespace (spaces, tabs, line breaks), over the reference length.

Computed on text whose whitespace is kept as it is, so a lost line break or
indentation costs what a lost letter costs, twice: once as an edit, once as the penalty.
Texts longer than ``max_align_chars`` are aligned in windows (see align.py): the counts
then come from that alignment, and say so.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache

import numpy as np

from .align import align


@dataclass(frozen=True)
class SSACounts:
    hits: int
    penalty: int
    approximate: str | None = None  # None: the exact alignment; else what the cheaper path did
    lower_bound: int | None = None  # then: a lower bound on the edit distance


@cache
def _space_codes() -> np.ndarray:
    """Every code point that str.isspace() accepts (re's \\s is the same predicate)."""
    every = "".join(map(chr, range(sys.maxunicode + 1)))
    return np.array([m.start() for m in re.finditer(r"\s", every)], dtype=np.uint32)


def _space_mask(text: str) -> np.ndarray:
    codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")
    return np.isin(codes, _space_codes())


def _spaces(text: str) -> int:
    return sum(map(str.isspace, text))


SHORT = 4096  # substitutions counted in Python; more in numpy (its table costs 0.5 s once)


def _spaced_pairs(reference: str, hypothesis: str) -> int:
    """Positions where either of two equally long texts has whitespace."""
    if len(reference) <= SHORT:
        return sum(1 for r, h in zip(reference, hypothesis, strict=True) if r.isspace() or h.isspace())
    return int(np.count_nonzero(_space_mask(reference) | _space_mask(hypothesis)))


def ssa(reference: str, hypothesis: str, max_align_chars: int | None = None) -> SSACounts:
    """Hits and whitespace penalty of the alignment of two layout-preserving texts."""
    alignment = align(reference, hypothesis, max_align_chars, keep=True)
    replaced_ref, replaced_hyp = alignment.replaced
    assert isinstance(replaced_ref, str) and isinstance(replaced_hyp, str)  # text in, text out
    assert isinstance(alignment.deleted, str) and isinstance(alignment.inserted, str)
    penalty = _spaces(alignment.deleted) + _spaces(alignment.inserted) + _spaced_pairs(replaced_ref, replaced_hyp)
    return SSACounts(alignment.hits, penalty, alignment.approximate, alignment.lower_bound)


def ssa_counts(reference: str, hypothesis: str, max_align_chars: int | None = None) -> tuple[int, int]:
    """(hits, whitespace penalty) of the minimal alignment of two layout-preserving texts."""
    counts = ssa(reference, hypothesis, max_align_chars)
    return counts.hits, counts.penalty
