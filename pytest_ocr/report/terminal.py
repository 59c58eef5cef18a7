"""The OCR section of pytest's terminal summary."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from ..metrics.edit import DELETE, INSERT
from ..metrics.registry import OMNIDOCBENCH_METRICS
from ..run.aggregate import DatasetSummary, worst
from ..run.comparison import Comparison
from ..run.gates import GateResult
from ..run.record import RunRecord
from ..storable import json_safe
from ..visible import visible, visible_json
from .columns import fit, item_line, ljust, middle, rjust, width
from .numbers import STABILITY_ROWS, fact_rows, number, omnidocbench_note, omnidocbench_rows, signed, stability_cell
from .paired_text import describe, noise
from .reasons import gate_text, noise_lines, worst_delta

WORST_CASES = 5
SHOWN_CONFUSIONS = 8


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def table(header: list[str], rows: list[tuple[str, list[str]]], label: str, columns: int | None = None) -> list[str]:
    """A label column on the left, value columns right-aligned, by display width. Wider
    than ``columns``: the labels shortened in the middle to a third of it at most, and
    the value columns in blocks that fit, each under its own header."""
    if columns is not None:
        longest = max(width(label), *(width(name) for name, _ in rows))
        limit = max(12, columns // 3)
        if longest > limit:
            label = middle(label, limit)
            rows = [(middle(name, limit), cells) for name, cells in rows]
    label_width = max(width(label), *(width(name) for name, _ in rows))
    widths = [max(width(h), *(width(cells[i]) for _, cells in rows)) for i, h in enumerate(header)]
    blocks: list[list[int]] = [[]]
    used = label_width
    for i, w in enumerate(widths):
        if columns is not None and blocks[-1] and used + 2 + w > columns:
            blocks.append([])
            used = label_width
        blocks[-1].append(i)
        used += 2 + w
    lines: list[str] = []
    for block in blocks:
        lines.append(ljust(label, label_width) + "  " + "  ".join(rjust(header[i], widths[i]) for i in block))
        for name, cells in rows:
            lines.append(ljust(name, label_width) + "  " + "  ".join(rjust(cells[i], widths[i]) for i in block))
    return lines


def _more(count: int, shown: int, what: str, indent: str = "  ") -> list[str]:
    """The line that counts what a capped list left out."""
    return [f"{indent}… and {count - shown} more {what}"] if count > shown else []


def _show_char(text: str) -> str:
    return text if text in (DELETE, INSERT) else repr(text)


def summary(record: RunRecord, verbosity: int, shape: str = "table", columns: int | None = None) -> list[str]:
    """The OCR section of the terminal summary: ``table`` (engines side by side, then the
    baseline, datasets, gates and how the run ended) or ``json`` (summary and gates).
    No line is wider than ``columns`` (None: no limit)."""
    if shape == "json":
        document = {
            "summary": {name: s.to_dict() for name, s in record.summaries.items()},
            "gates": [g.to_dict() for g in record.gates],
        }
        return visible_json(json.dumps(json_safe(document), indent=2, ensure_ascii=False, allow_nan=False)).splitlines()
    lines = engine_lines(record, verbosity, columns) if record.summaries else []
    lines += invalid_lines(record, columns)
    lines += baseline_lines(record.comparison, verbosity, columns) if record.comparison else []
    lines += dataset_lines(record.datasets, columns)
    lines += gate_lines(record.gates)
    cached = sum(r.cached for r in record.results)
    if cached:
        lines.append(
            f"OCR outputs from the cache: {cached} of {len(record.results)} (not timed; "
            f"--ocr-refresh runs the engines again)"
        )
    lines += [f"note: {visible(draws.text())}" for draws in record.cached_draws]
    if record.shard is not None:
        shard = record.shard
        lines.append(
            f"shard {shard.index}/{shard.total}: {shard.items} of the suite's {shard.suite_items} OCR items; "
            f"aggregate gates, dataset checks and the baseline's match check are judged on the merged run "
            f"(pytest-ocr merge)"
        )
    if record.run.status != "complete":
        lines.append(
            f"run {record.run.status}: {record.run.not_run} OCR item(s) did not run "
            f"({visible(record.run.interruption or '')})"
        )
    # Every piece of untrusted text is made visible where it is put in; this pass is the
    # safety net for how pieces join up (visible is idempotent on its own output).
    return fit([visible(line) for line in lines], columns)


def engine_lines(record: RunRecord, verbosity: int, columns: int | None = None) -> list[str]:
    """Engines side by side, then (unless -q) per-tag/group CER, top confusions,
    the worst cases and the first errors."""
    summaries = record.summaries
    engines = list(summaries)
    names = [visible(e) for e in engines]
    rows: list[tuple[str, list[str]]] = [
        (field, [str(getattr(summaries[e], field)) for e in engines])
        for field in ("cases", "passed", "failed", "errors", "filtered", "skipped")
        if field not in ("filtered", "skipped") or any(getattr(s, field) for s in summaries.values())
    ]
    for metric in record.shown_metrics():
        if metric in OMNIDOCBENCH_METRICS:  # in OmniDocBench's terms, below
            continue
        for kind in ("macro", "micro"):
            cells = [number(getattr(summaries[e].metrics.get(metric), kind, None)) for e in engines]
            rows.append((f"{metric} {kind}", cells))
        if metric == "cer":
            cells = []
            for e in engines:
                ci = getattr(summaries[e].metrics.get("cer"), "ci95", None)
                cells.append(f"{number(ci[0])}-{number(ci[1])}" if ci else "-")
            rows.append(("cer macro 95% CI", cells))
    if any(s.stability for s in summaries.values()):  # repeats: how alike each engine's outputs were
        rows += [
            (label, [stability_cell(getattr(summaries[e].stability, key, None)) for e in engines])
            for label, key in STABILITY_ROWS
        ]
    rows += fact_rows([asdict(f) if (f := summaries[e].facts) else None for e in engines])
    omnidocbench = omnidocbench_rows([summaries[e] for e in engines])
    rows += omnidocbench
    rows.append(("pages/s", [_rate(summaries[e].performance.pages_per_s) for e in engines]))
    rows.append(("time/page mean", [_seconds(summaries[e].performance.mean_s) for e in engines]))
    rows.append(("time/page p95", [_seconds(summaries[e].performance.p95_s) for e in engines]))
    lines = table(names, rows, "engine", columns)
    lines.append(
        "macro = mean over cases; micro = pooled over cases (total errors / total length); "
        "pages/s and time/page: engine time, summed over workers"
    )
    if omnidocbench:
        lines.append(omnidocbench_note(summaries.values()))
        lines.append(  # too long for a terminal
            "OmniDocBench by page attribute and by block attribute: in the JSON report "
            "(summary.ENGINE.omnidocbench) and the Markdown job summary"
        )
    if verbosity < 0:
        return lines

    for engine in engines:
        # A group holding every case of the engine repeats the engine's own row.
        groups = {k: g for k, g in summaries[engine].groups.items() if g.cases < summaries[engine].cases}
        if groups:
            lines.append(f"by tag and group ({visible(engine)}):")
            group_rows = [
                (
                    visible(key),
                    [
                        str(g.cases),
                        number(getattr(g.metrics.get("cer"), "macro", None)),
                        number(getattr(g.metrics.get("cer"), "micro", None)),
                    ],
                )
                for key, g in groups.items()
            ]
            inner = None if columns is None else columns - 2
            lines += ["  " + line for line in table(["cases", "cer macro", "cer micro"], group_rows, "", inner)]
    for engine in engines:
        confusions = summaries[engine].top_confusions[:SHOWN_CONFUSIONS]
        if confusions:
            shown = ", ".join(f"{_show_char(r)}→{_show_char(h)} ×{n}" for r, h, n in confusions)
            lines.append(f"top confusions ({visible(engine)}): {shown}")
    results = record.results
    for engine in engines:
        bad = [r for r in results if r.engine == engine and (r.metrics.get("cer") or 0) > 0]
        if bad:
            lines.append(f"worst cases by cer ({visible(engine)}):")
            for r in worst(bad, "cer", WORST_CASES):
                lines += item_line("  ", r.id, f"  [{r.outcome}]", columns, first=f"{number(r.metrics['cer'])}  ")
            lines += _more(len(bad), WORST_CASES, "with cer above 0")
    warned = [r for r in results if r.warnings]
    if warned:
        lines.append(f"warnings ({len(warned)} items):")
        for r in warned[:WORST_CASES]:
            lines += [part for w in r.warnings for part in item_line("  ", r.id, f": {visible(w)}", columns)]
        lines += _more(len(warned), WORST_CASES, "items with warnings (in the JSON report)")
    errors = record.with_outcome("error")
    if errors:
        lines.append(f"errors ({len(errors)}):")
        for r in errors[:WORST_CASES]:
            lines += item_line("  ", r.id, f": {visible('; '.join(r.reasons()))}", columns)
        lines += _more(len(errors), WORST_CASES, "errors")
    return lines


def invalid_lines(record: RunRecord, columns: int | None = None) -> list[str]:
    invalid = record.with_outcome("invalid")
    if not invalid:
        return []
    return [f"case files that could not be loaded ({len(invalid)}):"] + [
        part for r in invalid for part in item_line("  ", r.file, "", columns)
    ]


def baseline_lines(view: Comparison, verbosity: int, columns: int | None = None) -> list[str]:
    """Per engine: how the compared metrics moved against the baseline (means over the
    items compared on them), what is new, what regressed (worst first), and a changed
    engine configuration; and how many items found their record at all."""
    lines = item_line(
        "", view.path, f": {view.matched} of {view.current} items found their record", columns, "vs baseline "
    )
    lines += [f"  warning: {visible(w)}" for w in view.warnings()]
    lines += [f"  {visible(line)}" for line in noise_lines(view.families)]
    for e in view.engines:
        repeated = f", {e.repeated} with repeats ({e.unstable} unstable)" if e.repeated else ""
        lines.append(
            f"  {visible(e.engine)}: {e.compared} compared, {e.new} new, {len(e.regressed)} regressed{repeated}"
        )
        for m in e.moves:
            if not m.paired:
                lines.append(
                    f"    {m.metric} mean over {m.n}: {number(m.old)} -> {number(m.new)} "
                    f"({signed(m.new - m.old)}, {m.verdict})"
                )
            for p in m.paired:
                lines.append(f"    {m.metric}.{p.kind}: {describe(p)}; {noise(p)}")
        if e.config_changes:
            lines.append(
                f"    warning: the baseline was recorded with another {visible(e.engine)} configuration: "
                + "; ".join(visible(c) for c in e.config_changes)
            )
        if verbosity >= 0 and e.regressed:
            lines.append("    regressed, worst first (by how much worse than its tolerance allows):")
            for r in e.regressed[:WORST_CASES]:  # worst first (run/comparison.py)
                d = worst_delta(r)
                worse = f"{d.metric} worse by {number(d.beyond)} beyond {d.tolerance}  " if d else "facts lost  "
                lines += item_line("      ", r.id, "", columns, worse)
            lines += _more(len(e.regressed), WORST_CASES, "regressed items", "      ")
    return lines


def gate_lines(gates: list[GateResult]) -> list[str]:
    if not gates:
        return []
    failed = sum(not g.passed for g in gates)
    lines = [f"  {visible(gate_text(g, lambda file: file))}" for g in gates]  # files named as reports name them
    return [f"aggregate gates ({len(gates)}, {failed} failed):", *lines]


def dataset_lines(summaries: list[DatasetSummary], columns: int | None = None) -> list[str]:
    """The dataset evaluator's view of each dataset file: the accounting and its metrics."""
    if not summaries:
        return []
    rows = [
        (
            visible(f"{d.file} [{d.engine}]"),
            [
                str(d.total),
                str(d.evaluated),
                str(d.filtered),
                str(d.skipped),
                number(d.accuracy),
                number(d.ned),
                number(d.ned_similarity),
                f"{d.wall_s:.2f} s",
                "-" if d.inference_mean_ms is None else f"{d.inference_mean_ms:.1f} ms",
            ],
        )
        for d in summaries
    ]
    header = [
        "total",
        "evaluated",
        "filtered",
        "skipped",
        "accuracy",
        "ned",
        "similarity",
        "wall time",
        "inference/img",
    ]
    lines = [
        "datasets (total = evaluated + filtered + skipped; accuracy = exact match; wall time = first item's "
        "start to last item's end):"
    ]
    inner = None if columns is None else columns - 2
    lines += ["  " + line for line in table(header, rows, "dataset", inner)]
    files: dict[str, list[dict[str, Any]]] = {d.file: d.skipped_entries for d in summaries}
    for file, entries in files.items():
        for e in entries[:WORST_CASES]:
            where = f"{e['file']}:{e['line']}" if e["line"] else e["file"]  # a file without lines: no ":None"
            lines += item_line("  ", where, f": {visible(e['reason'])}", columns, "skipped: ")
        if len(entries) > WORST_CASES:
            lines.append(
                f"  … and {len(entries) - WORST_CASES} more skipped entries of {visible(file)} "
                "in the JSON report (datasets)"
            )
    return lines
