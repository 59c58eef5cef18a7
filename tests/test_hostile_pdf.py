"""PDF pages that cost more to draw than their size says (issue 27): a page of 3,000,000
rectangles (a memory bomb: 76 KB of PDF), a page tiling a pattern a hundred times a point
(a time bomb: 705 bytes), and a page of 239.6 million pixels, just under the pixel limit.
pdfium used to draw them in pytest's process: the rectangles took it past a gigabyte, or
aborted it with every other item and output lost. Now the rasterising process is bounded
(``--ocr-max-rasterise-mb``, ``--ocr-max-rasterise-s``): each bomb is its item's error
naming the limit and its option, and the good page beside it passes, in real pytest
sessions under ``run_bounded``'s memory limit and timeout, every output written."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pypdfium2
import pytest
from conftest import REPO, run_bounded
from helpers.hostile import html_cases
from helpers.pdf import pdf_file
from PIL import Image

from pytest_ocr.limits import DEFAULT
from pytest_ocr.media import rasteriser
from pytest_ocr.media.pages import Page, rasterise

pytestmark = pytest.mark.slow

MEMORY_MB = 1024
TIMEOUT = 120
SAMPLE = REPO / "tests" / "data" / "olmocr-bench-sample" / "pdfs"

# The engine: the PNG's size from its header (it decodes nothing, so a huge page costs pytest's
# process nothing), after checking that it is a PNG.
SIZE_ENGINE = """
import struct

def read(image_path):
    with open(image_path, "rb") as png:
        head = png.read(24)
    assert head[:8] == b"\\x89PNG\\r\\n\\x1a\\n" and head[12:16] == b"IHDR", head
    return "%dx%d" % struct.unpack(">II", head[16:24])
"""


def pdf(content: bytes, size: float = 612, resources: bytes = b"<< >>", more: tuple[bytes, ...] = ()) -> bytes:
    """A one-page PDF, ``size`` points square, drawing ``content`` (compressed), with ``more``
    objects from number 5 on."""
    stream = zlib.compress(content, 9)
    return pdf_file(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Contents 4 0 R /Resources %s >>"
            % (size, size, resources),
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream),
            *more,
        ]
    )


def rectangles(count: int) -> bytes:
    """A page filling ``count`` small rectangles, each a path pdfium keeps."""
    return pdf(b"0 0 2 2 re f\n" * count)


def tiles(per_point: int) -> bytes:
    """A page filled with a tiling pattern ``per_point`` cells to a point each way: at
    300 dpi, 612 × 612 × 100² cells, each drawn on its own."""
    cell = b"0 0 0.5 0.5 re f"
    pattern = (
        b"<< /PatternType 1 /PaintType 1 /TilingType 1 /BBox [0 0 1 1] /XStep %g /YStep %g /Resources << >> "
        b"/Length %d >>\nstream\n%s\nendstream" % (1 / per_point, 1 / per_point, len(cell), cell)
    )
    return pdf(b"/Pattern cs /P0 scn 0 0 612 612 re f", resources=b"<< /Pattern << /P0 5 0 R >> >>", more=(pattern,))


def huge() -> bytes:
    """A page 3,715 points square: 15,480 × 15,480 = 239,630,400 pixels at 300 dpi, under
    the 250,000,000 of --ocr-max-image-pixels' default."""
    return pdf(b"0 0 0 rg 72 72 144 144 re f", size=3715)


def suite(root: Path, pdfs: dict[str, bytes]) -> None:
    """A case per PDF (id: its name) on the size engine, which must read ``expected``."""
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n", encoding="utf-8")
    (root / "size_engine.py").write_text(SIZE_ENGINE, encoding="utf-8")
    expected = {"good": "2550x2550", "huge": "15480x15480"}
    cases = []
    for name, data in pdfs.items():
        (root / f"{name}.pdf").write_bytes(data)
        cases.append(f"  - {{id: {name}, image: {name}.pdf, expected: {{text: {expected.get(name, 'x')}}}}}\n")
    (root / "pdfs.ocr.yaml").write_text(
        "engines: {size: {type: python, function: 'size_engine:read'}}\ndefaults: {engine: size}\ncases:\n"
        + "".join(cases),
        encoding="utf-8",
    )


