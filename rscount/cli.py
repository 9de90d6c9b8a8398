"""``countrss``: a thin command line over :mod:`rscount`.

    countrss --task xor3 --exact
    countrss --knowledge "a ^ b" --support "1,1" --enumerate 5
    countrss --cnf phi.cnf --approx --epsilon 0.5 --delta 0.1 --json
"""
from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import re
import sys
import threading
import time
import warnings
from typing import Sequence

from . import api
from .counters import COUNTERS
from .errors import BackendError, CountTimeout, RscountError, brief
from .files.writing import check_output_folder, check_output_path, pyplot, write_figure
from .planning.multitask import count_tasks
from .problems.encoding import encode
from .problems.problem import INFERENCES, MAP_CLASSES
from .problems.union import join
from .readers.dimacs import format_dimacs, read_dimacs, task_from_cnf, write_atomic
from .readers.rsbench import load_config
from .readers.spec import task_from_text
from .results.count import format_count
from .runtime.limits import Terminated, check_megabytes, check_seed, check_seconds, memory_limit, terminating, time_limit
from .runtime.progress import HEARTBEAT, display
from .tasks.named import tasks_named
from .tasks import get_task, task_names
from .tasks.export import export_library
from .version import __version__

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        raise _UsageError(message)


class _UsageError(Exception):
    pass


class _InOrder(argparse._AppendAction):
    """An append that also notes (option, value) in ``namespace.order``: tasks and supports in command-line order."""

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, values, option_string)
        order = getattr(namespace, "order", None) or []
        namespace.order = order + [(self.dest, values)]


def add_task_options(p: argparse.ArgumentParser, many: bool = False, title: str | None = None):
    """The ways to name a task; shared by ``countrss``, ``countrss train`` and ``countrss audit`` (``many``:
    repeatable: several tasks over shared concepts, or designs to compare)."""
    src = p.add_argument_group(title or ("task (pick one)" if not many else "designs (one, or several to compare)"))
    again = {"action": _InOrder} if many else {}
    src.add_argument("--task", **again, help="library task: xor3, and4, or5, mnadd, mnlogic-random, ... "
                     "(see --list-tasks)")
    src.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help="task parameter (repeatable)")
    src.add_argument("--spec", **again, metavar="FILE", help="task spec file (YAML/JSON, see knowledge/)")
    src.add_argument("--config", **again, metavar="FILE", help="rsbench data-generator YAML (its in-distribution "
                     "combinations are the support)")
    src.add_argument("--cnf", **again, metavar="FILE",
                     help="DIMACS CNF: variables are boolean concepts, label = formula holds")
    src.add_argument("--knowledge", action=_InOrder, metavar="TEXT",
                     help="knowledge text, one per label (repeatable), e.g. 'a ^ b ^ c'")
    src.add_argument("--concepts", metavar="SPEC", help="concepts for --knowledge: 'a,b,d=0..9,col={red,blue}' "
                     "(with --table: the concept columns, or their domains)")
    src.add_argument("--problog", **again, metavar="FILE", help="a (Deep)ProbLog program: its neural predicates are "
                     "the concepts, --query the labels (needs the problog extra)")
    src.add_argument("--query", action="append", metavar="ATOM", help="with --problog: the query, e.g. "
                     "'addition(a, b, Z)' (its free variables are the labels; repeatable)")
    src.add_argument("--as-concepts", action="append", default=[], metavar="NAME", help="with --problog: read "
                     "these probabilistic facts or annotated disjunctions as concepts (repeatable)")
    src.add_argument("--table", **again, metavar="FILE", help="a table (CSV or Parquet) of concept vectors and labels, "
                     "one row per vector")
    src.add_argument("--labels", metavar="COLS", help="with --table: the label columns (default: the last)")
    if many:
        src.add_argument("--knowledge-tasks", action="store_true", help="each --knowledge is a task of its own "
                     "(several tasks over the --concepts), not one label of one task")
    src.add_argument("--groups", metavar="G;G", help="concepts sharing one classifier (class shared), e.g. "
                     "'d1,d2;s1,s2'; without it, shared reads the task's groups, or one per domain")
    return src


def add_support_options(p: argparse.ArgumentParser) -> None:
    """Support and concept-supervision options; shared by ``countrss`` and ``countrss train``."""
    sup = p.add_argument_group("support and supervision")
    sup.add_argument("--support", metavar="SUPPORT", action=_InOrder,
                     help="'exhaustive' (default unless the task has its own), 'by-label:N' (N vectors drawn "
                     "label first, as rsbench's generators do) or vectors '1,1,1;0,1,0'; with several tasks "
                     "one for all, or repeated once per task in their order")
    sup.add_argument("--subsample", metavar="F|N", help="keep a seeded fraction or count of the support")
    sup.add_argument("--support-file", metavar="PATH", action="append", help="support vectors from CSV or a JSON "
                     "list (with several tasks: once for all, or once per task in their order)")
    sup.add_argument("--seed", type=int, default=0, help="seed for --subsample and --concept-sup (default 0)")
    sup.add_argument("--concept-sup", metavar="F|N", help="fraction or count of support vectors with observed concepts")
    sup.add_argument("--supervise", action="append", default=[], metavar="NAME[=VALUE]",
                     help="a concept (or one value of it) supervised wherever it appears (repeatable)")


def add_status_options(group, what: str = "status lines") -> None:
    """--progress and --quiet, read by :func:`_status`."""
    group.add_argument("--progress", action="store_true", help=f"{what} on stderr (default: when a terminal)")
    group.add_argument("--quiet", action="store_true", help="no status lines")


