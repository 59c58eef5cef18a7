"""The ``pytest-ocr`` command: the plugin's building blocks without pytest.

    pytest-ocr score REFERENCE HYPOTHESIS [--metric NAME ...] [--normalize PROFILE|MAPPING] [--json]
    pytest-ocr score --case FILE::ID HYPOTHESIS [--config FILE] [--json]

scores two text files exactly as a case would (same normalisation, same metrics), or an
output against a case of a case file, with everything the case says (its ground truth,
normalisation, metrics, field extraction and matchers): the numbers its item reports.

    pytest-ocr serve --engine NAME [--config FILE] [--host HOST] [--port PORT] [--workers N] [--queue M]
                     [--max-body-mb MB] [--body-timeout SECONDS] [--backlog N] [--header-timeout SECONDS]
                     [--max-connections N] [--max-inflight-mb MB]

serves an engine as an HTTP OCR worker (see pytest_ocr/serve.py).

    pytest-ocr compare BASE.json HEAD.json [--fail-on RULE ...] [--markdown | --json]

compares two JSON reports and exits 1 when a rule is violated (see pytest_ocr/run/comparison.py);
BASE may be a run in the history store, history:BRANCH or history:merge-base[:BRANCH] (--history URL).

    pytest-ocr merge SHARD.json... [-o RUN.json] [--html PATH] [--results-dir DIR] [--project DIR]
                     [--baseline PATH [--baseline-write VERB] [--baseline-min-match SHARE]]
                     [--summary table|json|none] [--history [URL] [--history-suite NAME] [--history-required]]

joins the reports of a suite's shards (--ocr-shard K/N) into the report of the whole run,
judges its aggregate gates and baseline, writes the outputs asked for and GitHub's step
summary, and exits as pytest would have on the whole run (see pytest_ocr/run/merge.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .errors import OcrError
from .files import decode_text
from .metrics import (
    CER_DENOMINATORS,
    DEFAULT_METRICS,
    EMPTY_REFERENCE_VALUES,
    METRICS,
    PROFILES,
    MetricResult,
    Normalization,
    score,
)
from .report.columns import fit, terminal_columns
from .run.baseline_defaults import DEFAULT_MIN_MATCH, VERBS, from_history
from .storable import json_safe
from .visible import visible

if TYPE_CHECKING:
    from .history.url import HistoryTarget
    from .run.baseline import Baseline
    from .run.record import RunRecord

TEXT_LIST_LIMIT = 20


class CliError(OcrError):
    pass


def _read(path: str) -> str:
    try:
        return decode_text(Path(path).read_bytes())
    except FileNotFoundError:
        raise CliError(f"file not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise CliError(f"{path} is not UTF-8 ({exc.reason} at byte {exc.start})") from None


def _normalization(args: argparse.Namespace) -> Normalization:
    """--normalize as a case file's ``normalize:`` (a profile name or a YAML mapping), --unit over it."""
    from .media.document import DocumentError, parse

    try:
        given = parse(args.normalize, Path("--normalize")).data
    except DocumentError as exc:
        raise CliError(f"--normalize: {exc}") from None
    options = {"profile": given} if isinstance(given, str) else given
    if not isinstance(options, dict):
        raise CliError(f"--normalize: a profile ({', '.join(PROFILES)}) or a mapping, not {args.normalize!r}")
    if args.unit:
        options = {**options, "unit": args.unit}
    try:
        return Normalization.from_dict(options)
    except ValueError as exc:
        raise CliError(f"--normalize: {exc}") from None


def _print_scores(results: dict, normalization: Normalization, as_json: bool) -> None:
    if as_json:
        document = {name: {"value": r.value, "counts": r.counts, "details": r.details} for name, r in results.items()}
        print(json.dumps(json_safe(document), indent=2, ensure_ascii=False, allow_nan=False))
        return
    width = max(len(n) for n in results)
    print(f"normalisation: {', '.join(normalization.steps()) or 'none'}; unit: {normalization.unit}")
    for name, r in results.items():
        shown = f"{r.value:.6f}" if isinstance(r.value, (int, float)) else str(r.value)
        print(f"{name.ljust(width)}  {shown}  ({METRICS[name].better} is better)")


