"""Metrics by name: what users write in ``thresholds:`` and see in reports.

Every metric's value is a function of a few additive counts (errors and reference
length, hits and word counts, matched and total n-grams ...; values.py). A case records
its counts; the micro average of a run is the same function of the summed counts, so
aggregation needs no metric-specific code and micro WIP or token F1 are exact.

Text metrics compare a reference text with the engine's output. The structured-output
and LLM metrics take their other inputs (expected fields, a JSON Schema, a downstream
task) from ``Structured``; ``MetricInfo.needs`` says which input a metric requires.
This module is the catalogue; prepared.py prepares a pair, the adapters_*.py compute.
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from . import fields, omnidocbench, structured, task, tokens
from .normalize import DEFAULT, Normalization
from .prepared import NEEDS, NO_STRUCTURE, MetricResult, Prepared, Structured
from .values import (
    accuracy,
    bow_value,
    cer_value,
    checks_passed_value,
    f1_value,
    mer_value,
    ned_value,
    ngram_value,
    odb_cdm_value,
    odb_edit_value,
    odb_teds_value,
    positional_rate,
    precision_value,
    ratio,
    recall_value,
    repetition_value,
    ser_value,
    share_of_reference,
    ssa_value,
    teds_value,
    wer_value,
    wip_value,
)

# The version of pytest-ocr's own metric conventions (normalisation, alignment, counts, denominators,
# empty-reference policies): bumped whenever the same inputs would give a different number, and the
# CHANGELOG says so. Values of different versions are never compared (run/comparison.py refuses them).
CONVENTIONS = "1"
# The olmocr release whose olmOCR-Bench code the fact checks reproduce (metrics/facts/, math_check.py;
# tests/test_olmocr_bench.py and tests/test_facts.py hold them to it).
OLMOCR_BENCH = "0.4.27"


@dataclass(frozen=True)
class Scorer:
    """The code that made a metric's values, and its version: two runs' values of a metric are
    only compared when their scorers are equal."""

    name: str  # "pytest-ocr conventions", "olmocr-bench", ...
    version: str

    def __str__(self) -> str:
        return f"{self.name} {self.version}"

    def to_dict(self) -> dict[str, str]:
        return {"scorer": self.name, "version": self.version}

    @classmethod
    def from_dict(cls, data: dict[str, str]) -> Scorer:
        return cls(data["scorer"], data["version"])


PYTEST_OCR = Scorer("pytest-ocr conventions", CONVENTIONS)
OLMOCR = Scorer("olmocr-bench", OLMOCR_BENCH)
# OmniDocBench's end-to-end evaluation (metrics/omnidocbench/, its pinned commit).
OMNIDOCBENCH = Scorer(omnidocbench.SCORER, omnidocbench.VERSION)
FACTS = "facts"  # the case's checks (olmOCR-Bench's facts), which are no metric but are compared like one
# What made the values of a stored run that does not say (a report, a baseline or a history run
# recorded before scorers were): the scorers as of their first versions. Never changed.
FIRST_VERSIONS = {PYTEST_OCR.name: "1", OLMOCR.name: "0.4.27", OMNIDOCBENCH.name: "v1.5@7bd6c2e"}


@dataclass(frozen=True)
class MetricInfo:
    name: str
    better: str  # "lower" or "higher"
    unit: str
    description: str
    compute: Callable[[Prepared], MetricResult]
    from_counts: Callable[[dict], float]
    # The input it requires: "text" (a reference text), "fields" (expected fields),
    # "schema", "task", "checks", "layout" (OmniDocBench ground truth) or "output" (the engine
    # output alone); "a|b" is either.
    needs: str = "text"
    scorer: Scorer = PYTEST_OCR  # the code its values come from, and its version

    def worse_by(self, old: float, new: float) -> float:
        """How much worse ``new`` is than ``old`` in this metric's direction (negative: better).
        The one place a metric's direction is applied."""
        return new - old if self.better == "lower" else old - new

    def improved(self, old: float, new: float) -> bool:
        return self.worse_by(old, new) < 0

    def worst_first(self, value: float) -> float:
        """A sort key that puts the worst values first."""
        return -value if self.better == "lower" else value

    def accepts(self, inputs: Collection[str]) -> bool:
        """Whether a case with these inputs (e.g. {"text", "output", "fields"}) can compute it."""
        return any(need in inputs for need in self.needs.split("|"))


