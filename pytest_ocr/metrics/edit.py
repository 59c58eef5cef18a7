"""Edit-distance metrics: CER, WER, normalised edit distance, exact match.

All alignments come from rapidfuzz (bit-parallel Levenshtein in C++); nothing here
walks a DP matrix in Python. Sequences longer than ``max_align_chars`` units
(``limits.active().max_align_chars`` unless given) are aligned in windows, see
:mod:`pytest_ocr.metrics.align`: the counts then say so (``ErrorCounts.approximate``),
and ``cer``, ``wer`` and ``ned``, which return a bare number, warn with
``ApproximateAlignment``.

Empty reference policy (the reference is empty after normalisation): the rate is
0.0 when the hypothesis is empty too, and otherwise, by default (``one``), 1.0, so a
rate stays a number in [0, 1] for such a case instead of dividing by zero. The
other conventions are those of the field's tools: ``errors`` (the error count, as
jiwer returns) and ``infinity`` (as dinglehopper returns). The result says
``empty_reference: true`` so it can be told apart from a genuinely wrong page.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat

from rapidfuzz.distance import Editops, Levenshtein

from .align import Alignment, ApproximateAlignment, align, blocks
from .align import max_align_chars as _limit
from .normalize import DEFAULT, Normalization


@dataclass(frozen=True)
class ErrorCounts:
    """The alignment of a hypothesis against a reference, counted."""

    substitutions: int
    deletions: int
    insertions: int
    hits: int
    reference_length: int
    hypothesis_length: int
    unit: str
    # None for the exact alignment; else what the cheaper path did (see align.py), and
    # then ``lower_bound`` is a lower bound on the edit distance (``errors`` an upper one)
    approximate: str | None = None
    lower_bound: int | None = None

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def rate(self) -> float:
        return error_rate(self.errors, self.reference_length)


EMPTY_REFERENCE_VALUES = ("one", "errors", "infinity")


def error_rate(errors: float, reference_length: float, empty_reference_value: str = "one") -> float:
    """errors / reference length, with the empty-reference policy of this module."""
    if reference_length:
        return errors / reference_length
    if not errors or empty_reference_value == "one":
        return 0.0 if errors == 0 else 1.0
    if empty_reference_value == "errors":
        return float(errors)
    check_empty_reference_value(empty_reference_value)
    return math.inf


def check_empty_reference_value(value: str) -> None:
    if value not in EMPTY_REFERENCE_VALUES:
        raise ValueError(f"empty_reference_value must be one of {', '.join(EMPTY_REFERENCE_VALUES)}, not {value!r}")


def align_counts(
    reference: Sequence,
    hypothesis: Sequence,
    unit: str,
    editops: Editops | None = None,
    max_align_chars: int | None = None,
) -> ErrorCounts:
    """S/D/I counts of the minimal Levenshtein alignment of two sequences.

    Counts come from rapidfuzz's editops, the same alignment jiwer reports; above
    ``max_align_chars`` units, from the windowed alignment (see align.py)."""
    if editops is None:
        return error_counts(align(reference, hypothesis, max_align_chars), unit)
    substitutions = deletions = insertions = 0
    for tag, i1, i2, j1, j2 in blocks(editops):
        if tag == "replace":
            substitutions += i2 - i1
        elif tag == "delete":
            deletions += i2 - i1
        elif tag == "insert":
            insertions += j2 - j1
    return ErrorCounts(
        substitutions=substitutions,
        deletions=deletions,
        insertions=insertions,
        hits=len(reference) - substitutions - deletions,
        reference_length=len(reference),
        hypothesis_length=len(hypothesis),
        unit=unit,
    )


def error_counts(alignment: Alignment, unit: str) -> ErrorCounts:
    """The counts of an alignment."""
    return ErrorCounts(
        substitutions=alignment.substitutions,
        deletions=alignment.deletions,
        insertions=alignment.insertions,
        hits=alignment.hits,
        reference_length=alignment.reference_length,
        hypothesis_length=alignment.hypothesis_length,
        unit=unit,
        approximate=alignment.approximate,
        lower_bound=alignment.lower_bound,
    )


def distance(reference: Sequence, hypothesis: Sequence, max_align_chars: int | None = None) -> int:
    """The Levenshtein distance; above ``max_align_chars`` units the windowed alignment's
    edit count, an upper bound, with an ``ApproximateAlignment`` warning."""
    limit = _limit(max_align_chars)
    if len(reference) <= limit and len(hypothesis) <= limit:
        return Levenshtein.distance(reference, hypothesis)
    alignment = align(reference, hypothesis, limit)
    warnings.warn(ApproximateAlignment(alignment.approximate), stacklevel=3)
    return alignment.errors


def character_errors(
    reference: str, hypothesis: str, normalize: Normalization = DEFAULT, max_align_chars: int | None = None
) -> ErrorCounts:
    """Character-level alignment counts, in the normalisation's unit (code points by default)."""
    return align_counts(
        normalize.units(normalize(reference)),
        normalize.units(normalize(hypothesis)),
        normalize.unit,
        max_align_chars=max_align_chars,
    )


