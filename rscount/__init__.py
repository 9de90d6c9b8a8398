"""rscount: count the reasoning shortcuts of a neuro-symbolic task before training.

>>> import rscount
>>> rscount.count("xor3").count
24
>>> rscount.audit("mnadd-half", map_class="shared").supervise_values.items
('d1=4',)
"""
import sys as _sys

# Counts are exact integers of any size (the joint class reaches millions of digits): lift Python's limit of
# 4,300 digits on int <-> str so that repr, to_dict() through json.dumps and describe() print them whole.
if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)

from . import multitask  # noqa: E402
from .api import choose_backend, count, count_problem, make_problem, make_problems, resolve_task, tasks_from_spec
from .auditing import Audit, Comparison, audit, compare
from .config import load_config
from .counters import COUNTERS, get_counter
from .dispatch import Plan, Step, plan
from .encoding import Encoding, encode
from .errors import (
                     BackendError,
                     CountTimeout,
                     DimacsError,
                     EncodingError,
                     HarnessError,
                     KnowledgeError,
                     OptionError,
                     RscountError,
                     SupportError,
                     TaskError,
)
from .problem import MAP_CLASSES, Problem, Supervision, make_supervision
from .result import ConceptMap, CountResult, JointMap
from .spec import load_spec, task_from_spec, task_from_sympy, task_from_text
from .support import Support
from .sweeps import sweep
from .task import Concept, Label, Task
from .tasks import get_task, task_names
from .version import __version__

__all__ = [
    "count", "count_problem", "make_problem", "make_problems", "tasks_from_spec", "choose_backend", "resolve_task", "plan", "Plan", "Step",
    "COUNTERS", "get_counter", "Encoding", "encode", "MAP_CLASSES", "Problem", "Supervision",
    "make_supervision", "ConceptMap", "CountResult", "JointMap", "load_spec", "task_from_spec",
    "task_from_text", "task_from_sympy", "load_config", "Support", "Concept", "Label", "Task", "get_task", "task_names",
    "RscountError", "KnowledgeError", "TaskError", "SupportError", "EncodingError", "BackendError",
    "CountTimeout", "DimacsError", "OptionError", "sweep", "HarnessError", "audit", "compare", "Audit", "Comparison",
    "multitask", "__version__",
]
