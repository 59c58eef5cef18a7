"""Engine outputs kept on disk, so an unchanged image read by an unchanged engine is not
read again.

An entry is keyed by the sha256 of the image's bytes and the engine's fingerprint id
(``fingerprint_id``, itself a hash): where the image lives does not matter, and no
option value appears in a key or a file name. The cache trusts the fingerprint to
change whenever the output would; an engine whose output it cannot describe opts out
with ``cacheable = False`` (``EngineBase.cacheable``).

One JSON file per entry, ``<directory>/<first 2 hex chars>/<key>.json``. Entries are data
(no pickle), so a cache may be shared between machines; anyone who can write to the
directory can still change the results it gives. Writes go to a temporary file in the
same directory and are renamed into place (``files.write_atomic``), so concurrent writers
(pytest-xdist workers) never leave, and readers never see, half an entry. Anything unreadable (corrupt,
truncated, another format version) is a miss and is overwritten by the next put.
"""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, TypeGuard

from ..files import write_atomic
from .base import Recognition, fingerprint_id

FORMAT = "pytest-ocr-cache/1"  # bump when the entry layout changes: old entries become misses
CHUNK = 1 << 20
# A field added to Recognition changes the layout: entries without it become misses.
RECOGNITION_KEYS = tuple(field.name for field in dataclasses.fields(Recognition))
_KEY = re.compile(r"[0-9a-f]{64}-[0-9a-f]+")


@dataclasses.dataclass
class Cached:
    recognition: Recognition
    seconds: float  # how long the engine took when the entry was written


def file_sha256(path: Path | str) -> str:
    """The hex sha256 of a file's bytes, read in chunks (images and binaries can be large).

    Raises OSError, also for anything but a regular file: a FIFO or a device would never
    end (``/dev/zero``) or never start (a FIFO nobody writes to). It is opened without
    blocking and checked on the open file, so one swapped in after a check cannot hang.
    Read through the descriptor: a file object around it cost each image of a large suite
    3-4 us more than the read (every item hashes its image for its input hash)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        digest = hashlib.sha256()
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not standard JSON")


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _strings(value: Any) -> TypeGuard[list[str]]:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _parse(entry: Any, key: str) -> Cached | None:
    """The entry as a Cached, or None for anything that is not one of ours for this key."""
    if not isinstance(entry, dict) or entry.get("format") != FORMAT or entry.get("key") != key:
        return None
    seconds, found = entry.get("seconds"), entry.get("recognition")
    if not _number(seconds) or seconds < 0 or not isinstance(found, dict) or sorted(found) != sorted(RECOGNITION_KEYS):
        return None
    lines, confidence, fields = found["lines"], found["confidence"], found["fields"]
    if not (
        isinstance(found["text"], str)
        and (lines is None or _strings(lines))
        and (confidence is None or _number(confidence))
        and (fields is None or isinstance(fields, dict))
        and _strings(found["warnings"])
    ):
        return None
    return Cached(Recognition(**{name: found[name] for name in RECOGNITION_KEYS}), seconds)


class OutputCache:
    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        # Why the first put that could not write failed, for the caller to show once.
        self.write_error: str | None = None

    def key(self, image: Path, fingerprint: dict) -> str:
        """The entry key of this image's bytes on the engine with this fingerprint.
        Raises OSError when the image cannot be read."""
        return f"{file_sha256(image)}-{fingerprint_id(fingerprint)}"

    def _path(self, key: str) -> Path:
        if not _KEY.fullmatch(key):  # keys become file names: only ours
            raise ValueError(f"not an output cache key: {key!r}")
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Cached | None:
        """The entry for ``key``, or None when there is none or it cannot be used."""
        path = self._path(key)
        try:
            text = path.read_text(encoding="utf-8")
            return _parse(json.loads(text, parse_constant=_reject_constant), key)
        except (OSError, ValueError, RecursionError):  # unreadable, not UTF-8, not JSON, too deep
            return None

    def put(self, key: str, recognition: Recognition, seconds: float) -> bool:
        """Store an output; True when stored. Never raises for a write that fails (read-only
        directory, full disk): it returns False and keeps the reason in ``write_error``.
        An output that JSON would not give back as it is (a tuple, a NaN, a non-str key,
        an object in ``raw``) is not stored either: a hit must equal what the engine returned."""
        path = self._path(key)
        entry = {
            "format": FORMAT,
            "key": key,
            "seconds": seconds,
            "recognition": {name: getattr(recognition, name) for name in RECOGNITION_KEYS},
        }
        try:
            data = json.dumps(entry, ensure_ascii=False, allow_nan=False).encode("utf-8")
        except (TypeError, ValueError, RecursionError):  # includes lone surrogates in text
            return False
        if _parse(json.loads(data), key) != Cached(recognition, seconds):
            return False
        try:
            write_atomic(path, data)
        except OSError as exc:
            if self.write_error is None:
                self.write_error = f"cannot write to the OCR output cache {self.directory}: {exc}"
            return False
        return True
