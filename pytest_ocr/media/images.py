"""A cheap check of an image file before any engine, the cache or a thumbnail reads it.

A hostile image costs its item, never the run: a FIFO or a device given as an image
would hang whatever reads it, a directory or a socket is no image, a huge file or a
decompression bomb (a small file whose header claims 20000 × 20000 pixels) would take
the machine's memory once decoded. So an image must be a regular file (checked before
it is opened, and again on the open file), at most ``max_image_mb`` large, and, when
Pillow can read its header, at most ``max_image_pixels`` (width × height) large; the
header is read without decoding anything. Formats Pillow cannot read (PDF) are checked
by size only, and left to the engine to judge.

Pillow's own guard, ``Image.MAX_IMAGE_PIXELS``, is set to the same limit whenever an
image is checked and wherever pytest-ocr lets Pillow decode (``use_pixel_limit``), so
Pillow, in an engine's format conversion too, never decodes beyond it.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from typing import BinaryIO

from .. import limits
from ..errors import OcrError
from ..files import UnreadableFile, check_regular, unreadable

# File signatures of the formats OCR engines commonly read, by extension.
_SIGNATURES = {
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".tif": (b"II*\x00", b"MM\x00*"),
    ".tiff": (b"II*\x00", b"MM\x00*"),
    ".bmp": (b"BM",),
    ".gif": (b"GIF87a", b"GIF89a"),
    ".webp": (b"RIFF",),
    ".pdf": (b"%PDF",),
}
MB = 1024 * 1024


class ImageError(OcrError):
    pass


def use_pixel_limit() -> None:
    """Set Pillow's ``Image.MAX_IMAGE_PIXELS`` to ``max_image_pixels``: call before
    letting Pillow decode. Pillow refuses (DecompressionBombError) beyond twice it and
    warns beyond it; pytest-ocr checks every image against the limit itself first."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = limits.active().max_image_pixels


def header_size(file: BinaryIO) -> tuple[str, int, int] | None:
    """(format, width, height) from the header of the image open in ``file``, or None when
    Pillow cannot identify it. Nothing is decoded, and Pillow's decompression bomb check
    (which refuses to give the size at all beyond twice its limit) is not involved: the
    caller compares the size with the limit and states both.

    This is what ``Image.open`` does before its bomb check: the first registered format
    whose ``accept`` takes the first 16 bytes and whose reader parses the header.
    """
    file.seek(0)
    head = file.read(32)
    found = _png_size(head) or _jpeg_size(file, head)
    if found is not None:  # the two commonest formats read directly: Pillow takes ten times longer
        return found
    from PIL import Image

    Image.init()
    prefix = head[:16]
    for name in list(Image.ID):
        factory, accept = Image.OPEN[name]
        try:
            accepted = accept(prefix) if accept is not None else True
        except Exception:  # a format's check that cannot take a prefix this short
            continue
        if isinstance(accepted, str) or not accepted:  # a str is Pillow's reason for not taking it
            continue
        file.seek(0)
        try:
            with factory(file, "") as image:  # closes nothing: the file is the caller's
                width, height = image.size
        except Exception:  # not this format, or a header Pillow cannot parse: left to the engine
            continue
        return name, width, height
    return None


def _png_size(head: bytes) -> tuple[str, int, int] | None:
    # the signature, then the IHDR chunk: its length (13), type, width and height
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR" or len(head) < 24:
        return None
    width, height = struct.unpack(">II", head[16:24])
    return "PNG", width, height


# JPEG's start-of-frame markers: the ones carrying the image's size
_SOF = frozenset((0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF))
_JPEG_SEGMENTS = 64  # segments read before the frame's (EXIF, ICC, tables); beyond: Pillow's turn


def _jpeg_size(file: BinaryIO, head: bytes) -> tuple[str, int, int] | None:
    """The frame's size from a JPEG's segments, read one after another (no data decoded)."""
    if head[:3] != b"\xff\xd8\xff":
        return None
    file.seek(2)
    for _ in range(_JPEG_SEGMENTS):
        marker = file.read(2)
        while marker[:1] == b"\xff" and marker[1:] == b"\xff":  # fill bytes before a marker
            marker = b"\xff" + file.read(1)
        if len(marker) < 2 or marker[0] != 0xFF:
            return None
        kind = marker[1]
        if kind == 0x01 or 0xD0 <= kind <= 0xD7:  # markers without a segment
            continue
        length = file.read(2)
        if len(length) < 2:
            return None
        size = struct.unpack(">H", length)[0]
        if kind in _SOF:
            frame = file.read(5)
            if len(frame) < 5:
                return None
            height, width = struct.unpack(">HH", frame[1:5])
            return "JPEG", width, height
        if kind in (0xD9, 0xDA) or size < 2:  # end of image or scan data before any frame
            return None
        file.seek(size - 2, os.SEEK_CUR)
    return None


