"""A PostgreSQL store's credentials in real sessions and commands on a real server (issue 36,
point 3): a password holding an unencoded '@' (``o:Sekr3t@Pa55w0rd@host``) was read with the
host ``Pa55w0rd@host``, which every warning and error then named; a one-letter user ``o`` had
every "o" of every error replaced ("Operati***nalErr***r").

A URL whose user and password the driver would read otherwise than as written is refused in one
line naming nothing before its last '@'; the same password percent-encoded records, and no part
of it is in any output, report file or the store; a driver's error (a wrong password, a server
that is not there) reads as the driver wrote it, with the user and password hidden."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import run_bounded
from helpers.history import files_holding
from helpers.hostile import MEMORY_MB, good_image, stem_case, write_suite

pytestmark = pytest.mark.slow

USER = "o"  # one letter: it is in "OperationalError", "connection", "port", "for"
PASSWORD = "Sekr3t@Pa55w0rd"
ENCODED = PASSWORD.replace("@", "%40")
PARTS = ("Sekr3t", "Pa55w0rd")  # no part of the password may be shown
CLI = ("pytest_ocr.cli",)
ENGINES = '  stem: {type: python, function: "engine:read"}'
# the machine's own CI or store variables must not decide what these sessions see
ENV = {"PYTEST_OCR_HISTORY_URL": "", "GITHUB_ACTIONS": "", "GITLAB_CI": "", "COLUMNS": "200"}
PERCENT = (
    "an '@' or '/' in its user, password, database name or a query value must be percent-encoded as %40 and %2F "
    "(postgresql://USER:p%40ss@HOST/DATABASE); nothing before its last '@' is shown"
)


@pytest.fixture(scope="module")
def database(postgres_server) -> tuple[int, str]:
    """The server's port and a database owned by the one-letter user ``o``."""
    import psycopg

    with psycopg.connect(postgres_server.url(), autocommit=True) as c:
        c.execute(f"CREATE ROLE {USER} LOGIN PASSWORD '{PASSWORD}'")
        c.execute(f"CREATE DATABASE credentials OWNER {USER}")
    return postgres_server.port, "credentials"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    write_suite(root, ENGINES, [stem_case(good_image(root, "good.png"))])
    return root


def leaked(text: str) -> list[str]:
    return [part for part in PARTS if part in text]


