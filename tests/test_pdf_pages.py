"""PDF pages as case images (media/pages.py): a case names a PDF, a page and a dpi; the
page is rasterised once (per PDF, page and dpi: across engines, runs and pytest-xdist
workers) into the output cache's pages/ folder, and every engine reads that PNG. Real
PDFs (olmOCR-Bench's sample), real Tesseract, real pdfium; hostile PDFs written by hand."""

from __future__ import annotations

import base64
import io
import json
import math
import re
import shutil
from fractions import Fraction
from pathlib import Path

import jsonschema
import pypdfium2
import pytest
from conftest import REPO, requires_tesseract, run_bounded
from helpers.pdf import pdf_file
from PIL import Image

from pytest_ocr.cases.schema import schema
from pytest_ocr.media.pages import DEFAULT_DPI
from pytest_ocr.run.stored import report_schema

pytest_plugins = ["pytester"]

pytestmark = pytest.mark.slow

SAMPLE = REPO / "tests" / "data" / "olmocr-bench-sample" / "pdfs"
OPTIONS = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def minimal_pdf(media_box: str = "0 0 612 792", text: str = "Hello", trailer: bytes = b"", more: tuple = ()) -> bytes:
    """A one-page PDF written by hand: catalog, page tree, page, its content, a font, and
    ``more`` objects; the cross-reference table's offsets computed."""
    content = f"BT /F1 36 Tf 72 650 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [{media_box}] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>".encode(),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        *more,
    ]
    return pdf_file(objects, trailer)


def encrypted_pdf() -> bytes:
    """A PDF under the standard security handler whose user password is not empty: pdfium
    cannot open it without one (its O and U entries match no empty password)."""
    encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <" + b"ab" * 32 + b"> /U <" + b"cd" * 32 + b"> /P -4 >>"
    identifier = b"<00112233445566778899aabbccddeeff>"
    return minimal_pdf(trailer=b"/Encrypt 6 0 R /ID [%s %s] " % (identifier, identifier), more=(encrypt,))


def copy_pdf(root: Path, name: str) -> Path:
    return Path(shutil.copy(SAMPLE / name, root / name))


def page_size(pdf: Path, number: int) -> tuple[float, float]:
    document = pypdfium2.PdfDocument(pdf)
    try:
        return document[number - 1].get_size()
    finally:
        document.close()


def raster_size(pdf: Path, number: int, dpi: int) -> tuple[int, int]:
    """The size the page's raster must have: its size in points × dpi / 72, rounded up
    (computed exactly: a float's value is a fraction)."""
    width, height = page_size(pdf, number)
    return math.ceil(Fraction(width) * dpi / 72), math.ceil(Fraction(height) * dpi / 72)


def results(root: Path, name: str = "report.json") -> dict[str, dict]:
    document = json.loads((root / name).read_text(encoding="utf-8"))
    jsonschema.validate(document, report_schema())
    return {r["key"]: r for r in document["results"]}


def pngs(cache: Path) -> list[Path]:
    return sorted((cache / "pages").glob("*.png"))


def leftovers(cache: Path) -> list[str]:
    """Lock and temporary files the rasterising left in the pages folder (none)."""
    return sorted(p.name for p in (cache / "pages").iterdir() if p.name.startswith("."))


# -- a PDF case read by a real engine ---------------------------------------------------------


@requires_tesseract
def test_tesseract_reads_the_page_of_a_pdf_rasterised_at_its_dpi(pytester: pytest.Pytester) -> None:
    pdf = copy_pdf(pytester.path, "earnings.pdf")
    document = pypdfium2.PdfDocument(pdf)
    text_layer = document[0].get_textpage().get_text_bounded()  # what the page says, for a reference
    document.close()
    pytester.makefile(
        ".ocr.yaml",
        earnings="engines: {tesseract: {type: tesseract}}\n"
        "defaults: {engine: tesseract}\n"
        "cases:\n"
        f"  - {{id: default-dpi, image: earnings.pdf, expected: {{text: {json.dumps(text_layer)}}}, "
        "thresholds: {cer: '< 0.05'}}\n"
        "  - {id: low-dpi, image: earnings.pdf, page: 1, dpi: 100, expected: {text: x}}\n",
    )
    result = pytester.runpytest(*OPTIONS, "--ocr-cache-dir", "cache", "--ocr-report", "report.json")
    result.assert_outcomes(passed=2)
    found = results(pytester.path)
    record = found["earnings.ocr.yaml::default-dpi[tesseract]"]
    assert (record["image"], record["page"], record["dpi"]) == ("earnings.pdf", 1, DEFAULT_DPI)
    assert record["metrics"]["cer"] < 0.05
    for words in ("NVIDIA Corporation and Subsidiaries", "Notes to the Consolidated Financial Statements"):
        assert words in record["prediction"]
    assert found["earnings.ocr.yaml::low-dpi[tesseract]"]["dpi"] == 100
    # one PNG per dpi, each page size × dpi / 72 pixels large
    sizes = sorted(Image.open(png).size for png in pngs(pytester.path / "cache"))
    assert sizes == sorted([raster_size(pdf, 1, DEFAULT_DPI), raster_size(pdf, 1, 100)])
    assert raster_size(pdf, 1, DEFAULT_DPI) == (2550, 3300)  # a Letter page: 8.5 × 11 inches at 300 dpi
    assert leftovers(pytester.path / "cache") == []


