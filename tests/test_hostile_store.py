"""The history store as anything else may leave it, in real ``pytest-ocr history`` commands and
pytest sessions under a memory limit and a timeout, on SQLite and on a real PostgreSQL server
where a finding applies to both (issue 36):

- rows pytest-ocr would not have written (a summary that is not JSON, an outcome code 99, a
  blob of the wrong length, text in a number column) are one located line from every command
  and from pytest's ``--ocr-history`` and ``--ocr-baseline=history:...``, never a traceback;
- the dashboard writes no stored value as markup: its pages, loaded in real Chromium, neither
  navigate away nor hold an element the store put there;
- reading never writes: another program's database is refused as it was, a read-only store
  is read, a store of an older schema is read without being migrated;
- readers do not wait for a writer, and what they may wait for is bounded by an option;
- Ctrl-C while a run is recorded rolls it back and says so in one line; the summary prints;
- the dashboard, made again, keeps the files it did not write; a CSV export's text cannot
  be a spreadsheet formula; an unknown --metric, --last 10**19 and show 10**30 are one line.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from conftest import Bounded, run_bounded
from helpers.chromium import Browser
from helpers.hostile import good_image, stem_case, write_suite
from sqlalchemy.engine import make_url

from pytest_ocr.history.store import ADVISORY_LOCK
from pytest_ocr.history.url import parse

pytestmark = pytest.mark.slow

MEMORY_MB = 800
CLI = ("pytest_ocr.cli",)
SUITE = "s"
COMMITS = [hashlib.sha1(f"commit {i}".encode()).hexdigest() for i in range(3)]
KEY = "s.ocr.yaml::alpha[stem]"
HISTORY = Path(__file__).parent / "data" / "history"


# -- a project, its runs recorded, and the commands that read them --------------------------


def project(root: Path) -> Path:
    """Two good items on an engine that reads each image's name."""
    root.mkdir(parents=True, exist_ok=True)
    cases = [stem_case(good_image(root, "alpha.png")), stem_case(good_image(root, "beta.png"))]
    write_suite(root, "  stem: {type: python, function: 'engine:read'}", cases)
    return root


def record(root: Path, url: str, commit: str, *args: str) -> Bounded:
    """A pytest session recording its run of suite s at ``commit`` of main."""
    done = run_bounded(
        root,
        f"--ocr-history={url}",
        f"--ocr-history-suite={SUITE}",
        "--ocr-no-cache",
        *args,
        memory_mb=MEMORY_MB,
        timeout=120,
        env={"PYTEST_OCR_COMMIT": commit, "PYTEST_OCR_BRANCH": "main"},
    )
    assert done.returncode == 0 and "OCR history: run" in done.output, done.output[-3000:]
    return done


def history(root: Path, *args: str, url: str | None = None, **options: Any) -> Bounded:
    """``pytest-ocr history ARGS [--history=URL]`` in ``root``."""
    given = [f"--history={url}"] if url is not None else []
    options.setdefault("timeout", 60)
    return run_bounded(
        root, "history", *args, *given, command=CLI, memory_mb=MEMORY_MB, env={"COLUMNS": "200"}, **options
    )


def one_line(done: Bounded) -> str:
    """The one line a refusal is; no traceback."""
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "Traceback" not in done.output, done.output[-3000:]
    return lines[0]


def shown(url: str, root: Path) -> str:
    return parse(url, root).shown


def sqlite_path(url: str, root: Path) -> Path:
    return Path(shown(url, root).removeprefix("sqlite:///"))


def execute(url: str, root: Path, sql: str, *params: object) -> None:
    """One statement on the store, as another program would run it (``?``: a parameter)."""
    if url.startswith("sqlite"):
        with sqlite3.connect(sqlite_path(url, root)) as connection:
            connection.execute(sql, params)
        connection.close()
    else:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(sql.replace("?", "%s"), params)


