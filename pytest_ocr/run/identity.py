"""What an item is called across runs: its key in baselines, reports and comparisons.

pytest's node ids are relative to its rootdir, and the rootdir moves: without an ini
file it is the common ancestor of the command line's path arguments, so a value given
as a separate argument (``--ocr-baseline /ci/artifacts/main.json``) moves it to ``/``
and every node id gains a prefix. An item's key does not depend on the rootdir: it is
the case file's path relative to the *project directory*, the case id and the engine
(``receipts.ocr.yaml::sroie-359[tesseract]``). The project directory is

1. the directory of pytest's ini file, when pytest found one;
2. else the nearest ancestor of the invocation directory that holds a project file
   (``pytest.ini``, ``pyproject.toml``, ``tox.ini``, ``setup.cfg``, ``setup.py``, ``.git``);
3. else the invocation directory.

Paths outside the project directory are written absolute; a message (a skipped entry's
reason, an item's error: ``error_message``) names the paths inside it relative to it.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..errors import OcrError

PROJECT_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg", "setup.py", ".git")
# case[engine]: both parts are identifiers in the case-file schema's sense
_NAME = re.compile(r"(?P<case>[A-Za-z0-9_][A-Za-z0-9_.\-]*)\[(?P<engine>[A-Za-z0-9_][A-Za-z0-9_.\-]*)\]")


def project_dir(inipath: Path | None, invocation_dir: Path) -> Path:
    if inipath is not None:
        return inipath.parent.resolve()
    start = invocation_dir.resolve()
    for directory in (start, *start.parents):
        if any((directory / name).exists() for name in PROJECT_FILES):
            return directory
    return start


def relative(path: Path, project: Path) -> str:
    """``path`` (absolute and resolved) as reports name it: relative to the project
    directory when inside it, else absolute; always with forward slashes."""
    text, root = os.fspath(path), os.fspath(project)
    if root != os.sep:  # by string (pathlib's parsing costs more than the rest of an item's naming)
        if text.startswith(root + os.sep):
            return text[len(root) + 1 :].replace(os.sep, "/")
        if os.name == "posix":  # names compare exactly here, so this path is outside the project
            return "." if text == root else text
    try:
        return path.relative_to(project).as_posix()
    except ValueError:
        return path.as_posix()


def item_key(file: str, case: str, engine: str) -> str:
    return f"{file}::{case}[{engine}]"


def split_name(name: str) -> tuple[str, str] | None:
    """(case, engine) of an item name ``case[engine]``; None for anything else."""
    match = _NAME.fullmatch(name)
    return (match["case"], match["engine"]) if match else None


def relative_paths(text: str, project: Path) -> str:
    """A message with the paths it names inside the project directory made relative to it,
    as reports name files (a dataset's skipped entry: "image not found: /ci/x/img/a.png"
    becomes "image not found: img/a.png", the directory itself "."). A path is the project
    directory's path where no path character precedes it."""
    if project.parent == project:  # the project at / : leave absolute paths absolute
        return text
    for path in {str(project), project.as_posix()}:
        start = r"(?<![\w.~/\\-])" + re.escape(path)
        text = re.sub(start + "[/" + re.escape(os.sep) + "]", "", text)  # a path inside it
        text = re.sub(start + r"(?=$|[\s)\]:;,'\"])", ".", text)  # the directory itself
    return text


def error_message(error: BaseException | None, project: Path) -> str:
    """An error as an item's result and its test report state it: a user's error as its
    message alone, anything else with its type; the paths it names inside the project
    relative to it, as reports name files (a machine's directories do not belong in a
    report, a CI log or a JUnit file)."""
    if error is None:
        return "no result"
    text = str(error) if isinstance(error, OcrError) else f"{type(error).__name__}: {error}"
    return relative_paths(text, project)