@requires_tesseract
def test_each_page_is_an_image_of_its_own_and_a_page_the_pdf_lacks_is_that_items_error(
    pytester: pytest.Pytester,
) -> None:
    copy_pdf(pytester.path, "mattsnotes.pdf")
    pytester.makefile(
        ".ocr.yaml",
        notes="defaults: {engine: tesseract, dpi: 100}\n"
        "cases:\n"
        "  - {id: p1, image: mattsnotes.pdf, expected: {text: x}}\n"
        "  - {id: p2, image: mattsnotes.pdf, page: 2, expected: {text: x}}\n"
        "  - id: p4\n"
        "    image: mattsnotes.pdf\n"
        "    page: 4\n"
        "    expected: {text: x}\n",
    )
    result = pytester.runpytest(*OPTIONS, "--ocr-cache-dir", "cache", "--ocr-report", "report.json")
    result.assert_outcomes(passed=2, errors=1)
    found = results(pytester.path)
    p1, p2, p4 = (found[f"notes.ocr.yaml::{case}[tesseract]"] for case in ("p1", "p2", "p4"))
    assert (p1["page"], p2["page"], p4["page"]) == (1, 2, 4)
    assert p1["prediction"] != p2["prediction"]
    first, second = pngs(pytester.path / "cache")
    assert Image.open(first).tobytes() != Image.open(second).tobytes()
    # one line naming the document, the page, what it has and where the case is
    assert p4["outcome"] == "error" and "\n" not in p4["error"]
    assert p4["error"] == (
        "PDF mattsnotes.pdf has no page 4: it has 3 pages (page: expects 1 to 3) (case p4 at notes.ocr.yaml:5)"
    )
    result.stdout.fnmatch_lines(
        [
            "*ERROR at setup of p4[[]tesseract[]]*",
            "PDF mattsnotes.pdf has no page 4: it has 3 pages (page: expects 1 to 3) (case p4 at notes.ocr.yaml:5)",
        ]
    )


def test_page_and_dpi_are_checked_where_they_are_written(pytester: pytest.Pytester) -> None:
    shutil.copy(REPO / "example_suite" / "data" / "pages" / "tess_phototest.tif", pytester.path / "scan.tif")
    copy_pdf(pytester.path, "earnings.pdf")
    pytester.makefile(
        ".ocr.yaml",
        bad="cases:\n"
        "  - {id: a, image: scan.tif, page: 2, expected: {text: x}}\n"
        "  - {id: b, image: earnings.pdf, page: 0, expected: {text: x}}\n"
        "  - id: c\n"
        "    image: earnings.pdf\n"
        "    dpi: 5000\n"
        "    expected: {text: x}\n"
        "  - {id: d, image: scan.tif, dpi: 200, expected: {text: x}}\n",
    )
    result = pytester.runpytest(*OPTIONS, "--ocr-report", "report.json")
    result.assert_outcomes(errors=1)
    [invalid] = results(pytester.path).values()
    path = "bad.ocr.yaml"
    assert invalid["error"].splitlines()[1:] == [
        f"  {path}:2: cases[0].page: page: applies to a PDF only; expected image: to name a .pdf file, got 'scan.tif'",
        f"  {path}:3: cases[1].page: expected the page of a PDF image the engines read, from 1 (default 1); got 0",
        f"  {path}:6: cases[2].dpi: expected the resolution a PDF image's page is rasterised at, in dots per inch, "
        "from 36 to 1200 (default 300); got 5000",
        f"  {path}:8: cases[3].dpi: dpi: applies to a PDF only; expected image: to name a .pdf file, got 'scan.tif'",
    ]
    assert f"(default {DEFAULT_DPI})" in schema()["$defs"]["dpi"]["description"]  # the schema says what the code does


# -- rasterised once ----------------------------------------------------------------------------

TWO_ENGINES = """\
engines:
  tess: {type: tesseract}
  tess-block: {type: tesseract, psm: 6}
defaults: {engine: [tess, tess-block], dpi: 100}
cases:
  - {id: first, image: mattsnotes.pdf, expected: {text: x}}
  - {id: third, image: mattsnotes.pdf, page: 3, expected: {text: x}}
"""


