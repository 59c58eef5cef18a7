"""Metrics by name: what users write in ``thresholds:`` and see in reports.

Every metric's value is a function of a few additive counts (errors and reference
length, hits and word counts, matched and total n-grams ...). A case records its
counts; the micro average of a run is the same function of the summed counts, so
aggregation needs no metric-specific code and micro WIP or token F1 are exact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from rapidfuzz.distance import Levenshtein

from . import layout, lines, words
from .edit import ErrorCounts, align_counts, confusions
from .fca import flexible_character_accuracy
from .normalize import DEFAULT, Normalization

CER_DENOMINATORS = ("ref", "max", "path")
TOP_CONFUSIONS = 50  # per case, in the report


def ratio(numerator: float, denominator: float, *, empty: float | None = None) -> float:
    """numerator / denominator; when the denominator is 0 the value is ``empty`` if
    given, else 0.0 for a zero numerator and 1.0 otherwise (the empty-reference policy)."""
    if denominator:
        return numerator / denominator
    if empty is not None:
        return empty
    return 0.0 if numerator == 0 else 1.0


@dataclass(frozen=True)
class MetricResult:
    value: float
    counts: dict[str, float]
    details: dict = field(default_factory=dict)


class Prepared:
    """A reference/hypothesis pair, normalised once; alignments and word lists are
    computed on demand and shared by the metrics that need them."""

    def __init__(
        self,
        reference: str,
        hypothesis: str,
        normalization: Normalization = DEFAULT,
        cer_denominator: str = "ref",
    ):
        if cer_denominator not in CER_DENOMINATORS:
            raise ValueError(f"cer_denominator must be one of {', '.join(CER_DENOMINATORS)}, not {cer_denominator!r}")
        self.raw_reference = reference
        self.raw_hypothesis = hypothesis
        self.normalization = normalization
        self.cer_denominator = cer_denominator
        self.reference = normalization(reference)
        self.hypothesis = normalization(hypothesis)

    @cached_property
    def ref_units(self):
        return self.normalization.units(self.reference)

    @cached_property
    def hyp_units(self):
        return self.normalization.units(self.hypothesis)

    @cached_property
    def char_editops(self):
        return Levenshtein.editops(self.ref_units, self.hyp_units)

    @cached_property
    def chars(self) -> ErrorCounts:
        return align_counts(self.ref_units, self.hyp_units, self.normalization.unit, self.char_editops)

    @cached_property
    def ref_words(self) -> list[str]:
        return self.reference.split()

    @cached_property
    def hyp_words(self) -> list[str]:
        return self.hypothesis.split()

    @cached_property
    def words(self) -> ErrorCounts:
        return align_counts(self.ref_words, self.hyp_words, "word")

    @cached_property
    def ref_lines(self) -> list[str]:
        return lines.text_lines(self.raw_reference, self.normalization)

    @cached_property
    def hyp_lines(self) -> list[str]:
        return lines.text_lines(self.raw_hypothesis, self.normalization)

    def details(self, unit: str, empty_reference: bool, **more) -> dict:
        """What every metric records: unit, normalisation steps, and whether the
        empty-reference policy decided the value."""
        return {"unit": unit, "normalization": self.normalization.steps(), "empty_reference": empty_reference, **more}


@dataclass(frozen=True)
class MetricInfo:
    name: str
    better: str  # "lower" or "higher"
    unit: str
    description: str
    compute: Callable[[Prepared], MetricResult]
    from_counts: Callable[[dict], float]

    def improved(self, old: float, new: float) -> bool:
        return new < old if self.better == "lower" else new > old


# -- character level --------------------------------------------------------------------


def _alignment_details(c: ErrorCounts) -> dict:
    return {
        "substitutions": c.substitutions,
        "deletions": c.deletions,
        "insertions": c.insertions,
        "hits": c.hits,
        "reference_length": c.reference_length,
        "hypothesis_length": c.hypothesis_length,
    }


def _cer(p: Prepared) -> MetricResult:
    c = p.chars
    denominator = {
        "ref": c.reference_length,
        "max": max(c.reference_length, c.hypothesis_length),
        "path": c.errors + c.hits,
    }[p.cer_denominator]
    counts = {"errors": c.errors, "denominator": denominator}
    table = confusions(p.ref_units, p.hyp_units, p.char_editops)
    top = [[r, h, n] for (r, h), n in sorted(table.items(), key=lambda item: (-item[1], item[0]))[:TOP_CONFUSIONS]]
    return MetricResult(
        _cer_value(counts),
        counts,
        p.details(c.unit, c.reference_length == 0, denominator=p.cer_denominator, **_alignment_details(c),
                  confusions=top),
    )


def _cer_value(counts: dict) -> float:
    return ratio(counts["errors"], counts["denominator"])


def _char_accuracy(p: Prepared) -> MetricResult:
    c = p.chars
    counts = {"correct": c.reference_length - c.errors, "total": c.reference_length}
    return MetricResult(_accuracy(counts), counts, p.details(c.unit, c.reference_length == 0, **_alignment_details(c)))


def _accuracy(counts: dict) -> float:
    return ratio(counts["correct"], counts["total"], empty=1.0 if counts["correct"] == 0 else 0.0)


def _ned_counts(p: Prepared) -> dict:
    c = p.chars
    return {"distance": c.errors, "longer": max(c.reference_length, c.hypothesis_length)}


def _ned(p: Prepared) -> MetricResult:
    counts = _ned_counts(p)
    return MetricResult(_ned_value(counts), counts, p.details(p.chars.unit, p.chars.reference_length == 0))


def _ned_value(counts: dict) -> float:
    return ratio(counts["distance"], counts["longer"], empty=0.0)


def _ned_similarity(p: Prepared) -> MetricResult:
    counts = _ned_counts(p)
    return MetricResult(1.0 - _ned_value(counts), counts, p.details(p.chars.unit, p.chars.reference_length == 0))


def _exact_match(p: Prepared) -> MetricResult:
    counts = {"matches": 1.0 if p.reference == p.hypothesis else 0.0, "cases": 1}
    return MetricResult(counts["matches"], counts, p.details("case", not p.reference))


# -- word level ---------------------------------------------------------------------------


def _word_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        w = p.words
        counts = {
            "hits": w.hits,
            "substitutions": w.substitutions,
            "deletions": w.deletions,
            "insertions": w.insertions,
        }
        return MetricResult(value(counts), counts, p.details("word", w.reference_length == 0, **_alignment_details(w)))

    return compute


def _wer_value(c: dict) -> float:
    errors = c["substitutions"] + c["deletions"] + c["insertions"]
    return ratio(errors, c["hits"] + c["substitutions"] + c["deletions"])


def _mer_value(c: dict) -> float:
    errors = c["substitutions"] + c["deletions"] + c["insertions"]
    return ratio(errors, c["hits"] + errors)


def _wip_value(c: dict) -> float:
    # Same edge cases as jiwer: empty reference and hypothesis preserve everything,
    # an empty side on its own preserves nothing.
    reference_words = c["hits"] + c["substitutions"] + c["deletions"]
    hypothesis_words = c["hits"] + c["substitutions"] + c["insertions"]
    if reference_words == 0:
        return 1.0 if hypothesis_words == 0 else 0.0
    if hypothesis_words == 0:
        return 0.0
    return (c["hits"] / reference_words) * (c["hits"] / hypothesis_words)


def _token_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts = {
            "matched": words.bag_matches(p.ref_words, p.hyp_words),
            "reference_tokens": len(p.ref_words),
            "hypothesis_tokens": len(p.hyp_words),
        }
        return MetricResult(value(counts), counts, p.details("word", not p.ref_words))

    return compute


def _precision(c: dict) -> float:
    return ratio(c["matched"], c["hypothesis_tokens"], empty=1.0 if c["reference_tokens"] == 0 else 0.0)


def _recall(c: dict) -> float:
    return ratio(c["matched"], c["reference_tokens"], empty=1.0 if c["hypothesis_tokens"] == 0 else 0.0)


def _f1(c: dict) -> float:
    precision, recall = _precision(c), _recall(c)
    return ratio(2 * precision * recall, precision + recall, empty=0.0)


def _token_exact_match_rate(p: Prepared) -> MetricResult:
    counts = {
        "matches": words.positional_matches(p.ref_words, p.hyp_words),
        "longer": max(len(p.ref_words), len(p.hyp_words)),
    }
    return MetricResult(_positional_rate(counts), counts, p.details("word", not p.ref_words))


def _positional_rate(c: dict) -> float:
    return ratio(c["matches"], c["longer"], empty=1.0)


def _over_reference_words(count: Callable[[list, list], int]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts = {
            "matches": count(p.ref_words, p.hyp_words),
            "reference_words": len(p.ref_words),
            "hypothesis_words": len(p.hyp_words),
        }
        return MetricResult(_share_of_reference(counts), counts, p.details("word", not p.ref_words))

    return compute


def _share_of_reference(c: dict) -> float:
    return ratio(c["matches"], c["reference_words"], empty=1.0 if c["hypothesis_words"] == 0 else 0.0)


def _ngram_overlap(n: int) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        matched, reference, hypothesis = words.ngram_matches(p.ref_words, p.hyp_words, n)
        counts = {"matches": matched, "reference_ngrams": reference, "hypothesis_ngrams": hypothesis}
        return MetricResult(_ngram_value(counts), counts, p.details(f"word {n}-gram", reference == 0))

    return compute


def _ngram_value(c: dict) -> float:
    return ratio(c["matches"], c["reference_ngrams"], empty=1.0 if c["hypothesis_ngrams"] == 0 else 0.0)


def _bow_error(p: Prepared) -> MetricResult:
    counts = {"differences": words.bag_differences(p.ref_words, p.hyp_words), "denominator": 2 * len(p.ref_words)}
    return MetricResult(_bow_value(counts), counts, p.details("word", not p.ref_words))


def _bow_value(c: dict) -> float:
    return ratio(c["differences"], c["denominator"])


# -- lines, reading order, layout ------------------------------------------------------------


def _ser(p: Prepared) -> MetricResult:
    errors, total = lines.line_errors(p.ref_lines, p.hyp_lines)
    counts = {"error_lines": len(errors), "lines": total}
    return MetricResult(
        _ser_value(counts), counts,
        p.details("line", not p.ref_lines, error_indices=errors, reference_lines=len(p.ref_lines),
                  hypothesis_lines=len(p.hyp_lines)),
    )


def _ser_value(c: dict) -> float:
    return ratio(c["error_lines"], c["lines"], empty=0.0)


def _fca(p: Prepared) -> MetricResult:
    result = flexible_character_accuracy("\n".join(p.ref_lines), "\n".join(p.hyp_lines))
    counts = {"correct": result.reference_length - result.errors, "total": result.reference_length}
    return MetricResult(
        _accuracy(counts), counts,
        p.details("codepoint", result.reference_length == 0, errors=result.errors,
                  reference_length=result.reference_length),
    )


def _ssa(p: Prepared) -> MetricResult:
    layout_normalization = p.normalization.without_whitespace_collapse()
    reference = layout_normalization(p.raw_reference)
    hypothesis = layout_normalization(p.raw_hypothesis)
    hits, penalty = layout.ssa_counts(reference, hypothesis)
    counts = {"score": max(0, hits - penalty), "reference_length": len(reference),
              "hypothesis_length": len(hypothesis)}
    return MetricResult(
        _ssa_value(counts), counts,
        p.details("codepoint", not reference, hits=hits, whitespace_penalty=penalty,
                  normalization_for_layout=layout_normalization.steps()),
    )


def _ssa_value(c: dict) -> float:
    return ratio(c["score"], c["reference_length"], empty=1.0 if c["hypothesis_length"] == 0 else 0.0)


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo("cer", "lower", "character", "character error rate: (S+D+I) / reference characters "
                "(denominator configurable: ref, max, path)", _cer, _cer_value),
        MetricInfo("char_accuracy", "higher", "character", "(n - errors) / n, ISRI character accuracy",
                _char_accuracy, _accuracy),
        MetricInfo("ned", "lower", "character", "normalised edit distance: edits / longer length", _ned, _ned_value),
        MetricInfo("ned_similarity", "higher", "character", "1 - ned", _ned_similarity,
                lambda c: 1.0 - _ned_value(c)),
        MetricInfo("exact_match", "higher", "case", "1 if the normalised texts are identical, else 0",
                _exact_match, lambda c: ratio(c["matches"], c["cases"])),
        MetricInfo("wer", "lower", "word", "word error rate: (S+D+I) / reference words", _word_metric(_wer_value),
                _wer_value),
        MetricInfo("mer", "lower", "word", "match error rate: (S+D+I) / (H+S+D+I)", _word_metric(_mer_value),
                _mer_value),
        MetricInfo("wip", "higher", "word", "word information preserved: H/N_ref * H/N_hyp", _word_metric(_wip_value),
                _wip_value),
        MetricInfo("wil", "lower", "word", "word information lost: 1 - wip",
                _word_metric(lambda c: 1.0 - _wip_value(c)), lambda c: 1.0 - _wip_value(c)),
        MetricInfo("token_precision", "higher", "word", "shared words (multiset) / recognized words",
                _token_metric(_precision), _precision),
        MetricInfo("token_recall", "higher", "word", "shared words (multiset) / reference words",
                _token_metric(_recall), _recall),
        MetricInfo("token_f1", "higher", "word", "harmonic mean of token precision and recall",
                _token_metric(_f1), _f1),
        MetricInfo("token_exact_match_rate", "higher", "word", "words equal at the same position / longer word list",
                _token_exact_match_rate, _positional_rate),
        MetricInfo("ser", "lower", "line", "line error rate: lines with any error / lines compared", _ser, _ser_value),
        MetricInfo("lcs_ratio", "higher", "word", "longest common word subsequence / reference words",
                _over_reference_words(words.lcs_length), _share_of_reference),
        MetricInfo("sequence_accuracy", "higher", "word", "words at the same position / reference words",
                _over_reference_words(words.positional_matches), _share_of_reference),
        MetricInfo("bigram_overlap", "higher", "word", "shared word bigrams / reference bigrams", _ngram_overlap(2),
                _ngram_value),
        MetricInfo("trigram_overlap", "higher", "word", "shared word trigrams / reference trigrams", _ngram_overlap(3),
                _ngram_value),
        MetricInfo("bow_error", "lower", "word", "bag-of-words error (order-independent WER, ocrevalUAtion)",
                _bow_error, _bow_value),
        MetricInfo("fca", "higher", "character", "flexible character accuracy (Clausner et al. 2020), reading-order "
                "independent", _fca, _accuracy),
        MetricInfo("ssa", "higher", "character", "structural sequence accuracy: (matches - whitespace edits) / "
                "reference characters, whitespace kept", _ssa, _ssa_value),
    )
}

DEFAULT_METRICS = ("cer", "wer", "ned", "exact_match")


def pooled(name: str, counts: dict[str, float]) -> float:
    """A metric's value over pooled (summed) counts: its micro average."""
    return METRICS[name].from_counts(counts)


def unknown_metrics(names: Iterable[str]) -> list[str]:
    return [n for n in names if n not in METRICS]


def score(
    reference: str,
    hypothesis: str,
    names: Iterable[str] = DEFAULT_METRICS,
    normalization: Normalization = DEFAULT,
    cer_denominator: str = "ref",
) -> dict[str, MetricResult]:
    """Compute the named metrics for one reference/hypothesis pair."""
    names = list(names)
    unknown = unknown_metrics(names)
    if unknown:
        raise KeyError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(sorted(METRICS))}")
    prepared = Prepared(reference, hypothesis, normalization, cer_denominator)
    return {name: METRICS[name].compute(prepared) for name in names}
