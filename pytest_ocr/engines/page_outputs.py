"""Page outputs stored in olmOCR-Bench's or OmniDocBench's layout, read back as an engine.

``path`` is a folder of ``<document>_pg<page>_repeat<N>.md`` files, where ``<document>``
is the PDF's path relative to ``documents`` (the benchmark's ``pdfs/`` folder) without
``.pdf``: ``pdfs/tables/a.pdf`` page 2 is ``tables/a_pg2_repeat1.md``. Every repeat of
a page is an output: the item gets them all at once (``outputs``) and judges them as
repeats. A page without a stored output is the item's error, never an empty text; so is
one that is a symbolic link out of ``path`` (unless ``follow_symlinks: true``): a file
elsewhere on the machine is not read into the reports.

``omnidocbench-outputs`` (OmniDocBenchOutputsEngine) is OmniDocBench's layout: a folder of
one Markdown file per page image, found as its End2EndDataset finds it (see ``CANDIDATES``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from ..files import Tree, UnreadableFile, decode_text
from ..media.document import read_bytes
from . import _options
from .base import EngineBase, EngineError, EngineSpec, Recognition

SCHEMA = {
    "path": (str, _options.REQUIRED),
    "documents": (str, _options.REQUIRED),
    "follow_symlinks": (bool, False),
}

_NAME = re.compile(r"(?P<document>.+)_pg(?P<page>\d+)_repeat(?P<repeat>\d+)\.md")


class PageOutputsEngine(EngineBase):
    # Looking a page up here is cheaper than the output cache, and these files, not copies
    # of them, are what the results must reflect.
    cacheable = False
    # The executor asks for every stored output of a page at once, not for an image's.
    stored = True

    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.options = options
        self.path = _options.resolve(spec, options["path"])
        self.documents = _options.resolve(spec, options["documents"])
        if not self.path.is_dir():
            raise _options.error(spec, f"option 'path' must name a folder of page outputs, got {self.path}")
        self.tree = Tree(
            [self.path], "the engine's folder", "the option follow_symlinks: true", options["follow_symlinks"]
        )
        self._index: dict[tuple[str, int], list[Path]] | None = None
        self._digest = ""

    def _load(self) -> dict[tuple[str, int], list[Path]]:
        if self._index is not None:
            return self._index
        found: dict[tuple[str, int], list[tuple[int, Path]]] = {}
        listing = []
        for folder, _, names in os.walk(self.path):
            for name in names:
                match = _NAME.fullmatch(name)
                if match is None:
                    continue
                file = Path(folder, name)
                relative = file.relative_to(self.path).parent / match["document"]
                key = (relative.as_posix(), int(match["page"]))
                found.setdefault(key, []).append((int(match["repeat"]), file))
                listing.append((file.relative_to(self.path).as_posix(), file))
        self._index = {key: [file for _, file in sorted(files)] for key, files in found.items()}
        self._digest = _digest(listing, self.tree)
        return self._index

    def outputs(self, document: Path, page: int) -> list[Recognition]:
        """Every stored output of the document's page, in the order of their repeat numbers."""
        try:
            relative = Path(os.path.abspath(document)).relative_to(os.path.abspath(self.documents))
        except ValueError:
            raise EngineError(f"{document} is not in {self.documents}, where this engine's documents are") from None
        stem = relative.with_suffix("").as_posix()
        files = self._load().get((stem, page))
        if not files:
            raise EngineError(
                f"no stored output for {relative} page {page} in {self.path} (expected {stem}_pg{page}_repeat*.md)"
            )
        return [Recognition(text=_read(file, self.tree)) for file in files]

    def recognize(self, image: Path) -> Recognition:
        return self.outputs(image, 1)[0]

    def fingerprint(self) -> dict:
        self._load()
        # whether links may lead out decides which items error, never what an output reads
        config = {k: v for k, v in self.options.items() if k != "follow_symlinks"}
        return {"type": "page-outputs", "version": self._digest, "config": config}


def _digest(listing: list[tuple[str, Path]], tree: Tree) -> str:
    """The engine's version: its outputs' names and contents (never their times, which every checkout
    changes: a baseline from another clone would see another engine). A link out of the folder is
    named, not read."""
    digest = hashlib.sha256()
    for name, file in sorted(listing):
        digest.update(json.dumps(name).encode())
        if tree.outside(file) is not None:
            digest.update(b"outside")
            continue
        try:
            with open(file, "rb") as stream:
                while chunk := stream.read(1 << 20):
                    digest.update(chunk)
        except OSError as exc:  # reading it for the item says what is wrong; here it only differs
            digest.update(f"unreadable {exc.errno}".encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def _read(file: Path, tree: Tree) -> str:
    """A stored page output, if it is inside the engine's folder; raises EngineError."""
    escape = tree.outside(file)
    if escape is not None:
        raise EngineError(f"page output {escape}")
    try:
        return decode_text(read_bytes(file, "page output"))
    except UnreadableFile as exc:
        raise EngineError(f"{exc.message}: {exc.location}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EngineError(f"cannot read the page output {file}: {exc}") from exc


# OmniDocBench's End2EndDataset.get_matched_elements, in its order: the image name without its
# last four characters + .md; nougat's .mmd and marker's .md of that without ".pdf"; MinerU's
# image name + .md. Slicing four characters, as it does, is its way (a .jpeg loses "jpeg", not ".jpeg").
CANDIDATES = (
    lambda name: name[:-4] + ".md",
    lambda name: name[:-4].replace(".pdf", "") + ".mmd",
    lambda name: name[:-4].replace(".pdf", "") + ".md",
    lambda name: name + ".md",
)


class OmniDocBenchOutputsEngine(EngineBase):
    """``path``: a folder of ``<image stem>.md`` files, one output per page image."""

    cacheable = False  # as PageOutputsEngine: these files are what the results must reflect
    stored = True

    SCHEMA = {"path": (str, _options.REQUIRED), "follow_symlinks": (bool, False)}

    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, self.SCHEMA)
        self.options = options
        self.path = _options.resolve(spec, options["path"])
        if not self.path.is_dir():
            raise _options.error(spec, f"option 'path' must name a folder of page outputs, got {self.path}")
        self.tree = Tree(
            [self.path], "the engine's folder", "the option follow_symlinks: true", options["follow_symlinks"]
        )
        self._names: set[str] | None = None
        self._digest = ""

    def _load(self) -> set[str]:
        if self._names is None:
            listing = [
                (entry.name, Path(entry.path))
                for entry in os.scandir(self.path)
                if entry.name.endswith((".md", ".mmd"))
            ]
            self._names = {name for name, _ in listing}
            self._digest = _digest(listing, self.tree)
        return self._names

    def outputs(self, document: Path, page: int) -> list[Recognition]:
        """The page image's stored output (``page`` is 1: an image is one page)."""
        names = self._load()
        tried = [candidate(document.name) for candidate in CANDIDATES]
        found = next((name for name in tried if name in names), None)
        if found is None:
            raise EngineError(
                f"no stored output for {document.name} in {self.path} (looked for {', '.join(dict.fromkeys(tried))})"
            )
        return [Recognition(text=_read(self.path / found, self.tree))]

    def recognize(self, image: Path) -> Recognition:
        return self.outputs(image, 1)[0]

    def fingerprint(self) -> dict:
        self._load()
        config = {k: v for k, v in self.options.items() if k != "follow_symlinks"}
        return {"type": "omnidocbench-outputs", "version": self._digest, "config": config}
