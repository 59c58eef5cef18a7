"""The library's reference page (docs/reference/library.md): an example per function of
``pytest_ocr.metrics``, each run here as a doctest, so what the page shows is what the
functions return; and the keywords renamed in 0.2 still work for one release, with a warning."""

from __future__ import annotations

import doctest
import inspect
import re
import warnings

import pytest
from conftest import REPO

from pytest_ocr import metrics

PAGE = REPO / "docs" / "reference" / "library.md"
FUNCTIONS = sorted(
    name
    for name in metrics.__all__
    if callable(getattr(metrics, name))
    and not inspect.isclass(getattr(metrics, name))
    and not isinstance(getattr(metrics, name), metrics.Normalization)
)


def examples() -> dict[str, str]:
    """Function name -> the ``pycon`` block under its heading."""
    text = PAGE.read_text(encoding="utf-8")
    return dict(re.findall(r"^#### `(\w+)`\n\n```pycon\n(.*?)^```$", text, re.S | re.M))


def test_every_function_has_an_example_that_calls_it():
    found = examples()
    assert len(FUNCTIONS) >= 30
    assert sorted(found) == FUNCTIONS
    for name, block in found.items():
        assert f"metrics.{name}(" in block, name


@pytest.mark.parametrize("name", FUNCTIONS)
def test_the_example_gives_what_the_page_says(name):
    test = doctest.DocTestParser().get_doctest(examples()[name], {"metrics": metrics}, name, str(PAGE), 0)
    assert len(test.examples) >= 1
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)


def test_a_wrong_output_on_the_page_fails():
    wrong = examples()["cer"].replace("0.07142857142857142", "0.07", 1)
    test = doctest.DocTestParser().get_doctest(wrong, {"metrics": metrics}, "cer", str(PAGE), 0)
    runner = doctest.DocTestRunner()
    runner.run(test, out=lambda _: None)
    assert runner.failures == 1


# -- the keywords renamed in 0.2 --------------------------------------------------------------------


@pytest.mark.parametrize("collapse, whitespace", [(True, "collapse"), (False, "keep")])
def test_collapse_whitespace_still_works_with_a_warning(collapse, whitespace):
    with pytest.warns(DeprecationWarning, match=r"Normalization\(whitespace=") as caught:
        old = metrics.Normalization(collapse_whitespace=collapse)
    assert caught[0].filename == __file__  # the warning points at the caller's line
    assert old == metrics.Normalization(whitespace=whitespace)
    assert old("a  b\n") == metrics.Normalization(whitespace=whitespace)("a  b\n")
    with pytest.warns(DeprecationWarning, match=r"profile\(whitespace=") as caught:
        assert metrics.profile("historic", collapse_whitespace=collapse) == metrics.profile(
            "historic", whitespace=whitespace
        )
    assert caught[0].filename == __file__


def test_collapse_whitespace_and_whitespace_that_disagree_are_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(ValueError, match="not both"):
            metrics.Normalization(whitespace="trim", collapse_whitespace=False)


def test_normalization_keyword_of_score_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match=r"score\(normalize=") as caught:
        old = metrics.score("Foo  bar", "Foo bar", "cer", normalization=metrics.RAW)
    assert caught[0].filename == __file__
    assert old["cer"].value == metrics.score("Foo  bar", "Foo bar", "cer", normalize=metrics.RAW)["cer"].value == 0.125


def test_the_new_keywords_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metrics.Normalization(whitespace="keep")
        metrics.profile("ocrd", whitespace="collapse")
        metrics.score("a", "b", "cer", normalize=metrics.RAW)
