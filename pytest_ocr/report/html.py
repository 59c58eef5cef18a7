"""The HTML report (``--ocr-html PATH``): one self-contained file, written atomically.

The run, the per-engine summary, the comparison with a baseline, the dataset
accounting and the charts (inline SVG) are rendered here. The cases are embedded as
JSON and rendered by the page's script on demand, one page of rows at a time and a
case's details when it is opened, so 5,000 cases open fast. A case carries its texts
as given and, when its normalisation changed them, as scored (what the metrics
compared), each with its alignment, so the diff can show either.
Each image's thumbnail is embedded once, in a data block of its own that the script
reads only when a case showing it is opened.

Everything that comes from engines, case files and configuration is untrusted text.
Here it goes through ``html.escape``; embedded JSON escapes ``<``, ``>``, ``&`` and
U+2028/2029, so no string can end its script element; the script inserts text with
``textContent`` only. A Content-Security-Policy admits this file's own script and
style (by hash) and ``data:`` images, and nothing else: markup that slipped through
would not run, and the page makes no network request.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import os
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from ..engines.cache import file_sha256
from ..errors import OcrError
from ..media import pages
from ..media.images import open_image
from ..media.pages import DEFAULT_DPI, Page
from ..metrics import FIELD_METRICS, METRICS
from ..metrics.align import iter_opcodes
from ..metrics.normalize import PROFILES, UNICODE_FORMS, WHITESPACE_STEPS, Normalization
from ..run.aggregate import DatasetSummary, metric_order
from ..run.comparison import Comparison as BaselineView
from ..run.identity import relative_paths
from ..run.record import RunRecord
from ..run.result import CaseResult
from ..scoring.tolerance import Delta
from . import json_report
from .markdown_view import markdown_tree
from .numbers import STABILITY_ROWS, fact_rows, number, signed, stability_cell
from .reasons import noise_lines

THUMBNAIL_BOX = (1000, 1000)  # at most this wide and tall: enough to see the layout, never the original
JPEG_QUALITY = 75
THUMB_ID = "ocr-thumb-"
DATA_ID = "ocr-data"
# Per-case keys copied from the report unchanged; the page adds the diff, the
# confusions, the field check and the thumbnail (the rest of `details` stays out).
CASE_KEYS = (
    "id",
    "case",
    "file",
    "line",
    "engine",
    "image",
    "facts",  # the verdict of each check, None without checks
    "page",  # a PDF's: the page engines read, and its dpi (None for an image)
    "dpi",
    "tags",
    "group",
    "outcome",
    "reference",
    "prediction",
    "confidence",
    "metrics",
    "thresholds",
    "checks",
    "error",
    "duration_s",
    "inference_s",
    "cached",
    "fields",
    "fields_source",
    "warnings",
    "baseline",
    "source_file",  # a dataset item's own entry (label-file line, ground-truth file): None elsewhere
    "source_line",
)
DIFF_KINDS = {"equal": 0, "replace": 1, "delete": 2, "insert": 3}
CER_BINS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)  # upper edges; CER 0 and CER above 1 get bins of their own
MAX_SCATTER_PAIRS = 3
MAX_GROUPS = 40
LISTED_ITEMS = 20  # per engine and kind in the overview's baseline section; the case list has them all
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


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("html_assets").joinpath(name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def esc(value: object) -> str:
    """Untrusted text as inert HTML; directional overrides and control characters,
    which could make it read differently from what it holds, shown as U+FFFD."""
    return html.escape(str(value).translate(_HIDDEN), quote=True)


def embed_json(value: object) -> str:
    """JSON that is inert inside a <script type="application/json"> element."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return _JSON_UNSAFE.sub(lambda m: _JSON_ESCAPES[m.group()], text)


# -- per-case data --------------------------------------------------------------------------


def diff_ops(reference: str, prediction: str) -> list[int]:
    """The character alignment as flat triples (kind, reference length, prediction
    length), kind 0 equal, 1 substituted, 2 deleted, 3 inserted; lengths in code points.
    Texts beyond ``--ocr-max-align-chars`` take the metrics' bounded path, so a hostile
    output costs the report no more than it cost the scoring."""
    ops: list[int] = []
    for tag, i1, i2, j1, j2 in iter_opcodes(reference, prediction):
        ops += (DIFF_KINDS[tag], i2 - i1, j2 - j1)
    return ops


# The text metrics record the case's normalisation as the steps it applied; any of them will do.
_NORMALIZED_METRICS = ("cer", "ned", "exact_match", "wer")
_SWITCHES = ("casefold", "remove_punctuation")
_WHITESPACE = {step: whitespace for whitespace, step in WHITESPACE_STEPS.items()}


