"""Hostile reports and output paths given to ``pytest-ocr rescore``, ``merge`` and ``history``
(issue 36): a report is an artifact anyone who can run a job of a pull request can write.

- Outputs never overwrite their inputs, the history store (and the files SQLite keeps beside
  it) or the project's own files (its ini file, ocr_config, case files): ``history export -o
  .pytest-ocr/history.sqlite`` replaced the store with the export, ``rescore -o pytest.ini``
  the ini file. One rule (files.check_apart with project_files.py) for the plugin and every
  command.
- A path a report names stays in the project (the directory the command runs in, or
  --project DIR; never one the report records): rescore opened ``/etc/passwd`` and
  ``../../etc/passwd`` as case files and printed their first characters, and re-scored
  another project's case file for a record without an input hash; ``merge --html`` embedded
  pictures from anywhere. A record whose inputs cannot be checked is refused.
- rescore holds stored outputs to --ocr-max-output-mb and its report to --ocr-max-file-mb
  (three 60 MB outputs took 3.5 GB, then a bad_alloc traceback); merge judges each item's
  checks and outcome again from its values and thresholds.

Each test runs real commands (``run_bounded``: a memory limit and a timeout) on a throwaway
project beside a folder ``outside`` whose files hold SECRET, with good items that must
still pass, and asserts the exact line, the exit status, and that the protected files are
byte-identical afterwards.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import MERGE, Bounded, run_bounded
from helpers.hostile import good_image

from pytest_ocr.visible import visible

pytestmark = pytest.mark.slow

TIMEOUT = 60  # seconds; every command must end in well under half of it
MEMORY_MB = 800
RESCORE = ("pytest_ocr.cli", "rescore")
HISTORY = ("pytest_ocr.cli", "history")
USAGE_ERROR = 4  # rescore and merge: reports or outputs that cannot be used
BAD_INPUT = 2  # history: bad input
SECRET = "SECRET-OUTSIDE-THE-PROJECT"
PASSWD = "root:x:0:0"  # /etc/passwd's first characters: no output may hold them
ENV = {"PYTEST_OCR_COMMIT": "a" * 40, "PYTEST_OCR_BRANCH": "main"}

ENGINE = "from pathlib import Path\n\ndef read(image_path):\n    return Path(image_path).stem\n"
CASES = (
    "cases:\n"
    '  - {id: alpha, image: alpha.png, engine: stem, expected: {text: alpha}, thresholds: {cer: "< 0.01"}}\n'
    '  - {id: beta, image: beta.png, engine: stem, expected: {text: beta}, thresholds: {cer: "< 0.01"}}\n'
)
STORE = Path(".pytest-ocr") / "history.sqlite"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``p``: a project (ini file naming ocr_config, a case file of two items that pass),
    its whole run's report r.json, its two shards' reports, and its history store with that
    run; ``outside``: another project's case file (case ``alpha`` expecting SECRET) and image."""
    top = tmp_path_factory.mktemp("reports")
    root, outside = top / "p", top / "outside"
    root.mkdir()
    outside.mkdir()
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\nocr_config = ocr.yaml\n", encoding="utf-8")
    (root / "ocr.yaml").write_text("engines:\n  stem: {type: python, function: 'engine:read'}\n", encoding="utf-8")
    (root / "engine.py").write_text(ENGINE, encoding="utf-8")
    (root / "s.ocr.yaml").write_text(CASES, encoding="utf-8")
    good_image(root, "alpha.png")
    good_image(root, "beta.png")
    (outside / "secret.ocr.yaml").write_text(CASES.replace("{text: alpha}", f"{{text: {SECRET}}}"), encoding="utf-8")
    (outside / good_image(outside, f"{SECRET}.png")).rename(outside / "secret.png")  # a picture of SECRET
    whole = run_bounded(root, "--ocr-report=r.json", "--ocr-history", memory_mb=MEMORY_MB, timeout=TIMEOUT, env=ENV)
    assert whole.returncode == 0, whole.output[-3000:]
    for k in (1, 2):
        shard = run_bounded(root, f"--ocr-shard={k}/2", f"--ocr-report=shard-{k}.json", memory_mb=MEMORY_MB)
        assert shard.returncode == 0, shard.output[-3000:]
    (root / ".peak-rss-kib").unlink()
    return top


