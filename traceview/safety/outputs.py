"""What traceview may write: never over something it read, never over a file it did not
create unless the user said ``--force``, and never half a file.

Every command that writes asks ``refuse_output`` first (before anything is read or sent)
and writes through ``replacing``: a temporary name in the output's own directory, renamed
over the output once the whole of it is written, so a failure or a kill leaves the old file
(or nothing) in place. It sits in ``safety/``, the output boundary, so that the inspector
writes through it too (the objects screen's verification sidecar); whoever writes names
its inputs.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

FORCE_HINT = "pass --force to replace it"


class PathRefused(Exception):
    """A path a command will not write (or read): the message says why and how to proceed."""


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(device, inode) of what ``path`` names after every symlink, or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def input_identities(inputs: Iterable[str | os.PathLike[str]]) -> set[tuple[int, int]]:
    """Every file the command reads, directories walked (a capture directory's files)."""
    seen: set[tuple[int, int]] = set()
    for path in inputs:
        if str(path) == "-":
            continue
        ident = _identity(path)
        if ident is None:
            continue
        seen.add(ident)
        if os.path.isdir(path):
            for root, _dirs, files in os.walk(path):
                seen.update(i for f in files if (i := _identity(os.path.join(root, f))))
    return seen


def refuse_output(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]],
                  *, force: bool = False, directory: bool = False,
                  produced: Iterable[str] = ()) -> None:
    """Raise PathRefused when writing ``output`` would destroy something.

    An output is refused when it is one of ``inputs`` (same file through any symlink or
    hard link; never overridden), is not a regular file (a FIFO, a device: never
    overridden), or already exists and ``force`` is off. With ``directory`` the output is a
    folder: the files ``produced`` inside it are checked instead, and the folder may exist.
    """
    idents = input_identities(inputs)
    targets = [Path(output) / name for name in produced] if directory else [Path(output)]
    if directory and os.path.exists(output) and not os.path.isdir(output):
        raise PathRefused(f"{output}: exists and is not a directory")
    if directory and _identity(output) in idents:
        raise PathRefused(f"{output}: is one of the inputs; choose another output")
    for target in targets:
        ident = _identity(target)
        if ident is not None and ident in idents:
            raise PathRefused(f"{target}: is one of the inputs; choose another output "
                                "(nothing was written)")
        try:
            st = os.stat(target)
        except FileNotFoundError:
            if os.path.islink(target):
                raise PathRefused(f"{target}: is a dangling symlink; remove it or choose "
                                    "another output") from None
            continue
        except OSError as exc:
            raise PathRefused(f"{target}: cannot be used ({exc.strerror or exc})") from None
        if stat.S_ISDIR(st.st_mode):
            raise PathRefused(f"{target}: is a directory, not a regular file")
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused(f"{target}: is not a regular file")
        if not force:
            raise PathRefused(f"{target}: already exists; {FORCE_HINT}")


def regular_input(path: str | os.PathLike[str], what: str) -> None:
    """Raise PathRefused unless ``path`` is a regular file: a FIFO or a device would block
    or never end. (``-`` is stdin, read as the user asked.)"""
    if str(path) == "-":
        return
    try:
        st = os.stat(path)
    except OSError as exc:
        raise PathRefused(f"{what} {path}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(f"{what} {path}: is not a regular file")


class Unread(OSError):
    """A file refused before it was read: not a regular file, or larger than its reader
    allows. An OSError, so each reader's own "cannot read (…)" message names the cause."""


def read_bounded(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them: a FIFO would
    block, a device never end, and a file the size of the disk (a sparse one costs nothing
    to make) would be read whole into memory; each raises :class:`Unread`, read at most
    one byte past the limit however the file grows."""
    # O_NONBLOCK: opening a FIFO would wait for a writer; a regular file ignores it.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        # Checked on the descriptor, before open() wraps it: open() refuses a directory
        # with the descriptor's number for its name ("Is a directory: 3").
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Unread(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise Unread(None, "not a regular file")
        # Too large by its size is refused unread; a file growing meanwhile, past the limit.
        with open(fd, "rb", closefd=False) as handle:
            raw = b"" if st.st_size > limit else handle.read(limit + 1)
    finally:
        os.close(fd)
    if st.st_size > limit or len(raw) > limit:
        raise Unread(None, f"larger than {_size(limit)}, more than such a file needs; not read")
    return raw


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit >> 10} KiB"


@contextmanager
def replacing(output: str | os.PathLike[str], *, mode: int | None = None) -> Iterator[Path]:
    """A temporary path beside ``output``; renamed over it when the block ends normally,
    removed when it raises. ``mode`` creates it with those permissions (0o600 for stores
    that may hold a user's text). The path is inside a fresh private folder (random name,
    0700): a name anyone could guess (``.out.tv-PID.tmp``) could be planted beforehand as a
    symlink, and the write would follow it onto the capture or any file."""
    import shutil  # here: a plain report, which writes no file, never loads it

    out = Path(output)
    folder = _private_folder(out)
    tmp = folder / out.name
    if mode is not None:
        os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode))
    try:
        yield tmp
        if tmp.exists():
            os.replace(tmp, out)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def replacing_entries(output: str | os.PathLike[str]) -> Iterator[Path]:
    """A private temporary folder beside the folder ``output``, for a whole export made of
    several files (Parquet tables, CSV files): when the block ends normally each entry made
    in it replaces the one of the same name in ``output`` (made if missing); it is removed
    either way. An export that fails or is interrupted leaves ``output`` as it was: a
    Ctrl-C left tables cut short under names that read as whole."""
    import shutil

    out = Path(output)
    folder = _private_folder(out)
    try:
        yield folder
        out.mkdir(exist_ok=True)
        for entry in sorted(folder.iterdir()):
            target = out / entry.name
            if target.is_symlink():  # the link replaced, never what it points at
                target.unlink()
            elif target.is_dir():
                shutil.rmtree(target)
            os.replace(entry, target)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _private_folder(out: Path) -> Path:
    """A fresh folder (random short name, 0700) beside ``out``; a failure names ``out``,
    the path the user gave, not the temporary name they never saw."""
    import tempfile

    try:
        if not out.parent.is_dir():
            out.parent.mkdir(parents=True)  # a file in the way: said as not a directory
        return Path(tempfile.mkdtemp(prefix=".tv-", dir=out.parent))  # short: any name fits
    except FileExistsError:
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(out)) from None
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(out)) from None
