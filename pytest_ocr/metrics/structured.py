"""Structured output: does an engine's raw output parse as JSON or XML, and does the
JSON satisfy a JSON Schema.

Vision LLMs often wrap their answer in a markdown code fence, with or without prose
around it, so a fenced block counts: the whole output is tried first, then the first
fenced block labelled ``json`` (or ``xml``) or not labelled at all. A fence still
open at the end (a truncated answer) runs to the end of the output.

The output is untrusted: JSON's NaN and Infinity (not JSON, though Python reads
them) are rejected, nesting too deep for the parser is an error rather than a crash,
and XML goes through defusedxml, which refuses entity declarations (billion laughs)
and external references instead of expanding them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from typing import NoReturn

# jsonschema and defusedxml are imported where a schema or XML is checked: most runs check neither.

# An opening fence at a line start with an optional language tag; the content runs to
# a closing fence at a line start, or to the end of the text.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```|\Z)", re.DOTALL | re.MULTILINE)


def _fenced_blocks(text: str, language: str) -> Iterator[tuple[str, int]]:
    """(content, line number of its first line) of fences labelled ``language`` or unlabelled."""
    for m in _FENCE.finditer(text):
        if m.group(1).lower() in ("", language):
            yield m.group(2), text.count("\n", 0, m.start(2)) + 1


def _first_fenced(text: str, language: str) -> tuple[str, int] | None:
    return next(_fenced_blocks(text, language), None)


# -- JSON ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class JsonOutput:
    value: object  # the parsed value (None when it did not parse, or for JSON null)
    fenced: bool  # the JSON came from inside a code fence
    error: str | None  # why it did not parse, with line and column in the raw output

    @property
    def valid(self) -> bool:
        return self.error is None


def _reject_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not valid JSON")


def _loads(text: str, first_line: int) -> tuple[object, str | None]:
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except json.JSONDecodeError as e:
        return None, f"{e.msg}: line {e.lineno + first_line - 1} column {e.colno}"
    except RecursionError:
        return None, "nested too deeply to parse"
    except ValueError as e:  # NaN/Infinity, integers beyond Python's digit limit
        return None, str(e)


def parse_json_output(text: str) -> JsonOutput:
    """The JSON in an engine's raw output: the whole output, else its first ``json`` or
    unlabelled code fence. The error is the fence's when there is one (that is what
    the engine meant as JSON), else the whole output's."""
    value, error = _loads(text, 1)
    if error is None:
        return JsonOutput(value, False, None)
    block = _first_fenced(text, "json")
    if block is None:
        return JsonOutput(None, False, error)
    value, error = _loads(*block)
    return JsonOutput(value, True, error)


# -- JSON Schema -------------------------------------------------------------------------


def _pointer(path: Iterable[str | int]) -> str:
    """RFC 6901 JSON pointer of a jsonschema error path: ``/items/0/total``; "" is the root."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def check_schema(schema: object) -> list[str]:
    """Problems with a JSON Schema itself (empty when it is usable): an unknown
    ``$schema``, or every violation of its draft's metaschema, each with its pointer."""
    if not isinstance(schema, (Mapping, bool)):
        return [f"a JSON Schema is a mapping (or true/false), not {type(schema).__name__}"]
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    if isinstance(schema, Mapping) and "$schema" in schema and validator_for(schema, default=None) is None:
        return [f"unknown $schema {schema['$schema']!r}: not a JSON Schema draft jsonschema knows"]
    cls = validator_for(schema, default=Draft202012Validator)
    # What cls.check_schema does, but listing every error instead of raising the first.
    meta = validator_for(cls.META_SCHEMA, default=cls)(cls.META_SCHEMA, format_checker=cls.FORMAT_CHECKER)
    errors = sorted(meta.iter_errors(schema), key=lambda e: (_pointer(e.absolute_path), e.message))
    return [f"{_pointer(e.absolute_path) or '/'}: {e.message}" for e in errors]


