"""Running items on this process (the only one, or a pytest-xdist worker): an item's
pipeline (run/item.py) run in its setup and call, the engine called through the cache
and the prefetcher, one result made for whatever happened, and carried on the item's
test report.

Only public pytest hooks are used. To keep K recognitions in flight for an engine that
declares ``concurrency = K``, the executor needs the items this process will run
next: in a serial run that is the session's item list from this item on; on a
pytest-xdist worker it is only the next item, which ``pytest_runtest_protocol`` names
(a worker's queue is not public), so a worker keeps at most two in flight.
"""

from __future__ import annotations

import functools
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..run.identity import error_message, relative, relative_paths
from . import heap
from .items import InvalidCaseFile, OcrItem, ThresholdFailure
from .options import Settings

if TYPE_CHECKING:
    from ..cases.model import Case
    from ..engines import Engine, EngineRegistry
    from ..engines.cache import OutputCache
    from ..engines.prefetch import Prefetcher
    from ..engines.recognize import Timed
    from ..run.result import CaseResult, Outcome
    from ..run.shard import ShardInfo


def output_cache(config: pytest.Config) -> OutputCache | None:
    """Engine outputs on disk: in --ocr-cache-dir, else in pytest's cache directory
    (none when the cacheprovider plugin is off and no directory is given)."""
    from ..engines.cache import OutputCache

    if config.getoption("ocr_no_cache"):
        return None
    directory = config.getoption("ocr_cache_dir")
    if directory:
        return OutputCache(config.invocation_params.dir / directory)
    cache = getattr(config, "cache", None)
    return OutputCache(cache.mkdir("ocr-outputs")) if cache is not None else None


PAGES_DIR = "ocr_pages_dir"  # what the controller tells its pytest-xdist workers: Executor.pages_directory
EXECUTOR: pytest.StashKey[Executor] = pytest.StashKey()  # on every process, set in plugin/__init__.py


