"""pytest-ocr's command-line and ini options, and the settings they make: read and
checked once per process when pytest configures, so a mistake stops the run (exit
status 4, one line naming the option) before any OCR runs."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from ..errors import shortened
from ..limits import DEFAULT as DEFAULT_LIMITS
from ..limits import NAMES, OPTIONS, Limits, out_of_range
from ..project_files import DEFAULT_PATTERNS
from ..report.columns import terminal_columns
from ..run.baseline_defaults import DEFAULT_MIN_MATCH, VERBS, from_history
from ..run.identity import project_dir

if TYPE_CHECKING:
    from ..cases.gates import Gate
    from ..cases.model import Scope
    from ..history.url import HistoryTarget
    from ..run.baseline import Baseline
    from ..run.shard import Shard

# Read in every session: what only an OCR option or an ocr_config file needs is imported where it is used.


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("ocr", "OCR regression testing (pytest-ocr)")
    group.addoption(
        "--ocr-engine",
        metavar="NAME[,NAME]",
        help="run every OCR case on these engines instead of the ones the cases name",
    )
    group.addoption("--ocr-report", metavar="PATH", help="write a JSON report of all OCR items to PATH")
    group.addoption(
        "--ocr-summary",
        choices=("table", "json", "none"),
        default="table",
        help="the OCR section of the terminal summary: table (default), json (the report's summary and gates), none",
    )
    group.addoption(
        "--ocr-html",
        metavar="PATH",
        help="write a self-contained HTML report (summary, charts, per-case image and diff) to PATH",
    )
    group.addoption(
        "--ocr-results-dir", metavar="DIR", help="write the run as DIR/{run_id}/config.json, results.json, summary.json"
    )
    group.addoption(
        "--ocr-baseline",
        metavar="PATH",
        help="compare every item's metrics with this stored report and fail those that got worse "
        "by more than their tolerance (regression: in case files); history:BRANCH (its latest complete run "
        "in the history store) or history:merge-base[:BRANCH] (the run of the merge-base of HEAD and the "
        "pull request's target branch, default main) compare with a recorded run",
    )
    group.addoption(
        "--ocr-baseline-write",
        choices=VERBS,
        metavar="|".join(VERBS),
        help="after the run, write the --ocr-baseline file: create (add missing items only), "
        "update (replace every item that ran), ratchet (add new items, replace only improved ones)",
    )
    group.addoption(
        "--ocr-baseline-min-match",
        type=float,
        default=DEFAULT_MIN_MATCH,
        metavar="SHARE",
        help="warn when fewer than this share of the items find their record in the baseline "
        f"(default {DEFAULT_MIN_MATCH}); when none does, gating against it fails",
    )
    group.addoption(
        "--ocr-cache-dir",
        metavar="DIR",
        help="keep engine outputs in DIR (default: pytest's cache directory, .pytest_cache)",
    )
    group.addoption("--ocr-no-cache", action="store_true", help="neither read nor write cached engine outputs")
    group.addoption(
        "--ocr-refresh", action="store_true", help="run every engine again and overwrite the cached outputs"
    )
    group.addoption(
        "--ocr-gate",
        action="append",
        metavar="GATE",
        help='an aggregate gate judged after all items ran, per engine, e.g. "cer.micro<0.05" or '
        '"tag:receipts field_f1.macro >= 0.8"; against --ocr-baseline: "cer.macro:+0.002@95%%" (repeatable)',
    )
    group.addoption(
        "--ocr-shard",
        metavar="K/N|auto",
        help="run only shard K of N of the OCR items (a deterministic, balanced share by item key; "
        "auto: K and N from CI_NODE_INDEX and CI_NODE_TOTAL); pytest-ocr merge joins the shards' reports",
    )
    group.addoption(
        "--ocr-repeat",
        type=int,
        metavar="N",
        help="recognise every item N times (the repeats bypass the output cache), overriding repeat: in "
        "files; thresholds judge what repeat_judge says (default: each metric's mean)",
    )
    group.addoption(
        "--ocr-shard-durations",
        metavar="REPORT",
        help="with --ocr-shard: balance the shards by the items' durations in this JSON report",
    )
    group.addoption(
        "--ocr-github",
        choices=("auto", "off"),
        default="auto",
        help="GitHub Actions annotations and step summary: auto (default: when GITHUB_ACTIONS=true), or off "
        "(for the shards of a run whose pytest-ocr merge reports it, so each failure shows once)",
    )
    for name, kind, what in (  # the bounds on hostile input (limits.py)
        ("max_file_mb", float, "largest case, data, ground-truth, label or predictions file, in MB"),
        ("max_nesting", int, "deepest nesting of mappings and lists in a YAML or JSON file"),
        ("max_yaml_nodes", int, "most nodes a YAML document may expand to through aliases"),
        ("max_image_mb", float, "largest image or PDF file, in MB"),
        ("max_image_pixels", int, "most pixels (width x height) of a decoded image or a rasterised PDF page"),
        ("max_rasterise_mb", float, "most memory (address space) of the process rasterising PDF pages, in MB"),
        ("max_rasterise_s", float, "longest rasterising of one PDF page, in s"),
        (
            "max_lock_wait_s",
            float,
            "longest wait for another process's lock on a baseline file, a PDF page or the history store "
            "(or for its server to answer), in s",
        ),
        ("max_output_mb", float, "longest text of one recognition, in MB of UTF-8"),
        ("max_align_chars", int, "longest text aligned exactly; longer ones take a cheaper path (docs: Limits)"),
        ("max_render_s", float, "longest wait for one equation's KaTeX rendering in the browser (math checks), in s"),
        ("max_math_equations", int, "most equations of an output one math fact renders and compares"),
        ("max_math_s", float, "longest time one output's math facts may spend rendering and comparing, in s"),
        (
            "max_table_nodes",
            int,
            "most nodes of a table teds compares; a larger one counts as all wrong, with a warning",
        ),
        (
            "max_match_work",
            int,
            "most work of OmniDocBench's quick match of one page; past it the page is matched by its simple "
            "method, as OmniDocBench's timeout does, with a warning; past it in the simple match too, the item "
            "is an error",
        ),
        (
            "max_cdm_s",
            float,
            "longest time CDM may take on one page's display formulas, in s; past it the item is an error",
        ),
    ):
        default = getattr(DEFAULT_LIMITS, name)
        group.addoption(OPTIONS[name], type=kind, default=default, metavar="N", help=f"{what} (default {default})")
    group.addoption(
        "--ocr-chromium",
        metavar="PATH",
        help="the Chromium that renders equations for math checks (default: $PYTEST_OCR_CHROMIUM, "
        "else chromium, chromium-browser or google-chrome on the PATH)",
    )
    group.addoption(
        "--ocr-history",
        nargs="?",
        const="default",
        metavar="URL",
        help="record the run in a history store: sqlite:///PATH or postgresql://USER@HOST/DATABASE (default: "
        "$PYTEST_OCR_HISTORY_URL, else the ocr_history ini key; given bare: .pytest-ocr/history.sqlite in the project)",
    )
    group.addoption(
        "--ocr-history-suite",
        metavar="NAME",
        help="the name the run is recorded under in the history store (default: ocr_history_suite, else the "
        "project directory's name)",
    )
    group.addoption(
        "--ocr-history-required",
        action="store_true",
        help="fail the run when it cannot be recorded in the history store (default: a warning)",
    )
    parser.addini("ocr_history", "the history store's URL (see --ocr-history)", default="")
    parser.addini("ocr_history_suite", "the name runs are recorded under in the history store", default="")
    parser.addini("ocr_files", "glob patterns of OCR case files", type="args", default=list(DEFAULT_PATTERNS))
    parser.addini("ocr_config", "project configuration file (YAML: engines, defaults)", default="")


@dataclass
class Settings:
    """What the options say, checked. The same on every process of a run."""

    project_dir: Path  # item keys and report paths are relative to it (run/identity.py)
    project: Scope | None = None  # the ocr_config file's, when the ini file names one
    engine_override: tuple[str, ...] = ()
    gates: list[Gate] = field(default_factory=list)  # the project's and the command line's
    baseline: Baseline | None = None
    baseline_verb: str | None = None
    min_match: float = DEFAULT_MIN_MATCH
    report: Path | None = None
    html: Path | None = None
    results_dir: Path | None = None
    summary: str = "table"
    limits: Limits = DEFAULT_LIMITS
    columns: int | None = None  # the terminal's width (report/columns.py); None: no limit
    shard: Shard | None = None
    shard_durations: str | None = None  # the report the split is weighted by, as given
    shard_weights: dict[str, float] | None = None  # item key -> seconds, from that report
    repeat: int | None = None  # --ocr-repeat: recognitions per item, over what files say
    chromium: str | None = None  # --ocr-chromium: the browser math checks render equations in
    github: bool = True  # annotations and step summary under GitHub Actions (--ocr-github off: none)
    history: HistoryTarget | None = None  # where the run is recorded (--ocr-history)

    @classmethod
    def from_config(cls, config: pytest.Config, project: Path | None = None, columns: int | None = None) -> Settings:
        """Raises pytest.UsageError for any option that cannot be used. ``project`` and
        ``columns``: the project directory and terminal width the controller found (a
        worker takes them from there: its own output is not the terminal)."""
        here = config.invocation_params.dir
        option = config.getoption
        settings = cls(project or project_dir(config.inipath, here), summary=option("ocr_summary"))
        settings.github = option("ocr_github") != "off"
        settings.columns = columns if project is not None else terminal_columns()
        settings.limits = _limits(config)
        settings.repeat = option("ocr_repeat")
        if settings.repeat is not None and not 1 <= settings.repeat <= 1000:
            raise pytest.UsageError(
                f"--ocr-repeat: expected a whole number from 1 to 1000, not {shortened(settings.repeat)}"
            )
        chromium = option("ocr_chromium")
        settings.chromium = str(here / chromium) if chromium and "/" in chromium else chromium
        engines = option("ocr_engine")
        settings.engine_override = tuple(n.strip() for n in engines.split(",") if n.strip()) if engines else ()
        path = _project_config(config)
        if path is not None:
            from ..cases.loader import load_project_config
            from ..media.document import DocumentError

            if not path.is_file():
                raise pytest.UsageError(f"ocr_config: project configuration file not found: {path}")
            try:
                settings.project = load_project_config(path)
            except DocumentError as exc:
                raise pytest.UsageError(f"ocr_config: invalid project configuration\n{exc}") from None
            settings.gates = list(settings.project.gates)
        if option("ocr_gate"):
            from ..cases.gates import GateError
            from ..cases.gates import parse_cli as parse_gate

            for text in option("ocr_gate"):
                try:
                    settings.gates.append(parse_gate(text))
                except GateError as exc:
                    raise pytest.UsageError(str(exc)) from None
        settings.shard, settings.shard_durations, settings.shard_weights = _shard(config)
        settings.history = _history(config, settings.project_dir)
        settings.min_match = option("ocr_baseline_min_match")
        if not 0 <= settings.min_match <= 1:
            raise pytest.UsageError(f"--ocr-baseline-min-match: expected a share from 0 to 1, not {settings.min_match}")
        settings.baseline_verb = option("ocr_baseline_write")
        baseline = option("ocr_baseline")
        against = [g.expression for g in settings.gates if g.tolerance is not None and g.source == "--ocr-gate"]
        if against and not baseline:
            raise pytest.UsageError(f"--ocr-gate {against[0]!r} compares with a baseline: give --ocr-baseline PATH")
        if settings.baseline_verb and not baseline:
            raise pytest.UsageError("--ocr-baseline-write needs --ocr-baseline PATH: the file to write")
        if settings.baseline_verb and from_history(baseline):
            raise pytest.UsageError(
                f"--ocr-baseline-write with --ocr-baseline {baseline}: a run from history is not a file to write; "
                f"runs are recorded in the history store with --ocr-history"
            )
        if settings.baseline_verb and settings.shard:
            raise pytest.UsageError(
                "--ocr-baseline-write with --ocr-shard: a shard holds part of the run; write the baseline "
                "from the merged run (pytest-ocr merge ... --baseline PATH --baseline-write VERB)"
            )
        if from_history(baseline):
            settings.baseline = _history_baseline(config, settings, baseline)
            baseline = None  # not a file
        if not (baseline or option("ocr_report") or option("ocr_html") or option("ocr_results_dir")):
            return settings  # no file to read or write: nothing to check
        from ..files import OutputPathError, check_output_directory, check_output_file

        writes = not hasattr(config, "workerinput")  # only the controller writes files
        try:
            if baseline:
                path = here / baseline
                if settings.baseline_verb and writes:
                    check_output_file(path, "--ocr-baseline")
                settings.baseline = _baseline(path, missing_ok=bool(settings.baseline_verb))
            for name, attribute in (("--ocr-report", "report"), ("--ocr-html", "html")):
                value = option(name[2:].replace("-", "_"))
                if value:
                    setattr(settings, attribute, here / value)
                    if writes:
                        check_output_file(here / value, name)
            if option("ocr_results_dir"):
                settings.results_dir = here / option("ocr_results_dir")
                if writes:
                    check_output_directory(settings.results_dir, "--ocr-results-dir")
            if writes:
                _check_apart(config, settings)
        except OutputPathError as exc:
            raise pytest.UsageError(str(exc)) from None
        return settings


def _history(config: pytest.Config, project: Path) -> HistoryTarget | None:
    """Where the run is recorded, if anywhere: a URL that cannot be a store is a usage error,
    named without its credentials."""
    from ..history.url import ENV, asked  # no SQLAlchemy yet

    option = config.getoption
    wanted = option("ocr_history") is not None or option("ocr_history_required") or option("ocr_history_suite")
    ini = str(config.getini("ocr_history") or "")
    if not (wanted or ini or os.environ.get(ENV, "").strip()):
        return None  # SQLAlchemy is not imported

    given = asked(option("ocr_history"), os.environ, ini)
    if given is None:
        named = "--ocr-history-required" if option("ocr_history_required") else "--ocr-history-suite"
        raise pytest.UsageError(f"{named} needs a history store: --ocr-history [URL] (or PYTEST_OCR_HISTORY_URL)")
    return _history_target(config, project, given)


def _history_target(config: pytest.Config, project: Path, given: str | None) -> HistoryTarget:
    """The store at ``given`` (None: the project's SQLite file) and the suite the run is named by there."""
    from ..history.url import HistoryTarget, HistoryUrlError, check_suite, parse

    option = config.getoption
    named = option("ocr_history_suite") or str(config.getini("ocr_history_suite") or "")
    try:
        url = parse(given, project)
    except HistoryUrlError as exc:
        raise pytest.UsageError(f"--ocr-history: {exc}") from None
    try:
        suite = check_suite(named or project.name)
    except HistoryUrlError as exc:
        raise pytest.UsageError(f"--ocr-history-suite: {exc}") from None
    return HistoryTarget(url, suite, bool(option("ocr_history_required")))


def _history_baseline(config: pytest.Config, settings: Settings, given: str) -> Baseline:
    """The run ``given`` (history:...) names in the store the run records in, else the one
    PYTEST_OCR_HISTORY_URL or the ocr_history ini key names, else the project's SQLite file."""
    from ..history.baseline import HistoryBaselineError, load
    from ..history.url import asked

    where = settings.history
    if where is None:
        where = _history_target(config, settings.project_dir, asked(None, os.environ, config.getini("ocr_history")))
    try:
        return load(given, where, settings.project_dir, os.environ)
    except HistoryBaselineError as exc:
        raise pytest.UsageError(f"--ocr-baseline: {exc}") from None


def _baseline(path: Path, missing_ok: bool) -> Baseline:
    from ..run.baseline import Baseline
    from ..run.stored import ReportError

    try:
        return Baseline.load(path, missing_ok=missing_ok)
    except ReportError as exc:
        raise pytest.UsageError(f"--ocr-baseline: {exc}") from None


def is_case_file(path: Path, config: pytest.Config) -> bool:
    return any(fnmatch(path.name, pattern) for pattern in config.getini("ocr_files"))


def _project_config(config: pytest.Config) -> Path | None:
    """The ocr_config file the ini file names, relative to it."""
    ini = config.getini("ocr_config")
    if not ini:
        return None
    return ((config.inipath.parent if config.inipath else config.rootpath) / ini).resolve()


def _check_apart(config: pytest.Config, settings: Settings) -> None:
    """No output overwrites another, the project's own files (project_files.py: its ini file,
    ocr_config, case files, history store), nor lies in the results directory. Raises
    OutputPathError. A report the run reads (the baseline it compares with, the durations
    report) may be replaced by its report: a rolling baseline."""
    from ..files import check_apart
    from ..project_files import kept, sqlite_file

    written = settings.baseline.path if settings.baseline is not None and settings.baseline_verb else None
    named = (("--ocr-report", settings.report), ("--ocr-html", settings.html), ("--ocr-baseline", written))
    outputs = [(option, path) for option, path in named if path is not None]
    configured = _project_config(config)
    store = sqlite_file(settings.history.url) if settings.history is not None else None
    own = kept(
        settings.project_dir,
        config.inipath,
        [configured] if configured is not None else [],
        config.getini("ocr_files"),
        [store] if store is not None else [],
    )
    results = ("--ocr-results-dir", settings.results_dir) if settings.results_dir is not None else None
    check_apart(outputs, own.files, results, own.named)


def _limits(config: pytest.Config) -> Limits:
    values = {name: config.getoption(f"ocr_{name}") for name in NAMES}
    for name, value in values.items():
        wrong = out_of_range(name, value)
        if wrong is not None:
            raise pytest.UsageError(wrong)
    return Limits(**values)


def _shard(config: pytest.Config) -> tuple[Shard | None, str | None, dict[str, float] | None]:
    """--ocr-shard, and the durations that weight the split: what each item's engine and
    scoring cost in the given report (an output that came from the cache counts the engine
    time it took when it was made)."""
    text, durations = config.getoption("ocr_shard"), config.getoption("ocr_shard_durations")
    if text is None:
        if durations:
            raise pytest.UsageError("--ocr-shard-durations needs --ocr-shard K/N")
        return None, None, None
    from ..run.shard import Shard, ShardError
    from ..run.stored import ReportError, load_report

    try:
        shard = Shard.parse(text)
    except ShardError as exc:
        raise pytest.UsageError(str(exc)) from None
    if not durations:
        return shard, None, None
    try:
        document = load_report(config.invocation_params.dir / durations)
    except ReportError as exc:
        raise pytest.UsageError(f"--ocr-shard-durations: {exc}") from None
    weights = {
        r["key"]: r.get("duration_s", 0.0) + ((r.get("cached_inference_s") or 0.0) if r.get("cached") else 0.0)
        for r in document["results"]
    }
    return shard, durations, weights
