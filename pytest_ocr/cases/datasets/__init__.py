"""Whole datasets as cases: a suite file's ``dataset:`` block, read by one adapter per layout.

An adapter is a pure function of the block and the suite file's directory. It returns
raw cases in the shape of a suite's ``cases:`` entries (``id``, ``image``, ``expected``,
``group``; plus ``source``, the data file and line a case comes from, and
``min_confidence``), the engines the dataset declares (``model-csv``: one
``predictions`` engine per CSV file), and the entries it skipped, each with its file,
line and reason. A skipped entry is not an error: datasets have holes (an image without
ground truth, a malformed label line), and the run reports how many and why.

Problems with the block itself (a label file or directory that does not exist) raise
DatasetError naming the option, which the loader locates in the suite file.

Layout XML (PAGE, ALTO, hOCR) and METS are untrusted input: parsed with defusedxml, which refuses
entity declarations instead of expanding them. So are the paths data files name and the
links in a dataset's folders: a file a dataset uses must be in the folders its block names
(files.Tree), else its entry is skipped, naming the path (and the file and line that named
it) or the link that leads out; ``follow_symlinks: true`` lets links lead out.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

import defusedxml
from defusedxml import ElementTree as SafeET

from ..errors import OcrError
from ..files import Tree, UnreadableFile, check_regular, decode_text, unreadable
from ..media import document as doc
from ..metrics.facts import FactError, parse_fact

TYPES = (
    "pairs",
    "paddle",
    "ground-truth-json",
    "model-csv",
    "page-xml",
    "alto",
    "hocr",
    "ocrd-workspace",
    "olmocr-bench",
)

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
_ID_CHARS = re.compile(r"[^A-Za-z0-9_.\-]+")
_ID_START = re.compile(r"[A-Za-z0-9_]")
_ENGINE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


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


def load(config: dict, base: Path) -> Loaded:
    """The cases of a (schema-valid) ``dataset:`` block, with unique valid ids, sorted;
    paths relative to ``base``, the suite file's directory. Raises DatasetError."""
    loaded = ADAPTERS[config["type"]](config, base)
    for raw, case_id in zip(
        loaded.cases, unique_ids([(raw["id"], raw["source"]) for raw in loaded.cases]), strict=True
    ):
        raw["id"] = case_id
    loaded.cases.sort(key=lambda raw: raw["id"])
    loaded.skipped.sort(key=lambda s: (s.file, s.line or 0))
    return loaded


def unique_ids(names: list[tuple[str, str]]) -> list[str]:
    """Case ids for (name, source) pairs: the name (a relative path without its
    extension) with ``/`` as ``.`` and other characters an id cannot hold as ``_``.
    Names that clash get ``-`` and 8 hex digits of their source's SHA-1, so an id does
    not depend on which other entries the dataset has."""
    ids = [_sanitize(name) for name, _ in names]
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


def _sanitize(name: str) -> str:
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    text = _ID_CHARS.sub("_", ".".join(parts))
    return text if text and _ID_START.match(text) else "_" + text


def _name(relative: str) -> str:
    """A relative path without its file extension: the basis of the case id."""
    head, _, tail = relative.rpartition("/")
    stem = tail.rsplit(".", 1)[0] if "." in tail.lstrip(".") else tail
    return f"{head}/{stem}" if head else stem


# -- shared helpers -------------------------------------------------------------------


def _path(config: dict, option: str, base: Path) -> Path:
    return Path(os.path.normpath(base / config[option]))


def _directory(config: dict, option: str, base: Path) -> Path:
    path = _path(config, option, base)
    if not path.is_dir():
        raise DatasetError(option, f"{'not a directory' if path.exists() else 'directory not found'}: {path}")
    return path


def _file(config: dict, option: str, base: Path) -> Path:
    path = _path(config, option, base)
    try:
        check_regular(path, option.replace("_", " "))
    except UnreadableFile as exc:  # a directory, FIFO or device
        raise DatasetError(option, f"{exc.message}: {path}") from None
    except OSError:
        raise DatasetError(option, f"file not found: {path}") from None
    return path


def _tree(config: dict, *roots: Path | None) -> Tree:
    """The dataset's folders (the block names them): every file it uses must be in them."""
    return Tree(
        [r for r in roots if r is not None],
        "the dataset's folder",
        "`follow_symlinks: true` in its dataset: block",
        bool(config.get("follow_symlinks")),
    )


def _matches(relative: str, patterns: list[str]) -> bool:
    # Case-insensitive, and `*` also matches `/`: "*.png" finds PNGs at any depth.
    relative = relative.lower()
    return any(fnmatchcase(relative, pattern.lower()) for pattern in patterns)


