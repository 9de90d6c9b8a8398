"""The knowledge language: expressions, their parser and semantics, sympy, and the circuit they compile to."""
