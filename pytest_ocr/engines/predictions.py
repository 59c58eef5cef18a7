"""Outputs produced elsewhere, read back as an engine ("write a CSV per model, then evaluate").

``path`` is a ``.csv`` file (a header row; columns ``image`` and ``text``, or
``image_name`` and ``inference`` as in an ``image_name,batch_id,inference`` file), a
``.jsonl`` file (one object per line with those keys), or a directory of
``<image stem>.txt`` files. It is read once, on first use, so it may be written by an
earlier step of the same session. An image is looked up by its file name, then by its
path relative to the predictions file's directory, then by its stem; an image without a
prediction is an error, never an empty text. A PDF case's page is looked up by the PDF
and page (``report.pdf#page=3``, ``report_pg3``; see ``_candidates``). In a directory, a
``.txt`` file that is a symbolic link out of it is not read (unless ``follow_symlinks:
true``): looking it up is an error.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..files import Tree, UnreadableFile, decode_text
from ..media import pages
from ..media.document import NestingError, json_value, read_bytes
from . import _options
from .base import EngineBase, EngineError, EngineSpec, Recognition

SCHEMA = {
    "path": (str, _options.REQUIRED),
    "image_column": (str, None),
    "text_column": (str, None),
    "follow_symlinks": (bool, False),
}

# The "one CSV per model" contract: image_name,batch_id,inference.
MODEL_CSV_COLUMNS = ("image_name", "inference")

Record = tuple[int, str, str]  # line number, image key, text


def _decode(path: Path, data: bytes) -> str:
    try:
        return decode_text(data)  # spreadsheet programs write a BOM
    except UnicodeDecodeError as exc:
        raise EngineError(f"predictions file {path} is not UTF-8: {exc}") from exc


def _unclosed_quote(content: str, after: int) -> int | None:
    """The line where a quoted field that the file never closes opens, in the records after
    line ``after`` (the csv module's line_num: the records read whole), or None. The csv
    module finds such a field at the end of the data, and counts none of its lines. Its
    default dialect: a quote opens a field only at the field's start; "" inside is a quote."""
    start, inside, quote, opened = True, False, False, None
    for number, line in enumerate(io.StringIO(content, newline=""), start=1):
        if number <= after:
            continue
        for character in line:
            if inside:
                if character == '"':
                    inside, quote = False, True
            elif character == '"' and (start or quote):
                inside = True
                opened = number if start else opened  # after a closing quote: "" escapes a quote
                start = quote = False
            else:
                start, quote = character in ",\r\n", False
    return opened if inside else None


class PredictionsEngine(EngineBase):
    # Never put in the output cache: looking a text up here is cheaper than a cache
    # lookup, and this file, not a copy of it, is what the results must reflect.
    cacheable = False

    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.option_path = options["path"]
        self.path = _options.resolve(spec, options["path"])
        if self.path.suffix.lower() not in (".csv", ".jsonl") and not self.path.is_dir():
            raise _options.error(
                spec, f"option 'path' must name a .csv or .jsonl file or a directory of .txt files, got {self.path}"
            )
        self.image_column = options["image_column"]
        self.text_column = options["text_column"]
        self.follow_symlinks = options["follow_symlinks"]
        self._refused: dict[str, str] = {}  # in a directory: a stem whose file links out of it -> why
        self._table: dict[str, str] | None = None
        self._batched = False  # keys are batch_id/image_name
        self._digest = ""
        self._base = self.path

    def _columns(self, names: Iterable[str]) -> tuple[str, str]:
        names = set(names)
        if (
            self.image_column is None
            and self.text_column is None
            and not names & {"image", "text"}
            and names >= set(MODEL_CSV_COLUMNS)
        ):
            return MODEL_CSV_COLUMNS
        return self.image_column or "image", self.text_column or "text"

    def _load(self) -> dict[str, str]:
        if self._table is not None:
            return self._table
        is_dir = self.path.is_dir()
        try:
            files = [self.path]
            if is_dir:
                tree = Tree(
                    [self.path], "the predictions folder", "the option follow_symlinks: true", self.follow_symlinks
                )
                files = sorted(p for p in self.path.iterdir() if p.suffix == ".txt" and p.is_file())
                self._refused = {p.stem: why for p in files if (why := tree.outside(p)) is not None}
                files = [p for p in files if p.stem not in self._refused]
            # within --ocr-max-file-mb each; a FIFO or device is refused, not waited on
            contents = {path: read_bytes(path, "predictions file") for path in files}
        except UnreadableFile as exc:
            raise EngineError(f"{exc.message}: {exc.location}") from None
        except OSError as exc:
            raise EngineError(f"cannot read predictions {self.path}: {exc}") from exc
        texts = {path: _decode(path, data) for path, data in contents.items()}

        records: Iterator[Record]
        if is_dir:
            listing = [(path.name, hashlib.sha256(data).hexdigest()) for path, data in contents.items()]
            digest = hashlib.sha256(json.dumps(listing).encode())
            records = ((1, path.stem, text) for path, text in texts.items())
        else:
            digest = hashlib.sha256(contents[self.path])
            read = self._read_csv if self.path.suffix.lower() == ".csv" else self._read_jsonl
            records = read(texts[self.path])
        self._table = self._index(records)
        self._digest = digest.hexdigest()[:16]
        self._base = (self.path if is_dir else self.path.parent).absolute()
        return self._table

    def _read_csv(self, content: str) -> Iterator[Record]:
        reader = csv.DictReader(io.StringIO(content, newline=""), strict=True)
        try:
            fields = reader.fieldnames or []
            image_column, text_column = self._columns(fields)
            for column in (image_column, text_column):
                if column not in fields:
                    raise EngineError(
                        f"predictions file {self.path} has no column {column!r} (columns: {', '.join(fields)}); "
                        "set the image_column and text_column options"
                    )
            # The same image name may appear in two batches: then batch_id/image_name tells them apart.
            batched = (image_column, text_column) == MODEL_CSV_COLUMNS and "batch_id" in fields
            self._batched = batched
            for row in reader:
                # A short row fills missing columns with None; a long one collects extras under None.
                if None in row or None in row.values():
                    raise self._malformed(reader.line_num, f"expected {len(fields)} fields")
                image = row[image_column]
                if batched and row["batch_id"].strip() and image.strip():
                    image = f"{row['batch_id'].strip()}/{image}"
                yield reader.line_num, image, row[text_column]
        except csv.Error as exc:
            # reader.line_num: the last record read whole; reader.reader's: the line it failed on
            opened = _unclosed_quote(content, reader.line_num)
            if opened is not None:
                raise self._malformed(opened, f"a quoted field opens here and is never closed ({exc})") from exc
            raise self._malformed(reader.reader.line_num, str(exc)) from exc

    def _read_jsonl(self, content: str) -> Iterator[Record]:
        for number, line in enumerate(content.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json_value(line)
            except NestingError as exc:
                raise self._malformed(number, str(exc)) from None
            except ValueError as exc:
                raise self._malformed(number, f"not valid JSON: {exc}") from exc
            if not isinstance(record, dict):
                raise self._malformed(number, f"expected a JSON object, got {type(record).__name__}")
            keys = self._columns(record)
            for key in keys:
                if not isinstance(record.get(key), str):
                    raise self._malformed(number, f"key {key!r} must be a string, got {json.dumps(record.get(key))}")
            yield number, record[keys[0]], record[keys[1]]

    def _malformed(self, line: int, problem: str) -> EngineError:
        return EngineError(f"malformed predictions file {self.path}, line {line}: {problem}")

    def _index(self, records: Iterable[Record]) -> dict[str, str]:
        table: dict[str, str] = {}
        first_line: dict[str, int] = {}
        for line, image, text in records:
            if not image.strip():
                raise self._malformed(line, "empty image name")
            key = Path(image).as_posix()  # "./a.png" and "a.png" are the same image
            if key in first_line:
                lines = f"lines {first_line[key]} and {line}"
                raise EngineError(f"duplicate prediction for {image!r} in {self.path} ({lines})")
            first_line[key] = line
            table[key] = text
        if self._batched:
            # An image name that occurs in one batch only is found by its name alone too.
            names = Counter(key.rpartition("/")[2] for key in table)
            table.update(
                {
                    name: text
                    for key, text in list(table.items())
                    if names[name := key.rpartition("/")[2]] == 1 and name not in table
                }
            )
        return table

    def _candidates(self, image: Path) -> Iterator[str]:
        """The keys an image is looked up by, in order, each made only when the one before
        it was not found (``_keys``). A PDF's page rasterised for the engines (media/pages.py)
        is looked up by its PDF, never by the PNG's name: ``<key>#page=N`` for each of the
        PDF's keys (the PDF open parameter), ``<PDF stem>_pgN`` (olmOCR's naming), and for
        page 1 the PDF's keys as they are (a one-page PDF's prediction named like the file)."""
        page = pages.source(image)
        if page is None:
            yield from self._keys(image)
            return
        for key in self._keys(page.pdf):
            yield f"{key}#page={page.number}"
        yield f"{page.pdf.stem}_pg{page.number}"
        if page.number == 1:
            yield from self._keys(page.pdf)

    def _keys(self, image: Path) -> Iterator[str]:
        """batch_id/image_name first (the "one CSV per model" layout images/{batch_id}/{image_name}),
        the name, the path relative to the file, the stem."""
        yield f"{image.parent.name}/{image.name}"
        yield image.name
        yield Path(os.path.relpath(image.absolute(), self._base)).as_posix()
        yield image.stem

    def recognize(self, image: Path) -> Recognition:
        table = self._load()
        image = Path(image)
        for key in self._candidates(image):
            if key in table:
                return Recognition(text=table[key])
            if key in self._refused:
                raise EngineError(f"prediction {self._refused[key]}")
        tried = ", ".join(repr(key) for key in self._candidates(image))
        raise EngineError(f"no prediction for {pages.source(image) or image} in {self.path} (looked up {tried})")

    def fingerprint(self) -> dict:
        self._load()
        config = {"path": self.option_path, "image_column": self.image_column, "text_column": self.text_column}
        return {"type": "predictions", "version": self._digest, "config": config}
