"""Knowledge from a ProbLog or DeepProbLog program: its neural predicates are the concepts, its query the labels.

The program is read and grounded by the ``problog`` package (the extra ``problog``), never run by a Prolog of
our own and never once per concept vector: each neural predicate ``nn(net, [X], Y, [v1, ..., vn]) :: p(X, Y).``
becomes an annotated disjunction over its values, guarded so that X ranges over the constants of the query;
ProbLog grounds the query once, and its ground program (a formula over the neural choices) becomes one
expression per answer. A label is the answer that holds, so every concept vector must make exactly one
answer hold (assumption A2), which a SAT solver checks over the compiled knowledge.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from ..errors import BackendError, KnowledgeError, brief
from ..language.logic import Const, Op, Var
from ..model.task import Concept, Label, Task
from ..runtime.limits import time_limit

__all__ = ["task_from_problog", "GROUND_SECONDS"]

GROUND_SECONDS = 60.0  # ProbLog's grounding of one program (a recursion without end never finishes)
_INPUT = "rscount_input"  # the guard that ranges a neural predicate's inputs over the query's constants


@dataclass
class _Neural:
    """One neural predicate: its head functor and arity, where the output sits (None: boolean), its values."""

    functor: str
    arity: int
    out: int | None
    values: tuple
    line: int | None = None


@dataclass
class _Program:
    clauses: list = field(default_factory=list)
    neural: dict = field(default_factory=dict)  # (functor, arity) -> _Neural
    declared: dict = field(default_factory=dict)  # (functor, arity) -> values (None: boolean) for --as-concepts


def _problog():
    try:
        from problog.engine import DefaultEngine
        from problog.formula import LogicDAG, LogicFormula
        from problog.logic import AnnotatedDisjunction, Constant, Or, Term, Var as PVar, term2list
        from problog.program import PrologString, SimpleProgram
    except ImportError:
        raise BackendError("reading ProbLog programs needs the problog extra: pip install 'rscount[problog]'") \
            from None
    return dict(DefaultEngine=DefaultEngine, LogicDAG=LogicDAG, LogicFormula=LogicFormula, Or=Or, AnnotatedDisjunction=AnnotatedDisjunction,
                Constant=Constant, Term=Term, PVar=PVar, term2list=term2list, PrologString=PrologString,
                SimpleProgram=SimpleProgram)


def _text(source) -> tuple:
    """(program text, where it came from)."""
    from ..files.reading import read_text
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and
                                    source.strip().endswith((".pl", ".pro", ".problog")) and
                                    not source.strip().endswith((":-", ")."))):
        return read_text(Path(source), "ProbLog program", KnowledgeError), str(source)
    if not isinstance(source, str):
        raise KnowledgeError(f"a ProbLog program is text or a path, not {type(source).__name__}")
    return source, "<program>"


def _value(term, P):
    """A ProbLog constant as a domain value: an integer, or a name."""
    if isinstance(term, int) and not isinstance(term, bool):
        return term
    if isinstance(term, P["Constant"]):
        v = term.value
        if isinstance(v, int):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
        return str(term).strip("'\"")
    if isinstance(term, P["Term"]) and not term.args:
        return str(term.functor).strip("'\"")
    return str(term)


def _read(text: str, where: str, as_concepts: Sequence[str], P) -> _Program:
    """Split the program into its clauses, its neural predicates and the probabilistic facts declared concepts;
    refuse other probabilistic facts by name."""
    try:
        parsed = list(P["PrologString"](text))
    except Exception as exc:  # ProbLog's parser raises its own error types
        raise KnowledgeError(f"{where}: ProbLog cannot parse the program: {brief(str(exc), 160)}") from None
    prog, stochastic = _Program(), []
    wanted = set(as_concepts)
    for c in parsed:
        p = getattr(c, "probability", None)
        if isinstance(c, (P["AnnotatedDisjunction"], P["Or"])):
            heads = c.heads if isinstance(c, P["AnnotatedDisjunction"]) else _disjuncts(c, P)
            key = (heads[0].functor, heads[0].arity)
            if key[0] in wanted:
                prog.declared[key] = "ad"
                prog.clauses.append(c)
            else:
                stochastic.append(f"{key[0]}/{key[1]}")
            continue
        if p is None:
            prog.clauses.append(c)
            continue
        head = c.with_probability(None) if hasattr(c, "with_probability") else c
        if isinstance(p, P["Term"]) and p.functor == "nn":
            prog.neural[(head.functor, head.arity)] = _neural(c, head, p, where, P)
            continue
        if head.functor in wanted:
            prog.declared[(head.functor, head.arity)] = "fact"
            prog.clauses.append(c)
        else:
            stochastic.append(f"{head.functor}/{head.arity}")
    if stochastic:
        names = ", ".join(dict.fromkeys(stochastic))
        raise KnowledgeError(f"{where}: probabilistic facts that are not neural make the label stochastic: {names}; "
                             f"declare them concepts (as_concepts=, --as-concepts NAME) where a model can observe them")
    unknown = wanted - {k[0] for k in prog.declared}
    if unknown:
        raise KnowledgeError(f"{where}: as_concepts names {sorted(unknown)[0]!r}, which is no probabilistic fact or "
                             f"annotated disjunction of the program")
    if not prog.neural and not prog.declared:
        raise KnowledgeError(f"{where}: the program has no neural predicate (nn(net, [X], Y, [values]) :: p(X, Y).), "
                             f"so it has no concepts to count maps over")
    return prog


def _disjuncts(c, P) -> list:
    """The heads of an annotated disjunction written as a fact (1/2::a; 1/2::b.)."""
    out, stack = [], [c]
    while stack:
        t = stack.pop()
        if isinstance(t, P["Or"]):
            stack += [t.op2, t.op1]
        else:
            out.append(t)
    return out


def _neural(c, head, p, where: str, P) -> _Neural:
    args = p.args
    if len(args) == 2:  # nn(net, [X]) :: p(X): a boolean concept per input
        return _Neural(head.functor, head.arity, None, (0, 1))
    if len(args) != 4:
        raise KnowledgeError(f"{where}: {brief(str(c), 60)}: a neural predicate reads nn(net, [X], Y, [v1, ...]) :: "
                             f"p(X, Y) or nn(net, [X]) :: p(X)")
    out = [n for n, a in enumerate(head.args) if a == args[2]]
    if len(out) != 1:
        raise KnowledgeError(f"{where}: {brief(str(c), 60)}: the output variable {args[2]} must be one argument of "
                             f"the head")
    try:
        values = tuple(_value(v, P) for v in P["term2list"](args[3]))
    except Exception:
        raise KnowledgeError(f"{where}: {brief(str(c), 60)}: the values of a neural predicate are a list") from None
    if not values or len(set(values)) != len(values):
        raise KnowledgeError(f"{where}: {brief(str(c), 60)}: the values must be a non-empty list without repeats")
    return _Neural(head.functor, head.arity, out[0], values)


def _program(prog: _Program, queries: list, P):
    """The program ProbLog grounds: neural predicates as guarded annotated disjunctions, the guard's facts."""
    Term, PrologString = P["Term"], P["PrologString"]
    out = P["SimpleProgram"]()
    for c in prog.clauses:
        out.add_clause(c)
    for key, nn in prog.neural.items():
        xs = [f"X{n}" for n in range(nn.arity)]
        guard = ", ".join(f"{_INPUT}({x})" for n, x in enumerate(xs) if n != nn.out)
        if nn.out is None:
            text = f"0.5::{nn.functor}({', '.join(xs)}) :- {guard}."
        else:
            heads = []
            for v in nn.values:
                args = [x if n != nn.out else _literal(v) for n, x in enumerate(xs)]
                heads.append(f"{1 / len(nn.values)}::{nn.functor}({', '.join(args)})")
            text = "; ".join(heads) + (f" :- {guard}." if guard else ".")
        for clause in PrologString(text):
            out.add_clause(clause)
    seen = {"rscount_none"}
    out.add_fact(Term(_INPUT, Term("rscount_none")))  # the guard is defined even where no input is named
    inputs = [t for q in queries for t in _ground_subterms(q, P)]
    for c in prog.clauses:  # constants the program itself passes to a neural predicate (an image named in a body)
        for call in _calls(c, P):
            nn = prog.neural.get((call.functor, call.arity))
            if nn is not None:
                inputs += [a for n, a in enumerate(call.args) if n != nn.out and a.is_ground()]
    for t in inputs:
        if str(t) not in seen:
            seen.add(str(t))
            out.add_fact(Term(_INPUT, t))
    return out