def scoring_normalization(steps: Iterable[str] | None) -> Normalization | None:
    """The normalisation the metrics applied, rebuilt from the steps they recorded
    (``Normalization.steps``). Every option that changes the text is a step of its own,
    so the steps are enough; the unit is not among them, but it changes only how the
    text is counted, not the text. None when there are no steps, or a step this version
    does not know (a report from a newer pytest-ocr): better no scored view than a wrong one."""
    if steps is None:
        return None
    options: dict[str, object] = {"unicode": "none", "whitespace": "keep"}
    for step in steps:
        name, _, value = step.partition(":")
        if step in UNICODE_FORMS:
            options["unicode"] = step
        elif name == "equivalences" and value:
            try:
                table = json.loads(value)
            except ValueError:
                return None
            if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
                return None
            options["equivalences"] = table
        elif name == "profile" and value in PROFILES:
            options["profile"] = value
        elif step in _SWITCHES:
            options[step] = True
        elif step in _WHITESPACE:
            options["whitespace"] = _WHITESPACE[step]
        else:
            return None
    try:
        return Normalization.from_dict(options)
    except ValueError:
        return None


def recorded_steps(details: dict) -> list[str] | None:
    return next(
        (details[m]["normalization"] for m in _NORMALIZED_METRICS if "normalization" in details.get(m, {})), None
    )


def scored_texts(reference: str | None, prediction: str | None, details: dict) -> dict | None:
    """What the metrics compared: both texts after the case's normalisation and their
    alignment; ``{"same": true}`` when normalising changed neither text, and a side left
    null when it is the text as given (the page has that already). None when there is
    no pair of texts, or its normalisation cannot be rebuilt."""
    if reference is None or prediction is None:
        return None
    normalization = scoring_normalization(recorded_steps(details))
    if normalization is None:
        return None
    ref, hyp = normalization(reference), normalization(prediction)
    if ref == reference and hyp == prediction:
        return {"same": True}
    return {
        "reference": None if ref == reference else ref,
        "prediction": None if hyp == prediction else hyp,
        "diff": diff_ops(ref, hyp),
    }


def baseline_change(result: CaseResult) -> str | None:
    """How the item moved against the baseline: ``regressed`` (the one definition, see
    scoring/tolerance.py), ``improved`` (a compared metric got better and none worse),
    ``new`` (the baseline has no record of it), or None (unchanged, mixed, or no baseline)."""
    comparison = result.baseline
    if comparison is None:
        return None
    if comparison.status == "new":
        return "new"
    if comparison.regressed:
        return "regressed"
    verdicts = {d.verdict for d in comparison.deltas}
    return "improved" if "better" in verdicts and "worse" not in verdicts else None


def _fields_check(details: dict) -> dict | None:
    """Missing, incorrect (with both values) and extra key fields, from the field metrics' details."""
    scored = next((details[m] for m in FIELD_METRICS if m in details), None)
    absent = details.get("field_completeness", {}).get("absent_fields", [])
    if scored is None and not absent:
        return None
    scored = scored or {}
    return {
        "missing": scored.get("missing_fields", []),
        "incorrect": scored.get("mismatches", {}),
        "extra": scored.get("extra_fields", []),
        "absent": absent,
    }


def case_data(record: dict, thumb: int | None, thumb_error: str | None, change: str | None = None) -> dict:
    data = {key: record.get(key) for key in CASE_KEYS}
    reference, prediction = record.get("reference"), record.get("prediction")
    details = record.get("details") or {}
    cer = details.get("cer", {})
    data["diff"] = diff_ops(reference, prediction) if reference is not None and prediction is not None else None
    # No reference to compare with (a page checked by facts): the output itself, rendered, failed facts marked.
    spans = [[tuple(span) for span in f.get("spans") or ()] for f in record.get("facts") or ()]
    data["output"] = markdown_tree(prediction, spans) if reference is None and prediction is not None else None
    data["scored"] = scored_texts(reference, prediction, details)
    data["normalization"] = recorded_steps(details)
    data["change"] = change
    data["confusions"] = cer.get("confusions", [])
    data["fields_check"] = _fields_check(details)
    data["thumb"] = thumb
    data["thumb_error"] = thumb_error
    return data


# -- thumbnails -----------------------------------------------------------------------------


def thumbnail(path: Path | Page) -> str:
    """A JPEG data URL of the image scaled down into THUMBNAIL_BOX (first frame of a TIFF),
    or of a PDF's page as engines read it, rendered to fit the box (media/pages.py).

    Only an image that passes ``open_image`` (a regular file within the size and pixel
    limits) is decoded; it also sets Pillow's own limit to the same number of pixels."""
    from PIL import Image  # only here: the rest of the report needs no Pillow

    if isinstance(path, Page):
        return _jpeg(pages.thumbnail(path, THUMBNAIL_BOX))
    with open_image(path) as file, Image.open(file) as image:
        image.draft("RGB", THUMBNAIL_BOX)  # JPEG: decode at a reduced scale, much faster
        return _jpeg(image)


def _jpeg(image: Any) -> str:
    from PIL import Image

    if image.mode == "1":
        image = image.convert("L")  # so that scaling averages instead of dropping pixels
    image.thumbnail(THUMBNAIL_BOX)
    if image.mode in ("RGBA", "LA", "PA", "P") or "transparency" in image.info:
        rgba = image.convert("RGBA")
        image = Image.new("RGB", rgba.size, "white")
        image.paste(rgba, mask=rgba.getchannel("A"))
    elif image.mode not in ("L", "RGB"):
        image = image.convert("RGB")
    out = io.BytesIO()
    image.save(out, "JPEG", quality=JPEG_QUALITY)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def _attempt(make: Callable[[Any], str], path: Path | Page) -> tuple[str | None, str | None]:
    """(what ``make(path)`` gives, None), or (None, why not): whatever an image does
    wrong costs its picture, never the report."""
    try:
        return make(path), None
    except FileNotFoundError:
        return None, f"image not found: {path}"
    except OcrError as exc:  # not a regular file, beyond a limit: says so itself
        return None, str(exc)
    except Exception as exc:
        return None, f"image could not be read: {type(exc).__name__}: {exc}"