def _walk(root: Path, include: list[str], exclude: list[str]) -> Iterator[tuple[str, Path]]:
    """(path relative to root, path) of the files under root matching include and not
    exclude, in a stable order. Hidden files and directories (.ipynb_checkpoints, macOS's
    ._ files) are not part of a dataset."""
    for directory, subdirectories, files in os.walk(root):
        subdirectories[:] = sorted(d for d in subdirectories if not d.startswith("."))
        for name in sorted(f for f in files if not f.startswith(".")):
            path = Path(directory, name)
            relative = path.relative_to(root).as_posix()
            if _matches(relative, include) and not _matches(relative, exclude):
                yield relative, path


def _is_image(path: Path) -> bool:
    return path.suffix.lower() in IMAGE_SUFFIXES


def _read_text(path: Path, option: str, what: str) -> str:
    """A UTF-8 data file (a BOM is fine) within --ocr-max-file-mb; not a FIFO or device."""
    try:
        return decode_text(doc.read_bytes(path, what))
    except UnicodeDecodeError as exc:
        raise DatasetError(option, f"not UTF-8: {path} ({exc.reason} at byte {exc.start})") from None
    except (OSError, UnreadableFile) as exc:
        raise DatasetError(option, unreadable(exc, path)) from None


def _ground_truth_problem(truth: Path) -> str | None:
    """Why a ground-truth file beside an image cannot be used: missing, or not a regular
    file (a FIFO would hang the item reading it). None when it is a file."""
    try:
        check_regular(truth, "ground truth file")
    except UnreadableFile as exc:
        return f"{exc.message}: {truth}"
    except OSError:
        return None if truth.is_file() else f"no ground truth: {truth} not found"
    return None


def _case(name: str, source: str, image: Path, **expected: object) -> dict:
    return {"id": name, "source": source, "image": str(image), "expected": expected}


# -- pairs: image + side-car .gt.txt ------------------------------------------------------


def pairs(config: dict, base: Path) -> Loaded:
    """Every image under ``path`` (``include``/``exclude`` globs) with its ``.gt.txt``."""
    root = _directory(config, "path", base)
    tree = _tree(config, root)
    loaded = Loaded()
    for relative, image in _walk(root, config.get("include", DEFAULT_IMAGES), config.get("exclude", [])):
        truth = image.with_name(_name(image.name) + GT_SUFFIX)
        problem = tree.outside(image) or tree.outside(truth)
        if problem is None and not os.path.lexists(truth):
            problem = f"no ground truth: {truth.name} not found next to it"
        problem = problem or _ground_truth_problem(truth)
        if problem is None:
            loaded.cases.append(_case(_name(relative), str(image), image, text_file=str(truth)))
        else:
            loaded.skipped.append(Skipped(str(image), None, problem))
    return loaded


# -- paddle: PaddleOCR label files ----------------------------------------------------


def paddle(config: dict, base: Path) -> Loaded:
    """``image_path<TAB>label`` lines. Blank lines are not entries; malformed lines,
    missing images and repeated images are skipped; ``max_images`` stops after that many
    cases. A label that is PaddleOCR's detection format (a JSON list of
    ``{"transcription": ..., "points": ...}``) gives the legible transcriptions, one per line."""
    label_file = _file(config, "label_file", base)
    images = _directory(config, "images", base) if "images" in config else label_file.parent
    tree = _tree(config, images)
    limit = config.get("max_images")
    minimum = config.get("conf_threshold")
    loaded = Loaded()
    first_line: dict[str, int] = {}
    text = _read_text(label_file, "label_file", "label file")
    for number, line in enumerate(text.split("\n"), start=1):
        if limit is not None and len(loaded.cases) >= limit:
            break
        line = line.rstrip("\r")
        if not line.strip():
            continue

        def skip(reason: str, number: int = number) -> None:
            loaded.skipped.append(Skipped(str(label_file), number, reason))

        if "\t" not in line:
            skip("no tab between the image path and the label")
            continue
        path, label = line.split("\t", 1)
        path = path.strip()
        if not path:
            skip("empty image path")
            continue
        try:
            label = _detection_label(label)
        except doc.NestingError as exc:
            skip(f"label of {path}: {exc}")
            continue
        if not label.strip():
            skip(f"empty label for {path}")
            continue
        key = Path(path).as_posix()
        if key in first_line:
            skip(f"{path} is already listed on line {first_line[key]}")
            continue
        first_line[key] = number
        image = Path(os.path.normpath(images / path))
        escape = tree.outside(image)
        if escape is not None:
            skip(f"image path {path}: {escape}")
            continue
        if not image.is_file():
            skip(f"image not found: {image}")
            continue
        raw = _case(_name(key), f"{label_file}:{number}", image, text=label)
        if minimum is not None:
            raw["min_confidence"] = minimum
        loaded.cases.append(raw)
    return loaded


def _detection_label(label: str) -> str:
    if not label.lstrip().startswith("["):
        return label
    try:
        boxes = doc.json_value(label)
    except doc.NestingError:
        raise
    except ValueError:
        return label  # a recognition label that happens to start with "["
    if not (
        isinstance(boxes, list)
        and boxes
        and all(isinstance(b, dict) and isinstance(b.get("transcription"), str) for b in boxes)
    ):
        return label
    # "###" marks an illegible box in PaddleOCR's datasets: not ground truth.
    return "\n".join(b["transcription"] for b in boxes if b["transcription"] != "###")