def word_errors(
    reference: str, hypothesis: str, normalize: Normalization = DEFAULT, max_align_chars: int | None = None
) -> ErrorCounts:
    """Word-level alignment counts; words are runs of non-whitespace."""
    return align_counts(
        normalize(reference).split(), normalize(hypothesis).split(), "word", max_align_chars=max_align_chars
    )


def cer(
    reference: str,
    hypothesis: str,
    normalize: Normalization = DEFAULT,
    max_align_chars: int | None = None,
    empty_reference_value: str = "one",
) -> float:
    """Character error rate: (S + D + I) / reference length, in the normalisation's unit."""
    ref = normalize.units(normalize(reference))
    errors = distance(ref, normalize.units(normalize(hypothesis)), max_align_chars)
    return error_rate(errors, len(ref), empty_reference_value)


def wer(
    reference: str,
    hypothesis: str,
    normalize: Normalization = DEFAULT,
    max_align_chars: int | None = None,
    empty_reference_value: str = "one",
) -> float:
    """Word error rate: (S + D + I) / reference words."""
    ref = normalize(reference).split()
    return error_rate(distance(ref, normalize(hypothesis).split(), max_align_chars), len(ref), empty_reference_value)


def ned(
    reference: str, hypothesis: str, normalize: Normalization = DEFAULT, max_align_chars: int | None = None
) -> float:
    """Normalised edit distance: edits / the longer of the two lengths, in [0, 1]."""
    ref, hyp = normalize.units(normalize(reference)), normalize.units(normalize(hypothesis))
    limit = _limit(max_align_chars)
    if len(ref) <= limit and len(hyp) <= limit:
        return Levenshtein.normalized_distance(ref, hyp)
    return distance(ref, hyp, limit) / max(len(ref), len(hyp))


def exact_match(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> float:
    """1.0 when the normalised texts are identical, else 0.0."""
    return 1.0 if normalize(reference) == normalize(hypothesis) else 0.0


DELETE = "<DELETE>"
INSERT = "<INSERT>"


def confusions(
    reference: str | Sequence,
    hypothesis: str | Sequence,
    normalize: Normalization = DEFAULT,
    max_align_chars: int | None = None,
    *,
    editops: Editops | None = None,
) -> Counter:
    """(reference unit, recognized unit) -> count over the minimal alignment (the windowed
    one above ``max_align_chars`` units); a deleted unit is recognized as ``<DELETE>``,
    an inserted one comes from ``<INSERT>``.

    Two strings are normalised and split into the normalisation's unit (code points by
    default, grapheme clusters with ``unit: grapheme``), as ``cer`` counts them; two lists
    are taken as units already (words, say). ``editops``: an alignment of the two lists."""
    if isinstance(reference, str) and isinstance(hypothesis, str):
        reference, hypothesis = normalize.units(normalize(reference)), normalize.units(normalize(hypothesis))
    if editops is None:
        return confusion_table(align(reference, hypothesis, max_align_chars, keep=True))
    table: Counter = Counter()
    for op in editops:
        tag, i, j = op.tag, op.src_pos, op.dest_pos
        if tag == "replace":
            table[reference[i], hypothesis[j]] += 1
        elif tag == "delete":
            table[reference[i], DELETE] += 1
        else:
            table[INSERT, hypothesis[j]] += 1
    return table


def confusion_table(alignment: Alignment) -> Counter:
    """The confusions of an alignment made with ``keep=True``."""
    table: Counter = Counter(zip(*alignment.replaced, strict=True))
    if alignment.deleted:  # most alignments have few edits: an empty update costs as much as a short one
        table.update(zip(alignment.deleted, repeat(DELETE), strict=False))
    if alignment.inserted:
        table.update(zip(repeat(INSERT), alignment.inserted, strict=False))
    return table