def cmd_score(args: argparse.Namespace) -> int:
    if args.case:
        return _score_case(args)
    if args.hypothesis is None:
        raise CliError("score needs REFERENCE and HYPOTHESIS, or --case FILE::ID and HYPOTHESIS")
    names = args.metric or list(DEFAULT_METRICS)
    unknown = [n for n in names if n not in METRICS]
    if unknown:
        raise CliError(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(sorted(METRICS))}")
    texts = ("text", "output")  # what score has: two texts
    beyond_text = [n for n in names if not METRICS[n].accepts(texts)]
    if beyond_text:
        raise CliError(
            f"{', '.join(beyond_text)} need(s) expected fields, a schema or a task, which a case file "
            f"gives; score compares two texts (its metrics: "
            f"{', '.join(n for n, m in METRICS.items() if m.accepts(texts))})"
        )
    normalization = _normalization(args)
    results = score(
        _read(args.reference),
        _read(args.hypothesis),
        names,
        normalization,
        args.cer_denominator,
        empty_reference_value=args.empty_reference_value,
    )
    _print_scores(results, normalization, args.json)
    return 0


def _score_case(args: argparse.Namespace) -> int:
    """The output file scored as the case's item scores an engine's output."""
    from .cases.inputs import CaseInputError
    from .cases.loader import load_cases, load_project_config
    from .cases.model import Defaults, Scope
    from .engines import Recognition
    from .media.document import DocumentError
    from .run.item import ItemState, given, judge
    from .scoring.extract import ExtractionError

    if args.hypothesis is not None:
        raise CliError("with --case, give only the output to score: the case gives the ground truth")
    chosen = args.normalize != "default" or args.unit or args.empty_reference_value != "one"
    if args.metric or chosen or args.cer_denominator != "ref":
        raise CliError(
            "with --case, the case decides the metrics and normalisation: drop --metric, "
            "--normalize, --unit, --cer-denominator and --empty-reference-value"
        )
    file, sep, case_id = args.case.rpartition("::")
    if not sep or not file or not case_id:
        raise CliError(f"--case: FILE::ID, e.g. receipts.ocr.yaml::r-001, not {args.case!r}")
    try:
        project = load_project_config(Path(args.config)) if args.config else Scope(Defaults(), {})
        cases, _ = load_cases(Path(file), project)
    except DocumentError as exc:
        raise CliError(str(exc)) from None
    except FileNotFoundError as exc:
        raise CliError(f"file not found: {exc.filename}") from None
    found = [case for case in cases if case.id == case_id]
    if not found:
        ids = [case.id for case in cases]
        shown = ", ".join(ids[:TEXT_LIST_LIMIT]) + (
            f" and {len(ids) - TEXT_LIST_LIMIT} more" if len(ids) > TEXT_LIST_LIMIT else ""
        )
        raise CliError(f"--case: no case {case_id!r} in {file}; its cases: {shown or 'none'}")
    case = found[0]
    state = ItemState.start()
    try:
        given(state, case, Recognition(text=_read(args.reference)))
        evaluation = judge(case, state, Path.as_posix).evaluation
    except (CaseInputError, ExtractionError) as exc:
        raise CliError(str(exc)) from None
    results = {
        name: MetricResult(evaluation.metrics[name], d.get("counts", {}), {k: v for k, v in d.items() if k != "counts"})
        for name, d in evaluation.details.items()
    }
    _print_scores(results, case.normalization, args.json)
    for warning in evaluation.warnings:
        print(f"warning: {visible(warning)}", file=sys.stderr)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from . import serve  # the engines and the HTTP server are not needed for `score`

    settings = serve.Settings(
        workers=args.workers,
        queue=args.queue,
        max_body_mb=args.max_body_mb,
        body_timeout=args.body_timeout,
        backlog=args.backlog,
        header_timeout=args.header_timeout,
        max_connections=args.max_connections,
        max_inflight_mb=args.max_inflight_mb,
    )
    return serve.run(args.engine, Path(args.config) if args.config else None, args.host, args.port, settings)


