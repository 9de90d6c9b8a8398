"""Knowledge from files: task specs, rsbench generator configs, DIMACS (and the gates hidden in it)."""
