"""Metrics by name: what users write in ``thresholds:`` and see in reports.

Every metric's value is a function of a few additive counts (errors and reference
length, hits and word counts, matched and total n-grams ...). A case records its
counts; the micro average of a run is the same function of the summed counts, so
aggregation needs no metric-specific code and micro WIP or token F1 are exact.

Text metrics compare a reference text with the engine's output. The structured-output
and LLM metrics take their other inputs (expected fields, a JSON Schema, a downstream
task) from ``Structured``; ``MetricInfo.needs`` says which input a metric requires.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

from . import fields, layout, lines, repetition, structured, task, teds, tokens, words
from .align import Alignment, align
from .align import max_align_chars as resolve_limit
from .edit import ErrorCounts, check_empty_reference_value, confusion_table, error_counts, error_rate
from .facts import FactVerdict
from .fca import fca_max_chars, flexible_character_accuracy
from .normalize import DEFAULT, Normalization

CER_DENOMINATORS = ("ref", "max", "path")
TOP_CONFUSIONS = 50  # per case, in the report
MAX_LISTED = 1000  # entries of a list in details (error_indices) when a text is longer than max_align_chars


def ratio(numerator: float, denominator: float, *, empty: float | None = None) -> float:
    """numerator / denominator; when the denominator is 0 the value is ``empty`` if
    given, else 0.0 for a zero numerator and 1.0 otherwise (the empty-reference policy)."""
    if denominator:
        return numerator / denominator
    if empty is not None:
        return empty
    return 0.0 if numerator == 0 else 1.0


@dataclass(frozen=True)
class Structured:
    """The inputs of a case besides its reference text.

    ``expected_fields``: key fields as written in the case (may be nested);
    ``extracted_fields``: what was got from the engine (None: nothing could be);
    ``field_match``: flattened key path -> matcher spec (``numeric``, ``{type: date, ...}``);
    ``schema``: a JSON Schema for the output; ``task``: a downstream task (see task.py);
    ``encoding`` and ``price_per_1k``: tokenizer and USD price per 1000 tokens;
    ``facts``: the verdicts of the case's checks on this output (scoring/facts.py runs
    them: a math fact needs a browser, which a pure function cannot own).
    """

    expected_fields: dict | None = None
    extracted_fields: dict | None = None
    field_match: dict = field(default_factory=dict)
    schema: dict | None = None
    task: dict | None = None
    encoding: str = tokens.DEFAULT_ENCODING
    price_per_1k: float = tokens.DEFAULT_PRICE_PER_1K
    facts: tuple[FactVerdict, ...] | None = None

    def __post_init__(self) -> None:
        fields.parse_field_match(self.field_match)
        tokens.check_price(self.price_per_1k)
        if not isinstance(self.encoding, str):
            raise ValueError(f"encoding must be a tiktoken encoding name, not {self.encoding!r}")
        if self.task is not None:
            task.check_task(self.task)

    def inputs(self) -> set[str]:
        """The inputs present besides the output itself (see MetricInfo.needs)."""
        given = {"fields": self.expected_fields, "schema": self.schema, "task": self.task, "checks": self.facts}
        return {"output"} | {name for name, value in given.items() if value is not None}


NO_STRUCTURE = Structured()

_T = TypeVar("_T")


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
        structured: Structured | None = None,
        max_align_chars: int | None = None,
        empty_reference_value: str = "one",
    ):
        if cer_denominator not in CER_DENOMINATORS:
            raise ValueError(f"cer_denominator must be one of {', '.join(CER_DENOMINATORS)}, not {cer_denominator!r}")
        check_empty_reference_value(empty_reference_value)  # here, before any metric runs
        self.empty_reference_value = empty_reference_value
        self.raw_reference = reference
        self.raw_hypothesis = hypothesis
        self.normalization = normalization
        self.cer_denominator = cer_denominator
        self.reference = normalization(reference)
        self.hypothesis = normalization(hypothesis)
        self.structured = NO_STRUCTURE if structured is None else structured
        # Longer sequences take the cheaper alignment path (align.py); fixed per pair.
        self.max_align_chars = resolve_limit(max_align_chars)

    @cached_property
    def steps(self) -> list[str]:
        """The normalisation's steps, one list that every metric's details of this pair share."""
        return self.normalization.steps()

    @cached_property
    def ref_units(self) -> str | list[str]:
        return self.normalization.units(self.reference)

    @cached_property
    def hyp_units(self) -> str | list[str]:
        return self.normalization.units(self.hypothesis)

    @cached_property
    def char_alignment(self) -> Alignment:
        return align(self.ref_units, self.hyp_units, self.max_align_chars, keep=True)

    @cached_property
    def chars(self) -> ErrorCounts:
        return error_counts(self.char_alignment, self.normalization.unit)

    @cached_property
    def ref_words(self) -> list[str]:
        return self.reference.split()

    @cached_property
    def hyp_words(self) -> list[str]:
        return self.hypothesis.split()

    @cached_property
    def words(self) -> ErrorCounts:
        return error_counts(align(self.ref_words, self.hyp_words, self.max_align_chars), "word")

    @property
    def long(self) -> bool:
        """Either text is longer than ``max_align_chars``: lists in details are cut short."""
        return max(len(self.raw_reference), len(self.raw_hypothesis)) > self.max_align_chars

    @cached_property
    def ref_lines(self) -> list[str]:
        return lines.text_lines(self.raw_reference, self.normalization)

    @cached_property
    def hyp_lines(self) -> list[str]:
        return lines.text_lines(self.raw_hypothesis, self.normalization)

    # Tables are found in the raw texts: normalising would rewrite their markup.

    @cached_property
    def ref_tables(self) -> list[teds.Table]:
        return teds.find_tables(self.raw_reference, teds.max_table_nodes(None))

    @cached_property
    def hyp_tables(self) -> list[teds.Table]:
        return teds.find_tables(self.raw_hypothesis, teds.max_table_nodes(None))

    # Structured-output metrics read the raw output: normalising would rewrite JSON.

    @cached_property
    def json_output(self) -> structured.JsonOutput:
        return structured.parse_json_output(self.raw_hypothesis)

    @cached_property
    def xml_output(self) -> structured.XmlOutput:
        return structured.parse_xml_output(self.raw_hypothesis)

    @cached_property
    def schema_check(self) -> structured.SchemaCheck:
        schema = self._need("schema", self.structured.schema)
        return structured.validate_output(self.json_output, schema, MAX_LISTED if self.long else None)

    @cached_property
    def field_scores(self) -> fields.FieldScores:
        s = self.structured
        return fields.field_scores(self._need("fields", s.expected_fields), s.extracted_fields, s.field_match)

    @cached_property
    def completeness(self) -> fields.Completeness:
        s = self.structured
        if s.schema is None and s.expected_fields is None:
            self._need("fields|schema", None)
        return fields.completeness(s.extracted_fields, s.schema, s.expected_fields)

    @cached_property
    def token_counts(self) -> tokens.TokenCounts:
        s = self.structured
        return tokens.count_tokens(self.raw_hypothesis, s.encoding, s.price_per_1k, self.max_align_chars)

    @cached_property
    def task_outcome(self) -> task.TaskOutcome:
        return task.evaluate_task(self._need("task", self.structured.task), self.structured.field_match)

    @staticmethod
    def _need(what: str, value: _T | None) -> _T:
        if value is None:
            raise ValueError(f"this metric needs {NEEDS[what]}, and none was given")
        return value

    def rate(self, value: float, errors: float, denominator: float) -> float:
        """An error rate's value under the empty-reference convention (cer, wer)."""
        return value if denominator else error_rate(errors, 0, self.empty_reference_value)

    def details(self, unit: str, empty_reference: bool, **more: object) -> dict:
        """What every metric records: unit, normalisation steps, and whether the
        empty-reference policy decided the value."""
        return {"unit": unit, "normalization": self.steps, "empty_reference": empty_reference, **more}