def state(path: Path) -> dict[str, tuple[bytes, int]]:
    """Every file in ``path``'s directory: its bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(path.parent.iterdir()) if p.is_file()}


def tables(url: str) -> list[str]:
    with psycopg.connect(url) as connection:
        found = connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
        return [row[0] for row in found]


@pytest.fixture
def recorded(history_url: str, tmp_path: Path) -> dict[str, Any]:
    """Two runs of suite s at two commits of main, in a new store of the backend."""
    root = project(tmp_path / "project")
    for commit in COMMITS[:2]:
        record(root, history_url, commit)
    return {"root": root, "url": history_url, "shown": shown(history_url, root)}


# -- rows that pytest-ocr would not have written ------------------------------------------------


@dataclass(frozen=True)
class Tampered:
    name: str
    sql: str
    params: tuple[object, ...]
    says: str  # the line's location and expectation
    commands: tuple[str, ...]  # the history commands that read the row
    baseline: bool = True  # a pytest session comparing with history:main reads it
    postgres: bool = True  # PostgreSQL's column types admit the value


ITEM = "WHERE run_id = 2 AND key_id = (SELECT id FROM item_keys WHERE key = ?)"
RUNS = ("runs", "show 2", "trend --branch=main", "export --format=csv", "html site --branch=main")
ITEMS = (f"item {KEY}", "flaky", "regressions --items --branch=main", "html site --branch=main")
TAMPERED = [
    Tampered(
        "summary-not-json",
        "UPDATE runs SET summary = ? WHERE id = 2",
        ('{"counts": ',),
        "table runs, run 2: column summary: expected a JSON object, not '{\"counts\": '",
        RUNS,
    ),
    Tampered(
        "counts-not-numbers",
        "UPDATE runs SET summary = ? WHERE id = 2",
        ('{"counts": {"passed": "<meta http-equiv=refresh>"}}',),
        "table runs, run 2: column summary: expected counts of whole numbers from 0, not "
        '\'{"counts": {"passed": "<meta http-equiv=refresh>"}}\'',
        RUNS,
    ),
    Tampered(
        "outcome-99",
        f"UPDATE items SET outcome = 99 {ITEM}",
        (KEY,),
        f"table items, run 2, item '{KEY}': column outcome: expected an outcome's code from 0 to 5, not 99",
        ITEMS,
    ),
    Tampered(
        "values-too-short",
        f'UPDATE items SET "values" = ? {ITEM}',
        (b"\x00\x00", KEY),
        f"table items, run 2, item '{KEY}': column values: expected 32 bytes, not b'\\x00\\x00'",
        ITEMS,
    ),
    Tampered(
        "counts-cut-short",
        f"UPDATE items SET counts = ? {ITEM}",
        (b"\x01\x00", KEY),
        f"table items, run 2, item '{KEY}': column counts: expected 10 coded counts, not b'\\x01\\x00'",
        ITEMS,
    ),
    Tampered(
        "attempt-text",
        "UPDATE runs SET attempt = ? WHERE id = 2",
        ("<meta http-equiv=refresh content=0>",),
        "table runs, run 2: column attempt: expected a whole number from 1, not '<meta http-equiv=refresh content=0>'",
        RUNS,
        postgres=False,
    ),
    Tampered(
        "n-text",
        "UPDATE aggregates SET n = ? WHERE run_id = 2",
        ("many",),
        "table aggregates, run 2, engine 'stem', metric 'cer': column n: expected a whole number from 0, not 'many'",
        ("show 2", "trend --branch=main", "export --format=json", "html site --branch=main"),
        baseline=False,
        postgres=False,
    ),
]
BACKENDS = {"sqlite": "sqlite", "postgresql": pytest.param("postgresql", marks=pytest.mark.slow)}


@pytest.mark.parametrize(
    ("tampered", "history_url"),
    [(t, "sqlite") for t in TAMPERED] + [(t, "postgresql") for t in TAMPERED if t.postgres],
    ids=[f"{t.name}-sqlite" for t in TAMPERED] + [f"{t.name}-postgresql" for t in TAMPERED if t.postgres],
    indirect=["history_url"],
)
def test_a_tampered_row_is_one_located_line_from_every_command_and_session(
    recorded: dict[str, Any], tampered: Tampered
) -> None:
    root, url, where = recorded["root"], recorded["url"], recorded["shown"]
    execute(url, root, tampered.sql, *tampered.params)
    before = sqlite_path(url, root).read_bytes() if url.startswith("sqlite") else None
    for command in tampered.commands:
        done = history(root, *command.split(), url=url)
        assert done.returncode == 4, (command, done.output[-3000:])
        assert one_line(done) == f"pytest-ocr history: {where}: {tampered.says}", command
        assert done.seconds < 30 and done.max_rss_mb < MEMORY_MB
    assert not list(root.glob("site/*"))  # no page written
    if tampered.baseline:  # a session comparing with the tampered run: a usage error naming it, before any item runs
        compared = run_bounded(
            root, "--ocr-baseline=history:main", f"--ocr-history={url}", f"--ocr-history-suite={SUITE}",
            memory_mb=MEMORY_MB, timeout=120,
        )  # fmt: skip
        assert compared.returncode == 4, compared.output[-3000:]
        assert one_line(compared) == f"ERROR: --ocr-baseline: history:main: history store {where}: {tampered.says}"
    if tampered.name == "attempt-text":  # a session recording at run 2's commit reads its attempts
        again = run_bounded(
            root, f"--ocr-history={url}", f"--ocr-history-suite={SUITE}", "--ocr-report=r.json", memory_mb=MEMORY_MB,
            timeout=120, env={"PYTEST_OCR_COMMIT": COMMITS[1], "PYTEST_OCR_BRANCH": "main"},
        )  # fmt: skip
        assert again.returncode == 0 and "Traceback" not in again.output, again.output[-3000:]
        [line] = [line for line in again.output.splitlines() if "OCR history" in line]
        assert line == (
            f"warning: OCR history not recorded in {where}: table runs, the runs of suite 's': column attempt: "
            "expected a whole number from 1, not '<meta http-equiv=refresh content=0>' "
            "(this fails the run only when history is required)"
        )
        assert [r["outcome"] for r in again.report(root, "r.json")["results"]] == ["passed", "passed"]
    if before is not None:  # what was read is as it was, and no -wal or -shm file is left beside it
        assert sqlite_path(url, root).read_bytes() == before
        assert [p.name for p in sqlite_path(url, root).parent.iterdir()] == ["history.sqlite"]


# -- the dashboard -----------------------------------------------------------------------------

# A page that wrote any of it as markup would navigate to ``to`` (a refresh the Content-Security-Policy
# does not stop) and hold the element.
HOSTILE = '<meta http-equiv="refresh" content="0;url={to}"><b id="injected">x</b>'


def loaded_without_markup(pages: list[Path], landed: Path) -> None:
    """Each page loaded in real headless Chromium: it stays where it is, and holds no element
    nor refresh that a value put there."""
    browser = Browser()
    try:
        for page in pages:
            browser.call("Page.navigate", {"url": page.as_uri()})
            browser.wait("document.readyState === 'complete'")
            time.sleep(1.0)  # a refresh of 0 s would have gone by now
            assert browser.js("location.href") == page.as_uri(), page
            assert browser.js("document.title") != "landed", page
            assert browser.js("document.getElementById('injected') === null"), page
            assert browser.js("document.querySelectorAll('meta[http-equiv=refresh]').length") == 0, page
    finally:
        browser.close()
    assert landed.read_text(encoding="utf-8") == "<title>landed</title>"


@pytest.mark.parametrize("history_url", ["sqlite"], indirect=True)  # the pages are the same on both backends
@pytest.mark.parametrize("stored", ["text", "numbers"])
def test_the_dashboard_writes_no_stored_value_as_markup(recorded: dict[str, Any], stored: str, tmp_path: Path) -> None:
    root, url, where = recorded["root"], recorded["url"], recorded["shown"]
    landed = tmp_path / "landed.html"
    landed.write_text("<title>landed</title>", encoding="utf-8")
    hostile = HOSTILE.format(to=landed.as_uri())
    first = history(root, "html", "site", "--branch=main", url=url)
    assert first.returncode == 0, first.output[-3000:]
    site = root / "site"
    written = {p: p.read_bytes() for p in site.rglob("*") if p.is_file()}
    if stored == "text":  # every text column a page shows (commits are hex, or refused), names inside the JSON ones
        for column in ("status", "recorded_at", "commit_time", "ci", "job", "run_url", "pytest_ocr"):
            execute(url, root, f"UPDATE runs SET {column} = ?", hostile)
        execute(url, root, "UPDATE runs SET scorers = ?, summary = ?", json.dumps({hostile: hostile}),
                json.dumps({"counts": {hostile: 2}}))  # fmt: skip
        execute(url, root, "UPDATE engines SET fingerprint_id = ?", hostile)
        execute(url, root, "UPDATE aggregates SET metric = ? WHERE metric = 'exact_match'", hostile)
        done = history(root, "html", "site", "--branch=main", url=url)
        assert done.returncode == 0, done.output[-3000:]
        assert one_line(done).startswith("pytest-ocr history html: 4 pages ")
        for page in site.rglob("*.html"):
            assert 'http-equiv="refresh"' not in page.read_text(encoding="utf-8"), page
    else:  # a number column holding markup: the store is refused, the site written before kept as it was
        execute(url, root, "UPDATE runs SET attempt = ? WHERE id = 2", hostile)
        done = history(root, "html", "site", "--branch=main", url=url)
        assert done.returncode == 4, done.output[-3000:]
        assert one_line(done) == (
            f"pytest-ocr history: {where}: table runs, run 2: column attempt: expected a whole number from 1, "
            'not \'<meta http-equiv="refresh" co...'
        )
        assert {p: p.read_bytes() for p in site.rglob("*") if p.is_file()} == written
    assert done.seconds < 30 and done.max_rss_mb < MEMORY_MB
    loaded_without_markup(sorted(site.rglob("*.html")), landed)


@pytest.mark.parametrize("history_url", ["sqlite"], indirect=True)
def test_the_dashboard_made_again_keeps_the_files_it_did_not_write(recorded: dict[str, Any]) -> None:
    root, url = recorded["root"], recorded["url"]
    assert history(root, "html", "site", "--branch=main", url=url).returncode == 0
    site = root / "site"
    assert sorted(p.name for p in (site / "runs").iterdir()) == ["1.html", "2.html"]
    theirs = {"CNAME": "ocr.example.org\n", ".nojekyll": "", "notes/README.md": "# mine\n", "runs/notes.txt": "mine\n"}
    for name, text in theirs.items():
        (site / name).parent.mkdir(exist_ok=True)
        (site / name).write_text(text, encoding="utf-8")
    (site / "link").symlink_to("/etc/hostname")
    again = history(root, "html", "site", "--branch=main", "--last=1", url=url)
    assert again.returncode == 0, again.output[-3000:]
    assert one_line(again) == "pytest-ocr history html: 3 pages (1 chart page, 1 run) written to site"
    for name, text in theirs.items():
        assert (site / name).read_text(encoding="utf-8") == text, name
    assert (site / "link").is_symlink() and os.readlink(site / "link") == "/etc/hostname"
    assert sorted(p.name for p in (site / "runs").iterdir()) == ["2.html", "notes.txt"]  # run 1's page is gone
    assert [p.name for p in root.iterdir() if p.name.startswith(".site")] == []


# -- reading never writes ----------------------------------------------------------------------


def test_reads_refuse_another_programs_database_and_leave_it_as_it_was(history_url: str, tmp_path: Path) -> None:
    root = project(tmp_path / "project")
    url, where = history_url, shown(history_url, root)
    if url.startswith("sqlite"):  # an application's file, in its rollback-journal mode
        path = sqlite_path(url, root)
        path.parent.mkdir()
        with sqlite3.connect(path) as connection:
            connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
            connection.execute("INSERT INTO users (name) VALUES ('ada')")
        connection.close()
        before = state(path)
    else:
        execute(url, root, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")
    says = f"{where}: not a pytest-ocr history store: it has tables (users) but no meta table"
    for command in ("runs", "trend --branch=main", "export --format=json", "html site --branch=main"):
        done = history(root, *command.split(), url=url)
        assert done.returncode == 4, done.output[-3000:]
        assert one_line(done) == f"pytest-ocr history: {says}"
        assert done.seconds < 30 and done.max_rss_mb < MEMORY_MB
    compared = run_bounded(
        root, "--ocr-baseline=history:main", memory_mb=MEMORY_MB, timeout=120, env={"PYTEST_OCR_HISTORY_URL": url}
    )
    assert (
        compared.returncode == 4 and one_line(compared) == f"ERROR: --ocr-baseline: history:main: history store {says}"
    )
    if url.startswith("sqlite"):  # its bytes, times and journal as they were: no table, no WAL
        assert state(path) == before
        empty = path.with_name("empty.db")
        empty.write_bytes(b"")
        done = history(root, "runs", url=f"sqlite:///{empty}")
        assert done.returncode == 4 and one_line(done) == (
            f"pytest-ocr history: sqlite:///{empty}: holds no history store yet: no run was recorded in it "
            "(--ocr-history records runs)"
        )
        assert empty.read_bytes() == b"" and sorted(p.name for p in path.parent.iterdir()) == [
            "empty.db",
            "history.sqlite",
        ]
    else:
        assert tables(url) == ["users"]


def read_only(directory: Path) -> tuple[str, ...]:
    """``directory`` and its files made read-only; the prefix a command is run under to see them
    so. Root writes through file modes: for root, the command runs in a mount namespace of its own,
    where the directory is a read-only mount (as a CI artifact mounted read-only)."""
    for path in directory.iterdir():
        path.chmod(0o444)
    directory.chmod(0o555)
    if os.geteuid() != 0:
        return ()
    script = 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" "$1" && shift && exec "$@"'
    return ("unshare", "--mount", "sh", "-c", script, "sh", str(directory))


def test_a_read_only_store_is_read(tmp_path: Path) -> None:
    """The project's store in a read-only directory: every read command reads it, and a session
    compares with it; nothing in the directory changes (no journal, no -shm file)."""
    root = project(tmp_path / "project")
    for commit in COMMITS[:2]:
        record(root, "sqlite:///.pytest-ocr/history.sqlite", commit)
    with (root / "pytest.ini").open("a", encoding="utf-8") as ini:
        ini.write(f"ocr_history_suite = {SUITE}\n")  # the suite a history baseline is read from
    store = root / ".pytest-ocr"
    prefix = read_only(store)
    before = state(store / "history.sqlite")
    try:
        for command, shows in (
            ("runs", f"2    s      {COMMITS[1][:12]}  main    1        complete  passed 2"),
            ("show 1", f"commit {COMMITS[0]} on main"),
            ("trend --branch=main", "s      stem    cer macro"),
            ("regressions --items --branch=main", "no regression over 2 commits"),
            (f"item {KEY}", f"{KEY} in suite s: 2 runs"),
            ("flaky", "no flaky item over 2 runs"),
            ("export --format=json", '"pytest_ocr_history_export": 1'),
            ("html site --branch=main", "pytest-ocr history html: 4 pages (1 chart page, 2 runs) written to site"),
        ):
            done = history(root, *command.split(), prefix=prefix)
            assert done.returncode == 0 and shows in done.output, (command, done.output[-3000:])
            assert "Traceback" not in done.output and done.seconds < 30 and done.max_rss_mb < MEMORY_MB
        compared = run_bounded(
            root, "--ocr-baseline=history:main", "--ocr-no-cache", "--ocr-report=r.json", memory_mb=MEMORY_MB,
            timeout=120, prefix=prefix,
        )  # fmt: skip
        assert compared.returncode == 0 and "2 passed" in compared.output, compared.output[-3000:]
        baseline = compared.report(root, "r.json")["baseline"]
        assert baseline["path"].startswith("history:main (run 2 of suite s") and baseline["matched"] == 2
        assert state(store / "history.sqlite") == before
    finally:
        store.chmod(0o755)
        for path in store.iterdir():
            path.chmod(0o644)


def older_store(url: str, root: Path) -> None:
    """A store of schema version 1 (as pytest-ocr 0.2 made it) holding one run."""
    backend = "sqlite" if url.startswith("sqlite") else "postgresql"
    lines = (HISTORY / f"v1.{backend}.sql").read_text(encoding="utf-8").splitlines()
    sql = "\n".join(line for line in lines if not line.startswith("--"))
    if backend == "sqlite":
        sqlite_path(url, root).parent.mkdir()
    for statement in [s.strip() for s in sql.split(";") if s.strip()]:
        execute(url, root, statement)
    execute(
        url, root,
        'INSERT INTO runs (suite, "commit", attempt, started_at, finished_at, duration_s, status, shards, pytest_ocr, '
        "scorers, summary, recorded_at) VALUES ('s', ?, 1, 't0', 't1', 1.5, 'complete', 0, '0.2', '{}', "
        "'{\"counts\": {\"passed\": 3}}', '2026-01-02T03:04:05')",
        COMMITS[0],
    )  # fmt: skip


def reader(url: str) -> str:
    """A role that may only read the database (as a dashboard's job would connect), its URL."""
    name = f"reader_{os.getpid()}_{time.monotonic_ns() % 10**6}"
    database = make_url(url).database
    for statement in (
        f"CREATE ROLE {name} LOGIN PASSWORD 'reader-secret-5d1e'",
        f'GRANT CONNECT ON DATABASE "{database}" TO {name}',
        f"GRANT USAGE ON SCHEMA public TO {name}",
        f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {name}",
        f"ALTER ROLE {name} SET default_transaction_read_only = on",
    ):
        execute(url, Path("."), statement)
    return make_url(url).set(username=name, password="reader-secret-5d1e").render_as_string(hide_password=False)


def test_a_store_of_an_older_schema_is_read_as_it_is(history_url: str, tmp_path: Path) -> None:
    """Reading never migrates: version 1's runs are read (scored by the first scorers' versions);
    the store stays version 1, byte for byte on SQLite, read by a read-only role on PostgreSQL."""
    root = project(tmp_path / "project")
    older_store(history_url, root)
    url = history_url if history_url.startswith("sqlite") else reader(history_url)
    before = sqlite_path(url, root).read_bytes() if url.startswith("sqlite") else None
    runs = history(root, "runs", url=url)
    assert runs.returncode == 0, runs.output[-3000:]
    assert f"1    s      {COMMITS[0][:12]}  -       1        complete  passed 3  2026-01-02T03:04:05" in runs.output
    shown_run = history(root, "show", "1", url=url)
    assert shown_run.returncode == 0 and "run 1 of suite s: complete, attempt 1" in shown_run.output
    if before is not None:
        assert sqlite_path(url, root).read_bytes() == before
        with sqlite3.connect(sqlite_path(url, root)) as connection:
            columns = [row[1] for row in connection.execute("PRAGMA table_info(runs)")]
        connection.close()
    else:
        with psycopg.connect(history_url) as connection:
            found = connection.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = 'runs' ORDER BY ordinal_position"
            )
            columns = [row[0] for row in found]
    assert "metric_scorers" not in columns and "suite" in columns  # as version 1 made it