def rendered(found: dict[str, dict]) -> dict[int, int]:
    """Per page, how many items rendered it (the others found it rasterised)."""
    counts: dict[int, int] = {}
    for record in found.values():
        counts[record["page"]] = counts.get(record["page"], 0) + (record["rasterise_s"] is not None)
    return counts


@requires_tesseract
def test_a_page_is_rasterised_once_for_every_engine_and_run(pytester: pytest.Pytester) -> None:
    copy_pdf(pytester.path, "mattsnotes.pdf")
    pytester.makefile(".ocr.yaml", notes=TWO_ENGINES)
    args = (*OPTIONS, "--ocr-cache-dir", "cache", "--ocr-report", "report.json")
    pytester.runpytest(*args).assert_outcomes(passed=4)
    found = results(pytester.path)
    assert rendered(found) == {1: 1, 3: 1}
    cache = pytester.path / "cache"
    made = {png: (png.stat().st_ino, png.stat().st_mtime_ns) for png in pngs(cache)}
    assert len(made) == 2 and leftovers(cache) == []

    pytester.runpytest(*args).assert_outcomes(passed=4)
    again = results(pytester.path)
    assert rendered(again) == {1: 0, 3: 0}
    assert all(r["cached"] for r in again.values())  # the same PNG, so the same output cache entry
    assert {png: (png.stat().st_ino, png.stat().st_mtime_ns) for png in pngs(cache)} == made


@requires_tesseract
def test_pytest_xdist_workers_rasterise_a_page_once(pytester: pytest.Pytester) -> None:
    """Two cases of one page on two engines: pytest-xdist gives each worker a case's two
    items, so both workers start by wanting the page at once; one renders it."""
    copy_pdf(pytester.path, "mattsnotes.pdf")
    pytester.makefile(".ocr.yaml", notes=TWO_ENGINES.replace("id: first,", "id: third-again, page: 3,"))
    result = pytester.runpytest_subprocess(*OPTIONS, "-n", "2", "--ocr-cache-dir", "cache", "--ocr-report", "r.json")
    result.assert_outcomes(passed=4)
    found = results(pytester.path, "r.json")
    assert rendered(found) == {3: 1}
    assert len(pngs(pytester.path / "cache")) == 1 and leftovers(pytester.path / "cache") == []


