"""Layout XML with the image each file names: PAGE, ALTO and hOCR (``page-xml``, ``alto``, ``hocr``),
parsed with defusedxml."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder

import defusedxml
from defusedxml import ElementTree as SafeET

from ...files import Tree, UnreadableFile
from ...media import document as doc
from .common import IMAGE_SUFFIXES, Loaded, Skipped, case_dict, config_directory, stem_path, tree_of, walk_files

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
    stem = stem_path(name)
    stems = [stem]
    while Path(stem).suffix.lower() in LAYOUT_SUFFIXES:
        stem = stem[: -len(Path(stem).suffix)]
        stems.append(stem)
    return stems


def _layout(reader: LayoutReader, default_include: list[str]) -> Callable[[dict, Path], Loaded]:
    def adapter(config: dict, base: Path) -> Loaded:
        root = config_directory(config, "path", base)
        image_dir = config_directory(config, "image_dir", base) if "image_dir" in config else None
        # an OCR-D workspace around the files: the images they name may be anywhere in it
        tree = tree_of(config, root, image_dir, _workspace(root))
        level = config.get("level", "line")
        loaded = Loaded()
        for relative, path in walk_files(root, config.get("include", default_include), config.get("exclude", [])):
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
            loaded.cases.append(
                case_dict(f"{folder}/{stems[-1]}" if folder else stems[-1], str(path), image, text=text)
            )
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


page_xml = _layout(_page, ["*.xml"])
alto = _layout(_alto, ["*.xml"])
hocr = _layout(_hocr, ["*.hocr"])
