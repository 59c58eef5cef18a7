"""olmOCR-Bench's ``math`` facts (pytest_ocr.metrics.math_check) and the KaTeX renderer
behind them (pytest_ocr.browser.katex), against olmOCR's own code as the oracle.

olmocr (0.4.27, the test extra) renders with Playwright's Chromium, which is not downloaded
here: its launches are given the system Chromium (``executable_path``), so both sides
render in the same browser build with the same system fonts. olmOCR's equation cache (a
sqlite file it opens under $HOME when imported) is moved into a temporary directory, and
its renderings are memoized per equation (they are deterministic) so that the oracle,
which waits for network idleness on every page, costs each distinct equation one
rendering. Everything runs in real browsers: no mocks, and no test is skipped (a machine
without Chromium fails them, with RendererUnavailable's message saying how to get one)."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from pytest_ocr.browser import katex
from pytest_ocr.browser.chromium import RendererError, RendererTimeout, RendererUnavailable, find_browser
from pytest_ocr.browser.katex import KATEX_VERSION, KatexRenderer
from pytest_ocr.metrics.math_check import (
    Box,
    OutOfTime,
    Rendering,
    Span,
    UnrenderableMath,
    math_check,
    math_spans,
    same_rendering,
)

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parent / "data" / "olmocr-bench-sample"


def _math_facts() -> list[dict[str, Any]]:
    lines = (SAMPLE / "dataset.jsonl").read_text(encoding="utf-8").splitlines()
    return [fact for fact in (json.loads(line) for line in lines if line.strip()) if fact["type"] == "math"]


FACTS = _math_facts()
FACT_IDS = [fact["id"] for fact in FACTS]


def _page(fact: dict[str, Any]) -> str:
    """The olmOCR pipeline's Markdown for the fact's page."""
    stem = Path(fact["pdf"]).stem
    return (SAMPLE / "olmocr_pipeline" / f"{stem}_pg{fact['page']}_repeat1.md").read_text(encoding="utf-8")


# -- mutated outputs ---------------------------------------------------------------------------

_LETTER = re.compile(r"(?<![\\a-zA-Z])[a-z](?![a-zA-Z])")  # a one-letter variable

# Rewrites of an equation: some render the same (olmOCR passes them), some do not.
_REWRITES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("spaced", lambda m: re.sub(r"\s*([=+-])\s*", r" \1 ", m)),
    ("squeezed", lambda m: re.sub(r"\s+(?=[=+\-{}()^_])|(?<=[=+\-{}()^_])\s+", "", m)),
    ("braced", lambda m: "{" + m + "}"),
    ("scripts-unbraced", lambda m: re.sub(r"([\^_])\{(\w)\}", r"\1\2", m)),
    ("over", lambda m: re.sub(r"\\frac\{((?:[^{}]|\{[^{}]*\})*)\}\{((?:[^{}]|\{[^{}]*\})*)\}", r"{\1 \\over \2}", m)),
    ("left-right", lambda m: re.sub(r"(?<!\\left)\(", r"\\left(", re.sub(r"(?<!\\right)\)", r"\\right)", m))),
    ("no-left-right", lambda m: m.replace("\\left", "").replace("\\right", "")),
    ("sup-to-sub", lambda m: m.replace("^", "_", 1)),
    ("digit", lambda m: re.sub(r"\d", lambda d: str((int(d.group()) + 1) % 10), m, count=1)),
    ("letter", lambda m: _LETTER.sub(lambda c: chr(ord(c.group()) % 26 + 98), m, count=1)),
    ("plus-to-minus", lambda m: m.replace("+", "-", 1)),
    ("times-to-cdot", lambda m: m.replace("\\times", "\\cdot")),
    ("bf", lambda m: re.sub(r"\\mathbf\{(\w)\}", r"{\\bf \1}", m)),
    ("text-operator", lambda m: m.replace("\\operatorname", "\\text")),
    ("plain-calligraphic", lambda m: re.sub(r"\\mathcal\{(\w)\}", r"\1", m)),
    ("prime-apostrophe", lambda m: m.replace("^{\\prime}", "'")),
    ("unicode-pi", lambda m: m.replace("\\pi", "π")),
    ("d-x", lambda m: m.replace("d x", "\\,dx").replace("f(x) dx", "f(x)\\,dx")),
    ("displaystyle", lambda m: "\\displaystyle " + m),
    ("nbsp", lambda m: m.replace(" ", "\u00a0")),
    ("nbsp-text-first", lambda m: "\\text{\u00a0}" + m),
    ("in-larger", lambda m: "x + " + m),
    ("unbalanced", lambda m: m + "}"),
)


def _mutations(fact: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(name, Markdown output, ignore_dollar_delimited) for a fact: its equation rewritten,
    in each kind of delimiters, alone or among other equations of its page."""
    math = fact["math"]
    others = [e for e in math_spans(_page(fact)) if e != math][:2]
    cases = [
        ("exact", f"We have \\({math}\\) here.", False),
        ("padded", f"\\(  {math}\n \\)", False),
        ("brackets", f"\\[\n{math}\n\\]", False),
        ("double-dollar", f"$${math}$$", False),
        ("dollar", f"So ${math}$.", False),
        ("dollar-ignored", f"So ${math}$.", True),
        ("double-dollar-ignored", f"$${math}$$ and \\(x\\)", True),
        ("no-math", f"The text says {math} without delimiters.", False),
    ]
    seen = {math}
    for name, rewrite in _REWRITES:
        rewritten = rewrite(math)
        if rewritten in seen:
            continue
        seen.add(rewritten)
        cases.append((name, f"Then \\({rewritten}\\).", False))
        cases.append((f"{name}-among-others", "\n\n".join(f"$${e}$$" for e in [*others, rewritten]), False))
    return cases


