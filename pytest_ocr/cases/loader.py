"""From a case file on disk to validated, merged Case objects (or one located error)."""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from ..engines import EngineSpec
from ..errors import did_you_mean
from ..media import document as doc
from ..media.document import Document, DocumentError, KeyPath, Problem
from ..media.pages import is_pdf
from ..metrics import METRICS, Normalization
from ..metrics.facts import Fact, FactError, parse_fact
from ..metrics.fields import parse_matcher
from ..metrics.structured import check_schema
from . import datasets
from .gates import Gate, parse_block, regression_gates
from .model import INHERITED, SHOWN_SKIPPED, Case, DatasetInfo, Defaults, Scope
from .rules import EXPRESSION, Threshold, ThresholdError, Tolerance, ToleranceError, parse
from .schema import fits, schema, validate

CASE_SUFFIXES = (".ocr.yaml", ".ocr.yml", ".ocr.json")


# What a case id may be (the schema's $defs/id, whose description is the rule)
ID = re.compile(schema()["$defs"]["id"]["pattern"])
ID_RULE = schema()["$defs"]["id"]["description"].removeprefix("a case id: ")


def default_case_id(path: Path) -> str:
    """A single-case file's id when it sets none: its name without the case suffix.
    load_cases checks it by the rule for written ids."""
    name = path.name
    for suffix in CASE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def engine_specs(block: dict | None, document: Document, keypath: tuple = ("engines",)) -> dict[str, EngineSpec]:
    """EngineSpecs for an ``engines:`` block; relative paths resolve against the declaring file."""
    specs = {}
    for name, options in (block or {}).items():
        options = dict(options)
        specs[name] = EngineSpec(
            name=name,
            type=options.pop("type", name),
            repeat=options.pop("repeat", None),  # how often to run it, not how it reads
            options=options,
            base_dir=document.path.parent.resolve(),
            source=f"{document.path}:{document.line_of(keypath + (name,))}",
        )
    return specs


def _check_metric_names(block: object, keypath: tuple, document: Document) -> list[Problem]:
    """Threshold keys and ``metrics:`` entries must name known metrics (the schema
    cannot know the registry)."""
    if not isinstance(block, dict):
        return []
    problems = []
    thresholds = block.get("thresholds")
    named = [(m, keypath + ("thresholds", m)) for m in thresholds] if isinstance(thresholds, dict) else []
    if isinstance(block.get("metrics"), list):
        named += [(m, keypath + ("metrics", i)) for i, m in enumerate(block["metrics"]) if isinstance(m, str)]
    for metric, where in named:
        if metric not in METRICS:
            problems.append(
                Problem(
                    document.line_of(where),
                    where,
                    f"unknown metric {metric!r}{did_you_mean(metric, METRICS)} (known: {', '.join(sorted(METRICS))})",
                )
            )
    return problems


def _check_thresholds(block: object, keypath: tuple, document: Document) -> list[Problem]:
    """Threshold bounds a float can hold (``"< 1e400"`` has the schema's form, but its
    bound is infinite); the schema reports the expressions of another form."""
    thresholds = block.get("thresholds") if isinstance(block, dict) else None
    problems = []
    for metric, expression in thresholds.items() if isinstance(thresholds, dict) else ():
        if isinstance(expression, str) and EXPRESSION.match(expression):
            try:
                parse(metric, expression)
            except ThresholdError as exc:
                where = keypath + ("thresholds", metric)
                problems.append(Problem(document.line_of(where), where, exc.message))
    return problems


def _check_block(block: object, keypath: tuple, document: Document) -> list[Problem]:
    """What the schema cannot check in a case, a ``defaults:`` block or the project's."""
    return (
        _check_metric_names(block, keypath, document)
        + _check_thresholds(block, keypath, document)
        + _check_structured(block, keypath, document)
        + _check_regression(block, keypath, document)
        + _check_facts(block, keypath, document)
        + _check_pdf_keys(block, keypath, document)
    )


def _check_pdf_keys(block: object, keypath: tuple, document: Document) -> list[Problem]:
    """A case's ``page:`` and ``dpi:`` say how a PDF is rasterised: on another image they
    would be ignored, so they are a mistake (a suite's ``defaults: dpi:`` applies to its PDFs)."""
    image = block.get("image") if isinstance(block, dict) else None
    if not isinstance(block, dict) or not isinstance(image, str) or is_pdf(image):
        return []
    return [
        Problem(
            document.line_of(keypath + (key,)),
            keypath + (key,),
            f"{key}: applies to a PDF only; expected image: to name a .pdf file, got {image!r}",
        )
        for key in ("page", "dpi")
        if key in block
    ]


