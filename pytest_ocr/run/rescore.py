"""A report's results scored again (``pytest-ocr rescore REPORT -o NEW``): each measured item's
stored output(s) (its ``prediction``, and ``repeats.outputs`` when it was recognised several
times) judged by the item pipeline the plugin and ``score --case`` run (run/item.py ``given``
and ``judge``), with this installation's scorers, or with a normalisation profile instead of
each case's. No engine runs.

The ground truth and everything else a case compares with (key fields, schema, task, checks,
thresholds) are read from the case file the result names, relative to the project directory:
a report does not hold them all. The item's input hash (cases/inputs.py) tells whether the case
and its image are still the ones the output was scored against; an item whose case file, case
or inputs are gone or changed cannot be re-scored, and each is said in one located line.

A report is an artifact anyone could have written, so what it says is checked before it is
used: a case file it names must lie in the project directory (links resolved: ``/etc/passwd``
or ``../../x.ocr.yaml`` is never opened), an item must record its input hash (without one,
another file's case could be taken for its own), and each stored output must be within
``max_output_mb`` (limits.py), as an engine's output is.

Items that were not measured (errors, filtered, skipped, invalid case files) are kept as they
are. The re-scored results are compared with no baseline: their verdicts are their thresholds'.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..cases.inputs import CaseInputError, input_hash, read_inputs
from ..cases.loader import load_cases
from ..cases.model import Case, DatasetInfo, Scope, Skipped
from ..engines import Recognition
from ..engines.cache import file_sha256
from ..engines.recognize import EngineError, Timed, storable
from ..errors import OcrError
from ..files import Tree
from ..media.document import DocumentError
from ..metrics.normalize import profile
from ..scoring.extract import ExtractionError
from ..visible import visible
from .aggregate import DatasetSummary
from .item import ItemState, given, judge
from .result import CaseResult, check


class RescoreError(OcrError, ValueError):
    """Items that cannot be re-scored; one located line each."""


def rescore(
    results: Sequence[CaseResult], project: Path, scope: Scope, chosen: str | None, named: Callable[[Path], str]
) -> list[CaseResult]:
    """Every measured result scored again from its stored output(s) against its case in
    ``project`` (loaded in ``scope``, the project configuration), with profile ``chosen``
    when given; the others as they are. Raises RescoreError naming every item that cannot be."""
    normalization = profile(chosen) if chosen is not None else None
    tree = Tree([project], "the project")
    files: dict[str, dict[str, Case] | str] = {}  # case file -> its cases by id, or why it cannot be read
    problems: list[str] = []
    rescored: list[CaseResult] = []
    for old in results:
        if not old.measured:
            rescored.append(old)
            continue
        where = f"{old.file}:{old.line}: {old.key}"
        if old.input_hash is None:
            problems.append(
                f"{where}: the report records no input hash for it, so whether its case and image are the ones its "
                f"output was scored against cannot be checked; it cannot be re-scored (run it again)"
            )
            continue
        try:
            outputs = _outputs(old)
        except EngineError as exc:
            problems.append(f"{where}: its stored output: {exc}; it cannot be re-scored")
            continue
        cases = files.get(old.file)
        if cases is None:
            cases = files[old.file] = _cases(project / old.file, scope, tree)
        if isinstance(cases, str):
            problems.append(f"{where}: {cases}")
            continue
        case = cases.get(old.case)
        if case is None:
            problems.append(f"{where}: case {old.case!r} is gone from {old.file}; it cannot be re-scored")
            continue
        try:
            changed = _changed(old, case)
            if changed:
                problems.append(f"{where}: {changed}; it cannot be re-scored (run it again)")
                continue
            if normalization is not None:
                case = dataclasses.replace(case, normalization=normalization)
            rescored.append(_scored(old, case, outputs, named))
        except (CaseInputError, ExtractionError) as exc:
            problems.append(f"{where}: {exc}")
    if problems:
        raise RescoreError("\n".join(visible(problem) for problem in problems))
    return rescored


def case_files(results: Sequence[CaseResult], project: Path) -> list[Path]:
    """The case files in ``project`` that the measured results name: what rescore reads."""
    tree = Tree([project], "the project")
    named = dict.fromkeys(project / r.file for r in results if r.measured)
    return [path for path in named if tree.outside(path) is None]


@dataclass(frozen=True)
class _Stored:
    """An item's stored output, and every output of its repeats (the first again) when it has them."""

    output: Recognition
    repeats: list[Recognition]