def _calls(clause, P):
    """The atoms a clause's body calls (through conjunctions, disjunctions and negations)."""
    stack = [getattr(clause, "body", None)]
    while stack:
        t = stack.pop()
        if t is None or not isinstance(t, P["Term"]) or isinstance(t, P["PVar"]):
            continue
        if t.functor in (",", ";", "\\+", "not", "call") or type(t).__name__ in ("And", "Or", "Not"):
            stack.extend(t.args)
        else:
            yield t


def _literal(v) -> str:
    return str(v) if isinstance(v, int) or re.fullmatch(r"[a-z][A-Za-z0-9_]*", str(v)) else f"'{v}'"


def _ground_subterms(q, P):
    stack = list(q.args)
    while stack:
        t = stack.pop()
        if isinstance(t, P["PVar"]) or not isinstance(t, P["Term"]):
            continue
        if t.is_ground():
            yield t
        stack.extend(t.args)


def _identifier(text: str, taken: set) -> str:
    """A concept name for a ground atom: ``digit(a)`` -> ``digit_a`` (made distinct)."""
    name = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9_]", "_", text)).strip("_") or "c"
    if not name[0].isalpha():
        name = "c_" + name
    base, n = name, 2
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


def task_from_problog(source, query: str | Sequence[str], *, as_concepts: Sequence[str] = (), name: str | None = None,
                      seconds: float | None = GROUND_SECONDS) -> Task:
    """The task a (Deep)ProbLog program and its query define: one concept per ground neural atom (``digit(a)``,
    domain the nn's values in order), one label per free variable of each query (a ground query is a boolean
    label). ``as_concepts`` names probabilistic facts or annotated disjunctions to read as concepts too."""
    P = _problog()
    text, where = _text(source)
    queries_text = [query] if isinstance(query, str) else list(query)
    if not queries_text:
        raise KnowledgeError("name a query, e.g. query='addition(a, b, Z)'")
    queries = []
    for qt in queries_text:
        try:
            parsed = list(P["PrologString"](str(qt).strip().rstrip(".") + "."))
        except Exception as exc:
            raise KnowledgeError(f"query {brief(qt, 60)} does not parse: {brief(str(exc), 100)}") from None
        if len(parsed) != 1 or getattr(parsed[0], "probability", None) is not None or \
                not isinstance(parsed[0], P["Term"]) or type(parsed[0]).__name__ != "Term":
            raise KnowledgeError(f"query {brief(qt, 60)} must be one atom such as addition(a, b, Z)")
        queries.append(parsed[0])
    prog = _read(text, where, as_concepts, P)
    ground, names = _ground(_program(prog, queries, P), queries, where, seconds, P)
    return _task(ground, names, prog, queries, name or Path(where).stem if where != "<program>" else name or "problog",
                 where, P)


