"""Reading and writing files safely: the one rule for decoding a text file, the one atomic
writer, the checks that an output path is usable and overwrites no other output or input
before any OCR runs, and the lock that serialises writers of one file.

Every file pytest-ocr writes (reports, the baseline, the HTML page, the results
directory's files, cache entries) goes through ``write_atomic``: a temporary file in
the same directory, fsync, rename. A reader sees the old file or the new one, never
half of one, and a failed write leaves the old file in place. Files are created with
the mode the umask gives (``os.open`` with 0o666), as any other tool's would be, so a
CI artifact uploader running as another user can read them.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from . import limits
from .errors import OcrError

try:  # POSIX; elsewhere writers of one baseline are not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]


class OutputPathError(OcrError):
    """An output path that cannot be written; ``location`` is the option that named it."""


class UnreadableFile(OcrError):
    """An input that is not a regular file, or larger than its limit; ``location`` is its path."""


def decode_text(data: bytes) -> str:
    """A text file's bytes as text: UTF-8, a leading byte-order mark dropped. The mark
    (U+FEFF) tells the encoding; it is not part of the text, so a ground truth saved by
    Notepad or Excel scores as the same text without it (as dinglehopper reads it).
    Strings given as strings (``text:`` values, library calls, engine output) are never
    touched. Raises UnicodeDecodeError."""
    return data.decode("utf-8-sig")


def _kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISDIR, "directory"),
        (stat.S_ISFIFO, "named pipe (FIFO)"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return kind
    return "special file"


def unreadable(error: OSError | UnreadableFile, path: object = None, what: str | None = None) -> str:
    """The one line for a file that could not be read: UnreadableFile's own words, else
    ``cannot read {what} {path}: {strerror}``, or ``{what} not found: {path}`` for a
    missing file when ``what`` is given. ``path`` None: the caller's message locates it."""
    if isinstance(error, UnreadableFile):
        return error.message if path is None else f"{error.message}: {path}"
    if what is not None and isinstance(error, FileNotFoundError):
        return f"{what} not found: {path}"
    named = " ".join(str(part) for part in (what, path) if part is not None)
    return f"cannot read{' ' if named else ''}{named}: {error.strerror or error}"


def check_regular(path: Path, what: str) -> int:
    """The size of ``path`` if it is a regular file (following links); raises
    UnreadableFile for a directory, FIFO, socket or device, which could never be read or
    could hang the run, and FileNotFoundError when it is missing."""
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):
        raise UnreadableFile(f"{what} is a {_kind(info.st_mode)}, not a regular file", str(path))
    return info.st_size