MUTATIONS = [(fact, name, output, ignore) for fact in FACTS for name, output, ignore in _mutations(fact)]
MUTATION_IDS = [f"{fact['id']}-{name}" for fact, name, _, _ in MUTATIONS]

# Pairs for the comparison alone: MathML with entities (&lt;, &amp;, &nbsp;), spacing,
# structures whose MathML one contains the other's, and equal characters in other places.
PAIRS = [
    ("a < b", "a<b"),
    ("a < b", "\\text{\u00a0}a < b"),
    ("\\text{\u00a0}a < b", "a < b"),
    ("a \\& b", "\\text{a\u00a0}a \\& b"),
    ("a \\& b", "a \\& b + c"),
    ("x > 0", "x \\gt 0"),
    ("\\frac{a}{b}", "{a \\over b}"),
    ("\\frac{a}{b}", "\\frac{b}{a}"),
    ("\\frac{a}{b}", "a/b"),
    ("x^2", "x_2"),
    ("x^2", "{x}^{2}"),
    ("x^2 + y^2", "y^2 + x^2"),
    ("\\sqrt{x}", "\\sqrt[3]{x}"),
    ("\\sqrt[3]{x}", "\\sqrt{x}"),
    ("(a)", "\\left(a\\right)"),
    ("\\begin{pmatrix}1&0\\\\0&1\\end{pmatrix}", "\\begin{pmatrix}0&1\\\\1&0\\end{pmatrix}"),
    ("\\begin{pmatrix}1&0\\\\0&1\\end{pmatrix}", "\\begin{bmatrix}1&0\\\\0&1\\end{bmatrix}"),
    ("a \\quad b", "a \\qquad b"),
    ("a\\,b", "ab"),
    ("\\,", "\\frac{a}{"),
    ("\\,", "x"),
    ("x", "\\frac{a}{"),
    ("\\mathbb{R}", "\\mathbf{R}"),
    ("\\hat{u}", "\\widehat{u}"),
    ("\\sum_{i=1}^{n} i", "\\sum\\limits_{i=1}^{n} i"),
    ("\\sum_{i=1}^{n} i", "\\textstyle\\sum_{i=1}^{n} i"),
    ("\\int_a^b f", "\\int\\limits_a^b f"),
    ("a_1 a_2 a_3", "a_1 a_3 a_2"),
    ("0 0 0 0", "0\\,0\\,0\\,0"),
]


# -- the oracle ----------------------------------------------------------------------------------


