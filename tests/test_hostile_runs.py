"""Runs that would pass without having measured anything, output an engine prints, and
`pytest-ocr serve` given a decompression bomb: each a clear outcome in a real session."""

from __future__ import annotations

import io
import json

import pytest
from conftest import DATA, run_bounded
from engine_helpers.servers import FakeServer
from helpers.serve import serving
from PIL import Image

pytestmark = pytest.mark.slow

CONF_ENGINE = """
from pathlib import Path

def read(image_path):
    print("engine says \\x1b[31mred\\x1b[0m and \\u202eevil")
    return {"text": Path(image_path).stem, "confidence": 0.3}
"""


def dataset_suite(root, allow_empty: bool) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    (root / "conf.py").write_text(CONF_ENGINE, encoding="utf-8")
    (root / "img").mkdir()
    for name in ("a", "b"):
        (root / "img" / f"{name}.jpg").write_bytes((DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes())
    (root / "labels.txt").write_text("img/a.jpg\ta\nimg/b.jpg\tb\nno tab here\n", encoding="utf-8")
    extra = ", allow_empty: true" if allow_empty else ""
    (root / "d.ocr.yaml").write_text(
        'engines: {conf: {type: python, function: "conf:read"}}\ndefaults: {engine: conf}\n'
        f"dataset: {{type: paddle, label_file: labels.txt, conf_threshold: 0.5{extra}}}\n",
        encoding="utf-8",
    )
    (root / "good.ocr.yaml").write_text(
        'engines: {conf: {type: python, function: "conf:read"}}\n'
        "cases:\n  - {id: good, image: img/a.jpg, engine: conf, expected: {text: a}}\n",
        encoding="utf-8",
    )


def test_a_dataset_that_evaluates_nothing_fails_unless_it_allows_it(tmp_path):
    dataset_suite(tmp_path, allow_empty=False)
    result = run_bounded(tmp_path, "--ocr-report", "report.json", memory_mb=800, timeout=90)
    assert result.returncode == 1, result.output
    assert "ocr-gates::d.ocr.yaml on conf: dataset evaluated nothing - " in result.output  # a failed test of its own
    assert (
        "d.ocr.yaml on conf: FAILED: nothing evaluated of 3 entries: 2 filtered, 1 skipped (unusable entries and "
        "items that errored); `allow_empty: true` in its dataset: block accepts this"
    ) in result.output
    report = result.report(tmp_path)
    assert [r["outcome"] for r in report["results"]] == ["filtered", "filtered", "passed"]  # good still ran
    assert [g["passed"] for g in report["gates"]] == [False]

    dataset_suite(tmp_path / "allowed", allow_empty=True)
    allowed = run_bounded(tmp_path / "allowed", "--ocr-report", "report.json", memory_mb=800, timeout=90)
    assert allowed.returncode == 0, allowed.output
    assert allowed.report(tmp_path / "allowed")["gates"] == []


def test_what_an_engine_prints_is_shown_visibly(tmp_path):
    dataset_suite(tmp_path, allow_empty=True)
    (tmp_path / "good.ocr.yaml").write_text(
        'engines: {conf: {type: python, function: "conf:read"}}\n'
        "cases:\n  - {id: good, image: img/a.jpg, engine: conf, expected: {text: zzz}, thresholds: {cer: '< 0.1'}}\n",
        encoding="utf-8",
    )
    result = run_bounded(tmp_path, "--ocr-report", "report.json", memory_mb=800, timeout=90)
    assert result.returncode == 1
    assert "Captured stdout setup" in result.output
    assert "engine says \\x1b[31mred\\x1b[0m and \\u202eevil" in result.output
    assert "\x1b" not in result.output and "\u202e" not in result.output


def test_serve_refuses_a_decompression_bomb_with_a_400(tmp_path):
    bomb = io.BytesIO()
    Image.new("1", (20_000, 20_000)).save(bomb, "PNG")  # 400 megapixels in a few kilobytes
    with serving(tmp_path, "--engine", "tesseract") as worker:
        status, document = worker.request("POST", "/ocr", fields={"image": ("bomb.png", bomb.getvalue())})
        assert status == 400
        assert (
            "the image is 20000 × 20000 = 400,000,000 pixels when decoded (PNG); the limit is 250,000,000"
            in (document["error"]["message"])
        )
        good = (DATA / "pages" / "tess_phototest.tif").read_bytes()
        status, document = worker.request("POST", "/ocr", fields={"image": ("page.tif", good)})
        assert status == 200 and "quick brown" in document["text"]


def test_hostile_http_servers_cost_their_items_within_the_deadline(tmp_path):
    """Servers that trickle their answer, trickle their headers, stream a body without end,
    or ask to retry in an hour: in a real session each costs its item, within the engine's
    2 s deadline (a trickle used to hold an item for ever), and the good engine passes."""
    servers = {
        "ok": FakeServer(),
        "trickle": FakeServer(default="trickle", trickle_s=0.2),
        "trickle-head": FakeServer(default="trickle_head", trickle_s=0.05),
        "flood": FakeServer(default="flood"),
        "later": FakeServer(default="503", retry_after="3600"),
    }
    for server in servers.values():
        server.start()
    try:
        (tmp_path / "scan.jpg").write_bytes((DATA / "lines" / "rapidocr_en_rec.jpg").read_bytes())
        engines = {name: {"type": "http", "url": s.ocr_url, "timeout": 2, "retries": 3} for name, s in servers.items()}
        suite = {
            "engines": engines,
            "defaults": {"engine": list(engines)},
            "cases": [{"id": "scan", "image": "scan.jpg", "expected": {"text": "hello world"}}],
        }
        (tmp_path / "s.ocr.json").write_text(json.dumps(suite), encoding="utf-8")
        result = run_bounded(
            tmp_path, "--ocr-report", "report.json", "--ocr-max-output-mb", "1", memory_mb=800, timeout=90
        )
    finally:
        for server in servers.values():
            server.stop()
    assert result.returncode == 1, result.output[-3000:]
    assert result.seconds < 30, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < 400, f"peak memory {result.max_rss_mb:.0f} MB"
    records = {r["engine"]: r for r in result.report(tmp_path)["results"]}
    assert records["ok"]["outcome"] == "passed", records["ok"]["error"]
    errors = {name: records[name]["error"] for name in servers if name != "ok"}
    assert all(records[name]["outcome"] == "error" for name in errors)
    assert "the 2 s budget (option 'timeout') ran out while reading the response body" in errors["trickle"]
    assert "the 2 s budget (option 'timeout') ran out while waiting for the response" in errors["trickle-head"]
    assert "the response body is over 17 MB, 16 times the largest output" in errors["flood"]
    assert "the server asks to wait 3600 s (Retry-After), more than the" in errors["later"]
    assert len(servers["trickle"].requests) == len(servers["later"].requests) == 1  # the budget was spent
    for name, message in errors.items():
        assert " ".join(message.split()[:6]) in " ".join(result.output.split()), name