def cmd_compare(args: argparse.Namespace) -> int:
    from .report.compare_text import comparison_text
    from .report.json_report import comparison_document
    from .report.markdown import comparison_markdown  # reports and their schema are not needed for `score`
    from .run.record import RunRecord
    from .run.rules import compare, parse_rules
    from .run.stored import load_report

    if not 0 <= args.min_match <= 1:
        raise CliError(f"--min-match: expected a share from 0 to 1, not {args.min_match}")
    rules = parse_rules(args.fail_on)
    head = RunRecord.from_document(load_report(args.head))
    name, notes = args.base, list[str]()
    if from_history(args.base):
        base, notes, name = _compare_history(args)
    else:
        base = RunRecord.from_document(load_report(args.base))
    comparison = compare(base, head, rules, args.min_match, name)
    if args.json:
        print(json.dumps(comparison_document(comparison), indent=2, ensure_ascii=False, allow_nan=False))
    elif args.markdown:
        print(comparison_markdown(comparison), end="")
    else:
        lines = [visible(f"pytest-ocr compare: {name} -> {args.head}"), *notes, *comparison_text(comparison)]
        print("\n".join(fit(lines, terminal_columns())))  # as wide as the terminal, like the run's summary
    return 1 if comparison.failed else 0


def _compare_history(args: argparse.Namespace) -> tuple[RunRecord, list[str], str]:
    """BASE from the history store (--history, else PYTEST_OCR_HISTORY_URL, else the project's
    SQLite file): the run, what to say about it, and its name."""
    from .history.baseline import HistoryBaselineError, run_record
    from .history.url import HistoryTarget, HistoryUrlError, asked, check_suite, parse
    from .run.identity import project_dir

    project = project_dir(None, Path.cwd())
    try:
        where = HistoryTarget(
            parse(asked(args.history, os.environ, None), project), check_suite(args.history_suite or project.name)
        )
        base, baseline = run_record(args.base, where, project, os.environ)
    except (HistoryBaselineError, HistoryUrlError) as exc:
        raise CliError(str(exc)) from None
    return base, baseline.notes, baseline.name


MERGE_USAGE_ERROR = 4  # pytest's exit status for input it cannot use


