"""The history store's parts in this process: where a URL points and how it is shown, where a
run came from (real git repositories made here, real CI variables), and the reads later
commands build on (runs by branch, the latest complete run, a commit's run, one item over
runs, repeats' spread), on SQLite and on a real PostgreSQL server."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

import pytest
from helpers.history import git, repository, session, text_suite
from helpers.postgres import PASSWORD, USER

from pytest_ocr import redaction
from pytest_ocr.history import provenance
from pytest_ocr.history.provenance import Provenance
from pytest_ocr.history.store import Store, output_hash
from pytest_ocr.history.url import DEFAULT_PATH, HistoryUrlError, asked, parse
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.stored import load_report

# -- URLs -----------------------------------------------------------------------------------


def test_a_url_points_where_it_says_and_is_shown_without_credentials(tmp_path: Path) -> None:
    default = parse(None, tmp_path)
    assert default.backend == "sqlite" and default.shown == f"sqlite:///{tmp_path / DEFAULT_PATH}"
    assert parse("sqlite:///data/h.sqlite", tmp_path).shown == f"sqlite:///{tmp_path}/data/h.sqlite"
    assert parse("sqlite:////abs/h.sqlite", tmp_path).shown == "sqlite:////abs/h.sqlite"
    server = parse(f"postgresql://{USER}:{PASSWORD}@db.example:5433/history", tmp_path)
    assert server.backend == "postgresql" and server.url.startswith(f"postgresql+psycopg://{USER}:{PASSWORD}@")
    assert server.shown == "postgresql://db.example:5433/history"
    assert PASSWORD not in repr(server) and USER not in repr(server)
    assert redaction.redact(f"echoed {PASSWORD}") == "echoed ***"  # registered: an error that echoes it
    assert server.conceal(f'password authentication failed for user "{USER}"') == (
        'password authentication failed for user "***"'
    )


def test_the_option_comes_before_the_environment_and_the_ini_key() -> None:
    env = {"PYTEST_OCR_HISTORY_URL": "sqlite:///env.sqlite"}
    assert asked("sqlite:///option.sqlite", env, "sqlite:///ini.sqlite") == "sqlite:///option.sqlite"
    assert asked(None, env, "sqlite:///ini.sqlite") == "sqlite:///env.sqlite"
    assert asked(None, {}, "sqlite:///ini.sqlite") == "sqlite:///ini.sqlite"
    assert asked(None, {"PYTEST_OCR_HISTORY_URL": " "}, "") is None


@pytest.mark.parametrize(
    "url, says",
    [
        (f"mysql://{USER}:{PASSWORD}@db/h", "mysql://db/h: a history store is sqlite:///PATH or postgresql://"),
        (f"postgresql+asyncpg://{USER}:{PASSWORD}@db/h", "connects with psycopg 3, not +asyncpg"),
        (f"postgresql://{USER}:{PASSWORD}@db", "postgresql://db/: postgresql://USER@HOST/DATABASE needs a database"),
        (f"{USER}:{PASSWORD}@db/h", "not a database URL: (a URL with no scheme://)"),
        ("sqlite:///:memory:", "a store in memory keeps nothing"),
    ],
)
def test_a_url_that_cannot_be_a_store_says_why_without_its_credentials(url: str, says: str, tmp_path: Path) -> None:
    with pytest.raises(HistoryUrlError) as raised:
        parse(url, tmp_path)
    assert says in str(raised.value)
    assert PASSWORD not in str(raised.value) and USER not in str(raised.value)


# -- provenance -----------------------------------------------------------------------------


def test_provenance_from_a_real_repository_with_a_branch_and_a_merge(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    base = repository(root)
    git(root, "checkout", "-q", "-b", "feature")
    (root / "b.txt").write_text("b\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")
    feature = git(root, "rev-parse", "HEAD")
    found = provenance.of(root, {})
    assert (found.commit, found.branch, found.parents) == (feature, "feature", (base,))
    assert found.commit_time == git(root, "show", "-s", "--format=%cI", "HEAD") and found.notes == ()
    git(root, "checkout", "-q", "main")
    (root / "c.txt").write_text("c\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main moves on")
    main = git(root, "rev-parse", "HEAD")
    git(root, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    merged = provenance.of(root, {})
    assert merged.branch == "main" and merged.parents == (main, feature)
    git(root, "checkout", "-q", "--detach", feature)  # a CI checkout: a detached HEAD
    detached = provenance.of(root, {})
    assert (detached.commit, detached.branch) == (feature, None)


def test_ci_variables_override_git(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    first = repository(root)
    (root / "a.txt").write_text("b\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "second")
    second = git(root, "rev-parse", "HEAD")
    github = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_SHA": first,  # a commit git has: its parents and time from git
        "GITHUB_REF_NAME": "main",
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": "acme/ocr",
        "GITHUB_RUN_ID": "77",
        "GITHUB_JOB": "ocr-tests",
    }
    found = provenance.of(root, github)
    assert found == Provenance(
        first,
        "main",
        (),
        git(root, "show", "-s", "--format=%cI", first),
        "github",
        "ocr-tests",
        "https://github.example/acme/ocr/actions/runs/77",
    )
    gitlab = {
        "GITLAB_CI": "true",
        "CI_COMMIT_SHA": "f" * 40,  # a commit git does not have: no parents, no time
        "CI_COMMIT_REF_NAME": "refs-name",
        "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "fix-receipts",
        "CI_JOB_NAME": "ocr",
        "CI_JOB_URL": "https://gitlab.example/acme/ocr/-/jobs/9",
        "CI_PIPELINE_URL": "https://gitlab.example/acme/ocr/-/pipelines/3",
    }
    assert provenance.of(root, gitlab) == Provenance(
        "f" * 40, "fix-receipts", (), None, "gitlab", "ocr", "https://gitlab.example/acme/ocr/-/jobs/9"
    )
    plain = {"PYTEST_OCR_COMMIT": "abc123", "PYTEST_OCR_BRANCH": "nightly", "PYTEST_OCR_RUN_URL": "https://ci/1"}
    assert provenance.of(root, {**gitlab, **plain}) == Provenance(
        "abc123", "nightly", (), None, "gitlab", "ocr", "https://ci/1"
    )
    assert provenance.of(root, {}).commit == second
    nowhere = provenance.of(tmp_path / "not-a-repo", {})
    assert nowhere.commit is None and "no commit" in nowhere.notes[0]


# -- reads ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunRecord, RunRecord]:
    """The text cases' records, read once and recognised twice (--ocr-repeat 2)."""
    root = text_suite(tmp_path_factory.mktemp("reports") / "project")
    for args in (("--ocr-report=once.json",), ("--ocr-report=twice.json", "--ocr-repeat=2")):
        done = session(root, *args)
        assert done.returncode == 0, done.output
    return (
        RunRecord.from_document(load_report(root / "once.json")),
        RunRecord.from_document(load_report(root / "twice.json")),
    )


