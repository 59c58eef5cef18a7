"""What a case compares an output against, read when its item runs (so one bad file
fails one item, not the collection): the image checked, the ground truth, fields and
schema files read, each within the limits on data files (document.py)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import OcrError
from ..files import UnreadableFile, decode_text, unreadable
from ..media import document
from ..media.images import ImageError, check_image
from ..metrics.structured import check_schema
from .datasets.omnidocbench import LayoutFileError, layout_page
from .model import Case


class CaseInputError(OcrError):
    """The case's own inputs (image, ground truth file) are unusable."""


@dataclass(frozen=True)
class Inputs:
    reference: str | None
    fields: dict[str, Any] | None
    schema: dict[str, Any] | bool | None
    layout: dict[str, Any] | None = None  # one page of OmniDocBench ground truth


def _read(path: Path, what: str, case: Case) -> str:
    """A UTF-8 text file within --ocr-max-file-mb; a FIFO, device or directory is refused."""
    where = f"(case {case.id} at {case.location})"
    try:
        data = document.read_bytes(path, what)
        return decode_text(data)
    except (OSError, UnreadableFile) as exc:
        raise CaseInputError(f"{unreadable(exc, path, what)} {where}") from None
    except UnicodeDecodeError as exc:
        raise CaseInputError(
            f"{what} is not UTF-8: {path} ({exc.reason} at byte {exc.start}); re-encode it as UTF-8 {where}"
        ) from None


def _read_data(path: Path, what: str, case: Case) -> object:
    """A JSON or YAML file (JSON if it ends in .json; YAML, a superset of JSON, otherwise),
    read as case files are: safe loader only, within every limit on data files."""
    if not os.path.lexists(path):
        raise CaseInputError(f"{what} not found: {path} (case {case.id} at {case.location})")
    try:
        return document.load(path, what).data
    except document.DocumentError as exc:
        raise CaseInputError(f"{what} cannot be used: {exc.summary()} (case {case.id} at {case.location})") from None


def read_inputs(case: Case) -> Inputs:
    """Check the image and read what the output is compared against; raises CaseInputError."""
    try:
        check_image(case.image)
    except ImageError as exc:
        raise CaseInputError(f"{exc} (case {case.id} at {case.location})") from None
    reference = case.expected_text
    if case.expected_text_file is not None:
        reference = _read(case.expected_text_file, "ground truth file", case)
    fields = case.expected_fields
    if case.expected_fields_file is not None:
        fields = _read_data(case.expected_fields_file, "fields file", case)  # type: ignore[assignment]
        if not isinstance(fields, dict) or not fields:
            raise CaseInputError(
                f"fields file {case.expected_fields_file} must hold a non-empty mapping of "
                f"field names to values (case {case.id} at {case.location})"
            )
    schema = case.schema
    if case.schema_file is not None:
        schema = _read_data(case.schema_file, "schema file", case)  # type: ignore[assignment]
        problems = check_schema(schema) if isinstance(schema, (dict, bool)) else ["not a mapping"]
        if problems:
            raise CaseInputError(
                f"schema file {case.schema_file} is not a valid JSON Schema: {problems[0]} "
                f"(case {case.id} at {case.location})"
            )
    return Inputs(reference, fields, schema, case.layout if case.layout_file is None else _layout(case))


def _layout(case: Case) -> dict[str, Any]:
    """The case's page of its OmniDocBench ground-truth file, checked as the scorer reads it;
    every problem located (file, line, key, what was expected). The file is read a page at a
    time, once a process (datasets/omnidocbench.py: layout_page), never whole into the located
    loader: a file within --ocr-max-file-mb costs a few times its size, once."""
    assert case.layout_file is not None
    what = "layout file"
    if not os.path.lexists(case.layout_file):
        raise CaseInputError(f"{what} not found: {case.layout_file} (case {case.id} at {case.location})")
    try:
        page, problems = layout_page(case.layout_file, case.layout_page, str(case.image))
    except LayoutFileError as exc:
        raise CaseInputError(f"{what} cannot be used: {exc} (case {case.id} at {case.location})") from None
    if problems:  # one located line each
        raise CaseInputError(
            "\n  ".join([f"{what} {case.layout_file} cannot be used (case {case.id} at {case.location}):", *problems])
        )
    assert isinstance(page, dict)  # no problem: a page object
    return page


def input_hash(case: Case, inputs: Inputs, image_sha256: str | None) -> str:
    """What an item's verdict depends on besides its engine, as 8 bytes of BLAKE2b (hex): the
    image's bytes (``image_sha256``, the hash the output cache keys it by; None for an engine
    of stored outputs, which does not read it), the PDF page and dpi, and the case as it is
    scored: reference text, fields, schema, thresholds, normalisation, metrics, matching,
    tolerances and checks. Not its paths, tags or group: a case moved or retagged is the same
    case. ``history flaky`` compares only runs in which it and the engine's fingerprint held."""
    scored = (
        image_sha256,
        case.page,
        case.dpi,
        inputs.reference,
        inputs.fields,
        inputs.schema,
        case.thresholds,
        case.normalization,
        case.cer_denominator,
        case.empty_reference_value,
        case.metrics,
        case.match,
        case.extract,
        case.task,
        case.tokens,
        case.regression,
        case.min_confidence,
        case.repeat,
        case.repeat_judge,
        case.checks,
        # only when given: the hashes of cases without one stay as they were
        *(() if inputs.layout is None else (inputs.layout,)),
    )
    return hashlib.blake2b(repr(scored).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
