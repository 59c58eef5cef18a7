"""What a case is, once its file has been loaded, validated and merged with defaults."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from pathlib import Path

from ..codec import Coded
from ..media.pages import DEFAULT_DPI, DEFAULT_PAGE, Page, is_pdf
from ..metrics import Normalization
from ..metrics.facts import Fact
from ..metrics.normalize import respelled
from .datasets import Skipped
from .rules import Threshold, Tolerance


@dataclass(frozen=True, slots=True)  # a run holds one per item to its end: no __dict__ (1.3 kB each)
class Case:
    id: str
    file: Path
    line: int
    image: Path  # absolute
    expected_text: str | None  # inline ground truth
    expected_text_file: Path | None  # read when the item runs, so one bad file fails one item
    engines: tuple[str, ...]
    thresholds: tuple[Threshold, ...]
    normalization: Normalization
    tags: tuple[str, ...]
    cer_denominator: str = "ref"
    empty_reference_value: str = "one"  # cer and wer of an empty reference: one | errors
    metrics: tuple[str, ...] = ()  # computed besides the defaults and the thresholded ones
    group: str | None = None
    # Structured output: read when the item runs, like the text file.
    expected_fields: dict | None = None
    expected_fields_file: Path | None = None
    schema: dict | bool | None = None
    schema_file: Path | None = None
    match: dict = field(default_factory=dict)  # field key path -> Matcher
    extract: dict = field(default_factory=dict)  # {"fields": {name: regex}, "function": "module:function"}
    task: dict | None = None
    tokens: dict = field(default_factory=dict)  # {"encoding", "price_per_1k"}
    regression: dict[str, Tolerance | None] = field(default_factory=dict)  # metric -> tolerance; None: not compared
    # An output whose engine confidence is below this is filtered: not evaluated, counted
    # apart (a dataset's conf_threshold). None: never filtered.
    min_confidence: float | None = None
    source: str | None = None  # where a dataset's case comes from: "labels.txt:17", an image, a PAGE file
    # Recognitions per item (None: the engine's `repeat`, else 1) and how they are judged
    # (scoring/repeats.py): mean | worst | all.
    repeat: int | None = None
    repeat_judge: str = "mean"
    # Facts about the page its output must hold (olmOCR-Bench's checks; metrics/facts.py), and where
    # each is written (file and line: its `checks:` entry, an olmOCR-Bench JSONL line).
    checks: tuple[Fact, ...] = ()
    check_sources: tuple[tuple[Path, int], ...] = ()
    # For a PDF image: the page the engines read and its resolution, as set (None: page 1,
    # pages.DEFAULT_DPI; see pdf_page). Other images are read as they are.
    page: int | None = None
    dpi: int | None = None
    # OmniDocBench ground truth (cases/datasets/omnidocbench.py): a dataset's page, given
    # whole, or a file read when the item runs, with the name of the page to take from it.
    layout: dict | None = None
    layout_file: Path | None = None
    layout_page: str | None = None

    @property
    def has_reference_text(self) -> bool:
        return self.expected_text is not None or self.expected_text_file is not None

    @property
    def has_fields(self) -> bool:
        return self.expected_fields is not None or self.expected_fields_file is not None

    @property
    def has_schema(self) -> bool:
        return self.schema is not None or self.schema_file is not None

    @property
    def inputs(self) -> set[str]:
        """What the case gives besides the output (the metric registry's ``needs``)."""
        present = (
            ("text", self.has_reference_text),
            ("fields", self.has_fields),
            ("schema", self.has_schema),
            ("task", self.task is not None),
            ("checks", bool(self.checks)),
            ("layout", self.layout is not None or self.layout_file is not None),
        )
        return {name for name, has in present if has}

    @property
    def origin(self) -> tuple[Path, int] | None:
        """The data file and line a dataset case comes from, for pointing people at it: the
        label-file or ground-truth-JSON line, the layout file; for an image with side-car
        ground truth (pairs, model-csv), that ground-truth file, since a diff shows no image
        line. None for a case written in its case file."""
        if self.source is None:
            return None
        path, colon, line = self.source.rpartition(":")
        if colon and path and line.isdigit() and int(line) > 0:
            return Path(path), int(line)
        if Path(self.source) == self.image and self.expected_text_file is not None:
            return self.expected_text_file, 1
        return Path(self.source), 1

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" + (f" (from {self.source})" if self.source else "")

    @property
    def pdf_page(self) -> Page | None:
        """The page engines read when the image is a PDF (rasterised: media/pages.py); None otherwise."""
        if not is_pdf(self.image):
            return None
        return Page(self.image, self.page or DEFAULT_PAGE, self.dpi or DEFAULT_DPI)


@dataclass(frozen=True)
class Defaults:
    """Settings inherited by cases (project config, then a suite's ``defaults:``)."""

    engine: tuple[str, ...] = ()
    thresholds: dict | None = None  # metric -> expression (None removes)
    normalize: dict | None = None
    tags: tuple[str, ...] = ()
    cer_denominator: str = "ref"
    empty_reference_value: str = "one"
    metrics: tuple[str, ...] = ()
    group: str | None = None
    match: dict | None = None
    extract: dict | None = None
    tokens: dict | None = None
    regression: dict | None = None
    min_confidence: float | None = None
    repeat: int | None = None
    repeat_judge: str = "mean"
    dpi: int | None = None  # of the cases whose image is a PDF

    def merged(self, block: dict) -> Defaults:
        """These defaults overridden by a ``defaults:`` block or a case: mappings key by
        key (``extract.fields`` too), lists added up, single values replaced."""
        engine = block.get("engine")
        normalize = block.get("normalize", {})
        if isinstance(normalize, str):
            normalize = {"profile": normalize}
        elif isinstance(normalize, dict):
            try:
                normalize = respelled(normalize)
            except ValueError:
                pass  # left as written: building the Normalization reports it, located
        return Defaults(
            engine=tuple([engine] if isinstance(engine, str) else engine) if engine else self.engine,
            thresholds={**(self.thresholds or {}), **block.get("thresholds", {})},
            normalize={**(self.normalize or {}), **normalize},
            tags=tuple(dict.fromkeys(self.tags + tuple(block.get("tags", ())))),
            cer_denominator=block.get("cer_denominator", self.cer_denominator),
            empty_reference_value=block.get("empty_reference_value", self.empty_reference_value),
            metrics=tuple(dict.fromkeys(self.metrics + tuple(block.get("metrics", ())))),
            group=block.get("group", self.group),
            match={**(self.match or {}), **block.get("match", {})},
            extract=_merge_extract(self.extract or {}, block.get("extract", {})),
            tokens={**(self.tokens or {}), **block.get("tokens", {})},
            regression={**(self.regression or {}), **block.get("regression", {})},
            min_confidence=block.get("min_confidence", self.min_confidence),
            repeat=block.get("repeat", self.repeat),
            repeat_judge=block.get("repeat_judge", self.repeat_judge),
            dpi=block.get("dpi", self.dpi),
        )


INHERITED = frozenset(f.name for f in fields(Defaults))  # the keys of a block that Defaults.merged reads


def _merge_extract(inherited: dict, block: dict) -> dict:
    merged = {**inherited, **block}
    if "fields" in inherited and "fields" in block:
        merged["fields"] = {**inherited["fields"], **block["fields"]}
    return merged


SHOWN_SKIPPED = 20  # skipped dataset entries kept (they travel on every item's reports) and shown, per file


@dataclass(frozen=True)
class DatasetInfo(Coded):
    """A suite's ``dataset:`` block as its adapter read it: total = cases + skipped."""

    file: str  # the suite file
    line: int
    type: str
    total: int
    cases: int
    skipped: tuple[Skipped, ...]  # the first few entries that became no case
    skipped_count: int
    allow_empty: bool = False  # a run in which it evaluates nothing does not fail


@dataclass(frozen=True)
class Scope:
    """What a case file inherits: defaults and engine declarations by name; and the
    aggregate gates its ``aggregate:`` block declares."""

    defaults: Defaults
    engines: dict  # name -> EngineSpec
    gates: tuple = ()  # of gates.Gate
    dataset: DatasetInfo | None = None  # its ``dataset:`` block, read
