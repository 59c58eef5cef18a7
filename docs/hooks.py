"""mkdocs hook: the reference pages' tables, generated from the code when the site is built.

A page asks for one with a marker line, ``<!-- generated: NAME -->``; the hook replaces it with
the Markdown ``GENERATORS[NAME]`` writes. The sources are the ones pytest-ocr itself reads (the
case-file and report JSON schemas, pytest's parser with the ocr options, the ``pytest-ocr``
command's argparse, the metric registry), so the pages cannot drift from them. Nothing here
reads the network.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.M)


def cell(text: object) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


# -- JSON schemas ---------------------------------------------------------------------------------


def _schema(package: str, name: str) -> dict[str, Any]:
    return json.loads(resources.files(package).joinpath(name).read_text(encoding="utf-8"))


def _type(node: dict[str, Any]) -> str:
    """What a value may be, in a few words; a $ref links to its definition's section."""
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        return f"[{name}](#{name.lower()})"
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " or ".join(f"`{json.dumps(value)}`" for value in node["enum"])
    for combinator in ("oneOf", "anyOf"):
        if combinator in node:
            return " or ".join(_type(option) for option in node[combinator])
    kind = node.get("type", "any")
    kind = " or ".join(kind) if isinstance(kind, list) else kind
    if kind == "array" and isinstance(node.get("items"), dict):
        return f"array of {_type(node['items'])}"
    if kind == "object" and isinstance(node.get("additionalProperties"), dict) and "properties" not in node:
        return f"mapping of {_type(node['additionalProperties'])}"
    bounds = [f"{word} {node[key]}" for key, word in (("minimum", "≥"), ("maximum", "≤")) if key in node]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _meaning(node: dict[str, Any], definitions: dict[str, Any]) -> str:
    """A key's own description, else the one of the definition it refers to."""
    if node.get("description"):
        return str(node["description"])
    if "$ref" in node:
        return str(definitions.get(node["$ref"].rsplit("/", 1)[1], {}).get("description", ""))
    return ""


def _describe(name: str, node: dict[str, Any], level: int, definitions: dict[str, Any]) -> str:
    parts = [f"{'#' * level} {name}", ""]
    if node.get("description"):
        parts += [node["description"], ""]
    properties = node.get("properties") or {}
    if properties:
        required = set(node.get("required", ()))
        rows = [
            (
                f"`{key}`" + (" (required)" if key in required else ""),
                cell(_type(value)),
                cell(_meaning(value, definitions)),
            )
            for key, value in properties.items()
        ]
        parts += [table(("key", "value", "meaning"), rows), ""]
    elif node:
        parts += [f"Value: {_type({k: v for k, v in node.items() if k != 'description'})}.", ""]
    return "\n".join(parts)


def schema_reference(schema: dict[str, Any]) -> str:
    """The top level, then every definition in the schema's own order, each a section its
    references link to."""
    top = {key: value for key, value in schema.items() if key not in ("$defs", "$schema", "$id", "title")}
    definitions = schema.get("$defs", {})
    parts = [_describe("Top level", top, 3, definitions)]
    parts += [_describe(name, node, 3, definitions) for name, node in definitions.items()]
    return "\n".join(parts)


def case_file_schema() -> str:
    return schema_reference(_schema("pytest_ocr.cases", "case-file.schema.json"))


def report_schema() -> str:
    return schema_reference(_schema("pytest_ocr.report", "report.schema.json"))


# -- options ---------------------------------------------------------------------------------------


def pytest_options() -> str:
    """pytest-ocr's command-line and ini options as pytest's own parser holds them."""
    from _pytest.config.argparsing import Parser

    from pytest_ocr import plugin

    parser = Parser(_ispytest=True)
    plugin.pytest_addoption(parser)
    rows = []
    for option in parser.getgroup("ocr").options:
        attrs = option.attrs()
        names = ", ".join(f"`{name}`" for name in option.names())
        metavar = attrs.get("metavar") or ("|".join(attrs["choices"]) if attrs.get("choices") else "")
        if metavar and attrs.get("action") not in ("store_true", "store_false"):
            names = ", ".join(f"`{name}={metavar}`" for name in option.names())
        rows.append((cell(names), cell(attrs.get("help", "").replace("%%", "%"))))  # argparse's escape
    ini = [
        (f"`{name}`", cell(help_), cell(f"`{' '.join(default) if isinstance(default, list) else default}`"))
        for name, (help_, _kind, default) in parser._inidict.items()
    ]
    return "\n".join(
        [
            "### Command line",
            "",
            table(("option", "what it does"), rows),
            "",
            "### Ini options",
            "",
            table(("ini option", "what it sets", "default"), ini),
            "",
        ]
    )


