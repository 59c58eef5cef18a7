"""OmniDocBench (``omnidocbench``): its ground-truth JSON of page layouts, the page images, and
every other folder of ``.md`` files a system's stored outputs; one case per page.

The pages are also what a case file's ``expected: {layout_file: ...}`` names (``layout_page``,
which cases/inputs.py calls when the item runs). Both read the file as OmniDocBench's own
110 MB one must be read: by the json module a page at a time (``scan``), not through the
located loader of case files (media/document.py), whose line of every key took some 55 bytes
a byte of JSON. Each page is checked on its own (``page_problems``: what the scorer reads,
metrics/omnidocbench/truth.py, and what no data file may hold: nesting beyond
--ocr-max-nesting, NaN or infinite numbers), so a bad page is that page's problem, located
when it is reported. The format is OmniDocBench v1.5's (``page_info``, ``layout_dets``,
``extra.relation``); the scoring is metrics/omnidocbench/.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ... import limits
from ...errors import OcrError
from ...files import UnreadableFile, decode_text, unreadable
from ...media import document as doc
from ...metrics.omnidocbench.truth import Problems, check_page
from .common import (
    DatasetError,
    Loaded,
    Skipped,
    config_directory,
    config_file,
    engine_named,
    is_image,
    read_text,
    stem_path,
    tree_of,
    walk_files,
)

TAG_CHARS = re.compile(r"[^A-Za-z0-9_\-]+")


def page_name(page: dict) -> str:
    """The page's name, as OmniDocBench names it (its img_id): the image path's basename."""
    return os.path.basename(page["page_info"]["image_path"])


def page_tags(page: dict) -> list[str]:
    """The page's attributes as tags: ``language-english`` for ``language: english``, one per
    entry of a list (``special_issue-fuzzy_scan``), leaving out entries containing "table" as
    OmniDocBench's get_page_split does. Characters a tag cannot hold become ``_``."""
    tags = []
    for key, value in (page["page_info"].get("page_attribute") or {}).items():
        values = [v for v in value if "table" not in str(v)] if isinstance(value, list) else [value]
        tags += [_tag(f"{key}-{v}") for v in values]
    return list(dict.fromkeys(tags))


def _tag(text: str) -> str:
    tag = TAG_CHARS.sub("_", text)
    return tag if re.match(r"[A-Za-z_]", tag) else "_" + tag


# -- reading a ground-truth file a page at a time -------------------------------------------------

_DECODER = json.JSONDecoder()
NEWLINE = "\n"


class Malformed(OcrError):
    """A ground-truth file that is not JSON pages: the line (None: the file) and why."""

    def __init__(self, line: int | None, message: str) -> None:
        super().__init__(message)
        self.line = line

    def at(self, path: object) -> str:
        return f"{path}:{self.line}: {self.message}" if self.line else f"{path}: {self.message}"


@dataclass(frozen=True)
class Scanned:
    """One page of a ground-truth file: its index (None: the file is one page object), the
    line it starts on, its characters ``text[start:end]``, and its data, or ``unread``: why
    it could not be decoded (nested deeper than the json module reads)."""

    index: int | None
    line: int
    start: int
    end: int
    data: object = None
    unread: str | None = None


def scan(text: str, one_page: bool = False) -> Iterator[Scanned]:
    """The pages of ground-truth JSON ``text``: a list of pages, or with ``one_page`` also a
    single page object. Raises Malformed where the text is not that (a page that cannot be
    read for its nesting is one Scanned page with ``unread``, and the pages after it follow)."""
    position = _skip(text, 0)
    if one_page and text.startswith("{", position):
        page = _decode(text, position, None, _line(text, position))
        if _skip(text, page.end) != len(text):
            raise Malformed(_line(text, page.end), "malformed JSON: more after the page object")
        yield page
        return
    if not text.startswith("[", position):
        expected = "a page object or a list of pages" if one_page else "a JSON list of pages (OmniDocBench's format)"
        raise Malformed(None, f"expected {expected}")
    line, counted = 1, 0
    position = _skip(text, position + 1)
    index = 0
    while not text.startswith("]", position):
        line += text.count("\n", counted, position)
        counted = position
        page = _decode(text, position, index, line)
        yield page
        position = _skip(text, page.end)
        if text.startswith(",", position):
            position = _skip(text, position + 1)
        elif not text.startswith("]", position):
            raise Malformed(_line(text, position), "malformed JSON: expected ',' or ']' after a page")
        index += 1
    if _skip(text, position + 1) != len(text):
        raise Malformed(None, "malformed JSON: more after the list of pages")