def _checked_sha256(path: Path | Page, pdfs: dict[Path, str]) -> str:
    """The file's sha256; a PDF's page's: the PDF's (hashed once, in ``pdfs``), page and dpi."""
    if isinstance(path, Page):
        if path.pdf not in pdfs:
            pdfs[path.pdf] = _checked_sha256(path.pdf, pdfs)
        return f"{pdfs[path.pdf]}#page={path.number}@{path.dpi}"
    open_image(path).close()
    return file_sha256(path)


def thumbnails(paths: list[Path | Page]) -> tuple[list[str], list[tuple[int | None, str | None]]]:
    """The thumbnails' data URLs, and per path (an image, or a PDF's page) (index of its
    thumbnail, None) or (None, why there is none). Identical files (copies, links) are
    decoded once. Pillow releases the GIL while decoding and scaling, so threads use every
    core (pdfium does not: pages are rendered one at a time)."""
    # In one thread: a pool costs more than small files. Checked first: a FIFO or a
    # device is never opened, a file beyond a limit never read.
    pdfs: dict[Path, str] = {}
    digests = [_attempt(lambda p: _checked_sha256(p, pdfs), p) for p in paths]
    first: dict[str, Path | Page] = {}
    for path, (digest, _) in zip(paths, digests, strict=True):
        if digest is not None:
            first.setdefault(digest, path)
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        made = dict(zip(first, pool.map(lambda p: _attempt(thumbnail, p), first.values()), strict=True))
    urls: list[str] = []
    index: dict[str, int] = {}
    for digest, (url, _) in made.items():
        if url is not None:
            index[digest] = len(urls)
            urls.append(url)
    per_path: list[tuple[int | None, str | None]] = []
    for digest, error in digests:
        if digest is None:
            per_path.append((None, error))
        else:
            per_path.append((index.get(digest), made[digest][1]))
    return urls, per_path


# -- charts (SVG) ---------------------------------------------------------------------------


def _colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _fixed(value: float | None, digits: int) -> str:
    """A time or a rate, at the precision the terminal shows it (metric values go through numbers.py)."""
    return number(None) if value is None else f"{value:.{digits}f}"


def _legend(engines: list[str], x: float, y: float) -> str:
    parts = []
    for i, engine in enumerate(engines):
        parts.append(
            f'<rect x="{x}" y="{y + i * 16}" width="10" height="10" fill="{_colour(i)}"/>'
            f'<text x="{x + 14}" y="{y + i * 16 + 9}">{esc(engine)}</text>'
        )
    return "".join(parts)


def _cer_bin(value: float) -> int:
    if value == 0:
        return 0
    for i, edge in enumerate(CER_BINS):
        if value <= edge:
            return i + 1
    return len(CER_BINS) + 1


def _bin_labels() -> list[str]:
    labels, low = ["0"], 0.0
    for edge in CER_BINS:
        labels.append(f"≤{edge:g}" if low == 0 else f"{low:g}–{edge:g}")
        low = edge
    return labels + [f">{CER_BINS[-1]:g}"]


