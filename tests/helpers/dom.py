"""A small DOM of an HTML text (the report as written, or as Chromium serialised it), for assertions."""

from __future__ import annotations

import json
from html.parser import HTMLParser

VOID = {"meta", "br", "img", "input", "hr", "link", "col", "area", "base", "wbr", "source", "embed", "param", "track"}


class Node:
    def __init__(self, tag: str, attrs: dict, parent: Node | None):
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def walk(self):
        for child in self.children:
            if isinstance(child, Node):
                yield child
                yield from child.walk()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs) -> list[Node]:
        return [
            n
            for n in self.walk()
            if (tag is None or n.tag == tag)
            and (cls is None or cls in n.classes())
            and all(n.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def find(self, *args, **kwargs) -> Node:
        found = self.find_all(*args, **kwargs)
        assert len(found) == 1, (args, kwargs, len(found))
        return found[0]


class Tree(HTMLParser):
    """A small DOM of an HTML text (the page as written, or as Chromium serialised it)."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self._at = self.root
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs), self._at)
        self._at.children.append(node)
        if tag not in VOID:
            self._at = node

    def handle_startendtag(self, tag, attrs):
        self._at.children.append(Node(tag, dict(attrs), self._at))

    def handle_endtag(self, tag):
        node = self._at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self._at = node.parent

    def handle_data(self, data):
        self._at.children.append(data)


def embedded(tree: Tree) -> dict:
    return json.loads(tree.root.find("script", id="ocr-data").text())


def assert_nothing_injected(body: Node, scripts: int) -> None:
    assert len(body.find_all("script")) == scripts
    for node in body.walk():
        assert not any(name.startswith("on") for name in node.attrs), (node.tag, node.attrs)
        assert node.tag not in ("b", "iframe", "object", "embed"), node.tag
        if node.tag == "img":
            assert node.attrs["src"].startswith("data:image/jpeg;base64,"), node.attrs["src"][:40]