def _pixels(count: int) -> str:
    return f"{count:,} pixels"


def open_image(path: Path) -> BinaryIO:
    """``path`` opened for reading (binary, at offset 0) once it is known to be a regular
    file within ``max_image_mb`` whose header, if Pillow can read it, is within
    ``max_image_pixels``. Raises ImageError (the message names the path) otherwise.
    Opened without blocking, so a FIFO swapped in after the first check cannot hang."""
    use_pixel_limit()  # whatever decodes this image next in this process (an engine's conversion too)
    fd, info = _opened(path, False)
    file = os.fdopen(fd, "rb")
    try:
        if info.st_size:
            _within_pixels(path, header_size(file))
        file.seek(0)
        return file
    except BaseException:
        file.close()
        raise


def _opened(path: Path, regular: bool) -> tuple[int, os.stat_result]:
    """A descriptor of ``path`` (the caller closes it) and its status, once it is known to
    be a regular file within ``max_image_mb``; raises ImageError. ``regular``: the caller's
    own stat of ``path`` just found a regular file (not asked again before opening it)."""
    try:
        if not regular:
            check_regular(path, "image")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except (OSError, UnreadableFile) as exc:
        raise ImageError(unreadable(exc, path, "image")) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped in after the check
            raise ImageError(f"image is not a regular file: {path}")
        if info.st_size > limits.active().max_image_bytes:
            size = round(info.st_size / MB, 1)
            raise ImageError(limits.exceeded(f"image {path}", size, "max_image_mb", " MB"))
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def _within_pixels(path: Path, found: tuple[str, int, int] | None) -> None:
    """Raise ImageError when the header found (format, width, height) is beyond ``max_image_pixels``."""
    if found is None:
        return
    name, width, height = found
    pixels = max(width, 1) * max(height, 1)
    limit = limits.active().max_image_pixels
    if pixels > limit:
        raise ImageError(
            f"image {path} is {width} × {height} = {_pixels(pixels)} when decoded ({name}); the limit is "
            f"{_pixels(limit)} ({limits.OPTIONS['max_image_pixels']})"
        )


# Images found good, by what would change if the file did: an item's inputs and its
# engine both check its image, and a suite may name one image many times.
_GOOD: dict[tuple, None] = {}
_GOOD_KEPT = 4096


def check_image(path: Path) -> None:
    """Raise ImageError if the image is missing, not a regular file, beyond a limit,
    empty, or not what its extension says.

    Formats this check does not know are left to the engine to judge.
    """
    try:
        info = os.stat(path)
    except OSError:
        info = None  # open_image says what is wrong
    key: tuple | None = None
    if info is not None and stat.S_ISREG(info.st_mode):
        active = limits.active()
        file = (os.fspath(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        key = (*file, active.max_image_bytes, active.max_image_pixels)
        if key in _GOOD:
            use_pixel_limit()  # as open_image does, for whatever decodes it next
            return
    _check(path, key is not None)
    if key is not None:
        if len(_GOOD) >= _GOOD_KEPT:
            _GOOD.clear()
        _GOOD[key] = None


def _check(path: Path, regular: bool) -> None:
    """``open_image``'s checks, and the file's start against its extension's signatures,
    through the descriptor: a PNG's header is in its first bytes, read once (a file object
    around the descriptor, its own status, terminal check and seeks, cost each item about
    as much again as the check). Other formats' headers are read through a file."""
    use_pixel_limit()  # as open_image does, for whatever decodes it next
    fd, info = _opened(path, regular)
    try:
        try:
            head = os.read(fd, 32)
        except OSError as exc:
            raise ImageError(f"cannot read image {path}: {exc.strerror or exc}") from None
        if info.st_size:
            found = _png_size(head)
            if found is None:
                with os.fdopen(fd, "rb", closefd=False) as file:
                    found = header_size(file)
            _within_pixels(path, found)
    finally:
        os.close(fd)
    if not head:
        raise ImageError(f"image is an empty file: {path}")
    head = head[:16]
    signatures = _SIGNATURES.get(path.suffix.lower())
    if signatures and not head.startswith(signatures):
        raise ImageError(
            f"image is corrupt or not a {path.suffix.lstrip('.').upper()} file: {path} (starts with {head[:8]!r})"
        )
