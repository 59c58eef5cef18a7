"""Drawing a PDF page into a PNG file, in a process of its own bounded in memory and time.

pdfium's cost is not its page's pixels: a 19 MB PDF whose one page draws 8,000,000
rectangles took 2.9 GB, and one whose drawing failed an allocation ended pytest's
process with an abort (pdfium aborts when memory runs out), every other item and output
lost. So pages are drawn by a worker process, started at the first page and kept for the
next ones (its start, about 0.3 s, is paid once per process), whose address space is
capped at ``max_rasterise_mb`` (RLIMIT_AS) and whose every page is given
``max_rasterise_s``: a page beyond either ends or stops that process, and is its items'
error naming the limit and its option; the next page gets a new process.

The worker writes the PNG itself, its rows filtered and compressed band by band straight
from pdfium's bitmap (RGB, 3 bytes a pixel, the one copy of the raster: Pillow would
hold another 4 bytes a pixel), so a page takes width × height × 3 bytes and about
140 MB besides (the interpreter, numpy, pdfium): 1,024 MB renders every page up to
``max_image_pixels``' default of 250,000,000 pixels. Each row is filtered by PNG's "Up"
filter (its difference from the row above): on the olmOCR-Bench sample's pages as small
as Pillow's adaptive choice (0.81-1.02 of its size) in half its time.

Requests and answers are pickled over the worker's stdin and a copy of its stdout;
one request at a time (pdfium is not thread-safe, and one process's memory is the bound).
"""

from __future__ import annotations

import hashlib
import math
import os
import pickle
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .. import limits, workers
from ..limits import MB, OPTIONS, Limits
from .images import ImageError, open_image

POINTS_PER_INCH = 72  # a PDF's unit (pdfium does not apply a page's UserUnit, nor does this)
BAND_ROWS = 64  # rows filtered and compressed at once: a few hundred kilobytes of a page's width
STDERR_TAIL = 1000  # characters of a dead worker's stderr shown in the error
ALARM_SLACK_S = 5  # the worker's own time bound is max_rasterise_s and this
# pdfium's error codes for a document it cannot open (FPDF_ERR_*)
_LOAD_ERRORS = {
    1: "pdfium cannot read it (unknown error)",
    2: "the file cannot be read",
    3: "it is not a PDF or is damaged (pdfium cannot parse it)",
    4: "it is encrypted and needs a password",
    5: "it is encrypted with a security handler pdfium does not support",
    6: "a page is damaged",
}


class PageError(ImageError):
    """A PDF page that cannot be rasterised: the message names the file and the page."""


class BeyondLimits(PageError):
    """A page whose drawing took more memory or time than the worker has, or ended it."""


@dataclass(frozen=True)
class Job:
    """One page to draw, as the worker gets it."""

    pdf: str
    number: int  # 1-based
    dpi: int
    out: str  # the PNG file to write (it exists, empty)
    limits: Limits
    digest: str | None = None  # the sha256 the PDF's bytes must have: its page is stored under it
    box: tuple[int, int] | None = None  # a thumbnail: the raster fits in this many pixels, never above dpi

    def __str__(self) -> str:
        page = f"{self.pdf} page {self.number}"
        return f"{page}'s thumbnail" if self.box else f"{page} at {self.dpi} dpi"


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


# -- in the process that asks -------------------------------------------------------------


class _Ended(Exception):
    """The worker is gone: it ended, or the timer stopped it."""


