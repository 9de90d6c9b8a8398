"""Counters for knowledge over boolean concepts: symmetric functions of the number of true concepts, and one CNF."""
