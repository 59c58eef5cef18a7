"""olmOCR-Bench's ``math`` fact: does an equation appear in an engine's Markdown output?

``math_check`` gives the verdict of olmOCR-Bench's ``MathTest.run`` (olmocr 0.4.27,
``olmocr/bench/tests.py``) and ``same_rendering`` that of its
``compare_rendered_equations`` (``olmocr/bench/katex/render.py``), ported here (no
BeautifulSoup, lxml or Playwright) so that pytest-ocr's verdicts are olmOCR's:

1. every LaTeX span of the output is taken out, delimiter kind by delimiter kind, each
   kind's spans removed before the next is looked for: ``\\(...\\)``, ``\\[...\\]``, then
   (unless ``ignore_dollar_delimited``) ``$$...$$`` and ``$...$`` (shortest matches across
   lines, contents stripped);
2. a span equal to the reference, character for character, passes at once;
3. otherwise the spans are tried most similar first (rapidfuzz's ``fuzz.ratio`` to the
   reference), each rendered by KaTeX (``katex.KatexRenderer``) and compared with the
   reference's rendering; the first that renders the same passes.

Where pytest-ocr differs from olmocr 0.4.27, on purpose:

- a reference KaTeX cannot render raises ``UnrenderableMath`` (the fact is malformed).
  olmOCR means to (``MathTest`` raises ValidationError when the rendering is None), but its
  ``render_equation`` returns a rendering carrying the error instead of None, so such a
  fact passes olmOCR whenever the output has an equation that is not the reference's
  exact text (the error's rendering has no spans, and matching no characters always
  succeeds) and fails when it has none;
- the span matching is a loop, not a recursion, so an equation of more than about a
  thousand characters is compared where olmOCR's recursion would raise RecursionError.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from .katex import KatexRenderer, Rendering, Span

# MathTest.run's patterns, in its order; each kind's spans are cut out before the next kind
# is looked for (so "$$x$$" is one $$ span, not two empty $ spans around "x").
_BRACKETED = (r"\\\((.+?)\\\)", r"\\\[(.+?)\\\]")
_DOLLARS = (r"\$\$(.+?)\$\$", r"\$(.+?)\$")


class UnrenderableMath(ValueError):
    """The fact's reference equation is empty, or KaTeX cannot render it: a malformed fact."""

    def __init__(self, reference: str, reason: str) -> None:
        super().__init__(f"the math fact's equation {reference!r} {reason}")
        self.reference = reference
        self.reason = reason


def math_spans(text: str, *, ignore_dollar_delimited: bool = False) -> list[str]:
    """The LaTeX spans of ``text`` as MathTest.run finds them, in its order, stripped."""
    patterns = _BRACKETED if ignore_dollar_delimited else _BRACKETED + _DOLLARS
    equations: list[str] = []
    remaining = text
    for pattern in patterns:
        equations.extend(found.strip() for found in re.findall(pattern, remaining, re.DOTALL))
        remaining = re.sub(pattern, "", remaining, flags=re.DOTALL)
    return equations


def math_check(
    reference: str, text: str, *, ignore_dollar_delimited: bool = False, renderer: KatexRenderer
) -> tuple[bool, str]:
    """olmOCR-Bench's math fact: (True, "") when an equation of ``text`` is the reference,
    or renders as it does; else (False, why). Raises UnrenderableMath for a reference that
    is empty or that KaTeX refuses, and RendererError when the browser cannot render."""
    if not reference.strip():
        raise UnrenderableMath(reference, "is empty")
    # MathTest renders its reference when the fact is loaded, whatever the output holds.
    expected = renderer.render(reference)
    if expected.error is not None:
        raise UnrenderableMath(reference, f"cannot be rendered by KaTeX: {expected.error}")
    equations = math_spans(text, ignore_dollar_delimited=ignore_dollar_delimited)
    if reference in equations:
        return True, ""
    # Most similar source first: only the order of the (costly) renderings, not the verdict.
    equations.sort(key=lambda equation: -fuzz.ratio(equation, reference))
    for equation in equations:
        if same_rendering(expected, renderer.render(equation)):
            return True, ""
    delimiters = r"\(...\), \[...\]" + ("" if ignore_dollar_delimited else ", $$...$$ or $...$")
    if not equations:
        return False, f"the output has no equation ({delimiters}) to compare with {reference!r}"
    if len(equations) == 1:
        return False, f"{reference!r} is not in the output: its one equation, {equations[0]!r}, renders otherwise"
    return False, (
        f"{reference!r} is not in the output: none of its {len(equations)} equations ({delimiters}) "
        f"renders as it does (the closest in source: {equations[0]!r})"
    )


