"""``pytest-ocr compare``'s text: the comparison of two runs as plain lines for a terminal,
numbers rounded for people (``--json`` has them in full)."""

from __future__ import annotations

from ..run.comparison import COUNTS, Comparison
from ..visible import visible
from .markdown import unpaired, violation_text
from .numbers import STABILITY_ROWS, number, signed, stability_cell
from .paired_text import describe, noise, spread, verdict
from .reasons import delta_text, noise_lines

LIST_LIMIT = 20  # items shown per list


def comparison_text(c: Comparison) -> list[str]:
    """A plain-text summary: per-engine deltas, fingerprints, outcome changes, regressed items,
    violations; numbers rounded for people (--json has them in full)."""
    lines = []
    for e in c.summarised:
        counts = ", ".join(
            f"{n} {e.base[n]} -> {e.head[n]}" if e.base[n] != e.head[n] else f"{n} {e.head[n]}" for n in COUNTS
        )
        if e.unchanged:
            lines.append(f"{e.engine}: no change ({counts})")
            continue
        lines.append(f"{e.engine}: {counts}")
        width = max((len(f"{d.metric} {d.kind}") for d in e.metrics), default=0)
        for d in e.metrics:
            change = (
                "-" if d.change is None else "same" if d.direction == "same" else f"{signed(d.change)} {d.direction}"
            )
            over = f"{d.items} items in both" if d.items else "no item in both: all items, unpaired"
            lines.append(
                f"  {f'{d.metric} {d.kind}'.ljust(width)}  {number(d.old):>9} -> {number(d.new):>9}  {change}  ({over})"
            )
            if d.paired is not None:
                lines.append(f"  {''.ljust(width)}  {spread(d.paired)}; {noise(d.paired)}")
            if d.items and d.unpaired_differs:
                lines.append(
                    f"  {''.ljust(width)}  all items (unpaired, new and removed ones included): {unpaired(d, '->')}"
                )
        for label, key in STABILITY_ROWS if e.base_stability or e.head_stability else ():
            old, new = (stability_cell(getattr(s, key, None)) for s in (e.base_stability, e.head_stability))
            lines.append(f"  {label}: {old} -> {new}")
    lines += noise_lines(c.families)
    for label, names in (("new engines", c.new_engines), ("engines no longer run", c.removed_engines)):
        if names:
            lines.append(f"{label}: {', '.join(names)}")
    for e in c.reconfigured:
        lines.append(f"engine configuration changed: {e.engine}")
        lines += [f"  {change}" for change in e.config_changes]
    lines.append(
        f"items: {len(c.cases)} in both, {len(c.new_items)} new, {len(c.removed_items)} removed "
        f"(new and removed items are not compared)"
    )
    if c.outcome_changes:
        lines.append(f"outcome changed ({len(c.outcome_changes)}):")
        for o in c.outcome_changes[:LIST_LIMIT]:
            lines.append(f"  {o.key}: {o.old} -> {o.new}" + (f": {o.error[:150]}" if o.error else ""))
        lines += _more(c.outcome_changes)
    regressed = c.regressed_cases()
    if regressed:
        lines.append(
            f"regressed items ({len(regressed)}; worse than a tolerance the item compares, or breaking a rule):"
        )
        for case in regressed[:LIST_LIMIT]:
            tested = [d for d in case.compared if d.noise is not None and d.regressed]
            worse = [d for d in case.deltas if d.direction == "worse"]
            shown = "; ".join(
                [delta_text(d) for d in tested]
                or [f"{d.metric} {number(d.old)} -> {number(d.new)}" for d in worse if d.old is not None]
            )
            lost = "; ".join(f"check {f.id} ({f.type}) lost" for f in case.lost_facts)
            shown = "; ".join(part for part in (shown, lost, "unstable" if case.unstable else "") if part)
            lines.append(f"  {case.key}: {shown or case.old_outcome + ' -> ' + case.new_outcome}")
        lines += _more(regressed)
    for note in c.notes:
        lines.append(f"note: {note}")
    for warning in c.warnings():
        lines.append(f"warning: {warning}")
    if c.decisions:
        lines.append("aggregate rules with a confidence (judged on the items both runs measured):")
        for decision in c.decisions:
            said = verdict(decision.paired, decision.tolerance)
            lines.append(f"  [{decision.rule}] {decision.engine}: {describe(decision.paired)}: {said}")
    if c.violations:
        lines.append(f"rule violations ({len(c.violations)}):")
        lines += [f"  [{v.rule}] {violation_text(v)}" for v in c.violations[:LIST_LIMIT]] + _more(c.violations)
    # Items that regressed beyond their own tolerances are counted whatever the rules, so the
    # last line never reads as if nothing got worse while items did.
    beyond = sum(case.regressed and not case.violated for case in c.cases)
    if not c.rules:
        regressed_text = f"{beyond} item(s) regressed beyond their own tolerances" if beyond else "no item regressed"
        lines.append(f"result: {regressed_text}; no rules given (--fail-on), so compare fails on nothing")
    else:
        also = f"; besides, {beyond} item(s) regressed beyond their own tolerances" if beyond else ""
        lines.append(
            f"result: {'FAILED' if c.failed else 'ok'}: {len(c.violations)} rule violation(s) of "
            f"{', '.join(c.rules)}{also}"
        )
    # Error messages carry engine output: no terminal control sequences from it.
    return [visible(line) for line in lines]


def _more(items: list) -> list[str]:
    return [f"  ... and {len(items) - LIST_LIMIT} more (--json lists all)"] if len(items) > LIST_LIMIT else []
