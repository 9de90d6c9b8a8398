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
from pathlib import Path

from ..errors import OutputError
from ..output import check_output_path, make_folder, resolve_link, write_atomic
from .grid import SweepError

__all__ = ["Table", "open_table", "read_rows", "columns", "FORMATS"]

FORMATS = {".jsonl": "jsonl", ".csv": "csv", ".parquet": "parquet"}


def _format(path: Path) -> str:
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise SweepError(f"sweep output {str(path)!r}: name a .jsonl or .csv file or a .parquet folder")
    return kind


def read_rows(path: str | Path) -> list:
    """The rows already in a sweep output (a partial last JSON line skipped), as dicts."""
    path = resolve_link(Path(path))
    kind = _format(path)
    if not path.exists():
        return []
    if kind == "jsonl":
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:  # the line a crash cut short
                continue
        return rows
    if kind == "csv":
        with path.open(newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    import pyarrow.parquet as pq
    return [row for part in sorted(path.glob("part-*.parquet")) for row in pq.read_table(part).to_pylist()]


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
        """Cut a last line a crash left partial (it was never a finished row), so pandas reads the file again."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as fh:
                fh.truncate(data.rfind(b"\n") + 1)

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