def _outputs(old: CaseResult) -> _Stored:
    """The item's stored output(s), each within the limits an engine's output is held to
    (engines/recognize.py ``storable``); raises EngineError for one beyond them."""
    engine_fields = old.fields if old.fields_source == "engine" else None
    engine = old.engine or "?"
    output = storable(Recognition(text=old.prediction or "", confidence=old.confidence, fields=engine_fields), engine)
    texts = (old.repeats or {}).get("outputs") or []
    return _Stored(output, [storable(Recognition(text=text, fields=engine_fields), engine) for text in texts])


def _cases(path: Path, scope: Scope, tree: Tree) -> dict[str, Case] | str:
    outside = tree.outside(path)
    if outside is not None:  # never opened: its first line would be quoted in the error
        return f"its case file {outside}; rescore reads case files in the project only (--project DIR names it)"
    if not path.is_file():
        return f"case file {path} is gone; it cannot be re-scored"
    try:
        cases, _ = load_cases(path, scope)
    except DocumentError as exc:
        return f"case file cannot be loaded: {exc.summary()}"
    return {case.id: case for case in cases}


def _changed(old: CaseResult, case: Case) -> str | None:
    """What changed since the output was scored, by the item's input hash (None: nothing,
    or the report did not record its hash)."""
    if old.input_hash is None:
        return None
    inputs = read_inputs(case)
    if old.input_hash == input_hash(case, inputs, None):  # an engine of stored outputs: no image read
        return None
    if case.pdf_page is None:
        digest = file_sha256(case.image)
    else:  # the engine read the page rasterised: its digest is the raster's
        from ..media.pages import rasterise

        with tempfile.TemporaryDirectory(prefix="pytest-ocr-rescore-") as directory:
            digest = file_sha256(rasterise(case.pdf_page, Path(directory)).path)
    if old.input_hash == input_hash(case, inputs, digest):
        return None
    return f"its case or image changed since it was scored (input hash {old.input_hash}, now another)"


def _scored(old: CaseResult, case: Case, outputs: _Stored, named: Callable[[Path], str]) -> CaseResult:
    """The item's stored output(s) judged as the plugin judges an engine's (no baseline)."""
    state = ItemState.start()
    given(state, case, outputs.output)
    if outputs.repeats:
        state.repeats = [Timed(recognition, 0.0, stored=True) for recognition in outputs.repeats]
    judged = judge(case, state, named)
    evaluation = judged.evaluation
    return check(
        dataclasses.replace(
            old,
            outcome=judged.verdict.outcome,
            metrics=dict(evaluation.metrics),
            details=evaluation.details,
            checks=evaluation.checks,
            tolerances={m: str(t) for m, t in judged.tolerances.items()},
            baseline=None,
            warnings=evaluation.warnings,
            repeats=judged.repeats,
            facts=judged.facts,
            scored=None,
        )
    )


def datasets_of(summaries: Sequence[DatasetSummary], results: Sequence[CaseResult]) -> list[DatasetInfo]:
    """The datasets a whole run's report summarised, as their adapters read them (the
    entries that became no case), to summarise and check again (run/aggregate.py)."""
    found: dict[str, DatasetInfo] = {}
    for s in summaries:
        if s.file in found:
            continue
        errors = sum(r.outcome in ("error", "skipped") for r in results if r.file == s.file and r.engine == s.engine)
        skipped = tuple(Skipped(e["file"], e.get("line"), e["reason"]) for e in s.skipped_entries)
        count = s.skipped - errors
        found[s.file] = DatasetInfo(
            s.file, 1, s.type, s.evaluated + s.filtered + count, s.evaluated, skipped, count, s.allow_empty
        )
    return list(found.values())
