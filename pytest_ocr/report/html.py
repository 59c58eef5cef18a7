"""The HTML report (``--ocr-html PATH``): one self-contained file, written atomically.

The run, the per-engine summary and the charts (inline SVG) are rendered here. The
cases are embedded as JSON and rendered by the page's script on demand, one page of
rows at a time and a case's details when it is opened, so 5,000 cases open fast.
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
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from ..cases.images import open_image
from ..engines.cache import file_sha256
from ..errors import OcrError
from ..metrics import FIELD_METRICS, METRICS
from ..run.aggregate import metric_order
from ..run.record import RunRecord
from . import json_report

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
)
DIFF_KINDS = {"equal": 0, "replace": 1, "delete": 2, "insert": 3}
CER_BINS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)  # upper edges; CER 0 and CER above 1 get bins of their own
MAX_SCATTER_PAIRS = 3
MAX_GROUPS = 40
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
    length), kind 0 equal, 1 substituted, 2 deleted, 3 inserted; lengths in code points."""
    ops: list[int] = []
    for op in Levenshtein.opcodes(reference, prediction):
        ops += (DIFF_KINDS[op.tag], op.src_end - op.src_start, op.dest_end - op.dest_start)
    return ops


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


def case_data(record: dict, thumb: int | None, thumb_error: str | None) -> dict:
    data = {key: record.get(key) for key in CASE_KEYS}
    reference, prediction = record.get("reference"), record.get("prediction")
    details = record.get("details") or {}
    cer = details.get("cer", {})
    data["diff"] = diff_ops(reference, prediction) if reference is not None and prediction is not None else None
    data["normalization"] = cer.get("normalization")
    data["confusions"] = cer.get("confusions", [])
    data["fields_check"] = _fields_check(details)
    data["thumb"] = thumb
    data["thumb_error"] = thumb_error
    return data


# -- thumbnails -----------------------------------------------------------------------------


def thumbnail(path: Path) -> str:
    """A JPEG data URL of the image scaled down into THUMBNAIL_BOX (first frame of a TIFF).

    Only an image that passes ``open_image`` (a regular file within the size and pixel
    limits) is decoded; it also sets Pillow's own limit to the same number of pixels."""
    from PIL import Image  # only here: the rest of the report needs no Pillow

    with open_image(path) as file, Image.open(file) as image:
        image.draft("RGB", THUMBNAIL_BOX)  # JPEG: decode at a reduced scale, much faster
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


def _attempt(make: Callable[[Path], str], path: Path) -> tuple[str | None, str | None]:
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


def _checked_sha256(path: Path) -> str:
    open_image(path).close()
    return file_sha256(path)


def thumbnails(paths: list[Path]) -> tuple[list[str], list[tuple[int | None, str | None]]]:
    """The thumbnails' data URLs, and per path (index of its thumbnail, None) or (None,
    why there is none). Identical files (copies, links) are decoded once. Pillow
    releases the GIL while decoding and scaling, so threads use every core."""
    # In one thread: a pool costs more than small files. Checked first: a FIFO or a
    # device is never opened, a file beyond a limit never read.
    digests = [_attempt(_checked_sha256, p) for p in paths]
    first: dict[str, Path] = {}
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


def _num(value: float | None, digits: int = 4) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


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
            f"{esc(case)}: {_num(x)} vs {_num(y)}</title></circle>"
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
                f"<title>{esc(engine)} {esc(key)}: {esc(metric)} {_num(v)}</title></rect>"
                f'<text class="tick" x="{label_w + w + 4:.1f}" y="{y + bar_h - 3}">{_num(v)}</text>'
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
            cells = "".join(f'<td class="num">{_num(v, digits)}</td>' for v in values)
            rows.append(f'<tr><th scope="row">{label}</th>{cells}</tr>')
    for metric in metrics:
        better = METRICS[metric].better if metric in METRICS else None
        hint = f' <span class="hint">({better} is better)</span>' if better else ""
        for kind in ("macro", "micro"):
            cells = "".join(
                f'<td class="num">{_num(((summary[e].get("metrics") or {}).get(metric) or {}).get(kind))}</td>'
                for e in engines
            )
            rows.append(f'<tr><th scope="row">{esc(metric)} {kind}{hint if kind == "macro" else ""}</th>{cells}</tr>')
        if metric == "cer":
            ci_cells = []
            for e in engines:
                ci = ((summary[e].get("metrics") or {}).get("cer") or {}).get("ci95")
                ci_cells.append(f'<td class="num">{_num(ci[0])}–{_num(ci[1])}</td>' if ci else '<td class="num">–</td>')
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
        f'<td>{esc(g.get("name"))}</td><td class="num">{_num(g.get("value"))}</td>'
        f'<td class="num">{esc(g.get("cases"))}</td><td class="text">{esc(g.get("message"))}</td></tr>'
        for g in gates
    )
    return (
        '<h3>Aggregate gates</h3><table class="gates"><thead><tr><th>verdict</th><th>gate</th><th>value</th>'
        f"<th>cases</th><th>message</th></tr></thead><tbody>{rows}</tbody></table>"
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


def render(record: RunRecord, root: Path) -> str:
    """The page of a run; image paths in results are relative to ``root`` (the project directory)."""
    document = json_report.document(record)
    invalid = [r for r in document["results"] if r["outcome"] == "invalid"]
    records = [r for r in document["results"] if r["outcome"] != "invalid"]
    summary = document.get("summary") or {}
    engines = list(summary) or sorted({r["engine"] for r in records})
    summary = {e: summary.get(e, {}) for e in engines}

    images = sorted({r["image"] for r in records if r.get("image")})
    urls, per_image = thumbnails([root / image for image in images])
    thumb_of = dict(zip(images, per_image, strict=True))
    cases = [case_data(r, *thumb_of.get(r.get("image"), (None, "no image"))) for r in records]
    metrics = sorted({m for r in records for m in (r.get("metrics") or {})}, key=metric_order)
    payload = {
        "engines": engines,
        "metrics": metrics,
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