def _task_parser(prog: str, title: str, description: str) -> "_Parser":
    """A subcommand's parser with the task options (several tasks) and the support options."""
    p = _Parser(prog=prog, description=description)
    add_task_options(p, many=True, title=title)
    add_support_options(p)
    return p


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="countrss [count]", description="Count the optimal concept maps (and so the reasoning "
                "shortcuts) of a neuro-symbolic task before any model is trained. Subcommands: count (the "
                "default), audit ('countrss audit --help': what a model may confuse and the cheapest fix), train "
                "('countrss train --help': train models and check them against the count), sweep ('countrss "
                "sweep --help': grids of counts, audits and training runs on Dask), rules ('countrss rules "
                "--help': when the rule itself is learned, as in ConCon: the rules of a class that fit).")
    p.add_argument("--version", action="store_true", help="print the version and exit")
    src = add_task_options(p, many=True, title="task (one, or several over shared concepts: repeat --task, --spec, "
                                                "--config or --cnf)")
    src.add_argument("--list-tasks", action="store_true", help="list the library tasks and exit")
    src.add_argument("--export-dimacs", metavar="DIR", help="write the knowledge of every library task "
                     "as DIMACS into DIR (the repository's dimacs/) and exit")
    add_support_options(p)
    how = p.add_argument_group("counting")
    how.add_argument("--map-class", default="complete", choices=list(MAP_CLASSES), help="default: complete")
    add_inference_option(how)
    mode = how.add_mutually_exclusive_group()
    mode.add_argument("--exact", action="store_true", help="fastest exact backend (default)")
    mode.add_argument("--approx", action="store_true", help="(epsilon, delta) estimate: elimination plus sampling "
                      "for arithmetic knowledge (exact where it can), else ApproxMC")
    how.add_argument("--backend", choices=list(COUNTERS), help="pick the backend yourself (pyeda-reference needs "
                     "the bench extra: pip install 'rscount[bench]'; the others come with rscount)")
    how.add_argument("--explain", action="store_true", help="print the plan (which counters, in which order, "
                     "why), then the count and which step gave it")
    how.add_argument("--epsilon", type=float, default=0.8, help="ApproxMC tolerance (default 0.8)")
    how.add_argument("--delta", type=float, default=0.2, help="ApproxMC confidence 1-delta (default 0.2)")
    how.add_argument("--timeout", type=float, metavar="SECONDS", help="give up after this long (exit 3)")
    how.add_argument("--memory-limit", type=int, metavar="MB", help="memory limit for native backends")
    out = p.add_argument_group("output")
    out.add_argument("--enumerate", type=int, metavar="N", help="also print up to N optimal maps")
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--emit-dimacs", metavar="PATH", help="write the encoding as DIMACS with 'c p show'")
    out.add_argument("--plot", metavar="FILE", help="draw the count against the size of its map class as PNG or "
                     "SVG (needs the plot extra: pip install 'rscount[plot]')")
    add_status_options(out)
    return p


