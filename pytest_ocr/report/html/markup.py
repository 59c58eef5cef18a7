"""What every part of the HTML report writes with: untrusted text made inert HTML or
inert embedded JSON, the page's assets, the engines' colours, links into the case list."""

from __future__ import annotations

import base64
import hashlib
import html
import json
import math
import re
from importlib import resources
from urllib.parse import urlencode

from ...run.result import CaseResult
from ...storable import json_safe
from ..numbers import number

COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")


# Directional overrides and control characters (but tab, newline, carriage return):
# shown as U+FFFD, since they could make text read differently from what it holds.
_HIDDEN = {
    cp: "\ufffd"
    for cp in (
        *range(0x00, 0x09),
        0x0B,
        0x0C,
        *range(0x0E, 0x20),
        *range(0x7F, 0xA0),
        0x200E,
        0x200F,
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
}
# In embedded JSON: no character that could end the script element or a JavaScript
# line; the hidden ones as escapes too, so that the file's source reads true.
_JSON_ESCAPES = {
    "<": "\\u003c",
    ">": "\\u003e",
    "&": "\\u0026",
    "\u2028": "\\u2028",
    "\u2029": "\\u2029",
    **{chr(cp): f"\\u{cp:04x}" for cp in _HIDDEN},
}
_JSON_UNSAFE = re.compile("[" + re.escape("".join(_JSON_ESCAPES)) + "]")  # rare: faster than str.translate


def asset(name: str) -> str:
    return resources.files("pytest_ocr.report").joinpath("html_assets").joinpath(name).read_text(encoding="utf-8")


def sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def shown(value: object) -> str:
    """Untrusted text with directional overrides and control characters, which could make
    it read differently from what it holds, as U+FFFD (for a script to show as text)."""
    return str(value).translate(_HIDDEN)


def esc(value: object) -> str:
    """Untrusted text as inert HTML, hidden characters shown (``shown``)."""
    return html.escape(shown(value), quote=True)


def embed_json(value: object) -> str:
    """JSON that is inert inside a <script type="application/json"> element; NaN and
    infinities null, as the JSON report holds them."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except ValueError:
        text = json.dumps(json_safe(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group()], text)


def colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def finite(value: float | None) -> float | None:
    """A value as the JSON report holds it: NaN and infinities as none (storable.json_safe)."""
    return value if value is None or math.isfinite(value) else None


def fixed(value: float | None, digits: int) -> str:
    """A time or a rate, at the precision the terminal shows it (metric values go through numbers.py)."""
    return number(None) if value is None else f"{value:.{digits}f}"


def case_link(result: CaseResult, outcome: str | None = None) -> str:
    """A link that opens the item in the case list (filtered by ``outcome``, so the
    reader can page through its neighbours), its text the item's id."""
    query = {"view": "cases", **({"outcome": outcome} if outcome else {}), "case": result.id}
    return f'<a class="case-link" href="#{esc(urlencode(query))}">{esc(result.id)}</a>'


def filter_link(text: str, **query: str) -> str:
    return f'<a href="#{esc(urlencode({"view": "cases", **query}))}">{esc(text)}</a>'
