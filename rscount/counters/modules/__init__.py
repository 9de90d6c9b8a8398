"""Counters for knowledge built from modules read through a few classes: prune source splits, join class vectors."""