@dataclass(frozen=True)
class MetricInfo:
    name: str
    better: str  # "lower" or "higher"
    unit: str
    description: str
    compute: Callable[[Prepared], MetricResult]
    from_counts: Callable[[dict], float]
    # The input it requires: "text" (a reference text), "fields" (expected fields),
    # "schema", "task" or "output" (the engine output alone); "a|b" is either.
    needs: str = "text"

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


NEEDS = {
    "text": "a reference text",
    "fields": "expected fields (Structured.expected_fields)",
    "schema": "a JSON Schema (Structured.schema)",
    "fields|schema": "expected fields or a JSON Schema (Structured.expected_fields or .schema)",
    "task": "a downstream task (Structured.task)",
    "checks": "facts to check (Structured.facts)",
    "output": "the engine output",
}


def _checks_passed(p: Prepared) -> MetricResult:
    verdicts = p._need("checks", p.structured.facts)
    counts: dict[str, float] = {"passed": sum(v.passed for v in verdicts), "facts": len(verdicts)}
    return MetricResult(_checks_passed_value(counts), counts, {"unit": "fact"})


def _checks_passed_value(counts: dict) -> float:
    return ratio(counts["passed"], counts["facts"], empty=1.0)


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
        p.rate(_cer_value(counts), counts["errors"], counts["denominator"]),
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


