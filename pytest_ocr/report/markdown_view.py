"""An engine's Markdown output as the HTML report draws it: a tree of a few inert elements, never markup.

Vision-language engines write a page as Markdown, tables often in HTML (olmOCR-Bench's outputs). The report
shows such an output rendered, so that a reviewer reads the page as the engine meant it, beside the text as
written. The output is untrusted. It is parsed here, by markdown-it-py as metrics/markdown_text.py reads
Markdown (its HTML split into tags by CommonMark's grammar, each tag read by html.parser), into nodes
``[tag, attributes or None, child, ...]`` whose tags come from an allow-list and whose children are nodes or
text; the only attributes are a cell's ``rowspan`` and ``colspan`` and a list's ``start`` (small whole
numbers), a ``class`` from a fixed set and the ``facts`` marked in it. The page's script makes each node with
``createElement`` and each text with a text node, so nothing the output writes becomes markup, a link or a
request: a link shows its text (its address in a tooltip), an image a placeholder with its alt text, a formula
its LaTeX source, other HTML its text only (a script's or style's not even that).

Where a failed fact looked (its spans in the output) is marked: the Markdown blocks (paragraphs, headings, table
rows, code) whose lines it falls on, and in HTML the table cells (or other text) it falls in.
"""

from __future__ import annotations

import html
from bisect import bisect_right
from collections.abc import Sequence
from html.parser import HTMLParser
from typing import Any

from markdown_it.token import Token

from ..metrics.markdown_text import html_parser, parser

MAX_RENDERED_CHARS = 200_000  # longer outputs are shown as written only (an olmOCR page is at most ~40,000)
MAX_DEPTH = 40  # elements nested deeper are not opened (their text stays): a hostile output cannot nest without end
MAX_SPAN = 1000  # the largest rowspan or colspan kept (browsers cap them near here too)

Node = list[Any]  # [tag, attributes or None, *children]; a child is a Node or a str
Span = tuple[int, int]

# Markdown tokens that open an element, by type (the heading's level comes from the token).
_BLOCKS = {
    "paragraph_open": "p",
    "blockquote_open": "blockquote",
    "bullet_list_open": "ul",
    "ordered_list_open": "ol",
    "list_item_open": "li",
    "table_open": "table",
    "thead_open": "thead",
    "tbody_open": "tbody",
    "tr_open": "tr",
    "th_open": "th",
    "td_open": "td",
    "em_open": "em",
    "strong_open": "strong",
    "s_open": "del",
}
_HEADINGS = frozenset(("h1", "h2", "h3", "h4", "h5", "h6"))
# Blocks a fact is marked on when it falls on their lines.
_MARKED_BLOCKS = frozenset(("p", "tr", "pre", "div", *_HEADINGS))
# HTML elements kept (others keep their text only); the void ones have no content.
_HTML_TAGS = (
    frozenset(
        (
            "table thead tbody tfoot tr th td caption br hr p div span b strong i em u s del sup sub ul ol li pre "
            "code blockquote"
        ).split()
    )
    | _HEADINGS
)
_VOID = frozenset(("br", "hr"))
_SAME = {"b": "strong", "i": "em"}  # drawn as their Markdown equivalents
_HIDDEN = frozenset(("script", "style"))  # their content is not shown
# HTML elements that mark a fact falling in them (a cell, an item, a paragraph).
_HTML_MARKED = frozenset(("td", "th", "caption", "li", "p", *_HEADINGS))


def markdown_tree(text: str, spans: Sequence[Sequence[Span]] = ()) -> Node | None:
    """``text`` as a tree of inert nodes (a ``div``), its blocks and cells marked with the indices of the
    ``spans`` (each fact's, indexed as given) that fall in them; None for a text beyond MAX_RENDERED_CHARS."""
    if len(text) > MAX_RENDERED_CHARS:
        return None
    tree = _Tree(text, spans)
    for token in parser().parse(text, {}):
        tree.token(token)
    return tree.root


