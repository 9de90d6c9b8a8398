"""Where a sweep's rows go: JSON lines, CSV or a Parquet folder, always readable by pandas in one call.

Rows arrive in batches as points finish. JSON lines are appended (a line is
whole or, after a crash, a last partial line that readers skip); a CSV file
is rewritten whole beside itself and renamed over; a Parquet folder gets one
file per batch, written under a temporary name and renamed. A lock file next
to the output stops two sweeps from writing it at once; finished rows are
read back to resume.
"""
from __future__ import annotations

import csv
import fcntl
import io
import json
import os
import warnings
from pathlib import Path

from ..errors import OutputError, brief
from ..files.writing import check_output_path, make_folder, resolve_link, write_atomic
from .grid import SweepError

__all__ = ["Table", "open_table", "read_rows", "columns", "FORMATS"]

FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def _format(path: Path) -> str:
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise SweepError(f"sweep output {str(path)!r}: name a .jsonl or .csv file or a .parquet folder")
    return kind


def read_rows(path: str | Path) -> list:
    """The rows already in a sweep output (a partial last JSON line skipped), as dicts; an output rscount did
    not write (binary, not UTF-8, rows without a key, a malformed CSV, a corrupt Parquet part) is refused."""
    path = resolve_link(Path(path))
    kind = _format(path)
    if not path.exists():
        return []
    if kind == "jsonl":
        return _json_rows(path)[0]
    if kind == "csv":
        try:
            with path.open(newline="", encoding="utf-8") as fh:
                rows = list(csv.DictReader(fh, strict=True))
            ragged = next((n for n, r in enumerate(rows, 2) if None in r or None in r.values()), None)
            if ragged is not None:
                raise csv.Error(f"row {ragged} has another number of fields than the header")
        except (UnicodeDecodeError, csv.Error) as exc:
            raise SweepError(f"sweep output {str(path)!r} is not a CSV file rscount wrote ({brief(str(exc), 60)}); "
                             f"name a new output or move it away") from None
        return _checked(rows, path)
    import pyarrow.parquet as pq
    rows = []
    for part in sorted(path.glob("part-*.parquet")):
        try:
            rows += pq.read_table(part).to_pylist()
        except Exception as exc:  # pyarrow raises its own errors for a damaged file
            raise SweepError(f"sweep output part {str(part)!r} cannot be read ({brief(str(exc), 60)}); move it away "
                             f"to rerun its points") from None
    return _checked(rows, path)


