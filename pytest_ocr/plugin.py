"""pytest hooks: collect OCR case files as items, carry results to the controller,
print the summary and write the report. Logic lives in the modules these call."""

from __future__ import annotations

import functools
import json
import os
import re
import time
from dataclasses import asdict
from datetime import datetime, timezone
from fnmatch import fnmatch
from pathlib import Path

import pytest

from . import hooks
from .cases.document import DocumentError
from .cases.loader import load_cases, load_project_config
from .cases.model import Case, Defaults, Scope
from .baseline import VERBS, Baseline
from .cache import OutputCache
from .baseline import compare as compare_with_baseline
from .baseline import tolerances as baseline_tolerances
from .baseline import write as write_baseline
from .engines import EngineError, EngineRegistry, EngineSpec
from .extract import ExtractionError
from .gates import Gate, GateError, GateResult
from .gates import evaluate as evaluate_gates
from .gates import parse_cli as parse_gate
from .prefetch import Prefetcher
from .report import github, json_report, terminal
from .report.failure import failure_text
from .results import CaseResult, dataset_summaries, json_safe, summarize
from .runner import CaseInputError, check_inputs, evaluate, extract, filtered_reason, recognize

DEFAULT_ENGINE = "tesseract"
DEFAULT_PATTERNS = ["*.ocr.yaml", "*.ocr.yml", "*.ocr.json"]
INVALID_FILE_ITEM = "invalid-case-file"
SHOWN_SKIPPED = 20  # skipped dataset entries carried to the controller and shown, per file
GATE_FILE = "ocr-gates"  # the pseudo file of the gates' test reports
OCR_ITEM = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*\[[A-Za-z0-9_][A-Za-z0-9_.\-]*\]")  # case[engine]


