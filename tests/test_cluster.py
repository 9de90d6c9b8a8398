"""The one engine for parallel work (rscount.runtime.cluster): results in order, errors raised, the extra named when Dask
is missing, and a caller's script without a __main__ guard is never re-run by the workers."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from rscount.errors import BackendError

pytest.importorskip("distributed")

NO_DASK = "import sys; sys.modules['distributed'] = None; sys.modules['dask'] = None; "


def _square(shared, item):
    return shared * item * item


def _fail(shared, item):
    if item == 2:
        raise BackendError("item 2 cannot be done")
    return item


@pytest.mark.slow
def test_map_tasks_keeps_the_items_order_and_raises_a_tasks_error():
    from rscount.runtime.cluster import map_tasks
    seen = []
    assert map_tasks(_square, range(7), shared=3, workers=2, done=lambda n, t: seen.append((n, t))) == \
        [3 * i * i for i in range(7)]
    assert seen[-1] == (7, 7) and len(seen) == 7
    with pytest.raises(BackendError, match="item 2 cannot be done"):
        map_tasks(_fail, range(4), workers=2)


def test_without_dask_the_curve_runs_here_and_parallel_training_names_the_extra():
    code = NO_DASK + "import rscount; from rscount.auditing import data_curve; " \
        "c = data_curve(rscount.make_problem('xor3'), [2, 8], [0, 1]); print(c.rows)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "((2, (96, 96)), (8, (24, 24)))", out.stderr
    pytest.importorskip("torch")
    code = NO_DASK + "from rscount.cli import entry; sys.argv = ['countrss', 'train', '--task', 'xor3', '--seeds', " \
        "'0,1', '--workers', '2', '--epochs', '1']; entry()"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 3 and out.stderr.count("\n") == 1 and "rscount[sweep]" in out.stderr, out.stderr


@pytest.mark.slow
def test_a_script_without_a_main_guard_runs_its_curve_once(tmp_path):
    script = tmp_path / "curve.py"
    script.write_text(textwrap.dedent("""
        import rscount
        print("started")
        a = rscount.audit("xor3", curve=True, sizes=[2, 4, 8], seeds=[0, 1, 2], workers=2)
        print(a.curve.rows)
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("started") == 1 and "(8, (24, 24, 24))" in out.stdout
