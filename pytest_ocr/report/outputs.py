"""The end of a run: its record built, every file it asked for written from it (the JSON
report, the HTML report, the results directory, the baseline file and GitHub's step
summary) and the run recorded in the history store, and whether it failed. The plugin's
controller and ``pytest-ocr merge`` both end a run here (``end``). A failure to write
costs that output alone and is said in the notes (``lost`` finds them); the others are
still written, and the run fails (a history store that fails: only when required)."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..cases.model import DatasetInfo
from ..errors import OcrError
from ..files import write_atomic
from ..metrics.registry import Scorer
from ..run.comparison import Comparison
from ..run.gates import GateResult
from ..run.identity import relative
from ..run.record import Rescored, RunInfo, RunRecord, build
from ..run.result import CaseResult
from ..run.shard import ShardInfo
from . import github, json_report
from .baseline_file import write as write_baseline

if TYPE_CHECKING:
    from ..history.url import HistoryTarget

LOST = "ERROR: "  # how a note says that an output could not be written


def lost(notes: list[str]) -> list[str]:
    """The notes of outputs that could not be written: each fails the run."""
    return [note for note in notes if note.startswith(LOST)]


@dataclass(frozen=True)
class Outputs:
    report: Path | None = None
    html: Path | None = None
    results_dir: Path | None = None
    baseline: Path | None = None  # written when baseline_verb is set
    baseline_verb: str | None = None
    github: bool = True  # the step summary, under GitHub Actions (a shard whose merge reports: not)
    history: HistoryTarget | None = None  # the store the run is recorded in
    # The HTML report shows pictures of images in the project only (a merge: its results, and
    # the image paths in them, come from shard reports, which anyone could have written).
    pictures_in_project: bool = False


def write_all(record: RunRecord, outputs: Outputs, project: Path, environ: Mapping[str, str] = os.environ) -> list[str]:
    """What was written where, and what could not be, one note per output."""
    notes: list[str] = []
    read = _read_files(record)

    def attempt(what: str, path: Path, write: Callable[[Path], object]) -> None:
        names = (relative(Path(os.path.abspath(path)), project), relative(Path(os.path.realpath(path)), project))
        overwritten = next((read[name] for name in names if name in read), None)
        if overwritten is not None:
            notes.append(f"{LOST}{what} was not written to {path}: it is {overwritten}, which the run read")
            return
        try:
            said = write(path)
        except Exception as exc:  # noqa: BLE001 - any failure of one writer must not lose the others
            notes.append(f"{LOST}{what} could not be written to {path}: {type(exc).__name__}: {exc}")
            return
        notes.append(f"{what}: {said if isinstance(said, str) else path}")

    if outputs.report:
        attempt("OCR report", outputs.report, lambda p: json_report.write(p, record))
    if outputs.html and record.results:
        from .html import page as html  # only when asked: it loads Pillow for the thumbnails

        page = functools.partial(html.render, record, project, outputs.pictures_in_project)
        attempt("OCR HTML report", outputs.html, lambda p: write_atomic(p, page()))
    if outputs.results_dir and record.results:
        from . import results_dir

        attempt("OCR results", outputs.results_dir, lambda p: results_dir.write(p, record))
    if outputs.baseline is not None and outputs.baseline_verb:
        verb = outputs.baseline_verb
        attempt(f"OCR baseline {verb}", outputs.baseline, lambda p: write_baseline(p, record, verb))
    summary = environ.get("GITHUB_STEP_SUMMARY")
    if outputs.github and environ.get("GITHUB_ACTIONS") == "true" and summary and (record.results or record.gates):
        attempt("GitHub step summary", Path(summary), lambda p: github.append_step_summary(p, record, project))
    if outputs.history is not None:
        notes.append(_history(record, outputs.history, project, environ))
    return notes


def _read_files(record: RunRecord) -> dict[str, str]:
    """The files the run's items read (an image, a dataset's ground-truth file) by the name
    results give them, which no output may replace. The project's configuration and case files
    are refused before the run (project_files.py); these are known once the items are
    collected, which in a pytest-xdist run or a merge only the results tell."""
    read: dict[str, str] = {}
    for result in record.results:
        for what, name in (("the image", result.image), ("the ground truth", result.source_file)):
            if name is not None:
                read.setdefault(name, f"{what} of {result.id}")
    return read


def _history(record: RunRecord, target: HistoryTarget, project: Path, environ: Mapping[str, str]) -> str:
    """The run recorded in the history store, last: a store that cannot be reached costs no
    other output, and fails the run only when required."""
    where = target.url.shown
    if record.shard is not None:
        return f"OCR history: a shard's run is not recorded in {where}; pytest-ocr merge --history records the run"
    try:
        from ..history.store import record_run

        recorded = record_run(target, record, project, environ)
    # A store that fails must not fail the run unless required; Ctrl-C while recording rolls the
    # transaction back, and is said here, before the summary, rather than as a traceback instead of it.
    except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001
        if isinstance(exc, KeyboardInterrupt):
            why = "interrupted (Ctrl-C) while recording: the history does not hold this run"
        else:  # an OcrError (the store's, or a CI variable refused) is its one line; anything else its kind too
            why = target.url.conceal(str(exc) if isinstance(exc, OcrError) else f"{type(exc).__name__}: {exc}")
        if target.required:
            return f"{LOST}OCR history could not be recorded in {where}: {why}"
        return f"warning: OCR history not recorded in {where}: {why} (this fails the run only when history is required)"
    return f"OCR history: {recorded.text()} in {where}"


@dataclass(frozen=True)
class Ended:
    """A run as it ended: its record, what was written where, and how it exits."""

    record: RunRecord
    notes: list[str]

    @property
    def lost(self) -> bool:
        """An output asked for could not be written: that fails the run too."""
        return bool(lost(self.notes))

    @property
    def failed(self) -> bool:
        """An item, a gate or a check of the run failed, or an output asked for was lost."""
        return self.record.gating().failed or self.lost

    @property
    def exit_status(self) -> int:
        """As pytest's: 0 passed, 1 failed, 2 interrupted (not every item of the suite ran)."""
        if self.record.run.status != "complete":
            return 2
        return 1 if self.failed else 0


def end(
    results: Iterable[CaseResult],
    run: RunInfo,
    gates: Sequence[GateResult],
    baseline: Comparison | None,
    datasets: Iterable[DatasetInfo],
    shard: ShardInfo | None,
    outputs: Outputs,
    project: Path,
    scorers: dict[str, Scorer] | None = None,
    rescored: Rescored | None = None,
) -> Ended:
    """The run's record built once (its gates already judged), and every output written from
    it; ``scorers``: what scored the results when not this installation (a merge's shards);
    ``rescored``: a report's results scored again (pytest-ocr rescore)."""
    record = build(results, run, gates, baseline, datasets, shard, scorers, rescored)
    return Ended(record, write_all(record, outputs, project))