class OcrSession:
    """State of one pytest process: project config, engines, collected results."""

    def __init__(self, config: pytest.Config):
        self.config = config
        self.registry = EngineRegistry()
        self.prefetch = Prefetcher()
        self._run_order: dict[str, int] | None = None
        self.results: dict[str, CaseResult] = {}
        self.invalid_files: dict[str, dict] = {}
        self.tags: set[str] = set()
        self.report_path: Path | None = None
        self.html_path: Path | None = None
        self.results_run: Path | None = None
        self._summaries = None
        self._dataset_summaries = None
        self.started = time.time()
        self._root = config.rootpath.resolve()
        option = config.getoption("ocr_engine")
        self.engine_override = tuple(n.strip() for n in option.split(",") if n.strip()) if option else ()
        self.project = Scope(Defaults(), {})
        self.gates: dict[tuple, Gate] = {}  # every gate seen, by identity; suite gates arrive on reports
        self.gate_results: list[GateResult] = []
        self.datasets: dict[str, dict] = {}  # dataset file -> what its dataset: block read (on reports)
        self.baseline: Baseline | None = None
        self.baseline_verb = config.getoption("ocr_baseline_write")
        self.baseline_written: dict[str, int] | None = None
        self.cache = self._output_cache()
        self.refresh = bool(config.getoption("ocr_refresh"))
        ini = config.getini("ocr_config")
        if ini:
            base = config.inipath.parent if config.inipath else config.rootpath
            path = (base / ini).resolve()
            if not path.is_file():
                raise pytest.UsageError(f"ocr_config: project configuration file not found: {path}")
            try:
                self.project = load_project_config(path)
            except DocumentError as exc:
                raise pytest.UsageError(f"ocr_config: invalid project configuration\n{exc}") from None
        for gate in self.project.gates:
            self.add_gate(gate)
        for text in config.getoption("ocr_gate") or ():
            try:
                self.add_gate(parse_gate(text))
            except GateError as exc:
                raise pytest.UsageError(str(exc)) from None
        baseline = config.getoption("ocr_baseline")
        if self.baseline_verb and not baseline:
            raise pytest.UsageError("--ocr-baseline-write needs --ocr-baseline PATH: the file to write")
        if baseline:
            try:
                self.baseline = Baseline.load(config.invocation_params.dir / baseline,
                                              missing_ok=bool(self.baseline_verb))
            except (OSError, ValueError) as exc:
                raise pytest.UsageError(f"--ocr-baseline: {exc}") from None

    def _output_cache(self) -> OutputCache | None:
        """Engine outputs on disk: in --ocr-cache-dir, else in pytest's cache directory
        (none when the cacheprovider plugin is off and no directory is given)."""
        if self.config.getoption("ocr_no_cache"):
            return None
        directory = self.config.getoption("ocr_cache_dir")
        if directory:
            return OutputCache(self.config.invocation_params.dir / directory)
        cache = getattr(self.config, "cache", None)
        return OutputCache(cache.mkdir("ocr-outputs")) if cache is not None else None

    def is_case_item(self, nodeid: str) -> bool:
        path, _, name = nodeid.partition("::")
        patterns = self.config.getini("ocr_files")
        return bool(OCR_ITEM.fullmatch(name)) and any(fnmatch(Path(path).name, p) for p in patterns)

    def add_gate(self, gate: Gate) -> None:
        self.gates.setdefault((gate.file, gate.source, gate.expression, gate.scope), gate)

    def tag_marker(self, tag: str) -> None:
        """Register a case tag as a marker once, so --strict-markers accepts it."""
        if tag not in self.tags:
            self.tags.add(tag)
            self.config.addinivalue_line("markers", f"{tag}: OCR case tag (pytest-ocr)")

    # Hooks of this object run on whichever process receives the reports: the
    # controller under pytest-xdist, which alone prints and writes files.

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if getattr(report, "ocr", None) is not None:
            self.results[report.nodeid] = CaseResult.from_dict(report.ocr)
        elif report.when == "???" and self.is_case_item(report.nodeid) and report.nodeid not in self.results:
            # pytest-xdist's report for an item whose worker died while running it
            self.results[report.nodeid] = crashed_result(report)
        if getattr(report, "ocr_invalid", None) is not None:
            self.invalid_files[report.nodeid] = report.ocr_invalid
        for gate in getattr(report, "ocr_gates", None) or ():
            self.add_gate(Gate.from_dict(gate))
        dataset = getattr(report, "ocr_dataset", None)
        if dataset is not None:
            self.datasets.setdefault(dataset["file"], dataset)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session):
        # The pytest-cov way: judge aggregates after every item ran, on the controller,
        # and report each gate as a test of its own, so the exit status, the terminal,
        # JUnit XML and every other plugin agree on it.
        outcome = yield
        if not hasattr(self.config, "workerinput") and self.gates and not session.config.option.collectonly:
            self.gate_results = evaluate_gates(list(self.gates.values()), list(self.results.values()))
            session.testscollected += len(self.gate_results)  # they are tests: progress counts them
            hook = self.config.hook
            for result in self.gate_results:
                report = gate_report(result)
                hook.pytest_runtest_logstart(nodeid=report.nodeid, location=report.location)
                hook.pytest_runtest_logreport(report=report)
                hook.pytest_runtest_logfinish(nodeid=report.nodeid, location=report.location)
        return outcome

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        # Runs inside the terminal reporter's own sessionfinish, before the summary
        # is printed: files first, so the summary can say where they are.
        if hasattr(self.config, "workerinput"):
            return
        results = list(self.results.values())
        run = self.run_info()
        here = self.config.invocation_params.dir
        path = self.config.getoption("ocr_report")
        html_path = self.config.getoption("ocr_html")
        results_dir = self.config.getoption("ocr_results_dir")
        if path or html_path or results_dir:  # building it costs a pass over every result
            document = json_report.build(results, self.summaries(), run, list(self.invalid_files.values()),
                                         [g.to_dict() for g in self.gate_results],
                                         self.dataset_summaries())
        if path:
            json_report.write(here / path, document)
            self.report_path = here / path
        if html_path and results:
            from .report import html  # only when asked: it loads Pillow for the thumbnails

            html.write(here / html_path, document, self._root)
            self.html_path = here / html_path
        if results_dir and results:
            from .report import results_dir as layout

            self.results_run = layout.write(here / results_dir, document)
        if self.baseline is not None and self.baseline_verb:
            self.baseline_written = write_baseline(self.baseline, results, self.baseline_verb, run)
        summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
        if os.environ.get("GITHUB_ACTIONS") == "true" and summary_file and (results or self.gate_results):
            github.append_step_summary(Path(summary_file), results, self.summaries(), self.gate_results,
                                       self.baseline)

    def run_info(self) -> dict:
        finished = time.time()
        return {
            "started_at": datetime.fromtimestamp(self.started, timezone.utc).isoformat(),
            "finished_at": datetime.fromtimestamp(finished, timezone.utc).isoformat(),
            "duration_s": finished - self.started,
            "pytest": pytest.__version__,
            "workers": int(getattr(self.config.option, "numprocesses", 0) or 0),
        }

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if hasattr(self.config, "workerinput"):
            return
        results = list(self.results.values())
        if os.environ.get("GITHUB_ACTIONS") == "true":
            # Workflow commands are read from the job's output, whatever the verbosity.
            for line in github.annotations(results, self.gate_results):
                terminalreporter.write_line(line)
        verbosity = self.config.get_verbosity()
        shape = self.config.getoption("ocr_summary")
        if not (results or self.gate_results) or verbosity < -1 or shape == "none":
            return
        terminalreporter.section("OCR summary")
        if shape == "json":
            document = {"summary": {name: asdict(s) for name, s in self.summaries().items()},
                        "gates": [g.to_dict() for g in self.gate_results]}
            terminalreporter.write_line(json.dumps(json_safe(document), indent=2, ensure_ascii=False,
                                                   allow_nan=False))
            return
        thresholded = {c["metric"] for r in results for c in r.checks}
        lines = terminal.summary_lines(results, self.summaries(), verbosity, thresholded) if results else []
        lines += terminal.baseline_lines(results, self.baseline, verbosity) if self.baseline else []
        lines += terminal.dataset_lines(self.dataset_summaries())
        lines += terminal.gate_lines(self.gate_results)
        for line in lines:
            terminalreporter.write_line(line)
        if self.baseline_written:
            written = self.baseline_written
            terminalreporter.write_line(f"OCR baseline {self.baseline_verb}: {self.baseline.path}: "
                                        f"{written['added']} added, {written['replaced']} replaced, "
                                        f"{written['kept']} kept as they were")
        cached = sum(r.cached for r in results)
        if cached:
            terminalreporter.write_line(f"OCR outputs from the cache: {cached} of {len(results)} "
                                        f"(--ocr-refresh runs the engines again)")
        if self.cache is not None and self.cache.write_error:
            terminalreporter.write_line(f"warning: engine outputs were not cached: {self.cache.write_error}")
        if self.report_path:
            terminalreporter.write_line(f"OCR report: {self.report_path}")
        if self.html_path:
            terminalreporter.write_line(f"OCR HTML report: {self.html_path}")
        if self.results_run:
            terminalreporter.write_line(f"OCR results: {self.results_run}")

    def summaries(self):
        """Aggregates of the results, computed once for the terminal and the report."""
        if self._summaries is None:
            self._summaries = summarize(list(self.results.values()))
        return self._summaries

    def dataset_summaries(self) -> list[dict]:
        """The accounting of each dataset file, computed once for the terminal and the report."""
        if self._dataset_summaries is None:
            self._dataset_summaries = dataset_summaries(list(self.datasets.values()), list(self.results.values()))
        return self._dataset_summaries

    def upcoming(self, item: pytest.Item) -> list[pytest.Item]:
        """The items this process will run from ``item`` on, in order: the rest of the
        session under a serial run, this worker's queue under pytest-xdist."""
        items = item.session.items
        interactor = next((p for p in self.config.pluginmanager.get_plugins()
                           if type(p).__name__ == "WorkerInteractor"), None)
        if interactor is not None:
            try:
                with interactor.torun.lock() as queue:
                    pending = [interactor.nextitem_index, *queue]
            except AttributeError:  # another xdist version: only this item is known
                return [item]
            return [item, *(items[i] for i in pending if isinstance(i, int))]
        if self._run_order is None:
            self._run_order = {it.nodeid: i for i, it in enumerate(items)}
        start = self._run_order.get(item.nodeid)
        return [item] if start is None else items[start:]

    def pytest_unconfigure(self) -> None:
        self.prefetch.close()
        self.registry.close()

    def relative(self, path: Path) -> str:
        """A path as reports show it: relative to the rootdir when inside it.

        Case paths are already absolute and resolved, so no filesystem call is needed."""
        try:
            return path.relative_to(self._root).as_posix()
        except ValueError:
            return str(path)


