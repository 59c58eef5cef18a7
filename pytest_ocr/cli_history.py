"""``pytest-ocr history``: the history store read back (trend, regressions, item, flaky, runs,
show, export, html, and comment: a pull request's change against its merge-base's run) and
pruned. Thin: what is computed is in history/trend.py, items.py, prune.py, export.py and
run/rules.py, its wording in report/history_text.py, history_html.py and comment.py.

Every subcommand takes the store as the plugin does: ``--history URL``, else
``PYTEST_OCR_HISTORY_URL``, else the project's ``.pytest-ocr/history.sqlite``; it is named
without credentials wherever it is named. Exit status: 0 done, 2 bad input (one line),
4 the store cannot be opened or read (one line).

Only argparse is imported here: SQLAlchemy and the store when a subcommand runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import OcrError, shortened
from .limits import DEFAULT as DEFAULT_LIMITS

if TYPE_CHECKING:
    from .history.store import Store
    from .history.trend import Trend
    from .project_files import Kept

STORE_ERROR = 4
DEFAULT_LAST = 50
COMMENT_LAST = 30  # commits of the target branch a pull-request comment draws
MOST = 10**9  # the largest --last and --keep (export and prune read every run: ALL)
MAX_RUN_ID = 2**63 - 1  # the largest id either backend stores
MOST_SECONDS = 10**6  # as pytest's limits (plugin/options.py)


class HistoryCommandError(OcrError):
    """Bad input to a history subcommand: exit 2."""


def add_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    rule_options: Callable[[argparse.ArgumentParser], None],
) -> None:
    """``history`` and its subcommands; ``rule_options`` adds ``compare``'s ``--fail-on`` and ``--min-match``,
    which ``history comment`` shares."""
    h = commands.add_parser(
        "history",
        help="read the history store: trend, regressions, item, flaky, runs, show, export, prune, html, comment",
        description="Exit status: 0 done, 2 bad input, 4 the history store cannot be opened or read.",
    )
    subs = h.add_subparsers(dest="history_command", required=True)

    def sub(name: str, help: str, last: bool = True, branch: bool = True) -> argparse.ArgumentParser:
        p = subs.add_parser(name, help=help, description=help)
        p.add_argument(
            "--history",
            metavar="URL",
            help="the store: sqlite:///PATH or postgresql://USER@HOST/DATABASE (default: $PYTEST_OCR_HISTORY_URL, "
            "else .pytest-ocr/history.sqlite in the project)",
        )
        p.add_argument(
            "--max-lock-wait-s",
            type=_seconds,
            default=DEFAULT_LIMITS.max_lock_wait_s,
            metavar="S",
            help="longest wait for another process's lock on the store, or for its server to answer, in s (default "
            f"{DEFAULT_LIMITS.max_lock_wait_s:g}; as pytest's --ocr-max-lock-wait-s)",
        )
        p.add_argument(
            "--suite", action="append", metavar="NAME", help="a suite the runs were recorded under (repeatable; "
            "default: every suite in the store)"
        )  # fmt: skip
        if branch:
            default = (
                "the current git branch, else main" if name in ("trend", "regressions", "html") else "every branch"
            )
            p.add_argument("--branch", metavar="NAME", help=f"only the runs of this branch (default: {default})")
        if last:
            what = "commits" if name in ("trend", "regressions", "html", "comment") else "runs"
            newest = COMMENT_LAST if name == "comment" else DEFAULT_LAST
            p.add_argument(
                "--last",
                type=_positive,
                default=newest,
                metavar="N",
                help=f"the latest N {what} (default {newest})",
            )
        return p

    t = sub("trend", "per suite, engine and metric, the values over the last N commits of a branch, as a sparkline")
    t.add_argument("--metric", action="append", default=[], metavar="NAME", help="only this metric (repeatable)")
    t.add_argument("--kind", choices=("macro", "micro"), action="append", help="only this kind (default both)")
    t.set_defaults(history_run=_trend)
    r = sub("regressions", "the commits where a metric got worse and stayed (step detection, as asv)")
    r.add_argument("--metric", action="append", default=[], metavar="NAME", help="only this metric (repeatable)")
    r.add_argument("--kind", choices=("macro", "micro"), action="append", help="only this kind (default both)")
    r.add_argument("--items", action="store_true", help="each item's values too, not only the aggregates")
    r.set_defaults(history_run=_regressions)
    i = sub("item", "one item's values, output hashes and outcomes over the runs that have it")
    i.add_argument("key", metavar="KEY", help="the item's key, as reports name it: FILE::CASE[ENGINE]")
    i.add_argument("--metric", action="append", default=[], metavar="NAME", help="only this metric (repeatable)")
    i.set_defaults(history_run=_item)
    f = sub("flaky", "items whose output or outcome changed between runs with the same engine fingerprint and inputs")
    f.set_defaults(history_run=_flaky)
    sub("runs", "the latest runs").set_defaults(history_run=_runs)
    s = sub("show", "one run: where it came from, its engines and aggregates", last=False, branch=False)
    s.add_argument("run_id", type=_run_id, metavar="RUN", help="a run's id, as `runs` lists it")
    s.set_defaults(history_run=_show)
    e = sub("export", "the runs with their engines and aggregates, as JSON or CSV", last=False)
    e.add_argument("--format", choices=("json", "csv"), default="json")
    e.add_argument("--output", "-o", metavar="PATH", help="write to PATH (atomically) instead of standard output")
    e.set_defaults(history_run=_export)
    p = sub(
        "prune", "remove the runs of all but the latest N commits of each suite and branch", last=False, branch=False
    )
    p.add_argument("--keep", type=_positive, required=True, metavar="N", help="commits kept per suite and branch")
    p.set_defaults(history_run=_prune)
    w = sub("html", "a static site: per suite and engine a chart of each metric, its steps, the items that moved, "
            "and a page per run")  # fmt: skip
    w.add_argument(
        "directory", type=Path, metavar="DIR", help="written atomically; a site written there before is replaced"
    )
    w.set_defaults(history_run=_html)
    c = sub(
        "comment",
        "Markdown for a pull request: HEAD against the merge-base's recorded run, the gate's verdict, the target "
        "branch's recent history and the worst regressed items (exit 1 when a --fail-on rule is broken)",
        branch=False,
    )
    c.add_argument(
        "--report", metavar="HEAD.json", help="HEAD's JSON report (default: the latest recorded run of this commit)"
    )
    c.add_argument(
        "--against",
        default="history:merge-base",
        metavar="BASE",
        help="the recorded run to compare with: history:merge-base[:BRANCH] (default) or history:BRANCH",
    )
    rule_options(c)
    c.add_argument(
        "--html-url",
        metavar="URL",
        help="where HEAD's HTML report (--ocr-html) is published: regressed items link to their cases in it",
    )
    c.set_defaults(history_run=_comment)
    h.set_defaults(run=run)


def _whole(text: str, most: int) -> int:
    """A whole number from 1 to ``most`` (a database holds no larger one: 10**19 would end in an OverflowError)."""
    try:
        value = int(text) if text.strip().isdigit() and len(text.strip()) <= len(str(most)) else 0
    except ValueError:
        value = 0
    if not 1 <= value <= most:
        raise argparse.ArgumentTypeError(f"expected a whole number from 1 to {most}, not {shortened(repr(text))}")
    return value


def _positive(text: str) -> int:
    return _whole(text, MOST)


def _run_id(text: str) -> int:
    return _whole(text, MAX_RUN_ID)


def _seconds(text: str) -> float:
    """A wait, as pytest's --ocr-max-lock-wait-s takes it: above 0, at most 1,000,000 s (NaN and inf refused)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= MOST_SECONDS:
        raise argparse.ArgumentTypeError(
            f"expected a number above 0 and at most {MOST_SECONDS:,}, not {shortened(repr(text))}"
        )
    return value


