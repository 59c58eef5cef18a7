"""Runs recorded in the history store by real pytest sessions and `pytest-ocr merge`, on SQLite
and on a real PostgreSQL server: what is stored equals the run's JSON report, a rerun of a
commit is its next attempt, an interrupted run is recorded as interrupted, shards are
recorded once by the merge, four writers at once lose and duplicate nothing, a store that
cannot be reached costs no other output, and no credential reaches any output."""

from __future__ import annotations

import hashlib
import json
import math
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from conftest import HISTORY_BACKENDS, requires_tesseract
from helpers.history import files_holding, git, merge, repository, session, text_suite
from helpers.postgres import PASSWORD, USER

from pytest_ocr import __version__
from pytest_ocr.history.store import Store
from pytest_ocr.history.url import parse

pytestmark = pytest.mark.slow  # pytest sessions


def store_of(url: str, root: Path) -> Store:
    return Store.open(parse(url, root))


def report_of(root: Path, name: str = "report.json") -> dict:
    return json.loads((root / name).read_text(encoding="utf-8"))


def assert_recorded_as_reported(store: Store, run_id: int, report: dict) -> None:
    """The run's counts, aggregates, items and engines in the store are the report's."""
    run = next(r for r in store.runs(store_of_suite(store, run_id), limit=1000) if r.id == run_id)
    counts: dict[str, int] = {}
    for r in report["results"]:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    assert run.summary["counts"] == counts
    assert run.status == report["run"]["status"]
    assert run.pytest_ocr == report["tool"]["version"] == __version__
    assert set(run.scorers) >= {"rapidfuzz", "numpy", "regex"}
    stored = {(a.engine, a.scope, a.metric, a.kind): a for a in store.aggregates([run_id])}
    expected = 0
    for engine, summary in report["summary"].items():
        for scope, part in (("", summary), *summary["groups"].items()):
            for metric, aggregate in part["metrics"].items():
                macro, micro = stored[engine, scope, metric, "macro"], stored[engine, scope, metric, "micro"]
                assert (macro.value, macro.n) == (aggregate["macro"], aggregate["n"])
                assert [macro.low, macro.high] == (aggregate["ci95"] or [None, None])
                assert (micro.value, micro.low, micro.high) == (aggregate["micro"], None, None)
                expected += 2
    assert len(stored) == expected > 0
    items = {i.key: i for i in store.items(run_id)}
    assert sorted(items) == sorted(r["key"] for r in report["results"])
    for r in report["results"]:
        item = items[r["key"]]
        assert (item.engine, item.outcome, item.cached) == (r["engine"], r["outcome"], r["cached"])
        assert item.values == {m: (None if v is None or math.isnan(v) else v) for m, v in r["metrics"].items()}
        digest = hashlib.blake2b(r["prediction"].encode(), digest_size=8).hexdigest() if r["prediction"] else None
        assert item.output_hash == digest
        assert item.input_hash == r["input_hash"] and (r["input_hash"] is not None or r["outcome"] == "invalid")
    engines = {e.engine: e for e in store.engines([run_id])}
    assert {name: e.fingerprint for name, e in engines.items()} == report["engines"]
    assert all(e.fingerprint_id == report["engines"][name]["fingerprint_id"] for name, e in engines.items())


def store_of_suite(store: Store, run_id: int) -> str:
    from sqlalchemy import select

    from pytest_ocr.history import schema

    with store.engine.connect() as c:
        return c.execute(select(schema.runs.c.suite).where(schema.runs.c.id == run_id)).scalar_one()