# -- ground-truth-json: datasets/NAME/{images/, ground_truth.json} ----------------------


def ground_truth_json(config: dict, base: Path) -> Loaded:
    """``ground_truth.json`` maps an image file name (under ``images/``) to
    ``{"full_text": ..., "fields": {...}}``, either or both."""
    root = _directory(config, "path", base)
    truth_file, images = root / "ground_truth.json", root / "images"
    if not os.path.lexists(truth_file):  # anything else there is read (or refused) as a data file
        raise DatasetError("path", f"no ground_truth.json in {root}")
    if not images.is_dir():
        raise DatasetError("path", f"no images/ directory in {root}")
    tree = _tree(config, root)
    escape = tree.outside(truth_file)
    if escape is not None:
        raise DatasetError("path", escape)
    try:
        document = doc.load(truth_file, "ground truth file")
    except doc.DocumentError as exc:
        raise DatasetError("path", exc.summary()) from None
    if not isinstance(document.data, dict):
        raise DatasetError("path", f"{truth_file}: expected an object mapping image names to ground truth")
    loaded = Loaded()
    for name, entry in document.data.items():
        line = document.line_of((name,))

        def skip(reason: str, line: int | None = line) -> None:
            loaded.skipped.append(Skipped(str(truth_file), line, reason))

        if not isinstance(entry, dict):
            skip(f"{name}: expected an object with full_text and/or fields")
            continue
        unknown = sorted(set(entry) - {"full_text", "fields"})
        text, fields = entry.get("full_text"), entry.get("fields")
        image = Path(os.path.normpath(images / name))
        if unknown:
            skip(f"{name}: unknown key {unknown[0]!r} (allowed: full_text, fields)")
        elif text is not None and not isinstance(text, str):
            skip(f"{name}: full_text must be a string")
        elif fields is not None and not isinstance(fields, dict):
            skip(f"{name}: fields must be an object")
        elif text is None and not fields:
            skip(f"{name}: no full_text and no fields")
        elif (escape := tree.outside(image)) is not None:
            skip(f"{name}: {escape}")
        elif not image.is_file():
            skip(f"image not found: {image}")
        else:
            expected: dict[str, object] = {"text": text} if text is not None else {}
            if fields:
                expected["fields"] = fields
            loaded.cases.append(_case(_name(Path(name).as_posix()), f"{truth_file}:{line}", image, **expected))
    return loaded


# -- model-csv: images/{batch_id}/{image_name} + one predictions CSV per model -----------


def model_csv(config: dict, base: Path) -> Loaded:
    """The benchmark's images in batch directories, ground truth as ``{stem}.gt.txt``
    beside each image or ``{ground_truth}/{batch_id}/{stem}.txt``, and every ``*.csv`` in
    ``models`` a ``predictions`` engine named after the file. A case's group is its batch."""
    images = _directory(config, "images", base)
    models = _directory(config, "models", base)
    truth_root = _directory(config, "ground_truth", base) if "ground_truth" in config else None
    tree = _tree(config, images, models, truth_root)
    loaded = Loaded()
    for csv_file in sorted(p for p in models.iterdir() if p.suffix.lower() == ".csv" and p.is_file()):
        escape = tree.outside(csv_file)
        if escape is not None:
            raise DatasetError("models", escape)
        if not _ENGINE_NAME.fullmatch(csv_file.stem):
            raise DatasetError(
                "models",
                f"{csv_file}: the file name (without .csv) is the engine name and may "
                "only hold letters, digits, '_', '.' and '-'; rename the file",
            )
        loaded.engines[csv_file.stem] = {"type": "predictions", "path": os.path.relpath(csv_file, base)}
    if not loaded.engines:
        raise DatasetError("models", f"no .csv files in {models} (one per model: image_name,batch_id,inference)")
    visible = (p for p in images.iterdir() if not p.name.startswith("."))
    for entry in sorted(visible):
        if entry.is_file() and _is_image(entry):
            loaded.skipped.append(
                Skipped(str(entry), None, "not in a batch directory (expected images/{batch_id}/{image_name})")
            )
        if not entry.is_dir():
            continue
        batch = entry.name
        for image in sorted(p for p in entry.iterdir() if p.is_file() and _is_image(p) and p.name[0] != "."):
            stem = _name(image.name)
            truth = (truth_root / batch / f"{stem}.txt") if truth_root else image.with_name(stem + GT_SUFFIX)
            problem = tree.outside(image) or tree.outside(truth) or _ground_truth_problem(truth)
            if problem is not None:
                loaded.skipped.append(Skipped(str(image), None, problem))
                continue
            raw = _case(f"{batch}/{stem}", str(image), image, text_file=str(truth))
            raw["group"] = _sanitize(batch)
            loaded.cases.append(raw)
    return loaded


