"""rscount: count the reasoning shortcuts of a neuro-symbolic task before training.

>>> import rscount
>>> rscount.count("xor3").count
24
>>> rscount.audit("mnadd-half", map_class="shared").supervise_values.items
('d1=4',)
"""
import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import sys as _sys

# Counts are exact integers of any size (the joint class reaches millions of digits): lift Python's limit of
# 4,300 digits on int <-> str so that repr, to_dict() through json.dumps and describe() print them whole.
if hasattr(_sys, "set_int_max_str_digits"):
    _sys.set_int_max_str_digits(0)

_MOVED = {  # module paths before the stage folders (0.1): they still import, as the same modules
    "children": "runtime.children", "circuit": "language.circuit", "cluster": "runtime.cluster",
    "compiler": "language.compiler", "config": "readers.rsbench", "dimacs": "readers.dimacs",
    "dispatch": "planning.dispatch", "encoding": "problems.encoding", "execute": "planning.execute",
    "export": "tasks.export", "headspace": "heads.space", "lazy": "runtime.lazy",
    "limits": "runtime.limits", "logic": "language.logic", "multitask": "planning.multitask",
    "notebook": "results.notebook", "output": "files.writing", "problem": "problems.problem",
    "progress": "runtime.progress", "quotient": "problems.quotient", "result": "results.count",
    "semantics": "language.semantics", "several": "problems.union", "spec": "readers.spec",
    "split": "problems.split", "support": "model.support", "symmetry": "problems.interchange",
    "sympy_bridge": "language.sympy_bridge", "task": "model.task", "textfiles": "files.reading",
    "tseitin": "readers.tseitin", "unions": "runtime.unions",
}


class _Moved(_abc.MetaPathFinder, _abc.Loader):
    """``import rscount.several`` (a path before the stage folders) gives rscount.problems.union itself."""

    def find_spec(self, name, path=None, target=None):
        head, _, rest = name.partition(".")[2].partition(".")
        if name.startswith("rscount.") and head in _MOVED:
            return _util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        head, _, rest = spec.name.partition(".")[2].partition(".")
        return _importlib.import_module("rscount." + _MOVED[head] + ("." + rest if rest else ""))

    def exec_module(self, module):
        pass


_sys.meta_path.append(_Moved())

from .api import choose_backend, count, count_problem, make_problem, make_problems, resolve_task, tasks_from_spec
from .auditing import Audit, Comparison, audit, compare
from .counters import COUNTERS, get_counter
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
from .model.support import Support
from .model.task import Concept, Label, Task
from . import rules
from .planning import multitask
from .planning.dispatch import Plan, Step, plan
from .problems.encoding import Encoding, encode
from .problems.problem import MAP_CLASSES, Problem, Supervision, make_supervision
from .readers.problog import task_from_problog
from .readers.rsbench import load_config
from .readers.spec import load_spec, task_from_spec, task_from_sympy, task_from_text
from .readers.tabular import task_from_function, task_from_table
from .results.count import ConceptMap, CountResult, JointMap
from .sweeps import sweep
from .files.shipped import examples
from .tasks import get_task, task_names
from .tasks.named import tasks_named
from .version import __version__

__all__ = [
    "count", "count_problem", "make_problem", "make_problems", "tasks_from_spec", "choose_backend", "resolve_task", "plan", "Plan", "Step",
    "COUNTERS", "get_counter", "Encoding", "encode", "MAP_CLASSES", "Problem", "Supervision",
    "make_supervision", "ConceptMap", "CountResult", "JointMap", "load_spec", "task_from_spec",
    "task_from_text", "task_from_sympy", "load_config", "Support", "Concept", "Label", "Task", "get_task", "task_names",
    "RscountError", "KnowledgeError", "TaskError", "SupportError", "EncodingError", "BackendError",
    "CountTimeout", "DimacsError", "OptionError", "sweep", "HarnessError", "audit", "compare", "Audit", "Comparison",
    "multitask", "task_from_problog", "task_from_function", "task_from_table", "__version__", "rules",
    "tasks_named", "examples",
]