class Olmocr:
    """olmocr's MathTest and renderer, rendering in the system Chromium."""

    def __init__(self, tests: Any, render: Any) -> None:
        self.tests = tests
        self.render = render
        self._renderings: dict[str, Any] = {}
        self._lock = threading.Lock()

    def rendering(self, equation: str) -> Any:
        with self._lock:
            known = self._renderings.get(equation)
        if known is None:
            known = self.render.render_equation(equation)
            with self._lock:
                self._renderings[equation] = known
        return known

    def verdict(self, math: str, output: str, ignore_dollar_delimited: bool = False) -> tuple[bool, str]:
        fact = {"pdf": "x.pdf", "page": 1, "id": "x", "type": "math", "math": math}
        test = self.tests.load_single_test({**fact, "ignore_dollar_delimited": ignore_dollar_delimited})
        result: tuple[bool, str] = test.run(output)
        return result


def _all_equations() -> list[str]:
    equations: dict[str, None] = {}
    for fact in FACTS:
        equations[fact["math"]] = None
        equations.update(dict.fromkeys(math_spans(_page(fact))))
    for _, _, output, _ in MUTATIONS:
        equations.update(dict.fromkeys(math_spans(output)))
    for pair in PAIRS:
        equations.update(dict.fromkeys(pair))
    return list(equations)


@pytest.fixture(scope="module")
def olmocr(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Olmocr]:
    home = tmp_path_factory.mktemp("olmocr-home")
    chromium = find_browser()
    with pytest.MonkeyPatch.context() as patch:
        from playwright.sync_api import _generated

        launch = _generated.BrowserType.launch

        def system_chromium(self: Any, *args: Any, **kwargs: Any) -> Any:
            kwargs.setdefault("executable_path", chromium)
            return launch(self, *args, **kwargs)

        patch.setattr(_generated.BrowserType, "launch", system_chromium)
        # olmOCR opens its equation cache under ~/.cache when imported.
        with pytest.MonkeyPatch.context() as importing:
            importing.setenv("HOME", str(home))
            from olmocr.bench import tests
            from olmocr.bench.katex import render
        patch.setattr(render, "equation_cache", render.EquationCache(db_path=str(home / "equations.db")))
        # Six browsers at once: olmOCR idles half a second per equation (networkidle).
        executor = ThreadPoolExecutor(max_workers=6, thread_name_prefix="olmocr-render")
        patch.setattr(render, "_render_executor", executor)
        oracle = Olmocr(tests, render)
        patch.setattr(tests, "render_equation", oracle.rendering)
        with ThreadPoolExecutor(max_workers=6) as warm:
            list(warm.map(oracle.rendering, _all_equations()))
        try:
            yield oracle
        finally:
            _close_olmocr_browsers(render, executor)


def _close_olmocr_browsers(render: Any, executor: ThreadPoolExecutor) -> None:
    """Close the browser each of the executor's threads started (one task on each thread)."""
    workers = executor._max_workers
    barrier = threading.Barrier(workers)

    def close() -> None:
        try:
            barrier.wait(timeout=30)
        except threading.BrokenBarrierError:
            pass
        owner = getattr(render._thread_local, "owner", None)
        if owner is not None:
            owner.close_now()
            render._thread_local.owner = None

    for future in [executor.submit(close) for _ in range(workers)]:
        future.result(timeout=60)
    executor.shutdown(wait=True)


@pytest.fixture(scope="module")
def renderer() -> Iterator[KatexRenderer]:
    with KatexRenderer() as shared:
        yield shared


def _as_olmocr(rendering: Rendering) -> tuple[str, list[tuple[str, float, float, float, float]], str | None]:
    return (
        rendering.mathml,
        [(s.text, s.box.x, s.box.y, s.box.width, s.box.height) for s in rendering.spans],
        rendering.error,
    )


def _olmocrs(rendered: Any) -> tuple[str, list[tuple[str, float, float, float, float]], str | None]:
    return (
        rendered.mathml,
        [
            (s.text, s.bounding_box.x, s.bounding_box.y, s.bounding_box.width, s.bounding_box.height)
            for s in rendered.spans
        ],
        rendered.error,
    )


# -- 1. the sample's facts ---------------------------------------------------------------------


def test_the_sample_has_twelve_math_facts():
    assert len(FACTS) == 12
    assert len(set(FACT_IDS)) == 12


@pytest.mark.parametrize("fact", FACTS, ids=FACT_IDS)
def test_sample_verdict_is_olmocrs(fact, olmocr, renderer):
    output = _page(fact)
    ignore = fact.get("ignore_dollar_delimited", False)
    expected = olmocr.verdict(fact["math"], output, ignore)
    passed, reason = math_check(fact["math"], output, ignore_dollar_delimited=ignore, renderer=renderer)
    assert passed == expected[0]
    assert (reason == "") == passed


