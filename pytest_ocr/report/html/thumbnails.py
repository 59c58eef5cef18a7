"""The thumbnails of the images (and PDF pages) the cases show: JPEG data URLs, each
image decoded once, and why an image has none."""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ...engines.cache import file_sha256
from ...errors import OcrError
from ...files import Tree
from ...media import pages
from ...media.images import open_image
from ...media.pages import DEFAULT_DPI, Page
from ...run.result import CaseResult

THUMBNAIL_BOX = (1000, 1000)  # at most this wide and tall: enough to see the layout, never the original
JPEG_QUALITY = 75


def thumbnail(path: Path | Page) -> str:
    """A JPEG data URL of the image scaled down into THUMBNAIL_BOX (first frame of a TIFF),
    or of a PDF's page as engines read it, rendered to fit the box (media/pages.py).

    Only an image that passes ``open_image`` (a regular file within the size and pixel
    limits) is decoded; it also sets Pillow's own limit to the same number of pixels."""
    from PIL import Image  # only here: the rest of the report needs no Pillow

    if isinstance(path, Page):
        return _jpeg(pages.thumbnail(path, THUMBNAIL_BOX))
    with open_image(path) as file, Image.open(file) as image:
        image.draft("RGB", THUMBNAIL_BOX)  # JPEG: decode at a reduced scale, much faster
        return _jpeg(image)


def _jpeg(image: Any) -> str:
    from PIL import Image

    if image.mode == "1":
        image = image.convert("L")  # so that scaling averages instead of dropping pixels
    image.thumbnail(THUMBNAIL_BOX)
    if image.mode in ("RGBA", "LA", "PA", "P") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        image = Image.new("RGB", rgba.size, "white")
        image.paste(rgba, mask=rgba.getchannel("A"))
    elif image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=JPEG_QUALITY)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def _attempt(make: Callable[[Any], str], path: Path | Page) -> tuple[str | None, str | None]:
    """(what ``make(path)`` gives, None), or (None, why not): whatever an image does
    wrong costs its picture, never the report."""
    try:
        return make(path), None
    except FileNotFoundError:
        return None, f"image not found: {path}"
    except OcrError as exc:  # not a regular file, beyond a limit: says so itself
        return None, str(exc)
    except Exception as exc:
        return None, f"image could not be read: {type(exc).__name__}: {exc}"


def _checked_sha256(path: Path | Page, pdfs: dict[Path, str]) -> str:
    """The file's sha256; a PDF's page's: the PDF's (hashed once, in ``pdfs``), page and dpi."""
    if isinstance(path, Page):
        if path.pdf not in pdfs:
            pdfs[path.pdf] = _checked_sha256(path.pdf, pdfs)
        return f"{pdfs[path.pdf]}#page={path.number}@{path.dpi}"
    open_image(path).close()
    return file_sha256(path)


def thumbnails(paths: list[Path | Page]) -> tuple[list[str], list[tuple[int | None, str | None]]]:
    """The thumbnails' data URLs, and per path (an image, or a PDF's page) (index of its
    thumbnail, None) or (None, why there is none). Identical files (copies, links) are
    decoded once. Pillow releases the GIL while decoding and scaling, so threads use every
    core (pdfium does not: pages are rendered one at a time)."""
    # In one thread: a pool costs more than small files. Checked first: a FIFO or a
    # device is never opened, a file beyond a limit never read.
    pdfs: dict[Path, str] = {}
    digests = [_attempt(lambda p: _checked_sha256(p, pdfs), p) for p in paths]
    first: dict[str, Path | Page] = {}
    for path, (digest, _) in zip(paths, digests, strict=True):
        if digest is not None:
            first.setdefault(digest, path)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        made = dict(zip(first, pool.map(lambda p: _attempt(thumbnail, p), first.values()), strict=True))
    urls: list[str] = []
    index: dict[str, int] = {}
    for digest, (url, _) in made.items():
        if url is not None:
            index[digest] = len(urls)
            urls.append(url)
    per_path: list[tuple[int | None, str | None]] = []
    for digest, error in digests:
        if digest is None:
            per_path.append((None, error))
        else:
            per_path.append((index.get(digest), made[digest][1]))
    return urls, per_path


def outside(root: Path, images: Iterable[str]) -> dict[str, str]:
    """The images (as results name them, relative to the project directory ``root`` or
    absolute) that are not in the project, links resolved (files.Tree), and why."""
    tree = Tree([root], "the project")
    found = {}
    for image in dict.fromkeys(images):
        why = tree.outside(root / image)
        if why is not None:
            found[image] = why
    return found


def picture(result: CaseResult) -> tuple[str, int, int]:
    """What a result's thumbnail shows: its image, and for a PDF the page and dpi (else 0)."""
    return result.image or "", result.page or 0, result.dpi or 0


def picture_source(root: Path, image: str, page: int, dpi: int) -> Path | Page:
    return Page(root / image, page, dpi or DEFAULT_DPI) if page else root / image