def _ground(program, queries: list, where: str, seconds, P):
    engine = P["DefaultEngine"]()
    try:
        with time_limit(seconds, f"grounding {where} with ProbLog",
                        "a recursion without end? or raise the time for grounding (seconds=)"):
            db = engine.prepare(program)
            # keep_all: every derived atom a node of its own, so a choice atom keeps its name (digit(a,1)) even
            # where a query's answer is that very atom
            formula = engine.ground_all(db, queries=queries, target=P["LogicFormula"](keep_all=True))
            names = {str(node.identifier): _atom_term(db, node, P) for _, node, kind in formula if kind == "atom"}
            return P["LogicDAG"].create_from(formula), names  # the DAG renames atoms; identifiers stay
    except RecursionError:
        raise KnowledgeError(f"{where}: ProbLog's grounding recursed without end; give the recursion a base case "
                             f"the query reaches") from None
    except KnowledgeError:
        raise
    except Exception as exc:
        if type(exc).__name__ in ("CountTimeout", "Terminated"):
            raise
        raise KnowledgeError(f"{where}: ProbLog cannot ground the query: {type(exc).__name__}: "
                             f"{brief(str(exc), 160)}") from None


def _atom_term(db, node, P):
    """The fact or choice an atom of the ground program stands for: its name may be a rule head that derives
    from it alone (out(a) :- noise. names the atom of noise 'out(a)'); a fact's clause in the database may not."""
    if isinstance(node.identifier, int):
        fact = db.get_node(node.identifier)
        if type(fact).__name__ == "fact":
            return P["Term"](fact.functor, *fact.args)
    return node.name