def test_the_sample_has_passing_and_failing_math_facts(olmocr):
    verdicts = [olmocr.verdict(fact["math"], _page(fact))[0] for fact in FACTS]
    assert True in verdicts and False in verdicts


# -- 2. mutated outputs --------------------------------------------------------------------------


@pytest.mark.parametrize(("fact", "name", "output", "ignore"), MUTATIONS, ids=MUTATION_IDS)
def test_mutated_output_verdict_is_olmocrs(fact, name, output, ignore, olmocr, renderer):
    expected = olmocr.verdict(fact["math"], output, ignore)
    passed, reason = math_check(fact["math"], output, ignore_dollar_delimited=ignore, renderer=renderer)
    assert passed == expected[0], (name, output)
    assert (reason == "") == passed


def test_mutations_pass_and_fail(olmocr):
    """The mutated outputs are not all one verdict: some rewrites render the same."""
    verdicts = [olmocr.verdict(fact["math"], output, ignore)[0] for fact, _, output, ignore in MUTATIONS]
    assert 0.2 < sum(verdicts) / len(verdicts) < 0.8, sum(verdicts)


def test_renderings_are_olmocrs(olmocr, renderer):
    """Every equation of the tests (the sample's, the mutations', the pairs') rendered by
    both: the same spans (text and boxes, float for float), MathML and KaTeX errors."""
    equations = _all_equations()
    different = [e for e in equations if _as_olmocr(renderer.render(e)) != _olmocrs(olmocr.rendering(e))]
    assert different == []
    assert any(renderer.render(e).error for e in equations)


def _comparison_pairs() -> list[tuple[str, str]]:
    pairs = list(PAIRS)
    references = list(dict.fromkeys(fact["math"] for fact in FACTS))
    for fact, _, output, _ in MUTATIONS:
        pairs += [(fact["math"], equation) for equation in math_spans(output)]
    for reference in references:
        pairs += [(reference, other) for other in references if other != reference]
    for fact in FACTS:
        pairs += [(fact["math"], equation) for equation in math_spans(_page(fact))]
    # Both ways: the comparison is not symmetric.
    pairs += [(b, a) for a, b in pairs]
    return list(dict.fromkeys(pairs))


def test_same_rendering_is_compare_rendered_equations(olmocr, renderer):
    disagree = []
    verdicts = []
    for reference, hypothesis in _comparison_pairs():
        theirs = olmocr.render.compare_rendered_equations(olmocr.rendering(reference), olmocr.rendering(hypothesis))
        ours = same_rendering(renderer.render(reference), renderer.render(hypothesis))
        verdicts.append(ours)
        if ours != theirs:
            disagree.append((reference, hypothesis, theirs))
    assert disagree == []
    assert len(verdicts) > 300 and 0.1 < sum(verdicts) / len(verdicts) < 0.9


_HEAD = '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><semantics>'
_TAIL = '<annotation encoding="application/x-tex">q</annotation></semantics></math>'