def _params(items: Sequence[str]) -> dict:
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise _UsageError(f"--param {item!r} must look like KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _entry_task(args, kind: str, path: str):
    """The task of --problog FILE (with --query, --as-concepts) or --table FILE (with --concepts, --labels)."""
    from .readers.entries import task_from_entry
    if kind == "problog":
        if not args.query:
            raise _UsageError("--problog needs --query, e.g. --query 'addition(a, b, Z)'")
        return task_from_entry("problog", {"file": path, "query": args.query, "as_concepts": args.as_concepts})
    concepts = args.concepts if args.concepts and "=" in args.concepts else (
        [c.strip() for c in args.concepts.split(",") if c.strip()] if args.concepts else None)
    labels = [c.strip() for c in args.labels.split(",") if c.strip()] if args.labels else None
    return task_from_entry("table", {"file": path, "concepts": concepts, "labels": labels})


def _designs(args, none: str = "name a design: --task, --spec, --config, --cnf or --knowledge (repeat to compare)") -> list:
    """Every task the command names, in the order of the option kinds."""
    _check_companions(args)
    tasks: list = []
    groups: list = []  # the tasks each task option gave (a spec may give several), then the supports after it
    nth = 0
    for kind, value in getattr(args, "order", None) or []:
        if kind == "support":
            groups.append(("support", value))
            continue
        before = len(tasks)
        if kind == "task":
            tasks += tasks_named(value, _params(args.param))
        elif kind == "spec":
            tasks += api.tasks_from_spec(value)
        elif kind in ("problog", "table"):
            tasks.append(_entry_task(args, kind, value))
        elif kind == "config":
            tasks.append(load_config(value))
        elif kind == "cnf":
            tasks.append(task_from_cnf(read_dimacs(value), name=f"cnf:{value}"))
        elif kind == "knowledge" and getattr(args, "knowledge_tasks", False):
            nth += 1
            tasks.append(task_from_text([value], args.concepts, name=f"k{nth}"))
        elif kind == "knowledge" and not nth:
            nth += 1
            tasks.append(task_from_text(args.knowledge, args.concepts))
        if len(tasks) > before:
            groups.append(("tasks", range(before, len(tasks))))
    args.placed = _placed(args, tasks, groups)
    if not tasks:
        raise _UsageError(none)
    return tasks


def _placed(args, tasks: list, groups: list) -> list | None:
    """Per task, the --support written after it (before the next task); None where the supports all come
    before or after every task (one for all, or one per task in their order)."""
    kinds = [k for k, _ in groups]
    if "support" not in kinds or len(tasks) < 2:
        return None
    first, last = kinds.index("support"), len(kinds) - 1 - kinds[::-1].index("support")
    inside = any(k == "tasks" for k in kinds[first:last]) or ("tasks" in kinds[:first] and "tasks" in kinds[last:])
    if not inside:
        return None
    out: list = [None] * len(tasks)
    owner = None
    for kind, value in groups:
        if kind == "tasks":
            owner = value
        elif owner is None or out[owner[0]] is not None:
            raise _UsageError("with several tasks, write one --support after each task (in command-line order), "
                              "or the supports together: one for all, or one per task in their order")
        else:
            for t in owner:
                out[t] = value
    if None in out:
        raise _UsageError(f"task {tasks[out.index(None)].name} has no --support after it; write one --support after "
                          "each task, or the supports together (one for all, or one per task in their order)")
    return out


def _check_companions(args) -> None:
    """Options that only mean something beside another: refused alone, in one line."""
    if args.concepts and not (args.knowledge or getattr(args, "table", None)):
        raise _UsageError("--concepts goes with --knowledge or --table")
    if args.param and not args.task:
        raise _UsageError("--param goes with --task")
    if (args.query or args.as_concepts) and not args.problog:
        raise _UsageError("--query and --as-concepts go with --problog")
    if args.labels and not args.table:
        raise _UsageError("--labels goes with --table")


def _one_support(args):
    """The --support of a command about one task (given at most once)."""
    if args.support and len(args.support) > 1:
        raise _UsageError("--support is given once here (it is repeated once per task only with several tasks)")
    return args.support[0] if args.support else None


def _support_files(args, n: int):
    """--support-file: one for all tasks, or one per task of several in their order."""
    files = args.support_file or []
    if len(files) > 1 and len(files) != n:
        raise _UsageError(f"--support-file is given {len(files)} times for {n} task{'s' if n > 1 else ''}: give it "
                          f"once{' (for all tasks) or once per task' if n > 1 else ''}")
    return files[0] if len(files) == 1 else (files or None)


def _problems(args, tasks: list, map_class: str) -> list:
    """One problem per task of several over shared concepts: --support once for all or once per task."""
    placed = getattr(args, "placed", None)
    return api.make_problems(tasks, map_class=map_class, support=placed if placed else list(args.support) if
                             args.support and len(args.support) > 1 else _one_support(args), subsample=args.subsample, seed=args.seed,
        support_file=_support_files(args, len(tasks)), concept_sup=args.concept_sup, supervise=args.supervise,
        groups=args.groups, inference=getattr(args, "inference", "knowledge"))


def _problem(args, task, map_class: str):
    """The problem the support, supervision and group options describe for ``task``."""
    return api.make_problem(task, map_class=map_class, support=_one_support(args), subsample=args.subsample,
                            seed=args.seed, support_file=_support_files(args, 1), concept_sup=args.concept_sup,
                            supervise=args.supervise, groups=args.groups,
                            inference=getattr(args, "inference", "knowledge"))


def add_inference_option(group) -> None:
    group.add_argument("--inference", default="knowledge", choices=list(INFERENCES),
                       help="who gives the labels: knowledge (default: the model reasons with K, as DeepProbLog "
                            "and LTN) or learned (the model learns its label head, as a CBM or Semantic Loss; a "
                            "map counts when it sends no two support vectors with different labels to one "
                            "prediction)")


def _list_tasks(out) -> None:
    for name in task_names():
        try:
            task = get_task(name)
        except RscountError as exc:  # e.g. cnf needs a file
            print(f"{name}: {str(exc).split(';')[0]}", file=out)
            continue
        params = ", ".join(f"{k}={v}" for k, v in task.params)
        support = "exhaustive" if task.default_support is None else f"{len(task.default_support)} vectors"
        family = re.fullmatch(r"(xor|and|or)[0-9]+", name)
        also = f" (also {family.group(1)}K for K from 2 to 64)" if family else ""
        print(f"{name}{also}: {task.description or task.name}", file=out)
        print(f"    {task.summary().split(': ', 1)[1]}; support {support} of {task.space_size}"
              + (f"; params {params}" if params else ""), file=out)


def build_train_parser() -> argparse.ArgumentParser:
    p = _task_parser("countrss train", "task (one, or several trained in sequence)",
                     "Train models on labels only (data rendered from the "
                     "support, no downloads) and check whether each learned concept map is one of the "
                     "optimal maps counted for the task, support and map class. Several tasks (sharing concepts and "
                     "knowledge) train in sequence (--regime), each step read against the counts. Needs the train "
                     "extra.")
    m = p.add_argument_group("model and training")
    m.add_argument("--regime", choices=["naive", "cumulative", "joint"],
                   help="several tasks: naive (each task's data in turn), cumulative (tasks 1..t at step t) or "
                        "joint (all at once); default naive")
    m.add_argument("--model", default="dpl", choices=["dpl", "sl", "ltn", "nn", "cbm"],
                   help="dpl, sl (Semantic Loss), ltn, nn or cbm (default: dpl)")
    m.add_argument("--extractor", default="separate", choices=["separate", "shared", "joint"],
                   help="one network per concept (default), one per concept group, or one over the whole input")
    m.add_argument("--map-class", choices=list(MAP_CLASSES),
                   help="class to check against (default: the extractor's: separate -> disentangled, "
                   "shared -> shared, joint -> joint)")
    m.add_argument("--seeds", default="0", metavar="S,S,...", help="training seeds (default 0)")
    m.add_argument("--epochs", type=int, default=30, help="default 30")
    m.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (default 1e-3)")
    m.add_argument("--batch-size", type=int, default=64)
    m.add_argument("--weight-decay", type=float, default=0.0, help="Adam weight decay (default 0)")
    m.add_argument("--width", type=int, default=64, help="hidden units of the concept extractor (default 64)")
    m.add_argument("--restarts", type=int, default=1, metavar="R",
                   help="initialisations per seed, at most: a model that does not fit the training labels "
                   "starts again; the best by validation mF1(Y) is kept (default 1)")
    m.add_argument("--n-train", type=int, default=2000, help="training examples (default 2000)")
    m.add_argument("--cover-train", action="store_true",
                   help="put every support vector in the training split (else drawn at random)")
    m.add_argument("--n-val", type=int, default=500)
    m.add_argument("--n-test", type=int, default=1000)
    m.add_argument("--ood", type=int, default=0, metavar="N", help="also test on N vectors outside the support")
    m.add_argument("--inputs", choices=["digits", "shapes", "embeddings"], help="default: by task")
    m.add_argument("--tnorm", default="product", choices=["product", "goedel", "lukasiewicz"],
                   help="LTN t-norm (default product)")
    m.add_argument("--p", type=float, default=2.0, help="LTN p-mean aggregation exponent (default 2)")
    m.add_argument("--concept-weight", type=float, default=1.0, help="weight of the concept-supervision loss")
    m.add_argument("--entropy", type=float, default=0.0, metavar="W_H",
                   help="weight of rsbench's entropy loss on the concepts (Eq. 19-20; default 0)")
    m.add_argument("--threads", type=int, metavar="N", help="torch threads per training process")
    m.add_argument("--device", default="cpu", choices=["cpu", "cuda"], help="default: cpu")
    m.add_argument("--workers", type=int, default=1, metavar="N",
                   help="train seeds on N Dask worker processes, one torch thread each (default 1; more "
                        "needs the extra sweep)")
    m.add_argument("--count-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="time for counting the optimal maps (default 120)")
    m.add_argument("--timeout", type=float, metavar="SECONDS", help="time for the whole run (exit 3 past it)")
    m.add_argument("--memory-limit", type=int, metavar="MB", help="memory limit (exit 3 when reached)")
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--out", metavar="DIR", help="write report.json and confusion matrices (.json, .png)")
    add_status_options(out, "per-epoch status")
    return p


def build_audit_parser() -> argparse.ArgumentParser:
    p = _task_parser("countrss audit", "task (one, several over shared concepts, or designs to --compare)",
                     "Audit a task design before any data is collected: what "
                     "a model may confuse (per concept and value, with the number of optimal maps doing it) and the "
                     "cheapest fix (supervision, data, extractor, labels, another task), each with the count it "
                     "leads to. Name several tasks to audit them together (tasks over shared concepts), or add "
                     "--compare to audit each design alone and set them side by side.")
    how = p.add_argument_group("audit")
    how.add_argument("--map-class", default="complete", choices=list(MAP_CLASSES), help="default: complete")
    add_inference_option(how)
    how.add_argument("--compare", action="store_true", help="audit each named design alone, side by side "
                     "(without it, several named tasks are audited together)")
    how.add_argument("--candidate-task", action="append", default=[], metavar="TASK",
                     help="a task that could be added (library name or spec file; repeatable): the audit counts "
                     "the tasks with each candidate added")
    how.add_argument("--all-concepts", action="store_true", help="rank and fix the concepts no label reads too "
                     "(by default, under disentangled and shared, they are named apart: any model may confuse them)")
    how.add_argument("--curve", action="store_true", help="also count random supports of growing size "
                     "(how much data), over --seeds")
    how.add_argument("--sizes", metavar="N,N,...", help="support sizes for --curve (default: doubling up to "
                     "the space, or 4x the design's support)")
    how.add_argument("--seeds", default="0,1,2,3,4", metavar="S,S,...", help="seeds per size for --curve "
                     "(default 0,1,2,3,4)")
    how.add_argument("--draw", default="space", choices=["space", "by-label"],
                     help="--curve draws vectors uniformly from the space (default) or label first (rsbench)")
    how.add_argument("--workers", type=int, metavar="N", help="Dask worker processes for --curve (default: the "
                     "cores with the extra sweep installed, else 1)")
    how.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                     help="time for each design's audit, shared out between its steps (default 60; exit 3 "
                     "when a design's audit runs past it)")
    how.add_argument("--memory-limit", type=int, metavar="MB", help="memory limit (exit 3 when reached)")
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print one JSON object")
    out.add_argument("--plot", metavar="FILE", help="draw the relation (and the curve) as PNG or SVG (needs the plot "
                     "extra: pip install 'rscount[plot]')")
    out.add_argument("--html", metavar="FILE", help="write the audit as one self-contained HTML page to share "
                     "(design, headline, heat maps, fixes, curve; figures inline with the plot extra)")
    add_status_options(out)
    return p


MAX_WORKERS = 1024


def _check_memory(mb: int | None) -> None:
    if mb is not None and mb <= 0:
        raise _UsageError("--memory-limit must be a positive number of MB")
    check_megabytes(mb, "--memory-limit")


def _check_seed(args) -> None:
    check_seed(args.seed, "--seed")


def _check_seconds(seconds: float | None, flag: str) -> None:
    if seconds is not None and seconds <= 0:
        raise _UsageError(f"{flag} must be positive")
    check_seconds(seconds, flag)


def _status(args, err, prog: str):
    """The command's one progress display (closed by :func:`main`): live on a terminal, a line per step under
    --progress, else a line every so often while the command runs; nothing under --quiet."""
    hint = None
    if getattr(args, "timeout", 0) is None:  # a count or an audit without a limit: say how to bound it
        hint = ("no --timeout was given, so it runs until done; --timeout SECONDS stops it (exit 3)"
                + (", and --approx gives bounds or an estimate within it" if hasattr(args, "approx") else ""))
    shown = display(prog, args.progress, err, quiet=args.quiet and not args.progress, hint=hint)
    if shown is not None:
        _OPEN.append(shown)
    return shown


_OPEN: list = []  # displays to close when the command ends


def _ints(text: str, flag: str) -> list:
    words = [s.strip() for s in text.split(",") if s.strip()]
    if not all(re.fullmatch(r"-?[0-9]{1,19}", w) for w in words):
        raise _UsageError(f"{flag} {brief(text)}: give whole numbers (up to 19 digits) separated by commas, "
                          f"e.g. 1,2,3")
    if not words:
        raise _UsageError(f"{flag} needs at least one number")
    return [int(w) for w in words]


def _audit(argv: Sequence[str], out, err) -> int:
    from . import auditing
    args = build_audit_parser().parse_args(argv)
    _check_seconds(args.timeout, "--timeout")
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise _UsageError(f"--workers must be at least 1 and at most {MAX_WORKERS}")
    sizes = _ints(args.sizes, "--sizes") if args.sizes else None
    if sizes and min(sizes) < 1:
        raise _UsageError("--sizes must be positive numbers of vectors")
    seeds = _ints(args.seeds, "--seeds")
    if min(seeds) < 0:
        raise _UsageError(f"--seeds must be whole numbers from 0 to 2^63 - 1, got {min(seeds)}")
    _check_seed(args)
    if args.plot:
        check_output_path(args.plot, ("png", "svg"))
        pyplot()  # the extra is there before the work starts
    if args.html:
        check_output_path(args.html, ("html", "htm"))
    _check_memory(args.memory_limit)
    progress = _status(args, err, "countrss")
    audits = []
    began = time.monotonic()
    named = max(1, sum(kind != "support" for kind, _ in getattr(args, "order", None) or []))
    with time_limit(args.timeout * named, f"the audit (--timeout {args.timeout:g} s a design, building included)"):
        designs = _designs(args)
    built = (time.monotonic() - began) / max(len(designs), 1)  # each design's share of the building
    if args.compare and len(designs) < 2:
        raise _UsageError("--compare needs two or more designs")
    if args.compare and args.candidate_task:
        raise _UsageError("--candidate-task adds a task to the tasks audited together; --compare audits designs "
                          "one by one: use one or the other")
    if len(designs) > 1 and not args.compare or args.candidate_task:
        if args.curve:
            raise _UsageError("--curve audits one design (or --compare several); not several tasks together")
        with memory_limit(args.memory_limit, "the audit"):
            problems = _problems(args, designs, args.map_class)
            candidates = [api.make_problem(t, map_class=args.map_class, inference=args.inference, supervise=[
                s for s in args.supervise if s.partition("=")[0].strip() in {c.name for c in t.concepts}])
                for t in _candidate_tasks(args.candidate_task, _params(args.param))]  # as the user gets them: supervised alike
            shown = auditing.audit_tasks(problems, candidates, timeout=args.timeout, progress=progress,
                                         all_concepts=args.all_concepts)
        if args.plot:
            shown.plot(args.plot)
        if args.html:
            shown.to_html(args.html)
        print(json.dumps(shown.to_dict()) if args.json else shown, file=out)
        return 0
    with memory_limit(args.memory_limit, "the audit"):
        for task in designs:
            left = max(args.timeout - built, 0.5)
            with time_limit(left, f"the audit of {task.name} (building included)", shown=args.timeout):
                problem = _problem(args, task, args.map_class)
                audits.append(auditing.audit_problem(problem, curve=args.curve, sizes=sizes, seeds=seeds,
                                                     draw=args.draw, workers=args.workers, timeout=left,
                                                     progress=progress, all_concepts=args.all_concepts))
    shown = audits[0] if len(audits) == 1 else auditing.Comparison(tuple(audits))
    if args.plot:
        if len(audits) == 1:
            audits[0].plot(args.plot)
        else:
            write_figure(_compare_figure(audits), args.plot)
    if args.html:
        shown.to_html(args.html)
    print(json.dumps(shown.to_dict()) if args.json else shown, file=out)
    return 0


def _support_rows(args, tasks: list) -> int:
    """The most support vectors any one of the tasks trains on."""
    cls = args.map_class or "disentangled"
    problems = _problems(args, tasks, cls) if len(tasks) > 1 else [_problem(args, tasks[0], cls)]
    return max(p.support.length for p in problems)


def _candidate_tasks(names: list, params: dict) -> list:
    """The tasks --candidate-task names: library tasks (with the --param of the tasks, where they take them), or
    task files (spec, rsbench config, DIMACS)."""
    out = []
    for name in names:
        try:
            out += tasks_named(name, params)
        except RscountError:
            if not params:
                raise
            out += tasks_named(name)
    return out


def _compare_figure(audits: list):
    from .auditing.curve import plot_curve
    plt = pyplot()
    with_curve = [a for a in audits if a.curve is not None]
    fig, axes = plt.subplots(1, max(len(with_curve), 1), figsize=(5 * max(len(with_curve), 1), 3.6), squeeze=False)
    for ax, a in zip(axes[0], with_curve):
        plot_curve(a.curve, ax, a.result.task)
    if not with_curve:
        names = [a.result.task for a in audits]
        axes[0][0].bar(range(len(audits)), [a.count for a in audits])
        axes[0][0].set_yscale("log")
        axes[0][0].set_xticks(range(len(audits)), names, rotation=20)
        axes[0][0].set_ylabel("optimal maps")
    fig.tight_layout()
    return fig


EXTRACTOR_CLASS = {"separate": "disentangled", "shared": "shared", "joint": "joint"}


def _train(argv: Sequence[str], out, err) -> int:
    args = build_train_parser().parse_args(argv)
    for name in ("epochs", "n_train", "n_val", "n_test", "batch_size", "workers", "restarts", "width"):
        if getattr(args, name) < 1:
            raise _UsageError(f"--{name.replace('_', '-')} must be at least 1")
    seeds = _ints(args.seeds, "--seeds")
    _check_seed(args)
    _check_seconds(args.timeout, "--timeout")
    _check_seconds(args.count_timeout, "--count-timeout")
    if not args.weight_decay >= 0:
        raise _UsageError("--weight-decay must be 0 or more")
    if args.threads is not None and args.threads < 1:
        raise _UsageError("--threads must be at least 1")
    if not 1 <= args.workers <= MAX_WORKERS:
        raise _UsageError(f"--workers must be at least 1 and at most {MAX_WORKERS}")
    _check_memory(args.memory_limit)
    if args.out:
        check_output_folder(args.out)
    try:
        from .harness import TrainConfig, run, save
    except ImportError as exc:
        raise BackendError(f"countrss train needs the train extra ({exc.name} is missing): "
                           f"pip install -e '.[train]'") from None
    progress = _status(args, err, "countrss train")
    began = time.monotonic()
    with time_limit(args.timeout, "training (building the task included)"):
        tasks = _designs(args, "name a task: --task, --spec, --config, --cnf or --knowledge (repeat --task, --spec, "
                               "--config or --cnf to train several in sequence)")
        covered = _support_rows(args, tasks) if args.cover_train else 0
    cls = args.map_class or EXTRACTOR_CLASS[args.extractor]
    config = TrainConfig(model=args.model, extractor=args.extractor, epochs=args.epochs, batch_size=args.batch_size,
                         lr=args.lr, n_train=args.n_train, n_val=args.n_val, n_test=args.n_test, n_ood=args.ood,
                         inputs=args.inputs, tnorm=args.tnorm, p=args.p, concept_weight=args.concept_weight,
                         entropy=args.entropy, threads=args.threads, device=args.device,
                         weight_decay=args.weight_decay, restarts=args.restarts, width=args.width,
                         cover_train=args.cover_train)
    if args.regime and len(tasks) < 2:
        raise _UsageError("--regime orders the training of several tasks; name two or more (repeat --task)")
    if args.cover_train and args.n_train < covered:
        raise _UsageError(f"--cover-train puts every support vector in the training split: raise --n-train to at "
                          f"least {covered} (the support's size)")
    timeout = None if args.timeout is None else max(args.timeout - (time.monotonic() - began), 0.1)
    if len(tasks) > 1:
        if args.out or args.workers > 1:
            raise _UsageError("several tasks in sequence train in this process and print their report (no --out, "
                              "no --workers yet)")
        from .harness.sequence import run_sequence
        with memory_limit(args.memory_limit, "training"), time_limit(timeout, "training", shown=args.timeout):
            report = run_sequence(_problems(args, tasks, cls), args.regime or "naive", seeds=seeds, config=config,
                                  count_timeout=args.count_timeout, progress=progress)
        print(json.dumps(report.to_dict()) if args.json else report, file=out)
        return 0
    problem = _problem(args, tasks[0], cls)
    with memory_limit(args.memory_limit, "training"), time_limit(timeout, "training", shown=args.timeout):
        report = run(problem, seeds=seeds, config=config, count_timeout=args.count_timeout, progress=progress,
                     workers=args.workers)
        if args.out:
            save(report, args.out)
    print(json.dumps(report.to_dict()) if args.json else report, file=out)
    return 0


def _count(argv: Sequence[str], out, err) -> int:
    began = time.perf_counter()
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"countrss {__version__}", file=out)
        return 0
    if args.list_tasks:
        _list_tasks(out)
        return 0
    if args.export_dimacs:
        for path in export_library(args.export_dimacs):
            print(path, file=out)
        return 0
    estimating = [name for name, counter in COUNTERS.items() if not counter.exact]
    if args.backend and args.approx and args.backend not in estimating:
        raise _UsageError(f"--approx uses {' or '.join(estimating)}; it cannot be combined with --backend "
                          f"{args.backend}")
    if args.enumerate is not None and args.enumerate < 0:
        raise _UsageError("--enumerate takes a non-negative number of maps")
    _check_seconds(args.timeout, "--timeout")
    if not (0 < args.epsilon < math.inf and 0 < args.delta < 1):
        raise _UsageError(f"--epsilon must be > 0 and --delta in (0, 1), got {args.epsilon:g} and {args.delta:g}")
    _check_seed(args)
    _check_memory(args.memory_limit)
    progress = _status(args, err, "countrss")
    if args.emit_dimacs:
        if args.map_class == "joint":
            raise _UsageError("--emit-dimacs writes the CNF encoding, and class joint has none (it is counted in "
                              "closed form); choose another --map-class")
        check_output_path(args.emit_dimacs)
    if args.plot:
        check_output_path(args.plot, ("png", "svg"))
        pyplot()  # the extra is there before the work starts
    try:
        result, problem, maps, renamed, head = _counted(args, progress, began)
    except CountTimeout as exc:
        if args.timeout is None:
            raise
        done = f"; finished before it: {', '.join(exc.finished)}" if exc.finished else ""
        where = str(exc).split(";")[0].partition(" while ")[2]
        then = ("raise --timeout, or a larger --epsilon / --delta" if args.approx  # estimating already
                else "raise --timeout or try --approx")
        raise CountTimeout(f"{'estimating' if args.approx else 'counting'} timed out after {args.timeout:g} s "
                           f"(--timeout is the whole command's time){' while ' + where if where else ''}{done}; "
                           f"{then}") from None
    result = dataclasses.replace(result, command_seconds=time.perf_counter() - began)
    if args.plot:
        result.plot(args.plot)
    if args.explain and not args.json:
        print(result.explain(), file=out)
    if args.json:
        data = result.to_dict()
        if args.enumerate is not None:
            data["maps"] = maps
        if renamed is not None:
            data["up_to_renaming"] = renamed[0]
        if head is not None:
            data["head"] = dataclasses.asdict(head[0]) if head[0] is not None else {"error": head[1]}
        print(json.dumps(data), file=out)
    else:
        print(result, file=out)
        if renamed is not None:
            value, why = renamed
            print(f"up to renaming {format_count(value) if value is not None else 'not counted: ' + why}"
                  + (" (orbits of renamings of predicted values, which a learned head absorbs)" if value else ""),
                  file=out)
        if head is not None:
            print("head          " + (f"of the intended map: {head[0].describe(problem.task)}" if head[0] is not None
                                      else f"not described: {head[1]}"), file=out)
        if maps:
            print(f"maps (first {len(maps)}):", file=out)
            for m in maps:
                print(f"  {m}", file=out)
    return 0


