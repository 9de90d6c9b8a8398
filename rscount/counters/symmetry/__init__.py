"""Counters that exploit the symmetries of the knowledge: label-keeping bijections, value maps, double cosets,
the joint closed form."""
