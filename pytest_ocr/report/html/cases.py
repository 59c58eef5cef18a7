"""The cases as the page's script reads them: one JSON object per item, with the
alignment of its texts, the texts the metrics compared, its confusions and its field check."""

from __future__ import annotations

import json
from collections.abc import Iterable

from ...metrics import FIELD_METRICS
from ...metrics.align import iter_opcodes
from ...metrics.normalize import PROFILES, UNICODE_FORMS, WHITESPACE_STEPS, Normalization
from ...run.result import CaseResult
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


# The text metrics record the case's normalisation as the steps it applied; any of them will do.
_NORMALIZED_METRICS = ("cer", "ned", "exact_match", "wer")
_SWITCHES = ("casefold", "remove_punctuation")
_WHITESPACE = {step: whitespace for whitespace, step in WHITESPACE_STEPS.items()}


def scoring_normalization(steps: Iterable[str] | None) -> Normalization | None:
    """The normalisation the metrics applied, rebuilt from the steps they recorded
    (``Normalization.steps``). Every option that changes the text is a step of its own,
    so the steps are enough; the unit is not among them, but it changes only how the
    text is counted, not the text. None when there are no steps, or a step this version
    does not know (a report from a newer pytest-ocr): better no scored view than a wrong one."""
    if steps is None:
        return None
    options: dict[str, object] = {"unicode": "none", "whitespace": "keep"}
    for step in steps:
        name, _, value = step.partition(":")
        if step in UNICODE_FORMS:
            options["unicode"] = step
        elif name == "equivalences" and value:
            try:
                table = json.loads(value)
            except ValueError:
                return None
            if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
                return None
            options["equivalences"] = table
        elif name == "profile" and value in PROFILES:
            options["profile"] = value
        elif step in _SWITCHES:
            options[step] = True
        elif step in _WHITESPACE:
            options["whitespace"] = _WHITESPACE[step]
        else:
            return None
    try:
        return Normalization.from_dict(options)
    except ValueError:
        return None


def recorded_steps(details: dict) -> list[str] | None:
    return next(
        (details[m]["normalization"] for m in _NORMALIZED_METRICS if "normalization" in details.get(m, {})), None
    )


def scored_texts(reference: str | None, prediction: str | None, details: dict) -> dict | None:
    """What the metrics compared: both texts after the case's normalisation and their
    alignment; ``{"same": true}`` when normalising changed neither text, and a side left
    null when it is the text as given (the page has that already). None when there is
    no pair of texts, or its normalisation cannot be rebuilt."""
    if reference is None or prediction is None:
        return None
    normalization = scoring_normalization(recorded_steps(details))
    if normalization is None:
        return None
    ref, hyp = normalization(reference), normalization(prediction)
    if ref == reference and hyp == prediction:
        return {"same": True}
    return {
        "reference": None if ref == reference else ref,
        "prediction": None if hyp == prediction else hyp,
        "diff": diff_ops(ref, hyp),
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
    data["scored"] = scored_texts(reference, prediction, details)
    data["normalization"] = recorded_steps(details)
    data["change"] = change
    data["confusions"] = cer.get("confusions", [])
    data["fields_check"] = _fields_check(details)
    data["thumb"] = thumb
    data["thumb_error"] = thumb_error
    return data
