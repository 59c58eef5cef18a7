"""Edit-distance metrics: CER, WER, normalised edit distance, exact match.

All alignments come from rapidfuzz (bit-parallel Levenshtein in C++); nothing here
walks a DP matrix in Python.

Empty reference policy (the reference is empty after normalisation): the rate is
0.0 when the hypothesis is empty too, and 1.0 otherwise, so a rate stays a number
in [0, 1] for such a case instead of dividing by zero. (jiwer returns the raw
insertion count here.) The result says ``empty_reference: true`` so it can be
told apart from a genuinely wrong page.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Editops, Levenshtein

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

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def rate(self) -> float:
        return error_rate(self.errors, self.reference_length)


def error_rate(errors: float, reference_length: float) -> float:
    """errors / reference length, with the empty-reference policy of this module."""
    if reference_length == 0:
        return 0.0 if errors == 0 else 1.0
    return errors / reference_length


def align_counts(reference: Sequence, hypothesis: Sequence, unit: str, editops: Editops | None = None) -> ErrorCounts:
    """S/D/I counts of the minimal Levenshtein alignment of two sequences.

    Counts come from rapidfuzz's editops, the same alignment jiwer reports.
    """
    if editops is None:
        editops = Levenshtein.editops(reference, hypothesis)
    tags = [op[0] for op in editops.as_list()]
    substitutions, deletions = tags.count("replace"), tags.count("delete")
    insertions = len(tags) - substitutions - deletions
    return ErrorCounts(
        substitutions=substitutions,
        deletions=deletions,
        insertions=insertions,
        hits=len(reference) - substitutions - deletions,
        reference_length=len(reference),
        hypothesis_length=len(hypothesis),
        unit=unit,
    )


def character_errors(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> ErrorCounts:
    """Character-level alignment counts, in the normalisation's unit (code points by default)."""
    return align_counts(normalize.units(normalize(reference)), normalize.units(normalize(hypothesis)), normalize.unit)


def word_errors(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> ErrorCounts:
    """Word-level alignment counts; words are runs of non-whitespace."""
    return align_counts(normalize(reference).split(), normalize(hypothesis).split(), "word")


def cer(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> float:
    """Character error rate: (S + D + I) / reference length, in the normalisation's unit."""
    ref = normalize.units(normalize(reference))
    return error_rate(Levenshtein.distance(ref, normalize.units(normalize(hypothesis))), len(ref))


def wer(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> float:
    """Word error rate: (S + D + I) / reference words."""
    ref = normalize(reference).split()
    return error_rate(Levenshtein.distance(ref, normalize(hypothesis).split()), len(ref))


def ned(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> float:
    """Normalised edit distance: edits / the longer of the two lengths, in [0, 1]."""
    return Levenshtein.normalized_distance(
        normalize.units(normalize(reference)), normalize.units(normalize(hypothesis))
    )


def exact_match(reference: str, hypothesis: str, normalize: Normalization = DEFAULT) -> float:
    """1.0 when the normalised texts are identical, else 0.0."""
    return 1.0 if normalize(reference) == normalize(hypothesis) else 0.0


DELETE = "<DELETE>"
INSERT = "<INSERT>"


def confusions(reference: Sequence, hypothesis: Sequence, editops: Editops | None = None) -> Counter:
    """(reference unit, recognized unit) -> count over the minimal alignment; a deleted
    unit is recognized as ``<DELETE>``, an inserted one comes from ``<INSERT>``."""
    if editops is None:
        editops = Levenshtein.editops(reference, hypothesis)
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