class _Worker:
    """One worker process, its address space capped at ``limit_mb``."""

    def __init__(self, limit_mb: float) -> None:
        self.limit_mb = limit_mb
        self.limit = int(limit_mb * MB)  # bytes; what it says once started (lower when this process's is)
        self.ready = False
        self.expired = False  # the timer stopped it
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            workers.command("pytest_ocr.media.rasteriser", str(self.limit)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            start_new_session=True,  # Ctrl-C reaches pytest, which ends the worker
            # numpy's OpenBLAS would start a thread per core, each reserving address space
            env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        )

    def exchange(self, job: Job, seconds: float) -> tuple:
        """The answer to ``job`` (after the worker's greeting, the first time); raises
        _Ended when the process ended or was stopped (it is then closed)."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        timer = threading.Timer(seconds, self._expire)
        timer.start()
        try:
            if not self.ready:  # started: its limit set, pdfium and numpy loaded
                self.limit = pickle.load(self.proc.stdout)[1]
                self.ready = True
            workers.send(self.proc.stdin, job)
            return pickle.load(self.proc.stdout)
        except Exception:  # EOF, a broken pipe, half an answer: the process is gone
            timer.cancel()
            self.close()
            raise _Ended() from None
        finally:
            timer.cancel()

    def _expire(self) -> None:
        self.expired = True
        workers.kill(self.proc)

    def stderr_tail(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace").strip()[-STDERR_TAIL:]

    def close(self) -> None:
        workers.stop(self.proc)


_LOCK = threading.Lock()  # one page at a time: engines started ahead and thumbnails ask from threads
_worker: _Worker | None = None


def draw(job: Job) -> None:
    """Draw ``job``'s page into ``job.out`` as a PNG, in the worker process (started, or
    replaced, as needed). Raises PageError for a page that cannot be drawn, BeyondLimits
    for one that took the worker's memory or time; located by its file and page."""
    global _worker
    bound = job.limits
    with _LOCK:
        worker, _worker = _worker, None  # kept again only if it answers
        if worker is not None and (worker.limit_mb != bound.max_rasterise_mb or worker.proc.poll() is not None):
            worker.close()
            worker = None
        if worker is None:
            worker = _Worker(bound.max_rasterise_mb)
            _close_at_exit()
        try:
            answer = worker.exchange(job, bound.max_rasterise_s)
        except _Ended:
            raise BeyondLimits(_ended_message(job, worker)) from None
        if answer[0] == "exhausted":  # a MemoryError: it ended; what was left of its heap is not worth keeping
            worker.close()
            raise BeyondLimits(_memory_message(job, worker.limit, answer[1]))
        _worker = worker
    if answer[0] == "error":
        raise PageError(answer[1])


def _limit_text(job: Job, limit: int) -> str:
    """``1,024 MB (--ocr-max-rasterise-mb)``, saying so when this process's own limit was lower."""
    option, given = OPTIONS["max_rasterise_mb"], job.limits.max_rasterise_mb
    if limit < int(given * MB):
        return f"{limit / MB:,.0f} MB ({option} is {given:,g}, but this process's own address-space limit is lower)"
    return f"{given:,g} MB ({option})"


def _memory_message(job: Job, limit: int, how: str) -> str:
    return f"{job} could not be rasterised within {_limit_text(job, limit)}: it ran out of memory ({how})"


def _ended_message(job: Job, worker: _Worker) -> str:
    if worker.expired:
        seconds = job.limits.max_rasterise_s
        return f"{job} could not be rasterised within {seconds:g} s ({OPTIONS['max_rasterise_s']}): it was stopped"
    if worker.proc.returncode == -signal.SIGABRT:  # what pdfium does when an allocation fails
        return _memory_message(job, worker.limit, "pdfium aborted its process, as it does when an allocation fails")
    how = workers.ended(worker.proc.returncode)
    tail = worker.stderr_tail()
    said = f"; its stderr: {tail}" if tail else ""
    doing = "drawing it" if worker.ready else "starting"
    within = _limit_text(job, worker.limit)
    return f"{job} could not be rasterised within {within}: its process ended ({how}) while {doing}{said}"


def _close_at_exit() -> None:
    import atexit

    atexit.unregister(close)
    atexit.register(close)


def close() -> None:
    """End the worker process, if there is one (the next page starts another)."""
    global _worker
    with _LOCK:
        if _worker is not None:
            _worker.close()
            _worker = None


# -- in the worker process -----------------------------------------------------------------


