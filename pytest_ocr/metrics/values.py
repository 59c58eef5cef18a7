"""Each metric's value as a function of its additive counts.

A case records its counts; the micro average of a run is the same function of the summed
counts (registry.pooled), so aggregation needs no metric-specific code and micro WIP or
token F1 are exact. The adapters apply the same functions to one case's counts.
"""

from __future__ import annotations


def ratio(numerator: float, denominator: float, *, empty: float | None = None) -> float:
    """numerator / denominator; when the denominator is 0 the value is ``empty`` if
    given, else 0.0 for a zero numerator and 1.0 otherwise (the empty-reference policy)."""
    if denominator:
        return numerator / denominator
    if empty is not None:
        return empty
    return 0.0 if numerator == 0 else 1.0


def cer_value(counts: dict) -> float:
    return ratio(counts["errors"], counts["denominator"])


def accuracy(counts: dict) -> float:
    return ratio(counts["correct"], counts["total"], empty=1.0 if counts["correct"] == 0 else 0.0)


def ned_value(counts: dict) -> float:
    return ratio(counts["distance"], counts["longer"], empty=0.0)


def wer_value(c: dict) -> float:
    errors = c["substitutions"] + c["deletions"] + c["insertions"]
    return ratio(errors, c["hits"] + c["substitutions"] + c["deletions"])


def mer_value(c: dict) -> float:
    errors = c["substitutions"] + c["deletions"] + c["insertions"]
    return ratio(errors, c["hits"] + errors)


def wip_value(c: dict) -> float:
    # Same edge cases as jiwer: empty reference and hypothesis preserve everything,
    # an empty side on its own preserves nothing.
    reference_words = c["hits"] + c["substitutions"] + c["deletions"]
    hypothesis_words = c["hits"] + c["substitutions"] + c["insertions"]
    if reference_words == 0:
        return 1.0 if hypothesis_words == 0 else 0.0
    if hypothesis_words == 0:
        return 0.0
    return (c["hits"] / reference_words) * (c["hits"] / hypothesis_words)


def precision_value(c: dict) -> float:
    return ratio(c["matched"], c["hypothesis_tokens"], empty=1.0 if c["reference_tokens"] == 0 else 0.0)


def recall_value(c: dict) -> float:
    return ratio(c["matched"], c["reference_tokens"], empty=1.0 if c["hypothesis_tokens"] == 0 else 0.0)


def f1_value(c: dict) -> float:
    precision, recall = precision_value(c), recall_value(c)
    return ratio(2 * precision * recall, precision + recall, empty=0.0)


def positional_rate(c: dict) -> float:
    return ratio(c["matches"], c["longer"], empty=1.0)


def share_of_reference(c: dict) -> float:
    return ratio(c["matches"], c["reference_words"], empty=1.0 if c["hypothesis_words"] == 0 else 0.0)


def ngram_value(c: dict) -> float:
    return ratio(c["matches"], c["reference_ngrams"], empty=1.0 if c["hypothesis_ngrams"] == 0 else 0.0)


def bow_value(c: dict) -> float:
    return ratio(c["differences"], c["denominator"])


def ser_value(c: dict) -> float:
    return ratio(c["error_lines"], c["lines"], empty=0.0)


def ssa_value(c: dict) -> float:
    return ratio(c["score"], c["reference_length"], empty=1.0 if c["hypothesis_length"] == 0 else 0.0)


def teds_value(c: dict) -> float:
    return 1.0 - ratio(c["distance"], c["nodes"], empty=0.0)


def odb_edit_value(c: dict) -> float:
    """OmniDocBench's edit distance over samples: edits over the summed max lengths (a page's
    per-page edit; over pooled counts its ``edit_whole``)."""
    return ratio(c["edits"], c["upper"], empty=0.0)


def odb_teds_value(c: dict) -> float:
    """OmniDocBench's TEDS over tables: their mean (over pooled counts, its TEDS ``all``)."""
    return ratio(c["teds_sum"], c["tables"], empty=0.0)


def odb_cdm_value(c: dict) -> float:
    """OmniDocBench's CDM over display formulas: their mean (a page's value; over pooled counts its CDM ``all``)."""
    return ratio(c["cdm_sum"], c["formulas"], empty=0.0)


def repetition_value(c: dict) -> float:
    return ratio(c["redundant"], c["characters"], empty=0.0)


def checks_passed_value(counts: dict) -> float:
    return ratio(counts["passed"], counts["facts"], empty=1.0)