def _counted(args, progress, began: float) -> tuple:
    """The count command's work within its limits (the time left of --timeout): (result, problem, maps, renamed
    head)."""
    def left() -> float | None:
        return None if args.timeout is None else max(args.timeout - (time.perf_counter() - began), 0.1)
    with memory_limit(args.memory_limit, "counting"), time_limit(left(), "counting", shown=args.timeout):
        tasks = _designs(args, "name a task: --task, --spec, --config, --cnf or --knowledge (repeat --task, "
                               "--spec, --config or --cnf for several tasks over shared concepts)")
        if len(tasks) > 1:
            problems = _problems(args, tasks, args.map_class)
            problem = join(problems)
            result = count_tasks(problems, args.backend, exact=args.exact or None, approx=args.approx,
                                 epsilon=args.epsilon, delta=args.delta, timeout=left(),
                                 memory_mb=args.memory_limit, progress=progress)
        else:
            problem = _problem(args, tasks[0], args.map_class)
            try:
                result = api.count_problem(problem, args.backend, exact=args.exact or None, approx=args.approx,
                                           epsilon=args.epsilon, delta=args.delta, timeout=left(),
                                           memory_mb=args.memory_limit, progress=progress)
            except RscountError:
                if args.explain:  # the plan is what a failed count is explained by: on stderr, before the error
                    print(f"{_plan_of(args, problem)}\nno step of it counted the problem:", file=sys.stderr)
                raise
        maps = [result.show(str(m)) for m in result.maps(args.enumerate, left())] if args.enumerate else []
        renamed = _renamed(result, left())
        head = _head(result, left())
        if args.emit_dimacs:  # only once the count has succeeded: a failed run leaves the file as it was
            _emit(problem, args.emit_dimacs)
    return result, problem, maps, renamed, head


