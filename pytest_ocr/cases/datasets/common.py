"""What every adapter shares: what it returns (``Loaded``: cases, engines, ``Skipped`` entries), the
ids of its cases, and finding and reading the files its block names, inside the folders it names."""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from ...errors import OcrError
from ...files import Tree, UnreadableFile, check_regular, decode_text, unreadable
from ...media import document as doc

IMAGE_SUFFIXES = (
    ".png",
    ".jpg",
    ".jpeg",
    ".tif",
    ".tiff",
    ".bmp",
    ".gif",
    ".webp",
    ".jp2",
    ".pbm",
    ".pgm",
    ".ppm",
    ".pnm",
)
DEFAULT_IMAGES = [f"*{suffix}" for suffix in IMAGE_SUFFIXES]
GT_SUFFIX = ".gt.txt"  # tesstrain's side-car ground truth: foo.png + foo.gt.txt

# What an id may hold (the case-file schema's id pattern).
ID_CHARS = re.compile(r"[^A-Za-z0-9_.\-]+")
ID_START = re.compile(r"[A-Za-z0-9_]")
ENGINE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


class DatasetError(OcrError):
    """The ``dataset:`` block cannot be used; ``option`` is the key to point at."""

    def __init__(self, option: str | None, message: str):
        super().__init__(message)
        self.option = option


@dataclass(frozen=True)
class Skipped:
    """An entry of the dataset that became no case."""

    file: str
    line: int | None
    reason: str

    def to_dict(self) -> dict:
        return {"file": self.file, "line": self.line, "reason": self.reason}

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}" if self.line else f"{self.file}: {self.reason}"


@dataclass
class Loaded:
    """What an adapter read: raw cases, engine declarations (name -> options, as in an
    ``engines:`` block) and skipped entries. Every entry considered is one or the other."""

    cases: list[dict] = field(default_factory=list)
    engines: dict[str, dict] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)

    @property
    def total(self) -> int:
        return len(self.cases) + len(self.skipped)


def unique_ids(names: list[tuple[str, str]]) -> list[str]:
    """Case ids for (name, source) pairs: the name (a relative path without its
    extension) with ``/`` as ``.`` and other characters an id cannot hold as ``_``.
    Names that clash get ``-`` and 8 hex digits of their source's SHA-1, so an id does
    not depend on which other entries the dataset has."""
    ids = [sanitize(name) for name, _ in names]
    clashing = {i for i, n in Counter(ids).items() if n > 1}
    out = [
        f"{i}-{hashlib.sha1(source.encode()).hexdigest()[:8]}" if i in clashing else i
        for i, (_, source) in zip(ids, names, strict=True)
    ]
    seen: set[str] = set()
    for index, case_id in enumerate(out):  # a hashed id equal to a plain one: vanishingly rare, still unique
        n = 2
        while out[index] in seen:
            out[index] = f"{case_id}-{n}"
            n += 1
        seen.add(out[index])
    return out


def engine_named(option: str, path: Path) -> str:
    """The engine whose outputs ``path`` holds: a folder's name, a file's without its extension
    (``model.csv``), if an engine may have that name; else a DatasetError on ``option``."""
    folder = path.is_dir()
    name = path.name if folder else path.stem
    if not ENGINE_NAME.fullmatch(name):
        named = "folder name" if folder else f"file name (without {path.suffix})"
        raise DatasetError(
            option,
            f"{path}: the {named} is the engine name and may only hold letters, digits, '_', '.' and '-'; "
            f"rename the {'folder' if folder else 'file'}",
        )
    return name


def sanitize(name: str) -> str:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    text = ID_CHARS.sub("_", ".".join(parts))
    return text if text and ID_START.match(text) else "_" + text


def stem_path(relative: str) -> str:
    """A relative path without its file extension: the basis of the case id."""
    head, _, tail = relative.rpartition("/")
    stem = tail.rsplit(".", 1)[0] if "." in tail.lstrip(".") else tail
    return f"{head}/{stem}" if head else stem


# -- shared helpers -------------------------------------------------------------------


def config_path(config: dict, option: str, base: Path) -> Path:
    return Path(os.path.normpath(base / config[option]))


def config_directory(config: dict, option: str, base: Path) -> Path:
    path = config_path(config, option, base)
    if not path.is_dir():
        raise DatasetError(option, f"{'not a directory' if path.exists() else 'directory not found'}: {path}")
    return path


def config_file(config: dict, option: str, base: Path) -> Path:
    path = config_path(config, option, base)
    try:
        check_regular(path, option.replace("_", " "))
    except UnreadableFile as exc:  # a directory, FIFO or device
        raise DatasetError(option, f"{exc.message}: {path}") from None
    except OSError:
        raise DatasetError(option, f"file not found: {path}") from None
    return path


def tree_of(config: dict, *roots: Path | None) -> Tree:
    """The dataset's folders (the block names them): every file it uses must be in them."""
    return Tree(
        [r for r in roots if r is not None],
        "the dataset's folder",
        "`follow_symlinks: true` in its dataset: block",
        bool(config.get("follow_symlinks")),
    )


def matches_any(relative: str, patterns: list[str]) -> bool:
    # Case-insensitive, and `*` also matches `/`: "*.png" finds PNGs at any depth.
    relative = relative.lower()
    return any(fnmatchcase(relative, pattern.lower()) for pattern in patterns)


def walk_files(root: Path, include: list[str], exclude: list[str]) -> Iterator[tuple[str, Path]]:
    """(path relative to root, path) of the files under root matching include and not
    exclude, in a stable order. Hidden files and directories (.ipynb_checkpoints, macOS's
    ._ files) are not part of a dataset."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(f for f in files if not f.startswith(".")):
            path = Path(directory, name)
            relative = path.relative_to(root).as_posix()
            if matches_any(relative, include) and not matches_any(relative, exclude):
                yield relative, path


def is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def read_text(path: Path, option: str, what: str) -> str:
    """A UTF-8 data file (a BOM is fine) within --ocr-max-file-mb; not a FIFO or device."""
    try:
        return decode_text(doc.read_bytes(path, what))
    except UnicodeDecodeError as exc:
        raise DatasetError(option, f"not UTF-8: {path} ({exc.reason} at byte {exc.start})") from None
    except (OSError, UnreadableFile) as exc:
        raise DatasetError(option, unreadable(exc, path)) from None


def ground_truth_problem(truth: Path) -> str | None:
    """Why a ground-truth file beside an image cannot be used: missing, or not a regular
    file (a FIFO would hang the item reading it). None when it is a file."""
    try:
        check_regular(truth, "ground truth file")
    except UnreadableFile as exc:
        return f"{exc.message}: {truth}"
    except OSError:
        return None if truth.is_file() else f"no ground truth: {truth} not found"
    return None


def case_dict(name: str, source: str, image: Path, **expected: object) -> dict:
    return {"id": name, "source": source, "image": str(image), "expected": expected}