@pytest.mark.parametrize(
    "mathml",
    [
        # undefined entity first: the predefined ones after it in text are dropped, in attributes kept
        _HEAD + '<mrow><mtext>a&nbsp;b</mtext><mo>&lt;</mo><mi a="x&amp;y">&amp;</mi><mo>x&gt;y</mo></mrow>' + _TAIL,
        _HEAD + '<mrow><mi a="x&amp;y&lt;z&quot;w">&amp;</mi><mtext>a&nbsp;b</mtext><mi>&amp;</mi></mrow>' + _TAIL,
        _HEAD + '<mrow><mi a="x&nbsp;y">a</mi><mi>&amp;</mi></mrow>' + _TAIL,
        _HEAD + "<mrow><mi>&amp;a\x01b</mi><mi>&amp;</mi><mi>\ufffe</mi></mrow>" + _TAIL,
        _HEAD + '<mrow><mtext>a&nbsp;b</mtext><mi>&#160;&#x41;</mi><mi a="x&#9;y">q</mi></mrow>' + _TAIL,
        _HEAD + 'zz<mrow></mrow>yy<mi a="">x</mi><mi a="&quot;\'">x</mi><mi a="\'">x</mi><mi>a>b</mi>' + _TAIL,
        _HEAD + '<mi>a\rb\r\nc</mi><mi a="x\ty\nz\r\nw">q</mi><mrow>\n <mi> a </mi>\n</mrow><mi>\t</mi>' + _TAIL,
        _HEAD + "<mi>\ud835</mi>" + _TAIL,
        "<math><semantics><mi>x</mi><annotation>&nbsp;</annotation><mi>&amp;</mi></semantics></math>",
        # attributes printed sorted by name
        _HEAD + '<mo mathvariant="normal" lspace="0em" rspace="0em">′</mo><mo c="1" b="2" a="3"></mo>' + _TAIL,
        '<math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><mo z="1" a="2">x</mo></math>',
        "<math><mrow><semantics><mi>x</mi></semantics></mrow><semantics><mi>y</mi></semantics></math>",
        '<math xmlns="http://www.w3.org/1998/Math/MathML"><mi>x&nbsp;</mi></math>',
        "   <math><semantics><mi>x</mi></semantics></math>",
        "KaTeX parse error: Expected 'EOF', got '}' at position 2: x}̲",
        "KaTeX parse error: <mi>x</mi>",
        "",
    ],
)
def test_mathml_is_read_as_olmocr_reads_it(mathml, olmocr):
    """Renderings whose spans cannot match (one character each, different): the verdict is
    the MathML test alone, ours against olmOCR's compare_rendered_equations, both ways."""
    plain = _HEAD + "<mi>x</mi>" + _TAIL
    render = olmocr.render

    def theirs(mathml: str, text: str) -> Any:
        box = render.BoundingBox(x=0, y=0, width=10, height=10)
        return render.RenderedEquation(mathml=mathml, spans=[render.SpanInfo(text=text, bounding_box=box)])

    def ours(mathml: str, text: str) -> Rendering:
        return Rendering("", mathml, (Span(text, Box(0, 0, 10, 10)),))

    for a, b in ((mathml, plain), (plain, mathml), (mathml, mathml)):
        expected = render.compare_rendered_equations(theirs(a, "p"), theirs(b, "q"))
        assert same_rendering(ours(a, "p"), ours(b, "q")) == expected, (a, b)


# -- math_check's own behaviour --------------------------------------------------------------------


def test_math_spans_are_taken_kind_by_kind():
    text = "a \\(x\\) b \\[y\n\\] c $$z$$ d $w$ e"
    assert math_spans(text) == ["x", "y", "z", "w"]
    assert math_spans(text, ignore_dollar_delimited=True) == ["x", "y"]
    # $$...$$ is cut out before $...$ is looked for: what is left of "$a$$b$$c$" is "$ac$"
    assert math_spans("$a$$b$$c$") == ["b", "ac"]
    assert math_spans("$$a$ b$$") == ["a$ b"]


def test_an_exact_span_passes_without_rendering_it(renderer):
    before = renderer.rendered
    assert math_check("x^{17}_{fresh}", "see $x^{17}_{fresh}$ and $\\frac{q}{$", renderer=renderer) == (True, "")
    assert renderer.rendered == before + 1  # the reference only


def test_failing_reasons_say_what_was_looked_for(renderer):
    passed, reason = math_check("a^{2}", "no math here", renderer=renderer)
    assert not passed
    assert reason == "the output has no equation (\\(...\\), \\[...\\], $$...$$ or $...$) to compare with 'a^{2}'"
    passed, reason = math_check("a^{2}", "$a^{3}$", ignore_dollar_delimited=True, renderer=renderer)
    assert reason == "the output has no equation (\\(...\\), \\[...\\]) to compare with 'a^{2}'"
    passed, reason = math_check("a^{2}", "$a^{3}$", renderer=renderer)
    assert reason == "'a^{2}' is not in the output: its one equation, 'a^{3}', renders otherwise"
    passed, reason = math_check("a^{2}", "$b$ and $a^{3}$", renderer=renderer)
    assert reason == (
        "'a^{2}' is not in the output: none of its 2 equations (\\(...\\), \\[...\\], $$...$$ or $...$) "
        "renders as it does (the closest in source: 'a^{3}')"
    )