# -- waiting ---------------------------------------------------------------------------------------


def test_readers_do_not_wait_for_a_writer_and_their_wait_is_an_option(recorded: dict[str, Any]) -> None:
    root, url, where = recorded["root"], recorded["url"], recorded["shown"]
    over = f"pytest-ocr history: {where}: another process kept the store locked for longer than 1 s (--max-lock-wait-s)"
    if url.startswith("sqlite"):
        holder = sqlite3.connect(sqlite_path(url, root), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")  # a writer in the middle of recording a run
        busy = ("PRAGMA locking_mode = EXCLUSIVE", "BEGIN EXCLUSIVE", "UPDATE meta SET value = value")
    else:
        holder = psycopg.connect(url)
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
        busy = ("LOCK TABLE runs IN ACCESS EXCLUSIVE MODE",)  # as a schema change would
    try:
        done = history(root, "runs", url=url, timeout=60)
        assert done.returncode == 0 and done.output.count("complete") == 2, done.output[-3000:]
        assert done.seconds < 15
        holder.rollback() if isinstance(holder, psycopg.Connection) else holder.execute("ROLLBACK")
        for statement in busy:  # another program holding the whole store (or its runs table)
            holder.execute(statement)
        done = history(root, "runs", "--max-lock-wait-s=1", url=url, timeout=60)
        assert done.returncode == 4 and one_line(done) == over
        assert 1 <= done.seconds < 15
    finally:
        holder.close()


# Runs a session as conftest's LAUNCHER does, and passes Ctrl-C (SIGINT) on to it alone.
FORWARDING_LAUNCHER = """
import os, signal, subprocess, sys
proc = subprocess.Popen([sys.executable, "-m", *sys.argv[2:]])
signal.signal(signal.SIGINT, lambda *_: proc.send_signal(signal.SIGINT))
_, status, usage = os.wait4(proc.pid, 0)
with open(sys.argv[1], "w") as peak:
    peak.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _from_a_terminal() -> None:
    """Ctrl-C as a terminal gives it (this process may ignore SIGINT, which a child inherits),
    under the memory limit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    limit = MEMORY_MB * 1024 * 1024
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_ctrl_c_while_the_run_is_recorded_rolls_it_back_and_says_so(recorded: dict[str, Any]) -> None:
    """The session waits for the store's write lock, which this test holds; Ctrl-C then ends the
    recording (never the lock's wait of 60 s), the summary is printed with one line saying the
    run is not in the history, and the store holds the two runs it held."""
    root, url, where = recorded["root"], recorded["url"], recorded["shown"]
    if url.startswith("sqlite"):
        holder: Any = sqlite3.connect(sqlite_path(url, root), isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
    else:
        holder = psycopg.connect(url)
        holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
    peak = root / ".peak-rss-kib"
    args = [f"--ocr-history={url}", f"--ocr-history-suite={SUITE}", "--ocr-report=r.json", "--ocr-max-lock-wait-s=60"]
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", FORWARDING_LAUNCHER, str(peak), "pytest", "-p", "no:cacheprovider", "--ocr-no-cache",
         *args],
        cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, preexec_fn=_from_a_terminal,
        env={**os.environ, "PYTEST_OCR_COMMIT": COMMITS[2], "PYTEST_OCR_BRANCH": "main"}, start_new_session=True,
    )  # fmt: skip
    try:
        while not (root / "r.json").exists():  # the outputs are written; the history is recorded last
            assert proc.poll() is None and time.monotonic() - start < 60, "the session never wrote its report"
            time.sleep(0.05)
        time.sleep(1.0)  # in the wait for the lock
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=30)
        took = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        holder.close()
    assert took < 10, output[-3000:]  # never the 60 s the lock may be waited for
    assert proc.returncode == 0 and "Traceback" not in output and "KeyboardInterrupt" not in output, output[-3000:]
    assert "OCR summary" in output and " 2 passed in " in output.splitlines()[-1]
    [line] = [line for line in output.splitlines() if "OCR history" in line]
    assert line == (
        f"warning: OCR history not recorded in {where}: interrupted (Ctrl-C) while recording: the history does not "
        "hold this run (this fails the run only when history is required)"
    )
    assert int(peak.read_text()) / 1024 < MEMORY_MB
    runs = history(root, "runs", url=url)
    assert runs.returncode == 0 and runs.output.count("complete") == 2, runs.output