_SESSION = pytest.StashKey[OcrSession]()


def _ocr(config: pytest.Config) -> OcrSession:
    return config.stash[_SESSION]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ocr", "OCR regression testing (pytest-ocr)")
    group.addoption(
        "--ocr-engine",
        metavar="NAME[,NAME]",
        help="run every OCR case on these engines instead of the ones the cases name",
    )
    group.addoption("--ocr-report", metavar="PATH", help="write a JSON report of all OCR items to PATH")
    group.addoption("--ocr-summary", choices=("table", "json", "none"), default="table",
                    help="the OCR section of the terminal summary: table (default), json (the report's summary "
                         "and gates), none")
    group.addoption("--ocr-html", metavar="PATH",
                    help="write a self-contained HTML report (summary, charts, per-case image and diff) to PATH")
    group.addoption("--ocr-results-dir", metavar="DIR",
                    help="write the run as DIR/{run_id}/config.json, results.json, summary.json")
    group.addoption("--ocr-baseline", metavar="PATH",
                    help="compare every item's metrics with this stored report and fail those that got worse "
                         "by more than their tolerance (regression: in case files)")
    group.addoption("--ocr-baseline-write", choices=VERBS, metavar="|".join(VERBS),
                    help="after the run, write the --ocr-baseline file: create (add missing items only), "
                         "update (replace every item that ran), ratchet (add new items, replace only improved ones)")
    group.addoption("--ocr-cache-dir", metavar="DIR",
                    help="keep engine outputs in DIR (default: pytest's cache directory, .pytest_cache)")
    group.addoption("--ocr-no-cache", action="store_true", help="neither read nor write cached engine outputs")
    group.addoption("--ocr-refresh", action="store_true",
                    help="run every engine again and overwrite the cached outputs")
    group.addoption("--ocr-gate", action="append", metavar="GATE",
                    help='an aggregate gate judged after all items ran, per engine, e.g. "cer.micro<0.05" or '
                         '"tag:receipts field_f1.macro >= 0.8" (repeatable)')
    parser.addini("ocr_files", "glob patterns of OCR case files", type="args", default=DEFAULT_PATTERNS)
    parser.addini("ocr_config", "project configuration file (YAML: engines, defaults)", default="")