class Executor:
    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        # Made when OCR needs them (finding the engine types installed packages declare reads
        # every distribution's metadata): a session without OCR makes none of them.
        self._registry: EngineRegistry | None = None
        self._prefetch: Prefetcher | None = None
        self.refresh = bool(config.getoption("ocr_refresh"))
        self.is_worker = hasattr(config, "workerinput")
        self._pages: Path | None = None  # pages_directory
        self._temporary_pages: Path | None = None  # made for this run, removed at its end
        self.junit = bool(getattr(config.option, "xmlpath", None))
        self._tags: set[str] = set()
        self._next: dict[str, pytest.Item | None] = {}  # item id -> the item this process runs after it
        self._files_ended: set[str] = set()  # case files whose gates and dataset went with a report
        self._shard_sent = False
        self._order: dict[str, int] | None = None
        self.shard: ShardInfo | None = None  # with --ocr-shard, once collected

    @property
    def registry(self) -> EngineRegistry:
        if self._registry is None:
            from ..engines import EngineRegistry

            self._registry = EngineRegistry()
        return self._registry

    @property
    def prefetch(self) -> Prefetcher:
        if self._prefetch is None:
            from ..engines.prefetch import Prefetcher

            self._prefetch = Prefetcher()
        return self._prefetch

    @functools.cached_property
    def cache(self) -> OutputCache | None:
        return output_cache(self.config)

    def tag_marker(self, tag: str) -> None:
        """Register a case tag as a marker once, so --strict-markers accepts it."""
        if tag not in self._tags:
            self._tags.add(tag)
            self.config.addinivalue_line("markers", f"{tag}: OCR case tag (pytest-ocr)")

    # -- this process's share of the items ----------------------------------------------

    @pytest.hookimpl(trylast=True)  # after -k and -m: a shard is a share of what the command selected
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        shard = self.settings.shard
        if shard is None:
            return
        from ..run.shard import ShardInfo, assign

        keys = {it.nodeid: it.key for it in items if isinstance(it, (OcrItem, InvalidCaseFile))}
        assigned = assign(keys.values(), shard.total, self.settings.shard_weights)
        mine: list[pytest.Item] = []
        others: list[pytest.Item] = []  # other shards' items; other tests run in every shard
        for it in items:
            key = keys.get(it.nodeid)
            (mine if key is None or assigned[key] == shard.index else others).append(it)
        if others:
            config.hook.pytest_deselected(items=others)
            items[:] = mine
        self.shard = ShardInfo.of(shard, list(keys.values()), assigned, self.settings.shard_durations)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if any(isinstance(it, OcrItem) for it in session.items):
            from ..scoring import facts

            # Math checks render in a browser: the one the options name, renderings kept with the outputs.
            cache = self.cache
            katex = cache.directory / "katex" if cache is not None else None
            facts.configure(facts.MathSettings(self.settings.chromium, katex))
            heap.keep_collected()

    # -- the phases of an item --------------------------------------------------------

    def prepare(self, item: OcrItem) -> None:
        """Setup: inputs read, the engine's output got (an error here is the item's error)."""
        from ..run.item import ItemState, recognise

        state = item.state = ItemState.start()
        spec = item.spec
        repeat = self.settings.repeat or item.case.repeat or (spec.repeat if spec else None) or 1
        recognise(
            state,
            item.case,
            item.engine_name,
            functools.partial(self._engine, item),
            self.image_of,
            cache=self.cache,
            refresh=self.refresh,
            repeat=repeat,
            ahead=functools.partial(self._ahead, item),
        )
        if state.filtered:
            pytest.skip(state.filtered)

    def _engine(self, item: OcrItem) -> Engine:
        if item.spec is None:
            from ..engines import EngineError

            raise EngineError(
                f"unknown engine {item.engine_name!r} (case {item.case.id} at {item.case.location}); "
                f"declared engines: {', '.join(item.known) or 'none'}; "
                f"engine types usable by name: {', '.join(self.registry.types())}"
            )
        return self.registry.create(item.spec)

    def _ahead(self, item: OcrItem, run: Callable[[Case], Timed], concurrency: int) -> Timed:
        """The item's recognition from the prefetcher, which keeps ``concurrency`` of the
        engine's next items on this process in flight."""
        assert item.spec is not None
        key = item.spec.key()
        upcoming = (
            (other.nodeid, functools.partial(run, other.case))
            for other in self._upcoming(item)
            if isinstance(other, OcrItem) and other.spec is not None and other.spec.key() == key
        )
        return self.prefetch.result(item.nodeid, key, concurrency, upcoming)

    def image_of(self, case: Case) -> tuple[Path, float | None]:
        """The image engines read for ``case``: its own, or its PDF's page rasterised (once
        per page: media/pages.py), and the seconds rendering it took if it was rendered
        now. Raises CaseInputError, located."""
        from ..cases.inputs import CaseInputError
        from ..files import LockTimeout
        from ..media.images import ImageError
        from ..media.pages import rasterise

        page = case.pdf_page
        if page is None:
            return case.image, None
        directory = self.pages_directory()
        try:
            raster = rasterise(page, directory)
            return raster.path, raster.seconds
        except (ImageError, LockTimeout) as exc:
            raise CaseInputError(f"{exc} (case {case.id} at {case.location})") from None
        except OSError as exc:
            raise CaseInputError(
                f"cannot write the rasterised {page} in {directory}: {exc.strerror or exc} "
                f"(case {case.id} at {case.location}); give a writable --ocr-cache-dir"
            ) from None

    def pages_directory(self) -> Path:
        """Where this run's rasterised PDF pages are: ``<output cache>/pages``, kept between
        runs like the outputs; without a cache, a temporary directory removed when the run
        ends. pytest-xdist workers use the controller's (plugin/__init__.py)."""
        if self._pages is None:
            given = getattr(self.config, "workerinput", {}).get(PAGES_DIR)
            if given:
                self._pages = Path(given)
            elif self.cache is not None:
                self._pages = self.cache.directory / "pages"
            else:
                self._pages = self._temporary_pages = Path(tempfile.mkdtemp(prefix="pytest-ocr-pages-"))
        return self._pages

    def score(self, item: OcrItem) -> None:
        """Call: the output scored and judged; raises ThresholdFailure when it did not pass."""
        from ..run.item import judge

        state = item.state
        assert state is not None and state.extracted is not None
        case, baseline = item.case, self.settings.baseline
        judged = judge(
            case,
            state,
            self._named,
            functools.partial(baseline.compare, item.key) if baseline is not None else None,
            regressions_fail=self.settings.baseline_verb != "update",
        )
        evaluation, verdict = judged.evaluation, judged.verdict
        state.result = self.result(
            item,
            verdict.outcome,
            metrics=evaluation.metrics,
            details=evaluation.details,
            checks=evaluation.checks,
            tolerances={m: str(t) for m, t in judged.tolerances.items()},
            baseline=judged.comparison,
            fields=state.extracted.fields,
            fields_source=state.extracted.source,
            warnings=evaluation.warnings,
            repeats=judged.repeats,
            facts=judged.facts,
        )
        if self.settings.html is not None:  # only the HTML report shows them; from the texts as recorded (redacted)
            from ..scoring.scored import scored_texts

            r = state.result
            r.scored = scored_texts(r.reference, r.prediction, r.details, case.normalization)
        if self.junit:  # the properties cost every item time and memory; only JUnit XML reads them
            from ..report.junit import item_properties

            item.user_properties += item_properties(state.result)
        if not verdict.passed:
            location = relative_paths(case.location, self.settings.project_dir)
            raise ThresholdFailure(state.result, verdict.what, location, case.normalization)

    # -- the one result of an item ----------------------------------------------------

    def _named(self, path: Path) -> str:
        """A path as results name it: relative to the project directory."""
        return relative(path, self.settings.project_dir)

    def result(self, item: OcrItem, outcome: Outcome, **values: Any) -> CaseResult:
        """The item's result with everything known of it so far."""
        from ..run.item import input_hash
        from ..run.result import make_result

        case, state = item.case, item.state
        timed = state.timed if state else None
        recognition = timed.recognition if timed else None
        values.setdefault("warnings", list(recognition.warnings) if recognition else [])
        if outcome == "error" and case.checks:  # no output holds no fact (olmOCR-Bench counts them failed)
            from ..run.result import first_line
            from ..scoring import facts

            values.setdefault("facts", facts.unchecked(case, first_line(values.get("error")), self._named))
        origin = case.origin
        pdf = case.pdf_page  # a PDF case records which page engines read, and at what dpi
        return make_result(
            key=item.key,
            id=item.nodeid,
            case=case.id,
            file=item.file,
            line=case.line,
            engine=item.engine_name,
            image=item.image,
            page=pdf.number if pdf else None,
            dpi=pdf.dpi if pdf else None,
            rasterise_s=state.rasterise_s if state else None,
            outcome=outcome,
            tags=list(case.tags),
            group=case.group,
            reference=state.inputs.reference if state and state.inputs else None,
            prediction=recognition.text if recognition else None,
            confidence=recognition.confidence if recognition else None,
            thresholds={t.metric: t.expression for t in case.thresholds},
            started=state.started if state else None,
            duration_s=time.perf_counter() - state.clock if state else 0.0,
            inference_s=timed.seconds if timed and not timed.cached and not timed.stored else None,
            cached=bool(timed and timed.cached),
            cached_inference_s=timed.seconds if timed and timed.cached else None,
            fingerprint=state.fingerprint if state else None,
            input_hash=input_hash(state, case) if state else None,
            source_file=relative(origin[0], self.settings.project_dir) if origin else None,
            source_line=origin[1] if origin else None,
            **values,
        )

    def report_result(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
    ) -> CaseResult | None:
        """The result a phase's report carries, if that phase ends the item."""
        error = call.excinfo.value if call.excinfo else None
        if isinstance(item, InvalidCaseFile):
            if call.when != "setup":
                return None
            from ..run.result import INVALID_FILE_ITEM, make_result

            return make_result(
                key=item.key,
                id=item.nodeid,
                case=INVALID_FILE_ITEM,
                file=item.file,
                line=item.first_line,
                engine=None,
                image=None,
                outcome="invalid",
                error=error_message(item.error, self.settings.project_dir),
            )
        if not isinstance(item, OcrItem):
            return None
        state = item.state
        if report.skipped and call.when in ("setup", "call"):
            if state is not None and state.filtered:
                return self.result(item, "filtered", error=state.filtered)
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            return self.result(item, "skipped", error=reason)
        if call.when == "setup" and report.failed:
            return self.result(item, "error", error=error_message(error, self.settings.project_dir))
        if call.when == "call":
            if state is not None and state.result is not None:
                return state.result
            message = error_message(error, self.settings.project_dir)  # scoring itself raised
            return self.result(item, "error", error=message)
        return None

    def shard_to_send(self) -> ShardInfo | None:
        """This process's shard, the first time a report can carry it to the controller."""
        if self.shard is None or self._shard_sent:
            return None
        self._shard_sent = True
        return self.shard

    def first_of_file(self, item: OcrItem) -> bool:
        """Whether ``item`` is the first of its case file to end on this process."""
        if item.file in self._files_ended:
            return False
        self._files_ended.add(item.file)
        return True

    # -- what runs next on this process ------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        self._next[item.nodeid] = nextitem
        try:
            return (yield)
        finally:
            self._next.pop(item.nodeid, None)

    def _upcoming(self, item: pytest.Item) -> list[pytest.Item]:
        """The items this process runs from ``item`` on, in order, as far as known."""
        if self.is_worker:
            following = self._next.get(item.nodeid)
            return [item] if following is None else [item, following]
        items = item.session.items
        if self._order is None:
            self._order = {it.nodeid: i for i, it in enumerate(items)}
        start = self._order.get(item.nodeid)
        return [item] if start is None else items[start:]

    def pytest_unconfigure(self) -> None:
        heap.release()
        if self._prefetch is not None:
            self._prefetch.close()
        if self._registry is not None:
            self._registry.close()
        if self._temporary_pages is not None:
            shutil.rmtree(self._temporary_pages, ignore_errors=True)