@pytest.mark.slow  # its records come from pytest sessions
def test_the_reads_later_commands_make(history_url: str, tmp_path: Path, reports: tuple[RunRecord, RunRecord]) -> None:
    once, twice = reports
    with Store.open(parse(history_url, tmp_path)) as store:
        a = store.record(once, Provenance("a" * 40, "main"), "s")
        b = store.record(twice, Provenance("b" * 40, "main", ("a" * 40,)), "s")
        stopped = replace(once, run=replace(once.run, status="interrupted"))
        c = store.record(stopped, Provenance("c" * 40, "main"), "s")
        d = store.record(once, Provenance("d" * 40, "feature"), "s")
        other = store.record(once, Provenance("a" * 40, "main"), "other suite")
        assert [r.id for r in store.runs("s")] == [d.id, c.id, b.id, a.id]
        assert [r.id for r in store.runs("s", "main", limit=2)] == [c.id, b.id]
        assert store.latest_complete("s", "main").id == b.id  # the interrupted one is not complete
        assert store.latest_complete("s", "release") is None
        assert store.run_of("s", "a" * 40).id == a.id and store.run_of("s", "c" * 40) is None
        assert store.run_of("other suite", "a" * 40).id == other.id and other.attempt == 1
        assert store.runs("s")[2].parents == ("a" * 40,)
        key = once.results[0].key
        points = store.item_values("s", key)
        assert [p.run.id for p in points] == [d.id, c.id, b.id, a.id]
        assert points[-1].item.values == {m: v for m, v in once.results[0].metrics.items()}
        assert points[-1].item.output_hash == output_hash(once.results[0].prediction).hex()
        assert (
            output_hash(once.results[0].prediction)
            == hashlib.blake2b(once.results[0].prediction.encode(), digest_size=8).digest()
        )
        repeated = {i.key: i for i in store.items(b.id)}
        for r in twice.results:
            spread = r.repeats["spread"]
            assert repeated[r.key].spread == {m: spread[m]["max"] - spread[m]["min"] for m in r.metrics}
        assert all(i.spread is None for i in store.items(a.id))
        aggregates = store.aggregates([a.id, b.id])
        assert {x.run_id for x in aggregates} == {a.id, b.id}
        assert {x.scope for x in aggregates} >= {"", "tag:receipts", "tag:lines"}
        assert {e.engine for e in store.engines([a.id])} == set(once.engines)