@pytest.fixture
def top(made: Path, tmp_path: Path) -> Path:
    """A copy of the made project and its outside folder, for one test to attack."""
    shutil.copytree(made / "p", tmp_path / "p", symlinks=True)
    shutil.copytree(made / "outside", tmp_path / "outside", symlinks=True)
    for k in (1, 2):  # the shards as if they ran in the copy
        edited(
            tmp_path / "p",
            f"shard-{k}.json",
            lambda r: r["shard"].update(project=str(tmp_path / "p")),
            f"shard-{k}.json",
        )
    return tmp_path


def bounded(root: Path, command: tuple[str, ...], *args: str, memory_mb: int = MEMORY_MB) -> Bounded:
    result = run_bounded(root, *args, memory_mb=memory_mb, timeout=TIMEOUT, command=command, env=ENV)
    (root / ".peak-rss-kib").unlink()
    print(f"{' '.join(command[1:])} {' '.join(args)[:80]}: {result.seconds:.1f} s, {result.max_rss_mb:.0f} MB")
    assert "Traceback" not in result.output, result.output[-3000:]
    assert SECRET not in result.output and PASSWD not in result.output, result.output[-3000:]
    assert result.seconds < TIMEOUT / 2, f"took {result.seconds:.1f} s"
    assert result.max_rss_mb < memory_mb * 0.75, f"peak memory {result.max_rss_mb:.0f} MB"
    return result


def contents(root: Path) -> dict[str, bytes]:
    """Every file of the project (the store's included) and its bytes."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def located(root: Path, report: str, index: int) -> str:
    """How rescore locates result ``index`` of ``report``: FILE:LINE: KEY."""
    result = json.loads((root / report).read_text(encoding="utf-8"))["results"][index]
    return f"{result['file']}:{result['line']}: {result['key']}"


def edited(root: Path, name: str, edit: Callable[[dict], None], source: str = "r.json") -> str:
    """The report ``source`` as ``edit`` leaves it, written to ``name``."""
    report = json.loads((root / source).read_text(encoding="utf-8"))
    edit(report)
    (root / name).write_text(json.dumps(report), encoding="utf-8")
    return name


# -- outputs never overwrite an input, the store or the project's files ----------------------


PROTECTED = [
    (STORE.as_posix(), "{path} is the history store, which the run reads: the output would overwrite it"),
    (f"{STORE}-wal", "{path} is the history store's -wal file, which the run reads: the output would overwrite it"),
    (f"{STORE}-journal", "{path} is the history store's -journal file, which the run reads: the output would"),
    ("link-to-store", "{path} is the history store, which the run reads: the output would overwrite it"),
    ("pytest.ini", "{path} is pytest's ini file, which the run reads: the output would overwrite it"),
    ("ocr.yaml", "{path} is the ocr_config file, which the run reads: the output would overwrite it"),
    ("s.ocr.yaml", "{path} is named as case files are (*.ocr.yaml *.ocr.yml *.ocr.json): it would overwrite one"),
]


@pytest.mark.parametrize(("target", "line"), PROTECTED, ids=[t for t, _ in PROTECTED])
def test_history_export_never_overwrites_the_store_or_the_projects_files(top: Path, target: str, line: str) -> None:
    """``history export -o .pytest-ocr/history.sqlite`` replaced the store with its export,
    exit 0; ``-o pytest.ini`` and ``-o s.ocr.yaml`` the project's files."""
    root = top / "p"
    (root / "link-to-store").symlink_to(STORE)
    before = contents(root)
    refused = bounded(root, HISTORY, "export", "-o", target)
    assert refused.returncode == BAD_INPUT, refused.output
    assert refused.output.startswith(f"pytest-ocr history: --output: {line.format(path=target)}"), refused.output
    assert refused.output.count("\n") == 1
    assert contents(root) == before
    good = bounded(root, HISTORY, "export", "-o", "export.json")  # the store, intact, beside
    assert good.returncode == 0 and good.output == "pytest-ocr history export: 1 runs written to export.json\n"
    assert [run["id"] for run in json.loads((root / "export.json").read_text())["runs"]] == [1]


