"""One way to write files: atomically for regular files, in place for devices, FIFOs and standard output.

Several files that belong together (a training run's folder, the library's
DIMACS) are written into a hidden staging folder first and moved in only
when every one of them is written: a run that fails leaves earlier outputs
as they were. A symbolic link is written through to its target, as the
shell's ``>`` does.
"""
from __future__ import annotations

import contextlib
import errno
import fnmatch
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator

from ..errors import BackendError, OutputError

__all__ = ["write_atomic", "write_figure", "make_folder", "check_output_path", "check_output_folder", "staged",
           "resolve_link", "pyplot"]

PLOT_EXTRA = "plotting needs matplotlib: pip install 'rscount[plot]' (the train extra includes it)"


def pyplot(to_file: bool = True):
    """``matplotlib.pyplot``, on the file backend Agg when drawing to a file; a BackendError naming the extra
    to install when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        raise BackendError(PLOT_EXTRA) from None
    if to_file:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def resolve_link(path: str | Path) -> Path:
    """``path``, or the file a symbolic link at ``path`` points to; OutputError for a loop or a dangling link."""
    path = Path(path)
    if not path.is_symlink():
        return path
    try:
        return Path(os.path.realpath(path, strict=True))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError(f"cannot write {str(path)!r}: it is a symbolic link that loops; name a file") from None
        raise OutputError(f"cannot write {str(path)!r}: it is a symbolic link to {os.readlink(path)!r}, which does "
                          f"not exist; create the target or name another file") from None


def write_atomic(path: str | Path, text: str | bytes) -> None:
    """Write ``text`` (or bytes) to ``path``, leaving no partial file on failure.

    A regular file (or a new path) is written beside the target, flushed,
    fsynced and renamed over it; a special file (a device, a FIFO) or ``-``
    (standard output) is written in place and never replaced. OS errors
    become :class:`OutputError` naming the path.
    """
    data = text.encode() if isinstance(text, str) else text
    if str(path) == "-":
        sys.stdout.buffer.write(data) if hasattr(sys.stdout, "buffer") else sys.stdout.write(data.decode())
        sys.stdout.flush()
        return
    path = resolve_link(path)
    try:
        special = path.exists() and not path.is_file() and not path.is_dir()
    except OSError:
        special = False
    if special:
        try:
            with open(path, "wb") as fh:
                fh.write(data)
                fh.flush()
        except OSError as exc:
            raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
        return
    check_output_path(path)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent if str(path.parent) else ".")
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None
    except BaseException:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check_output_path(path: str | Path, suffixes: tuple = ()) -> None:
    """Refuse an output path before any work: a missing folder, a folder in its place, a wrong suffix."""
    if str(path) == "-":
        return
    path = resolve_link(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise OutputError(f"cannot write {str(path)!r}: folder {str(folder)!r} does not exist")
    if path.is_dir():
        raise OutputError(f"cannot write {str(path)!r}: it is a folder; name a file")
    if suffixes and path.suffix.lstrip(".").lower() not in suffixes:
        raise OutputError(f"cannot write {str(path)!r}: name a {' or '.join('.' + s for s in suffixes)} file")


def show_or_save(fig, path: str | Path | None):
    """Return the figure for a notebook when ``path`` is None; else save it whole (PNG or SVG), close it and
    return None."""
    if path is None:
        return fig
    plt = pyplot()
    write_figure(fig, path)
    plt.close(fig)
    return None


def write_figure(fig, path: str | Path, dpi: int = 120) -> None:
    """Save a matplotlib figure as PNG or SVG (by suffix) through :func:`write_atomic`."""
    check_output_path(path, ("png", "svg"))
    import io
    buf = io.BytesIO()
    fig.savefig(buf, format=Path(path).suffix.lstrip(".").lower(), dpi=dpi)
    write_atomic(path, buf.getvalue())


def check_output_folder(path: str | Path) -> None:
    """Refuse an output folder before any work: a file in its place, or a parent that is a file."""
    path = Path(path)
    for p in (path, *path.parents):
        if p.exists():
            if not p.is_dir():
                raise OutputError(f"cannot write into {str(path)!r}: {str(p)!r} is a file; name a folder")
            return


@contextlib.contextmanager
def staged(folder: str | Path, ours: tuple = ()) -> Iterator[Path]:
    """Yield a hidden staging folder inside ``folder`` (created if missing) to write a set of files into. When
    the block ends normally, files in ``folder`` matching the patterns ``ours`` (this tool's own outputs of an
    earlier run) that the new set does not replace are removed, and the new files moved in; when it fails, the
    staging folder goes and ``folder`` is as it was."""
    folder = make_folder(folder)
    try:
        stage = Path(tempfile.mkdtemp(prefix=".rscount-staging-", dir=folder))
    except OSError as exc:
        raise OutputError(f"cannot write into {str(folder)!r}: {exc.strerror or exc}") from None
    try:
        yield stage
        new = {p.name for p in stage.iterdir()}
        for old in folder.iterdir():
            if old.name not in new and old.is_file() and any(fnmatch.fnmatch(old.name, pat) for pat in ours):
                old.unlink()
        for name in sorted(new):
            os.replace(stage / name, folder / name)
    except OSError as exc:
        raise OutputError(f"cannot write into {str(folder)!r}: {exc.strerror or exc}") from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def make_folder(path: str | Path) -> Path:
    """Create the output folder ``path`` (and its parents) or raise OutputError saying why not."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create folder {str(path)!r}: {exc.strerror or exc}") from None
    return path