def test_without_an_output_cache_pages_live_for_the_run_only(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No cache directory (pytest's cache is off): the controller makes a temporary folder,
    its workers share it, and it is gone when the run ends. The stored predictions find the
    page by its PDF and page, not by the rasterised PNG's name."""
    copy_pdf(pytester.path, "mattsnotes.pdf")
    (pytester.path / "predictions.csv").write_text(
        "image,text\nmattsnotes.pdf#page=1,first page\nmattsnotes_pg2,second page\n", encoding="utf-8"
    )
    pytester.makefile(
        ".ocr.yaml",
        notes="engines:\n"
        "  stored: {type: predictions, path: predictions.csv}\n"
        "  also-stored: {type: predictions, path: predictions.csv}\n"
        "defaults: {engine: [stored, also-stored], dpi: 72}\n"
        "cases:\n"
        "  - {id: p1, image: mattsnotes.pdf, expected: {text: first page}}\n"
        "  - {id: p2, image: mattsnotes.pdf, page: 2, expected: {text: second page}}\n"
        "  - {id: p3, image: mattsnotes.pdf, page: 3, expected: {text: third page}}\n",
    )
    temporary = pytester.path / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    result = pytester.runpytest_subprocess(*OPTIONS, "-n", "2", "--ocr-report", "report.json")
    result.assert_outcomes(passed=4, errors=2)
    found = results(pytester.path)
    assert rendered(found) == {1: 1, 2: 1, 3: 1}
    assert {r["case"]: r["metrics"].get("cer") for r in found.values() if r["outcome"] == "passed"} == {
        "p1": 0.0,
        "p2": 0.0,
    }
    error = found["notes.ocr.yaml::p3[stored]"]["error"]
    assert error.startswith("no prediction for mattsnotes.pdf page 3 in ")
    assert "'mattsnotes.pdf#page=3'" in error and "'mattsnotes_pg3'" in error and ".png" not in error
    assert list(temporary.iterdir()) == []  # the run's pages folder removed


# -- hostile PDFs ---------------------------------------------------------------------------------


HOSTILE = ("truncated", "not-a-pdf", "huge", "encrypted", "fine")


def test_hostile_pdfs_cost_their_items_only_in_bounded_time_and_memory(pytester: pytest.Pytester) -> None:
    root = pytester.path
    (root / "truncated.pdf").write_bytes((SAMPLE / "earnings.pdf").read_bytes()[:60_000])
    shutil.copy(REPO / "example_suite" / "data" / "pages" / "tess_phototest.tif", root / "not-a-pdf.pdf")
    (root / "huge.pdf").write_bytes(minimal_pdf(media_box="0 0 14400 14400"))  # 200 × 200 inches
    (root / "encrypted.pdf").write_bytes(encrypted_pdf())
    (root / "fine.pdf").write_bytes(minimal_pdf(text="Hello"))
    (root / "predictions.csv").write_text("image,text\nfine.pdf,Hello\n", encoding="utf-8")
    (root / "hostile.ocr.yaml").write_text(
        "engines: {stored: {type: predictions, path: predictions.csv}}\n"
        "defaults: {engine: stored}\n"
        "cases:\n" + "".join(f"  - {{id: {name}, image: {name}.pdf, expected: {{text: Hello}}}}\n" for name in HOSTILE),
        encoding="utf-8",
    )
    bounded = run_bounded(root, "--ocr-cache-dir", "cache", "--ocr-report", "report.json", memory_mb=1024, timeout=60)
    assert bounded.returncode == 1, bounded.output
    assert bounded.seconds < 30 and bounded.max_rss_mb < 400, (bounded.seconds, bounded.max_rss_mb)
    found = {r["case"]: r for r in bounded.report(root)["results"]}
    assert found["fine"]["outcome"] == "passed" and found["fine"]["page"] == 1
    where = {name: f"(case {name} at hostile.ocr.yaml:{line})" for line, name in enumerate(HOSTILE, 4)}
    expected = {
        "truncated": "PDF truncated.pdf cannot be opened: it is not a PDF or is damaged (pdfium cannot parse it)",
        "not-a-pdf": "image is corrupt or not a PDF file: not-a-pdf.pdf (starts with b'II*\\x00",
        "huge": "huge.pdf page 1 is 200 × 200 inches: 60,000 × 60,000 = 3,600,000,000 pixels "
        "at 300 dpi; the limit is 250,000,000 pixels (--ocr-max-image-pixels)",
        "encrypted": "PDF encrypted.pdf cannot be opened: it is encrypted and needs a password",
    }
    for name, start in expected.items():
        record = found[name]
        assert record["outcome"] == "error" and "\n" not in record["error"], record
        assert record["error"].startswith(start) and record["error"].endswith(where[name]), record["error"]
    assert len(pngs(root / "cache")) == 1 and leftovers(root / "cache") == []  # the fine one's page


# -- the HTML report ------------------------------------------------------------------------------


def test_the_html_report_shows_the_page_a_pdf_case_read(pytester: pytest.Pytester) -> None:
    pdf = copy_pdf(pytester.path, "mattsnotes.pdf")
    (pytester.path / "predictions.csv").write_text(
        "image,text\nmattsnotes.pdf#page=1,one\nmattsnotes.pdf#page=2,two\n", encoding="utf-8"
    )
    pytester.makefile(
        ".ocr.yaml",
        notes="engines: {stored: {type: predictions, path: predictions.csv}}\n"
        "defaults: {engine: stored, dpi: 72}\n"
        "cases:\n"
        "  - {id: p1, image: mattsnotes.pdf, expected: {text: one}}\n"
        "  - {id: p2, image: mattsnotes.pdf, page: 2, expected: {text: two}}\n"
        "  - {id: p9, image: mattsnotes.pdf, page: 9, expected: {text: nine}}\n",
    )
    result = pytester.runpytest(*OPTIONS, "--ocr-cache-dir", "cache", "--ocr-html", "report.html")
    result.assert_outcomes(passed=2, errors=1)
    page = (pytester.path / "report.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'<script type="application/json" id="ocr-data">(.*?)</script>', page, re.S)[1])
    cases = {c["case"]: c for c in data["cases"]}
    thumbs = dict(re.findall(r'<script type="text/plain" id="ocr-thumb-(\d+)">data:image/jpeg;base64,([^<]*)<', page))
    shown = {}
    for name in ("p1", "p2"):
        case = cases[name]
        assert (case["image"], case["page"], case["dpi"], case["thumb_error"]) == (
            "mattsnotes.pdf",
            int(name[1]),
            72,
            None,
        )
        shown[name] = Image.open(io.BytesIO(base64.b64decode(thumbs[str(case["thumb"])]))).convert("L")
        assert shown[name].size == raster_size(pdf, int(name[1]), 72)  # within the thumbnail's box at 72 dpi
    assert cases["p1"]["thumb"] != cases["p2"]["thumb"]
    assert shown["p1"].tobytes() != shown["p2"].tobytes()
    assert cases["p9"]["thumb"] is None and "has no page 9" in cases["p9"]["thumb_error"]