def test_a_run_is_recorded_as_its_report_says_and_a_rerun_is_its_next_attempt(tmp_path: Path, history_url: str) -> None:
    root = text_suite(tmp_path / "project")
    commit = repository(root)
    first = session(root, "--ocr-report=report.json", f"--ocr-history={history_url}")
    assert first.returncode == 0, first.output
    report = report_of(root)
    assert len(report["results"]) == 19
    with store_of(history_url, root) as store:
        [run] = store.runs("project")
        assert (run.commit, run.branch, run.attempt, run.status) == (commit, "main", 1, "complete")
        assert run.parents == () and run.commit_time == git(root, "show", "-s", "--format=%cI", "HEAD")
        assert (run.ci, run.job, run.run_url) == (None, None, None)
        assert_recorded_as_reported(store, run.id, report)
        assert f"OCR history: run {run.id} of suite project (commit {commit[:12]}, attempt 1" in first.stdout

        # The same commit again, in GitHub Actions (a pull request's run): attempt 2, with its job and link.
        github = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_SHA": commit,
            "GITHUB_REF_NAME": "7/merge",
            "GITHUB_HEAD_REF": "feature",
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": "acme/ocr",
            "GITHUB_RUN_ID": "4242",
            "GITHUB_JOB": "ocr",
        }
        second = session(root, "--ocr-report=second.json", f"--ocr-history={history_url}", env=github)
        assert second.returncode == 0, second.output
        newest, oldest = store.runs("project")
        assert (newest.commit, newest.attempt, newest.branch, newest.ci, newest.job) == (
            commit,
            2,
            "feature",
            "github",
            "ocr",
        )
        assert newest.run_url == "https://github.com/acme/ocr/actions/runs/4242"
        assert oldest.id == run.id and oldest.attempt == 1
        assert store.run_of("project", commit).id == newest.id
        assert store.latest_complete("project", "main").id == run.id
        assert_recorded_as_reported(store, newest.id, report_of(root, "second.json"))
        key = report["results"][0]["key"]
        assert [p.run.attempt for p in store.item_values("project", key)] == [2, 1]


def test_an_interrupted_run_is_recorded_as_interrupted(tmp_path: Path, history_url: str) -> None:
    root = text_suite(tmp_path / "project")
    lines = root / "example_suite" / "lines.ocr.yaml"
    text = lines.read_text(encoding="utf-8")
    lines.write_text(text.replace("text_file: data/lines/rapidocr_en_rec.gt.txt", "text: nothing like it"), "utf-8")
    done = session(root, "-x", "--ocr-report=report.json", f"--ocr-history={history_url}")
    assert done.returncode == 1, done.output  # the failing item, then pytest stopped
    report = report_of(root)
    assert report["run"]["status"] == "interrupted"
    with store_of(history_url, root) as store:
        [run] = store.runs("project")
        assert run.status == "interrupted" and run.commit is None  # not a repository: no commit
        assert run.summary["not_run"] == report["run"]["not_run"] > 0
        assert run.summary["notes"] and "no commit" in run.summary["notes"][0]
        assert store.latest_complete("project", "main") is None
        assert_recorded_as_reported(store, run.id, report)


def test_a_run_on_xdist_workers_is_recorded_once_by_its_controller(tmp_path: Path, history_url: str) -> None:
    """The store and the suite's name from the ini file's keys."""
    root = text_suite(tmp_path / "project")
    with (root / "pytest.ini").open("a", encoding="utf-8") as ini:
        ini.write(f"ocr_history = {history_url}\nocr_history_suite = nightly receipts\n")
    done = session(root, "-n", "2", "--ocr-report=report.json")
    assert done.returncode == 0, done.output
    with store_of(history_url, root) as store:
        [run] = store.runs("nightly receipts")
        assert run.summary["workers"] == 2
        assert_recorded_as_reported(store, run.id, report_of(root))


def test_shards_do_not_record_and_their_merge_records_the_run_once(tmp_path: Path, history_url: str) -> None:
    root = text_suite(tmp_path / "project")
    commit = repository(root)
    for k in (1, 2):
        done = session(root, f"--ocr-shard={k}/2", f"--ocr-report=shard{k}.json", f"--ocr-history={history_url}")
        assert done.returncode == 0, done.output
        assert "a shard's run is not recorded" in done.stdout
    with store_of(history_url, root) as store:
        assert store.runs("project") == []
        done = merge(root, "shard1.json", "shard2.json", "-o", "merged.json", f"--history={history_url}")
        assert done.returncode == 0, done.output
        [run] = store.runs("project")
        assert (run.commit, run.shards, run.attempt) == (commit, 2, 1)
        assert_recorded_as_reported(store, run.id, report_of(root, "merged.json"))