GOOD = pdf(b"BT /F1 36 Tf 72 500 Td (Hello) Tj ET")  # 8.5 inches square: 2550 × 2550 at 300 dpi
OUTPUTS = ("--ocr-report", "report.json", "--ocr-html", "report.html", "--ocr-cache-dir", "cache")


def records(root: Path, result) -> dict[str, dict]:
    return {r["case"]: r for r in result.report(root)["results"]}


def leftovers(root: Path) -> list[str]:
    """Lock and temporary files the rasterising left in the pages folder (none)."""
    return sorted(p.name for p in (root / "cache" / "pages").iterdir() if p.name.startswith("."))


def test_a_memory_bomb_is_its_items_error_and_a_page_just_under_the_pixel_limit_renders(tmp_path: Path) -> None:
    """At the defaults: 3,000,000 rectangles took pdfium past 1 GB in pytest's process; the
    worker, capped at 1,024 MB, aborts and its item says why. The 239.6-megapixel page
    (2.6 GB in pytest's process before) is drawn within the same 1,024 MB."""
    suite(tmp_path, {"good": GOOD, "rectangles": rectangles(3_000_000), "huge": huge()})
    result = run_bounded(tmp_path, *OUTPUTS, memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert result.returncode == 1, result.output[-3000:]
    assert result.seconds < 90, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < MEMORY_MB, f"peak memory {result.max_rss_mb:.0f} MB"
    assert "Traceback" not in result.output and "Fatal Python error" not in result.output, result.output[-3000:]
    found = records(tmp_path, result)
    assert found["good"]["outcome"] == "passed", found["good"]
    assert found["huge"]["outcome"] == "passed", found["huge"]  # its PNG is 15480 × 15480 pixels
    bomb = found["rectangles"]
    assert bomb["outcome"] == "error" and "\n" not in bomb["error"], bomb
    assert bomb["error"].startswith(
        "rectangles.pdf page 1 at 300 dpi could not be rasterised within 1,024 MB "
        "(--ocr-max-rasterise-mb): it ran out of memory (pdfium aborted its process, as it does when an "
        "allocation fails) (case rectangles at "
    ), bomb["error"]
    assert "could not be rasterised within 1,024 MB (--ocr-max-rasterise-mb)" in " ".join(result.output.split())
    shown = html_cases(tmp_path)
    assert shown["good"]["thumb"] is not None and shown["huge"]["thumb"] is not None
    assert "could not be rasterised within 1,024 MB" in shown["rectangles"]["thumb_error"]  # not drawn again
    assert leftovers(tmp_path) == []


def test_a_time_bomb_and_a_page_beyond_the_memory_limit_cost_their_items_under_pytest_xdist(tmp_path: Path) -> None:
    """A 705-byte page tiling a pattern 100 times a point draws for many minutes: stopped at
    --ocr-max-rasterise-s. The huge page in a 400 MB rasterising process: its bitmap cannot
    be allocated. Each xdist worker has its own rasterising process, replaced after each."""
    suite(tmp_path, {"tiles": tiles(100), "huge": huge(), "good": GOOD})
    assert len((tmp_path / "tiles.pdf").read_bytes()) < 1000
    limits = ("--ocr-max-rasterise-s", "2", "--ocr-max-rasterise-mb", "400", "-n", "2")
    result = run_bounded(tmp_path, *OUTPUTS, *limits, memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert result.returncode == 1, result.output[-3000:]
    assert result.seconds < 60, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < 600, f"peak memory {result.max_rss_mb:.0f} MB"
    found = records(tmp_path, result)
    assert found["good"]["outcome"] == "passed", found["good"]
    for name, message in (
        ("tiles", "page 1 at 300 dpi could not be rasterised within 2 s (--ocr-max-rasterise-s): it was stopped"),
        ("huge", "page 1 at 300 dpi could not be rasterised within 400 MB (--ocr-max-rasterise-mb): it ran out of "),
    ):
        record = found[name]
        assert record["outcome"] == "error", record
        assert record["error"].startswith(f"{name}.pdf {message}"), record["error"]
    assert html_cases(tmp_path)["good"]["thumb"] is not None
    assert leftovers(tmp_path) == []


def test_a_limit_lowered_by_the_process_itself_is_named_as_such(tmp_path: Path) -> None:
    """Under an address-space limit of its own (ulimit -v, a container) below
    --ocr-max-rasterise-mb, the rasterising process has the lower one, and says so."""
    suite(tmp_path, {"rectangles": rectangles(3_000_000), "good": GOOD})
    result = run_bounded(tmp_path, *OUTPUTS, memory_mb=700, timeout=TIMEOUT)
    assert result.returncode == 1, result.output[-3000:]
    found = records(tmp_path, result)
    assert found["good"]["outcome"] == "passed", found["good"]
    assert (
        "could not be rasterised within 700 MB (--ocr-max-rasterise-mb is 1,024, but this process's own "
        "address-space limit is lower): it ran out of memory"
    ) in found["rectangles"]["error"]


def test_a_drawing_ends_on_its_own_when_the_process_that_asked_for_it_is_killed(tmp_path: Path) -> None:
    """pytest killed (the OOM killer, a CI timeout) while its rasterising process draws a
    page that would draw for many minutes: that process does not draw on, orphaned; it
    holds itself to --ocr-max-rasterise-s and a few seconds."""
    (tmp_path / "tiles.pdf").write_bytes(tiles(100))
    asker = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from pathlib import Path; from pytest_ocr import limits; "
            "from pytest_ocr.media.pages import Page, rasterise; "
            "limits.use(limits.Limits(max_rasterise_s=1)); rasterise(Page(Path('tiles.pdf'), 1, 300), Path('pages'))",
        ],
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 30
        while not (children := Path(f"/proc/{asker.pid}/task/{asker.pid}/children").read_text().split()):
            assert time.monotonic() < deadline, "the rasterising process did not start"
            time.sleep(0.05)
        [drawer] = children
        time.sleep(0.5)
    finally:
        asker.kill()
        asker.wait()
    limit = 1 + rasteriser.ALARM_SLACK_S + 10  # its bound, and the start it may still be in
    deadline = time.monotonic() + limit
    while Path(f"/proc/{drawer}/stat").exists() and Path(f"/proc/{drawer}/stat").read_text().split()[2] != "Z":
        assert time.monotonic() < deadline, f"the orphaned rasterising process still draws after {limit} s"
        time.sleep(0.1)


def test_the_png_written_holds_pdfiums_pixels(tmp_path: Path) -> None:
    """The worker filters and compresses the rows itself: decoded, its PNG is pixel for pixel
    what pdfium draws (for a page of text and one of a scanned photograph)."""
    for name, number, dpi in (("earnings.pdf", 1, 150), ("lincoln_letter.pdf", 1, 72), ("mattsnotes.pdf", 3, 100)):
        pdf_path = Path(shutil.copy(SAMPLE / name, tmp_path / name))
        raster = rasterise(Page(pdf_path, number, dpi), tmp_path / "pages")
        document = pypdfium2.PdfDocument(pdf_path)
        try:
            drawn = document[number - 1].render(scale=dpi / 72 * (1 - 1e-9), draw_annots=True).to_pil()
        finally:
            document.close()
        with Image.open(raster.path) as png:
            assert (png.format, png.mode, png.size) == ("PNG", "RGB", drawn.size), name
            assert png.tobytes() == drawn.convert("RGB").tobytes(), name
        assert raster.seconds is not None and raster.seconds < DEFAULT.max_rasterise_s
    rasteriser.close()


def test_the_png_writer_streams_a_raster_of_any_height() -> None:
    """Rows in bands: a raster whose height is not a multiple of the band, with a stride
    wider than its rows (pdfium pads them), decodes to the same pixels."""
    width, height, stride = 5, rasteriser.BAND_ROWS * 2 + 3, 16
    pixels = bytes((x * 37 + y * 11 + c * 101) % 256 for y in range(height) for x in range(width) for c in range(3))
    buffer = b"".join(
        pixels[y * width * 3 : (y + 1) * width * 3] + b"\xee" * (stride - width * 3) for y in range(height)
    )
    out = io.BytesIO()
    rasteriser.write_png(buffer, width, height, stride, out)
    with Image.open(io.BytesIO(out.getvalue())) as png:
        assert (png.mode, png.size) == ("RGB", (width, height))
        assert png.tobytes() == pixels