# -- layout XML: PAGE, ALTO, hOCR -------------------------------------------------------

LAYOUT_SUFFIXES = (".page", ".alto", ".hocr", ".xml", ".html", ".xhtml")
HOCR_LINES = {"ocr_line", "ocr_textfloat", "ocr_header", "ocr_caption"}
_HOCR_IMAGE = re.compile(r'(?:^|;)\s*image\s+(?:"([^"]+)"|([^;\s]+))')  # title='image "scan.png"; bbox ...'


class _Unusable(Exception):
    """A layout file that gives no case: the reason, and its line when known."""

    def __init__(self, reason: str, line: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line


def _local(element: Element) -> str:
    tag = element.tag
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _children(element: Element, name: str) -> list[Element]:
    return [child for child in element if _local(child) == name]


def _descendants(element: Element, name: str) -> list[Element]:
    return [e for e in element.iter() if _local(e) == name]


class _Lines(TreeBuilder):
    """ElementTree's builder, noting the line each element starts on, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[int] = []
        self.expat: Any = None  # the parser's expat parser, which knows the line

    def start(self, tag: Any, attrs: Any) -> Element:
        self.lines.append(self.expat.CurrentLineNumber)
        return super().start(tag, attrs)


@dataclass
class _Xml:
    """A parsed file, and the line an element starts on when a message names one: found
    by parsing the file again, as noting it for every element would double every parse."""

    root: Element
    data: bytes
    _lines: list[int] | None = None
    _order: dict[int, int] | None = None  # id(element) -> its place in document order

    def line(self, element: Element | None) -> int | None:
        if element is None:
            return None
        if self._lines is None or self._order is None:
            builder = _Lines()
            parser = SafeET.DefusedXMLParser(target=builder)
            builder.expat = parser.parser
            parser.feed(self.data)
            parser.close()
            self._lines = builder.lines
            self._order = {id(e): i for i, e in enumerate(self.root.iter())}
        place = self._order.get(id(element))
        return self._lines[place] if place is not None else None


def _parse(path: Path) -> _Xml:
    """A layout file's elements; read within --ocr-max-file-mb (not a FIFO or device)."""
    try:
        data = doc.read_bytes(path, "layout file")
        root = SafeET.fromstring(data)
        assert root is not None  # a parsed document has a root element, or fromstring() raised
        return _Xml(root, data)
    except UnreadableFile as exc:
        raise _Unusable(exc.message) from None
    except ParseError as exc:
        raise _Unusable(f"not well-formed XML: {exc}", exc.position[0]) from None
    except defusedxml.DefusedXmlException as exc:
        raise _Unusable(f"refused: {exc} (entity declarations and external references are not read)") from None
    except OSError as exc:
        raise _Unusable(f"cannot read: {exc.strerror}") from None


def _blocks(regions: list[list[str]]) -> str:
    """Lines joined with newlines, regions separated by a blank line; empty ones left out."""
    blocks = ("\n".join(line for line in lines if line) for lines in regions)
    return "\n\n".join(block for block in blocks if block)


def _text_equiv(element: Element) -> str:
    """The element's own TextEquiv/Unicode; of several, the one with the lowest index."""
    equivs = _children(element, "TextEquiv")
    if not equivs:
        return ""

    def index(equiv: Element) -> tuple:
        value = equiv.get("index")
        try:
            return (0, int(value)) if value is not None else (1, 0)
        except ValueError:
            raise _Unusable(f"TextEquiv index {value!r} is not a number") from None

    unicode = _children(min(equivs, key=index), "Unicode")
    return (unicode[0].text or "").strip() if unicode else ""


def _page_regions(page: Element) -> list[Element]:
    """TextRegions in the ReadingOrder (groups ordered by index, unordered groups as
    written), then those it does not name, in document order."""
    regions = _descendants(page, "TextRegion")
    by_id = {r.get("id"): r for r in regions}
    ordered: list[Element] = []

    def walk(group: Element) -> None:
        if group.get("regionRef") in by_id:
            ordered.append(by_id[group.get("regionRef")])
        members = [c for c in group if _local(c) in ("RegionRef", "RegionRefIndexed") or "Group" in _local(c)]
        if _local(group).startswith("Ordered"):
            try:
                members.sort(key=lambda c: int(c.get("index", "")))
            except ValueError:
                raise _Unusable(
                    f"ReadingOrder group {group.get('id')!r}: an index is missing or not a number"
                ) from None
        for member in members:
            if "Group" in _local(member):
                walk(member)
            elif member.get("regionRef") in by_id:
                ordered.append(by_id[member.get("regionRef")])

    for reading_order in _children(page, "ReadingOrder"):
        for group in reading_order:
            walk(group)
    seen: set[int] = set()
    unique = []
    for r in ordered:
        if id(r) not in seen:
            seen.add(id(r))
            unique.append(r)
    return unique + [r for r in regions if id(r) not in seen]


def _page(root: Element, level: str) -> tuple[str, str, Element | None]:
    if _local(root) != "PcGts":
        raise _Unusable(f"not a PAGE document (root element {_local(root)!r}, expected PcGts)")
    pages = _children(root, "Page")
    if len(pages) != 1:
        raise _Unusable(f"{len(pages)} Page elements; PAGE has exactly one")
    regions = _page_regions(pages[0])
    if level == "region":
        text = _blocks([[_text_equiv(r)] for r in regions])
    else:
        text = _blocks([[_text_equiv(line) for line in _children(r, "TextLine")] for r in regions])
    return text, pages[0].get("imageFilename", ""), pages[0]


def _alto(root: Element, level: str) -> tuple[str, str, Element | None]:
    if _local(root) != "alto":
        raise _Unusable(f"not an ALTO document (root element {_local(root)!r}, expected alto)")
    pages = _descendants(root, "Page")
    if len(pages) != 1:
        raise _Unusable(f"{len(pages)} Page elements; one image per ALTO file is expected")
    names = [e for e in _descendants(root, "sourceImageInformation") for e in _children(e, "fileName")]

    def line_text(line: Element) -> str:
        words: list[str] = []
        for child in line:
            content = child.get("CONTENT", "")
            if _local(child) == "String":
                words.append(content)
            elif _local(child) == "HYP" and words:  # the hyphen at the line's end belongs to the last word
                words[-1] += content
        return " ".join(w for w in words if w)

    blocks = _descendants(pages[0], "TextBlock")
    text = _blocks([[line_text(line) for line in _children(block, "TextLine")] for block in blocks])
    return text, (names[0].text or "").strip() if names else "", names[0] if names else None


def _classes(element: Element) -> set[str]:
    return set(element.get("class", "").split())


def _hocr(root: Element, level: str) -> tuple[str, str, Element | None]:
    pages = [e for e in root.iter() if "ocr_page" in _classes(e)]
    if len(pages) != 1:
        raise _Unusable(
            f"{len(pages)} ocr_page elements; one page per hOCR file is expected"
            if pages
            else "not an hOCR document (no ocr_page element)"
        )
    page = pages[0]
    regions = (
        [e for e in page.iter() if "ocr_par" in _classes(e)]
        or [e for e in page.iter() if "ocr_carea" in _classes(e)]
        or [page]
    )

    def line_text(line: Element) -> str:
        words = [e for e in line.iter() if "ocrx_word" in _classes(e)]
        pieces = ["".join(w.itertext()).strip() for w in words] if words else "".join(line.itertext()).split()
        return " ".join(p for p in pieces if p)

    text = _blocks([[line_text(e) for e in r.iter() if _classes(e) & HOCR_LINES] for r in regions])
    match = _HOCR_IMAGE.search(page.get("title", ""))
    return text, (match.group(1) or match.group(2)) if match else "", page


LayoutReader = Callable[[Element, str], tuple[str, str, Element | None]]  # text, image named, the element naming it
_WHERE_IMAGE = {
    "page-xml": "Page/@imageFilename",
    "alto": "sourceImageInformation/fileName",
    "hocr": "the ocr_page title's image",
}


def _layout_stems(name: str) -> list[str]:
    """Stems an image beside a layout file may have: 'a.page.xml' -> ['a.page', 'a']."""
    stem = _name(name)
    stems = [stem]
    while Path(stem).suffix.lower() in LAYOUT_SUFFIXES:
        stem = stem[: -len(Path(stem).suffix)]
        stems.append(stem)
    return stems


def _layout(reader: LayoutReader, default_include: list[str]) -> Callable[[dict, Path], Loaded]:
    def adapter(config: dict, base: Path) -> Loaded:
        root = _directory(config, "path", base)
        image_dir = _directory(config, "image_dir", base) if "image_dir" in config else None
        # an OCR-D workspace around the files: the images they name may be anywhere in it
        tree = _tree(config, root, image_dir, _workspace(root))
        level = config.get("level", "line")
        loaded = Loaded()
        for relative, path in _walk(root, config.get("include", default_include), config.get("exclude", [])):
            stems = _layout_stems(path.name)
            try:
                escape = tree.outside(path)
                if escape is not None:
                    raise _Unusable(escape)
                xml = _parse(path)
                text, reference, naming = reader(xml.root, level)
                if not text.strip():
                    raise _Unusable(f"no text at level {level}" if config["type"] == "page-xml" else "no text")
                named = _Named(reference, _WHERE_IMAGE[config["type"]], xml.line(naming))
                image = _layout_image(path, relative, stems, named, image_dir, tree)
            except _Unusable as exc:
                loaded.skipped.append(Skipped(str(path), exc.line, exc.reason))
                continue
            except RecursionError:  # groups nested deeper than the readers' recursion goes
                loaded.skipped.append(Skipped(str(path), None, "elements nested too deeply to read"))
                continue
            folder = relative.rpartition("/")[0]
            loaded.cases.append(_case(f"{folder}/{stems[-1]}" if folder else stems[-1], str(path), image, text=text))
        return loaded

    return adapter


@dataclass(frozen=True)
class _Named:
    """A path a layout file names: as written, where (which element or attribute), its line."""

    path: str
    where: str
    line: int | None

    def outside(self, problem: str, hint: bool) -> _Unusable:
        how = "; a `path` that holds the images too, or image_dir, takes images from elsewhere" if hint else ""
        return _Unusable(f"{self.where} {self.path!r}: {problem}{how}", self.line)


def _layout_image(
    path: Path, relative: str, stems: list[str], named: _Named, image_dir: Path | None, tree: Tree
) -> Path:
    """With image_dir: the image there (mirroring the layout file's folder) with the
    layout file's stem; else the image the file names, relative to the file or, in an
    OCR-D workspace, to the workspace."""
    if image_dir is not None:
        folder = image_dir / relative.rpartition("/")[0]
        for stem in stems:
            for suffix in IMAGE_SUFFIXES:
                for candidate in (folder / (stem + suffix), folder / (stem + suffix.upper())):
                    if candidate.is_file():
                        escape = tree.outside(candidate)
                        if escape is not None:
                            raise _Unusable(escape)
                        return candidate
        raise _Unusable(f"no image named {stems[-1]}.* ({', '.join(IMAGE_SUFFIXES)}) in {folder}")
    if not named.path:
        raise _Unusable(f"names no image ({named.where}); set image_dir")
    image = Path(os.path.normpath(path.parent / named.path))
    candidates = [image]
    workspace = _workspace(path.parent)
    if workspace is not None and workspace != path.parent:
        # OCR-D: file paths are relative to the workspace (the METS file's folder)
        candidates.append(Path(os.path.normpath(workspace / named.path)))
    escapes = [tree.outside(c) for c in candidates]
    for candidate, escape in zip(candidates, escapes, strict=True):
        if escape is None and candidate.is_file():
            return candidate
    if escapes[-1] is not None:  # not in the workspace either: an image outside the dataset is never looked at
        raise named.outside(escapes[-1], hint=not tree.holds(candidates[-1]))
    tried = f", nor in the OCR-D workspace: {candidates[1]}" if len(candidates) > 1 else ""
    raise _Unusable(
        f"image not found: {image} (named by {named.where}){tried}; "
        "set image_dir to take the image with the same stem from a directory",
        named.line,
    )


def _workspace(folder: Path) -> Path | None:
    """The OCR-D workspace a folder is in: the nearest folder with a mets.xml, it or above it."""
    for candidate in (folder, *folder.parents):
        if (candidate / "mets.xml").is_file():
            return candidate
    return None


# -- ocrd-workspace: METS file groups and physical pages ----------------------------------

_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"


def _mets_files(mets: Element) -> dict[str, dict[str, Element]]:
    """The METS file groups: USE -> file ID -> its mets:file element."""
    groups: dict[str, dict[str, Element]] = {}
    for group in _descendants(mets, "fileGrp"):
        files = groups.setdefault(group.get("USE") or "", {})
        for file in _children(group, "file"):
            files[file.get("ID") or ""] = file
    return groups


def _mets_pages(mets: Element, where: Path) -> list[Element]:
    """The physical pages (structMap TYPE=PHYSICAL, div TYPE=page), by ORDER where given."""
    maps = [m for m in _descendants(mets, "structMap") if (m.get("TYPE") or "").upper() == "PHYSICAL"]
    if not maps:
        raise DatasetError("path", f'{where}: no physical structure map (mets:structMap TYPE="PHYSICAL")')
    pages = [d for d in _descendants(maps[0], "div") if (d.get("TYPE") or "").lower() == "page"]

    def order(page: Element) -> int:
        value = page.get("ORDER", "")
        return int(value) if value.isdigit() else 0

    return sorted(pages, key=order) if all(p.get("ORDER", "").isdigit() for p in pages) else pages


def _mets_path(file: Element, workspace: Path, mets: _Xml, tree: Tree) -> Path:
    """Where a mets:file is: its FLocat's href, relative to the workspace or a file: URL;
    in the workspace (``tree``), or _Unusable at the FLocat's line."""
    locations = [loc for loc in _children(file, "FLocat") if loc.get(_XLINK_HREF)]
    if not locations:
        raise _Unusable(f"file {file.get('ID')!r} has no FLocat with an xlink:href", mets.line(file))
    href, line = locations[0].get(_XLINK_HREF) or "", mets.line(locations[0])
    parsed = urlparse(href)
    if parsed.scheme in ("http", "https", "ftp"):
        raise _Unusable(
            f"file {file.get('ID')!r} is remote ({href}); pytest-ocr does not download, fetch it first", line
        )
    path = Path(os.path.normpath(unquote(parsed.path) if parsed.scheme == "file" else workspace / href))
    escape = tree.outside(path)
    if escape is not None:
        raise _Unusable(f"file {file.get('ID')!r}: xlink:href {href!r}: {escape}", line)
    return path


def ocrd_workspace(config: dict, base: Path) -> Loaded:
    """One case per physical page of an OCR-D workspace: the ground truth of file group
    ``gt`` (PAGE or ALTO) and the image of file group ``images`` that the page points at."""
    workspace = _directory(config, "path", base)
    tree = _tree(config, workspace)
    mets_path = workspace / config.get("mets", "mets.xml")
    escape = tree.outside(mets_path)
    if escape is not None:
        raise DatasetError("mets" if "mets" in config else "path", escape)
    if not mets_path.is_file():
        raise DatasetError("path", f"no {mets_path.name} in {workspace}: an OCR-D workspace has its METS file there")
    try:
        xml = _parse(mets_path)
    except _Unusable as exc:
        raise DatasetError("path", f"{mets_path}{f':{exc.line}' if exc.line else ''}: {exc.reason}") from None
    mets = xml.root
    if _local(mets) != "mets":
        raise DatasetError("path", f"{mets_path}: not a METS document (root element {_local(mets)!r}, expected mets)")
    groups = _mets_files(mets)
    wanted = {
        option: config.get(option, default) for option, default in (("gt", "OCR-D-GT-PAGE"), ("images", "OCR-D-IMG"))
    }
    for option, use in wanted.items():
        if use not in groups:
            have = ", ".join(sorted(g for g in groups if g)) or "none"
            raise DatasetError(option, f"no file group {use!r} in {mets_path}; its file groups: {have}")
    level = config.get("level", "line")
    loaded = Loaded()
    for number, page in enumerate(_mets_pages(mets, mets_path), 1):
        page_id = page.get("ID") or f"page-{number}"
        pointed = [fptr.get("FILEID") or "" for fptr in _children(page, "fptr")]
        found = {}
        for option, use in wanted.items():
            files = [groups[use][i] for i in pointed if i in groups[use]]
            found[option] = files[0] if files else None
        # a problem with what the page points at is located in the METS file; one inside
        # the ground-truth file, in that file (with its line)
        located = mets_path
        try:
            if found["gt"] is None or found["images"] is None:
                missing = [wanted[o] for o in ("gt", "images") if found[o] is None]
                raise _Unusable(f"no file in {' and '.join(missing)}", xml.line(page))
            truth = _mets_path(found["gt"], workspace, xml, tree)
            image = _mets_path(found["images"], workspace, xml, tree)
            # a FIFO or a directory is said to be one, not "not found"
            problem = _ground_truth_problem(truth) if os.path.exists(truth) else f"ground truth not found: {truth}"
            if problem is not None:
                raise _Unusable(problem)
            if not image.is_file():
                raise _Unusable(f"image not found: {image}")
            located = truth
            root = _parse(truth).root
            if _local(root) == "PcGts":
                text, _, _ = _page(root, level)
            elif _local(root) == "alto":
                text, _, _ = _alto(root, level)
            else:
                raise _Unusable(f"neither PAGE nor ALTO (root element {_local(root)!r})")
            if not text.strip():
                raise _Unusable(f"no text at level {level}")
        except _Unusable as exc:
            loaded.skipped.append(Skipped(str(located), exc.line, f"page {page_id}: {exc.reason}"))
            continue
        except RecursionError:
            loaded.skipped.append(Skipped(str(located), None, f"page {page_id}: elements nested too deeply to read"))
            continue
        loaded.cases.append(_case(page_id, str(truth), image, text=text))
    return loaded


# -- olmOCR-Bench: facts about PDF pages --------------------------------------------------

BASELINE_CATEGORY = "baseline"  # the category olmOCR-Bench gives the baseline facts it adds


def olmocr_bench(config: dict, base: Path) -> Loaded:
    """olmOCR-Bench's layout: the facts in ``path``'s ``*.jsonl`` files (the file's name
    is the facts' category), the documents in ``path/pdfs/``, and every other folder a
    system's stored outputs (a ``page-outputs`` engine named after the folder). One case
    per page, carrying its facts. As olmOCR-Bench does, every PDF without a ``baseline``
    fact gets one on its first page (category ``baseline``) unless ``baseline: false``.
    A line that is not a well-formed fact, or names a PDF that is not in ``pdfs/``, is
    skipped with its file, line and reason."""
    root = _directory(config, "path", base)
    pdfs = root / "pdfs"
    if not pdfs.is_dir():
        raise DatasetError("path", f"no pdfs/ folder in {root} (olmOCR-Bench keeps its documents in pdfs/)")
    tree = _tree(config, root)
    loaded = Loaded()
    documents: set[str] = set()
    refused: dict[str, str] = {}  # a document outside the dataset -> why
    for relative, document in _walk(pdfs, ["*.pdf"], []):
        escape = tree.outside(document)
        if escape is None:
            documents.add(relative)
        else:
            refused[relative] = escape
            loaded.skipped.append(Skipped(str(document), None, escape))
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "pdfs" and p.name[0] != "."):
        escape = tree.outside(folder)
        if escape is not None:
            raise DatasetError("path", escape)
        if not _ENGINE_NAME.fullmatch(folder.name):
            raise DatasetError(
                "path",
                f"{folder}: the folder name is the engine name and may only hold letters, digits, "
                "'_', '.' and '-'; rename the folder",
            )
        loaded.engines[folder.name] = {
            "type": "page-outputs",
            "path": os.path.relpath(folder, base),
            "documents": os.path.relpath(pdfs, base),
        }
        if tree.follow_symlinks:  # its outputs too may be links out of the dataset
            loaded.engines[folder.name]["follow_symlinks"] = True
    pages: dict[tuple[str, int], list[dict]] = {}
    sources: dict[tuple[str, int], str] = {}
    lines: dict[int, tuple[Path, int]] = {}  # id(a fact) -> its file and line
    files = sorted(p for p in root.iterdir() if p.suffix == ".jsonl" and p.is_file())
    if not files:
        raise DatasetError("path", f"no .jsonl files of facts in {root}")
    for file in files:
        escape = tree.outside(file)
        if escape is not None:
            loaded.skipped.append(Skipped(str(file), None, escape))
            continue
        text = _read_text(file, "path", "facts file")
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            fact, problem = _bench_fact(line, documents, refused, file.stem)
            if problem is not None:
                loaded.skipped.append(Skipped(str(file), number, problem))
                continue
            key = (fact["pdf"], fact["page"])
            pages.setdefault(key, []).append(fact)
            lines[id(fact)] = (file, number)
            sources.setdefault(key, f"{file}:{number}")
    if config.get("baseline", True):
        with_baseline = {pdf for (pdf, _), facts in pages.items() if any(f["type"] == "baseline" for f in facts)}
        for pdf in sorted(documents - with_baseline):
            fact = {"pdf": pdf, "page": 1, "id": f"{pdf}_baseline", "type": "baseline", "category": BASELINE_CATEGORY}
            pages.setdefault((pdf, 1), []).append(fact)
            sources.setdefault((pdf, 1), str(pdfs / pdf))
    for (pdf, page), facts in sorted(pages.items()):
        checks = [{k: v for k, v in f.items() if k not in ("pdf", "page")} for f in facts]
        name = f"{_name(pdf)}_pg{page}"
        # A baseline fact olmOCR-Bench adds is written nowhere: it points at its page's first fact, or its PDF.
        first = lines.get(id(facts[0]), (pdfs / pdf, 1))
        loaded.cases.append(
            {
                "id": name,
                "source": sources[(pdf, page)],
                "image": str(pdfs / pdf),
                "page": page,
                "checks": checks,
                "check_sources": [lines.get(id(f), first) for f in facts],
            }
        )
    return loaded


