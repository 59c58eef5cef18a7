"""The OCR section of pytest's terminal summary."""

from __future__ import annotations

import unicodedata

from wcwidth import wcswidth

from ..metrics import DEFAULT_METRICS, METRICS
from ..metrics.edit import DELETE, INSERT
from ..results import CaseResult, Summary, worst

HEADLINE_METRICS = ("cer", "wer")
WORST_CASES = 5
SHOWN_CONFUSIONS = 8


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.4f}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} s"


def visible(text: str) -> str:
    """Untrusted text for a terminal line: control and direction-changing characters
    (Unicode Cc, Cf: e.g. RLO U+202E, ESC) become U+FFFD, so they cannot reorder or
    restyle the rest of the line."""
    return "".join("\ufffd" if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def width(text: str) -> int:
    """Columns the text takes in a terminal: CJK and other wide characters take two,
    combining marks none (wcwidth; unprintable characters count one each)."""
    columns = wcswidth(text)
    return columns if columns >= 0 else len(text)


def _ljust(text: str, columns: int) -> str:
    return text + " " * (columns - width(text))


def _rjust(text: str, columns: int) -> str:
    return " " * (columns - width(text)) + text


def table(header: list[str], rows: list[tuple[str, list[str]]], label: str) -> list[str]:
    """A label column on the left, value columns right-aligned, by display width."""
    label_width = max(width(label), *(width(name) for name, _ in rows))
    widths = [max(width(h), *(width(cells[i]) for _, cells in rows)) for i, h in enumerate(header)]
    lines = [_ljust(label, label_width) + "  " + "  ".join(_rjust(h, w) for h, w in zip(header, widths))]
    for name, cells in rows:
        lines.append(_ljust(name, label_width) + "  " + "  ".join(_rjust(c, w) for c, w in zip(cells, widths)))
    return lines


def shown_metrics(summaries: dict[str, Summary], thresholded: set[str]) -> list[str]:
    """CER and WER, plus every metric a case asked for or has a threshold on."""
    computed = {m for s in summaries.values() for m in s.metrics}
    return [m for m in METRICS if m in computed and (m in HEADLINE_METRICS or m in thresholded
                                                      or m not in DEFAULT_METRICS)]


def _show_char(text: str) -> str:
    return text if text in (DELETE, INSERT) else repr(text)


def summary_lines(
    results: list[CaseResult], summaries: dict[str, Summary], verbosity: int, thresholded: set[str]
) -> list[str]:
    """Engines side by side, then (unless -q) per-tag/group CER, top confusions,
    the worst cases and the first errors."""
    engines = list(summaries)
    metrics = shown_metrics(summaries, thresholded)
    rows: list[tuple[str, list[str]]] = [
        (field, [str(getattr(summaries[e], field)) for e in engines])
        for field in ("cases", "passed", "failed", "errors", "filtered")
        if field != "filtered" or any(s.filtered for s in summaries.values())
    ]
    for metric in metrics:
        for kind in ("macro", "micro"):
            cells = [_fmt(getattr(summaries[e].metrics.get(metric), kind, None)) for e in engines]
            rows.append((f"{metric} {kind}", cells))
        if metric == "cer":
            cells = []
            for e in engines:
                ci = getattr(summaries[e].metrics.get("cer"), "ci95", None)
                cells.append(f"{ci[0]:.4f}-{ci[1]:.4f}" if ci else "-")
            rows.append(("cer macro 95% CI", cells))
    rows.append(("pages/s", [_rate(summaries[e].performance.get("pages_per_s")) for e in engines]))
    rows.append(("time/page mean", [_seconds(summaries[e].performance.get("mean_s")) for e in engines]))
    rows.append(("time/page p95", [_seconds(summaries[e].performance.get("p95_s")) for e in engines]))
    lines = table(engines, rows, "engine")
    lines.append("macro = mean over cases; micro = pooled over cases (total errors / total length)")
    if verbosity < 0:
        return lines

    for engine in engines:
        # A group holding every case of the engine repeats the engine's own row.
        groups = {k: g for k, g in summaries[engine].groups.items() if g.cases < summaries[engine].cases}
        if groups:
            lines.append(f"by tag and group ({engine}):")
            rows = [(key, [str(g.cases), _fmt(getattr(g.metrics.get("cer"), "macro", None)),
                           _fmt(getattr(g.metrics.get("cer"), "micro", None))]) for key, g in groups.items()]
            lines += ["  " + line for line in table(["cases", "cer macro", "cer micro"], rows, "")]
    for engine in engines:
        confusions = summaries[engine].top_confusions[:SHOWN_CONFUSIONS]
        if confusions:
            shown = ", ".join(f"{_show_char(r)}→{_show_char(h)} ×{n}" for r, h, n in confusions)
            lines.append(f"top confusions ({engine}): {shown}")
    for engine in engines:
        bad = [r for r in worst([r for r in results if r.engine == engine], "cer", WORST_CASES) if r.metrics["cer"] > 0]
        if bad:
            lines.append(f"worst cases by cer ({engine}):")
            lines += [f"  {_fmt(r.metrics['cer'])}  {r.id}  [{r.outcome}]" for r in bad]
    warned = [r for r in results if r.warnings]
    if warned:
        lines.append(f"warnings ({len(warned)} items):")
        for r in warned[:WORST_CASES]:
            lines += [f"  {r.id}: {visible(w[:150])}" for w in r.warnings]
    errors = [r for r in results if r.outcome == "error"]
    if errors:
        lines.append(f"errors ({len(errors)}):")
        for r in errors[:WORST_CASES]:
            first_line = (r.error or "").strip().splitlines()[0] if r.error else ""
            lines.append(f"  {r.id}: {visible(first_line[:150])}")
    return lines


def baseline_lines(results: list[CaseResult], baseline, verbosity: int) -> list[str]:
    """Per engine: how the compared metrics moved against the baseline (means over the
    cases both runs have), what is new, what regressed, and a changed engine configuration."""
    lines = [f"vs baseline {baseline.path}:"]
    for engine in sorted({r.engine for r in results}):
        mine = [r for r in results if r.engine == engine and r.baseline]
        compared = [r for r in mine if r.baseline["status"] == "compared"]
        regressed = [r for r in compared if r.baseline["regressed"]]
        new = len(mine) - len(compared)
        lines.append(f"  {engine}: {len(compared)} compared, {new} new, {len(regressed)} regressed")
        by_metric: dict[str, list[dict]] = {}
        for r in compared:
            for d in r.baseline["deltas"]:
                by_metric.setdefault(d["metric"], []).append(d)
        for metric, found in by_metric.items():
            old = sum(d["old"] for d in found) / len(found)
            new_mean = sum(d["new"] for d in found) / len(found)
            change = new_mean - old
            better = (change < 0) == (METRICS[metric].better == "lower")
            verdict = "same" if change == 0 else ("better" if better else "worse")
            lines.append(f"    {metric} mean over {len(found)}: {_fmt(old)} -> {_fmt(new_mean)} "
                         f"({change:+.4f}, {verdict})")
        fingerprint = next((r.fingerprint for r in mine if r.fingerprint), None)
        changes = baseline.changed_engine(engine, fingerprint)
        if changes:
            lines.append(f"    warning: the baseline was recorded with another {engine} configuration: "
                         + "; ".join(changes))
        if verbosity >= 0:
            for r in regressed[:WORST_CASES]:
                worse = [d["message"] for d in r.baseline["deltas"] if d["verdict"] == "regressed"]
                lines.append(f"    regressed: {r.id}: {'; '.join(worse)}")
            if len(regressed) > WORST_CASES:
                lines.append(f"    ... and {len(regressed) - WORST_CASES} more regressed cases")
    return lines


def gate_lines(gate_results) -> list[str]:
    if not gate_results:
        return []
    failed = sum(not g.passed for g in gate_results)
    return [f"aggregate gates ({len(gate_results)}, {failed} failed):"] + [f"  {g.message}" for g in gate_results]


def dataset_lines(summaries: list[dict]) -> list[str]:
    """The dataset evaluator's view of each dataset file: the accounting and its metrics."""
    if not summaries:
        return []
    rows = [(f"{d['file']} [{d['engine']}]",
             [str(d["total"]), str(d["evaluated"]), str(d["filtered"]), str(d["skipped"]), _fmt(d["accuracy"]),
              _fmt(d["ned"]), _fmt(d["ned_similarity"]), f"{d['evaluation_s']:.2f} s",
              "-" if d["inference_mean_ms"] is None else f"{d['inference_mean_ms']:.1f} ms"])
            for d in summaries]
    header = ["total", "evaluated", "filtered", "skipped", "accuracy", "ned", "similarity", "time", "inference/img"]
    lines = ["datasets (total = evaluated + filtered + skipped; accuracy = exact match):"]
    lines += ["  " + line for line in table(header, rows, "dataset")]
    files = {d["file"]: d["skipped_entries"] for d in summaries}  # the same for every engine of a file
    for file, entries in files.items():
        lines += [f"  skipped: {visible(e['file'])}:{e['line']}: {visible(e['reason'])}" for e in entries[:WORST_CASES]]
        if len(entries) > WORST_CASES:
            lines.append(f"  ... more skipped entries of {file} in the JSON report (datasets)")
    return lines
