"""PDF pages as case images: a case names a PDF (``image: report.pdf``, ``page: 3``,
``dpi: 300``), and every engine reads that page rasterised to a PNG.

A page is rendered by pdfium (pypdfium2) once, and kept by content: its file is named by
the sha256 of the PDF's bytes, the page, the dpi, pdfium's version and how pages are
rendered here (``FORMAT``), in the run's pages directory (``<output cache>/pages/``, see
plugin/executor.py). Engines get that PNG's path, so the output cache, which keys an
output by the image's bytes and the engine's fingerprint, works for pages as for images;
a PDF moved or renamed is the same PDF. A page is rendered under a lock on its file
(``files.locked``) and written atomically (``files.write_atomic``): pytest-xdist workers
and engines wanting the same page render it once, and a reader never sees half a PNG.

A hostile PDF costs its item, never the run: the file is checked as any image is
(``images.check_image``: a regular file within ``max_image_mb``, starting with ``%PDF``);
a document pdfium cannot load, one that needs a password, a page it does not have, and a
page whose raster would be beyond ``max_image_pixels`` (its size in points × dpi / 72,
computed before anything is rendered: a MediaBox of 200 × 200 inches at 300 dpi is 3.6
billion pixels) are the item's error, in one line naming the file and the page. pdfium is
not thread-safe: every call into it holds one lock (engines started ahead of their items
and the HTML report's thumbnails run in threads).

An engine that looks outputs up by the image's name rather than reading its pixels (the
``predictions`` engine) asks ``source`` which PDF page a rendered PNG shows.
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import limits
from ..files import locked, write_atomic
from .images import ImageError, check_image, open_image, use_pixel_limit

if TYPE_CHECKING:
    from PIL.Image import Image

# 300 dpi: Tesseract's documentation asks for at least 300 dpi ("accuracy drops off below
# 10pt x 300dpi, rapidly below 8pt x 300dpi"). Measured on the olmOCR-Bench sample
# (tests/data/olmocr-bench-sample: 17 pages with a text layer, Tesseract 5.3, CER against
# each page's text layer), 200 dpi read ordinary body text as well as 300 but lost small
# print: a dense table (discoverworld_crazy_table4) 0.30 at 200 dpi, 0.24 at 300; a 2.5 ×
# 4.2-inch page (small_page_size) 0.29, 0.15. 300 dpi costs 2.25 times the pixels of 200
# and Tesseract about 30% more time, paid once per page (pages and outputs are cached).
# Vision-language engines scale images down themselves (olmOCR to a longest side of
# 1288 px, 117 dpi on a Letter page), so more pixels than they use cost them upload time
# only. A case or a suite's defaults set ``dpi:`` to change it.
DEFAULT_DPI = 300
DEFAULT_PAGE = 1
POINTS_PER_INCH = 72  # a PDF's unit (pdfium does not apply a page's UserUnit, nor does this)
FORMAT = "pytest-ocr-page/1"  # how a page is rendered here (RGB, annotations drawn, PNG): in every key

# pdfium's error codes for a document it cannot open (FPDF_ERR_*)
_LOAD_ERRORS = {
    1: "pdfium cannot read it (unknown error)",
    2: "the file cannot be read",
    3: "it is not a PDF or is damaged (pdfium cannot parse it)",
    4: "it is encrypted and needs a password",
    5: "it is encrypted with a security handler pdfium does not support",
    6: "a page is damaged",
}
_PDFIUM = threading.Lock()  # pdfium is not thread-safe


class PageError(ImageError):
    """A PDF page that cannot be rasterised: the message names the file and the page."""


@dataclass(frozen=True)
class Page:
    """A page of a PDF, as a case names it."""

    pdf: Path
    number: int  # 1-based
    dpi: int

    def __str__(self) -> str:
        return f"{self.pdf} page {self.number}"


def is_pdf(path: Path | str) -> bool:
    return os.fspath(path).lower().endswith(".pdf")


def _scale(dpi: float) -> float:
    """Pixels per point at ``dpi``, less a billionth: pdfium's renderer (pypdfium2's
    ``PdfPage.render``) sizes its bitmap by rounding up, and 792 × (300 / 72) is
    3300.0000000000005 in floating point, so an 11-inch page would be 3301 pixels tall."""
    return dpi / POINTS_PER_INCH * (1 - 1e-9)


def pixel_size(width: float, height: float, dpi: float) -> tuple[int, int]:
    """The raster of a page ``width`` × ``height`` points large at ``dpi``: its size in
    inches × dpi, rounded up (8.5 × 11 inches at 300 dpi: 2550 × 3300), as rendered."""
    scale = _scale(dpi)
    return math.ceil(width * scale), math.ceil(height * scale)


def pdfium_version() -> str:
    import pypdfium2

    return str(pypdfium2.PDFIUM_INFO)


# The sha256 of a PDF this process read, by what would change if the file did (a document
# of many pages is hashed once, not once a page); and which page a PNG shows (``source``).
_DIGESTS: dict[tuple, str] = {}
_SOURCES: dict[str, Page] = {}
_KEPT = 4096


def _remember(table: dict, key: Any, value: Any) -> None:
    if len(table) >= _KEPT:
        table.clear()
    table[key] = value


def source(image: Path | str) -> Page | None:
    """The PDF page ``image`` shows, if it is a page this process rasterised (for the
    case rasterising it last: identical PDFs give one PNG)."""
    return _SOURCES.get(os.fspath(image))


@dataclass(frozen=True)
class Raster:
    path: Path  # the PNG
    seconds: float | None  # what rendering and writing it took here; None: it was there already


def rasterise(page: Page, directory: Path) -> Raster:
    """The PNG of ``page`` in ``directory``, rendered unless it is there already (rendered
    by another item, process or run). Raises PageError (ImageError) for a PDF or page that
    cannot be rendered within the limits, OSError when the PNG cannot be written."""
    check_image(page.pdf)  # a regular file within max_image_mb, starting with %PDF
    try:
        info = os.stat(page.pdf)
    except OSError as exc:
        raise PageError(f"cannot read PDF {page.pdf}: {exc.strerror or exc}") from None
    file = (os.fspath(page.pdf), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    data = None
    digest = _DIGESTS.get(file)
    if digest is None:
        data = _read(page.pdf)
        digest = hashlib.sha256(data).hexdigest()
        _remember(_DIGESTS, file, digest)
    found = directory / f"{_key(digest, page)}.png"
    seconds = None
    if not _is_file(found):
        with locked(found, remove=True):  # one renderer of a page at a time, across processes
            if not _is_file(found):  # rendered by another while this one waited
                start = time.perf_counter()
                image = _render(data if data is not None else _read(page.pdf), page, lambda width, height: page.dpi)
                write_atomic(found, _png(image))
                seconds = time.perf_counter() - start
    _remember(_SOURCES, os.fspath(found), page)
    return Raster(found, seconds)


def thumbnail(page: Page, box: tuple[int, int]) -> Image:
    """``page`` rendered to fit in ``box`` pixels (for the HTML report), never above its dpi."""
    data = _read(page.pdf)
    return _render(
        data, page, lambda width, height: min(page.dpi, POINTS_PER_INCH * min(box[0] / width, box[1] / height))
    )


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def _read(pdf: Path) -> bytes:
    """The PDF's bytes (within max_image_mb; a FIFO swapped in after the check is refused)."""
    try:
        with open_image(pdf) as file:
            return file.read()
    except OSError as exc:
        raise PageError(f"cannot read PDF {pdf}: {exc.strerror or exc}") from None


