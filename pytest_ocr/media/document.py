"""Reading a YAML or JSON file into plain data plus the line of every key.

Line numbers let every later error point at the exact place in the user's file.
YAML is read with PyYAML's SafeLoader only.

Every YAML or JSON file pytest-ocr reads as data comes through ``load`` (case files,
the project configuration, fields and schema files, a dataset's ground_truth.json;
single JSON values such as a predictions file's lines through ``json_value``), within
the bounds of limits.py, each a located problem of that file when exceeded:

- its size (``--ocr-max-file-mb``), read without blocking: a FIFO or a device is refused;
- how deep mappings and lists nest (``--ocr-max-nesting``), checked before anything
  recursive sees the text. libyaml's composer recurses in C (100 KB of ``[`` overflowed
  the stack: a segfault), the json module and everything that walks the data in Python,
  so YAML is composed here, iteratively, from the C parser's events (the parser itself
  keeps its own stack), and JSON's brackets are counted before ``json.loads``. A plain
  YAML document (no anchors) is composed by libyaml in C where libyaml bounds its own
  nesting (``_plain_yaml``); any other, or one with a problem, is read as above;
- how many nodes YAML aliases add (``--ocr-max-yaml-nodes``): the "billion laughs"
  construction is refused as it is composed, before anything expands it; an alias inside
  the node it names (a recursive structure) is refused too;
- numbers: NaN, infinities and numbers beyond a float's range compare with nothing, so
  they are refused wherever they appear (``.nan`` in YAML, ``NaN`` or ``1e400`` in JSON).
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any

import yaml
from yaml.composer import ComposerError

from .. import limits
from ..errors import OcrError
from ..files import UnreadableFile, decode_text, read_limited, unreadable

KeyPath = tuple  # of str (mapping keys) and int (sequence indexes)

# libyaml's C parser when PyYAML was built with it (6x faster on large suites); both
# are the safe loader and both keep line marks on nodes. Its parser's events are composed
# by ``_compose``, which bounds nesting and alias expansion; its composer is used only by
# ``_plain_yaml``, on documents without aliases, when libyaml bounds its nesting.
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

SHOWN_NUMBER_PROBLEMS = 10  # non-finite numbers listed per file; the rest are counted


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a file, located by line and key path."""

    line: int | None
    keypath: KeyPath
    message: str

    def where(self) -> str:
        return format_keypath(self.keypath) or "(top level)"


class DocumentError(OcrError):
    """A file that cannot be used; carries every problem found, not just the first."""

    def __init__(self, path: Path, problems: list[Problem]):
        self.path = path
        self.problems = problems
        super().__init__(self.render())

    def __str__(self) -> str:
        return self.message

    def render(self) -> str:
        n = len(self.problems)
        out = [f"{self.path}: {n} problem{'s' if n != 1 else ''}"]
        for p in self.problems:
            out.append(f"  {self.located(p)}: {p.where()}: {p.message}")
        return "\n".join(out)

    def located(self, problem: Problem) -> str:
        """``path:line``, or the path alone when the line is not known."""
        return f"{self.path}:{problem.line}" if problem.line else str(self.path)

    def summary(self) -> str:
        """Every problem on one line, each ``path:line: key: message`` (for an item's error;
        no key for the top level)."""
        return "; ".join(
            f"{self.located(p)}: {p.where()}: {p.message}" if p.keypath else f"{self.located(p)}: {p.message}"
            for p in self.problems
        )


class NestingError(ValueError):
    """A JSON value nested deeper than the limit (``json_value``)."""


def format_keypath(keypath: KeyPath) -> str:
    out = ""
    for part in keypath:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@dataclass(frozen=True)
class Document:
    path: Path
    data: Any
    lines: dict  # KeyPath -> 1-based line

    def line_of(self, keypath: KeyPath) -> int | None:
        """Line of a key path, or of its nearest located parent."""
        keypath = tuple(keypath)
        while keypath not in self.lines and keypath:
            keypath = keypath[:-1]
        return self.lines.get(keypath)


# -- limits ---------------------------------------------------------------------------


def nesting_message(limit: int | None = None) -> str:
    limit = limits.active().max_nesting if limit is None else limit
    return (
        f"mappings and lists nested more than {limit} levels deep; "
        f"the limit is {limit} ({limits.OPTIONS['max_nesting']})"
    )