def _task(dag, names: dict, prog: _Program, queries: list, name: str, where: str, P) -> Task:
    Term = P["Term"]
    concepts: dict = {}  # atom text without the output -> [identifier, values, shown text]
    taken: set = set()
    leaf: dict = {}  # node id -> Expr

    def concept_of(key_text: str, values: tuple) -> str:
        if key_text not in concepts:
            concepts[key_text] = [_identifier(key_text, taken), values]
        return concepts[key_text][0]

    for nid, node, kind in dag:
        if kind != "atom":
            continue
        term = names.get(str(node.identifier), node.name)
        if getattr(node, "is_extra", False):
            leaf[nid] = Const(0)  # the 'none of them' choice: a neural predicate always gives one value
            continue
        if node.probability is None or node.probability is True or term is None:
            leaf[nid] = Const(1)  # a fact (the guard rscount_input(a), a deterministic clause)
            continue
        head = term.args[2] if isinstance(term, Term) and term.functor == "choice" and len(term.args) == 4 else term
        nn = prog.neural.get((head.functor, head.arity))
        if nn is not None and nn.out is not None:
            rest = [a for n, a in enumerate(head.args) if n != nn.out]
            cname = concept_of(str(Term(head.functor, *rest)), nn.values)
            leaf[nid] = Op("eq", (Var(cname), Const(_value(head.args[nn.out], P))))
        elif nn is not None:
            leaf[nid] = Op("eq", (Var(concept_of(str(head), (0, 1))), Const(1)))
        elif (head.functor, head.arity) in prog.declared:
            leaf[nid] = _declared(head, prog, concept_of, P)
        else:
            raise KnowledgeError(f"{where}: the ground program holds a probabilistic atom {brief(str(head), 50)} "
                                 f"that is neither neural nor declared a concept")
    exprs: dict = {}

    def expr(nid):
        if nid == 0:
            return Const(1)
        if nid is None:
            return Const(0)
        if nid < 0:
            inner = expr(-nid)
            return Const(1 - inner.value) if isinstance(inner, Const) else Op("not", (inner,))
        if nid in exprs:
            return exprs[nid]
        stack = [nid]
        while stack:  # children first, without recursion (ground programs can be deep)
            top = stack[-1]
            node, kind = dag.get_node(top), dag.get_node(top).__class__.__name__
            if top in leaf:
                exprs[top] = leaf[top]
                stack.pop()
                continue
            kids = [abs(k) for k in node.children if k not in (0, None) and abs(k) not in exprs]
            if kids:
                stack.extend(kids)
                continue
            args = tuple(expr(k) for k in node.children)
            op = "and" if kind == "conj" else "or"
            exprs[top] = _simplified(op, args)
            stack.pop()
        return exprs[nid]

    answers = {}
    for term, nid in dag.queries():
        answers.setdefault(str(term), (term, nid))
    labels = []
    for qi, q in enumerate(queries):
        free = [n for n, a in enumerate(q.args) if not a.is_ground()]
        mine = [(t, nid) for t, nid in answers.values()
                if t.functor == q.functor and t.arity == q.arity and _matches(q, t)]
        if not free:
            f = expr(mine[0][1]) if mine else Const(0)
            labels.append((str(q), [((1,), f), ((0,), _negation(f))]))
            continue
        rows = [(tuple(_value(t.args[n], P) for n in free), expr(nid)) for t, nid in mine]
        rows = [(v, f) for v, f in rows if not (isinstance(f, Const) and f.value == 0)]
        if not rows:
            raise KnowledgeError(f"{where}: the query {q} has no answer for any concept vector; check the query's "
                                 f"constants and predicate")
        labels.append((str(q), rows, [str(q.args[n]) for n in free]))
    cs = tuple(Concept(ident, tuple(values)) for ident, values in concepts.values())
    if not cs:
        raise KnowledgeError(f"{where}: the query reaches no neural predicate, so no concept decides its answer")
    shown = {ident: text for text, (ident, _) in concepts.items()}
    task_labels, answer_sets = [], []
    for entry in labels:
        qname, rows = entry[0], entry[1]
        answer_sets.append((qname, rows))
        if len(entry) == 2:  # a ground query: a boolean label
            task_labels.append(Label(_identifier(qname, set()), rows[0][1], qname))
            continue
        for n, var in enumerate(entry[2]):
            values = sorted({v[n] for v, _ in rows}, key=lambda x: (isinstance(x, str), x))
            out = Const(values[-1])
            for v in reversed(values[:-1]):
                cond = _simplified("or", tuple(f for vals, f in rows if vals[n] == v))
                out = Op("ite", (cond, Const(v), out))
            task_labels.append(Label(var if len(queries) == 1 else f"{var}_{qi + 1}", out, f"{qname}: {var}"))
    task = Task(name=name, concepts=cs, labels=tuple(task_labels),
                description=f"ProbLog program {where}, queries {', '.join(str(q) for q in queries)}",
                notes=("concepts are ProbLog's ground atoms: " + ", ".join(shown.values()) + " (knowledge text "
                       "names them by the identifiers JSON's concept_names gives)",),
                shown=tuple((i, t) for i, t in shown.items() if i != t))
    _check_one_answer(task, answer_sets, where)
    return task


