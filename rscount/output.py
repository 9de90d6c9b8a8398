"""One way to write files: atomically for regular files, in place for devices, FIFOs and standard output."""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from .errors import OutputError

__all__ = ["write_atomic", "write_figure", "make_folder", "check_output_path", "check_output_folder"]


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
    path = Path(path)
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
    path = Path(path)
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
    import matplotlib.pyplot as plt
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


def make_folder(path: str | Path) -> Path:
    """Create the output folder ``path`` (and its parents) or raise OutputError saying why not."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create folder {str(path)!r}: {exc.strerror or exc}") from None
    return path