def schema_errors(instance: object, schema: object, limit: int | None = None) -> list[dict]:
    """Every way ``instance`` violates ``schema`` (jsonschema's iter_errors), as
    {pointer, keyword, message}, sorted by pointer; with ``limit``, only the first
    ``limit`` found (a 10 MB array can have a million errors). The validator is the
    schema's ``$schema`` draft, Draft 2020-12 when it has none; ``format`` is an
    annotation, as that draft specifies, not checked."""
    problems = check_schema(schema)
    if problems:
        raise ValueError("invalid JSON Schema: " + "; ".join(problems))
    from jsonschema import Draft202012Validator
    from jsonschema.validators import validator_for

    validator = validator_for(schema, default=Draft202012Validator)(schema)
    try:
        errors = [
            {"pointer": _pointer(e.absolute_path), "keyword": e.validator, "message": e.message}
            for e in islice(validator.iter_errors(instance), limit)
        ]
    except RecursionError:
        return [{"pointer": "", "keyword": None, "message": "nested too deeply to validate"}]
    return sorted(errors, key=lambda e: (e["pointer"], e["message"]))


@dataclass(frozen=True)
class SchemaCheck:
    output: JsonOutput
    errors: list[dict]
    listed: int | None = None  # errors were listed up to this many, and there were more

    @property
    def valid(self) -> bool:
        return self.output.valid and not self.errors

    def details(self) -> dict:
        more = {} if self.listed is None else {"validation_errors_listed": self.listed}
        return {
            "parsing_error": self.output.error,
            "fenced": self.output.fenced,
            "validation_errors": self.errors,
            **more,
        }


def validate_output(output: JsonOutput, schema: object, limit: int | None = None) -> SchemaCheck:
    """Schema compliance of parsed output; output that is not JSON is not compliant,
    for the reason in its parsing error. With ``limit``, at most that many errors are
    listed (the first found), and ``listed`` says so when there were more."""
    if not output.valid:
        return SchemaCheck(output, [])
    errors = schema_errors(output.value, schema, None if limit is None else limit + 1)
    if limit is not None and len(errors) > limit:
        return SchemaCheck(output, schema_errors(output.value, schema, limit), limit)
    return SchemaCheck(output, errors)


# -- XML -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class XmlOutput:
    fenced: bool
    error: str | None

    @property
    def valid(self) -> bool:
        return self.error is None


class _NoTree:
    """A parser target that builds nothing: well-formedness needs no tree, and a 10 MB
    output of a million elements would make one of hundreds of MB."""

    def close(self) -> None:
        return None


def _xml_error(text: str, first_line: int) -> str | None:
    import defusedxml
    import defusedxml.ElementTree

    stripped = text.lstrip()  # an XML declaration must come first; models add blank lines
    first_line += text.count("\n", 0, len(text) - len(stripped))
    try:
        # defusedxml.ElementTree.fromstring with a target that keeps nothing
        parser = defusedxml.ElementTree.DefusedXMLParser(target=_NoTree())
        parser.feed(stripped)
        parser.close()
    except defusedxml.ElementTree.ParseError as e:
        line, column = e.position  # expat counts columns from 0
        reason = str(e).split(": line ")[0]
        return f"{reason}: line {line + first_line - 1} column {column + 1}"
    except defusedxml.EntitiesForbidden as e:
        return f"entity declaration {e.name!r} refused (defusedxml: entities could expand without bound)"
    except defusedxml.DefusedXmlException as e:  # external references, DTDs where forbidden
        return f"refused by defusedxml: {e!r}"
    return None


def parse_xml_output(text: str) -> XmlOutput:
    """Whether an engine's raw output is well-formed XML: the whole output, else its
    first ``xml`` or unlabelled code fence."""
    error = _xml_error(text, 1)
    if error is None:
        return XmlOutput(False, None)
    block = _first_fenced(text, "xml")
    if block is None:
        return XmlOutput(False, error)
    return XmlOutput(True, _xml_error(*block))


def valid_rate(counts: Mapping) -> float:
    """Share of valid outputs (a run's micro average is its validity rate)."""
    return counts["valid"] / counts["outputs"] if counts["outputs"] else 0.0
