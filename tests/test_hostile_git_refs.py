"""Commits and refs from outside, in real sessions and commands on a real git repository (issue
36, points 1 and 2): a CI variable whose "commit" is ``--output=FILE`` made git write FILE from
``pytest --ocr-history``, ``--ocr-baseline=history:merge-base``, ``history html`` and ``history
comment``, and the run was recorded with it; a store written by another program put a live
mention, an HTML comment or a heading into the pull-request comment through a commit.

Each refusal is one line naming the variable and what was expected; the run's items still run
and report (its history is not recorded, with a warning, as for a store that fails); FILE
(outside the project) is untouched and no FILE is created; a good run beside records and
reads back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import run_bounded
from helpers.history import repository
from helpers.hostile import MEMORY_MB, good_image, stem_case, write_suite
from helpers.markdown import ALLOWED_TAGS, render

from pytest_ocr.errors import shortened

pytestmark = pytest.mark.slow

CLI = ("pytest_ocr.cli",)
ENGINES = '  stem: {type: python, function: "engine:read"}'
# Every variable a run's provenance or a history baseline reads: blank unless a test sets it
# (the machine's own CI variables must not decide what these sessions see).
VARIABLES = (
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_SHA",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "GITHUB_BASE_REF",
    "GITHUB_SERVER_URL",
    "GITHUB_REPOSITORY",
    "GITHUB_RUN_ID",
    "GITHUB_JOB",
    "GITHUB_STEP_SUMMARY",
    "GITLAB_CI",
    "CI_COMMIT_SHA",
    "CI_COMMIT_REF_NAME",
    "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
    "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
    "CI_MERGE_REQUEST_DIFF_BASE_SHA",
    "CI_JOB_NAME",
    "CI_JOB_URL",
    "CI_PIPELINE_URL",
    "PYTEST_OCR_COMMIT",
    "PYTEST_OCR_BRANCH",
    "PYTEST_OCR_RUN_URL",
    "PYTEST_OCR_HISTORY_URL",
)
OPTION = "(it starts with '-', as an option does)"
COMMIT = "expected a commit id (4 to 64 hex digits) or a ref name git accepts"
BRANCH = "expected a branch name git accepts"


def environment(**values: str) -> dict[str, str]:
    return {name: "" for name in VARIABLES} | {"COLUMNS": "200"} | values


def project(tmp_path: Path) -> tuple[Path, str]:
    """A one-item suite committed in a git repository on main; the project and its commit."""
    root = tmp_path / "project"
    root.mkdir()
    write_suite(root, ENGINES, [stem_case(good_image(root, "good.png"))])
    (root / ".gitignore").write_text(".pytest-ocr/\n*.json\nsite/\n.peak-rss-kib\n", encoding="utf-8")
    return root, repository(root)


def victims(tmp_path: Path) -> tuple[Path, Path]:
    """A file outside the project that must stay as it is, and a path that must not be made."""
    kept = tmp_path / "victim.txt"
    kept.write_text("keep\n", encoding="utf-8")
    return kept, tmp_path / "made.txt"


def untouched(kept: Path, made: Path) -> None:
    assert kept.read_text(encoding="utf-8") == "keep\n", "git wrote the victim file"
    assert not made.exists(), "git made a file"


def quoted(value: str) -> str:
    return repr(shortened(value, 60))


def stored(root: Path) -> list[tuple]:
    with sqlite3.connect(root / ".pytest-ocr" / "history.sqlite") as db:
        return db.execute('SELECT id, "commit", branch, run_url FROM runs ORDER BY id').fetchall()


def bounded(result) -> None:
    assert result.seconds < 60, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < 400, f"peak memory {result.max_rss_mb:.0f} MB"


@pytest.mark.parametrize(
    "ci, variable, expected",
    [
        ({}, "PYTEST_OCR_COMMIT", COMMIT),
        ({"GITHUB_ACTIONS": "true"}, "GITHUB_SHA", COMMIT),
        ({"GITLAB_CI": "true"}, "CI_COMMIT_SHA", COMMIT),
        ({"GITHUB_ACTIONS": "true"}, "GITHUB_HEAD_REF", BRANCH),
        ({"GITLAB_CI": "true"}, "CI_COMMIT_REF_NAME", BRANCH),
        ({}, "PYTEST_OCR_BRANCH", BRANCH),
    ],
    ids=lambda v: v if isinstance(v, str) and v.isupper() else "",
)
def test_a_ci_commit_or_branch_that_is_an_option_is_refused_and_the_run_still_reports(
    tmp_path: Path, ci: dict[str, str], variable: str, expected: str
) -> None:
    root, head = project(tmp_path)
    kept, made = victims(tmp_path)
    store = f"sqlite:///{root / '.pytest-ocr' / 'history.sqlite'}"
    for victim in (kept, made):
        value = f"--output={victim}"
        done = run_bounded(
            root, "--ocr-history", "--ocr-report=report.json", env=environment(**ci, **{variable: value}),
            memory_mb=MEMORY_MB, timeout=90,
        )  # fmt: skip
        assert done.returncode == 0, done.output[-3000:]  # the item ran and passed
        assert done.report(root)["results"][0]["outcome"] == "passed"
        assert (
            f"warning: OCR history not recorded in {store}: {variable}: {expected}, not {quoted(value)} {OPTION} "
            "(this fails the run only when history is required)"
        ) in done.output.splitlines()
        assert "OCR history: run" not in done.output
        untouched(kept, made)
        bounded(done)
    assert not (root / ".pytest-ocr" / "history.sqlite").exists() or stored(root) == []
    # --ocr-history-required: the same line fails the run
    required = run_bounded(
        root, "--ocr-history", "--ocr-history-required", env=environment(**ci, **{variable: f"--output={kept}"}),
        memory_mb=MEMORY_MB, timeout=90,
    )  # fmt: skip
    assert required.returncode == 1
    assert f"{variable}: {expected}, not {quoted(f'--output={kept}')} {OPTION}" in required.output
    untouched(kept, made)
    # beside: a good value of the same variable records the run with git's commit
    good = head if expected == COMMIT else "feature/receipts"
    done = run_bounded(root, "--ocr-history", env=environment(**ci, **{variable: good}), memory_mb=MEMORY_MB)
    assert done.returncode == 0 and "OCR history: run 1 of suite project (commit" in done.output, done.output[-2000:]
    assert stored(root)[0][1:3] == (head, good if expected == BRANCH else "main")


def test_a_run_address_that_is_no_http_link_is_refused(tmp_path: Path) -> None:
    root, head = project(tmp_path)
    for variable, ci in (("PYTEST_OCR_RUN_URL", {}), ("CI_JOB_URL", {"GITLAB_CI": "true"})):
        done = run_bounded(
            root, "--ocr-history", env=environment(**ci, **{variable: "javascript:alert(document.domain)"}),
            memory_mb=MEMORY_MB, timeout=90,
        )  # fmt: skip
        assert done.returncode == 0, done.output[-3000:]
        assert (
            f"{variable}: expected an http(s) address of at most 1000 characters without spaces, not "
            "'javascript:alert(document.domain)' (this fails the run only when history is required)"
        ) in done.output
        bounded(done)
    github = {"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "javascript:x//", "GITHUB_REPOSITORY": "a/b"}
    done = run_bounded(root, "--ocr-history", env=environment(**github, GITHUB_RUN_ID="1"), memory_mb=MEMORY_MB)
    assert (
        "GITHUB_SERVER_URL/GITHUB_REPOSITORY/actions/runs/GITHUB_RUN_ID: expected an http(s) address of at most "
        "1000 characters without spaces, not 'javascript:x///a/b/actions/runs/1'"
    ) in done.output
    assert not (root / ".pytest-ocr" / "history.sqlite").exists() or stored(root) == []
    good = "https://ci.example.org/jobs/7"
    done = run_bounded(root, "--ocr-history", env=environment(PYTEST_OCR_RUN_URL=good), memory_mb=MEMORY_MB)
    assert "OCR history: run 1 of suite project" in done.output and stored(root) == [(1, head, "main", good)]


def test_history_baselines_html_and_comment_refuse_a_commit_that_is_an_option(tmp_path: Path) -> None:
    root, head = project(tmp_path)
    kept, made = victims(tmp_path)
    first = run_bounded(root, "--ocr-history", "--ocr-report=head.json", env=environment(), memory_mb=MEMORY_MB)
    assert "OCR history: run 1 of suite project" in first.output, first.output[-2000:]

    def cli(*args: str, **env: str):
        return run_bounded(root, *args, env=environment(**env), memory_mb=MEMORY_MB, timeout=60, command=CLI)

    for victim in (kept, made):
        value = f"--output={victim}"
        # --ocr-baseline=history:merge-base: GitLab's merge-base commit, before any item runs
        done = run_bounded(
            root, "--ocr-history", "--ocr-baseline=history:merge-base",
            env=environment(GITLAB_CI="true", CI_MERGE_REQUEST_DIFF_BASE_SHA=value), memory_mb=MEMORY_MB,
        )  # fmt: skip
        assert done.returncode == 4, done.output[-3000:]
        assert (
            f"ERROR: --ocr-baseline: history:merge-base: CI_MERGE_REQUEST_DIFF_BASE_SHA: {COMMIT}, "
            f"not {quoted(value)} {OPTION}"
        ) in done.output.splitlines()
        untouched(kept, made)
        bounded(done)
        # GitHub's target branch goes to git merge-base
        done = run_bounded(
            root, "--ocr-history", "--ocr-baseline=history:merge-base",
            env=environment(GITHUB_ACTIONS="true", GITHUB_BASE_REF=value), memory_mb=MEMORY_MB,
        )  # fmt: skip
        assert (
            done.returncode == 4
            and (f"ERROR: --ocr-baseline: history:merge-base: GITHUB_BASE_REF: {BRANCH}, not {quoted(value)} {OPTION}")
            in done.output.splitlines()
        ), done.output[-3000:]
        untouched(kept, made)
        # history html reads the current branch from the CI's variables
        site = root / "site"
        done = cli("history", "html", str(site), PYTEST_OCR_COMMIT=value)
        assert (done.returncode, done.output) == (
            2,
            f"pytest-ocr history: PYTEST_OCR_COMMIT: {COMMIT}, not {quoted(value)} {OPTION}\n",
        )
        assert not site.exists()
        untouched(kept, made)
        # history comment: HEAD's commit, the merge-base's, the target branch
        done = cli("history", "comment", GITHUB_ACTIONS="true", GITHUB_SHA=value)
        assert (done.returncode, done.output) == (
            2,
            f"pytest-ocr history: GITHUB_SHA: {COMMIT}, not {quoted(value)} {OPTION}\n",
        )
        done = cli("history", "comment", "--report=head.json", CI_MERGE_REQUEST_DIFF_BASE_SHA=value)
        assert (done.returncode, done.output) == (
            2,
            f"pytest-ocr history: history:merge-base: CI_MERGE_REQUEST_DIFF_BASE_SHA: {COMMIT}, "
            f"not {quoted(value)} {OPTION}\n",
        )
        done = cli("history", "comment", "--report=head.json", f"--against=history:merge-base:{value}")
        assert (done.returncode, done.output) == (
            2,
            f"pytest-ocr history: history:merge-base:BRANCH: {BRANCH}, not {quoted(value)} {OPTION}\n",
        )
        done = cli("history", "comment", "--report=head.json", CI_MERGE_REQUEST_TARGET_BRANCH_NAME=value)
        assert (done.returncode, done.output) == (
            2,
            f"pytest-ocr history: CI_MERGE_REQUEST_TARGET_BRANCH_NAME: {BRANCH}, not {quoted(value)} {OPTION}\n",
        )
        untouched(kept, made)
        bounded(done)
    assert stored(root) == [(1, head, "main", None)]  # nothing recorded with a "commit" that is an option
    # beside: the same commands with good values
    good = cli("history", "comment", "--report=head.json", GITLAB_CI="true", CI_MERGE_REQUEST_DIFF_BASE_SHA=head)
    assert good.returncode == 0 and f"run 1 of suite project, commit {head[:12]}" in good.output, good.output
    site = cli("history", "html", str(root / "site"), PYTEST_OCR_COMMIT=head)
    assert site.returncode == 0 and (root / "site" / "index.html").is_file(), site.output
    baseline = run_bounded(
        root, "--ocr-baseline=history:merge-base", env=environment(CI_MERGE_REQUEST_DIFF_BASE_SHA=head[:10]),
        memory_mb=MEMORY_MB,
    )  # fmt: skip
    assert baseline.returncode == 0, baseline.output[-3000:]


HOSTILE = "@octocat <!-- # H1 [x](javascript:alert(1))"


def test_the_comment_escapes_what_the_store_holds_and_refuses_a_commit_that_is_not_one(tmp_path: Path) -> None:
    """A store another program wrote: hostile suite, engine, job and run address around a good
    run; then a run whose commit is a mention, an HTML comment opening, a heading."""
    root, head = project(tmp_path)
    first = run_bounded(root, "--ocr-history", "--ocr-report=head.json", env=environment(), memory_mb=MEMORY_MB)
    assert "OCR history: run 1 of suite project" in first.output, first.output[-2000:]
    database = root / ".pytest-ocr" / "history.sqlite"
    with sqlite3.connect(database) as db:
        db.execute("UPDATE runs SET suite = ?, job = ?, run_url = 'javascript:alert(1)'", (HOSTILE, HOSTILE))
        db.execute("UPDATE item_keys SET suite = ?", (HOSTILE,))
        db.execute("UPDATE aggregates SET engine = ? WHERE engine = 'stem' AND kind = 'micro'", (HOSTILE,))

    def cli(*args: str):
        return run_bounded(root, *args, env=environment(), memory_mb=MEMORY_MB, timeout=60, command=CLI)

    done = cli("history", "comment", "--report=head.json")
    assert done.returncode == 0, done.output
    comment = done.output
    assert comment.splitlines()[0] == (
        "<!-- pytest-ocr comment: %40octocat%20%3C%21--%20%23%20H1%20%5Bx%5D%28javascript%3Aalert%281%29%29 -->"
    )
    # past its marker, as GitHub renders it: no HTML comment, heading, link or tag the store's text made
    rendered = render(comment.split("\n", 1)[1])
    assert rendered.tags <= ALLOWED_TAGS | {"code"}, rendered.tags  # code: the sparklines
    assert all(len(row) == len(table[0]) for table in rendered.tables for row in table)  # no pipe split a cell
    assert "@octocat" not in comment and "@\u200boctocat" in comment  # no mention
    shown = "@\u200boctocat &lt;\\!-- \\# H1 \\[x\\](javascript:alert(1))"
    assert [line for line in comment.splitlines() if line.startswith("#")] == [
        f"### OCR: {shown}",
        "#### stem",
        f"#### main: the last 1 commits, {head[:12]} .. {head[:12]}",
    ]
    assert f"| {shown} | cer micro | `▄` | 0.0000 |" in comment.splitlines()
    # the dashboard shows the run's address as text, never a link
    site = cli("history", "html", str(root / "site"))
    assert site.returncode == 0, site.output
    pages = "".join(p.read_text(encoding="utf-8") for p in (root / "site").rglob("*.html"))
    assert "javascript:alert(1)</code>" in pages and 'href="javascript' not in pages.replace(" ", "").lower()

    # a run whose "commit" is not one: each read refuses it in one line, the comment is not made
    with sqlite3.connect(database) as db:
        db.execute(
            'INSERT INTO runs (suite, "commit", branch, attempt, started_at, finished_at, duration_s, status, '
            "shards, pytest_ocr, scorers, summary, recorded_at) SELECT suite, 'x', branch, 2, started_at, "
            "finished_at, duration_s, status, shards, pytest_ocr, scorers, summary, recorded_at FROM runs WHERE id = 1"
        )
    for commit in ("@octocat abc", "ab\n<!-- x", "# H1 commit", "--output=x"):
        with sqlite3.connect(database) as db:
            db.execute('UPDATE runs SET "commit" = ? WHERE id = 2', (commit,))
        for args in (("history", "comment", "--report=head.json"), ("history", "runs")):
            done = cli(*args)
            assert (done.returncode, done.output) == (
                4,
                f"pytest-ocr history: sqlite:///{database}: table runs, run 2: column commit: expected a commit id "
                f"(hex digits) or a ref name git accepts, not {commit!r}\n",
            ), commit
            bounded(done)
    # what an older pytest-ocr recorded from PYTEST_OCR_COMMIT as given (a tag): read, and escaped
    with sqlite3.connect(database) as db:
        db.execute('UPDATE runs SET "commit" = ? WHERE id = 2', ("@octocat_v1.2",))
    done = cli("history", "comment", "--report=head.json")
    assert done.returncode == 0, done.output
    assert "@octocat" not in done.output and "@\u200boctocat" in done.output, done.output
    with sqlite3.connect(database) as db:
        db.execute("UPDATE runs SET \"commit\" = NULL, parents = '@octocat' WHERE id = 2")
    done = cli("history", "runs")
    assert done.output == (
        f"pytest-ocr history: sqlite:///{database}: table runs, run 2: column parents: expected commit ids "
        "(hex digits), not '@octocat'\n"
    )


def test_the_stores_writer_refuses_a_commit_that_is_not_hex(tmp_path: Path) -> None:
    """Whatever built the provenance (a plugin's own code, a test), the store records hex commits only."""
    from dataclasses import replace

    from pytest_ocr.history.provenance import Provenance
    from pytest_ocr.history.store import Store, StoreError
    from pytest_ocr.history.url import parse
    from pytest_ocr.run.record import RunInfo, RunRecord

    record = RunRecord(RunInfo("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01+00:00", 1.0, 0), [], {}, {})
    with Store.open(parse(f"sqlite:///{tmp_path / 'h.sqlite'}", tmp_path)) as store:
        good = Provenance("a" * 40, "main", ("b" * 40,))
        for bad in (replace(good, commit="@octocat abc"), replace(good, parents=("a" * 40, "<!-- x"))):
            with pytest.raises(StoreError, match=r"not recorded: its commit '.*' is not a commit id \(hex digits\)"):
                store.record(record, bad, "s")
        assert store.record(record, good, "s").commit == "a" * 40
        assert [r.commit for r in store.runs("s")] == ["a" * 40]
