"""Pages for OmniDocBench's scoring made in code (shared with benchmarks/bench_omnidocbench.py):
an ordinary page of up to 200 blocks with an output that splits, merges, reorders and misspells
them, and a hostile output of thousands of paragraphs and tables. Seeded: the same every run."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "data" / "omnidocbench"

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which but have an they "
    "you were her she there been one all we their has would when if more no out so said what up its about than "
    "into them can only other time new some could these two may first then do any like my now over such our man "
    "me even most made after also did many before must through back years where much your way well down should"
).split()


def fixture_pages() -> list[dict[str, Any]]:
    """The oracle fixture's ground-truth pages (tests/data/omnidocbench/pages.json)."""
    pages: list[dict[str, Any]] = json.loads((DATA / "pages.json").read_text(encoding="utf-8"))
    return pages


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _misspelt(rng: random.Random, text: str, rate: float) -> str:
    chars = list(text)
    for i in range(len(chars)):
        if chars[i].isalpha() and rng.random() < rate:
            chars[i] = rng.choice("abcdefghijklmnopqrstuvwxyz")
    return "".join(chars)


def ordinary_page(blocks: int = 200, seed: int = 0) -> tuple[dict[str, Any], str]:
    """A ground-truth page of ``blocks`` blocks (paragraphs, titles, a header and a footer) and
    an output that reads them with 3% of letters wrong, every 10th paragraph split in two,
    every 15th merged with the next, and every 20th pair swapped."""
    rng = random.Random(seed)
    dets: list[dict[str, Any]] = []
    for i in range(blocks):
        category = "header" if i == 0 else "footer" if i == blocks - 1 else "title" if i % 12 == 1 else "text_block"
        text = _sentence(rng, 4) if category != "text_block" else " ".join(_sentence(rng, 12) for _ in range(3))
        dets.append({"category_type": category, "order": i + 1, "anno_id": i, "text": text, "attribute": {}})
    page = {
        "layout_dets": dets,
        "page_info": {"image_path": f"ordinary_{blocks}.png", "page_attribute": {}},
        "extra": {"relation": []},
    }
    paragraphs = [_misspelt(rng, d["text"], 0.03) for d in dets]
    out: list[str] = []
    i = 0
    while i < len(paragraphs):
        if i % 20 == 7 and i + 1 < len(paragraphs):
            out += [paragraphs[i + 1], paragraphs[i]]
            i += 2
        elif i % 15 == 3 and i + 1 < len(paragraphs):
            out.append(paragraphs[i] + " " + paragraphs[i + 1])
            i += 2
        elif i % 10 == 5:
            half = len(paragraphs[i]) // 2
            out += [paragraphs[i][:half], paragraphs[i][half:]]
            i += 1
        else:
            out.append(paragraphs[i])
            i += 1
    return page, "\n\n".join(out)