# -- exports and arguments ---------------------------------------------------------------------------


def test_csv_export_text_is_never_a_formula_and_json_stays_exact(tmp_path: Path) -> None:
    """A branch, a suite, a fingerprint and a commit time that a spreadsheet would run, as a CI
    or a store may hold them: each cell written after a ', numbers as numbers (-0.5 too)."""
    root = project(tmp_path / "project")
    url = "sqlite:///store/history.sqlite"
    branch, suite = '=HYPERLINK("evil.example/x","click")', "+SUM(1,2)"  # a branch name git accepts
    done = run_bounded(
        root, f"--ocr-history={url}", f"--ocr-history-suite={suite}", memory_mb=MEMORY_MB, timeout=120,
        env={"PYTEST_OCR_COMMIT": COMMITS[0], "PYTEST_OCR_BRANCH": branch},
    )  # fmt: skip
    assert done.returncode == 0 and "OCR history: run 1" in done.output, done.output[-3000:]
    execute(url, root, "UPDATE engines SET fingerprint_id = '@SUM(1)'")
    execute(url, root, "UPDATE runs SET commit_time = ?", "\t=1+1")
    execute(url, root, "UPDATE aggregates SET value = -0.5 WHERE metric = 'cer' AND kind = 'macro'")
    exported = history(root, "export", "--format=csv", url=url)
    assert exported.returncode == 0, exported.output[-3000:]
    rows = list(csv.DictReader(io.StringIO(exported.output)))
    assert {(r["suite"], r["branch"], r["commit_time"], r["fingerprint_id"]) for r in rows} == {
        ("'" + suite, "'" + branch, "'\t=1+1", "'@SUM(1)")
    }
    [cer] = [r for r in rows if (r["metric"], r["kind"]) == ("cer", "macro")]
    assert (cer["value"], cer["id"], cer["attempt"], cer["n"]) == ("-0.5", "1", "1", "2")
    assert all(
        not cell.startswith(("=", "+", "-", "@", "\t", "\r")) for r in rows for k, cell in r.items() if k != "value"
    )
    document = json.loads(history(root, "export", "--format=json", url=url).output)
    [run] = document["runs"]
    assert (run["suite"], run["branch"], run["commit_time"]) == (suite, branch, "\t=1+1")
    assert {e["fingerprint_id"] for e in run["engines"]} == {"@SUM(1)"}
    assert [a["value"] for a in run["aggregates"] if (a["metric"], a["kind"]) == ("cer", "macro")] == [-0.5]


