"""pytest's view of case files: a case file is a pytest File, each case × engine an
Item, a file that cannot be loaded one error item. What an item does when it runs is
the executor's (plugin/executor.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import pytest
from _pytest._code.code import ReprExceptionInfo, ReprFileLocation, ReprTracebackNative

from ..errors import OcrError, OutOfMemory
from ..run.identity import error_message, item_key, relative
from ..visible import visible

if TYPE_CHECKING:
    from ..cases.gates import Gate
    from ..cases.model import Case, DatasetInfo
    from ..engines import EngineRegistry, EngineSpec
    from ..media.document import DocumentError
    from ..metrics import Normalization
    from ..run.result import CaseResult
    from .options import Settings

# Defined in every session (hooks test items against these classes): loading and reporting
# cases import their modules when a case file is collected.

DEFAULT_ENGINE = "tesseract"


class Runner(Protocol):
    """What case files and items need from the executor that runs them (plugin/executor.py)."""

    settings: Settings

    @property
    def registry(self) -> EngineRegistry: ...

    def tag_marker(self, tag: str) -> None: ...

    def prepare(self, item: OcrItem) -> None: ...

    def score(self, item: OcrItem) -> None: ...


class CaseFile(pytest.File):
    def __init__(self, *, runner: Runner, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.runner = runner

    def collect(self) -> Iterator[pytest.Item]:
        from ..cases.loader import load_cases
        from ..cases.model import Defaults, Scope
        from ..engines import EngineSpec
        from ..media.document import DocumentError
        from ..run.result import INVALID_FILE_ITEM

        runner = self.runner
        settings = runner.settings
        self.ihook.pytest_ocr_register_engines(registry=runner.registry)

        def name(path: Path) -> str:
            return relative(path, settings.project_dir)

        project = settings.project if settings.project is not None else Scope(Defaults(), {})
        try:
            cases, scope = load_cases(self.path, project, name)
        except DocumentError as exc:
            yield InvalidCaseFile.from_parent(self, name=INVALID_FILE_ITEM, error=exc, file=name(self.path.resolve()))
            return
        items = []
        known = sorted(scope.engines)  # one list for the file's items
        files: dict[Path, str] = {}  # one string for the items of a file (a result keeps it to the end)
        for case in cases:
            if case.file not in files:
                files[case.file] = name(case.file)
            file, image = files[case.file], name(case.image)
            for engine in settings.engine_override or case.engines or (DEFAULT_ENGINE,):
                spec = scope.engines.get(engine)
                if spec is None and engine in runner.registry:
                    spec = EngineSpec(name=engine, type=engine, base_dir=self.config.rootpath)
                items.append(
                    OcrItem.from_parent(
                        self,
                        runner=runner,
                        name=f"{case.id}[{engine}]",
                        case=case,
                        engine_name=engine,
                        spec=spec,
                        known=known,
                        gates=scope.gates,
                        dataset=scope.dataset,
                        key=item_key(file, case.id, engine),
                        file=file,
                        image=image,
                    )
                )
        yield from sorted(items, key=lambda item: item.name)


class InvalidCaseFile(pytest.Item):
    """A case file that cannot be loaded: one error listing every problem, so the
    rest of the suite still runs."""

    def __init__(self, *, error: DocumentError, file: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.error = error
        self.file = file  # as reports name it

    @property
    def key(self) -> str:
        from ..run.result import INVALID_FILE_ITEM

        return f"{self.file}::{INVALID_FILE_ITEM}"

    @property
    def first_line(self) -> int:
        return min((p.line for p in self.error.problems if p.line), default=1)

    def setup(self) -> None:
        raise self.error

    def runtest(self) -> None:  # never reached: setup always fails
        raise self.error

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.path, self.first_line - 1, f"{self.path.name}: invalid case file"


class ThresholdFailure(Exception):
    """A scored item that did not pass: its text is written in the traceback style asked for."""

    def __init__(self, result: CaseResult, what: str, location: str, normalization: Normalization) -> None:
        super().__init__(result, what, location, normalization)
        self.result, self.what, self.location, self.normalization = result, what, location, normalization

    def text(self, style: str = "long", columns: int | None = None) -> str:
        from ..report.failure import failure_text

        return failure_text(self.result, self.what, self.location, self.normalization, style, columns)

    def __str__(self) -> str:
        return self.text()


def _shown(where: tuple[str, int], message: str, text: str) -> ReprExceptionInfo:
    """A failure as pytest shows it: ``text`` in the failures section, and ``where:
    message`` as its one line (``--tb=line``, the short test summary, JUnit's message).
    pytest's own representation classes, so pytest-xdist carries it to the controller."""
    lines = [text + "\n"] if text else []
    return ReprExceptionInfo(ReprTracebackNative(lines), ReprFileLocation(where[0], where[1], message))


class OcrItem(pytest.Item):
    """One case on one engine. Getting the OCR output happens in setup (a failure there
    is an error); scoring and thresholds in the call (a miss there is a failure)."""

    def __init__(
        self,
        *,
        runner: Runner,
        case: Case,
        engine_name: str,
        spec: EngineSpec | None,
        known: list[str],
        gates: tuple[Gate, ...],
        dataset: DatasetInfo | None,
        key: str,
        file: str,
        image: str,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.engine_name = engine_name
        self.spec = spec
        self.known = known  # engines declared where the case is, for the unknown-engine message
        # the file's aggregate gates and dataset accounting: they travel to the controller on reports
        self.gates = gates
        self.dataset = dataset
        self.key = key
        self.file = file
        self.image = image
        self.runner = runner
        self.state: Any = None  # the executor's ItemState while the item runs
        for tag in case.tags:
            runner.tag_marker(tag)
            self.add_marker(tag)

    def setup(self) -> None:
        try:
            self.runner.prepare(self)
        except MemoryError:
            raise OutOfMemory("while the item read its inputs and got its output") from None

    def runtest(self) -> None:
        try:
            self.runner.score(self)
        except MemoryError:
            raise OutOfMemory("while the item was scored") from None

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        # The message alone, made visible: it carries engine output and error messages.
        error = excinfo.value
        origin = self.case.origin  # a dataset entry's own file and line
        where = (
            (relative(origin[0], self.runner.settings.project_dir), origin[1])
            if origin
            else (self.file, self.case.line)
        )
        if isinstance(error, ThresholdFailure):
            from ..report.failure import STYLES, failure_line

            tb = style or self.config.getoption("tbstyle", "auto")
            if tb not in STYLES:
                tb = "long"
            columns = self.runner.settings.columns
            text = "" if tb == "line" else error.text(tb, columns)
            return _shown(where, failure_line(error.result), text)
        if isinstance(error, OcrError):
            text = visible(error_message(error, self.runner.settings.project_dir), multiline=True)
            return _shown(where, text.partition("\n")[0], text)
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int, str]:
        return self.case.file, self.case.line - 1, f"{self.case.id}[{self.engine_name}]"