class _Tree:
    def __init__(self, text: str, spans: Sequence[Sequence[Span]]) -> None:
        self.text = text
        self.root: Node = ["div", None]
        self.stack: list[Node] = [self.root]
        # per open element: the output offset it starts at (None: not known)
        self.starts: list[int | None] = [None]
        self.lines = [0, *(k + 1 for k, c in enumerate(text) if c == "\n")]
        self.spans = [(index, span) for index, fact_spans in enumerate(spans) for span in fact_spans]
        self.hidden = 0  # open script and style elements

    # -- marks

    def _facts(self, start: int, end: int) -> list[int]:
        """The facts with a span in [start, end) of the output (an empty range: touching it)."""
        return sorted({i for i, (a, b) in self.spans if a < max(end, start + 1) and start < b})

    def _line_facts(self, first: int, last: int) -> list[int]:
        """The facts with a span on lines [first, last) of the output."""
        found = set()
        for index, (start, end) in self.spans:
            line_first = bisect_right(self.lines, start) - 1
            line_last = bisect_right(self.lines, max(start, end - 1)) - 1
            if line_first < last and first <= line_last:
                found.add(index)
        return sorted(found)

    # -- building

    def open(self, tag: str, attributes: dict[str, Any] | None = None, start: int | None = None) -> None:
        if len(self.stack) > MAX_DEPTH:  # deeper elements are not made: their text goes in the deepest
            self.stack.append(self.stack[-1])
            self.starts.append(None)
            return
        node: Node = [tag, attributes]
        self.stack[-1].append(node)
        self.stack.append(node)
        self.starts.append(start)

    def close(self, end: int | None = None) -> None:
        node = self.stack.pop()
        start = self.starts.pop()
        if start is not None and end is not None and node[0] in _HTML_MARKED:
            self.mark(node, self._facts(start, end))

    @staticmethod
    def mark(node: Node, facts: list[int]) -> None:
        if facts:
            node[1] = {**(node[1] or {}), "facts": facts}

    def add(self, text: str, start: int | None = None) -> None:
        if self.hidden or not text:
            return
        # HTML text outside any marked element is marked itself when a fact falls in it.
        inside = any(node[0] in _HTML_MARKED for node in self.stack[1:])
        facts = self._facts(start, start + len(text)) if start is not None and not inside else []
        parent = self.stack[-1]
        if facts:
            parent.append(["mark", {"facts": facts}, text])
        elif len(parent) > 2 and isinstance(parent[-1], str):
            parent[-1] += text
        else:
            parent.append(text)

    def leaf(self, tag: str, attributes: dict[str, Any] | None = None, *children: str) -> Node:
        node: Node = [tag, attributes, *children]
        self.stack[-1].append(node)
        return node

    # -- Markdown

    def token(self, token: Token) -> None:
        kind = token.type
        lines = token.map
        if token.nesting == 1 and (kind in _BLOCKS or kind == "heading_open"):
            tag = token.tag if kind == "heading_open" else _BLOCKS[kind]
            attributes = None
            if tag == "ol" and isinstance(token.attrs.get("start"), int | str):
                attributes = _whole("start", token.attrs["start"])
            self.open(tag, attributes)
            if lines and tag in _MARKED_BLOCKS:
                self.mark(self.stack[-1], self._line_facts(*lines))
        elif token.nesting == -1 and (kind.removesuffix("_close") + "_open" in _BLOCKS or kind == "heading_close"):
            self.close()
        elif kind == "inline":
            depth = len(self.stack)
            for child in token.children or ():
                self.inline(child)
            self.close_to(depth)
        elif kind in ("code_block", "fence", "math_block"):
            node = self.leaf("pre", {"class": "math"} if kind == "math_block" else None, token.content.rstrip("\n"))
            if lines:
                self.mark(node, self._line_facts(*lines))
        elif kind == "hr":
            self.leaf("hr")
        elif kind == "html_block":
            base = self.lines[lines[0]] if lines else -1
            known = base >= 0 and self.text.startswith(token.content, base)
            self.html(token.content, base if known else None)

    def inline(self, token: Token) -> None:
        kind = token.type
        if kind == "text":
            self.add(token.content)
        elif kind == "softbreak":
            self.add("\n")
        elif kind == "hardbreak":
            self.leaf("br")
        elif kind == "code_inline":
            self.leaf("code", None, token.content)
        elif kind == "math_inline":
            self.leaf("code", {"class": "math"}, token.content)
        elif kind == "image":
            alt = "".join(child.content for child in token.children or ())
            self.leaf("span", {"class": "image"}, f"[image{': ' + alt if alt else ''}]")
        elif kind == "link_open":
            href = token.attrs.get("href")
            self.open("span", {"class": "link", "title": str(href)} if href else {"class": "link"})
        elif kind == "link_close":
            self.close()
        elif kind in _BLOCKS and token.nesting == 1:
            self.open(_BLOCKS[kind])
        elif kind.removesuffix("_close") + "_open" in _BLOCKS:
            self.close()
        elif kind == "html_inline":
            self.tag(token.content, None)

    # -- HTML

    def html(self, source: str, base: int | None) -> None:
        """An HTML block: its tags and text, offsets known when ``base`` (where it starts in the output) is."""
        depth = len(self.stack)
        offset = base
        for piece in html_parser().parseInline(source)[0].children or ():
            if piece.type == "html_inline":
                self.tag(piece.content, offset)
            else:
                self.add(html.unescape(piece.content), offset)
            if offset is not None:
                offset += len(piece.content)
        self.close_to(depth, None if base is None else base + len(source))
        self.hidden = 0

    def tag(self, markup: str, offset: int | None) -> None:
        reader = _Tag()
        reader.feed(markup)
        reader.close()
        if reader.name is None:
            return  # a comment, a declaration, a processing instruction
        name = reader.name
        if name in _HIDDEN:
            self.hidden = max(0, self.hidden + (-1 if reader.closing else 1))
            return
        if self.hidden or (name not in _HTML_TAGS and name != "img"):
            return
        if reader.closing:
            self.end(name, offset)
            return
        if name in ("td", "th", "tr"):  # a new cell or row ends the open one
            self.end_open(("td", "th") if name != "tr" else ("td", "th", "tr"), offset)
        if name == "img":  # a placeholder, as a Markdown image gets: the page loads nothing
            alt = next((value for key, value in reader.attributes if key == "alt" and value), "")
            self.leaf("span", {"class": "image"}, f"[image{': ' + alt if alt else ''}]")
        elif name in _VOID:
            self.leaf(name)
        else:
            attributes: dict[str, Any] = {}
            for key, value in reader.attributes:
                if (key in ("rowspan", "colspan") and name in ("td", "th")) or (key == "start" and name == "ol"):
                    attributes.update(_whole(key, value) or {})
            self.open(_SAME.get(name, name), attributes or None, offset)

    def end(self, name: str, offset: int | None) -> None:
        """An end tag: closes the nearest open element of that name (in this block), and those inside it."""
        for k in range(len(self.stack) - 1, 0, -1):
            if self.stack[k][0] == _SAME.get(name, name):
                end = None if offset is None else offset + 1
                while len(self.stack) > k:
                    self.close(end)
                return

    def end_open(self, names: tuple[str, ...], offset: int | None) -> None:
        """Ends an open cell (or row) of the innermost table, as a new one starts."""
        for k in range(len(self.stack) - 1, 0, -1):
            tag = self.stack[k][0]
            if tag == "table":
                return
            if tag in names:
                while len(self.stack) > k:
                    self.close(offset)
                return

    def close_to(self, depth: int, end: int | None = None) -> None:
        """Closes what a block or a paragraph left open (HTML without its end tags)."""
        while len(self.stack) > depth:
            self.close(end)


def _whole(key: str, value: object) -> dict[str, int] | None:
    """A rowspan, colspan or start as a small whole number (None if it is not one)."""
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    if key == "start":
        return {key: number} if 0 <= number <= 10**9 else None
    return {key: number} if 1 <= number <= MAX_SPAN else None


class _Tag(HTMLParser):
    """One tag as markdown-it matched it: its name (lowercased), whether it closes, its attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.name: str | None = None
        self.closing = False
        self.attributes: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.name, self.attributes = tag, attrs

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.name, self.attributes = tag, attrs

    def handle_endtag(self, tag: str) -> None:
        self.name, self.closing = tag, True