def test_a_fact_compares_at_most_max_equations_distinct_equations_most_similar_first(renderer):
    output = "$p^{1}$ $q_{2}$ $p^{1}$ $r + s$ $a^{ 2}$"  # 4 distinct; 'a^{ 2}' renders as 'a^{2}'
    assert math_check("a^{2}", output, renderer=renderer, max_equations=1) == (True, "")  # the most similar
    before = renderer.rendered
    passed, reason = math_check("z_{9}", output, renderer=renderer, max_equations=2)
    assert not passed
    assert reason == (
        "not checked: none of the 2 equations most like 'z_{9}' renders as it does, and the output has 2 more, "
        "beyond what a math fact compares (--ocr-max-math-equations)"
    )
    assert renderer.rendered - before <= 3  # the reference and 2 equations, those not rendered before
    # Within the bound (the duplicate counts once), the verdict and reason are olmOCR's.
    passed, reason = math_check("z_{9}", output, renderer=renderer, max_equations=4)
    assert reason.startswith("'z_{9}' is not in the output: none of its 5 equations")


def test_a_fact_past_its_deadline_is_out_of_time(renderer):
    with pytest.raises(OutOfTime):
        math_check("a^{2}", "$a^{3}$", renderer=renderer, deadline=time.monotonic() - 1)
    assert math_check("a^{2}", "$a^{ 2}$", renderer=renderer, deadline=time.monotonic() + 60) == (True, "")


@pytest.mark.parametrize("reference", ["\\frac{a}{", "\\notamacro x", "x}"])
def test_a_reference_katex_cannot_render_is_a_malformed_fact(reference, renderer):
    with pytest.raises(UnrenderableMath, match="cannot be rendered by KaTeX: KaTeX parse error") as raised:
        math_check(reference, f"$y$ and ${reference}$", renderer=renderer)
    assert isinstance(raised.value, ValueError)
    assert raised.value.reference == reference


@pytest.mark.parametrize("reference", ["", "  \n"])
def test_an_empty_reference_is_a_malformed_fact(reference, renderer):
    with pytest.raises(UnrenderableMath, match="is empty"):
        math_check(reference, "$x$", renderer=renderer)


def test_olmocr_passes_an_unrenderable_reference_where_we_refuse_it(olmocr):
    """Why UnrenderableMath: olmocr 0.4.27's MathTest checks for a None rendering, but
    render_equation returns one carrying the error, with no spans, which 'matches' any
    equation; so the fact passes whenever the output has an equation (and fails without)."""
    test = olmocr.tests.load_single_test({"pdf": "x.pdf", "page": 1, "id": "x", "type": "math", "math": "\\frac{a}{"})
    assert test.reference_render.error
    assert test.run("an unrelated $y$") == (True, "")
    assert test.run("no equation")[0] is False


def test_long_equations_are_matched_without_recursion(olmocr, renderer):
    """olmOCR's matching recurses once per character: RecursionError past ~1000."""
    long = " + ".join(f"x_{{{i}}}" for i in range(250)) + " = z"
    rendering = renderer.render(long)
    assert sum(len(s.text) for s in rendering.spans) > 1000
    # MathML that does not contain the reference's, so that the characters are matched
    hypothesis = dataclasses.replace(rendering, mathml=renderer.render("q").mathml)
    assert same_rendering(rendering, hypothesis)
    # the reference's z, in the hypothesis a y
    other = [dataclasses.replace(s, text="y") if s.text == "z" else s for s in hypothesis.spans]
    assert not same_rendering(rendering, dataclasses.replace(hypothesis, spans=tuple(other)))
    with pytest.raises(RecursionError):
        olmocr.render.compare_rendered_equations(_to_olmocr(olmocr, rendering), _to_olmocr(olmocr, hypothesis))


def _to_olmocr(olmocr: Olmocr, rendering: Rendering) -> Any:
    render = olmocr.render
    spans = [
        render.SpanInfo(s.text, render.BoundingBox(s.box.x, s.box.y, s.box.width, s.box.height))
        for s in rendering.spans
    ]
    return render.RenderedEquation(mathml=rendering.mathml, spans=spans, error=rendering.error)


# -- 3. the renderer -------------------------------------------------------------------------------


def test_one_browser_renders_every_equation(renderer):
    renderer.render("\\alpha_{one}")
    renderer.render("\\beta_{two}")
    assert renderer.launches == 1
    assert renderer.running


