"""``pytest-ocr history comment`` (issue 29 point 6) over real runs: real pytest sessions recorded
over the commits of a real git repository with a feature branch off main and a merge-base, on
SQLite and on a real PostgreSQL server. The comment is the comparison ``pytest-ocr compare
BASE.json HEAD.json --markdown`` shows for the same two runs, with main's recorded history as
sparklines and the regressed items linked to their cases in the HTML report; rendered as GitHub
renders it (cmark-gfm), hostile keys stay text, and many regressed items stay under GitHub's limit."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from helpers.history import Done, clean_environment, git, repository, session, text_suite
from helpers.markdown import ALLOWED_TAGS, Rendered

from pytest_ocr.history.baseline import target_branch
from pytest_ocr.report.comment import MAX_CHARS, Comment, comment_markdown, marker
from pytest_ocr.report.numbers import number
from pytest_ocr.run.record import RunRecord
from pytest_ocr.run.rules import compare, parse_rules

RULES = ("--fail-on", "cer:+0.01")
URL = "https://ci.example.org/runs/7/report.html"
WORSE = "example_suite/receipts.ocr.yaml::sroie-359[tesseract]"


def cli(root: Path, *args: str, env: dict[str, str] | None = None) -> Done:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", *args],
        cwd=root, env=clean_environment({"COLUMNS": "200", **(env or {})}), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    return Done(done.returncode, done.stdout, done.stderr)


def _edit(root: Path, engine: str, image: str, cut: float) -> None:
    """The engine's recorded output of one receipt cut to its first ``cut`` share."""
    path = root / "recognitions" / f"{engine}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["image"].endswith(image):
            row["text"] = row.setdefault("full", row["text"])[: int(len(row["full"]) * cut)]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def _commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def _report(root: Path, name: str) -> dict[str, Any]:
    return json.loads((root / name).read_text(encoding="utf-8"))


@pytest.fixture
def history(tmp_path: Path, history_url: str) -> dict[str, Any]:
    """main: c0, c1 (Tesseract's output of one receipt cut to half), then c2 after the branch
    (that output whole again), each recorded; feature, off c1: Tesseract's output cut to a
    third, recorded, with its JSON and HTML reports."""
    root = text_suite(tmp_path / "project", ("receipts.ocr.yaml",))
    made = {"root": root, "url": history_url, "main": []}

    def record(name: str, *args: str) -> None:
        done = session(root, f"--ocr-history={history_url}", f"--ocr-report={name}", *args)
        assert "OCR history: run" in done.output, done.output[-2000:]

    (root / ".gitignore").write_text("*.json\n*.html\n", encoding="utf-8")  # the reports stay out of the commits
    made["main"].append(repository(root))
    record("c0.json")
    _edit(root, "tesseract", "sroie_359.jpg", 0.5)
    made["main"].append(_commit(root, "c1"))
    record("base.json")
    git(root, "checkout", "-q", "-b", "feature")
    _edit(root, "tesseract", "sroie_359.jpg", 0.3)
    made["head"] = _commit(root, "f1")
    record("head.json", "--ocr-html=report.html")
    git(root, "checkout", "-q", "main")
    _edit(root, "tesseract", "sroie_359.jpg", 1.0)
    made["main"].append(_commit(root, "c2"))
    record("c2.json")
    git(root, "checkout", "-q", "feature")
    return made


def _unlinked(text: str) -> str:
    return re.sub(r"\[((?:\\.|[^\]\\])*)\]\(<[^>]*>\)", r"\1", text)


