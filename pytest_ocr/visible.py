"""Untrusted text made visible: the one rule for every terminal and CI output.

Text that comes from engines (OCR output, error messages), case and dataset files
(ids, file names, values) or stored reports can hold characters a terminal or a CI
log acts on instead of showing: ANSI escape sequences (ESC), carriage returns that
overwrite a line, NUL, direction overrides that make a line read differently from
what it holds (RLO U+202E, ...). And a line of it can be a GitHub Actions workflow
command: the runner reads every line of a job's output that starts with ``::`` (after
leading whitespace) as one (``::add-mask::``, ``::stop-commands::``, ``::error::``),
and ``##[command]`` anywhere in a line (the old syntax).

``visible`` shows such characters as Python-style escapes, so a reader sees what was
sent (``\\x1b``, ``\\r``, ``\\x00``, ``\\u202e``), not U+FFFD: control characters (Cc:
C0, DEL, C1; TAB and LF too unless ``multiline``), format characters (Cf: bidi marks,
embeddings, overrides and isolates, zero-width characters, ...), lone surrogates and
the line and paragraph separators (U+2028, U+2029). It makes workflow commands inert:
a line that would start with ``::`` shows its first colon as ``\\x3a``, and ``##[``
becomes ``##\\x5b``. Backslashes are left as they are (Windows paths stay readable);
the JSON report holds every text exactly.

``visible`` is idempotent: its output contains nothing it would change, so a text can
be made visible once where it is composed and again where it is printed.
"""

from __future__ import annotations

import unicodedata

# Shown as escapes: control, format, surrogate, line and paragraph separator.
_ESCAPED = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_COMMAND = "::"  # a workflow command, at the start of a line after whitespace
_OLD_COMMAND = "##["  # the old syntax, anywhere in a line
_INERT_OLD_COMMAND = "##\\x5b"
_INERT_COLON = "\\x3a"


def escape_char(ch: str) -> str:
    """One character as Python writes it in a string literal: ``\\n``, ``\\x1b``, ``\\u202e``, ``\\U000e0001``."""
    short = _SHORT.get(ch)
    if short is not None:
        return short
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def is_hidden(ch: str) -> bool:
    """Whether a terminal or log could act on the character instead of showing it."""
    return not ch.isprintable() and unicodedata.category(ch) in _ESCAPED


def _inert_line(line: str) -> str:
    stripped = line.lstrip()
    if not stripped.startswith(_COMMAND):
        return line
    start = len(line) - len(stripped)
    return line[:start] + _INERT_COLON + line[start + 1 :]


def inert_commands(text: str) -> str:
    """``text`` with no workflow command in it: ``##[`` anywhere, ``::`` starting a line."""
    text = text.replace(_OLD_COMMAND, _INERT_OLD_COMMAND)
    if _COMMAND not in text:
        return text
    return "\n".join(_inert_line(line) for line in text.split("\n"))


def visible(text: str, *, multiline: bool = False) -> str:
    """Untrusted text for a terminal line, a CI log or a Markdown cell: hidden characters
    as escapes, workflow commands inert. One line unless ``multiline``, which keeps LF
    and TAB (a block such as an engine's error message with its traceback)."""
    if text.isprintable() and _COMMAND not in text and _OLD_COMMAND not in text:
        return text  # the common case, checked in C
    kept = "\n\t" if multiline else ""
    shown = "".join(escape_char(ch) if ch not in kept and is_hidden(ch) else ch for ch in text)
    return inert_commands(shown)


def _json_escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # a UTF-16 surrogate pair, as JSON writes a character outside the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def visible_json(document: str) -> str:
    """A JSON text (``json.dumps`` with ``ensure_ascii=False``) made safe to print and still
    the same JSON: hidden characters inside strings written as ``\\uXXXX`` escapes, and the
    ``[`` of ``##[`` as ``\\u005b``. No line of it starts with ``::`` (every string starts
    with a quote)."""
    shown = "".join(_json_escape(ch) if ch not in "\n" and is_hidden(ch) else ch for ch in document)
    return shown.replace(_OLD_COMMAND, "##\\u005b")