WRITER = """
import sys, time
from pathlib import Path
from pytest_ocr.history.store import record_run
from pytest_ocr.history.url import HistoryTarget, parse
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.stored import load_report

record = RunRecord.from_document(load_report(sys.argv[2]))
target = HistoryTarget(parse(sys.argv[1], Path.cwd()), "writers")
while time.time() < float(sys.argv[3]):  # all four start writing at once
    time.sleep(0.005)
for _ in range(int(sys.argv[4])):
    print(record_run(target, record, Path.cwd(), {"PYTEST_OCR_COMMIT": "c0ffee"}).attempt, flush=True)
"""


def test_four_writers_at_once_lose_and_duplicate_nothing(tmp_path: Path, history_url: str) -> None:
    """Four processes record five runs each of one commit into one new store, all at once."""
    root = text_suite(tmp_path / "project")
    done = session(root, "--ocr-report=report.json")
    assert done.returncode == 0, done.output
    start = time.time() + 3
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, history_url, "report.json", str(start), "5"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    outputs = [w.communicate(timeout=300) for w in writers]
    assert [w.returncode for w in writers] == [0] * 4, outputs
    attempts = sorted(int(a) for out, _ in outputs for a in out.split())
    assert attempts == list(range(1, 21))
    with store_of(history_url, root) as store:
        runs = store.runs("writers", limit=100)
        assert sorted(r.attempt for r in runs) == list(range(1, 21))
        assert all(r.commit == "c0ffee" for r in runs)
        assert [len(store.items(r.id)) for r in runs] == [19] * 20
        assert len(store.item_values("writers", report_of(root)["results"][0]["key"], limit=100)) == 20
        assert_recorded_as_reported(store, runs[0].id, report_of(root))