def _json_rows(path: Path) -> tuple:
    """(rows, numbers of the corrupt lines before the last) of a JSON-lines output."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SweepError(f"sweep output {str(path)!r} is not UTF-8 text, so not a table rscount wrote; name a new "
                         f"output or move it away") from None
    rows, bad = [], []
    lines = text.split("\n")
    for n, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            if n < len(lines) - 1:  # a cut last line is a crash's; one inside was damaged after writing
                bad.append(n)
            continue
        if not isinstance(row, dict):
            raise SweepError(f"sweep output {str(path)!r} line {n + 1} is JSON but not a row (an object); it is "
                             f"not a table rscount wrote: name a new output or move it away")
        rows.append(row)
    return _checked(rows, path), bad


def _checked(rows: list, path: Path) -> list:
    if any("key" not in r for r in rows):
        raise SweepError(f"sweep output {str(path)!r} holds rows without a 'key' column, so rscount did not write "
                         f"it; name a new output or move it away")
    return rows


class Table:
    """An open sweep output: rows are added in batches; ``done`` holds the keys already written."""

    def __init__(self, path: Path, fields: tuple):
        self.path, self.kind, self.fields = path, _format(path), fields
        self._lock = None
        self.rows = read_rows(path)
        self.done = {str(r.get("key")) for r in self.rows}
        self._parts = len(list(path.glob("part-*.parquet"))) if self.kind == "parquet" and path.exists() else 0

    def __enter__(self) -> "Table":
        lock = self.path.with_name(self.path.name + ".lock")
        try:
            self._lock = open(lock, "w")
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            self._lock = None
            raise SweepError(f"another sweep is writing {str(self.path)!r} (lock {str(lock)!r}); wait for it or "
                             f"name another output") from None
        except OSError as exc:
            raise OutputError(f"cannot lock {str(lock)!r}: {exc.strerror or exc}") from None
        if self.kind == "jsonl":
            self._mend()
        return self

    def _mend(self) -> None:
        """Cut a last line a crash left partial (it was never a finished row), and move corrupt lines inside
        the file to ``<output>.rejected`` (their points run again), so pandas reads the file in one call."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as fh:
                fh.truncate(data.rfind(b"\n") + 1)
        _, bad = _json_rows(self.path)
        if bad:
            lines = self.path.read_text(encoding="utf-8").split("\n")
            rejected = self.path.with_name(self.path.name + ".rejected")
            with rejected.open("a", encoding="utf-8") as fh:
                fh.write("".join(lines[n] + "\n" for n in bad))
            write_atomic(self.path, "\n".join(line for n, line in enumerate(lines) if n not in set(bad)))
            warnings.warn(f"sweep output {str(self.path)!r}: {len(bad)} corrupt line(s) moved to "
                          f"{str(rejected)!r}; their points run again", stacklevel=2)

    def __exit__(self, *exc) -> None:
        if self._lock is not None:
            lock = Path(self._lock.name)
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()
            self._lock = None
            lock.unlink(missing_ok=True)

    def add(self, rows: list) -> None:
        """Write a batch of rows, whole."""
        if not rows:
            return
        self.rows += rows
        self.done.update(str(r["key"]) for r in rows)
        if self.kind == "jsonl":
            try:
                with self.path.open("a", encoding="utf-8") as fh:
                    fh.write("".join(json.dumps(r) + "\n" for r in rows))
                    fh.flush()
                    os.fsync(fh.fileno())
            except OSError as exc:
                raise OutputError(f"cannot write {str(self.path)!r}: {exc.strerror or exc}") from None
        elif self.kind == "csv":
            buf = io.StringIO()
            writer = csv.DictWriter(buf, fieldnames=self._columns(), extrasaction="ignore")
            writer.writeheader()
            writer.writerows(self.rows)
            write_atomic(self.path, buf.getvalue())
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq
            folder = make_folder(self.path)
            columns = self._columns()
            types = {c: getattr(pa, _TYPES.get(c, "string"))() for c in columns}
            data = {c: [_parquet_value(r.get(c), types[c]) for r in rows] for c in columns}
            sink = io.BytesIO()
            pq.write_table(pa.table(data, schema=pa.schema(list(types.items()))), sink)
            write_atomic(folder / f"part-{self._parts:05d}.parquet", sink.getvalue())
            self._parts += 1

    def _columns(self) -> list:
        return columns(self.rows, self.fields)


def columns(rows: list, fields: tuple) -> list:
    """The columns of a table of ``rows``: ``fields`` first, then what some rows add (audits, training), sorted."""
    return list(fields) + sorted({k for r in rows for k in r} - set(fields))


def open_table(path: str | Path, fields: tuple) -> Table:
    """The output ``path`` (checked before any work), with the rows it already holds."""
    path = resolve_link(Path(path))
    _format(path)
    if path.suffix.lower() == ".parquet":
        if path.exists() and not path.is_dir():
            raise SweepError(f"sweep output {str(path)!r} is a file; a .parquet output is a folder of parts")
        if not path.parent.is_dir():
            raise OutputError(f"cannot write {str(path)!r}: folder {str(path.parent)!r} does not exist")
    else:
        check_output_path(path)
    return Table(path, fields)


# Parquet columns have one type in every part: counts (exact past 64 bits) and amounts (a count 2 is not a
# fraction 2.0) are kept as text; the measures as numbers.
_TYPES = {"seed": "int64", "log10_count": "float64", "exact": "bool_", "seconds": "float64", "fitted": "bool_",
          "train_accuracy": "float64", "label_accuracy": "float64", "concept_accuracy": "float64"}


def _parquet_value(value, kind):
    import pyarrow as pa
    if value is None or value == "" and not pa.types.is_string(kind):
        return None
    return str(value) if pa.types.is_string(kind) else value
