"""A cheap sanity check of an image file before any engine sees it."""

from __future__ import annotations

from pathlib import Path

from ..errors import OcrError

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


class ImageError(OcrError):
    pass


def check_image(path: Path) -> None:
    """Raise ImageError if the image is missing, empty, or not what its extension says.

    Formats this check does not know are left to the engine to judge.
    """
    try:
        with path.open("rb") as f:
            head = f.read(16)
    except FileNotFoundError:
        raise ImageError(f"image not found: {path}") from None
    except OSError as exc:
        raise ImageError(f"cannot read image {path}: {exc.strerror}") from None
    if not head:
        raise ImageError(f"image is an empty file: {path}")
    signatures = _SIGNATURES.get(path.suffix.lower())
    if signatures and not head.startswith(signatures):
        raise ImageError(
            f"image is corrupt or not a {path.suffix.lstrip('.').upper()} file: {path} (starts with {head[:8]!r})"
        )