def cli_help() -> str:
    """``pytest-ocr --help`` and each command's ``--help``, as its argparse prints them."""
    from pytest_ocr import cli

    os.environ["COLUMNS"] = "100"  # argparse wraps at the terminal's width: the page's is fixed
    main = cli.parser()
    parts = ["### pytest-ocr", "", "```text", main.format_help().rstrip(), "```", ""]
    commands = next(a for a in main._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in commands.choices.items():
        parts += [f"### pytest-ocr {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


# -- metrics ---------------------------------------------------------------------------------------


def metric_registry() -> str:
    from pytest_ocr.metrics import DEFAULT_METRICS, METRICS, NEEDS

    rows = [
        (
            f"`{name}`" + (" (default)" if name in DEFAULT_METRICS else ""),
            info.better,
            cell(info.unit),
            cell(NEEDS.get(info.needs, info.needs)),
            cell(info.description),
        )
        for name, info in METRICS.items()
    ]
    return table(("metric", "better", "unit", "needs", "what it is"), rows) + "\n"


def library_names() -> str:
    """Every name of ``pytest_ocr.metrics.__all__``: what it is, its signature (a constant: its
    value), its docstring's first paragraph."""
    import inspect

    from pytest_ocr import metrics

    rows = []
    for name in sorted(metrics.__all__, key=str.casefold):
        value = getattr(metrics, name)
        if inspect.isclass(value) or (callable(value) and not isinstance(value, metrics.Normalization)):
            kind = "class" if inspect.isclass(value) else "function"
            try:
                shown = str(inspect.signature(value)).replace(repr(metrics.DEFAULT), "DEFAULT")
            except (TypeError, ValueError):  # a builtin without one
                shown = ""
            doc = inspect.getdoc(value) or ""
            summary = "" if doc.startswith(name + "(") else " ".join(doc.split("\n\n")[0].split())
        else:
            kind, summary = "constant", ""
            shown = repr(value)
            if len(shown) > 120:  # the metric registry, the profiles: their names
                shown = f"{type(value).__name__}: {', '.join(map(str, value))}" if isinstance(value, dict) else shown
        rows.append((f"`{name}`", kind, cell(f"`{shown}`" if shown else ""), cell(summary.replace("``", "`"))))
    return table(("name", "kind", "signature or value", "what it is"), rows) + "\n"


GENERATORS: dict[str, Callable[[], str]] = {
    "case-file-schema": case_file_schema,
    "report-schema": report_schema,
    "pytest-options": pytest_options,
    "cli-help": cli_help,
    "metrics": metric_registry,
    "library-names": library_names,
}


def expand(markdown: str) -> str:
    """Every marker replaced by what its generator writes; an unknown one is an error."""

    def generated(match: re.Match[str]) -> str:
        name = match[1]
        if name not in GENERATORS:
            raise ValueError(f"unknown generated section {name!r}; known: {', '.join(GENERATORS)}")
        return GENERATORS[name]()

    return MARKER.sub(generated, markdown)


CODE_SPAN = re.compile(r"`[^`\n]*`")


def for_the_site(markdown: str) -> str:
    """GitHub needs a pipe in a table's code span escaped (`a\\|b`), and shows it as a pipe;
    Python-Markdown splits no row inside a code span and would show the backslash. The
    pages are written for GitHub; the site gets the pipes bare."""
    lines = markdown.split("\n")
    for index, line in enumerate(lines):
        if line.startswith("|"):
            lines[index] = CODE_SPAN.sub(lambda span: span[0].replace("\\|", "|"), line)
    return "\n".join(lines)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return for_the_site(expand(markdown))
