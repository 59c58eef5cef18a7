"""Structural sequence accuracy (SSA): character matches minus a penalty for every
edit that involves whitespace (spaces, tabs, line breaks), over the reference length.

Computed on text whose whitespace is kept as it is, so a lost line break or
indentation costs what a lost letter costs, twice: once as an edit, once as the penalty.
"""

from __future__ import annotations

from rapidfuzz.distance import Levenshtein


def ssa_counts(reference: str, hypothesis: str) -> tuple[int, int]:
    """(hits, whitespace penalty) of the minimal alignment of two layout-preserving texts."""
    hits = len(reference)
    penalty = 0
    for op in Levenshtein.editops(reference, hypothesis):
        tag, i, j = op.tag, op.src_pos, op.dest_pos
        if tag != "insert":
            hits -= 1
        ref_char = reference[i] if tag != "insert" else ""
        hyp_char = hypothesis[j] if tag != "delete" else ""
        if ref_char.isspace() or hyp_char.isspace():
            penalty += 1
    return hits, penalty