def read_limited(path: Path, what: str, max_bytes: int, limit_message: Callable[[float], str]) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``; raises UnreadableFile
    (``limit_message(size in MB)`` says which limit) or OSError. Opened without blocking,
    so a FIFO swapped in after the check cannot hang the read."""
    check_regular(path, what)
    # Read through the descriptor: a file object around it (its own fstat, a terminal check,
    # a buffer) cost each ground-truth file about 10 us more than the read itself.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(f"{what} is a {_kind(info.st_mode)}, not a regular file", str(path))
        if info.st_size > max_bytes:
            raise UnreadableFile(limit_message(round(info.st_size / (1024 * 1024), 1)), str(path))
        # What fstat says is there and a byte more (asked for max_bytes, the reader would first
        # allocate that much: a 100 MB buffer took 15 to 50 us for each small file); a file
        # that grows while it is read is read on, up to the limit.
        data = _read_up_to(fd, info.st_size + 1)
        if len(data) > info.st_size:
            data += _read_up_to(fd, max_bytes + 1 - len(data))
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew while being read
        raise UnreadableFile(limit_message(round(len(data) / (1024 * 1024), 1)), str(path))
    return data


def _read_up_to(fd: int, count: int) -> bytes:
    """``count`` bytes from ``fd``, fewer only at its end (one read may return fewer)."""
    parts = []
    while count > 0:
        part = os.read(fd, count)
        if not part:
            break
        parts.append(part)
        count -= len(part)
    return b"".join(parts)


class Tree:
    """The folders a set of data files must stay in (a dataset's, a stored-outputs engine's,
    the project a report's paths name files in): a path that data names (``../../etc/passwd``
    in a label file) must lie in one of them, and, unless ``follow_symlinks``, no symbolic
    link on its way may lead out of them, so that a file outside cannot be read into a
    report. The folders themselves are taken as given (links included): whoever names them
    is trusted, the data is not. ``what`` names the folders in messages ("the dataset's
    folder"), ``allow`` what lets links out (None: nothing does)."""

    def __init__(
        self, roots: Iterable[Path], what: str, allow: str | None = None, follow_symlinks: bool = False
    ) -> None:
        self.roots = [os.path.normpath(os.path.abspath(r)) for r in roots]
        self.what = what
        self.allow = allow
        self.follow_symlinks = follow_symlinks
        # Per folder, not per file (a realpath for each of 20,000 images took most of a
        # second): where a folder really is, and which of its names are links.
        self._real: dict[str, str] = {}
        self._links: dict[str, frozenset[str]] = {}
        self._prefixes = [_prefix(r) for r in self.roots]
        self._real_prefixes = [_prefix(self._folder(r)) for r in self.roots]

    def outside(self, path: Path | str) -> str | None:
        """Why ``path`` (as the adapters open it: ``..`` taken by name) is not in the
        folders, naming it or the link that leads out; None when it is in them."""
        if "\0" in os.fspath(path):  # no file has such a name: the system refuses it
            return f"{os.fspath(path)!r} is not a path (it holds a NUL character)"
        text = os.path.normpath(os.path.abspath(path))
        root = self._root(text)
        if root is None:
            return f"{text} is outside {self._named()}"
        if self.follow_symlinks or self._inside(self._resolve(text)):
            return None
        link = root
        for part in Path(text).relative_to(root).parts:  # the first link on the way that leads out
            link = os.path.join(link, part)
            if os.path.islink(link) and not self._inside(os.path.realpath(link)):
                break
        said = f"{link} is a symbolic link to {os.path.realpath(link)}, outside {self._named()}"
        return said if self.allow is None else f"{said}; {self.allow} lets links lead out"

    def holds(self, path: Path | str) -> bool:
        """Whether ``path``, as named (links aside), is in the folders."""
        return self._root(os.path.normpath(os.path.abspath(path))) is not None

    def _root(self, path: str) -> str | None:
        within = path + os.sep  # a folder is in itself
        return next(
            (r for r, prefix in zip(self.roots, self._prefixes, strict=True) if within.startswith(prefix)), None
        )

    def _named(self) -> str:
        if len(self.roots) == 1:
            return f"{self.what} {self.roots[0]}"
        return f"{self.what}s {', '.join(self.roots)}"

    def _folder(self, folder: str) -> str:
        real = self._real.get(folder)
        if real is None:
            real = self._real[folder] = os.path.realpath(folder)
        return real

    def _resolve(self, path: str) -> str:
        """Where ``path`` really is (or would be): its folder's real path, and the file's
        own link if it is one."""
        folder, _, name = path.rpartition(os.sep)
        folder = folder or os.sep
        links = self._links.get(folder)
        if links is None:
            try:
                with os.scandir(folder) as entries:
                    links = frozenset(e.name for e in entries if e.is_symlink())
            except OSError:  # missing, or not a folder: nothing in it is a link
                links = frozenset()
            self._links[folder] = links
        if name in links:
            return os.path.realpath(path)
        return _prefix(self._folder(folder)) + name

    def _inside(self, real: str) -> bool:
        within = real + os.sep
        return any(within.startswith(prefix) for prefix in self._real_prefixes)


def _prefix(folder: str) -> str:
    """What the paths in ``folder`` (normalised, absolute) start with."""
    return folder if folder.endswith(os.sep) else folder + os.sep


def write_atomic(path: Path, data: str | bytes | Iterable[str]) -> None:
    """Write ``data`` (text is UTF-8; an iterable of text is written piece by piece as it
    is made) to ``path`` atomically; creates the parent directory."""
    pieces = [data] if isinstance(data, (str, bytes)) else data
    with atomic_file(path) as temporary, open(temporary, "wb") as file:
        for piece in pieces:
            file.write(piece.encode("utf-8") if isinstance(piece, str) else piece)
        file.flush()
        os.fsync(file.fileno())


@contextlib.contextmanager
def atomic_file(path: Path) -> Iterator[Path]:
    """A new, empty temporary file beside ``path`` for the block to fill (another process
    may: it is a name), renamed to ``path`` when the block ends, removed when it raises.
    Creates the parent directory. Whoever writes it syncs it (``write_atomic`` does)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    try:
        yield temporary
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def check_output_file(path: Path, option: str) -> None:
    """Raise OutputPathError unless a file can be written at ``path``: a regular file or
    none (not a directory, device, FIFO or socket), its directory exists (or can be made)
    and takes a new file."""
    path = Path(path)
    if path.is_dir():
        raise OutputPathError(f"{path} is a directory; give a file name", option)
    # a new file, a link to none, or a parent that is not a directory (said by _check_directory)
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            # The output is renamed over it (write_atomic): /dev/null or /dev/stdout would be
            # replaced by a regular file (as root, for every process), a FIFO's reader would wait on.
            raise OutputPathError(
                f"{path} is a {_kind(mode)}, not a regular file: an output is written beside it and renamed "
                "over it, which would replace it; give a file name",
                option,
            )
    _check_directory(path.parent, option)


def check_output_directory(path: Path, option: str) -> None:
    """Raise OutputPathError unless ``path`` is (or can be made) a directory that takes new files."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise OutputPathError(f"{path} exists and is not a directory", option)
    _check_directory(path, option)


def check_apart(
    outputs: Sequence[tuple[str, Path]],
    inputs: Sequence[tuple[str, Path]] = (),
    directory: tuple[str, Path] | None = None,
    named: Sequence[tuple[str, Sequence[str]]] = (),
) -> None:
    """Raise OutputPathError unless each output file (option, path) is a file of its own:
    not another output's, not one of the ``inputs`` the run reads (what, path: its reports,
    and the project's own files, project_files.py), not named as the files it reads are
    (``named``: what, name patterns, such as case files: it would overwrite one, or a later
    run would read it as one), and
    not inside the output ``directory`` (option, path), a folder of runs. Paths are compared
    with links followed, files that exist by identity (a hard link is the same file). The
    one rule for every output of the plugin and of the ``pytest-ocr`` commands."""
    for number, (option, path) in enumerate(outputs):
        for other, taken in outputs[:number]:
            if _same(path, taken):
                raise OutputPathError(f"{path} is also {other}'s file; each output needs a file of its own", option)
        for what, read in inputs:
            if _same(path, read):
                raise OutputPathError(f"{path} is {what}, which the run reads: the output would overwrite it", option)
        names = (path.name, Path(os.path.realpath(path)).name)
        for what, patterns in named:
            if any(_named_as(name, patterns) for name in names):
                why = "it would overwrite one or be read as one"
                raise OutputPathError(f"{path} is named as {what} are ({' '.join(patterns)}): {why}", option)
        if directory is not None and Path(os.path.realpath(path)).is_relative_to(os.path.realpath(directory[1])):
            raise OutputPathError(
                f"{path} is inside {directory[0]} {directory[1]}, which holds a folder per run: write it elsewhere",
                option,
            )


def check_holds_none(directory: tuple[str, Path], inputs: Sequence[tuple[str, Path]]) -> None:
    """Raise OutputPathError when the output ``directory`` (option, path), which is replaced
    whole, holds one of the ``inputs`` (what, path): replacing it would delete that file."""
    option, path = directory
    real = Path(os.path.realpath(path))
    for what, read in inputs:
        if Path(os.path.realpath(read)).is_relative_to(real) and os.path.lexists(read):
            raise OutputPathError(
                f"{path} holds {what} {read}, which the run reads: writing the directory would delete it", option
            )


def _named_as(name: str, patterns: Sequence[str]) -> bool:
    from fnmatch import fnmatch

    return any(fnmatch(name, pattern) for pattern in patterns)


def _same(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them is not there (yet)
        return False


def _check_directory(directory: Path, option: str) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputPathError(f"cannot create directory {directory}: {exc.strerror or exc}", option) from None
    probe = directory / f".pytest-ocr-probe-{secrets.token_hex(6)}"
    try:  # os.access does not see read-only mounts or ACLs: try it
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise OutputPathError(f"cannot write in {directory}: {exc.strerror or exc}", option) from None


LOCK_POLL_S = 0.1  # the longest pause between two asks for a lock another process holds


class LockTimeout(OcrError):
    """A lock another process held for longer than ``max_lock_wait_s``."""


@contextlib.contextmanager
def locked(path: Path, remove: bool = False) -> Iterator[None]:
    """Hold an exclusive lock for writing ``path`` (a hidden ``.NAME.lock`` beside it):
    two runs updating one baseline take turns, and each re-reads what the other wrote.
    Raises LockTimeout, naming the lock file and the process holding it, when another
    holds it for longer than ``max_lock_wait_s`` (a stuck run would hold every other for ever).

    ``remove``: the holder removes the lock file when done, for a ``path`` written once
    (a rasterised page) that every holder checks for first: one waiting on the removed
    file then finds ``path`` written, as does one that makes a new lock file."""
    path = Path(path)
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    lock = path.with_name(f".{path.name}.lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        _acquire(fd, lock)
        yield
    finally:
        if remove:
            with contextlib.suppress(OSError):
                os.unlink(lock)
        os.close(fd)  # closing releases the lock


def _acquire(fd: int, lock: Path) -> None:
    """Take the lock on ``fd``, asking again every LOCK_POLL_S at most until max_lock_wait_s."""
    seconds = limits.active().max_lock_wait_s
    deadline = time.monotonic() + seconds
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            left = deadline - time.monotonic()
            if left <= 0:
                option = limits.OPTIONS["max_lock_wait_s"]
                raise LockTimeout(
                    f"waited {seconds:g} s ({option}) for the lock {lock}, held by {_holder(fd)}; "
                    "if that process is stuck, end it"
                ) from None
            time.sleep(min(pause, left))
            pause = min(pause * 2, LOCK_POLL_S)


def _holder(fd: int) -> str:
    """The process holding the flock on ``fd``'s file, from Linux's /proc/locks: its pid
    and command line, as far as they can be read."""
    info = os.fstat(fd)
    device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}:{info.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as table:
            lines = table.read().splitlines()
    except OSError:
        return "another process"
    for line in lines:
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK" or fields[5] != device:
            continue  # "->": a process waiting for the lock, not holding it
        pid = fields[4]
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                command = cmdline.read(300).replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            command = ""
        return f"process {pid}" + (f" ({command})" if command else "")
    return "another process"