@pytest.mark.parametrize("backend", HISTORY_BACKENDS)
def test_a_store_that_cannot_be_reached_costs_no_other_output(
    tmp_path: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    """An SQLite file whose directory cannot be made; a server that does not answer, and one
    that refuses the password: the run's other outputs are written, one line says why, and
    the run passes unless history is required. No credential is in any output."""
    root = text_suite(tmp_path / "project")
    if backend == "sqlite":
        (root / "blocked").write_text("a file where the store's directory would be\n", encoding="utf-8")
        stores = [(f"sqlite:///{root}/blocked/history.sqlite", "sqlite:///", "blocked cannot be made (File exists)")]
    else:
        server = request.getfixturevalue("postgres_server")
        stores = [
            (f"postgresql://{USER}:{PASSWORD}@127.0.0.1:1/history", "postgresql://127.0.0.1:1/", "OperationalError"),
            (server.url(password="wrong-" + PASSWORD), "postgresql://127.0.0.1:", "password authentication failed"),
        ]
    for url, shown, why in stores:
        done = session(root, "--ocr-report=report.json", "--ocr-html=report.html", f"--ocr-history={url}")
        assert done.returncode == 0, done.output
        assert (root / "report.json").is_file() and (root / "report.html").is_file()
        [line] = [line for line in done.stdout.splitlines() if "OCR history" in line]
        assert line.startswith(f"warning: OCR history not recorded in {shown}") and why in line, line
        required = session(root, "--ocr-report=report.json", f"--ocr-history={url}", "--ocr-history-required")
        assert required.returncode == 1, required.output
        assert f"ERROR: OCR history could not be recorded in {shown}" in required.stdout
        for out in (done, required):
            assert PASSWORD not in out.output and USER not in out.output
    assert files_holding(root, PASSWORD, USER) == []


def test_a_locked_store_costs_no_other_output(tmp_path: Path, history_url: str) -> None:
    """Another writer holds the store's lock past --ocr-max-lock-wait-s: a warning, every other output."""
    root = text_suite(tmp_path / "project")
    store_of(history_url, root).close()  # created
    url = parse(history_url, root).url
    if history_url.startswith("sqlite"):
        holder = sqlite3.connect(url.removeprefix("sqlite:///"), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
    else:
        from pytest_ocr.history.store import ADVISORY_LOCK

        holder = psycopg.connect(history_url)
        holder.execute(f"SELECT pg_advisory_xact_lock({ADVISORY_LOCK})")
    try:
        args = ("--ocr-report=report.json", f"--ocr-history={history_url}", "--ocr-max-lock-wait-s=1")
        started = time.monotonic()
        done = session(root, *args)
        assert time.monotonic() - started < 30
        assert done.returncode == 0, done.output
        assert (root / "report.json").is_file()
        [line] = [line for line in done.stdout.splitlines() if "OCR history" in line]
        assert line.startswith("warning: OCR history not recorded in ") and "lock" in line.lower(), line
        assert line.endswith("(this fails the run only when history is required)")
    finally:
        holder.close()
    with store_of(history_url, root) as store:
        assert store.runs("project") == []


def test_credentials_are_in_no_output(tmp_path: Path, postgres_server: object) -> None:
    """A run recorded on the server with a password in its URL, every output asked for: the
    password and the user are in none of them, nor in the terminal."""
    root = text_suite(tmp_path / "project")
    url = postgres_server.new_database()  # type: ignore[attr-defined]
    assert PASSWORD in url
    done = session(
        root,
        "--ocr-report=report.json",
        "--ocr-html=report.html",
        "--ocr-results-dir=results",
        "--junitxml=junit.xml",
        "-v",
        env={"PYTEST_OCR_HISTORY_URL": url, "GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": str(root / "s.md")},
    )
    assert done.returncode == 0, done.output
    assert "OCR history: run 1 of suite project" in done.stdout
    assert PASSWORD not in done.output and f"{USER}:" not in done.output
    assert files_holding(root, PASSWORD, USER) == []
    assert (root / "s.md").is_file() and (root / "results").is_dir()


def test_a_bad_history_url_is_a_usage_error_that_hides_its_credentials(tmp_path: Path) -> None:
    root = text_suite(tmp_path / "project")
    for url, says in (
        (f"mysql://{USER}:{PASSWORD}@db/history", "a history store is sqlite:///PATH or postgresql://"),
        (f"postgresql://{USER}:{PASSWORD}@db", "needs a database name"),
        (f"{USER}:{PASSWORD}@db/history", "not a database URL"),
        ("sqlite://", "needs a file"),
    ):
        done = session(root, f"--ocr-history={url}")
        assert done.returncode == 4, done.output
        assert says in done.stderr, done.stderr
        assert [line for line in done.stderr.splitlines() if line.strip()] == [
            line for line in done.stderr.splitlines() if "--ocr-history" in line
        ]
        assert PASSWORD not in done.output and USER not in done.output
    for args, says in (
        (("--ocr-history", "--ocr-history-suite=x\ty"), "--ocr-history-suite: a suite name is 1 to 200 printable"),
        (("--ocr-history-required",), "--ocr-history-required needs a history store: --ocr-history [URL]"),
        (("--ocr-history-suite=nightly",), "--ocr-history-suite needs a history store: --ocr-history [URL]"),
    ):
        done = session(root, *args)
        assert done.returncode == 4 and says in done.stderr, done.output


@requires_tesseract
def test_a_real_tesseract_run_is_recorded(tmp_path: Path, history_url: str) -> None:
    """lines.ocr.yaml read by the real Tesseract: its items' values and output hashes in the store."""
    root = text_suite(tmp_path / "project", files=("lines.ocr.yaml",), real=True)
    done = session(root, "--ocr-report=report.json", f"--ocr-history={history_url}", "--ocr-history-suite=lines")
    assert done.returncode == 0, done.output
    report = report_of(root)
    assert {r["engine"] for r in report["results"]} == {"tesseract-line", "tesseract-greek", "tesseract-serbian"}
    with store_of(history_url, root) as store:
        [run] = store.runs("lines")
        assert_recorded_as_reported(store, run.id, report)
        assert {e.fingerprint["type"] for e in store.engines([run.id])} == {"tesseract"}