def run(args: argparse.Namespace) -> int:
    from .history.git import RefError
    from .history.provenance import ProvenanceError
    from .history.store import StoreError
    from .history.url import HistoryUrlError
    from .visible import visible

    try:
        with _store(args) as store:
            return int(args.history_run(store, args))
    except HistoryUrlError as exc:
        raise HistoryCommandError(f"--history: {exc}") from None
    except (ProvenanceError, RefError) as exc:  # a CI variable that names no commit or branch
        raise HistoryCommandError(str(exc)) from None
    except StoreError as exc:
        print(visible(f"pytest-ocr history: {exc}"), file=sys.stderr)
        return STORE_ERROR


@contextmanager
def _store(args: argparse.Namespace) -> Iterator[Store]:
    """The store, read-only but for prune; its failures (opening it, or a row it holds that
    pytest-ocr would not have written) as a StoreError naming it."""
    from .history.store import Store, StoreError, Wait
    from .history.url import asked, parse
    from .run.identity import project_dir

    where = parse(asked(args.history, os.environ, None), project_dir(None, Path.cwd()))
    if where.backend == "sqlite" and not Path(where.shown.removeprefix("sqlite:///")).is_file():
        raise HistoryCommandError(
            f"no history store at {where.shown}: record runs with --ocr-history, or give --history URL"
        )
    try:
        wait = Wait(args.max_lock_wait_s, "--max-lock-wait-s")
        store = Store.open(where, wait) if args.history_command == "prune" else Store.read(where, wait)
        with store:
            yield store
    except StoreError as exc:
        raise StoreError(f"{where.shown}: {exc}") from None


