"""Text facts: ``present`` and ``absent`` (fuzzily, as rapidfuzz's ``partial_ratio`` scores) and ``order``
(each text found with at most ``max_diffs`` edits, as fuzzysearch finds it)."""

from __future__ import annotations

import math as _math
from array import array
from dataclasses import dataclass, field

from fuzzysearch.common import Match, consolidate_overlapping_matches, get_best_match_in_group, group_matches  # type: ignore[import-untyped]
from fuzzysearch.levenshtein import find_near_matches_levenshtein  # type: ignore[import-untyped]
from rapidfuzz import fuzz

from .model import Fact
from .page import _HOLDS, _NotChecked, _Page, _Result
from .text import _quote, normalize_text

# present/absent: rapidfuzz's partial_ratio with a text longer than 64 characters aligns it against the whole
# output bit-parallel: about len(output) × ceil(len(text) / 64) word operations (5 MB of text with a 1,000-
# character needle took minutes). Allowed: a 1,000-character text in 1,000,000 characters of output.
PRESENCE_MAX_WORK = 16_000_000
# order: fuzzysearch yields every approximate match before olmOCR keeps the best of each overlapping group;
# more than this many raw matches (a short text in a repetitive output) is not checked.
ORDER_MAX_MATCHES = 2_000_000
# order: a text shorter than 3 × (max_diffs + 1) characters takes fuzzysearch's candidate-list path, whose
# cost per character of output grows about 2.5-fold per allowed difference (1 µs at max_diffs 1, 2 ms at 10).
# Allowed: len(output) × 2.5 ** max_diffs up to this, i.e. 1,000,000 characters at max_diffs 5, 10,000 at 10.
ORDER_SLOW_PATH_MAX_WORK = 100_000_000
# order: up to this many raw matches, fuzzysearch's own consolidation groups them (it compares each match with
# every group so far); more are grouped by a sort, and only the groups that decide are handed to fuzzysearch.
ORDER_LIBRARY_CONSOLIDATION = 2_000
# order: the overlapping matches olmOCR groups one at a time (quadratic in their number) when the first
# 'before' group and the last 'after' group overlap and their best matches decide the verdict.
ORDER_MAX_GROUP = 20_000


# --- present / absent


def _check_presence(fact: Fact, page: _Page) -> _Result:
    assert fact.text is not None
    query = normalize_text(fact.text)
    content = page.normalized
    if not fact.case_sensitive:
        query, content = query.lower(), page.lowered
    # olmOCR tests truthiness: a first_n or last_n of 0 means the whole output.
    where = ""
    if fact.first_n and fact.last_n:
        content = content[: fact.first_n] + content[-fact.last_n :]
        where = f" in the first {fact.first_n} and last {fact.last_n} characters"
    elif fact.first_n:
        content = content[: fact.first_n]
        where = f" in the first {fact.first_n} characters"
    elif fact.last_n:
        content = content[-fact.last_n :]
        where = f" in the last {fact.last_n} characters"
    threshold = 1.0 - (fact.max_diffs / (len(query) if len(query) > 0 else 1))
    if _beyond_presence_work(query, content):
        raise _NotChecked(
            f"a fuzzy search for a {len(query)}-character text in {len(content)} characters of output exceeds the "
            f"bound (PRESENCE_MAX_WORK)"
        )
    ratio = fuzz.partial_ratio(query, content) / 100.0
    if (ratio >= threshold) == (fact.type == "present"):
        return _HOLDS
    nearest = _nearest(query, content)
    span = None
    located = page.located(fact.case_sensitive)
    if nearest is not None and located is not None:
        n = len(located.text)
        span = located.span(
            _from_content(nearest[1], n, fact.first_n, fact.last_n),
            _from_content(nearest[2] - 1, n, fact.first_n, fact.last_n) + 1,
        )
    spans = (span,) if span else ()
    if fact.type == "present":
        near = f"; the nearest is {_quote(nearest[0])}{page.at(span)}" if nearest else ""
        reason = f"{_quote(query)} not found{where}: best match {ratio:.3f} < threshold {threshold:.3f}{near}"
        return False, reason, spans
    seen = f" as {_quote(nearest[0])}" if nearest and nearest[0] != query else ""
    reason = f"{_quote(query)} found{where}{page.at(span)}{seen}: best match {ratio:.3f} >= threshold {threshold:.3f}"
    return False, reason, spans


def _beyond_presence_work(query: str, content: str) -> bool:
    shorter, longer = sorted((len(query), len(content)))
    return shorter > 64 and longer * _math.ceil(shorter / 64) > PRESENCE_MAX_WORK


def _nearest(query: str, content: str) -> tuple[str, int, int, float] | None:
    """The part of ``content`` most like ``query`` as partial_ratio aligns them: (its text, start, end,
    similarity); None when nothing is alike. Costs what partial_ratio does: callers bound that first."""
    found = fuzz.partial_ratio_alignment(query, content)
    if found is None or found.score <= 0 or found.dest_end <= found.dest_start:
        return None
    return content[found.dest_start : found.dest_end], found.dest_start, found.dest_end, found.score / 100.0


def _from_content(k: int, n: int, first_n: int | None, last_n: int | None) -> int:
    """Where character k of a presence check's content is in the normalised text of n characters (the content
    is the text, or its first_n characters and/or its last_n)."""
    if first_n and last_n:
        head = min(first_n, n)
        return k if k < head else n - min(last_n, n) + (k - head)
    if last_n and not first_n:
        return n - min(last_n, n) + k
    return k


# --- order


