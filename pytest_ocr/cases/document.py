"""Reading a YAML or JSON file into plain data plus the line of every key.

Line numbers let every later error point at the exact place in the user's file.
YAML is read with PyYAML's SafeLoader only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import OcrError

KeyPath = tuple  # of str (mapping keys) and int (sequence indexes)

# libyaml's C parser when PyYAML was built with it (6x faster on large suites); both
# are the safe loader and both keep line marks on nodes.
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# A YAML alias is a shared reference; a document whose aliases expand to more
# nodes than this is refused instead of being walked for minutes.
MAX_EXPANDED_NODES = 1_000_000


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
            location = f"{self.path}:{p.line}" if p.line else str(self.path)
            out.append(f"  {location}: {p.where()}: {p.message}")
        return "\n".join(out)


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


def load(path: Path) -> Document:
    """Parse ``path`` (YAML unless it ends in .json). Raises DocumentError."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DocumentError(path, [Problem(None, (), f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    except OSError as exc:
        raise DocumentError(path, [Problem(None, (), f"cannot read: {exc.strerror}")]) from None

    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DocumentError(
                path, [Problem(exc.lineno, (), f"malformed JSON: {exc.msg} (column {exc.colno})")]
            ) from None
        try:  # JSON is YAML; composing it only to learn line numbers
            node = yaml.compose(text, Loader=SafeLoader)
        except yaml.YAMLError:
            node = None
        lines, problems = _walk(node) if node is not None else ({(): 1}, [])
    else:
        loader = SafeLoader(text)
        try:
            node = loader.get_single_node()
            lines, problems = _walk(node) if node is not None else ({(): 1}, [])
            if problems:
                raise DocumentError(path, problems)
            data = loader.construct_document(node) if node is not None else None
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            what = " ".join(s for s in (exc.context, exc.problem) if s)
            raise DocumentError(
                path, [Problem(mark.line + 1 if mark else None, (), f"malformed YAML: {what}")]
            ) from None
        except yaml.YAMLError as exc:
            raise DocumentError(path, [Problem(None, (), f"malformed YAML: {exc}")]) from None
        finally:
            loader.dispose()
    if problems:
        raise DocumentError(path, problems)
    return Document(path, data, lines)


def _walk(root: yaml.Node) -> tuple[dict, list[Problem]]:
    """Line of each key path; duplicate and non-string keys; alias bombs."""
    lines: dict = {}
    problems: list[Problem] = []
    visited: set[int] = set()
    sizes: dict[int, int] = {}

    def expanded_size(node: yaml.Node) -> int:
        if id(node) not in sizes:
            sizes[id(node)] = 1  # guards recursive aliases
            if isinstance(node, yaml.MappingNode):
                sizes[id(node)] = 1 + sum(expanded_size(v) for _, v in node.value)
            elif isinstance(node, yaml.SequenceNode):
                sizes[id(node)] = 1 + sum(expanded_size(v) for v in node.value)
        return sizes[id(node)]

    if expanded_size(root) > MAX_EXPANDED_NODES:
        return {(): 1}, [
            Problem(1, (), f"document expands to more than {MAX_EXPANDED_NODES} nodes through YAML aliases")
        ]

    def walk(node: yaml.Node, keypath: KeyPath) -> None:
        lines.setdefault(keypath, node.start_mark.line + 1)
        if id(node) in visited:  # an alias: its lines are those of the anchor
            return
        visited.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for key_node, value_node in node.value:
                line = key_node.start_mark.line + 1
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                    problems.append(Problem(line, keypath, f"keys must be strings; quote {key_node.value!r}"))
                    continue
                key = key_node.value
                if key in seen:
                    problems.append(
                        Problem(line, keypath + (key,), f"duplicate key {key!r} (first on line {seen[key]})")
                    )
                    continue
                seen[key] = line
                lines[keypath + (key,)] = line
                walk(value_node, keypath + (key,))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, keypath + (index,))

    walk(root, ())
    return lines, problems