def _check_facts(block: object, keypath: tuple, document: Document) -> list[Problem]:
    """Each of a case's ``checks:`` is a fact olmOCR-Bench could run (the schema checks
    the keys and their types; this, what they mean together)."""
    checks = block.get("checks") if isinstance(block, dict) else None
    problems = []
    for index, raw in enumerate(checks if isinstance(checks, list) else ()):
        if fits(raw, "check"):  # else the schema's problem says what is wrong
            try:
                parse_fact(raw, default_id=_fact_id(index))
            except FactError as exc:
                where = keypath + ("checks", index)
                problems.append(Problem(document.line_of(where), where, f"check {index + 1}: {exc}"))
    return problems


def _fact_id(index: int) -> str:
    return f"check-{index + 1}"


def _facts(raw: dict) -> tuple[Fact, ...]:
    return tuple(parse_fact(check, default_id=_fact_id(i)) for i, check in enumerate(raw["checks"]))


def _check_structured(block: object, keypath: tuple, document: Document) -> list[Problem]:
    """What the schema cannot check in a case or ``defaults:`` block: regular expressions
    compile, field matchers are valid, an inline JSON Schema is itself valid."""
    if not isinstance(block, dict):
        return []

    problems = []

    def problem(where: tuple, message: str) -> None:
        problems.append(Problem(document.line_of(keypath + where), keypath + where, message))

    extract = block.get("extract")
    regexes = extract.get("fields") if isinstance(extract, dict) else None
    for name, pattern in (regexes or {}).items() if isinstance(regexes, dict) else ():
        if isinstance(pattern, str):
            try:
                re.compile(pattern)
            except re.error as exc:
                problem(("extract", "fields", name), f"invalid regular expression {pattern!r}: {exc}")
    task = block.get("task")
    if isinstance(task, dict) and isinstance(task.get("extract"), str):
        try:
            re.compile(task["extract"])
        except re.error as exc:
            problem(("task", "extract"), f"invalid regular expression {task['extract']!r}: {exc}")
    match = block.get("match")
    for key, spec in match.items() if isinstance(match, dict) else ():
        try:
            parse_matcher(spec)
        except ValueError as exc:
            problem(("match", key), str(exc))
    expected = block.get("expected")
    if isinstance(expected, dict) and isinstance(expected.get("schema"), dict):
        for message in check_schema(expected["schema"]):
            problem(("expected", "schema"), f"not a valid JSON Schema: {message}")
    return problems


def _check_inputs_for_metrics(case: Case, keypath: tuple, document: Document) -> list[Problem]:
    """Every metric a case asks for (by threshold or ``metrics:``) has the inputs it needs,
    and its task has an expected result."""
    inputs = {"output"} | case.inputs
    what = {
        "text": "expected.text or expected.text_file",
        "fields": "expected.fields or expected.fields_file",
        "schema": "expected.schema or expected.schema_file",
        "task": "a task: block",
        "checks": "checks:",
        "layout": "expected.layout_file",
    }
    problems = []
    for name in dict.fromkeys([*(t.metric for t in case.thresholds), *case.metrics, *case.regression]):
        if not METRICS[name].accepts(inputs):
            needs = " or ".join(what[n] for n in METRICS[name].needs.split("|"))
            problems.append(
                Problem(
                    case.line,
                    keypath,
                    f"case {case.id!r}: metric {name!r} needs {needs}, which this case does not have",
                )
            )
    task = case.task
    if task is not None and "expected" not in task and not (task["type"] == "extraction" and case.has_fields):
        expected = (
            "expected fields (task.expected or expected.fields)"
            if task["type"] == "extraction"
            else ("task.expected (the answer)" if task["type"] == "qa" else "task.expected (the label)")
        )
        problems.append(
            Problem(
                document.line_of(keypath + ("task",)), keypath + ("task",), f"a {task['type']} task needs {expected}"
            )
        )
    return problems


def _check_regression(block: object, keypath: tuple, document: Document) -> list[Problem]:
    regression = block.get("regression") if isinstance(block, dict) else None
    problems = []
    for metric, tolerance in regression.items() if isinstance(regression, dict) else ():
        where = keypath + ("regression", metric)
        if "." in metric:  # an aggregate's tolerance: a gate (see _gates), not a case's
            if keypath[:1] == ("cases",):
                problems.append(
                    Problem(
                        document.line_of(where),
                        where,
                        f"{metric!r} is an aggregate's tolerance: it belongs in the regression: of a suite's "
                        f"defaults: or of the project configuration, not in a case",
                    )
                )
            continue
        if metric not in METRICS:
            problems.append(
                Problem(document.line_of(where), where, f"unknown metric {metric!r}{did_you_mean(metric, METRICS)}")
            )
        elif tolerance is not None:
            try:
                Tolerance.parse(tolerance)  # a confidence is read from the item's repeats (run/noise.py)
            except ToleranceError as exc:
                problems.append(Problem(document.line_of(where), where, str(exc)))
    return problems