def test_an_unknown_metric_and_a_number_beyond_the_store_are_one_line(recorded: dict[str, Any]) -> None:
    root, url = recorded["root"], recorded["url"]
    known = "known: bigram_overlap, bow_error, cer"
    for command in ("trend --branch=main", "regressions --branch=main", f"item {KEY}"):
        done = history(root, *command.split(), "--metric=wre", url=url)
        assert done.returncode == 2, (command, done.output[-3000:])
        line = one_line(done)
        assert line.startswith(f"pytest-ocr history: --metric: unknown metric 'wre'; did you mean 'wer'? ({known}, ")
    for args, argument, most in (
        (("runs", "--last=10000000000000000000"), "--last", 10**9),
        (("show", str(10**30)), "RUN", 2**63 - 1),
        (("prune", "--keep=10000000000000000000"), "--keep", 10**9),
        (("flaky", "--last=0"), "--last", 10**9),
        (("trend", "--last=-1"), "--last", 10**9),
    ):
        done = history(root, *args, url=url)
        given = args[1].partition("=")[2] or args[1]
        assert done.returncode == 2 and "Traceback" not in done.output, done.output[-3000:]
        assert done.output.splitlines()[-1] == (
            f"pytest-ocr history {args[0]}: error: argument {argument}: expected a whole number from 1 to {most}, "
            f"not {given!r}"
        )
    done = history(root, "runs", "--max-lock-wait-s=inf", url=url)
    assert done.returncode == 2 and done.output.splitlines()[-1] == (
        "pytest-ocr history runs: error: argument --max-lock-wait-s: expected a number above 0 and at most "
        "1,000,000, not 'inf'"
    )
    still = history(root, "runs", url=url)  # nothing was pruned
    assert still.returncode == 0 and still.output.count("complete") == 2