def _print(lines: list[str]) -> None:
    from .report.columns import fit, terminal_columns
    from .visible import visible

    print("\n".join(fit([visible(line) for line in lines], terminal_columns())))


def _suites(store: Store, args: argparse.Namespace) -> list[str]:
    held = store.suites()
    if not args.suite:
        return held
    unknown = [s for s in args.suite if s not in held]
    if unknown:
        raise HistoryCommandError(
            f"--suite: no runs of {', '.join(unknown)} in {store.where.shown}; its suites: {', '.join(held) or 'none'}"
        )
    return list(args.suite)


def _one_suite(store: Store, args: argparse.Namespace) -> str:
    suites = _suites(store, args)
    if len(suites) != 1:
        raise HistoryCommandError(f"--suite: name one of the store's suites ({', '.join(suites) or 'none'})")
    return suites[0]


def _branch(args: argparse.Namespace) -> str:
    if args.branch:
        return str(args.branch)
    from .history import provenance
    from .run.identity import project_dir

    return provenance.of(project_dir(None, Path.cwd()), os.environ).branch or "main"


def _metrics(args: argparse.Namespace) -> list[str]:
    """--metric's names, each a metric pytest-ocr knows (or facts: the checks' score), as a case file's are."""
    from .errors import did_you_mean
    from .metrics import METRICS
    from .metrics.registry import FACTS

    known = sorted([*METRICS, FACTS])
    for name in args.metric:
        if name not in known:
            raise HistoryCommandError(
                f"--metric: unknown metric {shortened(repr(name))}{did_you_mean(name, known)} "
                f"(known: {', '.join(known)})"
            )
    return list(args.metric)


def _trend_of(store: Store, args: argparse.Namespace) -> Trend:
    from .history.trend import KINDS, trend

    return trend(store, _suites(store, args), _branch(args), args.last, _metrics(args), args.kind or KINDS)


def _trend(store: Store, args: argparse.Namespace) -> int:
    from .report.columns import terminal_columns
    from .report.history_text import trend_lines
    from .visible import visible

    # not fitted line by line: a sparkline is drawn to the width instead of wrapped
    print("\n".join(visible(line) for line in trend_lines(_trend_of(store, args), terminal_columns())))
    return 0