def _check_order(fact: Fact, page: _Page) -> _Result:
    assert fact.before is not None and fact.after is not None
    before, after = normalize_text(fact.before), normalize_text(fact.after)
    content = page.normalized
    distance = fact.max_diffs
    found = f"with max_diffs {distance}" if distance else "exactly"
    before_spans = _approximate_spans(before, content, distance)
    if before_spans is None:
        return _order_text_missing("before", before, found, page)
    after_spans = _approximate_spans(after, content, distance)
    if after_spans is None:
        return _order_text_missing("after", after, found, page)
    # olmOCR passes if some 'before' match starts before some 'after' match: the first before the last.
    first, last = before_spans.first, after_spans.last
    if first.end <= last.start:  # every start in the first group precedes every start in the last
        passed = True
    elif first.start >= last.end:
        passed = False
    else:  # the groups overlap: their best matches decide
        passed = first.best().start < last.best().start
    if passed:
        return _HOLDS
    located = page.located()
    if located is None:
        return False, f"{_quote(before)} does not come before {_quote(after)}", ()
    spans = [located.span(first.start, first.end), located.span(last.start, last.end)]
    return (
        False,
        f"{_quote(before)} does not come before {_quote(after)} (the first 'before' match is{page.at(spans[0])}, "
        f"the last 'after' match{page.at(spans[1])})",
        tuple(span for span in spans if span),
    )


def _order_text_missing(name: str, text: str, found: str, page: _Page) -> _Result:
    """An order fact's text that is not in the output: the nearest text that is, where it is."""
    reason = f"'{name}' text {_quote(text)} not found {found}"
    content = page.normalized
    nearest = None if _beyond_presence_work(text, content) else _nearest(text, content)
    if nearest is None:
        return False, reason, ()
    located = page.located()
    span = located.span(nearest[1], nearest[2]) if located else None
    return (
        False,
        f"{reason}; the nearest is {_quote(nearest[0])}{page.at(span)} (similarity {nearest[3]:.3f})",
        (span,) if span else (),
    )


@dataclass
class _Group:
    """A maximal run of overlapping approximate matches, as fuzzysearch consolidates them."""

    start: int  # the run's extent (or its best match's, when that is known): what decides unless they overlap
    end: int
    matches: list[Match] = field(default_factory=list)  # in the order fuzzysearch found them
    _best: Match | None = None

    def best(self) -> Match:
        """The match fuzzysearch keeps for the group: its ``group_matches`` and ``get_best_match_in_group`` run
        on the group's matches alone build the same set, in the same order, as on all matches (other groups
        never merge with this one), so ties break the same way."""
        if self._best is None:
            if len(self.matches) > ORDER_MAX_GROUP:
                raise _NotChecked(f"{len(self.matches)} overlapping approximate matches exceed ORDER_MAX_GROUP")
            (group,) = group_matches(self.matches)
            self._best = get_best_match_in_group(group)
        return self._best


@dataclass
class _Spans:
    first: _Group
    last: _Group


def _approximate_spans(pattern: str, content: str, distance: int) -> _Spans | None:
    """The first and last groups of ``find_near_matches(pattern, content, max_l_dist=distance)``'s matches
    (None: no match). olmOCR's verdict only needs the first match of 'before' and the last of 'after'; this
    finds them without fuzzysearch's consolidation, which compares every match with every group so far."""
    if distance == 0:
        # fuzzysearch's exact search reports every occurrence, overlapping ones included.
        first, last = content.find(pattern), content.rfind(pattern)
        if first < 0:
            return None
        return _Spans(_exact_group(pattern, first), _exact_group(pattern, last))
    if len(pattern) // (distance + 1) < 3 and len(content) * 2.5**distance > ORDER_SLOW_PATH_MAX_WORK:
        raise _NotChecked(
            f"an approximate search for a {len(pattern)}-character text with max_diffs {distance} in {len(content)} "
            "characters exceeds the bound (ORDER_SLOW_PATH_MAX_WORK)"
        )
    starts, ends, dists = array("q"), array("q"), array("q")
    for match in find_near_matches_levenshtein(pattern, content, distance):
        starts.append(match.start)
        ends.append(match.end)
        dists.append(match.dist)
        if len(starts) > ORDER_MAX_MATCHES:
            raise _NotChecked(f"more than {ORDER_MAX_MATCHES} approximate matches of {_quote(pattern)}")
    if not starts:
        return None
    if len(starts) <= ORDER_LIBRARY_CONSOLIDATION:  # fuzzysearch's own consolidation, as find_near_matches does
        best = consolidate_overlapping_matches(
            [Match(s, e, d, content[s:e]) for s, e, d in zip(starts, ends, dists, strict=True)]
        )
        return _Spans(
            _Group(best[0].start, best[0].end, _best=best[0]), _Group(best[-1].start, best[-1].end, _best=best[-1])
        )
    order = sorted(range(len(starts)), key=starts.__getitem__)
    # Sweep the matches by start: a group ends where the next match starts at or after every end so far.
    groups: list[tuple[int, int]] = []  # (first, last) positions in ``order``
    group_start, reach = 0, ends[order[0]]
    for position in range(1, len(order)):
        index = order[position]
        if starts[index] >= reach:
            groups.append((group_start, position - 1))
            group_start = position
        reach = max(reach, ends[index])
    groups.append((group_start, len(order) - 1))

    def group(first: int, last: int) -> _Group:
        members = sorted(order[first : last + 1])  # the order fuzzysearch found them in
        matches = [Match(starts[i], ends[i], dists[i], content[starts[i] : ends[i]]) for i in members]
        return _Group(min(m.start for m in matches), max(m.end for m in matches), matches)

    return _Spans(group(*groups[0]), group(*groups[-1]))


def _exact_group(pattern: str, start: int) -> _Group:
    match = Match(start, start + len(pattern), 0, pattern)
    return _Group(match.start, match.end, _best=match)