def _plan_of(args, problem):
    """The plan the count followed, its generic counters decided where that is quick."""
    try:
        return api.plan(problem, args.backend, exact=args.exact or None, approx=args.approx)
    except RscountError:
        return api.plan(problem, args.backend, exact=args.exact or None, approx=args.approx, decide_generic=False)


RENAME_SECONDS = 30.0  # time for the count up to renaming that follows a learned-head count


def _after_count(result, timeout: float | None) -> float:
    """Seconds for a step that follows a count: RENAME_SECONDS, within what ``timeout`` leaves."""
    return RENAME_SECONDS if timeout is None else min(RENAME_SECONDS, max(timeout - result.seconds, 0.1))


def _head(result, timeout: float | None):
    """(HeadSpace of the intended map or None, why not) under a learned head whose intended map is counted."""
    if result.inference == "knowledge" or not result.exact or not result.intended or result.per_task:
        return None
    try:
        return result.head_space(timeout=_after_count(result, timeout)), ""
    except RscountError as exc:
        return None, str(exc)


def _renamed(result, timeout: float | None):
    """(count up to renaming or None, why not) for a learned-head count; None for other counts."""
    if result.inference == "knowledge" or not result.exact:
        return None
    try:
        return result.up_to_renaming(_after_count(result, timeout)), ""
    except RscountError as exc:
        return None, str(exc)


