"""``python -m rscount``: the countrss command line."""
from .cli import entry

entry()
