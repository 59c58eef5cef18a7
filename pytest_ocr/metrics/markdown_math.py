"""LaTeX in Markdown, as vision-language OCR engines write it: markdown-it rules for display math
starting a line (``$$ ... $$``, ``\\[ ... \\]``) and for math inside a paragraph (``\\( ... \\)``,
``\\[ ... \\]``, ``$ ... $``, ``$$ ... $$``), each keeping an equation's source as one token, so that
``markdown_text`` keeps it verbatim and no Markdown rule reads inside it (markdown_text.py's
documentation says what the text then holds)."""

from __future__ import annotations

from collections.abc import Callable

from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

BlockRule = Callable[[StateBlock, int, int, bool], bool]


def display_math(opener: str, closer: str) -> BlockRule:
    """``$$`` or ``\\[`` starting a line: display math up to the first line ending with the closer, with
    no blank line before it (a line of only ``>`` markers counts as blank). Which lines end with the
    closer and which are blank is noted once per document, so that a rule tried at every line of a
    document is linear, not quadratic (mdit-py-plugins' dollarmath scans to the end each time)."""

    def display_math(state: StateBlock, startLine: int, endLine: int, silent: bool) -> bool:
        if state.is_code_block(startLine):
            return False
        start = state.bMarks[startLine] + state.tShift[startLine]
        end = state.eMarks[startLine]
        if not state.src.startswith(opener, start, end):
            return False
        first = state.src[start + len(opener) : end]
        if first.rstrip().endswith(closer):  # on one line
            content = first.rstrip()[: -len(closer)]
            last = startLine
        elif closer in first:  # closed on this line, text after it: inline math
            return False
        else:
            lines = _math_lines(state, closer)
            last = lines.next_closing(startLine + 1)
            if last < 0 or last >= endLine or lines.blank_between(startLine, last):
                return False
            body = [state.src[state.bMarks[line] : state.eMarks[line]] for line in range(startLine + 1, last)]
            ending = state.src[state.bMarks[last] + state.tShift[last] : state.eMarks[last]].rstrip()
            content = "\n".join([first, *body, ending[: -len(closer)]])
        if not content.strip():
            return False
        if not silent:
            token = state.push("math_block", "math", 0)
            token.block = True
            token.content = content
            token.markup = opener
            token.map = [startLine, last + 1]
            state.line = last + 1
        return True

    return display_math


class _MathLines:
    """The lines of a document that end with a closer, and those that are blank, sorted."""

    def __init__(self, source: str, closer: str) -> None:
        self.closing: list[int] = []
        self.blank: list[int] = []
        for number, line in enumerate(source.split("\n")):
            stripped = line.strip()
            if stripped.endswith(closer):
                self.closing.append(number)
            elif not stripped.replace(">", "").strip():
                self.blank.append(number)

    def next_closing(self, line: int) -> int:
        index = _bisect(self.closing, line)
        return self.closing[index] if index < len(self.closing) else -1

    def blank_between(self, first: int, last: int) -> bool:
        index = _bisect(self.blank, first + 1)
        return index < len(self.blank) and self.blank[index] < last


def _bisect(values: list[int], value: int) -> int:
    """The index of the first item of sorted ``values`` at least ``value``."""
    low, high = 0, len(values)
    while low < high:
        middle = (low + high) // 2
        if values[middle] < value:
            low = middle + 1
        else:
            high = middle
    return low


def _math_lines(state: StateBlock, closer: str) -> _MathLines:
    key = f"markdown_text.math_lines:{closer}"
    noted = state.env.get(key)
    if noted is None or noted[0] is not state.src:
        noted = state.env[key] = (state.src, _MathLines(state.src, closer))
    return noted[1]


# A search for a closing delimiter: the first position in [start, stop) where one begins, or -1.
Find = Callable[[str, int, int], int]


class _Closings:
    """The next position of a closing delimiter at or after a position, in one inline source, remembered:
    a run of unclosed openers costs one scan, not one scan each."""

    def __init__(self, source: str, find: Find) -> None:
        self.source = source
        self.find = find
        self.searched_from = len(source) + 1  # the first closing at or after it is `found`
        self.found = -1

    def next(self, position: int) -> int:
        if self.searched_from <= position and (self.found < 0 or self.found >= position):
            return self.found
        if position < self.searched_from:  # only the part before the last search needs a look
            found = self.find(self.source, position, min(self.searched_from, len(self.source)))
            if found < 0:
                found = self.found
        else:
            found = self.find(self.source, position, len(self.source))
        self.searched_from, self.found = position, found
        return found


def _closings(state: StateInline, name: str, find: Find) -> _Closings:
    key = f"markdown_text.closing:{name}"
    closings = state.env.get(key)
    if closings is None or closings.source is not state.src:
        closings = state.env[key] = _Closings(state.src, find)
    return closings


def _escaped(source: str, position: int) -> bool:
    """Whether the character at ``position`` follows an odd number of backslashes."""
    backslashes = 0
    while position - backslashes - 1 >= 0 and source[position - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _finding(closer: str, valid: Callable[[str, int], bool]) -> Find:
    def find(source: str, start: int, stop: int) -> int:
        while True:
            found = source.find(closer, start, stop + len(closer) - 1)
            if found < 0 or valid(source, found):
                return found
            start = found + 1

    return find


def _anywhere(source: str, position: int) -> bool:
    return True


def _unescaped(source: str, position: int) -> bool:
    return not _escaped(source, position)


_FIND_DOLLAR = _finding("$", _unescaped)
_FIND_DOUBLE_DOLLAR = _finding("$$", _unescaped)
_BRACKETS = {"(": "\\)", "[": "\\]"}
_FIND_BRACKET = {opener: _finding(closer, _anywhere) for opener, closer in _BRACKETS.items()}


def bracket_math(state: StateInline, silent: bool) -> bool:
    """``\\(...\\)`` and ``\\[...\\]`` inside a paragraph: math, kept verbatim."""
    source, position = state.src, state.pos
    if source[position] != "\\" or position + 1 >= state.posMax:
        return False
    opener = source[position + 1]
    if opener not in _BRACKETS:
        return False
    closing = _closings(state, opener, _FIND_BRACKET[opener]).next(position + 2)
    if closing < 0 or closing + 2 > state.posMax or closing == position + 2:
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content = source[position + 2 : closing].strip()
        token.markup = "\\" + opener
    state.pos = closing + 2
    return True


def dollar_math(state: StateInline, silent: bool) -> bool:
    """``$...$`` and ``$$...$$`` inside a paragraph. Pandoc's rule for ``$``: the first unescaped ``$``
    after the opening one closes it, and it is math only if the opening ``$`` has a non-space character
    after it and the closing one a non-space character before it and no digit after it."""
    source, position = state.src, state.pos
    if source[position] != "$" or position + 1 >= state.posMax:
        return False
    if source[position + 1] == "$":
        start, width = position + 2, 2
        closing = _closings(state, "$$", _FIND_DOUBLE_DOLLAR).next(start)
    else:
        start, width = position + 1, 1
        closing = _closings(state, "$", _FIND_DOLLAR).next(start)
        if (
            closing < 0
            or source[start].isspace()
            or source[closing - 1].isspace()
            or source[closing + 1 : closing + 2].isdigit()
        ):
            return False
    if closing < 0 or closing + width > state.posMax or not source[start:closing].strip():
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content = source[start:closing].strip()
        token.markup = "$" * width
    state.pos = closing + width
    return True
