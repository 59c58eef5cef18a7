"""Any executable as an engine: it gets the image path in its argv and prints the text.

Never through a shell: argv elements are passed literally, only ``{image}`` is replaced
(by the absolute image path). The process runs in ``cwd``, by default the directory of
the file that declared the engine, so relative paths in argv mean what they say there.

What it prints is read up to ``max_output_mb`` (then it is killed: a program printing
without end costs its item, not the run's memory), and only the tail of its stderr is
kept. The values of ``env`` change the output as much as argv does, so they enter the
fingerprint, as hashes: a value may be a secret, and never appears in the cache,
reports or logs; they are registered as secrets (redaction.py), so a program that prints
one has it replaced wherever it is shown.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from .. import limits, redaction
from ..subprocesses import OutputTooLarge, run
from . import _options
from .base import EngineBase, EngineError, EngineSpec, Recognition
from .cache import file_sha256

SCHEMA = {
    "argv": (list[str], _options.REQUIRED),
    "timeout": (float, 300),
    "env": (dict[str, str | int | float], {}),
    "cwd": (str, None),
    "version": (str, None),
    "version_argv": (list[str], None),
}

PLACEHOLDER = "{image}"
STDERR_TAIL = 2000


def value_digest(value: str) -> str:
    """How an ``env`` value enters the fingerprint: ``sha256:`` and 16 hex digits of its
    hash, so a changed value changes the fingerprint without the value being shown."""
    return "sha256:" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _digest(path: str) -> str | None:
    try:
        return file_sha256(path)[:16]
    except OSError:  # executable but not readable (mode 711): nothing to hash
        return None


class CommandEngine(EngineBase):
    def __init__(self, spec: EngineSpec) -> None:
        options = _options.check_options(spec, SCHEMA)
        self.argv = options["argv"]
        if not self.argv or not any(PLACEHOLDER in arg for arg in self.argv):
            raise _options.error(
                spec, f"option 'argv' must be a list of str with an element containing {PLACEHOLDER}, got {self.argv!r}"
            )
        if options["version"] is not None and options["version_argv"] is not None:
            raise _options.error(spec, "give either option 'version' or option 'version_argv', not both")
        self.timeout = _options.check_timeout(spec, options["timeout"])
        self.cwd = _options.resolve(spec, options["cwd"] or ".")
        if not self.cwd.is_dir():
            raise _options.error(spec, f"option 'cwd': directory {self.cwd} does not exist")
        extra = {key: str(value) for key, value in options["env"].items()}
        redaction.register(*extra.values())
        self.env = {**os.environ, **extra}
        # A new binary under the same name changes the output but not argv (and `version`
        # is whatever the user wrote), so a cache keyed on the fingerprint needs its bytes.
        # Only argv[0]: a script or model named later in argv is not covered.
        executable = _digest(self._check_executable(spec, self.argv[0]))
        # A value changes the output (a model path, a language) as much as argv does, but
        # may be a secret: each enters the fingerprint as a hash of it, never in clear.
        env = {key: value_digest(extra[key]) for key in sorted(extra)}
        self.config = {"argv": self.argv, "cwd": options["cwd"], "env": env, "executable": executable}
        self.version = options["version"]
        version_argv = options["version_argv"]
        if version_argv:
            self._check_executable(spec, version_argv[0])
            try:
                proc = self._run(version_argv, f"`{' '.join(version_argv)}`")
            except EngineError as exc:
                raise _options.error(spec, f"option 'version_argv': {exc}") from exc
            # Some programs (java -version) print their version to stderr.
            self.version = (proc.stdout or proc.stderr).decode(errors="replace").strip()

    def _check_executable(self, spec: EngineSpec, program: str) -> str:
        # With a directory part it is relative to the process's cwd, as for the OS.
        if Path(program).name != program:
            found, where = shutil.which(str(self.cwd / program)), f"relative to {self.cwd}"
        else:
            found, where = shutil.which(program, path=self.env.get("PATH")), "on PATH"
        if found is None:
            raise _options.error(spec, f"executable {program!r} not found {where}")
        return found

    def _run(self, argv: list[str], what: str) -> subprocess.CompletedProcess:
        active = limits.active()
        try:
            proc = run(argv, timeout=self.timeout, cwd=self.cwd, env=self.env, max_stdout=active.max_output_bytes)
        except subprocess.TimeoutExpired:
            raise EngineError(f"{what} timed out after {self.timeout:g} s and was killed") from None
        except OutputTooLarge:
            raise EngineError(
                f"{what} printed more than {active.max_output_mb:g} MB and was killed; the limit is "
                f"{active.max_output_mb:g} MB of text ({limits.OPTIONS['max_output_mb']})"
            ) from None
        except OSError as exc:
            raise EngineError(f"could not run {argv[0]!r} for {what}: {exc}") from exc
        if proc.returncode != 0:
            stderr = redaction.redact(proc.stderr.decode(errors="replace"))  # before its tail is cut
            tail = stderr[-STDERR_TAIL:].strip()
            cut = "...(stderr shortened)\n" if len(stderr) > STDERR_TAIL else ""
            raise EngineError(f"{what} exited with code {proc.returncode}; stderr:\n{cut}{tail}")
        return proc

    def recognize(self, image: Path) -> Recognition:
        path = str(Path(image).absolute())
        argv = [arg.replace(PLACEHOLDER, path) for arg in self.argv]
        proc = self._run(argv, f"command {self.argv[0]!r} on {path}")
        try:
            text = proc.stdout.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise EngineError(f"output of command {self.argv[0]!r} on {path} was not UTF-8: {exc}") from exc
        return Recognition(text=text)

    def fingerprint(self) -> dict:
        return {"type": "command", "version": self.version, "config": self.config}