def build_sweep_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="countrss sweep", description="Run a grid of counts, audits or training runs (a YAML file whose "
                "list-valued keys are crossed: tasks, map_class, support, subsample, seeds, supervise, concept_sup, "
                "backend, job) on Dask, one row per point, resuming from the output. Needs the sweep extra: "
                "pip install 'rscount[sweep]'.")
    p.add_argument("grid", metavar="GRID.yaml", help="the grid file")
    p.add_argument("--out", required=True, metavar="FILE", help="rows as .jsonl, .csv or a .parquet folder; "
                   "points already there are not run again")
    p.add_argument("--workers", type=int, metavar="N", help="worker processes of the local cluster (default: the "
                   "cores)")
    p.add_argument("--scheduler", metavar="ADDRESS", help="an existing Dask cluster, e.g. tcp://HOST:8786")
    p.add_argument("--dashboard", action="store_true", help="serve Dask's dashboard for the local cluster on a free "
                   "port and print its address (needs bokeh); an existing cluster's is printed anyway")
    add_status_options(p, "a progress bar")
    return p


def _sweep(argv: Sequence[str], out, err) -> int:
    from .sweeps import load_grid, summary, sweep
    args = build_sweep_parser().parse_args(argv)
    if args.workers is not None and not 1 <= args.workers <= MAX_WORKERS:
        raise _UsageError(f"--workers must be at least 1 and at most {MAX_WORKERS}")
    if args.workers is not None and args.scheduler is not None:
        raise _UsageError("--workers sizes the local cluster; an existing one (--scheduler) has its own workers")
    grid = load_grid(args.grid)
    shown = args.progress or (err.isatty() and not args.quiet)
    bar = _SweepBar(err, shown, quiet=args.quiet)
    try:
        table = sweep(grid, args.out, workers=args.workers, scheduler=args.scheduler, progress=bar,
                      dashboard=args.dashboard, warn=False)
    finally:
        bar.close()
    print(summary(table, grid.name, args.out), file=out)
    return 0


