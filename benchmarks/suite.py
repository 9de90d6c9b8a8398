"""Expand suite.yaml into concrete instances."""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import yaml

SUITE = Path(__file__).with_name("suite.yaml")
SWEPT = ("support", "subsample", "seed")


@dataclass(frozen=True)
class Instance:
    """One counting problem of the suite, under one map class."""

    id: str
    family: str
    task: str
    map_class: str
    params: dict = field(default_factory=dict)
    support: str | None = None
    subsample: float | None = None
    seed: int = 0
    quick: bool = False

    def problem_args(self) -> dict:
        return {"map_class": self.map_class, "support": self.support, "subsample": self.subsample,
                "seed": self.seed, "params": self.params or None}


def load(path: Path = SUITE) -> list:
    """Every instance of the suite, in file order; quick ones keep the first value of secondary sweeps."""
    out = []
    for entry in yaml.safe_load(path.read_text()):
        axes = {f"params.{k}": v for k, v in (entry.get("params") or {}).items()}
        axes.update({k: entry[k] for k in SWEPT if k in entry})
        names = list(axes)
        lists = [v if isinstance(v, list) else [v] for v in axes.values()]
        first = next((n for n, v in zip(names, lists) if len(v) > 1), None)
        quick = entry.get("quick", False)
        for combo in itertools.product(*lists):
            values = dict(zip(names, combo))
            params = {k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("params.")}
            fmt = {**params, **{k: v for k, v in values.items() if not k.startswith("params.")}}
            rest_first = all(values[n] == v[0] for n, v in zip(names, lists) if n != first)
            keep = quick is True or (isinstance(quick, list) and values.get(first) in quick and rest_first)
            for cls in entry["classes"]:
                out.append(Instance(id=entry["id"].format(**fmt), family=entry["task"], task=entry["task"],
                                    map_class=cls, params=params, support=values.get("support"),
                                    subsample=values.get("subsample"), seed=int(values.get("seed", 0)),
                                    quick=keep))
    return out
