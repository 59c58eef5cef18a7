"""Getting key fields and a downstream task's result out of an engine's output.

Fields come from the first of these that applies:

1. the case's ``extract:`` block, applied to the OCR text (a regular expression per
   field, and/or a ``module:function`` returning a mapping; regexes win on conflicts);
2. the fields the engine returned itself (``Recognition.fields``: an HTTP worker's JSON);
3. the output parsed as a JSON object (also inside a markdown code fence), for vision
   LLMs asked to answer in JSON;
4. none: every expected field counts as missing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import OcrError
from ..imports import FunctionNotFound, load_function
from ..metrics.fields import flatten
from ..metrics.structured import parse_json_output


class ExtractionError(OcrError):
    """A user's extractor could not run; the message says which and why."""


@dataclass
class Extracted:
    fields: dict | None  # None: nothing could be extracted
    source: str  # extract | engine | json | none
    task_result: object = None


def search(pattern: str, text: str) -> str | None:
    """The first capture group of the first match (the whole match if the pattern has no
    group), stripped; None when the pattern does not match."""
    found = re.search(pattern, text)
    if found is None:
        return None
    value = found.group(1) if found.re.groups else found.group(0)
    return None if value is None else value.strip()


def _call(target: str, base_dir: Path, *args: object) -> object:
    try:
        function, _ = load_function(target, base_dir)
    except FunctionNotFound as exc:
        raise ExtractionError(f"extractor {exc}") from None
    try:
        return function(*args)
    except Exception as exc:
        raise ExtractionError(f"extractor {target} raised {type(exc).__name__}: {exc}") from exc


def fields_from_output(extract: dict, text: str, engine_fields: dict | None, base_dir: Path) -> tuple[dict | None, str]:
    """(fields, where they came from), following the order in this module's docstring."""
    if extract:
        fields: dict = {}
        if "function" in extract:
            result = _call(extract["function"], base_dir, text)
            if not isinstance(result, dict):
                raise ExtractionError(
                    f"extractor {extract['function']} returned {type(result).__name__}, expected a mapping of fields"
                )
            fields.update(flatten(result))
        for name, pattern in extract.get("fields", {}).items():
            value = search(pattern, text)
            if value is not None:
                fields[name] = value
        return fields, "extract"
    if engine_fields is not None:
        return engine_fields, "engine"
    if "{" not in text:  # no JSON object, whole or fenced: most outputs, spared a parse that fails
        return None, "none"
    parsed = parse_json_output(text)
    if parsed.error is None and isinstance(parsed.value, dict):
        return parsed.value, "json"
    return None, "none"


DEFAULT_RESULT_FIELD = {"qa": "answer", "classification": "label"}


def task_result(task: dict, text: str, fields: dict | None, base_dir: Path) -> object:
    """What the downstream task produced from the output: fields for extraction, an
    answer or a label for qa and classification; None when there is none."""
    how = task.get("extract")
    if isinstance(how, str):
        return search(how, text)
    if isinstance(how, dict) and "function" in how:
        return _call(how["function"], base_dir, text, dict(task))
    flat = flatten(fields) if fields else {}
    if isinstance(how, dict) and "field" in how:
        # a nested object (extraction) or one value, by name or key path
        return (fields or {}).get(how["field"], flat.get(how["field"]))
    if task["type"] == "extraction":
        return fields
    return flat.get(DEFAULT_RESULT_FIELD[task["type"]])