def cmd_merge(args: argparse.Namespace) -> int:
    from .files import OutputPathError, check_apart, check_output_directory, check_output_file
    from .project_files import of_project
    from .report import github, terminal
    from .report.outputs import Outputs, end
    from .report.paired_text import judged
    from .run.baseline import Baseline
    from .run.comparison import against
    from .run.merge import MergeError, merge
    from .run.record import judge
    from .run.stored import ReportError, load_report, with_scored_texts

    try:
        if args.baseline_write and not args.baseline:
            raise CliError("--baseline-write needs --baseline PATH: the file to write")
        if args.baseline_write and from_history(args.baseline):
            raise CliError(
                f"--baseline-write with --baseline {args.baseline}: a run from history is not a file to write; "
                f"the merged run is recorded in the history store with --history"
            )
        if not 0 <= args.baseline_min_match <= 1:
            raise CliError(f"--baseline-min-match: expected a share from 0 to 1, not {args.baseline_min_match}")
        if args.project and not Path(args.project).is_dir():
            raise CliError(f"--project: not a directory: {args.project}")
        for path, option in ((args.output, "--output"), (args.html, "--html")):
            if path:
                check_output_file(Path(path), option)
        if args.results_dir:
            check_output_directory(Path(args.results_dir), "--results-dir")
        baseline_file = Path.cwd() / args.baseline if args.baseline and not from_history(args.baseline) else None
        written = baseline_file if args.baseline_write else None
        named = (("--output", args.output), ("--html", args.html), ("--baseline", written))
        project = _project(args.project)
        history = _merge_history(args, project)
        own = of_project(project, os.environ, stores=[history.url if history else None])
        check_apart(
            [(option, Path(path)) for option, path in named if path],
            [*(("a shard's report", Path(path)) for path in args.shards), *own.files],
            ("--results-dir", Path(args.results_dir)) if args.results_dir else None,
            own.named,
        )
        merged = merge([(path, load_report(path)) for path in args.shards])
        note = _elsewhere(merged.project, project, "the shards ran")
        baseline, notes = None, []
        if args.baseline:  # named as the plugin names --ocr-baseline: a file from the invocation directory
            stored = (
                Baseline.load(baseline_file, missing_ok=bool(args.baseline_write))
                if baseline_file is not None
                else _merge_history_baseline(args.baseline, project, history, args.history_suite)
            )
            notes = stored.notes
            stored.here = merged.scorers  # the shards scored the run, not this installation
            measured = [r for r in merged.results if r.measured]
            if stored.results and measured and all(r.baseline is None for r in measured):
                # Each item is judged against its record as it ends, on its shard: the merge only joins them.
                raise CliError(
                    f"--baseline {args.baseline}: the shards ran without a baseline (none of their "
                    f"{len(measured)} measured items was compared with one); run each shard with "
                    f"--ocr-baseline={args.baseline}"
                )
            merged.results, baseline = against(stored, merged.results, args.baseline_write, args.baseline_min_match)
    except (CliError, OutputPathError, ReportError, MergeError) as exc:
        print(f"pytest-ocr merge: {exc}", file=sys.stderr)
        return MERGE_USAGE_ERROR
    if args.html:  # what the page's diff shows: the shards' reports hold what it follows from
        from .report.html.thumbnails import outside

        with_scored_texts(merged.results)
        # Shard reports travel as CI artifacts: a picture they name outside the project is not read.
        away = outside(project, [r.image for r in merged.results if r.image])
        if away:
            notes.append(
                f"warning: {len(away)} image(s) the shards' results name are outside the project {project}: the "
                f"HTML report shows no picture of them ({_listed(list(away))})"
            )
    gates = judge(merged.gates, merged.results, merged.datasets, baseline, judged)
    outputs = Outputs(
        Path(args.output) if args.output else None,
        Path(args.html) if args.html else None,
        Path(args.results_dir) if args.results_dir else None,
        baseline_file,
        args.baseline_write,
        history=history,
        pictures_in_project=True,
    )
    ended = end(merged.results, merged.run, gates, baseline, merged.datasets, None, outputs, project, merged.scorers)
    record = ended.record
    if os.environ.get("GITHUB_ACTIONS") == "true":  # workflow commands, escaped (github.py)
        for line in github.annotations(record, project, os.environ.get("GITHUB_WORKSPACE")):
            print(line)
    first = merged.shards[0]
    missing = f"; missing: {', '.join(f'shard {k}/{first.total}' for k in merged.missing)}" if merged.missing else ""
    lines = [
        f"pytest-ocr merge: {len(merged.shards)} of {first.total} shards, "
        f"{len(record.results)} of {first.suite_items} OCR items{missing}"
    ]
    if args.summary != "none":
        lines += terminal.summary(record, 0, args.summary, terminal_columns())
    lines += [note] if note else []
    lines += notes + ended.notes
    print("\n".join(visible(line) for line in lines))
    return ended.exit_status