def _key(digest: str, page: Page) -> str:
    """The page's PNG's name: what its pixels depend on, hashed."""
    identity = f"{FORMAT}\0{digest}\0{page.number}\0{page.dpi}\0{pdfium_version()}"
    return hashlib.sha256(identity.encode()).hexdigest()


def _render(data: bytes, page: Page, dpi_for: Callable[[float, float], float]) -> Image:
    """The page rendered at ``dpi_for(width, height)`` (its size in points), as an RGB
    image; its pixels counted against max_image_pixels before pdfium draws any."""
    import pypdfium2

    use_pixel_limit()
    with _PDFIUM:
        try:
            document = pypdfium2.PdfDocument(data)
        except pypdfium2.PdfiumError as exc:
            why = _LOAD_ERRORS.get(exc.err_code or 1, _LOAD_ERRORS[1])
            raise PageError(f"PDF {page.pdf} cannot be opened: {why}") from None
        try:
            count = len(document)
            if not 1 <= page.number <= count:
                pages = f"{count} page" + ("" if count == 1 else "s")
                raise PageError(
                    f"PDF {page.pdf} has no page {page.number}: it has {pages} (page: expects 1 to {count})"
                )
            try:
                pdf_page = document[page.number - 1]
            except pypdfium2.PdfiumError as exc:
                raise PageError(f"{page} cannot be loaded: {exc}") from None
            try:
                width, height = pdf_page.get_size()
                if not (math.isfinite(width) and math.isfinite(height) and width > 0 and height > 0):
                    raise PageError(f"{page} has no area: its size is {width:g} × {height:g} points")
                dpi = dpi_for(width, height)
                columns, rows = pixel_size(width, height, dpi)
                pixels = columns * rows
                if pixels > limits.active().max_image_pixels:
                    raise PageError(
                        f"{page} is {width / POINTS_PER_INCH:.4g} × {height / POINTS_PER_INCH:.4g} inches: "
                        f"{columns:,} × {rows:,} = {pixels:,} pixels at {dpi:g} dpi; the limit is "
                        f"{limits.active().max_image_pixels:,} pixels ({limits.OPTIONS['max_image_pixels']}); "
                        "set a lower dpi: or raise the limit"
                    )
                try:
                    bitmap = pdf_page.render(scale=_scale(dpi), draw_annots=True)
                except (pypdfium2.PdfiumError, ValueError, MemoryError) as exc:
                    raise PageError(f"{page} cannot be rendered at {dpi:g} dpi: {exc}") from None
                try:
                    return bitmap.to_pil().convert("RGB")  # a copy: the bitmap's memory is pdfium's
                finally:
                    bitmap.close()
            finally:
                pdf_page.close()
        finally:
            document.close()


def _png(image: Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()
