"""What a run keeps out of the cyclic garbage collector's way (plugin/heap.py): frozen
while the items run, handed back at the end of the session, so that a process that runs
sessions in turn (an IDE, pytester) is left as it was; and the exit's hook registered once."""

from __future__ import annotations

import atexit
import gc
import json

import pytest

from pytest_ocr.plugin import heap

WATCH = """
import gc, json, pytest

SEEN = {}

@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    SEEN.setdefault("frozen while running", gc.get_freeze_count())
    return (yield)

def pytest_sessionfinish(session):
    with open("seen.json", "w") as f:
        json.dump(SEEN, f)
"""


@pytest.mark.slow
def test_items_are_frozen_while_they_run_and_released_after(suite, monkeypatch: pytest.MonkeyPatch) -> None:
    registered = []
    monkeypatch.setattr(atexit, "register", lambda f: registered.append(f))
    suite.pytester.makeconftest(WATCH)
    for name in ("a", "b", "c"):
        suite.image(f"{name}.tif", "hello world")
    suite.write(
        "s.ocr.yaml",
        "cases:\n" + "".join(f"  - {{id: {n}, image: {n}.tif, expected: {{text: hello world}}}}\n" for n in "abc"),
    )
    assert gc.get_freeze_count() == 0
    for _ in range(2):
        result = suite.pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
        result.assert_outcomes(passed=3)
        seen = json.loads((suite.path / "seen.json").read_text(encoding="utf-8"))
        assert seen["frozen while running"] > 1000  # the items, the session and every module before them
        assert gc.get_freeze_count() == 0  # handed back: this process is left as it was
    ours = [f for f in registered if f is heap._exit_without_collections]
    assert len(ours) == 2  # once per session, each replacing the one before (atexit.unregister)


def test_a_session_without_ocr_items_freezes_nothing(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(WATCH)
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-p", "no:hypothesispytest")
    result.assert_outcomes(passed=1)
    assert json.loads((pytester.path / "seen.json").read_text(encoding="utf-8")) == {"frozen while running": 0}


def test_results_are_frozen_every_thousand(monkeypatch: pytest.MonkeyPatch) -> None:
    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    for count in range(1, 2501):
        heap.keep_results(count)
    assert len(frozen) == 2
    heap.release()
    assert gc.get_freeze_count() == 0
