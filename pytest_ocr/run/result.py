"""One item's result: what it ran, measured and decided, as every output reads it.

Every result, whatever happened to its item (passed, failed, error, a crashed worker,
filtered, skipped, a case file that could not be loaded), is made by ``make_result``,
which checks it against the report schema: a result that a report could not hold is
a bug caught where it is made, not a report that ``compare`` refuses later.

A result travels from the process that ran its item to the controller as a plain dict
on the pytest report (``to_dict``; it survives pytest-xdist's serialisation), and is
written to reports as a record (``to_record``: the engine's fingerprint replaced by its id,
the scored texts left out).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any, Literal, get_args

import jsonschema_rs

from .. import redaction
from ..codec import decode, encode
from ..engines import fingerprint_id
from ..scoring.facts import FactRecord
from ..scoring.scored import ScoredTexts
from ..scoring.thresholds import Check
from ..scoring.tolerance import ItemComparison
from ..scoring.verdict import reasons
from ..storable import json_safe

# What happened to an item: scored and passed or failed; an error (no output, a crashed
# worker); filtered out or skipped by its case; a case file that could not be loaded.
Outcome = Literal["passed", "failed", "error", "filtered", "skipped", "invalid"]
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)
MEASURED: tuple[Outcome, ...] = ("passed", "failed")  # the outcomes of items whose output was scored
INVALID_FILE_ITEM = "invalid-case-file"  # the case name of a file that could not be loaded


class ResultError(Exception):
    """A result that does not fit the report schema: a bug in pytest-ocr."""


@dataclass(slots=True)  # a run holds one per item: no per-instance __dict__ (1.2 kB each)
class CaseResult:
    key: str  # the item's identity across runs (run/identity.py)
    id: str  # pytest's node id
    case: str
    file: str
    line: int
    engine: str | None  # None for a case file that could not be loaded
    image: str | None  # None when not known (a crashed worker's item, an invalid file)
    outcome: Outcome
    # A PDF case's page that engines read, rasterised at dpi, and the seconds rendering it
    # took if this item rendered it (None: it was there, from another item, process or run);
    # for an image all None, and left out of the record (an image's is as it always was).
    page: int | None = None
    dpi: int | None = None
    rasterise_s: float | None = None
    tags: list[str] = field(default_factory=list)
    group: str | None = None
    reference: str | None = None
    prediction: str | None = None
    confidence: float | None = None
    metrics: dict[str, float | None] = field(default_factory=dict)
    details: dict[str, dict[str, Any]] = field(default_factory=dict)
    thresholds: dict[str, str] = field(default_factory=dict)
    tolerances: dict[str, str] = field(default_factory=dict)  # compared with the baseline: metric -> tolerance
    checks: list[Check] = field(default_factory=list)
    baseline: ItemComparison | None = None
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    fields: dict[str, Any] | None = None
    fields_source: str | None = None
    started: float | None = None  # Unix time the item started, on its own process
    duration_s: float = 0.0
    inference_s: float | None = None  # the engine's time in this run (None: cached, or no output)
    cached: bool = False
    cached_inference_s: float | None = None  # the engine's time when the cached output was made
    fingerprint: dict[str, Any] | None = None  # the engine's; reports keep it once per engine
    # What its verdict depends on besides the engine (image bytes, PDF page, the case as
    # scored): 8 bytes of BLAKE2b in hex (cases/inputs.py); None when its inputs could not be read.
    input_hash: str | None = None
    # A dataset item's own entry (label-file line, ground-truth file, layout file), so that
    # annotations point at the data that failed rather than at the suite's `dataset:` line.
    source_file: str | None = None
    source_line: int | None = None
    # An item recognised several times (scoring/repeats.py): every output, each metric's
    # values and spread, how alike the outputs are; None for one recognition.
    repeats: dict[str, Any] | None = None
    # The verdict of each of the case's checks (facts about the page); None: it has none.
    facts: list[FactRecord] | None = None
    # The texts the text metrics compared, for the HTML report alone (None: not asked for,
    # or none compared); it travels with the result, but is not written to the JSON report.
    scored: ScoredTexts | None = None

    @property
    def measured(self) -> bool:
        return self.outcome in MEASURED

    @property
    def regressed(self) -> bool:
        return self.baseline is not None and self.baseline.regressed

    def reasons(self) -> list[str]:
        """Why the item did not pass, one line each (the same lines everywhere)."""
        if self.outcome == "failed":
            return reasons(self.checks, self.baseline, self.facts or ()) or ["failed"]
        if self.error:
            return [first_line(self.error)]
        return []

    def to_dict(self) -> dict[str, Any]:
        """The result as it travels on a test report (plain data; NaN stays a float)."""
        data = encode(self)
        if self.page is None and self.dpi is None:  # an image's: left out, as before pages were read
            del data["page"], data["dpi"], data["rasterise_s"]
        return data

    def to_record(self) -> dict[str, Any]:
        """The result as a report stores it, the fingerprint by its id (json_safe makes it
        standard JSON)."""
        data = self.to_dict()
        del data["scored"]  # follows from the texts and the steps the report holds
        fingerprint = data.pop("fingerprint")
        data["fingerprint_id"] = _fingerprint_id(fingerprint) if fingerprint else None
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], fingerprints: Mapping[str, dict[str, Any]] | None = None) -> CaseResult:
        """A result from ``to_dict`` or ``to_record`` (``fingerprints``: a report's engines)."""
        result = decode(cls, data)
        if "fingerprint" not in data and fingerprints is not None and data.get("engine") in fingerprints:
            fingerprint = dict(fingerprints[data["engine"]])
            fingerprint.pop("fingerprint_id", None)
            result.fingerprint = fingerprint
        return result


# The last fingerprint hashed, and its id: a run's results share their engine's one
# fingerprint (SharedParts), and hashing it again for every record cost 4 us an item.
# Held here, so its identity cannot pass to another object.
_last_fingerprint: list[Any] = [None, None]


def _fingerprint_id(fingerprint: dict[str, Any]) -> str:
    if fingerprint is not _last_fingerprint[0]:
        _last_fingerprint[:] = [fingerprint, fingerprint_id(fingerprint)]
    return str(_last_fingerprint[1])


def first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0] if lines else ""