def worker() -> None:
    """The worker's loop (a worker process: pytest_ocr/workers.py; its address-space limit in bytes as argv[1]):
    the limit set, then ``("ready", limit)``; then one Job per request, answered
    ``("ok",)``, ``("error", message)`` or ``("exhausted", what)`` (a MemoryError, after
    which it ends). Ends at the end of its input."""
    import resource

    requests, answers = workers.streams()
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = int(sys.argv[1]) if hard == resource.RLIM_INFINITY else min(int(sys.argv[1]), hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    import numpy  # noqa: F401 - loaded now, within the limit, not at the first page
    import pypdfium2  # noqa: F401

    workers.send(answers, ("ready", limit))
    while True:
        try:
            job = pickle.load(requests)
        except EOFError:
            return
        # Its own bound too, a little past the asking process's: if that one is gone (killed), the
        # alarm's default action still ends a drawing that would never end.
        signal.alarm(math.ceil(job.limits.max_rasterise_s) + ALARM_SLACK_S)
        try:
            answer: tuple = ("ok",)
            _draw(job)
        except PageError as exc:
            answer = ("error", str(exc))
        except MemoryError as exc:
            workers.send(answers, ("exhausted", f"MemoryError{': ' + str(exc) if str(exc) else ''}"))
            return
        except Exception as exc:  # pdfium or numpy failing otherwise: the page's error, not the worker's end
            answer = ("error", f"{job} could not be rasterised: {type(exc).__name__}: {exc}")
        signal.alarm(0)
        workers.send(answers, answer)


def _draw(job: Job) -> None:
    """The page drawn and written as ``job`` says; its raster's pixels counted against
    max_image_pixels before pdfium draws any."""
    import pypdfium2

    limits.use(job.limits)
    page = f"{job.pdf} page {job.number}"
    try:
        with open_image(Path(job.pdf)) as file:  # within max_image_mb; a FIFO swapped in is refused
            data = file.read()
    except OSError as exc:
        raise PageError(f"cannot read PDF {job.pdf}: {exc.strerror or exc}") from None
    if job.digest is not None and hashlib.sha256(data).hexdigest() != job.digest:
        raise PageError(f"PDF {job.pdf} changed while it was being read; run again")
    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        why = _LOAD_ERRORS.get(exc.err_code or 1, _LOAD_ERRORS[1])
        raise PageError(f"PDF {job.pdf} cannot be opened: {why}") from None
    try:
        count = len(document)
        if not 1 <= job.number <= count:
            pages = f"{count} page" + ("" if count == 1 else "s")
            raise PageError(f"PDF {job.pdf} has no page {job.number}: it has {pages} (page: expects 1 to {count})")
        try:
            pdf_page = document[job.number - 1]
        except pypdfium2.PdfiumError as exc:
            raise PageError(f"{page} cannot be loaded: {exc}") from None
        try:
            width, height = pdf_page.get_size()
            if not (math.isfinite(width) and math.isfinite(height) and width > 0 and height > 0):
                raise PageError(f"{page} has no area: its size is {width:g} × {height:g} points")
            dpi: float = job.dpi
            if job.box is not None:
                dpi = min(dpi, POINTS_PER_INCH * min(job.box[0] / width, job.box[1] / height))
            columns, rows = pixel_size(width, height, dpi)
            pixels, most = columns * rows, limits.active().max_image_pixels
            if pixels > most:
                raise PageError(
                    f"{page} is {width / POINTS_PER_INCH:.4g} × {height / POINTS_PER_INCH:.4g} inches: "
                    f"{columns:,} × {rows:,} = {pixels:,} pixels at {dpi:g} dpi; the limit is "
                    f"{most:,} pixels ({OPTIONS['max_image_pixels']}); set a lower dpi: or raise the limit"
                )
            try:
                bitmap = pdf_page.render(scale=_scale(dpi), draw_annots=True, rev_byteorder=True)  # RGB
            except (pypdfium2.PdfiumError, ValueError) as exc:
                raise PageError(f"{page} cannot be rendered at {dpi:g} dpi: {exc}") from None
            try:
                with open(job.out, "wb") as out:
                    write_png(bitmap.buffer, bitmap.width, bitmap.height, bitmap.stride, out)
                    out.flush()
                    os.fsync(out.fileno())
            finally:
                bitmap.close()
        finally:
            pdf_page.close()
    finally:
        document.close()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def write_png(buffer: Any, width: int, height: int, stride: int, out: IO[bytes]) -> None:
    """An RGB raster (``height`` rows of ``stride`` bytes in ``buffer``, 3 bytes a pixel)
    as a PNG, each row "Up"-filtered (its bytes less the row above's, modulo 256), the
    rows compressed as they are filtered, BAND_ROWS at a time."""
    import numpy

    raster = numpy.frombuffer(buffer, dtype=numpy.uint8, count=stride * height).reshape(height, stride)
    raster = raster[:, : width * 3]
    out.write(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)))
    compressor = zlib.compressobj(6)
    lines = numpy.empty((BAND_ROWS, width * 3 + 1), dtype=numpy.uint8)
    lines[:, 0] = 2  # the filter type: Up
    above = numpy.zeros(width * 3, dtype=numpy.uint8)  # the first row's is zero: it stands as it is
    for top in range(0, height, BAND_ROWS):
        band = raster[top : top + BAND_ROWS]
        count = len(band)
        numpy.subtract(band[0], above, out=lines[0, 1:])
        numpy.subtract(band[1:], band[:-1], out=lines[1:count, 1:])
        compressed = compressor.compress(lines[:count].data)
        if compressed:
            out.write(_chunk(b"IDAT", compressed))
        above = band[-1]
    out.write(_chunk(b"IDAT", compressor.flush()) + _chunk(b"IEND", b""))
