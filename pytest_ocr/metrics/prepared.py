"""A reference/hypothesis pair prepared for scoring, with the case's other inputs.

``Prepared`` normalises the pair once and computes on demand what several metrics share
(alignments, word lists, lines, tables, parsed output); ``Structured`` carries the inputs
of the structured-output and LLM metrics. The catalogue (registry.py) names the metrics,
the adapters (adapters_*.py) turn a ``Prepared`` pair into each metric's result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TypeVar

from .. import limits
from . import fields, lines, structured, task, tokens
from .align import Alignment, align
from .align import max_align_chars as resolve_limit
from .edit import ErrorCounts, check_empty_reference_value, error_counts, error_rate
from .normalize import DEFAULT, Normalization

if TYPE_CHECKING:  # imported where used: the tables' parsers and the facts' bs4 are a family of their own
    from . import teds
    from .facts import FactVerdict
    from .omnidocbench.page import PageScores

CER_DENOMINATORS = ("ref", "max", "path")
MAX_LISTED = 1000  # entries of a list in details (error_indices) when a text is longer than max_align_chars


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
    layout: dict | None = None  # one page of OmniDocBench ground truth

    def __post_init__(self) -> None:
        fields.parse_field_match(self.field_match)
        tokens.check_price(self.price_per_1k)
        if not isinstance(self.encoding, str):
            raise ValueError(f"encoding must be a tiktoken encoding name, not {self.encoding!r}")
        if self.task is not None:
            task.check_task(self.task)

    def inputs(self) -> set[str]:
        """The inputs present besides the output itself (see MetricInfo.needs)."""
        given = {
            "fields": self.expected_fields,
            "schema": self.schema,
            "task": self.task,
            "checks": self.facts,
            "layout": self.layout,
        }
        return {"output"} | {name for name, value in given.items() if value is not None}


NO_STRUCTURE = Structured()

_T = TypeVar("_T")


@dataclass(frozen=True)
class MetricResult:
    value: float | None  # None: the metric does not apply (details say why: ``not_applicable``)
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
        from . import teds

        return teds.find_tables(self.raw_reference, teds.max_table_nodes(None))

    @cached_property
    def hyp_tables(self) -> list[teds.Table]:
        from . import teds

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

    @cached_property
    def omnidocbench(self) -> PageScores:
        """The page scored by OmniDocBench's end-to-end method, once for all its metrics."""
        from .omnidocbench.page import score_page

        layout = self._need("layout", self.structured.layout)
        return score_page(layout, self.raw_hypothesis, max_match_work=limits.active().max_match_work)

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


NEEDS = {
    "text": "a reference text",
    "fields": "expected fields (Structured.expected_fields)",
    "schema": "a JSON Schema (Structured.schema)",
    "fields|schema": "expected fields or a JSON Schema (Structured.expected_fields or .schema)",
    "task": "a downstream task (Structured.task)",
    "checks": "facts to check (Structured.facts)",
    "layout": "a page of OmniDocBench ground truth (Structured.layout)",
    "output": "the engine output",
}
