"""pytest-ocr's pytest hooks, each a few lines: options, collection, results carried on
test reports. The work is done by the executor (running items, on every process that
runs them) and the collector (results, gates and outputs, on the controller only)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .. import limits, redaction
from ..errors import OcrError
from ..run.identity import error_message
from ..visible import visible
from . import argv, hookspecs
from .collector import CARRIED, Collector
from .executor import EXECUTOR, PAGES_DIR, Executor
from .items import CaseFile, OcrItem
from .options import Settings, add_options, is_case_file

# pytest loads this module in every session, OCR or not: it imports only what declaring
# the options and hooks needs; loading cases, engines, metrics and outputs is imported
# when a case file is collected or a result is made (tests/test_plugin_import_cost.py).

# what the controller tells its pytest-xdist workers
PROJECT_DIR = "ocr_project_dir"
COLUMNS = "ocr_columns"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser) -> None:
    """The earliest hook that knows pytest-ocr's options: before conftests, ocr_config or any OCR."""
    argv.check_setup(early_config, parser)


def pytest_configure(config: pytest.Config) -> None:
    workerinput = getattr(config, "workerinput", None)
    project = Path(workerinput[PROJECT_DIR]) if workerinput and PROJECT_DIR in workerinput else None
    settings = Settings.from_config(config, project, workerinput.get(COLUMNS) if workerinput else None)
    limits.use(settings.limits)
    executor = Executor(config, settings)
    config.stash[EXECUTOR] = executor
    config.pluginmanager.register(executor, "pytest-ocr-executor")
    if workerinput is None:  # the controller: the only process, or pytest-xdist's
        config.pluginmanager.register(Collector(config, settings), "pytest-ocr-collector")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist: every worker names items relative to the controller's project
    directory, fits failure text to the controller's terminal, and keeps rasterised PDF
    pages where the controller does."""
    executor = node.config.stash[EXECUTOR]
    settings = executor.settings
    node.workerinput[PROJECT_DIR] = str(settings.project_dir)
    node.workerinput[COLUMNS] = settings.columns
    node.workerinput[PAGES_DIR] = str(executor.pages_directory())  # a page is rasterised once, by any of them


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> CaseFile | None:
    if is_case_file(file_path, parent.config):
        return CaseFile.from_parent(parent, path=file_path, runner=parent.config.stash[EXECUTOR])
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    error = call.excinfo.value if call.excinfo else None
    executor = item.config.stash[EXECUTOR]
    if call.when == "setup" and isinstance(error, OcrError):
        # pytest formats setup errors without asking the item
        report.longrepr = visible(error_message(error, executor.settings.project_dir), multiline=True)
    result = executor.report_result(item, call, report)
    if result is not None:
        report.ocr = result  # made plain data only if it travels to another process (below)
        shard = executor.shard_to_send()  # once per process, with the first result
        if shard is not None:
            report.ocr_shard = shard.to_dict()
    if isinstance(item, OcrItem) and report.sections:
        # what engines print (an isolated python engine's stderr) is untrusted text too
        report.sections = [(title, visible(text, multiline=True)) for title, text in report.sections]
    if isinstance(item, OcrItem) and (call.when == "call" or report.failed or report.skipped):
        if executor.first_of_file(item):  # the file's gates and dataset once per process
            if item.gates:
                report.ocr_gates = [g.to_dict() for g in item.gates]
            if item.dataset is not None:
                report.ocr_dataset = item.dataset.to_dict()
    if isinstance(item, OcrItem) and call.when == "teardown":
        item.state = None  # its result went with a report; the rest is not needed again
    redaction.redact_report(report)  # before pytest, pytest-xdist or any plugin shows or sends it
    return report


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(report: Any) -> Any:
    data = yield
    if data is not None:
        for key in CARRIED:
            value = getattr(report, key, None)
            if value is not None:
                from ..run.result import CaseResult

                # A result travels as one JSON string: execnet's own encoding of the nested
                # data costs six times as much per item (NaN stays NaN in Python's JSON).
                data[key] = json.dumps(value.to_dict()) if isinstance(value, CaseResult) else value
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(data: Any) -> Any:
    report = yield
    if report is not None:
        for key in CARRIED:
            if key in data:
                setattr(report, key, data[key])
    return report
