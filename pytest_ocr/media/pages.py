"""PDF pages as case images: a case names a PDF (``image: report.pdf``, ``page: 3``,
``dpi: 300``), and every engine reads that page rasterised to a PNG.

A page is rendered by pdfium (pypdfium2) once, and kept by content: its file is named by
the sha256 of the PDF's bytes, the page, the dpi, pdfium's version and how pages are
rendered here (``FORMAT``), in the run's pages directory (``<output cache>/pages/``, see
plugin/executor.py). Engines get that PNG's path, so the output cache, which keys an
output by the image's bytes and the engine's fingerprint, works for pages as for images;
a PDF moved or renamed is the same PDF. A page is rendered under a lock on its file
(``files.locked``) and written atomically (``files.atomic_file``): pytest-xdist workers
and engines wanting the same page render it once, and a reader never sees half a PNG.

A hostile PDF costs its item, never the run: the file is checked as any image is
(``images.check_image``: a regular file within ``max_image_mb``, starting with ``%PDF``);
pdfium draws in a process of its own bounded in memory and time (media/rasteriser.py),
and a document pdfium cannot load, one that needs a password, a page it does not have, a
page whose raster would be beyond ``max_image_pixels`` (its size in points × dpi / 72,
computed before anything is rendered: a MediaBox of 200 × 200 inches at 300 dpi is 3.6
billion pixels) and a page whose drawing takes more than ``max_rasterise_mb`` or
``max_rasterise_s`` are the item's error, in one line naming the file and the page. A page
that failed is not drawn again by this process for its other items.

An engine that looks outputs up by the image's name rather than reading its pixels (the
``predictions`` engine) asks ``source`` which PDF page a rendered PNG shows.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import limits
from ..files import atomic_file, locked
from .images import check_image, open_image, use_pixel_limit
from .rasteriser import BeyondLimits, Job, PageError, draw

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
FORMAT = "pytest-ocr-page/1"  # how a page is rendered here (RGB, annotations drawn, PNG): in every key


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


def pdfium_version() -> str:
    import pypdfium2

    return str(pypdfium2.PDFIUM_INFO)


# The sha256 of a PDF this process read, by what would change if the file did (a document
# of many pages is hashed once, not once a page); which page a PNG shows (``source``); and the
# pages that could not be drawn, so that their other items do not draw them again.
_DIGESTS: dict[tuple, str] = {}
_SOURCES: dict[str, Page] = {}
_FAILED: dict[tuple, str] = {}  # (PDF digest, page, dpi, limits) -> why drawing it went beyond them
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
    digest = _digest(page.pdf)
    found = directory / f"{_key(digest, page)}.png"
    seconds = None
    if not _is_file(found):
        with locked(found, remove=True):  # one renderer of a page at a time, across processes
            if not _is_file(found):  # rendered by another while this one waited
                start = time.perf_counter()
                with atomic_file(found) as temporary:
                    _draw(page, digest, os.fspath(temporary))
                seconds = time.perf_counter() - start
    _remember(_SOURCES, os.fspath(found), page)
    return Raster(found, seconds)


def thumbnail(page: Page, box: tuple[int, int]) -> Image:
    """``page`` rendered to fit in ``box`` pixels (for the HTML report), never above its dpi."""
    from PIL import Image

    digest = _digest(page.pdf)
    with tempfile.NamedTemporaryFile(prefix="pytest-ocr-thumbnail-", suffix=".png") as png:
        _draw(page, digest, png.name, box)
        use_pixel_limit()
        with Image.open(png.name) as image:
            image.load()
            return image


def _digest(pdf: Path) -> str:
    """The sha256 of the PDF's bytes, checked as any image is (a regular file within
    max_image_mb, starting with %PDF); read once while the file stays as it was."""
    check_image(pdf)
    try:
        info = os.stat(pdf)
    except OSError as exc:
        raise PageError(f"cannot read PDF {pdf}: {exc.strerror or exc}") from None
    file = (os.fspath(pdf), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    digest = _DIGESTS.get(file)
    if digest is None:
        digest = hashlib.sha256(_read(pdf)).hexdigest()
        _remember(_DIGESTS, file, digest)
    return digest


def _draw(page: Page, digest: str, out: str, box: tuple[int, int] | None = None) -> None:
    """``page`` drawn into ``out`` by the rasteriser, unless drawing it at its dpi went
    beyond the limits before (it is not tried again, for a thumbnail neither)."""
    bound = limits.active()
    tried = (digest, page.number, page.dpi, bound)
    if tried in _FAILED:
        raise BeyondLimits(_FAILED[tried])
    try:
        draw(Job(os.fspath(page.pdf), page.number, page.dpi, out, bound, digest, box))
    except BeyondLimits as exc:
        _remember(_FAILED, tried, str(exc))
        raise


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