def pytest_configure(config: pytest.Config) -> None:
    session = OcrSession(config)
    config.stash[_SESSION] = session
    config.pluginmanager.register(session, "pytest-ocr-session")


def pytest_collect_file(file_path: Path, parent: pytest.Collector):
    if any(fnmatch(file_path.name, pattern) for pattern in parent.config.getini("ocr_files")):
        return CaseFile.from_parent(parent, path=file_path)
    return None


class CaseFile(pytest.File):
    def collect(self):
        ocr = _ocr(self.config)
        self.ihook.pytest_ocr_register_engines(registry=ocr.registry)
        try:
            cases, scope = load_cases(self.path, ocr.project, ocr.relative(self.path.resolve()))
        except DocumentError as exc:
            yield InvalidCaseFile.from_parent(self, name=INVALID_FILE_ITEM, error=exc)
            return
        dataset = None
        if scope.dataset is not None:
            skipped = scope.dataset["skipped"]
            dataset = {**scope.dataset, "file": ocr.relative(Path(scope.dataset["file"])),
                       "skipped_count": len(skipped),  # every item's reports carry this: only the first few
                       "skipped": [{**s, "file": ocr.relative(Path(s["file"]))} for s in skipped[:SHOWN_SKIPPED]]}
        items = []
        for case in cases:
            for engine in ocr.engine_override or case.engines or (DEFAULT_ENGINE,):
                spec = scope.engines.get(engine)
                if spec is None and engine in ocr.registry:
                    spec = EngineSpec(name=engine, type=engine, base_dir=self.config.rootpath)
                items.append(OcrItem.from_parent(self, name=f"{case.id}[{engine}]", case=case,
                                                 engine_name=engine, spec=spec, known=sorted(scope.engines),
                                                 gates=scope.gates, dataset=dataset))
        yield from sorted(items, key=lambda item: item.name)