class _Adapter:
    """A metric's computation, imported from its family's module (adapters_<family>.py) when
    first called: a suite scored by CER and WER never imports lxml, jsonschema or tiktoken."""

    __slots__ = ("family", "name", "_compute")

    def __init__(self, family: str, name: str) -> None:
        self.family = family
        self.name = name
        self._compute: Callable[[Prepared], MetricResult] | None = None

    def __call__(self, prepared: Prepared) -> MetricResult:
        if self._compute is None:
            module = importlib.import_module(f"{__package__}.adapters_{self.family}")
            self._compute = module.COMPUTE[self.name]
        return self._compute(prepared)

    def __repr__(self) -> str:
        return f"<{self.name} in adapters_{self.family}>"


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo(
            "cer",
            "lower",
            "character",
            "character error rate: (S+D+I) / reference characters (denominator configurable: ref, max, path)",
            _Adapter("text", "cer"),
            cer_value,
        ),
        MetricInfo(
            "char_accuracy",
            "higher",
            "character",
            "(n - errors) / n, ISRI character accuracy",
            _Adapter("text", "char_accuracy"),
            accuracy,
        ),
        MetricInfo(
            "ned",
            "lower",
            "character",
            "normalised edit distance: edits / longer length",
            _Adapter("text", "ned"),
            ned_value,
        ),
        MetricInfo(
            "ned_similarity",
            "higher",
            "character",
            "1 - ned",
            _Adapter("text", "ned_similarity"),
            lambda c: 1.0 - ned_value(c),
        ),
        MetricInfo(
            "exact_match",
            "higher",
            "case",
            "1 if the normalised texts are identical, else 0",
            _Adapter("text", "exact_match"),
            lambda c: ratio(c["matches"], c["cases"]),
        ),
        MetricInfo(
            "wer", "lower", "word", "word error rate: (S+D+I) / reference words", _Adapter("text", "wer"), wer_value
        ),
        MetricInfo("mer", "lower", "word", "match error rate: (S+D+I) / (H+S+D+I)", _Adapter("text", "mer"), mer_value),
        MetricInfo(
            "wip",
            "higher",
            "word",
            "word information preserved: H/N_ref * H/N_hyp",
            _Adapter("text", "wip"),
            wip_value,
        ),
        MetricInfo(
            "wil",
            "lower",
            "word",
            "word information lost: 1 - wip",
            _Adapter("text", "wil"),
            lambda c: 1.0 - wip_value(c),
        ),
        MetricInfo(
            "token_precision",
            "higher",
            "word",
            "shared words (multiset) / recognized words",
            _Adapter("text", "token_precision"),
            precision_value,
        ),
        MetricInfo(
            "token_recall",
            "higher",
            "word",
            "shared words (multiset) / reference words",
            _Adapter("text", "token_recall"),
            recall_value,
        ),
        MetricInfo(
            "token_f1",
            "higher",
            "word",
            "harmonic mean of token precision and recall",
            _Adapter("text", "token_f1"),
            f1_value,
        ),
        MetricInfo(
            "token_exact_match_rate",
            "higher",
            "word",
            "words equal at the same position / longer word list",
            _Adapter("text", "token_exact_match_rate"),
            positional_rate,
        ),
        MetricInfo(
            "ser",
            "lower",
            "line",
            "line error rate: lines with any error / lines compared",
            _Adapter("text", "ser"),
            ser_value,
        ),
        MetricInfo(
            "lcs_ratio",
            "higher",
            "word",
            "longest common word subsequence / reference words",
            _Adapter("text", "lcs_ratio"),
            share_of_reference,
        ),
        MetricInfo(
            "sequence_accuracy",
            "higher",
            "word",
            "words at the same position / reference words",
            _Adapter("text", "sequence_accuracy"),
            share_of_reference,
        ),
        MetricInfo(
            "bigram_overlap",
            "higher",
            "word",
            "shared word bigrams / reference bigrams",
            _Adapter("text", "bigram_overlap"),
            ngram_value,
        ),
        MetricInfo(
            "trigram_overlap",
            "higher",
            "word",
            "shared word trigrams / reference trigrams",
            _Adapter("text", "trigram_overlap"),
            ngram_value,
        ),
        MetricInfo(
            "bow_error",
            "lower",
            "word",
            "bag-of-words error (order-independent WER, ocrevalUAtion)",
            _Adapter("text", "bow_error"),
            bow_value,
        ),
        MetricInfo(
            "fca",
            "higher",
            "character",
            "flexible character accuracy (Clausner et al. 2020), reading-order independent",
            _Adapter("text", "fca"),
            accuracy,
        ),
        MetricInfo(
            "ssa",
            "higher",
            "character",
            "structural sequence accuracy: (matches - whitespace edits) / reference characters, whitespace kept",
            _Adapter("text", "ssa"),
            ssa_value,
        ),
        MetricInfo(
            "teds",
            "higher",
            "node",
            "tree-edit-distance similarity of the tables, Markdown or HTML (PubTabNet): 1 - distance / nodes",
            _Adapter("tables", "teds"),
            teds_value,
        ),
        MetricInfo(
            "teds_struct",
            "higher",
            "node",
            "TEDS of the tables' structure alone (tags, rows, cells and spans; cell text ignored)",
            _Adapter("tables", "teds_struct"),
            teds_value,
        ),
        MetricInfo(
            "field_precision",
            "higher",
            "field",
            "correct fields / extracted fields",
            _Adapter("output", "field_precision"),
            fields.precision,
            needs="fields",
        ),
        MetricInfo(
            "field_recall",
            "higher",
            "field",
            "correct fields / expected fields",
            _Adapter("output", "field_recall"),
            fields.recall,
            needs="fields",
        ),
        MetricInfo(
            "field_f1",
            "higher",
            "field",
            "harmonic mean of field precision and recall",
            _Adapter("output", "field_f1"),
            fields.f1,
            needs="fields",
        ),
        MetricInfo(
            "field_completeness",
            "higher",
            "field",
            "required key paths present / required key paths (required by the schema, else the expected fields)",
            _Adapter("output", "field_completeness"),
            fields.completeness_value,
            needs="fields|schema",
        ),
        MetricInfo(
            "json_valid",
            "higher",
            "output",
            "1 if the output (or its code fence) parses as JSON, else 0",
            _Adapter("output", "json_valid"),
            structured.valid_rate,
            needs="output",
        ),
        MetricInfo(
            "schema_valid",
            "higher",
            "output",
            "1 if the output's JSON satisfies the JSON Schema, else 0",
            _Adapter("output", "schema_valid"),
            structured.valid_rate,
            needs="schema",
        ),
        MetricInfo(
            "xml_valid",
            "higher",
            "output",
            "1 if the output (or its code fence) is well-formed XML, else 0",
            _Adapter("output", "xml_valid"),
            structured.valid_rate,
            needs="output",
        ),
        MetricInfo(
            "repetition",
            "lower",
            "character",
            "share of the output that a repetition loop at its end repeats (0 without a loop)",
            _Adapter("output", "repetition"),
            repetition_value,
            needs="output",
        ),
        MetricInfo(
            "total_tokens",
            "lower",
            "token",
            "tokens of the raw output (tiktoken)",
            _Adapter("output", "total_tokens"),
            tokens.per_output("tokens"),
            needs="output",
        ),
        MetricInfo(
            "meaningful_tokens",
            "lower",
            "token",
            "tokens left after dropping repeated lines and a repetition loop and collapsing whitespace",
            _Adapter("output", "meaningful_tokens"),
            tokens.per_output("tokens"),
            needs="output",
        ),
        MetricInfo(
            "token_density",
            "higher",
            "token",
            "meaningful tokens / total tokens",
            _Adapter("output", "token_density"),
            tokens.token_density,
            needs="output",
        ),
        MetricInfo(
            "compression_ratio",
            "higher",
            "token",
            "tokens with whitespace collapsed / total tokens",
            _Adapter("output", "compression_ratio"),
            tokens.compression_ratio,
            needs="output",
        ),
        MetricInfo(
            "chars_per_token",
            "higher",
            "token",
            "output characters / total tokens",
            _Adapter("output", "chars_per_token"),
            tokens.chars_per_token,
            needs="output",
        ),
        MetricInfo(
            "estimated_cost_usd",
            "lower",
            "token",
            "total tokens / 1000 * price_per_1k (USD)",
            _Adapter("output", "estimated_cost_usd"),
            tokens.per_output("cost_usd"),
            needs="output",
        ),
        MetricInfo(
            "task_success",
            "higher",
            "task",
            "1 if the downstream task reached its minimum quality, else 0",
            _Adapter("output", "task_success"),
            task.success_rate,
            needs="task",
        ),
        MetricInfo(
            "task_quality",
            "higher",
            "task",
            "the downstream task's quality (share of fields right; 1 or 0 for an answer or a label)",
            _Adapter("output", "task_quality"),
            task.mean_quality,
            needs="task",
        ),
        MetricInfo(
            "checks_passed",
            "higher",
            "fact",
            "share of the case's checks (facts about the page) that hold",
            _Adapter("output", "checks_passed"),
            checks_passed_value,
            needs="checks",
            scorer=OLMOCR,
        ),
        MetricInfo(
            "odb_text_edit",
            "lower",
            "character",
            "OmniDocBench v1.5 edit distance of the page's text (its blocks matched to the output's paragraphs, "
            "after its cleaning): edits / summed max lengths",
            _Adapter("omnidocbench", "odb_text_edit"),
            odb_edit_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
        MetricInfo(
            "odb_formula_edit",
            "lower",
            "character",
            "OmniDocBench v1.5 edit distance of the page's display formulas (normalised LaTeX): edits / max lengths",
            _Adapter("omnidocbench", "odb_formula_edit"),
            odb_edit_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
        MetricInfo(
            "odb_table_edit",
            "lower",
            "character",
            "OmniDocBench v1.5 edit distance of the page's tables (normalised HTML): edits / summed max lengths",
            _Adapter("omnidocbench", "odb_table_edit"),
            odb_edit_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
        MetricInfo(
            "odb_reading_order_edit",
            "lower",
            "character",
            "OmniDocBench v1.5 edit distance of the page's reading order (the matched blocks' ground-truth "
            "positions in output order): edits / max length",
            _Adapter("omnidocbench", "odb_reading_order_edit"),
            odb_edit_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
        MetricInfo(
            "odb_table_teds",
            "higher",
            "table",
            "TEDS of the page's tables (OmniDocBench v1.5: matched to the ground truth's, mean over them)",
            _Adapter("omnidocbench", "odb_table_teds"),
            odb_teds_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
        MetricInfo(
            "odb_table_teds_struct",
            "higher",
            "table",
            "TEDS of the page's tables' structure alone (OmniDocBench v1.5's TEDS_structure_only)",
            _Adapter("omnidocbench", "odb_table_teds_struct"),
            odb_teds_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
        MetricInfo(
            "odb_formula_cdm",
            "higher",
            "formula",
            "OmniDocBench v1.5 CDM of the page's display formulas (rendered, tokens matched by position): their "
            "mean F1; not a default (xelatex, Ghostscript and Node.js, about 1.5 CPU-s a formula)",
            _Adapter("omnidocbench", "odb_formula_cdm"),
            odb_cdm_value,
            needs="layout",
            scorer=OMNIDOCBENCH,
        ),
    )
}

DEFAULT_METRICS = ("cer", "wer", "ned", "exact_match")
# Metrics of a page's tables alone: a page without tables on either side scores 1.0.
TABLE_METRICS = ("teds", "teds_struct")
FIELD_METRICS = ("field_precision", "field_recall", "field_f1")
# OmniDocBench's end-to-end metrics, each from the one scoring of a page (adapters_omnidocbench.py).
OMNIDOCBENCH_DEFAULTS = (
    "odb_text_edit",
    "odb_formula_edit",
    "odb_table_teds",
    "odb_table_teds_struct",
    "odb_table_edit",
    "odb_reading_order_edit",
)
# and CDM, which a case asks for (metrics: [odb_formula_cdm]): it renders every formula
OMNIDOCBENCH_METRICS = (*OMNIDOCBENCH_DEFAULTS, "odb_formula_cdm")
# What every case with such an input gets, whether or not it asks.
DEFAULTS_BY_INPUT = {
    "text": DEFAULT_METRICS,
    "fields": FIELD_METRICS,
    "schema": ("json_valid", "schema_valid", "field_completeness"),
    "task": ("task_success", "task_quality"),
    "checks": ("checks_passed",),
    "layout": OMNIDOCBENCH_DEFAULTS,
}


def metrics_for(inputs: Collection[str], requested: Iterable[str] = ()) -> list[str]:
    """The metrics a case with these inputs (``text``, ``fields``, ``schema``, ``task``)
    computes: the defaults of each input it has, then those it asks for by name, in order,
    once each. The one place that decides which metrics apply to a case."""
    return list(_metrics_for(frozenset(inputs), tuple(requested)))


@functools.lru_cache(maxsize=256)  # asked once per item; a suite's cases ask a few different ways
def _metrics_for(inputs: frozenset[str], requested: tuple[str, ...]) -> tuple[str, ...]:
    names = [name for given in DEFAULTS_BY_INPUT if given in inputs for name in DEFAULTS_BY_INPUT[given]]
    return tuple(dict.fromkeys([*names, *requested]))


def scorer_of(name: str) -> Scorer:
    """The scorer of a metric (or of the case's checks, ``facts``) as this installation computes it."""
    return OLMOCR if name == FACTS else METRICS[name].scorer


def scorers_of(names: Iterable[str]) -> dict[str, Scorer]:
    """Each named metric's (and ``facts``') scorer as this installation computes it, sorted by name."""
    return {name: scorer_of(name) for name in sorted(set(names)) if name == FACTS or name in METRICS}


def first_scorers(names: Iterable[str]) -> dict[str, Scorer]:
    """The scorers of a stored run that does not record them: each metric's scorer at its first version."""
    return {name: Scorer(s.name, FIRST_VERSIONS.get(s.name, s.version)) for name, s in scorers_of(names).items()}


def pooled(name: str, counts: dict[str, float]) -> float:
    """A metric's value over pooled (summed) counts: its micro average."""
    return METRICS[name].from_counts(counts)


def unknown_metrics(names: Iterable[str]) -> list[str]:
    return [n for n in names if n not in METRICS]


@functools.lru_cache(maxsize=256)  # asked once per item with the same few combinations
def _lacking(names: tuple[str, ...], inputs: frozenset[str]) -> tuple[str, ...]:
    """What each of the metrics ``names`` needs and ``inputs`` does not give, one line each."""
    return tuple(f"{name} needs {NEEDS[METRICS[name].needs]}" for name in names if not METRICS[name].accepts(inputs))


def score(
    reference: str,
    hypothesis: str,
    names: Iterable[str] = DEFAULT_METRICS,
    normalize: Normalization = DEFAULT,
    cer_denominator: str = "ref",
    structured: Structured | None = None,
    max_align_chars: int | None = None,
    empty_reference_value: str = "one",
    *,
    normalization: Normalization | None = None,
) -> dict[str, MetricResult]:
    """Compute the named metrics for one reference/hypothesis pair; ``structured``
    carries the other inputs of the structured-output and LLM metrics.

    Texts longer than ``max_align_chars`` (None: ``limits.active().max_align_chars``)
    take the cheaper alignment path; a value computed that way says so in its details
    (``alignment``). ``empty_reference_value`` is what cer and wer are for an empty
    reference and a non-empty hypothesis: ``one`` (1.0), ``errors`` (the error count, as
    jiwer gives) or ``infinity`` (as dinglehopper gives)."""
    if normalization is not None:  # the keyword's name before 0.2, as cer() and case files call it normalize
        warnings.warn("score(normalization=...) is now score(normalize=...)", DeprecationWarning, stacklevel=2)
        normalize = normalization
    if isinstance(names, str):  # "cer" is one metric, not three letters
        names = [names]
    names = list(names)
    unknown = unknown_metrics(names)
    if unknown:
        raise KeyError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(sorted(METRICS))}")
    lacking = _lacking(tuple(names), frozenset({"text"} | (structured or NO_STRUCTURE).inputs()))
    if lacking:
        raise ValueError("; ".join(lacking) + ", and none was given")
    prepared = Prepared(
        reference, hypothesis, normalize, cer_denominator, structured, max_align_chars, empty_reference_value
    )
    return {name: METRICS[name].compute(prepared) for name in names}