def _regressions(store: Store, args: argparse.Namespace) -> int:
    from .history.trend import aggregate_regressions, item_regressions
    from .report.history_text import regression_lines

    t = _trend_of(store, args)
    found = aggregate_regressions(t) + (item_regressions(store, t, _metrics(args)) if args.items else [])
    _print([f"branch {t.branch}, {len(t.commits)} commits:", *regression_lines(found, t.commits)])
    return 0


def _item(store: Store, args: argparse.Namespace) -> int:
    from .history.items import item_history
    from .report.history_text import item_lines

    metrics = _metrics(args)
    suite = _one_suite(store, args)
    history = item_history(store, suite, args.key, args.branch, args.last)
    if not history.points:
        raise HistoryCommandError(f"KEY: no run of suite {suite} has an item {args.key!r}")
    _print(item_lines(history, metrics))
    return 0


def _flaky(store: Store, args: argparse.Namespace) -> int:
    from .history.items import flaky
    from .report.history_text import flaky_lines

    suite = _one_suite(store, args)
    runs = len(store.runs(suite, args.branch, args.last))
    _print(flaky_lines(flaky(store, suite, args.branch, args.last), runs))
    return 0


def _runs(store: Store, args: argparse.Namespace) -> int:
    from .report.history_text import runs_lines

    runs = sorted((r for s in _suites(store, args) for r in store.runs(s, args.branch, args.last)), key=lambda r: -r.id)
    _print(runs_lines(runs[: args.last]))
    return 0


def _show(store: Store, args: argparse.Namespace) -> int:
    from .report.history_text import show_lines

    found = store.run(args.run_id)
    if found is None:
        raise HistoryCommandError(f"RUN: no run {args.run_id} in {store.where.shown}")
    if args.suite and found.suite not in args.suite:
        raise HistoryCommandError(f"RUN: run {found.id} is of suite {found.suite}, not {', '.join(args.suite)}")
    _print(show_lines(found, store.engines([found.id]), store.aggregates([found.id])))
    return 0


ALL = 10**9  # export and prune read every run


def _export(store: Store, args: argparse.Namespace) -> int:
    from .files import OutputPathError, check_apart, check_output_file, write_atomic
    from .history.export import csv_text, document

    if args.output:
        try:
            check_output_file(Path(args.output), "--output")
            own = _own_files(store)
            check_apart([("--output", Path(args.output))], own.files, named=own.named)
        except OutputPathError as exc:
            raise HistoryCommandError(str(exc)) from None
    runs = sorted((r for s in _suites(store, args) for r in store.runs(s, args.branch, ALL)), key=lambda r: r.id)
    ids = [r.id for r in runs]
    engines, aggregates = store.engines(ids), store.aggregates(ids)
    if args.format == "json":
        text: str | Iterator[str] = (
            json.dumps(
                document(store.where.shown, runs, engines, aggregates), indent=1, ensure_ascii=False, allow_nan=False
            )
            + "\n"
        )
    else:
        text = csv_text(runs, engines, aggregates)
    if args.output:
        write_atomic(Path(args.output), text)
        print(f"pytest-ocr history export: {len(runs)} runs written to {args.output}")
    else:
        sys.stdout.writelines(text)
    return 0


def _own_files(store: Store) -> Kept:
    """What no output may overwrite (project_files.py): the project's files and this store's."""
    from .project_files import of_project
    from .run.identity import project_dir

    return of_project(project_dir(None, Path.cwd()), os.environ, stores=[store.where])


def _prune(store: Store, args: argparse.Namespace) -> int:
    from .history.prune import prunable

    runs = [r for s in _suites(store, args) for r in store.runs(s, None, ALL)]
    removed = store.delete([r.id for r in prunable(runs, args.keep)])
    kept = f"the latest {args.keep} commit(s) of each suite and branch kept"
    print(f"pytest-ocr history prune: {removed} of {len(runs)} runs removed, {kept}")
    return 0