class InvalidCaseFile(pytest.Item):
    """A case file that cannot be loaded: one error listing every problem, so the
    rest of the suite still runs."""

    def __init__(self, *, error: DocumentError, **kwargs):
        super().__init__(**kwargs)
        self.error = error

    def setup(self) -> None:
        raise self.error

    def runtest(self) -> None:  # never reached: setup always fails
        raise self.error

    def reportinfo(self):
        return self.path, 0, f"{self.path.name}: invalid case file"


class ThresholdFailure(Exception):
    pass


class OcrItem(pytest.Item):
    """One case on one engine. Getting OCR output happens in setup (a failure there is
    an error); scoring and thresholds in the call (a miss there is a failure)."""

    def __init__(self, *, case: Case, engine_name: str, spec: EngineSpec | None, known: list[str],
                 gates: tuple = (), dataset: dict | None = None, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        # its file's aggregate gates and dataset counts: they travel to the controller on its reports
        self.gates = gates
        self.dataset = dataset
        self.engine_name = engine_name
        self.spec = spec
        self.known = known
        self.result: CaseResult | None = None
        self._started = 0.0
        for tag in case.tags:
            _ocr(self.config).tag_marker(tag)
            self.add_marker(tag)

    def setup(self) -> None:
        self._started = time.perf_counter()
        ocr = _ocr(self.config)
        self.inputs = check_inputs(self.case)
        if self.spec is None:
            raise EngineError(
                f"unknown engine {self.engine_name!r} (case {self.case.id} at {self.case.location}); "
                f"declared engines: {', '.join(self.known) or 'none'}; "
                f"engine types usable by name: {', '.join(ocr.registry.types())}"
            )
        self.engine = ocr.registry.create(self.spec)
        self.fingerprint = self.engine.fingerprint()
        recognize_case = functools.partial(recognize, self.engine, cache=ocr.cache, fingerprint=self.fingerprint,
                                           refresh=ocr.refresh)
        concurrency = getattr(self.engine, "concurrency", 1)
        if isinstance(concurrency, int) and concurrency > 1:
            key = self.spec.key()
            upcoming = ((other.nodeid, functools.partial(recognize_case, other.case))
                        for other in ocr.upcoming(self)
                        if isinstance(other, OcrItem) and other.spec is not None and other.spec.key() == key)
            self.timed = ocr.prefetch.result(self.nodeid, key, concurrency, upcoming)
        else:
            self.timed = recognize_case(self.case)
        self.filtered = filtered_reason(self.case, self.timed.recognition)
        if self.filtered:
            pytest.skip(self.filtered)
        self.extracted = extract(self.case, self.timed.recognition)

    def runtest(self) -> None:
        ocr = _ocr(self.config)
        recognition = self.timed.recognition
        evaluation = evaluate(self.case, self.inputs, recognition, self.extracted)
        compared = None
        if ocr.baseline is not None:
            tolerances = baseline_tolerances(self.case.regression, [t.metric for t in self.case.thresholds])
            compared = compare_with_baseline(ocr.baseline.records.get(self.nodeid), evaluation.metrics, tolerances)
        self.result = self._result(
            prediction=recognition.text,
            confidence=recognition.confidence,
            inference_s=self.timed.seconds,
            cached=self.timed.cached,
            fingerprint=self.fingerprint,
            baseline=compared,
            **evaluation.result_fields(),
        )
        # JUnit XML (--junitxml) shows each metric as a property of the test case.
        self.user_properties += [(f"ocr.{name}", value) for name, value in evaluation.metrics.items()]
        regressed = compared is not None and compared["regressed"] and ocr.baseline_verb != "update"
        if not evaluation.passed or regressed:
            if regressed:
                self.result.outcome = "failed"
            raise ThresholdFailure(
                failure_text(self.case, self.engine_name, self.inputs.reference, recognition.text, evaluation.checks,
                             evaluation.details, self.extracted.source, evaluation.warnings,
                             compared if regressed else None)
            )

    def _result(self, **fields) -> CaseResult:
        ocr = _ocr(self.config)
        return CaseResult(
            id=self.nodeid,
            case=self.case.id,
            file=ocr.relative(self.case.file),
            line=self.case.line,
            engine=self.engine_name,
            image=ocr.relative(self.case.image),
            tags=list(self.case.tags),
            group=self.case.group,
            reference=self.inputs.reference if hasattr(self, "inputs") else None,
            thresholds={t.metric: t.expression for t in self.case.thresholds},
            duration_s=time.perf_counter() - self._started if self._started else 0.0,
            **fields,
        )

    def error_result(self, message: str) -> CaseResult:
        return self._result(outcome="error", error=message, fingerprint=getattr(self, "fingerprint", None))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, (ThresholdFailure, *_CLEAN_ERRORS)):
            return str(excinfo.value)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.case.file, self.case.line - 1, f"{self.case.id}[{self.engine_name}]"