def _libyaml_nesting_message() -> str:
    theirs = getattr(getattr(yaml, "_yaml", None), "_get_max_nest_level", lambda: None)()
    if theirs is None or theirs >= limits.active().max_nesting:
        return nesting_message()
    return f"mappings and lists nested more than {theirs} levels deep, the most libyaml reads"


def _aliases_message(added: int) -> str:
    limit = limits.active().max_yaml_nodes
    return (
        f"YAML aliases expand the document by more than {limit} nodes (at least {added}); "
        f"the limit is {limit} ({limits.OPTIONS['max_yaml_nodes']})"
    )


def read_bytes(path: Path, what: str) -> bytes:
    """The bytes of a data file within ``--ocr-max-file-mb``; raises UnreadableFile (a
    directory, FIFO, device or a file too large) or OSError."""
    return read_limited(
        path,
        what,
        limits.active().max_file_bytes,
        lambda mb: limits.exceeded(what, mb, "max_file_mb", " MB"),
    )


# -- loading --------------------------------------------------------------------------


def load(path: Path, what: str = "case file") -> Document:
    """Parse ``path`` (YAML unless it ends in .json), ``what`` naming it in messages
    ("case file", "fields file", ...). Raises DocumentError."""
    try:
        raw = read_bytes(path, what)
        text = decode_text(raw)
    except UnicodeDecodeError as exc:
        raise DocumentError(path, [Problem(None, (), f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    except (OSError, UnreadableFile) as exc:
        raise DocumentError(path, [Problem(None, (), unreadable(exc))]) from None
    return parse(text, path, json_syntax=path.suffix.lower() == ".json")


def parse(text: str, path: Path, *, json_syntax: bool = False) -> Document:
    """The document in ``text`` (read from ``path``, which messages name). Raises DocumentError."""
    try:
        with gc_paused():
            data, lines = _parse_json(text, path) if json_syntax else _parse_yaml(text, path)
    except RecursionError:  # a limit raised beyond what Python's stack takes
        raise DocumentError(
            path, [Problem(None, (), nesting_message() + "; lower it: deeper nesting cannot be read")]
        ) from None
    document = Document(path, data, lines)
    problems = _check_numbers(document)
    if problems:
        raise DocumentError(path, problems)
    return document


def _parse_json(text: str, path: Path) -> tuple[Any, dict]:
    deep = _json_too_deep(text, limits.active().max_nesting)
    if deep is not None:
        raise DocumentError(path, [Problem(deep, (), nesting_message())])
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(
            path, [Problem(exc.lineno, (), f"malformed JSON: {exc.msg} (column {exc.colno})")]
        ) from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise DocumentError(path, [Problem(None, (), unconvertible_message(None, exc))]) from None
    try:  # JSON is YAML; composing it only to learn line numbers
        loader = SafeLoader(text)
        try:
            node = _compose(loader)
        finally:
            loader.dispose()
    except (yaml.YAMLError, _Refused):
        node = None
    lines, problems = _walk(node) if node is not None else ({(): 1}, [])
    if problems:
        raise DocumentError(path, problems)
    return data, lines


def _parse_yaml(text: str, path: Path) -> tuple[Any, dict]:
    plain = _plain_yaml(text)
    return plain if plain is not None else _bounded_yaml(text, path)


def _bounded_yaml(text: str, path: Path) -> tuple[Any, dict]:
    """Any YAML document, composed within the limits by ``_compose``; the owner of every
    message about a document that cannot be used."""
    loader = SafeLoader(text)
    node = None
    try:
        node = _compose(loader)
        lines, problems = _walk(node) if node is not None else ({(): 1}, [])
        if problems:
            raise DocumentError(path, problems)
        return (loader.construct_document(node) if node is not None else None), lines
    except _Refused as exc:
        raise DocumentError(path, [Problem(exc.line, exc.keypath, exc.message)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = " ".join(s for s in (exc.context, exc.problem) if s)
        raise DocumentError(path, [Problem(mark.line + 1 if mark else None, (), f"malformed YAML: {what}")]) from None
    except yaml.YAMLError as exc:
        raise DocumentError(path, [Problem(None, (), f"malformed YAML: {exc}")]) from None
    except ValueError as exc:  # a scalar that resolves to a type but does not convert: 2023-02-30
        line, keypath, value = _unconvertible(node) if node is not None else (None, (), None)
        raise DocumentError(path, [Problem(line, keypath, unconvertible_message(value, exc))]) from None
    finally:
        loader.dispose()


def _unconvertible(root: yaml.Node) -> tuple[int | None, KeyPath, str | None]:
    """The line, key path and text of the first scalar that does not convert to the
    type it resolves to (searched only once constructing the document failed)."""
    probe = yaml.SafeLoader("")
    seen: set[int] = set()
    pending: list[tuple[yaml.Node, KeyPath]] = [(root, ())]
    while pending:
        node, keypath = pending.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            try:
                probe.construct_object(node)
            except ValueError:
                return node.start_mark.line + 1, keypath, node.value
            except yaml.YAMLError:
                pass
        elif isinstance(node, yaml.SequenceNode):
            pending.extend(reversed([(item, keypath + (i,)) for i, item in enumerate(node.value)]))
        elif isinstance(node, yaml.MappingNode):
            pairs = [(v, keypath + (k.value,)) for k, v in node.value if isinstance(k, yaml.ScalarNode)]
            pending.extend(reversed(pairs))
    return None, (), None


def unconvertible_message(value: str | None, exc: ValueError) -> str:
    if "integer string conversion" in str(exc):  # sys.get_int_max_str_digits()
        return f"a number of more than {sys.get_int_max_str_digits()} digits is not usable"
    shown = f"{value[:40]!r} " if value is not None else ""
    return f"the value {shown}cannot be read ({exc}); quote it to keep it as text"


def json_value(text: str) -> Any:
    """One JSON value (a line of a JSON-lines file, a label), nested at most
    ``--ocr-max-nesting`` levels. Raises ValueError: json.JSONDecodeError, or
    NestingError saying which limit."""
    if _json_too_deep(text, limits.active().max_nesting) is not None:
        raise NestingError(nesting_message())
    try:
        return json.loads(text)
    except RecursionError:
        raise NestingError(nesting_message()) from None


# A JSON string: its brackets are not nesting.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def _json_too_deep(text: str, limit: int) -> int | None:
    """The line where JSON ``text`` nests deeper than ``limit`` levels, or None.
    Counting brackets outside strings is what nesting is in JSON; at C speed, then a
    slower pass only to locate a nesting found too deep."""
    if text.count("[") + text.count("{") <= limit:
        return None
    brackets = _NOT_BRACKETS.sub("", _JSON_STRING.sub("", text))
    if max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) <= limit:
        return None
    depth = 0
    for match in _BRACKET.finditer(text):
        step = _DEPTH_STEP.get(match.group())
        if step:
            depth += step
            if depth > limit:
                return text.count("\n", 0, match.start()) + 1
    return 1  # not reached: both passes count the same brackets


# -- composing YAML within the limits ---------------------------------------------------


class _Refused(Exception):
    """A document beyond a limit, where it was found."""

    def __init__(self, line: int, keypath: KeyPath, message: str):
        super().__init__(message)
        self.line = line
        self.keypath = keypath
        self.message = message


SHOWN_KEYPATH = 3  # a too-deep document is located at the first keys of the path into it


def _compose(loader: Any) -> yaml.Node | None:
    """The single document of ``loader``'s stream as a node graph (what PyYAML's
    ``get_single_node`` gives), composed without recursion from the parser's events.

    Refuses (``_Refused``) a node nested more than ``max_nesting`` levels deep, counting
    through aliases (``[*a]`` is one level more than the node ``a`` names), an alias
    inside the node it names, and aliases adding more than ``max_yaml_nodes`` nodes to
    the document as expanded. An alias adds the expanded size of the node it names;
    sizes are counted as nodes close, so nothing is ever expanded."""
    bounds = limits.active()
    loader.get_event()  # stream start
    if loader.check_event(yaml.StreamEndEvent):
        loader.get_event()
        return None
    start = loader.get_event()  # document start
    # anchor -> [node, expanded size, height in levels]; size None while the node is open
    anchors: dict[str, list[Any]] = {}
    # the open collections: [node, pending mapping key or None, expanded size, height, anchor]
    stack: list[list[Any]] = []
    added = 0  # nodes aliases add
    root: yaml.Node | None = None

    def keypath() -> KeyPath:
        path: list[str | int] = []
        for node, key, *_ in stack[:SHOWN_KEYPATH]:
            if isinstance(node, yaml.SequenceNode):
                path.append(len(node.value))
            elif isinstance(key, yaml.ScalarNode):
                path.append(key.value)
            else:
                break
        return tuple(path)

    def refuse(event: Any, message: str) -> _Refused:
        return _Refused(event.start_mark.line + 1, keypath(), message)

    while root is None:
        try:
            event = loader.get_event()
        except yaml.MarkedYAMLError as exc:
            if exc.problem_mark is None or "maximum nesting depth" not in (exc.problem or ""):
                raise
            # libyaml 0.2.6 on (PyYAML 6.0.4's wheels) has a nesting limit of its own (1000),
            # which flow collections reach while it scans ahead, before their events come here
            raise _Refused(exc.problem_mark.line + 1, keypath(), _libyaml_nesting_message()) from None
        mark: Any = event.start_mark  # the C parser's own Mark type, which nodes take as theirs
        end: Any = event.end_mark
        node: Any
        if isinstance(event, yaml.ScalarEvent):
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
            node = yaml.ScalarNode(tag, event.value, mark, end, style=event.style)
            size, height = 1, 0
            if event.anchor is not None:
                _anchor(anchors, event, [node, 1, 0])
        elif isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            kind = yaml.SequenceNode if isinstance(event, yaml.SequenceStartEvent) else yaml.MappingNode
            tag = event.tag
            if tag is None or tag == "!":
                tag = loader.resolve(kind, None, event.implicit)
            node = kind(tag, [], mark, None, flow_style=event.flow_style)
            if event.anchor is not None:
                _anchor(anchors, event, [node, None, None])
            if len(stack) + 1 > bounds.max_nesting:
                raise refuse(event, nesting_message(bounds.max_nesting))
            stack.append([node, None, 1, 1, event.anchor])
            continue
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            node, _, size, height, anchor = stack.pop()
            node.end_mark = end
            if anchor is not None:
                anchors[anchor][1:] = size, height
        elif isinstance(event, yaml.AliasEvent):
            if event.anchor not in anchors:
                raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", mark)
            node, size, height = anchors[event.anchor]
            if size is None:
                raise refuse(event, f"alias *{event.anchor} is inside the node it names (a structure without end)")
            if len(stack) + height > bounds.max_nesting:
                raise refuse(event, nesting_message(bounds.max_nesting))
            added += size
            if added > bounds.max_yaml_nodes:
                raise refuse(event, _aliases_message(added))
        else:  # pragma: no cover - the parser gives no other event inside a document
            raise ComposerError(None, None, f"unexpected {type(event).__name__}", event.start_mark)
        # a complete node: the root, or the next item of the collection it is in
        if not stack:
            root = node
            continue
        parent = stack[-1]
        parent[2] += size
        if height + 1 > parent[3]:
            parent[3] = height + 1
        if isinstance(parent[0], yaml.SequenceNode):
            parent[0].value.append(node)
        elif parent[1] is None:
            parent[1] = node
        else:
            parent[0].value.append((parent[1], node))
            parent[1] = None
    loader.get_event()  # document end
    if not loader.check_event(yaml.StreamEndEvent):
        event = loader.get_event()
        raise ComposerError(
            "expected a single document in the stream", start.start_mark, "but found another document", event.start_mark
        )
    loader.get_event()  # stream end
    return root


def _anchor(anchors: dict[str, list[Any]], event: Any, entry: list[Any]) -> None:
    if event.anchor in anchors:
        first = anchors[event.anchor][0].start_mark.line + 1
        raise ComposerError(
            None, None, f"found duplicate anchor {event.anchor!r} (first on line {first})", event.start_mark
        )
    anchors[event.anchor] = entry


# Only a document that is a plain tree (no anchors, so no aliases) of the core schema's tags
# is read by ``_plain_yaml``, and only where libyaml bounds the depth of its composer's
# recursion in C: 0.2.6 on refuses nesting beyond its own limit (1000) as it parses.
_C_COMPOSER_BOUNDED = hasattr(yaml, "CSafeLoader") and hasattr(getattr(yaml, "_yaml", None), "_get_max_nest_level")
_STR = "tag:yaml.org,2002:str"
_CONTAINERS: dict[tuple[type, str], type] = {
    (yaml.MappingNode, "tag:yaml.org,2002:map"): dict,
    (yaml.SequenceNode, "tag:yaml.org,2002:seq"): list,
}


class _NotPlain(Exception):
    """A document ``_plain_yaml`` leaves to ``_bounded_yaml``."""


def _plain_yaml(text: str) -> tuple[Any, dict] | None:
    """The data and line of every key path of a plain YAML document: composed by libyaml
    in C, its data built in the pass that records the lines (``_bounded_yaml`` takes a
    composer in Python, a walk and PyYAML's constructor), twice as fast on a large suite.

    None for any other document, and for one with anything wrong (malformed, nested
    deeper than ``max_nesting``, a duplicate, non-string or merge key, a tag beyond the
    core schema's, a scalar that does not convert): ``_bounded_yaml`` reads it again,
    and the message is its own. Without aliases the document expands to nothing more."""
    if not _C_COMPOSER_BOUNDED or "&" in text:  # no anchor, so no alias names one
        return None
    max_nesting = limits.active().max_nesting
    loader = yaml.CSafeLoader(text)
    pending: list[tuple[yaml.Node, KeyPath, Any]] = []

    def value(node: yaml.Node, keypath: KeyPath) -> Any:
        """A scalar's value, or an empty collection that the loop below fills."""
        if isinstance(node, yaml.ScalarNode):
            return node.value if node.tag == _STR else loader.construct_object(node)
        kind = _CONTAINERS.get((type(node), node.tag))
        if kind is None or len(keypath) >= max_nesting:
            raise _NotPlain
        container = kind()
        pending.append((node, keypath, container))
        return container

    try:
        root = loader.get_single_node()
        if root is None:
            return None, {(): 1}
        lines = {(): root.start_mark.line + 1}
        data = value(root, ())
        while pending:
            node, keypath, container = pending.pop()
            if isinstance(container, dict):
                for key_node, item in node.value:
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR or key_node.value in container:
                        raise _NotPlain
                    where = keypath + (key_node.value,)
                    lines[where] = key_node.start_mark.line + 1
                    container[key_node.value] = value(item, where)
            else:
                for index, item in enumerate(node.value):
                    where = keypath + (index,)
                    lines[where] = item.start_mark.line + 1
                    container.append(value(item, where))
        return data, lines
    except (_NotPlain, yaml.YAMLError, ValueError):
        return None
    finally:
        loader.dispose()


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Cyclic garbage collection paused while a document, or a file's cases, are built:
    their many new objects (none of them garbage yet) would set off full collections,
    which took most of the time of reading a large suite."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _walk(root: yaml.Node) -> tuple[dict, list[Problem]]:
    """Line of each key path; duplicate and non-string keys. Without recursion: the
    nesting limit may be raised beyond Python's stack."""
    lines: dict = {}
    problems: list[Problem] = []
    visited: set[int] = set()
    pending: list[tuple[yaml.Node, KeyPath]] = [(root, ())]
    while pending:
        node, keypath = pending.pop()
        lines.setdefault(keypath, node.start_mark.line + 1)
        if id(node) in visited:  # an alias: its lines are those of the anchor
            continue
        visited.add(id(node))
        children: list[tuple[yaml.Node, KeyPath]] = []
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key_node, value_node in node.value:
                line = key_node.start_mark.line + 1
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                    problems.append(Problem(line, keypath, f"keys must be strings; quote {_show_key(key_node)}"))
                    continue
                key = key_node.value
                if key in seen:
                    problems.append(
                        Problem(line, keypath + (key,), f"duplicate key {key!r} (first on line {seen[key]})")
                    )
                    continue
                seen[key] = line
                lines[keypath + (key,)] = line
                children.append((value_node, keypath + (key,)))
        elif isinstance(node, yaml.SequenceNode):
            children = [(item, keypath + (index,)) for index, item in enumerate(node.value)]
        pending.extend(reversed(children))  # in document order, for the first line of an alias's path
    problems.sort(key=lambda p: p.line or 0)
    return lines, problems


def _show_key(node: yaml.Node) -> str:
    if isinstance(node, yaml.ScalarNode):
        return repr(node.value)
    return "the key" + (" (a mapping)" if isinstance(node, yaml.MappingNode) else " (a list)")


# -- numbers ----------------------------------------------------------------------------


def _number_problem(value: object) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("infinity" if value > 0 else "-infinity")
        return f"{shown} is not a usable number: every number must be finite"
    if isinstance(value, int) and abs(value) > sys.float_info.max:
        return (
            f"a number of {len(str(abs(value)))} digits is not usable: "
            f"every number must be finite, at most {sys.float_info.max:g} in size"
        )
    return None


def _check_numbers(document: Document) -> list[Problem]:
    """NaN, infinities and numbers beyond a float's range, each at its key path."""
    found, count = value_problems(document.data)
    problems = [Problem(document.line_of(keypath), keypath, message) for keypath, message in found]
    if count > len(found):
        problems.append(Problem(None, (), f"and {count - len(found)} more numbers that are not finite"))
    return problems


def value_problems(data: Any, max_nesting: int | None = None) -> tuple[list[tuple[KeyPath, str]], int]:
    """What no data file may hold, in data already read (a page of a JSON file read a page at a
    time): nesting deeper than ``max_nesting`` levels (None: not checked; the first place
    found), and NaN, infinities and numbers beyond a float's range (at most
    SHOWN_NUMBER_PROBLEMS of them, each at its key path). Also the number of problems.
    Without recursion; each mapping and list once, however many aliases name it."""
    found: list[tuple[KeyPath, str]] = []
    seen: set[int] = set()
    pending: list[tuple[KeyPath, Any]] = [((), data)]
    count = 0
    deep = False
    while pending:
        keypath, value = pending.pop()
        if isinstance(value, (dict, list, tuple)):
            if id(value) in seen:
                continue
            seen.add(id(value))
            if max_nesting is not None and len(keypath) >= max_nesting:
                if not deep:  # the first place deeper than the limit says it; not every one
                    deep = True
                    count += 1
                    found.append((keypath, nesting_message()))
                continue
            items = value.items() if isinstance(value, dict) else enumerate(value)
            pending.extend(reversed([(keypath + (key,), item) for key, item in items]))
            continue
        problem = _number_problem(value)
        if problem:
            count += 1
            if len(found) < SHOWN_NUMBER_PROBLEMS:
                found.append((keypath, problem))
    return found, count


# -- locating in JSON that was read without line numbers -----------------------------------

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")


def json_position(text: str, keypath: KeyPath, start: int = 0) -> int:
    """Where in JSON ``text`` the value that starts at ``start`` has ``keypath``: the position of
    its last key (a mapping's key, a list's item), or of the nearest one present, as
    ``Document.line_of`` locates. For a problem in data decoded from ``text`` without line
    numbers (a ground-truth file read a page at a time): each level scans its mapping or list,
    so it costs a pass over the value, never more memory than decoding it did."""
    located = position = start
    for part in keypath:
        position = _SPACE.match(text, position).end()  # type: ignore[union-attr]
        found = (
            _json_key(text, position, part)
            if isinstance(part, str) and text.startswith("{", position)
            else _json_item(text, position, part)
            if isinstance(part, int) and text.startswith("[", position)
            else None
        )
        if found is None:
            break
        located, position = found
    return located


def _json_key(text: str, position: int, key: str) -> tuple[int, int] | None:
    """(position of the key, of its value) of the last ``key`` of the object at ``position``
    (the json module keeps the last of a duplicated key)."""
    found = None
    i = _SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
    while text.startswith('"', i):
        name, after = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        value = _SPACE.match(text, _SPACE.match(text, after).end() + 1).end()  # type: ignore[union-attr]
        if name == key:
            found = (i, value)
        _, end = _DECODER.raw_decode(text, value)
        i = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if not text.startswith(",", i):
            break
        i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
    return found


def _json_item(text: str, position: int, index: int) -> tuple[int, int] | None:
    """(position, position) of item ``index`` of the list at ``position``."""
    i = _SPACE.match(text, position + 1).end()  # type: ignore[union-attr]
    for _ in range(index):
        if text.startswith("]", i):
            return None
        _, end = _DECODER.raw_decode(text, i)
        i = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if not text.startswith(",", i):
            return None
        i = _SPACE.match(text, i + 1).end()  # type: ignore[union-attr]
    return None if text.startswith("]", i) else (i, i)


# A JSON string, a run of openings or a run of closings (with the space between them).
_DEPTH_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[{][\s\[{]*|[\]}][\s\]}]*', re.S)


def json_value_end(text: str, start: int) -> int | None:
    """The position after the JSON mapping or list that starts at ``start``, found by counting
    brackets outside strings (for a value nested too deep to decode, to read on after it);
    None when it never closes."""
    depth = 0
    for match in _DEPTH_TOKEN.finditer(text, start):
        token = match.group()
        if token[0] in "[{":
            depth += token.count("[") + token.count("{")
        elif token[0] in "]}":
            for offset, char in enumerate(token):
                if char in "]}":
                    depth -= 1
                    if depth == 0:
                        return match.start() + offset + 1
    return None