# -- comparing two renderings ----------------------------------------------------------------


def same_rendering(reference: Rendering, hypothesis: Rendering) -> bool:
    """olmOCR's compare_rendered_equations: does ``hypothesis`` render as ``reference``?

    Yes when the reference's MathML (the content of its <semantics>, less the TeX
    annotation, whitespace removed) is a substring of the hypothesis's; else when every
    character of the reference's rendering can be given its own character of the
    hypothesis's, the same, such that each has, up, down, left and right, a neighbour
    exactly where the other has one, with the same text (see _characters_match)."""
    if _squeeze(semantics_content(reference.mathml)) in _squeeze(semantics_content(hypothesis.mathml)):
        return True
    return _characters_match(_characters(reference.spans), _characters(hypothesis.spans))


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@dataclass(frozen=True)
class _Character:
    text: str
    x: float  # the centre of its share of its span's box
    y: float


def _characters(spans: Sequence[Span]) -> list[_Character]:
    """One entry per character of each span's text, zero-width-space spans left out (KaTeX's
    struts), each character given an equal slice of its span's box, left to right: olmOCR's
    expand_span_info, with its arithmetic in its order (float for float the same centres)."""
    characters = []
    for span in spans:
        if span.text == "\u200b":
            continue
        count = len(span.text)
        box = span.box
        for index, character in enumerate(span.text):
            x = box.x + (box.width * index) / count
            width = box.width / count
            characters.append(_Character(character, x + width / 2, box.y + box.height / 2))
    return characters


_DIRECTIONS = ("up", "down", "left", "right")
_TOLERANCE = 5  # px: how far off a character's column (row) another may be and still be above (beside) it


def _neighbours(characters: Sequence[_Character]) -> list[dict[str, int | None]]:
    """For each character, the nearest other character straight above, below, left and
    right of its centre (within the tolerance across); the first found at a tie."""
    found: list[dict[str, int | None]] = []
    for i, here in enumerate(characters):
        up = down = left = right = None
        up_gap = down_gap = left_gap = right_gap = 0.0
        for j, other in enumerate(characters):
            if i == j:
                continue
            if abs(other.x - here.x) <= _TOLERANCE:
                if other.y < here.y and (up is None or here.y - other.y < up_gap):
                    up, up_gap = j, here.y - other.y
                if other.y > here.y and (down is None or other.y - here.y < down_gap):
                    down, down_gap = j, other.y - here.y
            if abs(other.y - here.y) <= _TOLERANCE:
                if other.x < here.x and (left is None or here.x - other.x < left_gap):
                    left, left_gap = j, here.x - other.x
                if other.x > here.x and (right is None or other.x - here.x < right_gap):
                    right, right_gap = j, other.x - here.x
        found.append({"up": up, "down": down, "left": left, "right": right})
    return found


def _characters_match(reference: Sequence[_Character], hypothesis: Sequence[_Character]) -> bool:
    """olmOCR's backtracking search, as a loop: is there a one-to-one assignment of the
    reference's characters (in order) to equal characters of the hypothesis such that, for
    each reference character and direction where it has a neighbour, its partner has one
    there too, with the neighbour's text, and, when that neighbour comes earlier in the
    order (so has a partner already), that partner is the neighbour?"""
    candidates = []
    for character in reference:
        same = [j for j, other in enumerate(hypothesis) if other.text == character.text]
        if not same:
            return False
        candidates.append(same)
    reference_neighbours = _neighbours(reference)
    hypothesis_neighbours = _neighbours(hypothesis)

    def fits(i: int, partner: int, assignment: list[int]) -> bool:
        for direction in _DIRECTIONS:
            mine = reference_neighbours[i][direction]
            if mine is None:
                continue
            theirs = hypothesis_neighbours[partner][direction]
            if theirs is None:
                return False
            if mine < i:
                if assignment[mine] != theirs:
                    return False
            elif hypothesis[theirs].text != reference[mine].text:
                return False
        return True

    n = len(reference)
    used = [False] * len(hypothesis)
    assignment = [-1] * n
    tried = [0] * (n + 1)  # how many of its candidates each position has tried
    i = 0
    while 0 <= i < n:
        if assignment[i] != -1:  # back here from a dead end further on: free this partner
            used[assignment[i]] = False
            assignment[i] = -1
        while tried[i] < len(candidates[i]):
            partner = candidates[i][tried[i]]
            tried[i] += 1
            if not used[partner] and fits(i, partner, assignment):
                assignment[i] = partner
                used[partner] = True
                i += 1
                tried[i] = 0
                break
        else:
            i -= 1
    return i == n