def cmd_rescore(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from .cases.loader import load_project_config
    from .cases.model import Defaults, Scope
    from .files import OutputPathError, check_apart, check_output_file
    from .media.document import DocumentError
    from .metrics.registry import scorers_of
    from .project_files import of_project
    from .report.outputs import Outputs, end
    from .report.paired_text import judged
    from .run.identity import relative
    from .run.record import Rescored, RunRecord, judge
    from .run.rescore import RescoreError, case_files, datasets_of, rescore
    from .run.stored import ReportError, load_report, scored_names

    try:
        if args.profile is not None and args.profile not in PROFILES:
            raise CliError(f"--profile: no profile {args.profile!r}; profiles: {', '.join(PROFILES)}")
        if args.project and not Path(args.project).is_dir():
            raise CliError(f"--project: not a directory: {args.project}")
        _use_limits(args, ("max_file_mb", "max_output_mb"))
        output = Path(args.output)
        check_output_file(output, "--output")
        project = _project(args.project)
        record = RunRecord.from_document(load_report(args.report, bounded=True))
        note = _elsewhere(record.shard.project if record.shard else None, project, "the report's shard ran")
        own = of_project(project, os.environ, Path(args.config).resolve() if args.config else None)
        read = [("a case file the report names", path) for path in case_files(record.results, project)]
        check_apart(
            [("--output", output)],
            [("the report re-scored", Path(args.report)), *read, *own.files],
            named=own.named,
        )
        try:
            scope = load_project_config(Path(args.config)) if args.config else Scope(Defaults(), {})
        except DocumentError as exc:
            raise CliError(f"--config: {exc}") from None
        results = rescore(record.results, project, scope, args.profile, lambda path: relative(path, project))
    except (CliError, OutputPathError, ReportError, RescoreError) as exc:
        print(f"pytest-ocr rescore: {exc}", file=sys.stderr)
        return MERGE_USAGE_ERROR
    shard = record.shard
    datasets = shard.datasets if shard is not None else datasets_of(record.datasets, record.results)
    declared = shard.gates if shard is not None else [g.gate for g in record.gates if g.gate is not None]
    gates = list({gate.identity: gate for gate in declared}.values())
    # A shard's run is judged when merged, as the plugin leaves it; a whole run's gates again.
    judged_gates = [] if shard is not None else judge(gates, results, datasets, None, judged)
    when = datetime.now(timezone.utc).isoformat()
    rescored = Rescored(args.report, when, args.profile, record.scorers, scorers_of(scored_names(results)))
    outputs = Outputs(Path(args.output), github=False)
    ended = end(results, record.run, judged_gates, None, datasets, shard, outputs, project, None, rescored)
    changed = sorted(
        f"{name} {rescored.before[name]} -> {now}"
        for name, now in rescored.after.items()
        if name in rescored.before and rescored.before[name] != now
    )
    measured = sum(r.measured for r in results)
    lines = [
        f"pytest-ocr rescore: {measured} measured item(s) of {args.report} scored again"
        f"{f' with profile {args.profile}' if args.profile else ''}; no engine ran",
        f"scorers changed: {'; '.join(changed)}" if changed else "scorers: as the report's",
    ]
    lines += ([note] if note else []) + ended.notes
    print("\n".join(visible(line) for line in lines))
    return 1 if ended.lost else 0


def _merge_history(args: argparse.Namespace, project: Path) -> HistoryTarget | None:
    """Where the merged run is recorded (--history, else PYTEST_OCR_HISTORY_URL); CliError for a
    URL that cannot be a store, named without its credentials."""
    from .history.url import ENV, HistoryTarget, HistoryUrlError, asked, check_suite, parse  # no SQLAlchemy yet

    if args.history is None and not os.environ.get(ENV, "").strip():
        if args.history_suite or args.history_required:
            raise CliError("--history-suite and --history-required need a history store: --history [URL]")
        return None

    try:
        url = parse(asked(args.history, os.environ, None), project)
        suite = check_suite(args.history_suite or project.name)
    except HistoryUrlError as exc:
        raise CliError(f"--history: {exc}") from None
    return HistoryTarget(url, suite, args.history_required)


def _merge_history_baseline(given: str, project: Path, history: HistoryTarget | None, suite: str | None) -> Baseline:
    """The run ``given`` (history:...) names in the store the merged run records in, else the
    project's SQLite file; CliError when there is none."""
    from .history.baseline import HistoryBaselineError, load
    from .history.url import HistoryTarget, HistoryUrlError, check_suite, parse

    try:
        where = history or HistoryTarget(parse(None, project), check_suite(suite or project.name))
        return load(given, where, project, os.environ)
    except (HistoryBaselineError, HistoryUrlError) as exc:
        raise CliError(f"--baseline: {exc}") from None


def _use_limits(args: argparse.Namespace, names: tuple[str, ...]) -> None:
    """The limits (limits.py) a command takes as options, named as the plugin's, made this
    process's; CliError for a value out of their range."""
    from . import limits

    values = {name: getattr(args, name) for name in names}
    for name, value in values.items():
        wrong = limits.out_of_range(name, value)
        if wrong is not None:
            raise CliError(wrong)
    limits.use(replace(limits.DEFAULT, **values))


def limit_options(p: argparse.ArgumentParser, names: dict[str, str]) -> None:
    """The limits (limits.py) a command takes, as the plugin's options of the same names."""
    from . import limits

    for name, what in names.items():
        default = getattr(limits.DEFAULT, name)
        p.add_argument(
            limits.OPTIONS[name],
            dest=name,
            type=type(default),
            default=default,
            metavar="N",
            help=f"{what} (default {default:g}; docs: Limits)",
        )


def _project(given: str | None) -> Path:
    """The project directory ``merge`` and ``rescore`` work in: the one the paths in their
    outputs are relative to, and the only one a path a report names is read in (case files,
    the HTML report's images). --project DIR, else the project around the current directory
    (run/identity.py); never the directory a report records, which anyone who could write
    the report (a CI artifact) chose."""
    from .run.identity import project_dir

    if given:
        return Path(given).resolve()
    return project_dir(None, Path.cwd())


def _elsewhere(recorded: str | None, project: Path, who: str) -> str | None:
    """A note when the report records another project directory than ``project``."""
    if recorded is None or Path(recorded) == project:
        return None
    return (
        f"note: {who} in {recorded}; paths are relative to this project, {project}, and files are read in it "
        f"alone (--project DIR names the checkout)"
    )


def _listed(names: list[str], most: int = 5) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def rule_options(p: argparse.ArgumentParser) -> None:
    """``--fail-on`` and ``--min-match``: how ``compare`` and ``history comment`` judge HEAD against BASE."""
    p.add_argument(
        "--fail-on",
        action="append",
        default=[],
        metavar="RULE",
        help="exit 1 when HEAD breaks this rule (repeatable): METRIC:TOLERANCE per item (cer:+0.005, "
        "cer:+10%%; items with repeats are judged as samples, as a run judges them against its baseline, at "
        "95%% or the confidence given: cer:+0.01@99%%); METRIC.macro:TOLERANCE or METRIC.micro:TOLERANCE per "
        "engine, over the items both runs measured, optionally with a confidence (cer.macro:+0.002@95%%: "
        "only when the whole 95%% interval of the worsening lies above the tolerance); or errors (an item "
        "measured in BASE is an error in HEAD)",
    )
    p.add_argument(
        "--min-match",
        type=float,
        default=DEFAULT_MIN_MATCH,
        metavar="SHARE",
        help=f"warn when fewer than this share of HEAD's items are in BASE (default {DEFAULT_MIN_MATCH})",
    )


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="pytest-ocr", description="OCR evaluation tools of pytest-ocr")
    main.add_argument("--version", action="version", version=f"pytest-ocr {__version__}")
    commands = main.add_subparsers(dest="command", required=True)

    s = commands.add_parser("score", help="score a hypothesis text file against a reference text file")
    s.add_argument("reference", help="ground truth, a UTF-8 text file (with --case: the OCR output)")
    s.add_argument("hypothesis", nargs="?", help="OCR output, a UTF-8 text file")
    s.add_argument(
        "--case",
        metavar="FILE::ID",
        help="score the output as this case of a case file does: its ground truth, normalisation, metrics, "
        "field extraction and matchers",
    )
    s.add_argument("--config", metavar="FILE", help="with --case: the project configuration (ocr_config)")
    s.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help=f"a metric to compute (repeatable; default: {', '.join(DEFAULT_METRICS)})",
    )
    s.add_argument(
        "--normalize",
        default="default",
        metavar="PROFILE|MAPPING",
        help=f"as a case file's normalize: a profile ({', '.join(PROFILES)}) or a YAML mapping, "
        "e.g. '{profile: historic, casefold: true}'",
    )
    s.add_argument("--unit", choices=["codepoint", "grapheme"], help="count characters in this unit")
    s.add_argument("--cer-denominator", default="ref", choices=CER_DENOMINATORS)
    s.add_argument(
        "--empty-reference-value",
        default="one",
        choices=EMPTY_REFERENCE_VALUES,
        help="cer and wer when the reference is empty and the hypothesis is not: one (1.0, default), "
        "errors (the error count, as jiwer gives) or infinity (as dinglehopper gives)",
    )
    s.add_argument("--json", action="store_true", help="print values, counts and details as JSON")
    s.set_defaults(run=cmd_score)

    v = commands.add_parser("serve", help="serve an engine as an HTTP OCR worker (also OpenAI-compatible)")
    v.add_argument(
        "--engine",
        required=True,
        metavar="NAME",
        help="an engine declared in --config, or a built-in engine type (tesseract, rapidocr, ...)",
    )
    v.add_argument("--config", metavar="FILE", help="a YAML file with an `engines:` block, as the ocr_config file")
    v.add_argument("--host", default="127.0.0.1", help="address to listen on (default: 127.0.0.1, this machine only)")
    v.add_argument("--port", type=int, default=8765, help="port to listen on; 0 picks a free one (default: 8765)")
    v.add_argument("--workers", type=int, default=1, metavar="N", help="recognitions run at once (default: 1)")
    v.add_argument(
        "--queue",
        type=int,
        default=32,
        metavar="M",
        help="recognition requests that wait for a worker; beyond them a request gets 503 with Retry-After "
        "(default: 32)",
    )
    v.add_argument(
        "--max-body-mb",
        type=float,
        default=50.0,
        metavar="MB",
        help="largest request body, counted as it arrives whatever its framing; larger gets 413 (default: 50)",
    )
    v.add_argument(
        "--body-timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="time for a request body to arrive; slower gets 408 (default: 60)",
    )
    v.add_argument(
        "--backlog",
        type=int,
        default=2048,
        metavar="N",
        help="connections waiting to be accepted, for bursts of clients (default: 2048, capped by the OS)",
    )
    v.add_argument(
        "--header-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="time for a request's line and headers to arrive; slower gets 408 and is closed (default: 10)",
    )
    v.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        metavar="N",
        help="connections kept open at once, fewer if the open-files limit allows fewer; a new one beyond closes "
        "the oldest with nothing under way, or gets 503 (default: 1000)",
    )
    v.add_argument(
        "--max-inflight-mb",
        type=float,
        default=100.0,
        metavar="MB",
        help="request bodies of the recognition requests taken at once (Content-Length, or --max-body-mb without "
        "one); beyond gets 503 with Retry-After (default: 100)",
    )
    v.set_defaults(run=cmd_serve)

    c = commands.add_parser(
        "compare",
        help="compare two JSON reports (--ocr-report) and fail on regressions",
        description="Exit status: 0 no rule violated, 1 a rule violated, 2 bad input.",
    )
    c.add_argument(
        "base",
        metavar="BASE",
        help="the report to compare against, e.g. the main branch's; or a run in the history store: "
        "history:BRANCH (its latest complete run), history:merge-base[:BRANCH]",
    )
    c.add_argument("head", metavar="HEAD", help="the report of the change")
    rule_options(c)
    output = c.add_mutually_exclusive_group()
    output.add_argument("--markdown", action="store_true", help="print Markdown for a PR comment or job summary")
    output.add_argument("--json", action="store_true", help="print the comparison as JSON")
    c.add_argument(
        "--history",
        metavar="URL",
        help="the history store a history: BASE is read from (default: $PYTEST_OCR_HISTORY_URL, else "
        ".pytest-ocr/history.sqlite in the project)",
    )
    c.add_argument("--history-suite", metavar="NAME", help="the suite of a history: BASE (default: the project's name)")
    c.set_defaults(run=cmd_compare)

    m = commands.add_parser(
        "merge",
        help="join the JSON reports of a suite's shards (--ocr-shard K/N) into one run, judged as a whole",
        description="Exit status, as pytest's on the whole run: 0 every item and gate passed, 1 an item or a "
        "gate failed, 2 the merged run is incomplete (a shard missing or stopped early), 4 reports that cannot "
        "be merged (not shard reports, shards of different suites, splits, pytest-ocr versions or engines).",
    )
    m.add_argument("shards", nargs="+", metavar="SHARD", help="a shard's JSON report (--ocr-shard K/N --ocr-report)")
    m.add_argument("-o", "--output", metavar="PATH", help="write the merged run's JSON report to PATH")
    m.add_argument("--html", metavar="PATH", help="write the merged run's HTML report to PATH")
    m.add_argument("--results-dir", metavar="DIR", help="write the merged run as DIR/{run_id}/...")
    m.add_argument(
        "--project",
        metavar="DIR",
        help="the checkout the shards ran in: the HTML report's images are found there (an image outside it is "
        "not shown) and paths in the outputs are relative to it (default: the project around the current "
        "directory, never a directory the shards' reports name)",
    )
    m.add_argument(
        "--baseline",
        metavar="PATH",
        help="judge the merged run against this stored report, or a run in the history store "
        "(history:BRANCH, history:merge-base[:BRANCH]) (the baseline's match check and comparison; "
        "give the shards the same --ocr-baseline for their items' regression checks)",
    )
    m.add_argument(
        "--baseline-write",
        choices=VERBS,
        metavar="|".join(VERBS),
        help="write the --baseline file from the merged run, as --ocr-baseline-write does",
    )
    m.add_argument(
        "--baseline-min-match",
        type=float,
        default=DEFAULT_MIN_MATCH,
        metavar="SHARE",
        help="warn when fewer than this share of the items find their record in the baseline "
        f"(default {DEFAULT_MIN_MATCH})",
    )
    m.add_argument(
        "--summary", choices=("table", "json", "none"), default="table", help="the OCR summary printed (default table)"
    )
    m.add_argument(
        "--history",
        nargs="?",
        const="default",
        metavar="URL",
        help="record the merged run in a history store, as --ocr-history does (default: $PYTEST_OCR_HISTORY_URL; "
        "given bare: .pytest-ocr/history.sqlite in the project)",
    )
    m.add_argument(
        "--history-suite", metavar="NAME", help="the name the run is recorded under (default: the project's name)"
    )
    m.add_argument(
        "--history-required", action="store_true", help="exit 1 when the run cannot be recorded in the history store"
    )
    m.set_defaults(run=cmd_merge)

    r = commands.add_parser(
        "rescore",
        help="score a JSON report's stored outputs again with today's scorers (or another normalisation "
        "profile), without running any engine",
        description="Every measured item's stored output (and its repeats' outputs) is scored again against its "
        "case, read from the case file the report names (relative to the project directory, and only there); "
        "thresholds and gates are judged again and NEW is written as a report marked as re-scored. An item whose "
        "case file, case or inputs are gone, outside the project or changed since it was scored (its input hash), "
        "that records no input hash, or whose stored output is beyond --ocr-max-output-mb cannot be re-scored: "
        "each is named in one line. "
        "Exit status: 0 written, 1 NEW could not be written, 4 a report or items that cannot be re-scored.",
    )
    r.add_argument("report", metavar="REPORT", help="the JSON report to re-score (--ocr-report)")
    r.add_argument("-o", "--output", metavar="NEW", required=True, help="write the re-scored report to NEW")
    r.add_argument(
        "--profile",
        metavar="NAME",
        help=f"score every case with this normalisation profile ({', '.join(PROFILES)}) instead of its own",
    )
    r.add_argument("--config", metavar="FILE", help="the project configuration (ocr_config) the run used")
    r.add_argument(
        "--project",
        metavar="DIR",
        help="the checkout the report's case files are in; a case file outside it is not read (default: the "
        "project around the current directory, never a directory the report names)",
    )
    limit_options(
        r,
        {
            "max_file_mb": "largest report re-scored, in MB",
            "max_output_mb": "longest stored output re-scored, in MB of UTF-8, as an engine's output is held to",
        },
    )
    r.set_defaults(run=cmd_rescore)

    from .cli_history import add_parser as add_history  # argparse only: the store when it runs

    add_history(commands, rule_options)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.run(args)
    except OcrError as exc:
        print(f"pytest-ocr {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`| head`): what it did not read is not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 1


if __name__ == "__main__":
    sys.exit(main())