def test_a_rendering_has_typed_spans_and_mathml(renderer):
    rendering = renderer.render("e^{i \\pi}+1=0")
    assert rendering.ok and rendering.error is None
    assert [s.text for s in rendering.spans] == ["e", "iπ", "+", "1", "=", "0"]
    assert all(isinstance(v, float) for s in rendering.spans for v in (s.box.x, s.box.y, s.box.width, s.box.height))
    assert rendering.mathml.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">')
    refused = renderer.render("\\frac{a}{")
    assert not refused.ok and refused.spans == ()
    assert refused.error == refused.mathml
    assert refused.error.startswith("KaTeX parse error: ")
    assert Rendering.from_json(json.loads(json.dumps(rendering.to_json()))) == rendering


def test_the_vendored_katex_is_olmocrs(olmocr):
    shipped = Path(olmocr.render.__file__).parent
    for name in ("katex.min.js", "katex.min.css"):
        assert (katex.ASSETS / name).read_bytes() == (shipped / name).read_bytes()
    assert f'version:"{KATEX_VERSION}"' in (katex.ASSETS / "katex.min.js").read_text(encoding="utf-8")
    assert "MIT License" in (katex.ASSETS / "LICENSE").read_text(encoding="utf-8")
    # and no fonts: olmOCR's page cannot load KaTeX's either (see the module's docstring)
    assert sorted(p.name for p in katex.ASSETS.iterdir()) == ["LICENSE", "katex.min.css", "katex.min.js"]


def test_a_missing_browser_is_unavailable_with_how_to_get_one(tmp_path, monkeypatch):
    absent = tmp_path / "no-chromium"
    with pytest.raises(RendererUnavailable, match="does not exist") as raised:
        KatexRenderer(browser=str(absent)).render("x")
    assert str(absent) in str(raised.value)
    assert "apt-get install chromium" in str(raised.value)
    assert "PYTEST_OCR_CHROMIUM" in str(raised.value)

    monkeypatch.setenv("PYTEST_OCR_CHROMIUM", str(absent))
    with pytest.raises(RendererUnavailable, match=r"\$PYTEST_OCR_CHROMIUM .* does not exist"):
        KatexRenderer().render("x")

    monkeypatch.delenv("PYTEST_OCR_CHROMIUM")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RendererUnavailable, match="none of chromium, chromium-browser, google-chrome is on PATH"):
        KatexRenderer().render("x")
    with pytest.raises(RendererUnavailable, match="'not-a-browser' is not on PATH"):
        KatexRenderer(browser="not-a-browser").render("x")


def test_the_browser_comes_from_the_environment_variable(monkeypatch, tmp_path):
    chromium = find_browser()
    monkeypatch.setenv("PYTEST_OCR_CHROMIUM", chromium)
    monkeypatch.setenv("PATH", str(tmp_path))  # no chromium on PATH
    assert find_browser() == chromium
    with KatexRenderer() as renderer:
        assert renderer.render("y_1").ok


def _script(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + textwrap.dedent(body), encoding="utf-8")
    path.chmod(0o755)
    return path


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_hung_browser_is_killed_at_the_timeout(tmp_path):
    pid_file = tmp_path / "pid"
    hung = _script(tmp_path, "chromium", f"echo $$ > {pid_file}\nexec sleep 600\n")
    renderer = KatexRenderer(browser=str(hung), timeout=1.5)
    started = time.monotonic()
    with pytest.raises(RendererTimeout, match=r"did not answer Target.createTarget within 1.5 s and was killed"):
        renderer.render("x")
    assert time.monotonic() - started < 10
    assert _gone(int(pid_file.read_text()))
    assert not renderer.running


# A browser that starts and opens a page but never answers a script (Runtime.evaluate).
_STUCK_PAGE = f"""#!{sys.executable} -S
import json, os, time
buffer = b""
while True:
    chunk = os.read(3, 1 << 16)
    if not chunk:
        break
    buffer += chunk
    while b"\\0" in buffer:
        raw, buffer = buffer.split(b"\\0", 1)
        message = json.loads(raw)
        if message["method"] == "Runtime.evaluate":
            time.sleep(600)
        result = {{"targetId": "T", "sessionId": "S"}}
        os.write(4, json.dumps({{"id": message["id"], "result": result}}).encode() + b"\\0")
"""