# -- carrying results on reports (they survive pytest-xdist's serialisation) --------


# Expected kinds of trouble: shown as their message alone, never as a traceback.
_CLEAN_ERRORS = (EngineError, CaseInputError, DocumentError, ExtractionError)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    error = call.excinfo.value if call.excinfo else None
    if call.when == "setup" and isinstance(error, _CLEAN_ERRORS):
        # pytest formats setup errors without asking the item (no repr_failure).
        report.longrepr = str(error)
    if isinstance(item, InvalidCaseFile) and call.when == "setup":
        report.ocr_invalid = {"file": _ocr(item.config).relative(item.path), "error": str(item.error)}
    if not isinstance(item, OcrItem):
        return report
    if item.gates and (call.when == "call" or report.failed):
        report.ocr_gates = [g.to_dict() for g in item.gates]
    if item.dataset is not None and (call.when == "call" or report.failed or report.skipped):
        report.ocr_dataset = item.dataset
    if call.when == "setup" and report.failed:
        message = str(error) if isinstance(error, _CLEAN_ERRORS) else f"{type(error).__name__}: {error}"
        report.ocr = item.error_result(message).to_dict()
    elif call.when == "setup" and report.skipped and getattr(item, "filtered", None):
        recognition = item.timed.recognition
        report.ocr = item._result(outcome="filtered", error=item.filtered, prediction=recognition.text,
                                  confidence=recognition.confidence, inference_s=item.timed.seconds,
                                  cached=item.timed.cached, fingerprint=item.fingerprint).to_dict()
    elif call.when == "call":
        if item.result is None:  # scoring itself raised: a bug or bad data, not a threshold miss
            item.result = item.error_result(f"{type(error).__name__}: {error}" if error else "no result")
        report.ocr = item.result.to_dict()
    return report


_CARRIED = ("ocr", "ocr_invalid", "ocr_gates", "ocr_dataset")


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(report):
    data = yield
    if data is not None:
        for key in _CARRIED:
            if getattr(report, key, None) is not None:
                data[key] = getattr(report, key)
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(data):
    report = yield
    if report is not None:
        for key in _CARRIED:
            if key in data:
                setattr(report, key, data[key])
    return report


# -- gates and crashed workers as test reports ----------------------------------------


def gate_report(result: GateResult) -> pytest.TestReport:
    """A gate as a test report of its own: pytest counts it (exit status), prints it,
    and JUnit XML records it, like any test."""
    return pytest.TestReport(
        nodeid=f"{GATE_FILE}::{result.name}",
        location=(GATE_FILE, None, result.name),
        keywords={},
        outcome="passed" if result.passed else "failed",
        longrepr=None if result.passed else result.message,
        when="call",
        user_properties=[("ocr.gate.value", result.value), ("ocr.gate.cases", result.cases)],
    )


def crashed_result(report: pytest.TestReport) -> CaseResult:
    """What is known of an item whose worker died while running it: its id."""
    path, _, name = report.nodeid.partition("::")
    case, _, engine = name[:-1].partition("[")
    message = str(report.longrepr).strip().splitlines()[-1] if report.longrepr else "the worker crashed"
    return CaseResult(id=report.nodeid, case=case, file=path, line=0, engine=engine, image="", outcome="error",
                      error=f"no result: {message}")