def cer_histogram(records: list[dict], engines: list[str]) -> str:
    """Cases per CER bin, one bar per engine in each bin."""
    counts = {e: [0] * (len(CER_BINS) + 2) for e in engines}
    for r in records:
        value = (r.get("metrics") or {}).get("cer")
        if value is not None and r["engine"] in counts:
            counts[r["engine"]][_cer_bin(value)] += 1
    top = max((n for row in counts.values() for n in row), default=0)
    if not top:
        return '<p class="note">No item has a CER.</p>'
    labels = _bin_labels()
    width, height, left, bottom, top_pad = 760, 260, 44, 40, 12
    plot_w = width - left - 140
    plot_h = height - bottom - top_pad
    slot = plot_w / len(labels)
    bar = (slot - 6) / len(engines)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">',
        "<title>CER distribution: cases per CER range and engine</title>",
    ]
    for k in range(5):
        y = top_pad + plot_h * k / 4
        tick = top * (4 - k) / 4
        parts.append(f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" y2="{y:.1f}"/>')
        if tick == int(tick):  # counts: whole ticks only
            parts.append(f'<text class="tick" x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{int(tick)}</text>')
    for b, label in enumerate(labels):
        x0 = left + b * slot + 3
        for i, engine in enumerate(engines):
            n = counts[engine][b]
            h = plot_h * n / top
            parts.append(
                f'<rect x="{x0 + i * bar:.1f}" y="{top_pad + plot_h - h:.1f}" width="{bar:.1f}" '
                f'height="{h:.1f}" fill="{_colour(i)}"><title>{esc(engine)}: {_plural(n, "case")} with CER '
                f"{esc(label)}</title></rect>"
            )
        parts.append(
            f'<text class="tick" x="{x0 + (slot - 6) / 2:.1f}" y="{height - bottom + 14}" '
            f'text-anchor="middle">{esc(label)}</text>'
        )
    parts.append(f'<text class="axis" x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">CER</text>')
    parts.append(_legend(engines, left + plot_w + 16, top_pad))
    parts.append("</svg>")
    return "".join(parts)


def _nice_top(value: float) -> float:
    for top in (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0):
        if value <= top:
            return top
    return 1.0


def cer_scatter(records: list[dict], a: str, b: str) -> str:
    """Per case, engine a's CER against engine b's; the diagonal is a tie."""
    by_case: dict[tuple, dict[str, float]] = defaultdict(dict)
    for r in records:
        value = (r.get("metrics") or {}).get("cer")
        if value is not None and r["engine"] in (a, b):
            by_case[r["file"], r["case"]][r["engine"]] = value
    points = [(key, v[a], v[b]) for key, v in sorted(by_case.items()) if a in v and b in v]
    if not points:
        return ""
    top = _nice_top(max(max(x, y) for _, x, y in points))
    size, pad = 300, 44
    plot = size - pad - 12

    def px(value: float) -> float:
        return pad + plot * min(value, top) / top

    def py(value: float) -> float:
        return 12 + plot - plot * min(value, top) / top

    clipped = sum(x > top or y > top for _, x, y in points)
    parts = [
        f'<figure class="scatter"><svg class="chart" viewBox="0 0 {size} {size}" width="{size}" '
        f'height="{size}" role="img"><title>CER per case: {esc(a)} (x) against {esc(b)} (y)</title>',
        f'<rect class="frame" x="{pad}" y="12" width="{plot}" height="{plot}"/>',
        f'<line class="diagonal" x1="{pad}" y1="{12 + plot}" x2="{pad + plot}" y2="12"/>',
        f'<text class="tick" x="{pad}" y="{size - 18}" text-anchor="middle">0</text>',
        f'<text class="tick" x="{pad + plot}" y="{size - 18}" text-anchor="middle">{top:g}</text>',
        f'<text class="tick" x="{pad - 4}" y="{12 + plot}" text-anchor="end">0</text>',
        f'<text class="tick" x="{pad - 4}" y="20" text-anchor="end">{top:g}</text>',
        f'<text class="axis" x="{pad + plot / 2}" y="{size - 4}" text-anchor="middle">CER {esc(a)}</text>',
        f'<text class="axis" transform="translate(12 {12 + plot / 2}) rotate(-90)" '
        f'text-anchor="middle">CER {esc(b)}</text>',
    ]
    for (file, case), x, y in points:
        kind = "better-a" if x < y else "better-b" if y < x else "tie"
        parts.append(
            f'<circle class="{kind}" cx="{px(x):.1f}" cy="{py(y):.1f}" r="3"><title>{esc(file)} '
            f"{esc(case)}: {number(x)} vs {number(y)}</title></circle>"
        )
    parts.append("</svg>")
    note = f"{_plural(len(points), 'case')} run on both; below the diagonal {esc(b)} does better"
    if clipped:
        note += f"; {clipped} with a CER above {top:g} drawn on the edge"
    parts.append(f"<figcaption>{note}.</figcaption></figure>")
    return "".join(parts)


def group_bars(summary: dict, engines: list[str], metric: str) -> str:
    """The metric's macro mean per tag and group, one bar per engine (horizontal)."""
    keys = sorted({k for e in engines for k in (summary[e].get("groups") or {})})
    if not keys:
        return '<p class="note">No tags or groups.</p>'
    shown, more = keys[:MAX_GROUPS], len(keys) - MAX_GROUPS

    def value(engine: str, key: str) -> float | None:
        group = (summary[engine].get("groups") or {}).get(key) or {}
        return ((group.get("metrics") or {}).get(metric) or {}).get("macro")

    values = [value(e, k) for k in shown for e in engines]
    top = max([v for v in values if v is not None] + [0.0]) or 1.0
    label_w, bar_h, width = 180, 12, 640
    plot_w = width - label_w - 60
    row_h = bar_h * len(engines) + 8
    height = row_h * len(shown) + 30
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img">',
        f"<title>{esc(metric)} macro mean per tag and group</title>",
    ]
    for row, key in enumerate(shown):
        y0 = 4 + row * row_h
        parts.append(
            f'<text class="tick" x="{label_w - 6}" y="{y0 + row_h / 2 + 2:.1f}" '
            f'text-anchor="end">{esc(key[:32])}</text>'
        )
        for i, engine in enumerate(engines):
            v = value(engine, key)
            w = 0 if v is None else plot_w * v / top
            y = y0 + i * bar_h
            parts.append(
                f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h - 2}" fill="{_colour(i)}">'
                f"<title>{esc(engine)} {esc(key)}: {esc(metric)} {number(v)}</title></rect>"
                f'<text class="tick" x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}">{number(v)}</text>'
            )
    parts.append(
        f'<text class="axis" x="{label_w + plot_w / 2}" y="{height - 6}" text-anchor="middle">'
        f"{esc(metric)} macro (0 to {top:.4g})</text>"
    )
    parts.append("</svg>")
    if more > 0:
        parts.append(f'<p class="note">… and {more} more tags and groups (the JSON report has all).</p>')
    return "".join(parts)