def _gates(data: dict, document: Document, file: str | None) -> tuple[tuple[Gate, ...], list[Problem]]:
    """The gates of a file's ``aggregate:`` block and the aggregate tolerances of its
    ``defaults: regression:`` (gates against the baseline), located, and the problems in them."""
    if not isinstance(data, dict):
        return (), []
    found, errors = parse_block(data["aggregate"]) if "aggregate" in data else ([], [])
    defaults = data.get("defaults")
    if isinstance(defaults, dict):
        against, wrong = regression_gates(defaults.get("regression"), ("defaults", "regression"), file)
        found, errors = found + against, errors + wrong
    problems = [Problem(document.line_of(e.keypath), e.keypath, str(e)) for e in errors]
    gates = tuple(
        # a case file's gates are declared at the file as reports name it (relative to the project)
        Gate(**{**g.__dict__, "source": f"{file or document.path}:{document.line_of(where)}", "file": file})
        for g, where in found
    )
    return gates, problems


def _raise_if(path: Path, problems: list[Problem]) -> None:
    if problems:
        raise DocumentError(path, sorted(problems, key=lambda p: (p.line or 0, doc.format_keypath(p.keypath))))


def load_project_config(path: Path) -> Scope:
    """The project configuration file (``ocr_config`` ini option). Raises DocumentError."""
    with _deep_data_refused(path):
        return _load_project_config(path)


def _load_project_config(path: Path) -> Scope:
    document = doc.load(path, "project configuration")
    data = document.data if document.data is not None else {}
    problems = validate(document, "projectConfig")
    if isinstance(data, dict) and isinstance(data.get("defaults"), dict):
        problems += _check_block(data["defaults"], ("defaults",), document)
    gates, gate_problems = _gates(data, document, None)
    _raise_if(path, problems + gate_problems)
    return Scope(Defaults().merged(data.get("defaults", {})), engine_specs(data.get("engines"), document), gates)


def _entries(data: dict, path: Path) -> list[tuple[Any, tuple]]:
    """(raw case, key path) for each case written in a suite or single-case file; a raw
    case is as parsed from YAML/JSON, a mapping once the file passed validation."""
    if "cases" in data:
        cases = data["cases"] if isinstance(data["cases"], list) else []
        return [(case, ("cases", i)) for i, case in enumerate(cases)]
    if "dataset" in data:
        return []
    return [({"id": default_case_id(path), **data}, ())]


DATASET = ("dataset",)


def _dataset(data: dict, document: Document, problems: list[Problem]) -> datasets.Loaded | None:
    """The suite's ``dataset:`` block read by its adapter; None without one, or when the
    block itself is invalid (its schema problems are already listed)."""
    block = data.get("dataset")
    if not isinstance(block, dict) or any(p.keypath[:1] == DATASET for p in problems):
        return None
    where: KeyPath = DATASET
    try:
        loaded = datasets.load(block, document.path.parent)
    except datasets.DatasetError as exc:
        where = DATASET + ((exc.option,) if exc.option else ())
        problems.append(Problem(document.line_of(where), where, exc.message))
        return None
    if not loaded.cases:
        first = f"; first: {loaded.skipped[0]}" if loaded.skipped else ""
        problems.append(
            Problem(
                document.line_of(where),
                where,
                f"the {block['type']} dataset gives no cases: {loaded.total} entries, "
                f"{len(loaded.skipped)} skipped{first}",
            )
        )
        return None
    written = {raw.get("id"): i for raw, (_, i) in _entries(data, document.path) if isinstance(raw, dict)}
    for raw in loaded.cases:
        if raw["id"] in written:
            where = ("cases", written[raw["id"]], "id")
            problems.append(
                Problem(
                    document.line_of(where),
                    where,
                    f"case id {raw['id']!r} is also the id of a dataset case ({raw['source']})",
                )
            )
    declared = data.get("engines")
    if not isinstance(declared, dict):
        declared = {}
    for name in sorted(set(loaded.engines) & set(declared)):
        problems.append(
            Problem(
                document.line_of(("engines", name)),
                ("engines", name),
                f"engine {name!r} is also declared by the dataset (line {document.line_of(DATASET)})",
            )
        )
    return loaded


