"""Learned heads after a count: the count up to renaming predicted values, and the heads of the intended map."""
from .renaming import MAX_TERMS, owners, up_to_renaming
from .space import MAX_HEADS, MAX_VECTORS, HeadSpace, head_space

__all__ = ["up_to_renaming", "owners", "MAX_TERMS", "HeadSpace", "head_space", "MAX_VECTORS", "MAX_HEADS"]
