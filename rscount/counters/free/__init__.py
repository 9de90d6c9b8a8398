"""Counters for the free class alone: vectors.py (few support vectors, their local maps joined)."""