def test_history_html_never_replaces_a_directory_that_holds_the_store(top: Path) -> None:
    """The site replaces its directory whole: a site directory that holds the store (the
    store named into it) would lose it."""
    root = top / "p"
    first = bounded(root, HISTORY, "html", "site")
    assert first.returncode == 0, first.output
    shutil.copy(root / STORE, root / "site" / "history.sqlite")
    before = contents(root)
    refused = bounded(root, HISTORY, "html", "site", "--history", f"sqlite:///{root / 'site' / 'history.sqlite'}")
    assert refused.returncode == BAD_INPUT, refused.output
    assert refused.output == (
        f"pytest-ocr history: DIR: site holds the history store {root / 'site' / 'history.sqlite'}, which the run "
        "reads: writing the directory would delete it\n"
    )
    assert contents(root) == before


@pytest.mark.parametrize(("target", "line"), PROTECTED, ids=[t for t, _ in PROTECTED])
def test_rescore_never_overwrites_the_store_or_the_projects_files(top: Path, target: str, line: str) -> None:
    root = top / "p"
    (root / "link-to-store").symlink_to(STORE)
    if target == "s.ocr.yaml":  # rescore reads it: said as what it is
        line = "{path} is a case file the report names, which the run reads: the output would overwrite it"
    before = contents(root)
    refused = bounded(root, RESCORE, "r.json", "-o", target)
    assert refused.returncode == USAGE_ERROR, refused.output
    assert refused.output.startswith(f"pytest-ocr rescore: --output: {line.format(path=target)}"), refused.output
    assert refused.output.count("\n") == 1
    assert contents(root) == before
    good = bounded(root, RESCORE, "r.json", "-o", "again.json")
    assert good.returncode == 0, good.output
    assert "2 measured item(s) of r.json scored again; no engine ran" in good.output


MERGE_OUTPUTS = [
    (["-o", "pytest.ini"], "--output: pytest.ini is pytest's ini file, which the run reads: the output would"),
    (["--html", "ocr.yaml"], "--html: ocr.yaml is the ocr_config file, which the run reads: the output would"),
    (["-o", "new.ocr.json"], "--output: new.ocr.json is named as case files are (*.ocr.yaml *.ocr.yml *.ocr.json)"),
    (["--html", str(STORE)], f"--html: {STORE} is the history store, which the run reads: the output would"),
    (
        ["--baseline", f"{STORE}-shm", "--baseline-write", "create"],
        "--baseline: {root}/.pytest-ocr/history.sqlite-shm is the history store's -shm file, which the run reads",
    ),
    (
        ["--history", "sqlite:///other.sqlite", "-o", "other.sqlite"],
        "--output: other.sqlite is the history store, which the run reads: the output would overwrite it",
    ),
]


@pytest.mark.parametrize(("args", "line"), MERGE_OUTPUTS, ids=[" ".join(a) for a, _ in MERGE_OUTPUTS])
def test_merge_never_overwrites_the_store_or_the_projects_files(top: Path, args: list[str], line: str) -> None:
    root = top / "p"
    before = contents(root)
    refused = bounded(root, MERGE, "shard-1.json", "shard-2.json", *args)
    assert refused.returncode == USAGE_ERROR, refused.output
    assert refused.output.startswith(f"pytest-ocr merge: {line.format(root=root)}"), refused.output
    assert refused.output.count("\n") == 1
    assert contents(root) == before
    assert bounded(root, MERGE, "shard-1.json", "shard-2.json", "-o", "m.json").returncode == 0