def stored_text(port: int, name: str) -> str:
    """Every row of every table of the store, as text."""
    import psycopg
    from helpers.postgres import PASSWORD as ADMIN
    from helpers.postgres import USER as ADMIN_USER

    with psycopg.connect(f"postgresql://{ADMIN_USER}:{ADMIN}@127.0.0.1:{port}/{name}") as c:
        tables = [r[0] for r in c.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        assert "runs" in tables
        return "\n".join(str(row[0]) for t in tables for row in c.execute(f'SELECT t::text FROM "{t}" t'))


def bounded(result) -> None:
    assert result.seconds < 60, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < 400, f"peak memory {result.max_rss_mb:.0f} MB"


def test_a_password_with_an_unencoded_at_is_refused_naming_none_of_it_and_records_encoded(tmp_path, database):
    port, name = database
    root = project(tmp_path)
    url = f"postgresql://{USER}:{PASSWORD}@127.0.0.1:{port}/{name}"
    shown = f"postgresql://127.0.0.1:{port}/{name}"
    done = run_bounded(root, f"--ocr-history={url}", "--ocr-report=report.json", env=ENV, memory_mb=MEMORY_MB)
    assert done.returncode == 4, done.output[-3000:]
    assert f"ERROR: --ocr-history: {shown}: {PERCENT}" in done.output.splitlines()
    assert not leaked(done.output) and not (root / "report.json").exists()
    bounded(done)
    # the same URL from the environment
    done = run_bounded(root, env={**ENV, "PYTEST_OCR_HISTORY_URL": url}, memory_mb=MEMORY_MB)
    assert done.returncode == 4 and f"ERROR: --ocr-history: {shown}: {PERCENT}" in done.output.splitlines()
    assert not leaked(done.output)
    for args in (("runs",), ("trend",), ("comment",), ("html", "site")):
        done = run_bounded(root, "history", *args, f"--history={url}", env=ENV, memory_mb=MEMORY_MB, command=CLI)
        assert (done.returncode, done.output) == (2, f"pytest-ocr history: --history: {shown}: {PERCENT}\n"), args
        bounded(done)
    # a port that does not parse: the URL is not one, named from its last '@' on
    bad_port = f"postgresql://{USER}:Sekr3t@Pa55w0rd:{port}x@127.0.0.1/{name}"
    done = run_bounded(root, "history", "runs", f"--history={bad_port}", env=ENV, memory_mb=MEMORY_MB, command=CLI)
    assert done.returncode == 2 and not leaked(done.output), done.output
    assert done.output.startswith(f"pytest-ocr history: --history: not a database URL: postgresql://127.0.0.1/{name}")
    assert files_holding(root, *PARTS) == []
    # beside: the same password percent-encoded records, and is in no output, file or the store
    url = f"postgresql://{USER}:{ENCODED}@127.0.0.1:{port}/{name}"
    done = run_bounded(
        root, f"--ocr-history={url}", "--ocr-report=report.json", "--ocr-html=report.html", "--junitxml=junit.xml",
        "-rA", env=ENV, memory_mb=MEMORY_MB,
    )  # fmt: skip
    assert done.returncode == 0, done.output[-3000:]
    assert f"OCR history: run 1 of suite project (no commit, complete, 1 items) in {shown}" in done.output
    outputs = [done.output]
    for args in (("runs",), ("show", "1"), ("export",), ("trend", "--branch=main")):
        read = run_bounded(root, "history", *args, f"--history={url}", env=ENV, memory_mb=MEMORY_MB, command=CLI)
        assert read.returncode == 0, read.output
        outputs.append(read.output)
    assert f'"store": "{shown}"' in outputs[3]
    assert [leaked(text) for text in outputs] == [[]] * len(outputs)
    assert files_holding(root, *PARTS, ENCODED) == []
    assert leaked(stored_text(port, name)) == []


def test_a_driver_error_for_a_one_letter_user_reads_as_written_and_holds_no_password(tmp_path, database) -> None:
    """A wrong one-letter password (replaced inside words it would garble every message too), and
    a server that is not there; the good item runs and reports either way."""
    port, name = database
    root = project(tmp_path)
    wrong = f"postgresql://{USER}:p@127.0.0.1:{port}/{name}"
    nowhere = f"postgresql://{USER}:{ENCODED}@127.0.0.1:1/{name}"
    refused = (
        f'OperationalError: connection failed: connection to server at "127.0.0.1", port {port} failed: '
        'FATAL:  password authentication failed for user "***"'
    )
    absent = (
        'OperationalError: connection failed: connection to server at "127.0.0.1", port 1 failed: Connection refused'
    )
    for url, port_shown, why in ((wrong, port, refused), (nowhere, 1, absent)):
        shown = f"postgresql://127.0.0.1:{port_shown}/{name}"
        done = run_bounded(root, f"--ocr-history={url}", "--ocr-report=report.json", env=ENV, memory_mb=MEMORY_MB)
        assert done.returncode == 0, done.output[-3000:]
        assert done.report(root)["results"][0]["outcome"] == "passed"
        assert (
            f"warning: OCR history not recorded in {shown}: {why} (this fails the run only when history is required)"
        ) in done.output.splitlines(), done.output[-3000:]
        assert not leaked(done.output) and ":p@" not in done.output
        bounded(done)
        read = run_bounded(root, "history", "runs", f"--history={url}", env=ENV, memory_mb=MEMORY_MB, command=CLI)
        assert (read.returncode, read.output) == (4, f"pytest-ocr history: {shown}: {why}\n")
        bounded(read)
    assert files_holding(root, *PARTS, ENCODED) == []
