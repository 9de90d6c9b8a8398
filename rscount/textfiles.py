"""Reading the text files users hand in (knowledge specs, generator configs, DIMACS, supports), one way.

A file that cannot be opened, is not UTF-8 or holds binary data becomes the
caller's error type with the file named, never a decoder traceback.
"""
from __future__ import annotations

from pathlib import Path

__all__ = ["read_text"]


def read_text(path: str | Path, what: str, error: type) -> str:
    """The UTF-8 text of ``path``; ``error(message)`` names ``what`` and the file when it cannot be read as text."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise error(f"{what} {str(path)!r} is not UTF-8 text (byte {exc.start}); give a text file") from None
    if "\x00" in text:
        raise error(f"{what} {str(path)!r} holds binary data; give a text file")
    return text
