"""The text metrics' computations: characters, words, lines, reading order and layout.

Each turns a ``Prepared`` pair into its ``MetricResult`` (value, counts, details); the
catalogue (registry.py) finds them by name in ``COMPUTE``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import layout, lines, words
from .align import align
from .edit import ErrorCounts, confusion_table
from .fca import fca_max_chars, flexible_character_accuracy
from .prepared import MAX_LISTED, MetricResult, Prepared
from .values import (
    accuracy,
    bow_value,
    cer_value,
    f1_value,
    mer_value,
    ned_value,
    ngram_value,
    positional_rate,
    precision_value,
    recall_value,
    ser_value,
    share_of_reference,
    ssa_value,
    wer_value,
    wip_value,
)

TOP_CONFUSIONS = 50  # per case, in the report


# -- character level --------------------------------------------------------------------


def _approximation(approximate: str | None, lower_bound: int | None) -> dict:
    """What the details add when the cheaper alignment path was taken: ``alignment``
    says how, ``distance_lower_bound`` bounds the edit distance from below (the value's
    edit count is an upper bound)."""
    if approximate is None:
        return {}
    return {"alignment": approximate, "distance_lower_bound": lower_bound}


def _alignment_details(c: ErrorCounts) -> dict:
    return {
        "substitutions": c.substitutions,
        "deletions": c.deletions,
        "insertions": c.insertions,
        "hits": c.hits,
        "reference_length": c.reference_length,
        "hypothesis_length": c.hypothesis_length,
        **_approximation(c.approximate, c.lower_bound),
    }


def _cer(p: Prepared) -> MetricResult:
    c = p.chars
    denominator = {
        "ref": c.reference_length,
        "max": max(c.reference_length, c.hypothesis_length),
        "path": c.errors + c.hits,
    }[p.cer_denominator]
    counts: dict[str, float] = {"errors": c.errors, "denominator": denominator}
    table = confusion_table(p.char_alignment)
    top = [[r, h, n] for (r, h), n in sorted(table.items(), key=lambda item: (-item[1], item[0]))[:TOP_CONFUSIONS]]
    return MetricResult(
        p.rate(cer_value(counts), counts["errors"], counts["denominator"]),
        counts,
        p.details(
            c.unit,
            c.reference_length == 0,
            denominator=p.cer_denominator,
            empty_reference_value=p.empty_reference_value,
            **_alignment_details(c),
            confusions=top,
        ),
    )


def _char_accuracy(p: Prepared) -> MetricResult:
    c = p.chars
    counts: dict[str, float] = {"correct": c.reference_length - c.errors, "total": c.reference_length}
    return MetricResult(accuracy(counts), counts, p.details(c.unit, c.reference_length == 0, **_alignment_details(c)))


def _ned_counts(p: Prepared) -> dict:
    c = p.chars
    return {"distance": c.errors, "longer": max(c.reference_length, c.hypothesis_length)}


def _ned_details(p: Prepared) -> dict:
    c = p.chars
    return p.details(c.unit, c.reference_length == 0, **_approximation(c.approximate, c.lower_bound))


def _ned(p: Prepared) -> MetricResult:
    counts = _ned_counts(p)
    return MetricResult(ned_value(counts), counts, _ned_details(p))


def _ned_similarity(p: Prepared) -> MetricResult:
    counts = _ned_counts(p)
    return MetricResult(1.0 - ned_value(counts), counts, _ned_details(p))


def _exact_match(p: Prepared) -> MetricResult:
    counts = {"matches": 1.0 if p.reference == p.hypothesis else 0.0, "cases": 1}
    return MetricResult(counts["matches"], counts, p.details("case", not p.reference))


# -- word level ---------------------------------------------------------------------------


def _word_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        w = p.words
        counts = _word_counts(p)
        return MetricResult(value(counts), counts, p.details("word", w.reference_length == 0, **_alignment_details(w)))

    return compute


def _word_counts(p: Prepared) -> dict[str, float]:
    w = p.words
    return {"hits": w.hits, "substitutions": w.substitutions, "deletions": w.deletions, "insertions": w.insertions}


def _wer(p: Prepared) -> MetricResult:
    w = p.words
    counts = _word_counts(p)
    return MetricResult(
        p.rate(wer_value(counts), w.errors, w.reference_length),
        counts,
        p.details(
            "word", w.reference_length == 0, empty_reference_value=p.empty_reference_value, **_alignment_details(w)
        ),
    )


def _token_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts: dict[str, float] = {
            "matched": words.bag_matches(p.ref_words, p.hyp_words),
            "reference_tokens": len(p.ref_words),
            "hypothesis_tokens": len(p.hyp_words),
        }
        return MetricResult(value(counts), counts, p.details("word", not p.ref_words))

    return compute


def _token_exact_match_rate(p: Prepared) -> MetricResult:
    counts: dict[str, float] = {
        "matches": words.positional_matches(p.ref_words, p.hyp_words),
        "longer": max(len(p.ref_words), len(p.hyp_words)),
    }
    return MetricResult(positional_rate(counts), counts, p.details("word", not p.ref_words))


def _over_reference_words(count: Callable[[list, list], int]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts: dict[str, float] = {
            "matches": count(p.ref_words, p.hyp_words),
            "reference_words": len(p.ref_words),
            "hypothesis_words": len(p.hyp_words),
        }
        return MetricResult(share_of_reference(counts), counts, p.details("word", not p.ref_words))

    return compute


def _lcs_ratio(p: Prepared) -> MetricResult:
    ref, hyp = p.ref_words, p.hyp_words
    more: dict = {}
    if max(len(ref), len(hyp)) <= p.max_align_chars:
        matches = words.lcs_length(ref, hyp)
    else:  # the matches of the windowed alignment: a common subsequence, so a lower bound
        alignment = align(ref, hyp, p.max_align_chars, indel=True)
        matches = alignment.hits
        more = {"alignment": alignment.approximate, "lcs_upper_bound": words.bag_matches(ref, hyp)}
    counts: dict[str, float] = {"matches": matches, "reference_words": len(ref), "hypothesis_words": len(hyp)}
    return MetricResult(share_of_reference(counts), counts, p.details("word", not ref, **more))


def _ngram_overlap(n: int) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        matched, reference, hypothesis = words.ngram_matches(p.ref_words, p.hyp_words, n)
        counts: dict[str, float] = {"matches": matched, "reference_ngrams": reference, "hypothesis_ngrams": hypothesis}
        return MetricResult(ngram_value(counts), counts, p.details(f"word {n}-gram", reference == 0))

    return compute


def _bow_error(p: Prepared) -> MetricResult:
    counts: dict[str, float] = {
        "differences": words.bag_differences(p.ref_words, p.hyp_words),
        "denominator": 2 * len(p.ref_words),
    }
    return MetricResult(bow_value(counts), counts, p.details("word", not p.ref_words))


# -- lines, reading order, layout ------------------------------------------------------------


def _ser(p: Prepared) -> MetricResult:
    errors, total = lines.line_errors(p.ref_lines, p.hyp_lines)
    counts: dict[str, float] = {"error_lines": len(errors), "lines": total}
    more: dict = {}
    if p.long and len(errors) > MAX_LISTED:
        more = {"error_indices_listed": MAX_LISTED}
        errors = errors[:MAX_LISTED]
    return MetricResult(
        ser_value(counts),
        counts,
        p.details(
            "line",
            not p.ref_lines,
            error_indices=errors,
            reference_lines=len(p.ref_lines),
            hypothesis_lines=len(p.hyp_lines),
            **more,
        ),
    )


def _fca(p: Prepared) -> MetricResult:
    result = flexible_character_accuracy(
        "\n".join(p.ref_lines), "\n".join(p.hyp_lines), fca_max_chars(p.max_align_chars), p.max_align_chars
    )
    counts: dict[str, float] = {"correct": result.reference_length - result.errors, "total": result.reference_length}
    more = _approximation(result.approximate, result.lower_bound)
    return MetricResult(
        accuracy(counts),
        counts,
        p.details(
            "codepoint",
            result.reference_length == 0,
            errors=result.errors,
            substitutions=result.substitutions,
            deletions=result.deletions,
            insertions=result.insertions,
            reference_length=result.reference_length,
            **more,
        ),
    )


def _ssa(p: Prepared) -> MetricResult:
    layout_normalization = p.normalization.keeping_layout()
    reference = layout_normalization(p.raw_reference)
    hypothesis = layout_normalization(p.raw_hypothesis)
    ssa = layout.ssa(reference, hypothesis, p.max_align_chars)
    hits, penalty = ssa.hits, ssa.penalty
    counts: dict[str, float] = {
        "score": max(0, hits - penalty),
        "reference_length": len(reference),
        "hypothesis_length": len(hypothesis),
    }
    return MetricResult(
        ssa_value(counts),
        counts,
        p.details(
            "codepoint",
            not reference,
            hits=hits,
            whitespace_penalty=penalty,
            normalization_for_layout=layout_normalization.steps(),
            **_approximation(ssa.approximate, ssa.lower_bound),
        ),
    )


COMPUTE: dict[str, Callable[[Prepared], MetricResult]] = {
    "cer": _cer,
    "char_accuracy": _char_accuracy,
    "ned": _ned,
    "ned_similarity": _ned_similarity,
    "exact_match": _exact_match,
    "wer": _wer,
    "mer": _word_metric(mer_value),
    "wip": _word_metric(wip_value),
    "wil": _word_metric(lambda c: 1.0 - wip_value(c)),
    "token_precision": _token_metric(precision_value),
    "token_recall": _token_metric(recall_value),
    "token_f1": _token_metric(f1_value),
    "token_exact_match_rate": _token_exact_match_rate,
    "ser": _ser,
    "lcs_ratio": _lcs_ratio,
    "sequence_accuracy": _over_reference_words(words.positional_matches),
    "bigram_overlap": _ngram_overlap(2),
    "trigram_overlap": _ngram_overlap(3),
    "bow_error": _bow_error,
    "fca": _fca,
    "ssa": _ssa,
}
