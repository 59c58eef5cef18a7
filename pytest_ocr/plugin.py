"""pytest hooks: collect OCR case files as items, carry results to the controller,
print the summary and write the report. Logic lives in the modules these call."""

from __future__ import annotations

import functools
import time
from datetime import datetime, timezone
from fnmatch import fnmatch
from pathlib import Path

import pytest

from . import hooks
from .cases.document import DocumentError
from .cases.loader import load_cases, load_project_config
from .cases.model import Case, Defaults, Scope
from .engines import EngineError, EngineRegistry, EngineSpec
from .prefetch import Prefetcher
from .report import json_report, terminal
from .report.failure import failure_text
from .results import CaseResult, summarize
from .extract import ExtractionError
from .runner import CaseInputError, check_inputs, evaluate, extract, recognize

DEFAULT_ENGINE = "tesseract"
DEFAULT_PATTERNS = ["*.ocr.yaml", "*.ocr.yml", "*.ocr.json"]
INVALID_FILE_ITEM = "invalid-case-file"


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
        self._summaries = None
        self.started = time.time()
        self._root = config.rootpath.resolve()
        option = config.getoption("ocr_engine")
        self.engine_override = tuple(n.strip() for n in option.split(",") if n.strip()) if option else ()
        self.project = Scope(Defaults(), {})
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
        if getattr(report, "ocr_invalid", None) is not None:
            self.invalid_files[report.nodeid] = report.ocr_invalid

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        path = self.config.getoption("ocr_report")
        if not path or hasattr(self.config, "workerinput"):
            return
        results = list(self.results.values())
        finished = time.time()
        run = {
            "started_at": datetime.fromtimestamp(self.started, timezone.utc).isoformat(),
            "finished_at": datetime.fromtimestamp(finished, timezone.utc).isoformat(),
            "duration_s": finished - self.started,
            "pytest": pytest.__version__,
            "workers": int(getattr(self.config.option, "numprocesses", 0) or 0),
        }
        target = self.config.invocation_params.dir / path
        json_report.write(
            target, json_report.build(results, self.summaries(), run, list(self.invalid_files.values()))
        )
        self.report_path = target

    def pytest_terminal_summary(self, terminalreporter) -> None:
        results = list(self.results.values())
        verbosity = self.config.get_verbosity()
        if not results or verbosity < -1:
            return
        thresholded = {c["metric"] for r in results for c in r.checks}
        terminalreporter.section("OCR summary")
        for line in terminal.summary_lines(results, self.summaries(), verbosity, thresholded):
            terminalreporter.write_line(line)
        if self.report_path:
            terminalreporter.write_line(f"OCR report: {self.report_path}")

    def summaries(self):
        """Aggregates of the results, computed once for the terminal and the report."""
        if self._summaries is None:
            self._summaries = summarize(list(self.results.values()))
        return self._summaries

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
            cases, scope = load_cases(self.path, ocr.project)
        except DocumentError as exc:
            yield InvalidCaseFile.from_parent(self, name=INVALID_FILE_ITEM, error=exc)
            return
        items = []
        for case in cases:
            for engine in ocr.engine_override or case.engines or (DEFAULT_ENGINE,):
                spec = scope.engines.get(engine)
                if spec is None and engine in ocr.registry:
                    spec = EngineSpec(name=engine, type=engine, base_dir=self.config.rootpath)
                items.append(OcrItem.from_parent(self, name=f"{case.id}[{engine}]", case=case,
                                                 engine_name=engine, spec=spec, known=sorted(scope.engines)))
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

    def __init__(self, *, case: Case, engine_name: str, spec: EngineSpec | None, known: list[str], **kwargs):
        super().__init__(**kwargs)
        self.case = case
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
        concurrency = getattr(self.engine, "concurrency", 1)
        if isinstance(concurrency, int) and concurrency > 1:
            key = self.spec.key()
            upcoming = ((other.nodeid, functools.partial(recognize, self.engine, other.case))
                        for other in ocr.upcoming(self)
                        if isinstance(other, OcrItem) and other.spec is not None and other.spec.key() == key)
            self.timed = ocr.prefetch.result(self.nodeid, key, concurrency, upcoming)
        else:
            self.timed = recognize(self.engine, self.case)
        self.extracted = extract(self.case, self.timed.recognition)

    def runtest(self) -> None:
        recognition = self.timed.recognition
        evaluation = evaluate(self.case, self.inputs, recognition, self.extracted)
        self.result = self._result(
            prediction=recognition.text,
            confidence=recognition.confidence,
            inference_s=self.timed.seconds,
            fingerprint=self.fingerprint,
            **evaluation.result_fields(),
        )
        if not evaluation.passed:
            raise ThresholdFailure(
                failure_text(self.case, self.engine_name, self.inputs.reference, recognition.text, evaluation.checks,
                             evaluation.details, self.extracted.source, evaluation.warnings)
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
    if call.when == "setup" and report.failed:
        message = str(error) if isinstance(error, _CLEAN_ERRORS) else f"{type(error).__name__}: {error}"
        report.ocr = item.error_result(message).to_dict()
    elif call.when == "call":
        if item.result is None:  # scoring itself raised: a bug or bad data, not a threshold miss
            item.result = item.error_result(f"{type(error).__name__}: {error}" if error else "no result")
        report.ocr = item.result.to_dict()
    return report


_CARRIED = ("ocr", "ocr_invalid")


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