def _cer_value(counts: dict) -> float:
    return ratio(counts["errors"], counts["denominator"])


def _char_accuracy(p: Prepared) -> MetricResult:
    c = p.chars
    counts: dict[str, float] = {"correct": c.reference_length - c.errors, "total": c.reference_length}
    return MetricResult(_accuracy(counts), counts, p.details(c.unit, c.reference_length == 0, **_alignment_details(c)))


def _accuracy(counts: dict) -> float:
    return ratio(counts["correct"], counts["total"], empty=1.0 if counts["correct"] == 0 else 0.0)


def _ned_counts(p: Prepared) -> dict:
    c = p.chars
    return {"distance": c.errors, "longer": max(c.reference_length, c.hypothesis_length)}


def _ned_details(p: Prepared) -> dict:
    c = p.chars
    return p.details(c.unit, c.reference_length == 0, **_approximation(c.approximate, c.lower_bound))


def _ned(p: Prepared) -> MetricResult:
    counts = _ned_counts(p)
    return MetricResult(_ned_value(counts), counts, _ned_details(p))


def _ned_value(counts: dict) -> float:
    return ratio(counts["distance"], counts["longer"], empty=0.0)


def _ned_similarity(p: Prepared) -> MetricResult:
    counts = _ned_counts(p)
    return MetricResult(1.0 - _ned_value(counts), counts, _ned_details(p))


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
        p.rate(_wer_value(counts), w.errors, w.reference_length),
        counts,
        p.details(
            "word", w.reference_length == 0, empty_reference_value=p.empty_reference_value, **_alignment_details(w)
        ),
    )


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
        counts: dict[str, float] = {
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
    counts: dict[str, float] = {
        "matches": words.positional_matches(p.ref_words, p.hyp_words),
        "longer": max(len(p.ref_words), len(p.hyp_words)),
    }
    return MetricResult(_positional_rate(counts), counts, p.details("word", not p.ref_words))


def _positional_rate(c: dict) -> float:
    return ratio(c["matches"], c["longer"], empty=1.0)


def _over_reference_words(count: Callable[[list, list], int]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts: dict[str, float] = {
            "matches": count(p.ref_words, p.hyp_words),
            "reference_words": len(p.ref_words),
            "hypothesis_words": len(p.hyp_words),
        }
        return MetricResult(_share_of_reference(counts), counts, p.details("word", not p.ref_words))

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
    return MetricResult(_share_of_reference(counts), counts, p.details("word", not ref, **more))


def _share_of_reference(c: dict) -> float:
    return ratio(c["matches"], c["reference_words"], empty=1.0 if c["hypothesis_words"] == 0 else 0.0)


def _ngram_overlap(n: int) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        matched, reference, hypothesis = words.ngram_matches(p.ref_words, p.hyp_words, n)
        counts: dict[str, float] = {"matches": matched, "reference_ngrams": reference, "hypothesis_ngrams": hypothesis}
        return MetricResult(_ngram_value(counts), counts, p.details(f"word {n}-gram", reference == 0))

    return compute


def _ngram_value(c: dict) -> float:
    return ratio(c["matches"], c["reference_ngrams"], empty=1.0 if c["hypothesis_ngrams"] == 0 else 0.0)


def _bow_error(p: Prepared) -> MetricResult:
    counts: dict[str, float] = {
        "differences": words.bag_differences(p.ref_words, p.hyp_words),
        "denominator": 2 * len(p.ref_words),
    }
    return MetricResult(_bow_value(counts), counts, p.details("word", not p.ref_words))


def _bow_value(c: dict) -> float:
    return ratio(c["differences"], c["denominator"])


# -- lines, reading order, layout ------------------------------------------------------------


def _ser(p: Prepared) -> MetricResult:
    errors, total = lines.line_errors(p.ref_lines, p.hyp_lines)
    counts: dict[str, float] = {"error_lines": len(errors), "lines": total}
    more: dict = {}
    if p.long and len(errors) > MAX_LISTED:
        more = {"error_indices_listed": MAX_LISTED}
        errors = errors[:MAX_LISTED]
    return MetricResult(
        _ser_value(counts),
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


def _ser_value(c: dict) -> float:
    return ratio(c["error_lines"], c["lines"], empty=0.0)


def _fca(p: Prepared) -> MetricResult:
    result = flexible_character_accuracy(
        "\n".join(p.ref_lines), "\n".join(p.hyp_lines), fca_max_chars(p.max_align_chars), p.max_align_chars
    )
    counts: dict[str, float] = {"correct": result.reference_length - result.errors, "total": result.reference_length}
    more = _approximation(result.approximate, result.lower_bound)
    return MetricResult(
        _accuracy(counts),
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
        _ssa_value(counts),
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


def _ssa_value(c: dict) -> float:
    return ratio(c["score"], c["reference_length"], empty=1.0 if c["hypothesis_length"] == 0 else 0.0)


# -- tables --------------------------------------------------------------------------------------


def _teds_metric(structure_only: bool) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        page = teds.score_tables(
            p.ref_tables,
            p.hyp_tables,
            structure_only,
            None if structure_only else p.normalization,  # on each piece of a cell's text
            teds.max_table_nodes(None),
            p.max_align_chars,
        )
        more: dict[str, object] = {
            "structure_only": structure_only,
            "reference_tables": page.reference_tables,
            "hypothesis_tables": page.hypothesis_tables,
        }
        counts: dict[str, float] = {"distance": page.distance, "nodes": page.nodes}
        listed = page.pairs[:MAX_LISTED]
        more["tables"] = [
            {
                "reference_line": None if t.reference is None else p.ref_tables[t.reference].line,
                "hypothesis_line": None if t.hypothesis is None else p.hyp_tables[t.hypothesis].line,
                "distance": t.distance,
                "nodes": t.nodes,
                "teds": t.teds,
                "compared": t.compared,
            }
            for t in listed
        ]
        if len(listed) < len(page.pairs):
            more["tables_listed"] = len(listed)
        if page.not_compared:  # pairs beyond the bounds, counted as all wrong: the item warns
            more.update(not_compared=list(page.not_compared), warnings=list(page.not_compared))
        return MetricResult(_teds_value(counts), counts, p.details("node", not p.ref_tables, **more))

    return compute


def _teds_value(c: dict) -> float:
    return 1.0 - ratio(c["distance"], c["nodes"], empty=0.0)


# -- structured output and LLM integration ---------------------------------------------------


def _field_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        f = p.field_scores
        counts: dict[str, float] = dict(f.counts)
        return MetricResult(value(counts), counts, {"unit": "field", **f.details()})

    return compute


def _completeness(p: Prepared) -> MetricResult:
    c = p.completeness
    counts: dict[str, float] = dict(c.counts)
    return MetricResult(fields.completeness_value(counts), counts, {"unit": "field", **c.details()})


def _validity(check: Callable[[Prepared], tuple[bool, dict]]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        valid, details = check(p)
        counts: dict[str, float] = {"valid": 1 if valid else 0, "outputs": 1}
        return MetricResult(structured.valid_rate(counts), counts, {"unit": "output", **details})

    return compute


def _json_valid(p: Prepared) -> tuple[bool, dict]:
    return p.json_output.valid, {"parsing_error": p.json_output.error, "fenced": p.json_output.fenced}


def _schema_valid(p: Prepared) -> tuple[bool, dict]:
    return p.schema_check.valid, p.schema_check.details()


def _xml_valid(p: Prepared) -> tuple[bool, dict]:
    return p.xml_output.valid, {"parsing_error": p.xml_output.error, "fenced": p.xml_output.fenced}


def _repetition(p: Prepared) -> MetricResult:
    loop = repetition.find_repetition(p.raw_hypothesis)
    counts: dict[str, float] = {
        "redundant": loop.redundant_chars if loop else 0,
        "characters": len(p.raw_hypothesis.rstrip()),
    }
    details: dict[str, object] = {"unit": "codepoint"}
    if loop:
        details.update(loop_unit=loop.unit, repeats=loop.repeats, start=loop.start)
    return MetricResult(_repetition_value(counts), counts, details)


def _repetition_value(c: dict) -> float:
    return ratio(c["redundant"], c["characters"], empty=0.0)


def _token_counts(t: tokens.TokenCounts) -> dict[str, dict]:
    return {
        "total_tokens": {"tokens": t.total, "outputs": 1},
        "meaningful_tokens": {"tokens": t.meaningful, "outputs": 1},
        "token_density": {"meaningful_tokens": t.meaningful, "total_tokens": t.total},
        "compression_ratio": {"cleaned_tokens": t.cleaned, "total_tokens": t.total},
        "chars_per_token": {"characters": t.characters, "total_tokens": t.total},
        "estimated_cost_usd": {"cost_usd": t.cost_usd, "outputs": 1},
    }


def _tokenizer_metric(name: str, value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        counts = _token_counts(p.token_counts)[name]
        return MetricResult(value(counts), counts, {"unit": "token", **p.token_counts.details()})

    return compute


def _task_metric(value: Callable[[dict], float]) -> Callable[[Prepared], MetricResult]:
    def compute(p: Prepared) -> MetricResult:
        outcome = p.task_outcome
        counts: dict[str, float] = {"successes": 1 if outcome.success else 0, "quality": outcome.quality, "tasks": 1}
        return MetricResult(value(counts), counts, {"unit": "task", **outcome.details()})

    return compute


METRICS: dict[str, MetricInfo] = {
    m.name: m
    for m in (
        MetricInfo(
            "cer",
            "lower",
            "character",
            "character error rate: (S+D+I) / reference characters (denominator configurable: ref, max, path)",
            _cer,
            _cer_value,
        ),
        MetricInfo(
            "char_accuracy",
            "higher",
            "character",
            "(n - errors) / n, ISRI character accuracy",
            _char_accuracy,
            _accuracy,
        ),
        MetricInfo("ned", "lower", "character", "normalised edit distance: edits / longer length", _ned, _ned_value),
        MetricInfo("ned_similarity", "higher", "character", "1 - ned", _ned_similarity, lambda c: 1.0 - _ned_value(c)),
        MetricInfo(
            "exact_match",
            "higher",
            "case",
            "1 if the normalised texts are identical, else 0",
            _exact_match,
            lambda c: ratio(c["matches"], c["cases"]),
        ),
        MetricInfo("wer", "lower", "word", "word error rate: (S+D+I) / reference words", _wer, _wer_value),
        MetricInfo(
            "mer", "lower", "word", "match error rate: (S+D+I) / (H+S+D+I)", _word_metric(_mer_value), _mer_value
        ),
        MetricInfo(
            "wip",
            "higher",
            "word",
            "word information preserved: H/N_ref * H/N_hyp",
            _word_metric(_wip_value),
            _wip_value,
        ),
        MetricInfo(
            "wil",
            "lower",
            "word",
            "word information lost: 1 - wip",
            _word_metric(lambda c: 1.0 - _wip_value(c)),
            lambda c: 1.0 - _wip_value(c),
        ),
        MetricInfo(
            "token_precision",
            "higher",
            "word",
            "shared words (multiset) / recognized words",
            _token_metric(_precision),
            _precision,
        ),
        MetricInfo(
            "token_recall",
            "higher",
            "word",
            "shared words (multiset) / reference words",
            _token_metric(_recall),
            _recall,
        ),
        MetricInfo(
            "token_f1", "higher", "word", "harmonic mean of token precision and recall", _token_metric(_f1), _f1
        ),
        MetricInfo(
            "token_exact_match_rate",
            "higher",
            "word",
            "words equal at the same position / longer word list",
            _token_exact_match_rate,
            _positional_rate,
        ),
        MetricInfo("ser", "lower", "line", "line error rate: lines with any error / lines compared", _ser, _ser_value),
        MetricInfo(
            "lcs_ratio",
            "higher",
            "word",
            "longest common word subsequence / reference words",
            _lcs_ratio,
            _share_of_reference,
        ),
        MetricInfo(
            "sequence_accuracy",
            "higher",
            "word",
            "words at the same position / reference words",
            _over_reference_words(words.positional_matches),
            _share_of_reference,
        ),
        MetricInfo(
            "bigram_overlap",
            "higher",
            "word",
            "shared word bigrams / reference bigrams",
            _ngram_overlap(2),
            _ngram_value,
        ),
        MetricInfo(
            "trigram_overlap",
            "higher",
            "word",
            "shared word trigrams / reference trigrams",
            _ngram_overlap(3),
            _ngram_value,
        ),
        MetricInfo(
            "bow_error",
            "lower",
            "word",
            "bag-of-words error (order-independent WER, ocrevalUAtion)",
            _bow_error,
            _bow_value,
        ),
        MetricInfo(
            "fca",
            "higher",
            "character",
            "flexible character accuracy (Clausner et al. 2020), reading-order independent",
            _fca,
            _accuracy,
        ),
        MetricInfo(
            "ssa",
            "higher",
            "character",
            "structural sequence accuracy: (matches - whitespace edits) / reference characters, whitespace kept",
            _ssa,
            _ssa_value,
        ),
        MetricInfo(
            "teds",
            "higher",
            "node",
            "tree-edit-distance similarity of the tables, Markdown or HTML (PubTabNet): 1 - distance / nodes",
            _teds_metric(False),
            _teds_value,
        ),
        MetricInfo(
            "teds_struct",
            "higher",
            "node",
            "TEDS of the tables' structure alone (tags, rows, cells and spans; cell text ignored)",
            _teds_metric(True),
            _teds_value,
        ),
        MetricInfo(
            "field_precision",
            "higher",
            "field",
            "correct fields / extracted fields",
            _field_metric(fields.precision),
            fields.precision,
            needs="fields",
        ),
        MetricInfo(
            "field_recall",
            "higher",
            "field",
            "correct fields / expected fields",
            _field_metric(fields.recall),
            fields.recall,
            needs="fields",
        ),
        MetricInfo(
            "field_f1",
            "higher",
            "field",
            "harmonic mean of field precision and recall",
            _field_metric(fields.f1),
            fields.f1,
            needs="fields",
        ),
        MetricInfo(
            "field_completeness",
            "higher",
            "field",
            "required key paths present / required key paths (required by the schema, else the expected fields)",
            _completeness,
            fields.completeness_value,
            needs="fields|schema",
        ),
        MetricInfo(
            "json_valid",
            "higher",
            "output",
            "1 if the output (or its code fence) parses as JSON, else 0",
            _validity(_json_valid),
            structured.valid_rate,
            needs="output",
        ),
        MetricInfo(
            "schema_valid",
            "higher",
            "output",
            "1 if the output's JSON satisfies the JSON Schema, else 0",
            _validity(_schema_valid),
            structured.valid_rate,
            needs="schema",
        ),
        MetricInfo(
            "xml_valid",
            "higher",
            "output",
            "1 if the output (or its code fence) is well-formed XML, else 0",
            _validity(_xml_valid),
            structured.valid_rate,
            needs="output",
        ),
        MetricInfo(
            "repetition",
            "lower",
            "character",
            "share of the output that a repetition loop at its end repeats (0 without a loop)",
            _repetition,
            _repetition_value,
            needs="output",
        ),
        MetricInfo(
            "total_tokens",
            "lower",
            "token",
            "tokens of the raw output (tiktoken)",
            _tokenizer_metric("total_tokens", tokens.per_output("tokens")),
            tokens.per_output("tokens"),
            needs="output",
        ),
        MetricInfo(
            "meaningful_tokens",
            "lower",
            "token",
            "tokens left after dropping repeated lines and a repetition loop and collapsing whitespace",
            _tokenizer_metric("meaningful_tokens", tokens.per_output("tokens")),
            tokens.per_output("tokens"),
            needs="output",
        ),
        MetricInfo(
            "token_density",
            "higher",
            "token",
            "meaningful tokens / total tokens",
            _tokenizer_metric("token_density", tokens.token_density),
            tokens.token_density,
            needs="output",
        ),
        MetricInfo(
            "compression_ratio",
            "higher",
            "token",
            "tokens with whitespace collapsed / total tokens",
            _tokenizer_metric("compression_ratio", tokens.compression_ratio),
            tokens.compression_ratio,
            needs="output",
        ),
        MetricInfo(
            "chars_per_token",
            "higher",
            "token",
            "output characters / total tokens",
            _tokenizer_metric("chars_per_token", tokens.chars_per_token),
            tokens.chars_per_token,
            needs="output",
        ),
        MetricInfo(
            "estimated_cost_usd",
            "lower",
            "token",
            "total tokens / 1000 * price_per_1k (USD)",
            _tokenizer_metric("estimated_cost_usd", tokens.per_output("cost_usd")),
            tokens.per_output("cost_usd"),
            needs="output",
        ),
        MetricInfo(
            "task_success",
            "higher",
            "task",
            "1 if the downstream task reached its minimum quality, else 0",
            _task_metric(task.success_rate),
            task.success_rate,
            needs="task",
        ),
        MetricInfo(
            "task_quality",
            "higher",
            "task",
            "the downstream task's quality (share of fields right; 1 or 0 for an answer or a label)",
            _task_metric(task.mean_quality),
            task.mean_quality,
            needs="task",
        ),
        MetricInfo(
            "checks_passed",
            "higher",
            "fact",
            "share of the case's checks (facts about the page) that hold",
            _checks_passed,
            _checks_passed_value,
            needs="checks",
        ),
    )
}

DEFAULT_METRICS = ("cer", "wer", "ned", "exact_match")
# Metrics of a page's tables alone: a page without tables on either side scores 1.0.
TABLE_METRICS = ("teds", "teds_struct")
FIELD_METRICS = ("field_precision", "field_recall", "field_f1")
# What every case with such an input gets, whether or not it asks.
DEFAULTS_BY_INPUT = {
    "text": DEFAULT_METRICS,
    "fields": FIELD_METRICS,
    "schema": ("json_valid", "schema_valid", "field_completeness"),
    "task": ("task_success", "task_quality"),
    "checks": ("checks_passed",),
}


def metrics_for(inputs: Collection[str], requested: Iterable[str] = ()) -> list[str]:
    """The metrics a case with these inputs (``text``, ``fields``, ``schema``, ``task``)
    computes: the defaults of each input it has, then those it asks for by name, in order,
    once each. The one place that decides which metrics apply to a case."""
    names = [name for given in DEFAULTS_BY_INPUT if given in inputs for name in DEFAULTS_BY_INPUT[given]]
    return list(dict.fromkeys([*names, *requested]))


def pooled(name: str, counts: dict[str, float]) -> float:
    """A metric's value over pooled (summed) counts: its micro average."""
    return METRICS[name].from_counts(counts)


def unknown_metrics(names: Iterable[str]) -> list[str]:
    return [n for n in names if n not in METRICS]


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
    inputs = {"text"} | (structured or NO_STRUCTURE).inputs()
    lacking = [f"{name} needs {NEEDS[METRICS[name].needs]}" for name in names if not METRICS[name].accepts(inputs)]
    if lacking:
        raise ValueError("; ".join(lacking) + ", and none was given")
    prepared = Prepared(
        reference, hypothesis, normalize, cer_denominator, structured, max_align_chars, empty_reference_value
    )
    return {name: METRICS[name].compute(prepared) for name in names}