def _declared(head, prog: _Program, concept_of, P):
    kind = prog.declared[(head.functor, head.arity)]
    if kind == "fact" or not head.args:
        return Op("eq", (Var(concept_of(str(head), (0, 1))), Const(1)))
    # an annotated disjunction declared a concept: its heads are the values (the last argument varies)
    return Op("eq", (Var(concept_of(head.functor, prog.declared.get(("values", head.functor), None) or
                                    _ad_values(head, prog, P))), Const(_value(head.args[-1], P))))


def _ad_values(head, prog: _Program, P) -> tuple:
    for c in prog.clauses:
        heads = c.heads if isinstance(c, P["AnnotatedDisjunction"]) else _disjuncts(c, P) if isinstance(
            c, P["Or"]) else []
        if heads and heads[0].functor == head.functor:
            values = tuple(_value(h.args[-1], P) for h in heads)
            prog.declared[("values", head.functor)] = values
            return values
    return ()


def _matches(q, t) -> bool:
    return all(not a.is_ground() or str(a) == str(b) for a, b in zip(q.args, t.args))


def _negation(f):
    return Const(1 - f.value) if isinstance(f, Const) else Op("not", (f,))


def _simplified(op: str, args: tuple):
    unit, zero = (1, 0) if op == "and" else (0, 1)
    kept = []
    for a in args:
        if isinstance(a, Const):
            if a.value == zero:
                return Const(zero)
            continue
        kept.append(a)
    if not kept:
        return Const(unit)
    return kept[0] if len(kept) == 1 else Op(op, tuple(kept))


def _check_one_answer(task: Task, answer_sets: list, where: str) -> None:
    """Assumption A2: every concept vector makes exactly one answer of each query hold. Two SAT questions a query
    over the compiled knowledge (a vector with no answer; one with two), each naming a vector where it fails."""
    from pysat.card import CardEnc, EncType
    from pysat.formula import IDPool
    from pysat.solvers import Solver

    from ..language.circuit import FALSE, TRUE, Circuit
    from ..language.compiler import compile_truths

    circuit = Circuit()
    tables = {}
    for i, c in enumerate(task.concepts):
        lits = [circuit.var(("x", i, u)) for u in range(len(c.domain))]
        circuit.exactly_one(lits)
        tables[c.name] = dict(zip(c.domain, lits))
    for qname, rows in answer_sets:
        lits = compile_truths([f for _, f in rows], circuit, tables, qname)
        always = [vals for (vals, _), lit in zip(rows, lits) if lit == TRUE]
        if len(always) > 1:
            raise KnowledgeError(f"{where}: query {qname} has two answers ({always[0]}, {always[1]}) for every concept "
                                 f"vector; the program must derive exactly one (assumption A2)")
        real = [(vals, lit) for (vals, _), lit in zip(rows, lits) if lit not in (TRUE, FALSE)]
        with Solver(name="cadical153", bootstrap_with=circuit.clauses) as s:
            if not always and s.solve(assumptions=[-lit for _, lit in real]):
                _refuse(task, circuit, s.get_model(), real, where, qname, "no answer")
            need = 2 - len(always)
            if len(real) >= need:
                pool = IDPool(start_from=circuit.pool.top + 1)
                for clause in CardEnc.atleast([lit for _, lit in real], bound=need, vpool=pool,
                                              encoding=EncType.totalizer).clauses:
                    s.add_clause(clause)
                if s.solve():
                    _refuse(task, circuit, s.get_model(), real, where, qname, "two answers", always)


def _refuse(task: Task, circuit, model, answers: list, where: str, qname: str, what: str, always=()) -> None:
    true = {lit for lit in model if lit > 0}
    vector = [next(u for u in range(len(c.domain)) if circuit.pool.get(("x", i, u)) in true)
              for i, c in enumerate(task.concepts)]
    shown = ", ".join(f"{c.name}={c.domain[u]}" for c, u in zip(task.concepts, vector))
    held = list(always) + [vals for vals, lit in answers if lit in true]
    extra = f" ({', '.join(str(v[0] if len(v) == 1 else v) for v in held[:2])})" if held else ""
    raise KnowledgeError(f"{where}: query {qname} has {what}{extra} for the concept vector {shown}; the program "
                         f"must derive exactly one answer for every concept vector (assumption A2)")