# -- static sections ------------------------------------------------------------------------


def _summary_table(summary: dict, engines: list[str], metrics: list[str]) -> str:
    head = "".join(
        f'<th scope="col"><span class="swatch s{i % len(COLOURS)}"></span>{esc(e)}</th>' for i, e in enumerate(engines)
    )
    rows = []
    counted = ("cases", "passed", "failed", "errors") + tuple(
        f for f in ("filtered", "skipped") if any(summary[e].get(f) for e in engines)
    )
    for field in counted:
        cells = "".join(f'<td class="num">{esc(summary[e].get(field, 0))}</td>' for e in engines)
        rows.append(f'<tr class="{field}"><th scope="row">{field}</th>{cells}</tr>')
    for key, label, digits in (
        ("pages_per_s", "pages/s (engine time)", 2),
        ("mean_s", "s per page, mean", 3),
        ("p95_s", "s per page, p95", 3),
    ):
        values = [(summary[e].get("performance") or {}).get(key) for e in engines]
        if any(v is not None for v in values):
            cells = "".join(f'<td class="num">{_fixed(v, digits)}</td>' for v in values)
            rows.append(f'<tr><th scope="row">{label}</th>{cells}</tr>')
    stability = [summary[e].get("stability") or {} for e in engines]
    if any(stability):  # repeats: how alike each engine's outputs were
        for label, key in STABILITY_ROWS:
            cells = "".join(f'<td class="num">{stability_cell(s.get(key))}</td>' for s in stability)
            rows.append(f'<tr class="stability"><th scope="row">{label}</th>{cells}</tr>')
    for label, shown in fact_rows([summary[e].get("facts") for e in engines]):  # checks: olmOCR-Bench's score
        cells = "".join(f'<td class="num">{esc(v)}</td>' for v in shown)
        rows.append(f'<tr class="facts"><th scope="row">{esc(label)}</th>{cells}</tr>')
    for metric in metrics:
        better = METRICS[metric].better if metric in METRICS else None
        hint = f' <span class="hint">({better} is better)</span>' if better else ""
        for kind in ("macro", "micro"):
            cells = "".join(
                f'<td class="num">{number(((summary[e].get("metrics") or {}).get(metric) or {}).get(kind))}</td>'
                for e in engines
            )
            rows.append(f'<tr><th scope="row">{esc(metric)} {kind}{hint if kind == "macro" else ""}</th>{cells}</tr>')
        if metric == "cer":
            ci_cells = []
            for e in engines:
                ci = ((summary[e].get("metrics") or {}).get("cer") or {}).get("ci95")
                ci_cells.append(
                    f'<td class="num">{number(ci[0])}–{number(ci[1])}</td>'
                    if ci
                    else f'<td class="num">{number(None)}</td>'
                )
            rows.append(f'<tr><th scope="row">cer macro 95% CI</th>{"".join(ci_cells)}</tr>')
    return (
        f'<table class="summary"><thead><tr><th scope="col">engine</th>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        '<p class="note">macro = mean over cases; micro = pooled over cases (total errors / total length); '
        "the metrics every summary shows (CER, WER and those a case has a threshold on or asked for); "
        "every metric of a case is in its details and in the JSON report</p>"
    )


def _run_section(document: dict) -> str:
    run = document.get("run") or {}
    tool = document.get("tool") or {}
    items = [
        (
            "status",
            f"{run.get('status')}"
            + (
                f", {run.get('not_run')} not run: {run.get('interruption')}"
                if run.get("status") == "interrupted"
                else ""
            ),
        ),
        ("started", run.get("started_at")),
        ("finished", run.get("finished_at")),
        ("duration", f"{run['duration_s']:.1f} s" if isinstance(run.get("duration_s"), (int, float)) else None),
        ("workers", run.get("workers")),
        ("pytest", run.get("pytest")),
        ("python", run.get("python")),
        ("platform", run.get("platform")),
        (tool.get("name", "pytest-ocr"), tool.get("version")),
    ]
    shown = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items if v is not None)
    return f'<dl class="run">{shown}</dl>'


