"""Counters for arithmetic knowledge: linear systems, products, elimination over source assignments, and sampling."""