def _html(store: Store, args: argparse.Namespace) -> int:
    from .files import OutputPathError, check_holds_none, check_output_directory
    from .history.dashboard import dashboard
    from .report.history_html import SiteError, write
    from .report.html.markup import plural

    branch = _branch(args)  # a CI variable it is read from may be refused: before DIR is made
    try:
        check_output_directory(args.directory, "DIR")
        check_holds_none(("DIR", args.directory), _own_files(store).files)  # the site replaces DIR whole
    except OutputPathError as exc:
        raise HistoryCommandError(str(exc)) from None
    dash = dashboard(store, _suites(store, args), branch, args.last)
    try:
        pages = write(args.directory, dash)
    except SiteError as exc:
        raise HistoryCommandError(f"DIR: {exc}") from None
    charts = f"{plural(len(dash.panels), 'chart page')}, {plural(len(dash.runs), 'run')}"
    print(f"pytest-ocr history html: {plural(pages, 'page')} ({charts}) written to {args.directory}")
    return 0


def _comment(store: Store, args: argparse.Namespace) -> int:
    from .history import provenance
    from .history.baseline import BaselineRefError, HistoryBaselineError, record_at, run_record, target_branch
    from .history.trend import trend
    from .history.url import HistoryTarget
    from .report.comment import Comment, comment_markdown
    from .run.baseline_defaults import from_history
    from .run.identity import project_dir
    from .run.record import RunRecord
    from .run.rules import compare, parse_rules
    from .run.stored import load_report

    if not from_history(args.against):
        raise HistoryCommandError(
            f"--against: expected history:merge-base[:BRANCH] or history:BRANCH, not {args.against!r}"
        )
    if not 0 <= args.min_match <= 1:
        raise HistoryCommandError(f"--min-match: expected a share from 0 to 1, not {args.min_match}")
    if args.html_url is not None:
        _check_url(args.html_url)
    rules = parse_rules(args.fail_on)
    suite = _one_suite(store, args)
    project = project_dir(None, Path.cwd())
    where = HistoryTarget(store.where, suite)
    try:
        if args.report:
            head, what = RunRecord.from_document(load_report(args.report)), str(args.report)
        else:
            commit = provenance.of(project, os.environ).commit
            if not commit:
                raise HistoryCommandError(
                    "HEAD: not in a git repository and no CI commit variable: give --report HEAD.json"
                )
            head, what = record_at(commit, where), f"the recorded run of commit {commit[:12]}"
        base, baseline = run_record(args.against, where, project, os.environ)
    except BaselineRefError as exc:  # --against, or a CI variable, naming no branch or commit
        raise HistoryCommandError(str(exc)) from None
    except HistoryBaselineError as exc:
        print(f"pytest-ocr history comment: {exc}", file=sys.stderr)
        return STORE_ERROR
    comparison = compare(base, head, rules, args.min_match, baseline.name)
    try:
        branch = target_branch(args.against, os.environ)
    except BaselineRefError as exc:  # a CI variable naming no branch
        raise HistoryCommandError(str(exc)) from None
    series = trend(store, [suite], branch, args.last, head.shown_metrics()).series  # as its summary shows them
    ids = {r.key: r.id for r in head.results}
    gating = head.gating() if args.report else None
    comment = Comment(suite, comparison, what, baseline.notes, branch, series, args.html_url, ids, gating)
    sys.stdout.write(comment_markdown(comment))
    return 1 if comparison.failed else 0


def _check_url(url: str) -> None:
    """An address a link can hold as it is: http(s), no space, no character Markdown or HTML reads,
    and no fragment (the link adds the case's)."""
    if (
        not url.startswith(("https://", "http://"))
        or any(c.isspace() or c in '<>"\\`#' for c in url)
        or not url.isprintable()
    ):
        raise HistoryCommandError(
            f'--html-url: expected an http(s) address without spaces, a #fragment or <>"\\`, not {url[:200]!r}'
        )
