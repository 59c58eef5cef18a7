"""The cases as the page's script reads them: one JSON object per item, with the
alignment of its texts, the texts the metrics compared, its confusions and its field check."""

from __future__ import annotations

from ...metrics import FIELD_METRICS
from ...metrics.align import iter_opcodes
from ...run.result import CaseResult
from ...scoring.scored import recorded_steps
from ..markdown_view import markdown_tree

# Per-case values as the JSON report records them; the page adds the diff, the
# confusions, the field check and the thumbnail (the rest of `details` stays out).
CASE_KEYS = (
    "id",
    "case",
    "file",
    "line",
    "engine",
    "image",
    "facts",  # the verdict of each check, None without checks
    "page",  # a PDF's: the page engines read, and its dpi (None for an image)
    "dpi",
    "tags",
    "group",
    "outcome",
    "reference",
    "prediction",
    "confidence",
    "metrics",
    "thresholds",
    "checks",
    "error",
    "duration_s",
    "inference_s",
    "cached",
    "fields",
    "fields_source",
    "warnings",
    "baseline",
    "source_file",  # a dataset item's own entry (label-file line, ground-truth file): None elsewhere
    "source_line",
)
DIFF_KINDS = {"equal": 0, "replace": 1, "delete": 2, "insert": 3}


def diff_ops(reference: str, prediction: str) -> list[int]:
    """The character alignment as flat triples (kind, reference length, prediction
    length), kind 0 equal, 1 substituted, 2 deleted, 3 inserted; lengths in code points.
    Texts beyond ``--ocr-max-align-chars`` take the metrics' bounded path, so a hostile
    output costs the report no more than it cost the scoring."""
    ops: list[int] = []
    for tag, i1, i2, j1, j2 in iter_opcodes(reference, prediction):
        ops += (DIFF_KINDS[tag], i2 - i1, j2 - j1)
    return ops


def scored_view(result: CaseResult) -> dict | None:
    """What the metrics compared, as the page shows it: ``{"same": true}`` when normalising
    changed neither text, else both texts after it (a side null when it is the text as
    given: the page has that already) and their alignment. None when there is none."""
    scored = result.scored
    if scored is None or result.reference is None or result.prediction is None:
        return None
    if scored.reference is None and scored.prediction is None:
        return {"same": True}
    return {
        "reference": scored.reference,
        "prediction": scored.prediction,
        "diff": diff_ops(
            result.reference if scored.reference is None else scored.reference,
            result.prediction if scored.prediction is None else scored.prediction,
        ),
    }


def _fields_check(details: dict) -> dict | None:
    """Missing, incorrect (with both values) and extra key fields, from the field metrics' details."""
    scored = next((details[m] for m in FIELD_METRICS if m in details), None)
    absent = details.get("field_completeness", {}).get("absent_fields", [])
    if scored is None and not absent:
        return None
    scored = scored or {}
    return {
        "missing": scored.get("missing_fields", []),
        "incorrect": scored.get("mismatches", {}),
        "extra": scored.get("extra_fields", []),
        "absent": absent,
    }


def case_data(result: CaseResult, thumb: int | None, thumb_error: str | None, change: str | None = None) -> dict:
    data = {key: getattr(result, key) for key in CASE_KEYS}
    data["facts"] = None if result.facts is None else [f.to_dict() for f in result.facts]
    data["checks"] = [c.to_dict() for c in result.checks]
    data["baseline"] = None if result.baseline is None else result.baseline.to_dict()
    reference, prediction, details = result.reference, result.prediction, result.details
    cer = details.get("cer", {})
    data["diff"] = diff_ops(reference, prediction) if reference is not None and prediction is not None else None
    # No reference to compare with (a page checked by facts): the output itself, rendered, failed facts marked.
    spans = [f.spans for f in result.facts or ()]
    data["output"] = markdown_tree(prediction, spans) if reference is None and prediction is not None else None
    data["scored"] = scored_view(result)
    data["normalization"] = recorded_steps(details)
    data["change"] = change
    data["confusions"] = cer.get("confusions", [])
    data["fields_check"] = _fields_check(details)
    data["thumb"] = thumb
    data["thumb_error"] = thumb_error
    return data