def _engines_section(engines: dict) -> str:
    rows = []
    for name, fp in engines.items():
        config = json.dumps(fp.get("config"), indent=2, ensure_ascii=False, sort_keys=True)
        rows.append(
            f"<tr><td>{esc(name)}</td><td>{esc(fp.get('type'))}</td><td>{esc(fp.get('version') or '–')}</td>"
            f"<td><code>{esc(fp.get('fingerprint_id'))}</code></td>"
            f"<td><details><summary>config</summary><pre>{esc(config)}</pre></details></td></tr>"
        )
    if not rows:
        return ""
    return (
        '<h3>Engines</h3><table class="engines"><thead><tr><th>engine</th><th>type</th><th>version</th>'
        f"<th>fingerprint</th><th>configuration</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _gates_section(gates: list[dict]) -> str:
    if not gates:
        return ""
    rows = "".join(
        f'<tr class="{"passed" if g.get("passed") else "failed"}"><td>{"passed" if g.get("passed") else "FAILED"}</td>'
        f'<td>{esc(g.get("name"))}</td><td class="num">{number(g.get("value"))}</td>'
        f'<td class="num">{esc(g.get("cases"))}</td><td class="text">{esc(g.get("message"))}</td></tr>'
        for g in gates
    )
    return (
        '<h3>Aggregate gates</h3><table class="gates"><thead><tr><th>verdict</th><th>gate</th><th>value</th>'
        f"<th>cases</th><th>message</th></tr></thead><tbody>{rows}</tbody></table>"
    )


def case_link(result: CaseResult, outcome: str | None = None) -> str:
    """A link that opens the item in the case list (filtered by ``outcome``, so the
    reader can page through its neighbours), its text the item's id."""
    query = {"view": "cases", **({"outcome": outcome} if outcome else {}), "case": result.id}
    return f'<a class="case-link" href="#{esc(urlencode(query))}">{esc(result.id)}</a>'


def _filter_link(text: str, **query: str) -> str:
    return f'<a href="#{esc(urlencode({"view": "cases", **query}))}">{esc(text)}</a>'


def _delta_text(delta: Delta) -> str:
    how = delta.how()
    return (
        f"{esc(delta.metric)} {number(delta.old)} → {number(delta.new)} ({signed(delta.change)}; "
        f"tolerance {esc(delta.tolerance)}{'; ' + esc(how) if how else ''})"
    )


def _item_list(kind: str, results: list[CaseResult], shown: Callable[[CaseResult], str], engine: str) -> str:
    if not results:
        return ""
    items = "".join(f"<li>{case_link(r, kind)}{shown(r)}</li>" for r in results[:LISTED_ITEMS])
    more = len(results) - LISTED_ITEMS
    everything = _filter_link(f"all {len(results)} {kind} items", engine=engine, outcome=kind)
    rest = f'<p class="note">… and {more} more: {everything}</p>' if more > 0 else ""
    return f'<h4>{kind.capitalize()} ({len(results)})</h4><ol class="{kind}">{items}</ol>{rest}'


def _regressed_note(r: CaseResult) -> str:
    deltas = [d for d in (r.baseline.deltas if r.baseline else ()) if d.regressed]
    return f'<span class="why">: {"; ".join(_delta_text(d) for d in deltas)}</span>'


def _improved_note(r: CaseResult) -> str:
    deltas = [d for d in (r.baseline.deltas if r.baseline else ()) if d.verdict == "better"]
    return f'<span class="why">: {"; ".join(_delta_text(d) for d in deltas)}</span>'


def _new_note(r: CaseResult) -> str:
    cer = r.metrics.get("cer")
    return f'<span class="why">: {esc(r.outcome)}{"" if cer is None else f", cer {number(cer)}"}</span>'


def _most_improved(results: Iterable[CaseResult]) -> list[CaseResult]:
    def gain(r: CaseResult) -> float:
        return max((-d.worse_by for d in (r.baseline.deltas if r.baseline else ())), default=0.0)

    return sorted(results, key=lambda r: (-gain(r), r.key))


def _failed_first(results: Iterable[CaseResult]) -> list[CaseResult]:
    return sorted(results, key=lambda r: (r.outcome == "passed", r.key))


def _baseline_section(view: BaselineView | None, results: list[CaseResult]) -> str:
    """The run against its baseline, per engine: counts (each a link to the filtered
    case list), how the compared metrics' means moved, a changed configuration, and the
    regressed (worst first), improved (most first) and new items, each linking to its case."""
    if view is None:
        return ""
    changes = {r.key: baseline_change(r) for r in results}
    parts = [
        "<h2>Baseline</h2>",
        f'<p class="baseline-match">Compared with <code>{esc(view.path)}</code> ({_plural(view.records, "record")}): '
        f"{view.matched} of {view.current} measured items found their record.</p>",
        *(f'<p class="warning">{esc(w)}</p>' for w in view.warnings()),
        *(f'<p class="note noise">{esc(line)}</p>' for line in noise_lines(view.families)),
    ]
    per_engine: dict[str, dict[str, list[CaseResult]]] = {}
    rows = []
    for e in view.engines:
        mine = [r for r in results if r.engine == e.engine]
        lists = {
            "regressed": e.regressed,  # the view's order: worst first
            "improved": _most_improved(r for r in mine if changes[r.key] == "improved"),
            "new": _failed_first(r for r in mine if changes[r.key] == "new"),
        }
        per_engine[e.engine] = lists
        counts = [str(e.compared)] + [
            _filter_link(str(len(lists[k])), engine=e.engine, outcome=k) if lists[k] else "0"
            for k in ("new", "regressed", "improved")
        ]
        cells = "".join(f'<td class="num">{c}</td>' for c in counts)
        rows.append(f'<tr><th scope="row">{esc(e.engine)}</th>{cells}</tr>')
    parts.append(
        '<table class="baseline-engines"><thead><tr><th scope="col">engine</th><th scope="col">compared</th>'
        '<th scope="col">new</th><th scope="col">regressed</th><th scope="col">improved</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        '<p class="note">regressed: a metric the item compares (its thresholds, its <code>regression:</code> '
        "tolerances) got worse than its tolerance; improved: one got better and none worse; new: the baseline "
        "has no record of the item</p>"
    )
    for e in view.engines:
        lists = per_engine[e.engine]
        section = [f'<section class="baseline-engine" data-engine="{esc(e.engine)}"><h3>{esc(e.engine)}</h3>']
        if e.config_changes:
            section.append(
                '<p class="warning">The baseline was recorded with another configuration of this engine: '
                + "; ".join(f"<code>{esc(c)}</code>" for c in e.config_changes)
                + "</p>"
            )
        if e.moves:
            moves = "".join(
                f'<tr class="{p.direction}"><td>{esc(m.metric)} {p.kind}</td><td class="num">{p.n}</td>'
                f'<td class="num">{number(p.old)}</td><td class="num">{number(p.new)}</td>'
                f'<td class="num">{signed(p.change)}</td>'
                f'<td class="num">{signed(p.low)} to {signed(p.high)}</td>'
                f'<td class="num">{p.p_value:.3g}</td><td class="num">{number(p.detectable)}</td>'
                f"<td>{p.direction}</td></tr>"
                if p is not None
                else f'<tr class="{m.verdict}"><td>{esc(m.metric)}</td><td class="num">{m.n}</td>'
                f'<td class="num">{number(m.old)}</td><td class="num">{number(m.new)}</td>'
                f'<td class="num">{signed(m.new - m.old)}</td><td class="num">-</td><td class="num">-</td>'
                f'<td class="num">-</td><td>{m.verdict}</td></tr>'
                for m in e.moves
                for p in (m.paired or (None,))
            )
            level = next((p.level for m in e.moves for p in m.paired), "95%")
            section.append(
                '<table class="moves"><thead><tr><th>metric</th><th class="num">items</th>'
                '<th class="num">baseline</th><th class="num">now</th><th class="num">change</th>'
                f'<th class="num">{level} interval</th><th class="num">p</th>'
                '<th class="num" title="the smallest worsening these items can tell from noise">'
                "told from noise above</th>"
                f"<th>verdict</th></tr></thead><tbody>{moves}</tbody></table>"
            )
        section.append(_item_list("regressed", lists["regressed"], _regressed_note, e.engine))
        section.append(_item_list("improved", lists["improved"], _improved_note, e.engine))
        section.append(_item_list("new", lists["new"], _new_note, e.engine))
        section.append("</section>")
        parts.append("".join(section))
    return "".join(parts)


def _datasets_section(datasets: list[DatasetSummary]) -> str:
    """The dataset evaluator's accounting, as the terminal and the JSON report give it."""
    if not datasets:
        return ""
    rows = "".join(
        f'<tr><td class="text">{esc(d.file)}</td><td>{esc(d.type)}</td><td>{esc(d.engine)}</td>'
        + "".join(f'<td class="num">{v}</td>' for v in (d.total, d.evaluated, d.filtered, d.skipped))
        + "".join(f'<td class="num">{number(v)}</td>' for v in (d.accuracy, d.ned, d.ned_similarity))
        + f'<td class="num">{_fixed(d.wall_s, 2)} s</td>'
        + f'<td class="num">{"-" if d.inference_mean_ms is None else f"{d.inference_mean_ms:.1f} ms"}</td></tr>'
        for d in datasets
    )
    skipped = {d.file: d.skipped_entries for d in datasets if d.skipped_entries}
    entries = "".join(
        f"<li><code>{esc(e['file'])}{'' if e.get('line') is None else ':' + esc(e['line'])}</code>: "
        f"{esc(e['reason'])}</li>"
        for found in skipped.values()
        for e in found
    )
    return (
        "<h2>Datasets</h2>"
        '<table class="datasets"><thead><tr><th>dataset</th><th>type</th><th>engine</th><th class="num">total</th>'
        '<th class="num">evaluated</th><th class="num">filtered</th><th class="num">skipped</th>'
        '<th class="num">accuracy</th><th class="num">ned</th><th class="num">similarity</th>'
        '<th class="num">wall time</th><th class="num">inference/img</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
        '<p class="note">total = evaluated + filtered + skipped (entries that became no case, and items that '
        "errored); accuracy = exact match and ned = normalised edit distance, means over the evaluated items; "
        "wall time = first item's start to last item's end; inference per image over the outputs made in this "
        "run (not from the cache)</p>"
        + (f'<h3>Skipped entries</h3><ul class="skipped">{entries}</ul>' if entries else "")
    )


def _invalid_section(invalid: list[dict]) -> str:
    if not invalid:
        return ""
    items = "".join(
        f'<li><code>{esc(f.get("file"))}</code><pre class="error">{esc(f.get("error"))}</pre></li>' for f in invalid
    )
    return f'<h3>Case files that could not be loaded ({len(invalid)})</h3><ul class="invalid">{items}</ul>'


def _charts(records: list[dict], summary: dict, engines: list[str]) -> str:
    parts = ["<h3>CER distribution</h3>", cer_histogram(records, engines)]
    pairs = [(a, b) for i, a in enumerate(engines) for b in engines[i + 1 :]]
    scatters = [s for s in (cer_scatter(records, a, b) for a, b in pairs[:MAX_SCATTER_PAIRS]) if s]
    if scatters:
        parts += ['<h3>Engine against engine, per case</h3><div class="scatters">', *scatters, "</div>"]
        if len(pairs) > MAX_SCATTER_PAIRS:
            parts.append(f'<p class="note">First {MAX_SCATTER_PAIRS} of {len(pairs)} engine pairs.</p>')
    metrics = {m for e in engines for m in (summary[e].get("metrics") or {})}
    metric = "cer" if "cer" in metrics else min(metrics, key=metric_order, default=None)
    if metric:
        parts += [f"<h3>{esc(metric)} by tag and group</h3>", group_bars(summary, engines, metric)]
    return '<section class="charts">' + "".join(parts) + "</section>"


# -- the page -------------------------------------------------------------------------------


def _shown(record: dict) -> tuple[str, int, int]:
    """What a record's thumbnail shows: its image, and for a PDF the page and dpi (else 0)."""
    return record.get("image") or "", record.get("page") or 0, record.get("dpi") or 0


def _source(root: Path, image: str, page: int, dpi: int) -> Path | Page:
    return Page(root / image, page, dpi or DEFAULT_DPI) if page else root / image


def render(record: RunRecord, root: Path) -> str:
    """The page of a run; image paths in results are relative to ``root`` (the project directory)."""
    document = json_report.document(record)
    invalid = [r for r in document["results"] if r["outcome"] == "invalid"]
    records = [r for r in document["results"] if r["outcome"] != "invalid"]
    summary = document.get("summary") or {}
    engines = list(summary) or sorted({r["engine"] for r in records})
    summary = {e: summary.get(e, {}) for e in engines}

    images = sorted({_shown(r) for r in records if r.get("image")})
    urls, per_image = thumbnails([_source(root, *image) for image in images])
    # why an image has no thumbnail names it as the results do, relative to the project
    thumb_of = {
        shown: (i, why and relative_paths(why, root)) for shown, (i, why) in zip(images, per_image, strict=True)
    }
    changes = {r.key: baseline_change(r) for r in record.results}
    cases = []
    for r in records:
        thumb, thumb_error = thumb_of.get(_shown(r), (None, "no image"))
        cases.append(case_data(r, thumb, thumb_error, changes.get(r["key"])))
    metrics = sorted({m for r in records for m in (r.get("metrics") or {})}, key=metric_order)
    payload = {
        "engines": engines,
        "metrics": metrics,
        "baseline": record.baseline is not None or any(changes.values()),
        "better": {m: METRICS[m].better for m in metrics if m in METRICS},
        "confusions": {e: summary[e].get("top_confusions", []) for e in engines},
        "cases": cases,
    }

    script, style = _asset("report.js"), _asset("report.css")
    csp = (
        f"default-src 'none'; img-src data:; style-src 'sha256-{_sha256(style)}'; "
        f"script-src 'sha256-{_sha256(script)}'; base-uri 'none'; form-action 'none'"
    )
    counts = record.counts()
    run = document.get("run") or {}
    title = f"pytest-ocr report: {len(record.results)} items, {run.get('started_at', '')}"
    thumbs = "".join(f'<script type="text/plain" id="{THUMB_ID}{i}">{url}</script>' for i, url in enumerate(urls))
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{esc(csp)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(title)}</title><style>{style}</style></head><body>",
            f'<header><h1>pytest-ocr report</h1><p class="counts">{len(record.results)} items: '
            f'<span class="outcome passed">{counts["passed"]} passed</span> '
            f'<span class="outcome failed">{counts["failed"]} failed</span> '
            f'<span class="outcome error">{_plural(counts["error"], "error")}</span>',
            f' <span class="outcome filtered">{counts["filtered"]} filtered</span>' if counts["filtered"] else "",
            f' <span class="outcome skipped">{counts["skipped"]} skipped</span>' if counts["skipped"] else "",
            f' <span class="outcome error">{_plural(counts["invalid"], "invalid case file")}</span>'
            if counts["invalid"]
            else "",
            f' <span class="outcome error">run {esc(record.run.status)}: {record.run.not_run} not run</span>'
            if record.run.status != "complete"
            else "",
            "</p>",
            '<nav><a href="#view=overview" id="tab-overview">Overview</a>'
            f'<a href="#view=cases" id="tab-cases">Cases ({len(records)})</a></nav></header>',
            '<main><section id="overview"><h2>Summary</h2>',
            _summary_table(summary, engines, record.shown_metrics()),
            _gates_section(document.get("gates") or []),
            _baseline_section(record.baseline, record.results),
            _datasets_section(record.datasets),
            _charts(records, summary, engines),
            '<h3>Top character confusions</h3><div id="engine-confusions" class="heatmaps">'
            '<p class="note">Drawn by the page script.</p></div>',
            _invalid_section(invalid),
            "<h2>Run</h2>",
            _run_section(document),
            _engines_section(document.get("engines") or {}),
            "</section>",
            '<section id="cases"><h2>Cases</h2><div id="case-controls"></div><div id="case-list">'
            '<p class="note">The case list is drawn by the page script (JavaScript is needed).</p></div></section>',
            "</main>",
            f'<script type="application/json" id="{DATA_ID}">{embed_json(payload)}</script>',
            thumbs,
            f"<script>{script}</script></body></html>\n",
        ]
    )
