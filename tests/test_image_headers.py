"""The image check reads PNG and JPEG sizes itself (media/images.py), Pillow the other
formats: the sizes must be Pillow's, and a file they cannot read goes to Pillow."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from pytest_ocr.media import images


def encoded(kind: str, size: tuple[int, int], mode: str = "RGB", **options) -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, "white").save(buffer, kind, **options)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "kind, mode, options",
    [
        ("PNG", "RGB", {}),
        ("PNG", "L", {}),
        ("PNG", "1", {}),
        ("PNG", "RGBA", {"optimize": True}),
        ("JPEG", "RGB", {}),
        ("JPEG", "L", {}),
        ("JPEG", "CMYK", {}),
        ("JPEG", "RGB", {"progressive": True}),
        ("JPEG", "RGB", {"exif": b"Exif\x00\x00" + b"\x00" * 3000, "icc_profile": b"\x00" * 5000}),
    ],
)
@pytest.mark.parametrize("size", [(1, 1), (37, 1201), (3000, 17)])
def test_sizes_are_pillows(kind, mode, options, size):
    data = encoded(kind, size, mode, **options)
    found = images.header_size(io.BytesIO(data))
    with Image.open(io.BytesIO(data)) as image:
        assert found == (image.format, *image.size) == (kind, *size)


@pytest.mark.parametrize(
    "data",
    [
        b"\xff\xd8\xff",  # a JPEG cut after its first marker
        b"\xff\xd8\xff\xe0\x00",  # cut inside a segment's length
        b"\xff\xd8\xff\xda\x00\x08" + b"\x00" * 20,  # scan data before any frame
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDX" + b"\x00" * 16,  # no IHDR where it must be
    ],
)
def test_a_header_they_cannot_read_is_pillows_to_judge(data):
    assert images._png_size(data[:32]) is None and images._jpeg_size(io.BytesIO(data), data[:32]) is None
    assert images.header_size(io.BytesIO(data)) is None  # nor can Pillow: left to the engine


def test_a_jpeg_claiming_a_huge_frame_is_refused_before_decoding(tmp_path):
    # SOI, then a baseline frame header claiming 65,000 x 65,000 pixels, and nothing else
    frame = b"\xff\xc0\x00\x11\x08" + (65000).to_bytes(2, "big") * 2 + b"\x03" + b"\x01\x22\x00\x02\x11\x01\x03\x11\x01"
    path = tmp_path / "bomb.jpg"
    path.write_bytes(b"\xff\xd8" + frame + b"\xff\xd9")
    with pytest.raises(images.ImageError, match=r"65000 × 65000 = 4,225,000,000 pixels when decoded \(JPEG\)"):
        images.check_image(path)


def test_an_image_checked_once_is_checked_again_when_it_changes(tmp_path):
    # check_image remembers good images by path, inode, size and modification time
    path = tmp_path / "page.png"
    path.write_bytes(encoded("PNG", (10, 10)))
    images.check_image(path)
    images.check_image(path)  # remembered
    header = bytearray(encoded("PNG", (10, 10)))
    header[16:24] = (60000).to_bytes(4, "big") * 2  # the same file, now claiming 60,000 x 60,000 pixels
    path.write_bytes(bytes(header) + b"\x00")  # one byte more: a change the stat shows
    with pytest.raises(images.ImageError, match="60000 × 60000"):
        images.check_image(path)
