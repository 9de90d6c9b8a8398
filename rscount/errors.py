"""Typed errors: one root, one subclass per stage of the pipeline.

Messages name the offending value and say what to do next; the CLI prints
them as one line and exits with :attr:`RscountError.exit_status`.
"""
from __future__ import annotations

__all__ = [
    "RscountError",
    "KnowledgeError",
    "TaskError",
    "SupportError",
    "EncodingError",
    "BackendError",
    "CountTimeout",
    "DimacsError",
    "HarnessError",
    "OutputError",
    "OptionError",
    "brief",
    "reason",
]


class RscountError(Exception):
    """Root of every error rscount raises on purpose."""

    exit_status = 2


class KnowledgeError(RscountError):
    """Knowledge text or spec is malformed, ill-typed or contradictory."""


class TaskError(RscountError):
    """A task name, parameter or spec is unknown or inconsistent."""


class SupportError(RscountError):
    """A support is empty, malformed or leaves the concept domains."""


class EncodingError(RscountError):
    """A map class, supervision or option combination cannot be encoded."""


class DimacsError(RscountError):
    """A DIMACS file is malformed."""


class HarnessError(RscountError):
    """A training-harness option (model, extractor, t-norm, inputs) is unknown or does not fit the task."""


class OutputError(RscountError):
    """An output file cannot be written (missing folder, a folder in its place, a full disk, no permission)."""


class OptionError(RscountError):
    """A numeric option is out of range (a time limit of nan, a memory limit past what the platform holds)."""


class BackendError(RscountError):
    """A counter is missing, failed, or ran out of memory."""

    exit_status = 3


class CountTimeout(BackendError):
    """A counter did not finish within the time limit; ``finished`` lists what was counted before it ran out
    (several tasks: each count done), so that a caller can show it."""

    exit_status = 3

    def __init__(self, message: str = "", finished: tuple = ()):
        super().__init__(message)
        self.finished = tuple(finished)


def brief(value, width: int = 60) -> str:
    """A short repr of ``value`` for a message, built without the whole repr of a large value (a list of a
    million items, an alias-expanded spec)."""
    import reprlib
    short = reprlib.Repr()
    short.maxlevel, short.maxlist, short.maxdict, short.maxtuple, short.maxset = 3, 6, 6, 6, 6
    short.maxstring, short.maxother, short.maxlong = width, width, width
    text = short.repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def reason(error: BaseException | str) -> str:
    """An error's reason without its advice: its text up to the first '; ' outside parentheses (the advice a
    message ends with: "...; raise timeout=")."""
    text, depth = str(error), 0
    for n, char in enumerate(text):
        depth += (char == "(") - (char == ")")
        if depth == 0 and text.startswith("; ", n):
            return text[:n]
    return text