def _dataset_info(loaded: datasets.Loaded, block: dict, document: Document, name: Callable[[Path], str]) -> DatasetInfo:
    skipped = tuple(datasets.Skipped(name(Path(s.file)), s.line, s.reason) for s in loaded.skipped[:SHOWN_SKIPPED])
    return DatasetInfo(
        name(document.path),
        document.line_of(DATASET) or 1,
        block["type"],
        loaded.total,
        len(loaded.cases),
        skipped,
        len(loaded.skipped),
        bool(block.get("allow_empty")),
    )


def _check_dataset_inputs(cases: list[Case], document: Document) -> list[Problem]:
    """The metric-input check, once per kind of dataset case (text, fields, both):
    one message, not one per image."""
    kinds: dict[tuple, list[Case]] = {}
    for case in cases:
        kinds.setdefault((case.has_reference_text, case.has_fields), []).append(case)
    problems = []
    for similar in kinds.values():
        more = f" (nor do {len(similar) - 1} more dataset cases like it)" if len(similar) > 1 else ""
        problems += [
            Problem(p.line, p.keypath, p.message + more)
            for p in _check_inputs_for_metrics(similar[0], DATASET, document)
        ]
    return problems


def load_cases(path: Path, project: Scope, name: Callable[[Path], str] = str) -> tuple[list[Case], Scope]:
    """All cases of one file, sorted by id, and the scope (engines) they resolve in.

    Raises DocumentError listing every problem in the file: schema violations and
    unknown metrics and duplicate ids, all at once. ``name`` gives a path (absolute,
    resolved) as results name it: the file's own gates cover the results of that file.
    """
    path = path.resolve()
    with _deep_data_refused(path), doc.gc_paused():
        return _load_cases(path, project, name)


@contextlib.contextmanager
def _deep_data_refused(path: Path) -> Iterator[None]:
    """Data nested within --ocr-max-nesting, but deeper than checking it recursively
    (the JSON Schema validator) can go: a limit raised too far, refused as such."""
    try:
        yield
    except RecursionError:
        message = doc.nesting_message() + "; lower it: data this deep cannot be checked"
        raise DocumentError(path, [Problem(None, (), message)]) from None


def _load_cases(path: Path, project: Scope, name: Callable[[Path], str]) -> tuple[list[Case], Scope]:
    document = doc.load(path)
    data = document.data
    if data is None:
        _raise_if(path, [Problem(1, (), "the file is empty; expected a case (`image:`, `expected:`) or `cases:`")])
    problems = validate(document)
    if not isinstance(data, dict):
        _raise_if(path, problems)

    problems += _check_block(data.get("defaults"), ("defaults",), document)
    gates, gate_problems = _gates(data, document, name(path))
    problems += gate_problems
    seen: dict[str, int | None] = {}
    for raw, keypath in _entries(data, path):
        if not isinstance(raw, dict):
            continue
        problems += _check_block(raw, keypath, document)
        case_id = raw.get("id")
        if keypath == () and "id" not in data and isinstance(case_id, str) and not ID.fullmatch(case_id):
            problems.append(
                Problem(
                    1,
                    ("id",),
                    f"the case id {case_id!r} comes from the file name {path.name!r}, and an id is "
                    f"{ID_RULE}; rename the file or set id:",
                )
            )
        if isinstance(case_id, str):
            line = document.line_of(keypath + ("id",))
            if case_id in seen:
                problems.append(
                    Problem(line, keypath + ("id",), f"duplicate case id {case_id!r} (first on line {seen[case_id]})")
                )
            seen.setdefault(case_id, line)
    dataset = _dataset(data, document, problems)
    _raise_if(path, problems)

    defaults = project.defaults.merged(data.get("defaults", {}))
    entries = _entries(data, path)
    cases = _cases(entries, defaults, document)
    for case, (_, keypath) in zip(cases, entries, strict=True):
        problems += _check_inputs_for_metrics(case, keypath, document)
    engines = {**project.engines, **engine_specs(data.get("engines"), document)}
    summary = None
    if dataset is not None:
        # Cases run on every engine the dataset declares, unless the suite's defaults name some.
        named = isinstance(data.get("defaults"), dict) and "engine" in data["defaults"]
        if dataset.engines and not named:
            for raw in dataset.cases:
                raw["engine"] = sorted(dataset.engines)
        dataset_cases = _cases([(raw, DATASET) for raw in dataset.cases], defaults, document)
        problems += _check_dataset_inputs(dataset_cases, document)
        cases += dataset_cases
        engines.update(engine_specs(dataset.engines, document, DATASET))
        summary = _dataset_info(dataset, data["dataset"], document, name)
    _raise_if(path, problems)
    scope = Scope(defaults, engines, gates, summary)
    return sorted(cases, key=lambda c: c.id), scope


