"""Task parameters as the library reads them: whole numbers in a range (text from the command line or data)."""
from __future__ import annotations

from ..errors import TaskError

__all__ = ["whole"]


def whole(value, name: str, lo: int, hi: int | None = None) -> int:
    """A whole-number parameter in [lo, hi]: 2.9 and True are refused, not read as 2 and 1."""
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise TaskError(f"parameter {name}={value!r} must be a whole number")
    try:
        n = int(value)
    except (TypeError, ValueError, OverflowError):
        raise TaskError(f"parameter {name}={value!r:.40} must be an integer") from None
    if n < lo or (hi is not None and n > hi):
        raise TaskError(f"parameter {name}={n} must lie in [{lo}, {hi if hi is not None else 'inf'}]")
    return n
