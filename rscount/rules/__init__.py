"""Rules learned rather than given (ConCon's setting): the DNFs of a hypothesis class that fit the data."""
from .dnf import Hypotheses, RuleCount, count_rules, hypotheses, rule_sequence, scene_space

__all__ = ["RuleCount", "Hypotheses", "hypotheses", "count_rules", "rule_sequence", "scene_space"]