def _beside(directory: str, relative: str) -> Path:
    """A path relative to the (absolute, resolved) case file's directory; normpath, not
    resolve(): a syscall per case adds up over thousands of cases (and so do Path operations)."""
    return Path(os.path.normpath(os.path.join(directory, relative)))


_NORMALIZATIONS: dict[str, Normalization] = {}


def _normalization(options: dict) -> Normalization:
    """Cases mostly share their normalisation: built once per distinct spelling (it is frozen)."""
    key = json.dumps(options, sort_keys=True, default=repr)
    found = _NORMALIZATIONS.get(key)
    if found is None:
        found = Normalization.from_dict(options)
        if len(_NORMALIZATIONS) >= 256:
            _NORMALIZATIONS.clear()
        _NORMALIZATIONS[key] = found
    return found


def _cases(entries: Iterable[tuple[dict, KeyPath]], defaults: Defaults, document: Document) -> list[Case]:
    """The cases of a file. Most set nothing they would inherit: what a case takes from
    the defaults (parsed thresholds, normalisation, matchers) is built once for those,
    and shared (cases are frozen; nothing changes what they hold)."""
    inherited = _settings(defaults.merged({}))
    directory = os.path.dirname(document.path)
    return [
        _case(
            raw,
            keypath,
            inherited if INHERITED.isdisjoint(raw) else _settings(defaults.merged(raw)),
            directory,
            document,
        )
        for raw, keypath in entries
    ]


EVERY_FACT = parse("checks_passed", ">= 1")


def _settings(merged: Defaults) -> tuple[dict[str, Any], dict[str, Any]]:
    """A case's fields that come from its defaults merged with what it sets itself, for a
    case without checks and one with."""
    thresholds = merged.thresholds or {}
    settings: dict[str, Any] = {
        "engines": merged.engine,
        "thresholds": tuple(parse(m, e) for m, e in sorted(thresholds.items()) if e is not None),
        "normalization": _normalization(merged.normalize or {}),
        "tags": merged.tags,
        "cer_denominator": merged.cer_denominator,
        "empty_reference_value": merged.empty_reference_value,
        "metrics": merged.metrics,
        "group": merged.group,
        "match": {key: parse_matcher(spec) for key, spec in (merged.match or {}).items()},  # checked above
        "extract": merged.extract or {},
        "tokens": merged.tokens or {},
        "regression": {  # None: not compared (a threshold's metric included)
            m: None if t is None else Tolerance.parse(t) for m, t in (merged.regression or {}).items() if "." not in m
        },
        "min_confidence": merged.min_confidence,
        "repeat": merged.repeat,
        "repeat_judge": merged.repeat_judge,
        "dpi": merged.dpi,
    }
    # A fact is an assertion: with `checks:`, every one must hold unless the thresholds
    # name checks_passed (`checks_passed: null` removes the requirement).
    every: tuple[Threshold, ...] = () if "checks_passed" in thresholds else (EVERY_FACT,)
    return settings, {**settings, "thresholds": (*settings["thresholds"], *every)}


def _case(
    raw: dict, keypath: tuple, settings: tuple[dict[str, Any], dict[str, Any]], directory: str, document: Document
) -> Case:
    """``settings``: the case's own, without and with checks."""
    expected = raw.get("expected", {})
    checks = _facts(raw) if "checks" in raw else ()
    line = document.line_of(keypath) or 1
    # A dataset's checks say where they are written; a case file's are its `checks:` entries.
    written = [(document.path, document.line_of(keypath + ("checks", i)) or line) for i in range(len(checks))]
    check_sources = tuple(raw.get("check_sources") or written)

    def beside(key: str) -> Path | None:
        return _beside(directory, expected[key]) if key in expected else None

    return Case(
        id=raw["id"],
        file=document.path,
        line=line,
        image=_beside(directory, raw["image"]),
        expected_text=expected.get("text"),
        expected_text_file=beside("text_file"),
        expected_fields=expected.get("fields"),
        expected_fields_file=beside("fields_file"),
        schema=expected.get("schema"),
        schema_file=beside("schema_file"),
        task=raw.get("task"),
        source=raw.get("source"),
        page=raw.get("page"),
        checks=checks,
        check_sources=check_sources,
        layout=raw.get("layout"),
        layout_file=beside("layout_file"),
        layout_page=expected.get("layout_page"),
        **settings[bool(checks)],
    )