def _decode(text: str, position: int, index: int | None, line: int) -> Scanned:
    try:
        page, end = _DECODER.raw_decode(text, position)
    except json.JSONDecodeError as exc:
        raise Malformed(exc.lineno, f"malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:  # deeper than the json module reads: read on after it
        return _unread(text, position, index, line, doc.nesting_message())
    except ValueError as exc:  # an integer of more digits than Python converts
        return _unread(text, position, index, line, doc.unconvertible_message(None, exc))
    return Scanned(index, line, position, end, page)


def _unread(text: str, position: int, index: int | None, line: int, why: str) -> Scanned:
    """A page the json module cannot decode, well-formed as far as its brackets go: skipped, the
    pages after it read on."""
    end = doc.json_value_end(text, position)
    if end is None:
        raise Malformed(line, "malformed JSON: a page that never ends")
    return Scanned(index, line, position, end, unread=why)


def _line(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def _skip(text: str, position: int) -> int:
    """The position of the next character that is not JSON whitespace."""
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def page_problems(page: Scanned) -> Problems:
    """Every problem of a scanned page, each at its key path within it: its nesting (counted
    as in its file: a page of a list is one level down) and numbers as every data file's
    (media/document.py), then what the scorer reads (check_page). Empty: it can be scored."""
    if page.unread is not None:
        return [((), page.unread)]
    found, _ = doc.value_problems(page.data, limits.active().max_nesting - (page.index is not None))
    first = dict(found)
    for keypath, message in check_page(page.data):
        first.setdefault(keypath, message)
    return list(first.items())


def located(text: str, page: Scanned, problems: Problems, path: object) -> list[str]:
    """``path:line: key: message`` for each problem of ``page`` (read from ``text``), the key
    path from the top of the file."""
    lines = []
    for keypath, message in problems:
        position = doc.json_position(text, keypath, page.start) if page.unread is None else page.start
        where = doc.format_keypath(keypath if page.index is None else (page.index, *keypath)) or "(top level)"
        lines.append(f"{path}:{page.line + text.count(NEWLINE, page.start, position)}: {where}: {message}")
    return lines


# -- a case's layout file ------------------------------------------------------------------------


class LayoutFileError(OcrError):
    """A layout file, or the page a case names in it, that cannot be used: located."""


@dataclass(frozen=True)
class _Index:
    """Where each page of a layout file is: what a process keeps of it, read once (a case
    reads its page's bytes again, so no page's data is kept)."""

    signature: tuple[int, ...]  # the file's device, inode, size and modification time when read
    one_page: str | None  # the file is one page object: its name ("" when it has none)
    pages: dict[str, tuple[int | None, int, int, int]]  # name -> index, line, first byte, end (the first of a name)
    count: int
    unread: tuple[str, ...]  # the pages that could not be decoded, each "[index] (line L): why"


_INDEXES: dict[str, _Index] = {}
_INDEXES_KEPT = 16
_LOCK = threading.Lock()
WHAT = "layout file"


def layout_page(path: Path, name: str | None, image: str) -> tuple[object, list[str]]:
    """The page of OmniDocBench ground truth a case takes from its layout file ``path``, and its
    problems, each a located line (none: it can be scored): ``name`` (``layout_page``) if
    given, else the page whose image has the case image's basename; a file of one page object
    is that page. Raises LayoutFileError (a file that cannot be read, is not JSON pages, or
    has no such page).

    The file is scanned once a process (while it is unchanged), keeping where each page is;
    each case then reads only its page. So a file of tens of megabytes costs what the json
    module takes to read it (about 2.6 bytes a byte), once, not once a case, and never the
    located loader's 55."""
    for _ in range(2):  # once more if the file changed since it was scanned
        index = _index(path)
        number, line, begin, end = _find(index, path, name, image)
        text = _read_range(path, index.signature, begin, end)
        if text is None:
            continue
        page = _decode(text, 0, number, line)
        data = page.data
        if page.unread is None and (
            number is not None and not (isinstance(data, dict) and _name_of(data) == (name or os.path.basename(image)))
        ):
            continue  # changed in place, keeping its size and time
        return data, located(text, page, page_problems(page), path)
    raise LayoutFileError(f"{path}: changed while it was read; run again")


def _index(path: Path) -> _Index:
    key = str(path)
    with _LOCK:
        try:
            info = os.stat(path)
        except OSError as exc:
            raise LayoutFileError(unreadable(exc, path, WHAT)) from None
        signature = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        known = _INDEXES.get(key)
        if known is not None and known.signature == signature and stat.S_ISREG(info.st_mode):
            return known
        index = _scanned(path, signature)
        if len(_INDEXES) >= _INDEXES_KEPT:
            _INDEXES.pop(next(iter(_INDEXES)))
        _INDEXES[key] = index
        return index


def _scanned(path: Path, signature: tuple[int, ...]) -> _Index:
    """The index of the file, read after ``signature`` was taken (a change while it is read
    shows as a new signature when a case reads its page: it is scanned again)."""
    try:
        data = doc.read_bytes(path, WHAT)
        text = decode_text(data)
    except UnicodeDecodeError as exc:
        raise LayoutFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (OSError, UnreadableFile) as exc:
        raise LayoutFileError(f"{path}: {unreadable(exc)}") from None
    first = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    del data  # the text is all that is needed: a byte offset is counted from it
    ascii_only = text.isascii()
    pages: dict[str, tuple[int | None, int, int, int]] = {}
    unread: list[str] = []
    count, one_page = 0, None
    at, byte = 0, first  # a character position and the byte it starts at
    try:
        for page in scan(text, one_page=True):
            count += 1
            begin = byte + (page.start - at if ascii_only else len(text[at : page.start].encode()))
            end = begin + (page.end - page.start if ascii_only else len(text[page.start : page.end].encode()))
            at, byte = page.end, end
            name = _name_of(page.data) if page.unread is None else None
            if page.index is None:
                one_page = name or ""
                pages[""] = (None, page.line, begin, end)
            elif name is not None:
                pages.setdefault(name, (page.index, page.line, begin, end))
            elif page.unread is not None:
                unread.append(f"[{page.index}] (line {page.line}): {page.unread}")
    except Malformed as exc:
        raise LayoutFileError(exc.at(path)) from None
    return _Index(signature, one_page, pages, count, tuple(unread))


def _name_of(page: object) -> str | None:
    """A page's name (its image's basename), as a case names it; None when it has none."""
    info = page.get("page_info") if isinstance(page, dict) else None
    return os.path.basename(str(info.get("image_path", ""))) if isinstance(info, dict) else None


def _find(index: _Index, path: Path, name: str | None, image: str) -> tuple[int | None, int, int, int]:
    """Where the case's page is; raises LayoutFileError when the file has no such page."""
    if index.one_page is not None:
        if name is not None and index.one_page not in ("", name):  # a page without a name: its problem says so
            raise LayoutFileError(f"{path}:1: layout_page {name!r}: the file's one page is {index.one_page!r}")
        return index.pages[""]
    wanted = name if name is not None else os.path.basename(image)
    if wanted in index.pages:
        return index.pages[wanted]
    how = "layout_page" if name is not None else "the case's image"
    unread = f"; {len(index.unread)} could not be read, first {index.unread[0]}" if index.unread else ""
    raise LayoutFileError(
        f"{path}:1: no page whose page_info.image_path is {wanted!r} ({how}) among its {index.count} pages{unread}"
    )


def _read_range(path: Path, signature: tuple[int, ...], begin: int, end: int) -> str | None:
    """The text of bytes ``begin`` to ``end`` of the file, if it is still the file scanned."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise LayoutFileError(unreadable(exc, path, WHAT)) from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) != signature or not stat.S_ISREG(info.st_mode):
            return None
        data = os.pread(fd, end - begin, begin)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# -- the dataset -------------------------------------------------------------------------------


def omnidocbench(config: dict, base: Path) -> Loaded:
    """OmniDocBench's layout: the ground-truth JSON (``ground_truth``; default the one .json
    file in ``path``), the page images (``images``, default ``path/images``), and every other
    folder of ``path`` holding ``.md`` files a system's stored outputs (an
    ``omnidocbench-outputs`` engine named after the folder). One case per page, carrying its
    page of ground truth; ``filter`` keeps the pages whose page attributes equal it, as
    OmniDocBench's does. A page that is not well-formed, has no image or repeats another's
    image is skipped with the file, its index and the reason."""
    root = config_directory(config, "path", base)
    truth = _ground_truth(config, root, base)
    images = config_directory(config, "images", root) if "images" in config else root / "images"
    if not images.is_dir():
        raise DatasetError("images", f"no images/ folder in {root} (or name the page images' folder with images:)")
    tree = tree_of(config, root, images)
    escape = tree.outside(truth) if truth.parent == root else None
    if escape is not None:
        raise DatasetError("ground_truth", escape)
    loaded = Loaded()
    found: dict[str, Path] = {}
    for relative, image in walk_files(images, ["*"], []):
        if "/" not in relative and is_image(image):
            escape = tree.outside(image)
            if escape is None:
                found[relative] = image
            else:
                loaded.skipped.append(Skipped(str(image), None, escape))
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p != images and p.name[0] != "."):
        if not any(name.endswith((".md", ".mmd")) for name in os.listdir(folder)):
            continue  # not a system's outputs (OmniDocBench's own result/ folder, say)
        escape = tree.outside(folder)
        if escape is not None:
            raise DatasetError("path", escape)
        name = engine_named("path", folder)
        loaded.engines[name] = {"type": "omnidocbench-outputs", "path": os.path.relpath(folder, base)}
        if tree.follow_symlinks:
            loaded.engines[name]["follow_symlinks"] = True
    wanted = config.get("filter") or {}
    taken: dict[str, int | None] = {}
    text = read_text(truth, "ground_truth", "ground truth file")
    try:
        for scanned in scan(text):
            index, line, page = scanned.index, scanned.line, scanned.data
            problems = page_problems(scanned)
            if problems:  # the page's own problem: the others run
                keypath, message = problems[0]
                where = doc.format_keypath((index, *keypath))
                more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
                loaded.skipped.append(Skipped(str(truth), line, f"{where}: {message}{more}"))
                continue
            assert isinstance(page, dict)  # check_page said so
            attributes = page["page_info"].get("page_attribute") or {}
            if any(attributes.get(k) != v for k, v in wanted.items()):
                continue  # not asked for: OmniDocBench's filter leaves it out silently
            name = page_name(page)
            if name in taken:
                again = f"[{index}]: the image {name} is also [{taken[name]}]'s"
                loaded.skipped.append(Skipped(str(truth), line, again))
                continue
            picture = found.get(name)
            if picture is None:
                loaded.skipped.append(Skipped(str(truth), line, f"[{index}]: no image {name} in {images}"))
                continue
            taken[name] = index
            loaded.cases.append(
                {
                    "id": stem_path(name),
                    "source": f"{truth}:{line}",
                    "image": str(picture),
                    "layout": page,
                    "tags": page_tags(page),
                }
            )
    except Malformed as exc:
        raise DatasetError("ground_truth", exc.at(truth)) from None
    return loaded


def _ground_truth(config: dict, root: Path, base: Path) -> Path:
    if "ground_truth" in config:
        return config_file(config, "ground_truth", base)
    candidates = sorted(p.name for p in root.iterdir() if p.suffix.lower() == ".json" and p.is_file())
    if len(candidates) != 1:
        named = f"{len(candidates)}: {', '.join(candidates)}" if candidates else "none"
        raise DatasetError(
            "path", f"expected one ground-truth .json file in {root}, found {named}; name it with ground_truth:"
        )
    return root / candidates[0]