class _SweepBar:
    """One progress bar for a sweep: done, running, failed, ETA (when ``shown``; off a terminal a line every
    HEARTBEAT seconds instead, unless ``quiet``); the dashboard's address always."""

    def __init__(self, err, shown: bool = True, quiet: bool = False):
        from tqdm import tqdm
        self.err, self.bar, self._tqdm, self.shown, self.told = err, None, tqdm, shown, False
        self.quiet, self.began, self.said = quiet, time.monotonic(), time.monotonic()

    def __call__(self, state: dict) -> None:
        if "dashboard" in state:
            print(f"countrss sweep: Dask dashboard at {state['dashboard']} (a local cluster's lives as long as this "
                  f"command)", file=self.err, flush=True)
            return
        if "resumed" in state and not self.told:
            self.told = True
            if state["resumed"]:
                print(f"countrss sweep: {state['resumed']} of {state['resumed'] + state['total']} points already in "
                      f"the output, not run again; {state['total']} to run", file=self.err, flush=True)
        if not self.shown:
            if not self.quiet and "done" in state and time.monotonic() - self.said >= HEARTBEAT:
                self.said = time.monotonic()
                print(f"countrss sweep: {state['done']} of {state['total']} points done after "
                      f"{self.said - self.began:.0f} s ({state['failed']} failed, {state.get('running', 0)} "
                      f"running)", file=self.err, flush=True)
            return
        if self.bar is None:
            self.bar = self._tqdm(total=state["total"], file=self.err, desc="sweep", unit="point",
                                  dynamic_ncols=True)
        self.bar.n = state["done"]
        self.bar.set_postfix(running=state.get("running", 0), failed=state["failed"], refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def build_rules_parser() -> argparse.ArgumentParser:
    p = _task_parser("countrss rules", "task (one or several over the same scenes)",
                     "When the rule itself is learned (ConCon's setting) rather than "
                     "given: count the rules of a hypothesis class (DNFs of object predicates) that fit each task's "
                     "data, the joint data and the data after each task in order. Scene tasks only: concepts named "
                     "<attribute><object> (shape1, color2).")
    h = p.add_argument_group("hypothesis class")
    h.add_argument("--terms", type=int, default=2, metavar="N", help="terms of a DNF at most (default 2)")
    h.add_argument("--literals", type=int, default=2, metavar="N", help="object predicates per term at most "
                   "(default 2)")
    h.add_argument("--values", type=int, default=2, metavar="N", help="attribute values an object predicate "
                   "fixes at most (default 2: 'some small cube')")
    h.add_argument("--rule", action="append", default=[], metavar="NAME=DNF",
                   help="also say whether this rule fits each data (repeatable), e.g. "
                   "'g={shape=sphere} & {shape=cube, size=small}' or 'c={color=blue} | {material=metal}'")
    h.add_argument("--timeout", type=float, metavar="SECONDS", help="time limit (exit 3 past it)")
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="print one JSON object")
    return p