def test_a_run_never_overwrites_the_store(top: Path) -> None:
    """The plugin's outputs keep the same rule (project_files.py): the store is the project's."""
    root = top / "p"
    before = contents(root)
    refused = run_bounded(root, f"--ocr-report={STORE}", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    assert refused.returncode == USAGE_ERROR, refused.output[-3000:]
    errors = [line for line in refused.output.splitlines() if line.startswith("ERROR: ")]
    assert errors == [
        f"ERROR: --ocr-report: {root / STORE} is the history store, which the run reads: the output would overwrite it"
    ]
    (root / ".peak-rss-kib").unlink()
    assert contents(root) == before


CONFIGURATION = "(pytest.ini .pytest.ini pyproject.toml tox.ini setup.cfg conftest.py)"


@pytest.mark.parametrize("name", ["conftest.py", "sub/tox.ini"])
def test_no_output_is_named_as_a_file_pytest_reads_as_configuration(top: Path, name: str) -> None:
    """A file that does not exist yet: written as conftest.py or tox.ini, the export, report or
    merge would configure the next pytest run there (a conftest.py is imported)."""
    root = top / "p"
    (root / "sub").mkdir()
    before = contents(root)
    line = f"{name} is named as pytest's configuration files are {CONFIGURATION}: it would overwrite one or be read"
    for command, args, status in (
        (HISTORY, ["export", "-o", name], BAD_INPUT),
        (RESCORE, ["r.json", "-o", name], USAGE_ERROR),
        (MERGE, ["shard-1.json", "shard-2.json", "--html", name], USAGE_ERROR),
    ):
        refused = bounded(root, command, *args)
        option = "--html" if "--html" in args else "--output"
        assert (refused.returncode, refused.output.count("\n")) == (status, 1), refused.output
        assert refused.output.startswith(f"pytest-ocr {command[-1]}: {option}: {line}"), refused.output
    run = run_bounded(root, f"--ocr-report={name}", memory_mb=MEMORY_MB, timeout=TIMEOUT)
    (root / ".peak-rss-kib").unlink()
    assert run.returncode == USAGE_ERROR, run.output[-3000:]
    assert f"ERROR: --ocr-report: {root / name} is named as pytest's configuration files are" in run.output
    assert contents(root) == before


def test_no_output_overwrites_an_image_the_items_read(top: Path) -> None:
    """An image is an input too: which files the items read is known once they are collected
    (in a pytest-xdist run or a merge, only from the results), so an output named as one is
    refused when the outputs are written, costing that output alone (a lost output fails the run)."""
    root = top / "p"
    before = contents(root)
    run = run_bounded(
        root, "--ocr-report=alpha.png", "--ocr-html=report.html", memory_mb=MEMORY_MB, timeout=TIMEOUT, env=ENV
    )
    (root / ".peak-rss-kib").unlink()
    assert run.returncode == 1, run.output[-3000:]
    assert "2 passed" in run.output
    line = (
        f"ERROR: OCR report was not written to {root / 'alpha.png'}: it is the image of s.ocr.yaml::alpha[stem], "
        "which the run read"
    )
    assert [x for x in run.output.splitlines() if x.startswith("ERROR: ")] == [line], run.output[-3000:]
    assert (root / "report.html").is_file()  # the other output is written
    (root / "report.html").unlink()
    assert contents(root) == before
    rescored = bounded(root, RESCORE, "r.json", "-o", "beta.png")
    assert rescored.returncode == 1, rescored.output
    assert "ERROR: OCR report was not written to beta.png: it is the image of s.ocr.yaml::beta[stem]" in rescored.output
    merged = bounded(root, MERGE, "shard-1.json", "shard-2.json", "-o", "./alpha.png")
    assert merged.returncode == 1, merged.output
    assert "ERROR: OCR report was not written to alpha.png: it is the image of s.ocr.yaml::alpha[stem]" in merged.output
    assert contents(root) == before


# -- rescore reads case files in the project only ------------------------------------------


def _file(name: str) -> Callable[[dict], None]:
    def edit(report: dict) -> None:
        report["results"][0]["file"] = name

    return edit


OUTSIDE = [
    ("absolute", lambda top: "/etc/passwd", "/etc/passwd is outside the project {root}"),
    ("climbing", lambda top: "../../../../../../../../etc/passwd", "/etc/passwd is outside the project {root}"),
    (
        "another project's case file",
        lambda top: "../outside/secret.ocr.yaml",
        "{top}/outside/secret.ocr.yaml is outside the project {root}",
    ),
    (
        "a link out of the project",
        lambda top: "link.ocr.yaml",
        "{root}/link.ocr.yaml is a symbolic link to {top}/outside/secret.ocr.yaml, outside the project {root}",
    ),
    (
        "a NUL in its name",
        lambda top: "s\0.ocr.yaml",
        "'{root}/s\\x00.ocr.yaml' is not a path (it holds a NUL character)",
    ),
]


@pytest.mark.parametrize(("name", "named", "why"), OUTSIDE, ids=[o[0] for o in OUTSIDE])
def test_rescore_never_reads_a_case_file_outside_the_project(
    top: Path, name: str, named: Callable[[Path], str], why: str
) -> None:
    """A report naming /etc/passwd or ../../etc/passwd was read and its first characters
    printed; another project's case file (a link to one) was scored against."""
    root = top / "p"
    (root / "link.ocr.yaml").symlink_to(top / "outside" / "secret.ocr.yaml")
    path = named(top)
    report = edited(root, "hostile.json", _file(path))
    before = contents(root)
    refused = bounded(root, RESCORE, report, "-o", "new.json")
    assert refused.returncode == USAGE_ERROR, refused.output
    assert refused.output == (
        f"pytest-ocr rescore: {visible(located(root, report, 0))}: its case file {why.format(top=top, root=root)}; "
        "rescore reads case files in the project only (--project DIR names it)\n"
    )
    assert contents(root) == before  # new.json not written
    good = bounded(root, RESCORE, "r.json", "-o", "new.json")  # the good report beside it
    assert good.returncode == 0, good.output
    assert [r["outcome"] for r in json.loads((root / "new.json").read_text())["results"]] == ["passed", "passed"]


def test_rescore_takes_the_project_where_it_runs_not_where_the_report_says(top: Path) -> None:
    """A shard's report records its project directory: an attacker's says ``/``, and names the
    case file by its path from there. The project is where rescore runs (or --project)."""
    root = top / "p"

    def rooted(report: dict) -> None:
        report["shard"]["project"] = "/"
        report["results"][0]["file"] = str(top / "outside" / "secret.ocr.yaml").lstrip("/")

    report = edited(root, "hostile.json", rooted, "shard-1.json")
    refused = bounded(root, RESCORE, report, "-o", "new.json")
    assert refused.returncode == USAGE_ERROR, refused.output
    named = str(top / "outside" / "secret.ocr.yaml").lstrip("/")
    assert refused.output == (  # a path in this project, where there is no such file
        f"pytest-ocr rescore: {located(root, report, 0)}: case file {root / named} is gone; it cannot be re-scored\n"
    )
    assert not (root / "new.json").exists()
    given = bounded(top, RESCORE, str(root / "shard-1.json"), "-o", str(top / "new.json"), "--project", str(root))
    assert given.returncode == 0, given.output


def test_rescore_refuses_a_record_whose_inputs_cannot_be_checked(top: Path) -> None:
    """Without its input hash, a record naming another case (another project's, or one edited
    since) was scored against it while its reference still showed the old text."""
    root = top / "p"

    def unhashed(report: dict) -> None:
        report["results"][1]["input_hash"] = None

    report = edited(root, "hostile.json", unhashed)
    before = contents(root)
    refused = bounded(root, RESCORE, report, "-o", "new.json")
    assert refused.returncode == USAGE_ERROR, refused.output
    assert refused.output == (
        f"pytest-ocr rescore: {located(root, report, 1)}: the report records no input hash for it, so "
        "whether its case and image are the ones its output was scored against cannot be checked; it cannot be "
        "re-scored (run it again)\n"
    )
    assert contents(root) == before


# -- rescore's bounds --------------------------------------------------------------------


def _big_report(root: Path, name: str, megabytes: list[int]) -> str:
    """r.json with records beside its two good ones, each an output of that many MB of
    ASCII, written without holding it in memory twice."""
    report = json.loads((root / "r.json").read_text(encoding="utf-8"))
    good = report["results"][0]
    for n, _ in enumerate(megabytes):
        key = f"s.ocr.yaml::big{n}[stem]"
        report["results"].append({**good, "key": key, "id": key, "prediction": f"@@BIG{n}@@"})  # case alpha
    text = json.dumps(report)
    with open(root / name, "w", encoding="utf-8") as file:
        for n, mb in enumerate(megabytes):
            before, text = text.split(f"@@BIG{n}@@", 1)
            file.write(before)
            for _ in range(mb):
                file.write("x" * (1024 * 1024))
        file.write(text)
    return name


def test_rescore_holds_stored_outputs_to_the_output_limit(top: Path) -> None:
    """An output beyond --ocr-max-output-mb is refused as an engine's is, before it is scored."""
    root = top / "p"
    report = _big_report(root, "big.json", [11])
    refused = bounded(root, RESCORE, report, "-o", "new.json")
    assert refused.returncode == USAGE_ERROR, refused.output
    assert refused.output == (
        f"pytest-ocr rescore: {located(root, report, 2)}: its stored output: engine 'stem' returned 11.0 MB of text "
        "(UTF-8); the limit is 10 MB (--ocr-max-output-mb); it cannot be re-scored\n"
    )
    small = _big_report(root, "small.json", [2])
    lower = bounded(root, RESCORE, small, "-o", "new.json", "--ocr-max-output-mb", "1")
    assert lower.returncode == USAGE_ERROR and lower.output == (
        f"pytest-ocr rescore: {located(root, small, 2)}: its stored output: engine 'stem' returned 2.0 MB of text "
        "(UTF-8); the limit is 1 MB (--ocr-max-output-mb); it cannot be re-scored\n"
    )
    within = bounded(root, RESCORE, small, "-o", "new.json")  # within the limit: scored as an engine's output is
    assert within.returncode == 0, within.output
    [big] = [r for r in json.loads((root / "new.json").read_text())["results"] if r["key"].endswith("big0[stem]")]
    assert big["outcome"] == "failed" and big["metrics"]["cer"] > 1
    (root / "new.json").unlink()
    wrong = bounded(root, RESCORE, "r.json", "-o", "new.json", "--ocr-max-output-mb", "inf")
    assert wrong.returncode == USAGE_ERROR and wrong.output == (
        "pytest-ocr rescore: --ocr-max-output-mb: expected a number above 0 and at most 1,000,000, not inf\n"
    )
    assert not (root / "new.json").exists()


def test_rescore_of_three_60_mb_outputs_is_bounded(top: Path) -> None:
    """The issue's report: three outputs of 60 MB took 3.5 GB, then a bad_alloc traceback.
    It is beyond --ocr-max-file-mb, refused unread; with a larger limit each output is
    refused by --ocr-max-output-mb, under a memory limit."""
    root = top / "p"
    report = _big_report(root, "big.json", [60, 60, 60])
    size = round((root / report).stat().st_size / (1024 * 1024), 1)
    unread = bounded(root, RESCORE, report, "-o", "new.json", memory_mb=600)
    assert unread.returncode == USAGE_ERROR, unread.output
    assert unread.output == (
        f"pytest-ocr rescore: big.json: the report is {size:g} MB; the limit is 100 MB (--ocr-max-file-mb)\n"
    )
    assert unread.max_rss_mb < 150, f"peak memory {unread.max_rss_mb:.0f} MB: the report was read"
    read = bounded(root, RESCORE, report, "-o", "new.json", "--ocr-max-file-mb", "200", memory_mb=1500)
    assert read.returncode == USAGE_ERROR, read.output
    alpha = located(root, "r.json", 0).rpartition(" ")[0]  # FILE:LINE: of case alpha
    assert read.output == "".join(
        f"{'pytest-ocr rescore: ' if n == 0 else ''}{alpha} s.ocr.yaml::big{n}[stem]: its stored output: engine "
        f"'stem' returned 60.0 MB of text (UTF-8); the limit is 10 MB (--ocr-max-output-mb); it cannot be re-scored\n"
        for n in range(3)
    )
    assert not (root / "new.json").exists()


# -- merge --html shows pictures of the project only -----------------------------------------


def _thumbnails(root: Path, name: str) -> int:
    return (root / name).read_text(encoding="utf-8").count('<script type="text/plain" id="ocr-thumb-')


PICTURES = [
    ("absolute", lambda top, root: str(top / "outside" / "secret.png"), "{top}/outside/secret.png"),
    ("climbing", lambda top, root: "../outside/secret.png", "../outside/secret.png"),
    ("a link out of the project", lambda top, root: "link.png", "link.png"),
    ("a NUL in its name", lambda top, root: "alpha.png\0", "alpha.png\\x00"),
]


@pytest.mark.parametrize(("name", "named", "shown"), PICTURES, ids=[p[0] for p in PICTURES])
def test_merge_html_shows_no_picture_from_outside_the_project(
    top: Path, name: str, named: Callable[[Path, Path], str], shown: str
) -> None:
    """Shard reports travel as CI artifacts: one naming a picture by an absolute or ../ path
    (or a link in the project that leads out) embedded it in the HTML report."""
    root = top / "p"
    (root / "link.png").symlink_to(top / "outside" / "secret.png")
    image = named(top, root)

    def pictured(report: dict) -> None:
        report["results"][0]["image"] = image

    shard = edited(root, "hostile-2.json", pictured, "shard-2.json")
    merged = bounded(root, MERGE, "shard-1.json", shard, "--html", "m.html", "--summary", "none")
    assert merged.returncode == 0, merged.output
    assert merged.output.splitlines() == [
        "pytest-ocr merge: 2 of 2 shards, 2 of 2 OCR items",
        f"warning: 1 image(s) the shards' results name are outside the project {root}: the HTML report shows no "
        f"picture of them ({shown.format(top=top)})",
        "OCR HTML report: m.html",
    ]
    assert _thumbnails(root, "m.html") == 1  # the good item's picture alone
    good = bounded(root, MERGE, "shard-1.json", "shard-2.json", "--html", "good.html", "--summary", "none")
    assert good.returncode == 0 and "warning" not in good.output and _thumbnails(root, "good.html") == 2


def test_merge_html_finds_pictures_in_its_own_project_not_where_the_shards_say(top: Path) -> None:
    """A shard's recorded project directory is the report's word: ``/`` there made every
    file of the machine a picture of the project."""
    root = top / "p"
    image = str(top / "outside" / "secret.png").lstrip("/")

    def rooted(report: dict) -> None:
        report["shard"]["project"] = "/"
        if report["results"][0]["case"] == "beta":
            report["results"][0]["image"] = image

    shards = [edited(root, f"hostile-{k}.json", rooted, f"shard-{k}.json") for k in (1, 2)]
    merged = bounded(root, MERGE, *shards, "--html", "m.html", "--summary", "none")
    assert merged.returncode == 0, merged.output
    assert merged.output.splitlines() == [
        "pytest-ocr merge: 2 of 2 shards, 2 of 2 OCR items",
        f"note: the shards ran in /; paths are relative to this project, {root}, and files are read in it alone "
        "(--project DIR names the checkout)",
        "OCR HTML report: m.html",
    ]
    assert _thumbnails(root, "m.html") == 1  # alpha.png, in this project
    assert f"image not found: {image}" in (root / "m.html").read_text(encoding="utf-8")