def _bench_fact(line: str, documents: set[str], refused: dict[str, str], category: str) -> tuple[dict, str | None]:
    """A line of an olmOCR-Bench facts file as a fact with its category, or why it is none
    (``refused``: documents outside the dataset, and why)."""
    try:
        fact = doc.json_value(line)
    except ValueError as exc:
        return {}, f"not valid JSON: {exc}"
    if not isinstance(fact, dict):
        return {}, f"expected a JSON object, got {type(fact).__name__}"
    pdf, page = fact.get("pdf"), fact.get("page")
    if not isinstance(pdf, str) or not pdf:
        return {}, "no 'pdf' (the document's path in pdfs/)"
    if not isinstance(page, int) or isinstance(page, bool) or page < 1:
        return {}, f"'page' must be a page number from 1, got {json.dumps(page)}"
    if Path(pdf).as_posix() in refused:
        return {}, f"the document {pdf}: {refused[Path(pdf).as_posix()]}"
    if Path(pdf).as_posix() not in documents:
        return {}, f"the document {pdf} is not in pdfs/"
    fact = {**fact, "pdf": Path(pdf).as_posix(), "category": category}
    try:
        parse_fact(fact)
    except FactError as exc:
        return {}, f"fact {fact.get('id', '?')}: {exc}"
    return fact, None


ADAPTERS: dict[str, Callable[[dict, Path], Loaded]] = {
    "pairs": pairs,
    "paddle": paddle,
    "ground-truth-json": ground_truth_json,
    "model-csv": model_csv,
    "page-xml": _layout(_page, ["*.xml"]),
    "alto": _layout(_alto, ["*.xml"]),
    "hocr": _layout(_hocr, ["*.hocr"]),
    "ocrd-workspace": ocrd_workspace,
    "olmocr-bench": olmocr_bench,
}