def _rules(argv: Sequence[str], out, err) -> int:
    from .rules.dnf import hypotheses, parse_rule, rule_sequence, scene_space
    args = build_rules_parser().parse_args(argv)
    _check_seconds(args.timeout, "--timeout")
    _check_seed(args)
    with time_limit(args.timeout, "counting rules"):
        tasks = _designs(args, "name a task: --task, --spec or --config (repeat for several tasks)")
        problems = _problems(args, tasks, "disentangled")
        h = hypotheses(problems[0].task, args.terms, args.literals, args.values)
        named = dict(parse_rule(text, problems[0].task) for text in args.rule)
        space = scene_space(problems[0].task)
        found = rule_sequence(problems, h, space, named)
    where = "every scene" if space is not None else "the data's scenes"
    if args.json:
        print(json.dumps({"class": {"terms": args.terms, "literals": args.literals, "values": args.values,
                                    "terms_in_class": len(h.terms)}, "behaviours_on": where,
                          **{k: [r.to_dict() for r in v] if isinstance(v, list) else v.to_dict()
                             for k, v in found.items()}}), file=out)
        return 0
    print(f"rules: DNFs of at most {args.terms} terms, each at most {args.literals} predicates 'some object with at "
          f"most {args.values} attribute values' ({len(h.terms):,} terms); behaviours told apart on {where}", file=out)
    width = max(len(r.data) for r in found["per_task"] + found["cumulative"])
    print("each task alone", file=out)
    for r in found["per_task"]:
        print(f"  {r.data:<{width}}  {r.rules:,} rules, {r.behaviours:,} behaviours", file=out)
    print("in this order (data of tasks 1..t)", file=out)
    for r in found["cumulative"]:
        print(f"  {r.data:<{width}}  {r.rules:,} rules, {r.behaviours:,} behaviours", file=out)
    for name in named:
        fits = "; ".join(f"{r.data} {'yes' if r.has[name] else 'no'}" for r in found["per_task"] + found["cumulative"])
        print(f"rule {name} fits  {fits}", file=out)
    return 0


COMMANDS = {"count": _count, "audit": _audit, "train": _train, "sweep": _sweep, "rules": _rules}

# The library names its parameters (backend=, timeout=, approx=True); the command line says its flags.
_FLAGS = [(r"\bbackend=", "--backend "), (r"\btimeout=", "--timeout"), (r"\bapprox=True", "--approx"),
          (r"\bexact=True", "--exact"), (r"\bsubsample=", "--subsample "), (r"\bsupervise=", "--supervise "),
          (r"\bconcept_sup=", "--concept-sup "), (r"\bepsilon=", "--epsilon"), (r"\bdelta=", "--delta"),
          (r"\bmemory_mb=", "--memory-limit"), (r"\bmap_class=", "--map-class "), (r"\bsupport=", "--support "),
          (r"\binputs=", "--inputs ")]


def as_flags(message: str) -> str:
    """A library message with parameter names turned into the command line's flags.

    >>> as_flags("raise timeout= or try approx=True; use backend=ganak")
    'raise --timeout or try --approx; use --backend ganak'
    """
    for pattern, flag in _FLAGS:
        message = re.sub(pattern, flag, message)
    message = re.sub(r"\b([a-z][a-z_]*)=(?=[\s,;)]|$)", lambda m: "--" + m.group(1).replace("_", "-"), message)
    message = re.sub(r"(--[a-z-]+)  +", r"\1 ", message)
    return re.sub(r" +([;,)\]]|$)", r"\1", message)


_DASHED_VALUES = ("--support", "--knowledge", "--seeds", "--sizes")  # whose values may start with a minus sign


def _glued(argv: list) -> list:
    """``--support -1,0`` as ``--support=-1,0``: argparse would read a value starting with '-' as an option.

    >>> _glued(["--support", "-1,0", "--task", "t"])
    ['--support=-1,0', '--task', 't']
    """
    out, i = [], 0
    while i < len(argv):
        if argv[i] in _DASHED_VALUES and i + 1 < len(argv) and re.match(r"-[0-9.]", argv[i + 1]):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


@contextlib.contextmanager
def _thread_errors(err):
    """A thread that fails outside the race that reads its errors (a backend left behind once another answered)
    says so in one line, not a traceback: running out of memory under --memory-limit, or what it raised."""
    previous = threading.excepthook

    def hook(info) -> None:
        if isinstance(info.exc_value, MemoryError):
            print("countrss: warning: a backend left running in the background ran out of memory (--memory-limit) "
                  "and stopped; the answer printed does not depend on it", file=err)
        elif not isinstance(info.exc_value, SystemExit):
            print(f"countrss: warning: a background thread stopped: {brief(str(info.exc_value), 120)}", file=err)
    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous


def main(argv: Sequence[str] | None = None) -> int:
    """Run countrss; return the exit status (0 ok, 2 bad input, 3 backend failure or time-out, 130 Ctrl-C,
    143 SIGTERM, 129 SIGHUP)."""
    out, err = sys.stdout, sys.stderr
    argv = _glued(list(sys.argv[1:] if argv is None else argv))
    if not argv:
        print("countrss: name a task, e.g. countrss --task xor3 --exact (countrss --help lists every option, "
              "countrss --list-tasks the library)", file=err)
        return 2
    command = argv[0] if argv[:1] and argv[0] in COMMANDS else "count"
    try:
        with terminating(), warnings.catch_warnings(), _thread_errors(err):
            warnings.showwarning = lambda message, *rest, **kw: print(f"countrss: warning: {message}", file=err)
            try:
                return COMMANDS[command](argv[1:] if argv[:1] == [command] else argv, out, err)
            finally:  # a status line is cleared before any error is printed, so the error starts its own line
                while _OPEN:
                    _OPEN.pop().close()
    except _UsageError as exc:
        print(f"countrss: error: {exc}", file=err)
        return 2
    except CountTimeout as exc:
        if "--json" in argv:
            print(json.dumps({"status": "timeout", "count": None, "exact": False, "error": as_flags(str(exc))}),
                  file=out)
        print(f"countrss: error: {as_flags(str(exc))}", file=err)
        return exc.exit_status
    except RscountError as exc:
        print(f"countrss: error: {as_flags(str(exc))}", file=err)
        return exc.exit_status
    except Terminated as exc:
        print(f"countrss: terminated by {exc}; child processes ended", file=err)
        return 128 + exc.signum
    except KeyboardInterrupt:
        print("countrss: interrupted", file=err)
        return 130
    finally:
        while _OPEN:
            _OPEN.pop().close()


def _emit(problem, path: str) -> None:
    encoding = encode(problem)
    header = [f"rscount encoding of {problem.describe()}",
              "count the models projected on the 'c p show' variables to get the number of optimal maps",
              "every other variable is a gate fully determined by the shown ones"]
    write_atomic(path, format_dimacs(encoding.nvars, encoding.clauses, encoding.alpha,
                                     encoding.variable_names(), header))


def entry() -> None:
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)  # --json prints every digit of a count (3000! has 9,131)
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. `countrss --list-tasks | head`
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)


if __name__ == "__main__":
    entry()