@cache
def _validator() -> Any:
    """The report schema's record, for a result as it travels (``to_dict``): the same but
    for the engine's fingerprint, which a report keeps once per engine, by its id.
    jsonschema-rs checks a record in a few microseconds."""
    schema = json.loads(resources.files("pytest_ocr.report").joinpath("report.schema.json").read_text("utf-8"))
    record = schema["$defs"]["result"]
    properties = {k: v for k, v in record["properties"].items() if k != "fingerprint_id"}
    properties["fingerprint"] = {"type": ["object", "null"]}
    required = [("fingerprint" if k == "fingerprint_id" else k) for k in record["required"]]
    schema_of_a_result = {**record, "properties": properties, "required": required, "$defs": schema["$defs"]}
    return jsonschema_rs.validator_for({**schema_of_a_result, "$schema": schema["$schema"]})


def check(result: CaseResult) -> CaseResult:
    """The result, if a report can hold it; raises ResultError otherwise."""
    validator = _validator()
    data = result.to_dict()
    try:
        # NaN and infinities are what JSON cannot hold: the report writes them as null
        valid = validator.is_valid(data) or validator.is_valid(data := json_safe(data))
    except ValueError as exc:  # a value JSON has no type for
        raise ResultError(f"result of {result.id} does not fit the report schema: {exc}") from None
    if not valid:
        error = next(iter(validator.iter_errors(data)))
        raise ResultError(f"result of {result.id} does not fit the report schema: {error.message}")
    return result


def make_result(*, outcome: Outcome, **values: Any) -> CaseResult:
    """The one constructor of results: a CaseResult without the secrets engines registered
    (redaction.py; scored before, on the output as returned), checked against the report schema."""
    result = CaseResult(outcome=outcome, **values)
    if redaction.active():
        data = result.to_dict()
        redacted = redaction.redact(data)
        if redacted is not data:
            result = CaseResult.from_dict(redacted)
    return check(result)


class SharedParts:
    """Equal parts of the results a run keeps, kept once: an engine's fingerprint, a case's
    tags, thresholds and tolerances, a normalisation's steps, equal counts (exact_match's
    are one of two), a metric's details when another item's are equal (exact_match's
    mostly are), a confusion ``[reference, recognized, count]``. Every item of a suite has
    its own copy of them when made (or read from a pytest-xdist worker), and a run keeps
    every result to its end: at 200,000 items, a few hundred bytes each is 100 MB. Nothing
    changes a result's parts once it is kept."""

    def __init__(self) -> None:
        self._fingerprints: dict[str, dict[str, Any]] = {}  # the engine's first one
        self._flat: dict[tuple[Any, ...], Any] = {}
        self._shapes: dict[tuple[Any, ...], tuple[Any, ...]] = {}  # names, then their values' types

    def __call__(self, result: CaseResult) -> CaseResult:
        if result.fingerprint is not None and result.engine is not None:
            first = self._fingerprints.setdefault(result.engine, result.fingerprint)
            if first == result.fingerprint:
                result.fingerprint = first
        result.tags = self._one(result.tags, tuple(result.tags))
        result.thresholds = self._one(result.thresholds, tuple(result.thresholds.items()))
        result.tolerances = self._one(result.tolerances, tuple(result.tolerances.items()))
        for details in result.details.values():
            steps = details.get("normalization")
            if isinstance(steps, list):
                details["normalization"] = self._one(steps, tuple(steps))
            counts = details.get("counts")
            if isinstance(counts, dict):  # 1 and 1.0 are equal, but not the same in a report: the shape has types
                details["counts"] = self._one(counts, self._key(counts, counts.values()))
            confusions = details.get("confusions")
            if isinstance(confusions, list):  # an item's list is its own, the entries are few
                details["confusions"] = [
                    self._one(c, ("confusion", *c, *map(type, c))) if type(c) is list else c for c in confusions
                ]
        result.details = {name: self._details(details) for name, details in result.details.items()}
        return result

    def _details(self, details: dict[str, Any]) -> dict[str, Any]:
        """A metric's details kept once if another item's are equal: those of values and of
        the parts kept once above (by identity: they live as long as this object)."""
        values: list[Any] = []
        for name, value in details.items():
            if name in ("normalization", "counts") and type(value) in (list, dict):
                values.append(id(value))
            elif value is None or type(value) in (str, int, bool):
                values.append(value)
            else:  # a float (0.0 and -0.0 are equal), other lists and mappings: kept as they are
                return details
        return self._one(details, self._key(details, values))

    def _key(self, mapping: dict[str, Any], values: Iterable[Any]) -> tuple[Any, ...]:
        """A small key of a mapping: its names and their values' types once per shape, then the values."""
        shape = (*mapping, *map(type, mapping.values()))
        return (self._shapes.setdefault(shape, shape), *values)

    def _one(self, value: Any, key: tuple[Any, ...]) -> Any:
        return self._flat.setdefault((type(value), key), value)
