"""Baseline facts: the output is not empty, does not end in a loop and holds no disallowed characters; or a
blank page gives (almost) nothing."""

from __future__ import annotations

import re

from .model import Fact
from .page import _HOLDS, LOCATE_MAX_CHARS, _Page, _Result
from .text import _WHITESPACE, _count, _Located, _quote, _sub_located

# CJK Unified Ideographs, Hiragana, Katakana, emoticons, pictographs, transport symbols, regional indicators.
_DISALLOWED = re.compile(
    "[\u4e00-\u9fff\u3040-\u309f\u30a0-\u30ff\U0001f600-\U0001f64f\U0001f300-\U0001f5ff"
    "\U0001f680-\U0001f6ff\U0001f1e0-\U0001f1ff]"
)


def _check_baseline(fact: Fact, page: _Page) -> _Result:
    text = page.text
    length = _alphanumerics(text)
    if fact.max_length is not None:  # a blank page: nothing else is checked
        if fact.max_length_skips_image_alt_tags:
            length = _alphanumerics(_without_images(text))
        if length > fact.max_length:
            return (
                False,
                f"{length} alphanumeric characters on a page expected blank (max_length {fact.max_length})",
                (),
            )
        return _HOLDS
    if length == 0:
        return False, "the output has no alphanumeric characters", ()
    for size, count in enumerate(ngram_repeats(text), start=1):
        if count > fact.max_repeats:
            unit = _WHITESPACE.sub(" ", text)[-size:]
            span = None
            if len(text) <= LOCATE_MAX_CHARS:
                collapsed = _sub_located(_WHITESPACE, " ", _Located(text))
                span = collapsed.span(len(collapsed.text) - count * size, len(collapsed.text))
            return (
                False,
                f"the output ends with {count} repeats of the {size}-gram {_quote(unit)} "
                f"(max_repeats {fact.max_repeats}){page.at(span).replace(' at ', ', from ', 1)}",
                (span,) if span else (),
            )
    if fact.check_disallowed_characters:
        found = _DISALLOWED.findall(text)
        if found:
            shown = "".join(dict.fromkeys(found))
            first = _DISALLOWED.search(text)
            assert first is not None
            return (
                False,
                f"the output has {_count(len(found), 'disallowed character')} (CJK, kana or emoji): "
                f"{_quote(shown, 20)}, the first{page.at(first.span())}",
                (first.span(),),
            )
    return _HOLDS


def _alphanumerics(text: str) -> int:
    # olmOCR: len("".join(c for c in text if c.isalnum()).strip()); no alphanumeric character is whitespace.
    return sum(map(str.isalnum, text))


def _without_images(text: str) -> str:
    """``re.sub(r"!\\[.*?\\]\\(.*?\\)", "", text)`` in linear time (the regular expression retries every '!['
    to the end of its line: quadratic on a line of them). An image at '![' runs to the first ')' after the
    first '](' after it, all on one line; if the line has no such '](' and ')', no later '![' on it has."""
    pieces: list[str] = []
    done = 0  # text[:done] is settled
    search = 0
    while True:
        start = text.find("![", search)
        if start < 0:
            break
        line_end = text.find("\n", start)
        if line_end < 0:
            line_end = len(text)
        bracket = text.find("](", start + 2, line_end)
        close = text.find(")", bracket + 2, line_end) if bracket >= 0 else -1
        if close < 0:
            search = line_end
            continue
        pieces.append(text[done:start])
        done = search = close + 1
    pieces.append(text[done:])
    return "".join(pieces)


def ngram_repeats(text: str, max_ngram_size: int = 5) -> list[int]:
    """olmOCR's RepeatDetector.ngram_repeats: for n = 1..max_ngram_size, how many times the text's last n
    characters (whitespace runs as one space) repeat back to back at its end (0 if the text is shorter).

    Counted by doubling and halving (str.endswith in C) instead of olmOCR's character loop: 5 MB of one
    letter takes milliseconds."""
    result = [0] * max_ngram_size
    if not text:
        return result
    text = _WHITESPACE.sub(" ", text)
    for size in range(1, max_ngram_size + 1):
        if len(text) < size:
            continue
        unit = text[-size:]
        most = len(text) // size
        low, high = 1, 1  # text ends with unit * low; find high with it not (or high > most)
        while high <= most and text.endswith(unit * high):
            low, high = high, high * 2
        high = min(high, most + 1)
        while high - low > 1:
            middle = (low + high) // 2
            if text.endswith(unit * middle):
                low = middle
            else:
                high = middle
        result[size - 1] = low
    return result
