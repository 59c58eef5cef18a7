"""The controller's side of a run (the only process, or pytest-xdist's controller):
results collected from the items' test reports, aggregate gates judged and reported as
tests, the run record built once, and every requested output written from it, also
when the run was interrupted. Registered only on the process that needs it.

Only public pytest and pytest-xdist hooks: an item whose worker died is named by
``pytest_handlecrashitem``, its location by the ``pytest_runtest_logstart`` the worker
sent before it died.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..run.identity import item_key, relative, relative_paths, split_name
from ..visible import visible
from . import heap
from .executor import EXECUTOR
from .items import InvalidCaseFile, OcrItem
from .options import Settings, is_case_file

if TYPE_CHECKING:
    from ..cases.gates import Gate
    from ..cases.model import DatasetInfo
    from ..run.comparison import Comparison
    from ..run.gates import GateResult
    from ..run.record import RunRecord
    from ..run.result import CaseResult, SharedParts
    from ..run.shard import ShardInfo

# Made in every session: what results, gates and outputs need is imported when there are any.

GATE_FILE = "ocr-gates"  # the pseudo file of the gates' test reports
CARRIED = ("ocr", "ocr_gates", "ocr_dataset", "ocr_shard")  # what an item's report carries to the controller


class Collector:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.started = time.time()
        self.results: dict[str, CaseResult] = {}  # by key
        self.shared: SharedParts | None = None  # made with the first result
        self.gates: dict[tuple[Any, ...], Gate] = {}
        for gate in settings.gates:
            self._add_gate(gate)
        self.datasets: dict[str, DatasetInfo] = {}
        self.expected: set[str] = set()  # node ids of the OCR items collected
        self.worker_collected = 0  # under pytest-xdist: the tests each worker collected, OCR items or not
        self.locations: dict[str, tuple[str, int | None]] = {}  # node id -> (file, line) of items running
        self.gate_results: list[GateResult] = []
        self.baseline_view: Comparison | None = None  # judged with the gates, if they were
        self.interruption: str | None = None
        self.worker_errors: list[str] = []
        self.shard: ShardInfo | None = None  # with --ocr-shard: as the first result of a process brought it
        self.ended = False  # pytest_sessionfinish ran (not with --collect-only)
        self.record: RunRecord | None = None  # None once ended: nothing of OCR to record (_idle)
        self.notes: list[str] = []  # what was written where, and what could not be

    def _add_gate(self, gate: Gate) -> None:
        self.gates.setdefault(gate.identity, gate)

    def _is_ocr_item(self, nodeid: str) -> bool:
        path, _, name = nodeid.partition("::")
        if not is_case_file(Path(path), self.config):
            return False
        from ..run.result import INVALID_FILE_ITEM

        return name == INVALID_FILE_ITEM or split_name(name) is not None

    def _idle(self) -> bool:
        """A session without OCR: no OCR item collected, no result, no gate, and no baseline,
        shard or output file asked for. Then nothing is judged, recorded or written (every
        output of an empty record is empty), and nothing of it is imported."""
        settings = self.settings
        asked = (settings.baseline, settings.shard, settings.report, settings.html, settings.results_dir)
        return not (self.expected or self.results or self.gates) and all(a is None for a in asked)

    # -- what was collected and started ----------------------------------------------

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.expected = {item.nodeid for item in session.items if isinstance(item, (OcrItem, InvalidCaseFile))}

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: list[str]) -> None:
        self.worker_collected = len(ids)
        if not self.expected:
            self.expected = {nodeid for nodeid in ids if self._is_ocr_item(nodeid)}

    def pytest_runtest_logstart(self, nodeid: str, location: tuple[str, int | None, str]) -> None:
        if nodeid in self.expected:
            self.locations[nodeid] = (location[0], location[1])

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.locations.pop(nodeid, None)  # only an item that never finishes (its worker died) needs it

    # -- results arriving ------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched: Any) -> None:
        if crashitem in self.expected:
            # An extra attribute, as pytest_runtest_makereport gives every report (TestReport declares none).
            report.ocr = self._crashed(crashitem, str(report.longrepr or "the worker crashed"))  # type: ignore[attr-defined]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        if error:
            self.worker_errors.append(f"{getattr(node.gateway, 'id', 'worker')}: {str(error).strip()[:200]}")

    def _crashed(self, nodeid: str, message: str) -> CaseResult:
        """What is known of an item whose worker died while running it."""
        from ..run.result import make_result

        path, _, name = nodeid.partition("::")
        file, line = self.locations.get(nodeid, (path, None))
        case, engine = split_name(name) or (name, "")
        file = relative((self.config.rootpath / file).resolve(), self.settings.project_dir)
        return make_result(
            key=item_key(file, case, engine),
            id=nodeid,
            case=case,
            file=file,
            line=(line or 0) + 1,
            engine=engine,
            image=None,
            outcome="error",
            error=f"no result: {message.strip().splitlines()[-1]}",
        )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if all(getattr(report, key, None) is None for key in CARRIED):
            return  # not an OCR item's
        # What each carried part needs is imported only when a report carries it: this runs three times an item.
        data = getattr(report, "ocr", None)
        if data is not None:  # a CaseResult from this process, a JSON string from a pytest-xdist worker
            from ..run.result import CaseResult, SharedParts

            result = data if isinstance(data, CaseResult) else CaseResult.from_dict(json.loads(data))
            if self.shared is None:
                self.shared = SharedParts()
            self.results[result.key] = self.shared(result)
            heap.keep_results(len(self.results))
        gates = getattr(report, "ocr_gates", None)
        if gates:
            from ..cases.gates import Gate

            for gate in gates:
                self._add_gate(Gate.from_dict(gate))
        shard = getattr(report, "ocr_shard", None)
        if shard is not None and self.shard is None:
            from ..run.shard import ShardInfo

            self.shard = ShardInfo.from_dict(shard)
        dataset = getattr(report, "ocr_dataset", None)
        if dataset is not None and dataset["file"] not in self.datasets:
            from ..cases.model import DatasetInfo

            info = DatasetInfo.from_dict(dataset)
            skipped = tuple(
                replace(s, reason=relative_paths(s.reason, self.settings.project_dir)) for s in info.skipped
            )
            self.datasets[dataset["file"]] = replace(info, skipped=skipped)

    # -- after the items: gates as tests ---------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Iterator[None]:
        # The pytest-cov way: judge aggregates after every item ran, on the controller,
        # and report each gate as a test of its own, so the exit status, the terminal,
        # JUnit XML and every other plugin agree on it.
        outcome = yield
        if session.config.option.collectonly or self._idle():
            return outcome
        from ..report.paired_text import judged
        from ..run.record import judge

        self.baseline_view = baseline = self._baseline_view()
        if self.settings.shard is not None:
            return outcome  # a shard holds part of the run: pytest-ocr merge judges the whole
        self.gate_results = judge(
            self.gates.values(), list(self.results.values()), self.datasets.values(), baseline, judged
        )
        session.testscollected += len(self.gate_results)  # they are tests: progress counts them
        hook = self.config.hook
        for result in self.gate_results:
            report = gate_report(result, self.settings.project_dir)
            hook.pytest_runtest_logstart(nodeid=report.nodeid, location=report.location)
            hook.pytest_runtest_logreport(report=report)
            hook.pytest_runtest_logfinish(nodeid=report.nodeid, location=report.location)
        return outcome

    def _baseline_view(self) -> Comparison | None:
        """The run against its baseline; items with repeats are decided here, over the run
        (a shard's by the merge)."""
        settings = self.settings
        if settings.baseline is None:
            return None
        from ..run.comparison import against

        results, view = against(
            settings.baseline,
            list(self.results.values()),
            settings.baseline_verb,
            settings.min_match,
            complete=settings.shard is None,
        )
        self.results.update((r.key, r) for r in results)
        return view

    # -- the end: one record, every output -------------------------------------------

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interruption = "interrupted (KeyboardInterrupt)"

    def pytest_internalerror(self, excrepr: Any, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interruption = f"internal error: {type(excinfo.value).__name__}: {excinfo.value}"

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        # Runs inside the terminal reporter's own sessionfinish, before the summary is
        # printed: files first, so the summary can say where they are.
        if session.config.option.collectonly:
            return
        self.ended = True
        if self._idle():
            return
        from ..report.outputs import Outputs, end
        from ..run.record import RunInfo

        not_run = len(self.expected - {r.id for r in self.results.values()})
        interruption = self.interruption
        if interruption is None and not_run:
            interruption = str(session.shouldfail or session.shouldstop or "stopped early")
        workers = int(getattr(self.config.option, "numprocesses", 0) or 0)
        run = RunInfo.of(self.started, time.time(), workers, not_run, interruption)
        baseline = self.baseline_view if self.baseline_view is not None else self._baseline_view()
        settings = self.settings
        outputs = Outputs(
            settings.report,
            settings.html,
            settings.results_dir,
            settings.baseline.path if settings.baseline is not None else None,
            settings.baseline_verb,
            settings.github,
            settings.history,
        )
        ended = end(
            self.results.values(),
            run,
            self.gate_results,
            baseline,
            self.datasets.values(),
            self._shard(),
            outputs,
            settings.project_dir,
        )
        self.record = ended.record
        self.notes += settings.baseline.notes if settings.baseline is not None else []
        self.notes += ended.notes
        if ended.lost and session.exitstatus == pytest.ExitCode.OK:
            # pytest's exit status counts every item and gate, as tests (an xfail marker included);
            # a requested output lost fails the run too
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def _shard(self) -> ShardInfo | None:
        """What this shard's report records for the merge: the split, and the gates and
        datasets its items declared."""
        if self.settings.shard is None:
            return None
        from ..run.record import ordered_gates
        from ..run.shard import ShardInfo

        executor = self.config.stash.get(EXECUTOR, None)
        shard = self.shard or (executor.shard if executor is not None else None)
        if shard is None:  # nothing collected, or no result came back: the merge refuses an unknown suite
            shard = ShardInfo(self.settings.shard.index, self.settings.shard.total, "unknown", "unknown", 0, 0)
        gates = ordered_gates(self.gates.values())
        datasets = sorted(self.datasets.values(), key=lambda d: d.file)
        return replace(shard, gates=gates, datasets=datasets, project=str(self.settings.project_dir))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.ended:
            return
        record = self.record  # None: a session without OCR, where only pytest-xdist's workers can speak
        verbosity = self.config.get_verbosity()
        if record is not None:
            from ..report import github, terminal

            if self.settings.github and os.environ.get("GITHUB_ACTIONS") == "true":
                # Workflow commands are read from the job's output, whatever the verbosity.
                # The only lines printed as they are: their untrusted values are escaped (github.py).
                for line in github.annotations(record, self.settings.project_dir, os.environ.get("GITHUB_WORKSPACE")):
                    terminalreporter.write_line(line)
            if (record.results or record.gates) and verbosity >= -1 and self.settings.summary != "none":
                terminalreporter.section("OCR summary")
                for line in terminal.summary(record, verbosity, self.settings.summary, self.settings.columns):
                    terminalreporter.write_line(line)  # made visible by terminal.summary
            executor = self.config.stash.get(EXECUTOR, None)
            if executor is not None and executor.cache is not None and executor.cache.write_error:
                terminalreporter.write_line(
                    visible(f"warning: engine outputs were not cached: {executor.cache.write_error}")
                )
        for line in self.worker_errors:
            terminalreporter.write_line(visible(f"warning: pytest-xdist worker went down: {line}"))
        if record is not None:
            from ..report import workers

            few = workers.advice(record, self.worker_collected)
            if few is not None and verbosity >= -1:
                terminalreporter.write_line(f"note: {few}")
        for note in self.notes:
            terminalreporter.write_line(visible(note))


def gate_report(result: GateResult, project: Path) -> pytest.TestReport:
    """A gate as a test report of its own: pytest counts it (exit status), prints it
    (its value rounded, where it was declared relative to the project), and JUnit XML
    records it, like any test."""
    from ..report.junit import gate_properties
    from ..report.reasons import gate_text

    text = gate_text(result, lambda file: relative(Path(file), project))
    return pytest.TestReport(
        nodeid=f"{GATE_FILE}::{result.name}",
        location=(GATE_FILE, None, result.name),
        keywords={},
        outcome="passed" if result.passed else "failed",
        longrepr=None if result.passed else visible(text, multiline=True),
        when="call",
        user_properties=gate_properties(result),
    )
