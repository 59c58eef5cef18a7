"""files.read_limited reads what fstat says is there, and reads on when there is more (a
file that grows while it is read, or one whose size the kernel does not know), always
within the limit."""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_ocr.files import UnreadableFile, read_limited


def _limit(mb: float) -> str:
    return f"beyond the limit ({mb} MB)"


def test_a_small_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "a.gt.txt"
    path.write_bytes(b"Ground truth\n")
    assert read_limited(path, "ground truth file", 1024, _limit) == b"Ground truth\n"
    path.write_bytes(b"")
    assert read_limited(path, "ground truth file", 1024, _limit) == b""


def test_a_file_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * 2048)
    with pytest.raises(UnreadableFile, match="beyond the limit"):
        read_limited(path, "ground truth file", 1024, _limit)


def test_content_beyond_what_fstat_says_is_read_on_within_the_limit() -> None:
    status = Path("/proc/self/status")  # a regular file of size 0 by fstat, with content
    assert status.stat().st_size == 0
    data = read_limited(status, "status file", 1 << 20, _limit)
    assert data.startswith(b"Name:") and len(data) > 100
    with pytest.raises(UnreadableFile, match="beyond the limit"):
        read_limited(status, "status file", 64, _limit)