def test_a_browser_that_hangs_on_an_equation_is_killed_at_the_timeout(tmp_path):
    stuck = tmp_path / "stuck-chromium"
    stuck.write_text(_STUCK_PAGE, encoding="utf-8")
    stuck.chmod(0o755)
    renderer = KatexRenderer(browser=str(stuck), timeout=4)
    started = time.monotonic()
    with pytest.raises(RendererTimeout, match="did not answer Runtime.evaluate within 4 s and was killed"):
        renderer.render("x")
    assert time.monotonic() - started < 20
    assert not renderer.running


def test_a_browser_that_exits_says_so(tmp_path):
    failing = _script(tmp_path, "chromium", "echo 'no display, no luck' >&2\nexit 3\n")
    said = r"closed its DevTools pipe \(exit status 3\); it said: no display, no luck"
    with pytest.raises(RendererError, match=said):
        KatexRenderer(browser=str(failing), timeout=10).render("x")


def test_a_later_rendering_starts_a_new_browser(renderer):
    with KatexRenderer() as own:
        first = own.render("k_1")
        own.close()
        assert not own.running
        assert own.render("k_2").ok and own.launches == 2
    assert not own.running
    assert first == renderer.render("k_1")


def test_the_disk_cache_renders_without_a_browser(tmp_path):
    equations = ["\\frac{a}{b}", "\\sqrt{2}", "\\frac{a}{", "x\u00a0y"]
    with KatexRenderer(tmp_path / "cache") as first:
        made = [first.render(e) for e in equations]
        assert first.launches == 1
    files = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert files == sorted(f"{KatexRenderer.cache_key(e)}.json" for e in equations)
    # A renderer whose browser does not exist: it would raise if it tried to start one.
    second = KatexRenderer(tmp_path / "cache", browser=str(tmp_path / "absent"))
    assert [second.render(e) for e in equations] == made
    assert second.launches == 0 and second.rendered == 0 and not second.running


def test_a_damaged_cache_entry_is_rendered_again(tmp_path):
    with KatexRenderer(tmp_path) as renderer:
        made = renderer.render("z^2")
    entry = tmp_path / f"{KatexRenderer.cache_key('z^2')}.json"
    entry.write_text("{not json", encoding="utf-8")
    with KatexRenderer(tmp_path) as again:
        assert again.render("z^2") == made
        assert again.rendered == 1
    assert json.loads(entry.read_text(encoding="utf-8"))["katex"] == KATEX_VERSION


def test_the_cache_key_is_the_equation_and_the_katex_version():
    key = KatexRenderer.cache_key("x")
    assert re.fullmatch(r"[0-9a-f]{64}", key)
    assert key != KatexRenderer.cache_key("x ")


def test_threads_share_one_browser():
    with KatexRenderer() as shared, ThreadPoolExecutor(max_workers=4) as pool:
        equations = [f"t_{{{i}}}^{{{i}}}" for i in range(12)]
        renderings = list(pool.map(shared.render, equations))
        assert shared.launches == 1
        assert [r.equation for r in renderings] == equations
        assert all(r.ok for r in renderings)


def test_the_browser_is_closed_at_exit(tmp_path):
    """A renderer never closed: its browser ends with the process, and its files are gone."""
    program = (
        "from pytest_ocr.browser.katex import KatexRenderer\n"
        "r = KatexRenderer()\n"
        "r.render('x')\n"
        "print(r.browser_pid, r._browser.devtools.directory)\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120, check=True)
    pid, directory = done.stdout.split()
    assert _gone(int(pid))
    assert not Path(directory).exists()


def test_a_forked_child_leaves_the_parents_browser_alone(renderer):
    renderer.render("f_{o}^{rk}")
    pid = renderer.browser_pid
    child = os.fork()
    if child == 0:  # the child closes its copy of the renderer, as it would at exit
        try:
            renderer._browser.close()
        finally:
            os._exit(0)
    os.waitpid(child, 0)
    assert renderer.browser_pid == pid and not _gone(pid)
    assert renderer.render("f_{o}^{rk2}").ok and renderer.launches == 1


def test_rendering_is_fast_enough(renderer):
    """No idle waits per equation (olmOCR's networkidle costs it half a second each)."""
    equations = [f"\\sum_{{k={i}}}^{{n}} k^{{{i}}}" for i in range(20)]
    started = time.monotonic()
    for equation in equations:
        renderer.render(equation)
    assert (time.monotonic() - started) / len(equations) < 1.0
