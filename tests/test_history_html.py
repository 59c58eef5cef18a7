"""``pytest-ocr history html``: the static site of real runs recorded over the commits of a
real git repository (the example suite's receipts, read back from recorded outputs), on
SQLite and on a real PostgreSQL server, checked against those runs' JSON reports; and the
site in real headless Chromium: no console message, the charts' data, the marks drawn, a
click to a run's page, a drag to zoom, and a screenshot of a chart that is drawn."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from helpers.chromium import Browser
from helpers.history import clean_environment, git, project_store, repository, session, text_suite
from helpers.postgres import PASSWORD, USER
from PIL import Image, ImageStat

from pytest_ocr.browser.chromium import RendererError

# A suite name is any printable text: this one would run a script if it were not escaped.
SUITE = '</script><img src=x onerror="document.title=1">&amp;'
WORSE_ITEM = "example_suite/receipts.ocr.yaml::sroie-359[tesseract]"
DATA = re.compile(r'<script type="application/json" id="ocr-history-data">(.*?)</script>', re.S)


def _commit(root: Path, message: str) -> str:
    (root / "notes.txt").write_text(message + "\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD")


def _worsen(path: Path, image: str) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["image"].endswith(image):
            row["text"] = row["text"][: len(row["text"]) // 3]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = text_suite(tmp_path_factory.mktemp("history-html") / "repo", ("receipts.ocr.yaml",))
    repository(root)
    return root


def _record(root: Path, url: str) -> list[dict[str, Any]]:
    """Five commits of main, each run once: the second ran Tesseract only (RapidOCR carried);
    at the third Tesseract's output of one receipt got worse (a new predictions file: a new
    fingerprint) and stayed. Each commit and its run's JSON report."""
    made: list[dict[str, Any]] = []

    def run(*args: str) -> None:
        commit = git(root, "rev-parse", "HEAD")
        name = f"r{len(made) + 1}.json"
        done = session(root, f"--ocr-report={name}", f"--ocr-history={url}", f"--ocr-history-suite={SUITE}", *args)
        assert "OCR history: run" in done.output, done.output[-2000:]
        made.append({"commit": commit, "report": json.loads((root / name).read_text(encoding="utf-8"))})

    run()
    _commit(root, "two")
    run("-k", "tesseract")
    _worsen(root / "recognitions" / "tesseract.jsonl", "sroie_359.jpg")
    _commit(root, "three")
    run()
    _commit(root, "four")
    run()
    _commit(root, "five")
    run()
    return made


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def site(request: pytest.FixtureRequest, repo: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The runs recorded in a store of the backend (a fresh copy of the repository each), and
    the site ``pytest-ocr history html`` wrote of them."""
    root = tmp_path_factory.mktemp(request.param) / "repo"
    shutil.copytree(repo, root)
    url = project_store(request)
    runs = _record(root, url)
    done = _html(root, url, "site")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.startswith("pytest-ocr history html: ") and "written to site" in done.stdout
    assert PASSWORD not in done.stdout and USER not in done.stdout
    return {"root": root, "url": url, "runs": runs, "dir": root / "site"}


def _html(root: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_ocr.cli", "history", "html", *args, "--branch=main", f"--history={url}"],
        cwd=root, env=clean_environment(), capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def _data(page: Path) -> dict[str, Any]:
    found = DATA.search(page.read_text(encoding="utf-8"))
    assert found is not None
    return json.loads(found.group(1))


def _macro(report: dict[str, Any], engine: str, metric: str) -> float | None:
    summary = report["summary"].get(engine)
    return summary["metrics"][metric]["macro"] if summary else None


def _chart_page(site_dir: Path, engine: str) -> Path:
    index = (site_dir / "index.html").read_text(encoding="utf-8")
    pages = dict(
        (unescape(name), href) for href, name in re.findall(r'<a class="panel" href="([^"]+)">([^<]*)</a>', index)
    )
    return site_dir / pages[engine]


def test_the_site_holds_each_commits_values_its_steps_and_changes(site: dict[str, Any]) -> None:
    site_dir, runs = site["dir"], site["runs"]
    commits = [r["commit"] for r in runs]
    for engine in ("tesseract", "rapidocr"):
        data = _data(_chart_page(site_dir, engine))
        assert data["commits"] == commits
        cer = next(c for c in data["charts"] if c["metric"] == "cer")
        macro = next(s for s in cer["series"] if s["kind"] == "macro")
        expected = [_macro(r["report"], engine, "cer") for r in runs]
        if engine == "rapidocr":  # did not run at the second commit: the first value carried there
            assert macro["values"][1] is None and macro["carried"][1] == expected[0]
            expected[1] = None
            assert cer["steps"] == [] and cer["changes"] == []
        else:
            micro = [r["report"]["summary"][engine]["metrics"]["cer"]["micro"] for r in runs]
            assert cer["steps"] == [
                {"position": 2, "kind": "macro", "before": expected[1], "after": expected[2]},
                {"position": 2, "kind": "micro", "before": micro[1], "after": micro[2]},
            ]
            assert [c["position"] for c in cer["changes"]] == [2] and cer["changes"][0]["what"] == ["fingerprint"]
            assert expected[2] > expected[1]
        assert macro["values"] == expected
        for i, href in enumerate(data["runs"]):  # each commit's run page, as the click opens it
            if engine == "tesseract" or i != 1:
                page = (site_dir / href).read_text(encoding="utf-8")
                assert commits[i] in page
    tesseract = _chart_page(site_dir, "tesseract").read_text(encoding="utf-8")
    assert f"<code>{WORSE_ITEM}</code>" in tesseract  # the item that moved
    assert len(list((site_dir / "runs").glob("*.html"))) == 5
    for page in site_dir.rglob("*.html"):  # the hostile suite name only ever escaped
        text = page.read_text(encoding="utf-8")
        assert "<img" not in text and "</script><img" not in text, page
    assert "Suite &lt;/script&gt;&lt;img src=x onerror=&quot;document.title=1&quot;&gt;&amp;amp;" in tesseract


def test_the_site_is_replaced_whole_and_never_over_other_files(site: dict[str, Any], tmp_path: Path) -> None:
    root, url = site["root"], site["url"]
    for last in ("--last=5", "--last=2"):
        again = _html(root, url, "again", last)
        assert again.returncode == 0, again.stderr
    assert len(list((root / "again" / "runs").glob("*.html"))) == 2  # the earlier site's pages gone
    assert [p.name for p in root.iterdir() if p.name.startswith(".again")] == []
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine\n", encoding="utf-8")
    refused = _html(root, url, str(other))
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "not a pytest-ocr history site" in refused.stderr
    assert [p.name for p in other.iterdir()] == ["notes.txt"]


@pytest.mark.parametrize("site", ["sqlite"], indirect=True)  # the same pages on both backends: read once
def test_the_dashboard_in_chromium(site: dict[str, Any]) -> None:
    site_dir, runs = site["dir"], site["runs"]
    page = _chart_page(site_dir, "tesseract")
    browser = Browser()
    try:
        # the index, then its link to the engine's charts, clicked
        browser.call("Page.navigate", {"url": (site_dir / "index.html").as_uri()})
        browser.wait("document.readyState === 'complete' && document.querySelectorAll('a.panel').length === 2")
        assert browser.js("document.querySelectorAll('img').length") == 0
        links = browser.js("Array.from(document.querySelectorAll('a.panel'), a => a.textContent)")
        browser.js(f"document.querySelectorAll('a.panel')[{links.index('tesseract')}].id = 'tesseract-link'")
        browser.click("#tesseract-link")
        _arrived(browser, page.as_uri(), "document.body.hasAttribute('data-ocr-rendered')")
        assert browser.js("document.title").startswith("pytest-ocr history: </script>")  # not set by the name's script
        assert browser.js("document.querySelectorAll('img').length") == 0
        metrics = browser.js(
            "JSON.parse(document.getElementById('ocr-history-data').textContent).charts.map(c => c.metric)"
        )
        n = metrics.index("cer")
        # uPlot's own data: x, then per kind its measured and its carried values
        data = browser.js(f"ocrCharts[{n}].data")
        labels = browser.js(f"ocrCharts[{n}].series.map(s => s.label)")
        assert data[0] == [0, 1, 2, 3, 4]
        assert data[labels.index("macro")] == [_macro(r["report"], "tesseract", "cer") for r in runs]
        micro = [r["report"]["summary"]["tesseract"]["metrics"]["cer"]["micro"] for r in runs]
        assert data[labels.index("micro")] == micro
        # the step and the fingerprint change drawn at the third commit, inside the plot
        drawn = browser.js(f"ocrCharts[{n}].ocrMarks")
        assert sorted((m["kind"], m["position"]) for m in drawn) == [("change", 2), ("step", 2), ("step", 2)]
        left, right = browser.js(
            f"(u => [u.bbox.left, u.bbox.left + u.bbox.width].map(v => v / devicePixelRatio))(ocrCharts[{n}])"
        )
        assert all(left < m["x"] < right for m in drawn)
        # hovering a commit shows it and its value in the legend
        legend = _hover(browser, n, 2)
        cer = runs[2]["report"]["summary"]["tesseract"]["metrics"]["cer"]
        shown = browser.js(f"[{cer['macro']}, ...{cer['ci95']}].map(v => v.toPrecision(4))")
        assert runs[2]["commit"][:12] in legend and f"{shown[0]} [{shown[1]}, {shown[2]}]" in legend, legend
        # a screenshot of the chart: drawn, not blank; the step's red line in it
        shot = _screenshot(browser, f"#chart-{n}")
        assert max(ImageStat.Stat(shot).var) > 500
        assert len(shot.getcolors(maxcolors=1 << 20)) > 50
        assert _reddish(shot) > 100
        # a drag across the chart zooms in; a double click zooms out
        before = browser.js(f"[ocrCharts[{n}].scales.x.min, ocrCharts[{n}].scales.x.max]")
        _drag(browser, n, 1, 3)
        after = browser.js(f"[ocrCharts[{n}].scales.x.min, ocrCharts[{n}].scales.x.max]")
        assert after[1] - after[0] < before[1] - before[0]
        # a click on a commit opens its run's page
        browser.js(f"ocrCharts[{n}].setScale('x', {{min: {before[0]}, max: {before[1]}}})")
        _click_at(browser, n, 3)
        run_page = site_dir / _data(page)["runs"][3]
        _arrived(browser, run_page.as_uri(), "document.querySelector('h1') !== null")
        assert browser.js("document.querySelector('h1').textContent") == f"Run {run_page.stem}"
        assert runs[3]["commit"] in browser.js("document.body.textContent")
        errors = [
            e for e in browser.events if e["method"] != "Log.entryAdded" or e["params"]["entry"]["level"] != "verbose"
        ]
        assert errors == [], errors
    finally:
        browser.close()


def _arrived(browser: Browser, url: str, ready: str) -> None:
    """Wait until the page at ``url`` is loaded and ``ready``; while the browser navigates, an
    evaluation may be refused (the page it was sent to is gone): asked again."""
    while True:
        try:
            if browser.js(f"location.href === {json.dumps(url)} && document.readyState === 'complete' && {ready}"):
                return
        except RendererError:
            pass
        assert time.monotonic() < browser.deadline, f"never arrived at {url}"
        time.sleep(0.05)


def _point(browser: Browser, n: int, position: int) -> tuple[float, float]:
    return tuple(  # type: ignore[return-value]
        browser.js(
            f"(() => {{ const u = ocrCharts[{n}]; u.over.scrollIntoView({{block: 'center'}});"
            " const s = u.over.getBoundingClientRect();"
            f" return [s.left + u.valToPos({position}, 'x'), s.top + s.height / 2]; }})()"
        )
    )


def _mouse(browser: Browser, kind: str, x: float, y: float, buttons: int = 0) -> None:
    params = {
        "type": kind,
        "x": x,
        "y": y,
        "button": "left" if kind != "mouseMoved" or buttons else "none",
        "buttons": buttons,
        "clickCount": 1,
    }
    browser.call("Input.dispatchMouseEvent", params)


def _hover(browser: Browser, n: int, position: int) -> str:
    x, y = _point(browser, n, position)
    _mouse(browser, "mouseMoved", x, y)
    browser.wait(f"ocrCharts[{n}].cursor.idx === {position}")
    return browser.js(f"ocrCharts[{n}].root.querySelector('.u-legend').textContent")


def _drag(browser: Browser, n: int, start: int, end: int) -> None:
    (x0, y), (x1, _) = _point(browser, n, start), _point(browser, n, end)
    _mouse(browser, "mouseMoved", x0, y)
    _mouse(browser, "mousePressed", x0, y, 1)
    for k in range(1, 6):
        _mouse(browser, "mouseMoved", x0 + (x1 - x0) * k / 5, y, 1)
    _mouse(browser, "mouseReleased", x1, y)


def _click_at(browser: Browser, n: int, position: int) -> None:
    x, y = _point(browser, n, position)
    _mouse(browser, "mouseMoved", x, y)
    _mouse(browser, "mousePressed", x, y, 1)
    _mouse(browser, "mouseReleased", x, y)


def _screenshot(browser: Browser, selector: str) -> Image.Image:
    box = browser.js(
        f"(() => {{ const e = document.querySelector({json.dumps(selector)}); e.scrollIntoView({{block: 'center'}});"
        " const r = e.getBoundingClientRect();"
        " return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; })()"
    )
    shot = browser.call(
        "Page.captureScreenshot", {"format": "png", "clip": {**box, "scale": 1}, "captureBeyondViewport": True}
    )
    return Image.open(io.BytesIO(base64.b64decode(shot["data"]))).convert("RGB")


def _reddish(image: Image.Image) -> int:
    """Pixels of the step's red (#d62728)."""
    return sum(n for n, (r, g, b) in image.getcolors(maxcolors=1 << 20) if r > 180 and g < 80 and b < 80)


def test_a_commit_and_run_url_from_the_environment_stay_text(tmp_path: Path) -> None:
    """PYTEST_OCR_COMMIT and PYTEST_OCR_RUN_URL are whatever a CI sets: a commit that is not one
    and an address that is not http(s) are refused (the run is not recorded); what another
    program wrote to the store (a job, a run's address) is shown as text, in the pages and in
    the charts, never markup or a script's link."""
    root = text_suite(tmp_path / "repo", ("receipts.ocr.yaml",))
    hostile = '<b id="bold">c</b>"\'&\u202e'
    env = {"PYTEST_OCR_COMMIT": hostile, "PYTEST_OCR_BRANCH": "main", "PYTEST_OCR_RUN_URL": "javascript:alert(1)"}
    refused = session(root, "--ocr-history=sqlite:///h.sqlite", "-k", "tesseract", env=env)
    assert "OCR history not recorded in" in refused.output and "PYTEST_OCR_COMMIT: expected a commit id" in (
        refused.output
    ), refused.output[-2000:]
    commit = "c0ffee" * 6 + "c0ff"
    done = session(root, "--ocr-history=sqlite:///h.sqlite", "-k", "tesseract", env={**env, "PYTEST_OCR_COMMIT": commit,
                   "PYTEST_OCR_RUN_URL": "https://ci.example.org/1"})  # fmt: skip
    assert "OCR history: run" in done.output, done.output[-2000:]
    with sqlite3.connect(root / "h.sqlite") as db:  # another program's writing
        db.execute("UPDATE runs SET job = ?, run_url = 'javascript:alert(1)'", (hostile,))
    made = _html(root, "sqlite:///h.sqlite", "site")
    assert made.returncode == 0, made.stderr
    site_dir = root / "site"
    for page in site_dir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert '<b id="bold">' not in text and "javascript:" not in text.replace("<code>javascript:alert(1)</code>", "")
    run_page = (site_dir / "runs" / "1.html").read_text(encoding="utf-8")
    assert "<code>javascript:alert(1)</code>" in run_page and 'href="javascript' not in run_page
    assert "&lt;b id=&quot;bold&quot;&gt;c&lt;/b&gt;" in run_page  # the job, as text
    browser = Browser()
    try:
        browser.open(_chart_page(site_dir, "tesseract").as_uri())
        assert browser.js("document.querySelectorAll('b').length") == 0
        assert browser.js("ocrCharts[0].data[0]") == [0]
        legend = _hover(browser, 0, 0)
        assert commit[:12] in legend  # the commit, cut to 12 characters
        shown = browser.js("JSON.parse(document.getElementById('ocr-history-data').textContent).commits")
        assert shown == [commit]
        assert [e for e in browser.events if e["method"] != "Log.entryAdded"] == []
    finally:
        browser.close()