@pytest.mark.slow  # pytest sessions
def test_the_comment_is_the_comparison_with_mains_history_and_links(history: dict[str, Any]) -> None:
    root, url = history["root"], history["url"]
    base_json, head_json = _report(root, "base.json"), _report(root, "head.json")
    shown = cli(root, "compare", "base.json", "head.json", *RULES, "--markdown")
    assert shown.returncode == 1, shown.output  # the receipt cut to a third breaks cer:+0.01
    done = cli(root, "history", "comment", "--report", "head.json", *RULES, "--html-url", URL, f"--history={url}")
    assert done.returncode == 1 and not done.stderr, done.output
    comment = done.stdout
    assert comment.splitlines()[0] == marker("project") == "<!-- pytest-ocr comment: project -->"
    # the merge-base is c1: its recorded run, the one base.json is the report of
    assert f"against history:merge-base (run 2 of suite project, commit {history['main'][1][:12]})." in comment
    # the comparison as compare --markdown shows it, line for line (its verdict, engines' deltas with
    # intervals, regressed items, items), the regressed items' keys linked
    body = shown.stdout.splitlines()[2:]
    lines = _unlinked(comment).splitlines()
    start = lines.index(body[0])
    assert lines[start : start + len(body)] == body
    assert "**FAILED**: 1 rule violation" in comment
    # how HEAD's run was gated, as its job summary says it (its report's thresholds)
    assert "- **Thresholds** on 10 of 10 items.\n\n**Failed**: 1 item over its thresholds." in comment
    delta = next(line for line in body if line.startswith("| cer macro"))
    old, new = base_json["summary"]["tesseract"]["metrics"]["cer"]["macro"], head_json["summary"]["tesseract"]
    assert delta.split(" | ")[1:3] == [number(old), number(new["metrics"]["cer"]["macro"])]
    # links: the regressed item's case in the HTML report, as its page reads the address
    rendered = Links(comment)
    [link] = [href for text, href in rendered.links if text == WORSE]
    assert link.startswith(URL + "#")
    [case] = parse_qs(urlsplit(link).fragment)["case"]
    head_id = next(r["id"] for r in head_json["results"] if r["key"] == WORSE)
    assert case == head_id and json.dumps(head_id) in (root / "report.html").read_text(encoding="utf-8")
    # main's history: c0, c1 (worse), c2 (whole again); RapidOCR did not move
    main = [_report(root, n)["summary"] for n in ("c0.json", "base.json", "c2.json")]
    tesseract = [s["tesseract"]["metrics"]["cer"]["macro"] for s in main]
    assert tesseract[0] == tesseract[2] < tesseract[1]
    rows = {tuple(row[:2]): row[2:] for table in rendered.tables for row in table}
    assert rows["tesseract", "cer macro"] == ["▁█▁", number(tesseract[2])]
    rapidocr = main[2]["rapidocr"]["metrics"]["cer"]["micro"]
    assert rows["rapidocr", "cer micro"] == ["▄▄▄", number(rapidocr)]
    assert f"main: the last 3 commits, {history['main'][0][:12]} .. {history['main'][2][:12]}" in comment
    assert rendered.tags <= {*ALLOWED_TAGS, "a", "code", "<!-- comment -->"}

    # HEAD from the store: the latest recorded run of the commit checked out; the same numbers
    recorded = cli(root, "history", "comment", *RULES, f"--history={url}")
    assert recorded.returncode == 1, recorded.output
    assert f"HEAD (the recorded run of commit {history['head'][:12]})" in recorded.stdout
    assert "gated" not in recorded.stdout  # the store keeps no thresholds: not said from it
    tables = [line for line in body if line.startswith("| cer") or line.startswith("| wer")]
    assert tables and all(line in recorded.stdout.splitlines() for line in tables)
    # without rules: the changes are shown, exit 0; against main's latest run (c2's)
    latest = cli(root, "history", "comment", "--against", "history:main", f"--history={url}")
    assert latest.returncode == 0, latest.output
    assert f"against history:main (run 4 of suite project, commit {history['main'][2][:12]})." in latest.stdout
    # in CI: GitHub's pull request into main; GitLab's merge request names its diff base (here c0)
    github = {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": "pull_request", "GITHUB_BASE_REF": "main"}
    gitlab = {"GITLAB_CI": "true", "CI_MERGE_REQUEST_DIFF_BASE_SHA": history["main"][0]}
    for env, run in ((github, 2), (gitlab, 1)):
        env |= {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"} if "GITLAB_CI" in env else {}
        done = cli(root, "history", "comment", "--report", "head.json", f"--history={url}", env=env)
        assert done.returncode == 0, done.output
        commit = history["main"][run - 1][:12]
        assert f"against history:merge-base (run {run} of suite project, commit {commit})." in done.stdout
        assert "#### main: the last 3 commits" in done.stdout


@pytest.mark.slow  # pytest sessions
def test_bad_input_and_a_missing_run_exit_2_and_4(history: dict[str, Any]) -> None:
    root, url = history["root"], history["url"]
    for args, status, says in [
        (("--html-url", "javascript:alert(1)"), 2, "--html-url: expected an http(s) address"),
        (("--html-url", URL + "<b>"), 2, "--html-url: expected an http(s) address"),
        (("--html-url", URL + "#view=cases"), 2, "--html-url: expected an http(s) address without spaces, a #"),
        (("--against", "base.json"), 2, "--against: expected history:merge-base"),
        (("--suite", "nowhere"), 2, "--suite: no runs of nowhere"),
        (("--against", "history:release"), 4, "no complete run of suite 'project' on branch release"),
    ]:
        done = cli(root, "history", "comment", *args, f"--history={url}")
        assert done.returncode == status and not done.stdout, done.output
        [line] = done.stderr.splitlines()
        assert line.startswith("pytest-ocr history") and says in line, line
    git(root, "checkout", "-q", "-b", "unrecorded")
    (root / "unrecorded.txt").write_text("a commit no run recorded", encoding="utf-8")
    _commit(root, "u1")
    done = cli(root, "history", "comment", f"--history={url}")
    assert done.returncode == 4 and "HEAD: no complete run of suite 'project' at commit" in done.stderr, done.output


class Links(Rendered):
    """Rendered Markdown with its links: (text, href)."""

    def __init__(self, markdown: str) -> None:
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []
        self.comments: list[str] = []
        # UNSAFE passes raw HTML through (GitHub then sanitises it): any tag that comes out was not escaped
        super().__init__(cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE))

    def handle_comment(self, data):  # type: ignore[no-untyped-def]
        super().handle_comment(data)
        self.comments.append(data)

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        super().handle_starttag(tag, attrs)
        if tag == "a":
            self._href, self._text = dict(attrs).get("href") or "", []

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        super().handle_endtag(tag)
        if tag == "a" and self._href is not None:
            self.links.append(("".join(self._text), self._href))
            self._href = None

    def handle_data(self, data):  # type: ignore[no-untyped-def]
        super().handle_data(data)
        if self._href is not None:
            self._text.append(data)


HOSTILE = "<img src=x onerror=alert(1)> | *b* [x](javascript:alert(1)) `c` @team <!-- --> \u202e\x1b[31m"


def _hostile(document: dict[str, Any], n: int) -> RunRecord:
    """The run with its results made ``n`` items each whose key, id and engine are hostile text."""
    template = next(r for r in document["results"] if r["key"] == WORSE)
    results = []
    for i in range(n):
        key = f"{HOSTILE} {i} " + "#" * 150
        results.append({**template, "key": key, "id": key})
    return RunRecord.from_document({**document, "results": results})


def test_hostile_keys_stay_text_and_many_regressed_items_stay_under_githubs_limit(tmp_path: Path) -> None:
    """Two reports of the receipts suite (Tesseract's output of one receipt cut in HEAD), their
    regressed item repeated under hostile keys: rendered, nothing in it is markup or a link but
    the case links; of 500, 20 are listed, and asked for all, as many as stay under GitHub's
    65,536 characters, saying how many were left out."""
    root = text_suite(tmp_path / "project", ("receipts.ocr.yaml",))
    assert session(root, "--ocr-report=base.json").returncode == 0
    _edit(root, "tesseract", "sroie_359.jpg", 0.3)
    assert session(root, "--ocr-report=head.json").returncode == 1
    base, head = _report(root, "base.json"), _report(root, "head.json")
    for n, limit in ((3, 20), (500, 20), (500, 500)):
        base_record, head_record = _hostile(base, n), _hostile(head, n)
        comparison = compare(base_record, head_record, parse_rules(["cer:+0.01"]), 0.5, "base.json")
        assert len(comparison.regressed_cases()) == n
        ids = {r.key: r.id for r in head_record.results}
        text = comment_markdown(Comment(f"suite {HOSTILE}", comparison, "head.json", [], "main", [], URL, ids), limit)
        assert len(text) <= MAX_CHARS
        first = text.splitlines()[0]  # the marker: one line, ended only where it ends
        assert first.startswith("<!-- pytest-ocr comment: suite%20%3Cimg") and first.find("-->") == len(first) - 3
        rendered = Links(text)
        assert rendered.tags <= {*ALLOWED_TAGS, "a", "<!-- comment -->"}, rendered.tags
        assert rendered.comments == [first[4:-3]]  # the marker, and no other
        for table in rendered.tables:
            assert all(len(row) == len(table[0]) for row in table), table  # no pipe split a cell
        assert all(href.startswith(URL + "#case=") for _, href in rendered.links)
        shown = [t for t, _ in rendered.links]
        assert shown and all(
            t.startswith("<img src=x onerror=alert(1)> | *b* [x](javascript:alert(1)) `c` @\u200bteam") for t in shown
        )
        assert "\\u202e\\x1b[31m" in "".join(rendered.text)
        assert "*No recorded run on main to draw its history from.*" in text  # the last section, not cut
        if limit < n:
            assert f"… and {n - limit} more" in text
        elif n > 100:  # 500 a list pass GitHub's limit: fewer each, and what was left out said
            more = [int(m) for m in re.findall(r"… and (\d+) more", text)]
            assert len(shown) < n and len(shown) + more[-1] == n
        else:
            assert "more" not in text and len(shown) == n


@pytest.mark.parametrize(
    ("against", "environ", "branch"),
    [
        ("history:merge-base", {}, "main"),
        ("history:merge-base", {"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "release"}, "release"),
        ("history:merge-base", {"GITHUB_BASE_REF": "release"}, "main"),  # not in GitHub Actions
        ("history:merge-base", {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop"}, "develop"),
        ("history:merge-base:stable", {"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop"}, "stable"),
        ("history:nightly", {"GITHUB_ACTIONS": "true", "GITHUB_BASE_REF": "release"}, "nightly"),
    ],
)
def test_the_sparklines_draw_the_branch_the_change_goes_into(against: str, environ: dict, branch: str) -> None:
    assert target_branch(against, environ) == branch