def hostile_markdown(paragraphs: int = 10_000, tables: int = 1_000, seed: int = 0) -> str:
    """An output no page has: ``paragraphs`` paragraphs of random words and ``tables`` HTML
    tables (3 x 3 cells) between them."""
    rng = random.Random(seed)
    every = max(paragraphs // max(tables, 1), 1)
    parts: list[str] = []
    made = 0
    for i in range(paragraphs):
        parts.append(_sentence(rng, rng.randint(5, 40)))
        if made < tables and i % every == every - 1:
            rows = "".join(
                "<tr>" + "".join(f"<td>{_sentence(rng, 2)}</td>" for _ in range(3)) + "</tr>" for _ in range(3)
            )
            parts.append(f"<table>{rows}</table>")
            made += 1
    return "\n\n".join(parts)


_GREEK = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau".split()
_CATEGORIES = ["text_block"] * 6 + [
    "title",
    "header",
    "footer",
    "page_number",
    "figure_caption",
    "table_footnote",
    "equation_isolated",
    "equation_isolated",
    "reference",
    "code_txt",
]


def match_case(seed: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Random input for the mixed match (ground-truth blocks, predicted blocks as md_tex_filter
    makes them), for comparing the ported match with OmniDocBench's own
    (tests/data/omnidocbench/match/make_match_expected.py): paragraphs, titles, ignored
    categories, formulas (one-column arrays among them) and inline formulas; predictions
    misspelt, split, dropped, shuffled, and a few that match nothing. Standard library only:
    OmniDocBench's environment imports it too."""
    r = random.Random(seed)

    def words(n: int) -> str:
        return " ".join(r.choice(_GREEK) for _ in range(n))

    def noisy(text: str, rate: float) -> str:
        return "".join(r.choice("abcxyz") if c.isalpha() and r.random() < rate else c for c in text)

    def formula() -> str:
        if r.random() < 0.2:
            first, second, name = r.randint(0, 9), r.randint(0, 9), r.choice(_GREEK)
            return f"\\begin{{array}}{{l}} x^2 + {first} \\\\ y_{second} = {name} \\end{{array}}"
        base, power, numerator, denominator = r.choice("abcxyz"), r.randint(0, 9), r.choice("abc"), r.randint(1, 9)
        return f"{base}^{{{power}}} + \\frac{{{numerator}}}{{{denominator}}}"

    blocks: list[dict[str, Any]] = []
    for i in range(r.randint(0, 14)):
        category = r.choice(_CATEGORIES)
        block: dict[str, Any] = {"category_type": category, "order": r.choice([i + 1, i + 1, i + 1, 0]), "anno_id": i}
        block["attribute"] = {"k": r.randint(0, 2)}
        if category == "equation_isolated":
            block["latex"] = "$$" + formula() + "$$"
        else:
            block["text"] = r.choice(["", "$x^2$ ", ""]) + words(r.randint(1, 25)) + r.choice(["", " $\\alpha_1$", ""])
        if r.random() < 0.05:
            block["text" if "text" in block else "latex"] = "..."
        blocks.append(block)
    predictions: list[dict[str, Any]] = []
    position = 0
    for block in blocks:
        if r.random() < 0.2:
            continue
        source = block.get("text") or block.get("latex") or ""
        parts = (
            [source[: len(source) // 2], source[len(source) // 2 :]]
            if r.random() < 0.2 and len(source) > 10
            else [source]
        )
        for part in parts:
            category = "equation_isolated" if "latex" in block and r.random() < 0.8 else "text_all"
            fine = "equation_isolated" if category == "equation_isolated" else r.choice(["text_block", "title"])
            content = noisy(part, r.choice([0, 0.05, 0.3]))
            if category == "equation_isolated" and r.random() < 0.5:
                content = "\\[" + content.strip("$") + "\\]"
            end = position + len(content)
            predictions.append(
                {"category_type": category, "position": [position, end], "content": content, "fine_category_type": fine}
            )
            position = end + r.choice([1, 2])
    for _ in range(r.randint(0, 4)):
        content = r.choice([f"$x_{r.randint(0, 9)}$", words(r.randint(1, 10)), "\\alpha"])
        fine = "equation_inline" if content.startswith("$") else "text_block"
        category = "equation_isolated" if fine == "equation_inline" else "text_all"
        predictions.append(
            {
                "category_type": category,
                "position": [r.randint(0, position + 5), 0],
                "content": content,
                "fine_category_type": fine,
            }
        )
    r.shuffle(predictions)
    return blocks, predictions


def digest(value: Any) -> str:
    """A match's output as a SHA-256 of its JSON (numpy numbers as Python's, ranges as lists),
    so the expected outputs of many cases stay small."""
    import hashlib

    def plain(o: Any) -> Any:
        if isinstance(o, range):
            return list(o)
        if hasattr(o, "item"):  # a numpy scalar
            return o.item()
        raise TypeError(type(o))

    return hashlib.sha256(json.dumps(value, default=plain, sort_keys=True).encode()).hexdigest()


def large_layout_file(path: Path, megabytes: float) -> list[str]:
    """A ground-truth file of about ``megabytes`` MB (the fixture's pages and copies of them, each
    copy's image named ``copy{k}_{name}``), written compactly as OmniDocBench writes its own; the
    image names of every page, in order."""
    source = fixture_pages()
    size = len(json.dumps(source, ensure_ascii=False))
    pages = list(source)
    for copy in range(max(int(megabytes * 1e6 / size) - 1, 0)):
        for page in source:
            renamed = json.loads(json.dumps(page))
            renamed["page_info"]["image_path"] = f"copy{copy}_{page['page_info']['image_path']}"
            pages.append(renamed)
    path.write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
    return [p["page_info"]["image_path"] for p in pages]