# -- MathML as olmOCR reads it -----------------------------------------------------------------

# olmOCR parses KaTeX's MathML (Chromium's outerHTML of the <math> element) with BeautifulSoup's
# "xml" parser, lxml's libxml2 in recover mode, and joins the children of the first <semantics>
# element but its <annotation>s as BeautifulSoup prints them; without a <semantics> element (an
# error message is stored as the MathML), the whole document as printed. The substring test
# compares those strings, so what follows makes the same ones from what Chromium's HTML
# serializer writes: elements (an end tag for each), double-quoted attributes, and text with
# &amp; &lt; &gt; &quot; and &nbsp; (no other references, no comments).
#
# libxml2 in recover mode, as lxml 6.1 (libxml2 2.14) runs it:
# - an undefined entity (&nbsp;: Chromium writes U+00A0 so, and XML does not define it) is
#   dropped, and makes the document not well-formed, as does a character XML forbids (dropped);
# - once the document is not well-formed, the predefined entities (&amp; &lt; &gt; &quot; &apos;)
#   in text are dropped too (xmlParseReference returns early); in attribute values they are kept;
# - line ends become \n; in attribute values, tabs and line ends become spaces;
# - a document that does not start with an element (after white space) is empty.
# BeautifulSoup keeps a text of ASCII white space only as " " or "\n", prints an element without
# content as <name/> and attributes sorted by name, escapes & < > in text and attribute values,
# and quotes an attribute value with ' when it holds " but not '. Markup outside all that (a
# reference to a character XML forbids, a bare &, a comment, tags that do not nest, more than 256
# levels, where libxml2 stops) is compared as it is: Chromium does not write it for KaTeX, which
# does not nest so deep.

_XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>\n'
_PREDEFINED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_NAME = r"[^\s/>=\"'<&]+"
_TAG = re.compile(rf"<(/?)({_NAME})((?:\s+{_NAME}\s*=\s*(?:\"[^\"]*\"|'[^']*'))*)\s*(/?)>")
_ATTRIBUTE = re.compile(rf"({_NAME})\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_REFERENCE = re.compile(r"&(?:#([0-9]+)|#x([0-9a-fA-F]+)|([A-Za-z_:][\w.:-]*));")
_MAX_DEPTH = 256  # libxml2's limit without XML_PARSE_HUGE (lxml's huge_tree)
_ASCII_SPACES = " \n\t\x0c\r"
_SURROGATE = re.compile("[\ud800-\udfff]")
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class _NotKatexMathml(Exception):
    """Markup outside what Chromium writes for KaTeX's MathML."""


@dataclass
class _Element:
    name: str
    attributes: list[tuple[str, str]]
    content: list[_Element | str]

    def printed(self) -> str:
        attributes = "".join(f" {name}={_quoted(value)}" for name, value in sorted(self.attributes))
        if not self.content:
            return f"<{self.name}{attributes}/>"
        inner = "".join(_escaped(part) if isinstance(part, str) else part.printed() for part in self.content)
        return f"<{self.name}{attributes}>{inner}</{self.name}>"

    def find(self, name: str) -> _Element | None:
        if self.name == name:
            return self
        for part in self.content:
            if isinstance(part, _Element):
                found = part.find(name)
                if found is not None:
                    return found
        return None


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _quoted(value: str) -> str:
    value = _escaped(value)
    if '"' in value:
        if "'" in value:
            return '"' + value.replace('"', "&quot;") + '"'
        return "'" + value + "'"
    return '"' + value + '"'


class _Reader:
    """libxml2's recover mode over the markup Chromium writes (see above)."""

    def __init__(self) -> None:
        self.well_formed = True

    def characters(self, raw: str, attribute: bool) -> str:
        raw = raw.replace("\r\n", "\n").replace("\r", "\n")
        if attribute:
            raw = raw.replace("\t", " ").replace("\n", " ")
        pieces = []
        position = 0
        for reference in _REFERENCE.finditer(raw):
            pieces.append(self._plain(raw[position : reference.start()]))
            position = reference.end()
            decimal, hexadecimal, name = reference.groups()
            if name is None:  # a character reference: kept, if it is one of XML's characters
                code = int(decimal) if decimal is not None else int(hexadecimal, 16)
                if code > 0x10FFFF or _FORBIDDEN.match(chr(code)):
                    raise _NotKatexMathml("a reference to a character XML forbids")
                pieces.append(chr(code))
            elif name not in _PREDEFINED:
                self.well_formed = False
            elif attribute or self.well_formed:
                pieces.append(_PREDEFINED[name])
        pieces.append(self._plain(raw[position:]))
        return "".join(pieces)

    def _plain(self, text: str) -> str:
        if "&" in text:
            raise _NotKatexMathml("a bare &")
        if _FORBIDDEN.search(text):
            self.well_formed = False
            text = _FORBIDDEN.sub("", text)
        return text

    def document(self, markup: str) -> _Element | None:
        position = len(markup) - len(markup.lstrip(" \t\r\n"))
        if not markup.startswith("<", position):
            return None
        stack: list[_Element] = []
        root = None
        while position < len(markup):
            if markup.startswith("<", position):
                tag = _TAG.match(markup, position)
                if tag is None:
                    raise _NotKatexMathml(f"markup at {position}")
                closing, name, attributes, empty = tag.groups()
                position = tag.end()
                if closing:
                    if not stack or stack[-1].name != name or attributes or empty:
                        raise _NotKatexMathml(f"the end tag {name}")
                    stack.pop()
                    if not stack:
                        break
                    continue
                element = _Element(
                    name,
                    [
                        (attribute, self.characters(value if value is not None else other, attribute=True))
                        for attribute, value, other in _ATTRIBUTE.findall(attributes)
                    ],
                    [],
                )
                if stack:
                    stack[-1].content.append(element)
                else:
                    root = element
                if not empty:
                    stack.append(element)
                    if len(stack) > _MAX_DEPTH:
                        raise _NotKatexMathml("elements nested deeper than libxml2 reads")
                elif not stack:
                    break
            else:
                if not stack:
                    raise _NotKatexMathml("text outside the root element")
                end = markup.find("<", position)
                end = len(markup) if end < 0 else end
                text = self.characters(markup[position:end], attribute=False)
                position = end
                if text:
                    # BeautifulSoup keeps a string of ASCII white space as one space, or one
                    # line end if it has one.
                    if not text.strip(_ASCII_SPACES):
                        text = "\n" if "\n" in text else " "
                    stack[-1].content.append(text)
        if stack:
            raise _NotKatexMathml("an element left open")
        return root


def semantics_content(mathml: str) -> str:
    """olmOCR's extract_inner: the content of the first <semantics> element but its
    <annotation>s, as BeautifulSoup prints it; without one, the whole document as printed
    (after an XML declaration). Markup Chromium would not write for KaTeX is returned as it
    is, as olmOCR returns a string BeautifulSoup could not parse."""
    if _SURROGATE.search(mathml):
        return mathml  # BeautifulSoup cannot encode it for lxml; olmOCR's extract_inner returns it as it is
    try:
        root = _Reader().document(mathml)
    except _NotKatexMathml:
        return mathml
    semantics = None if root is None else root.find("semantics")
    if semantics is None:
        return _XML_DECLARATION + ("" if root is None else root.printed())
    return "".join(
        _escaped(part) if isinstance(part, str) else part.printed()
        for part in semantics.content
        if isinstance(part, str) or part.name != "annotation"
    )
