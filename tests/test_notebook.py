"""Notebook views: results, tasks, audits and harness reports show themselves; the docs notebook runs."""
from pathlib import Path

import pytest

import rscount

ROOT = Path(__file__).resolve().parents[1]


def test_results_and_tasks_show_themselves(tmp_path):
    r = rscount.count("xor3")
    html = r._repr_html_()
    assert "<table>" in html and "24" in html and "optimal maps (first 5)" in html
    assert "7 vectors" in rscount.get_task("mnadd-half")._repr_html_()
    fig = r.plot()
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["identity", "optimal maps", "complete maps"]
    r.plot(tmp_path / "r.png")
    assert (tmp_path / "r.png").stat().st_size > 1000
    approx = rscount.count("xor3", approx=True)
    assert "<table>" in approx._repr_html_()


def test_a_harness_report_shows_its_confusion_matrix():
    pytest.importorskip("torch")
    from rscount.harness import TrainConfig, run
    report = run(rscount.make_problem("xor3", map_class="disentangled"), seeds=[0],
                 config=TrainConfig(epochs=1, n_train=64, n_val=32, n_test=32))
    html = report._repr_html_()
    assert "learned map" in html and "data:image/png;base64," in html


def test_the_docs_notebook_runs():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    path = ROOT / "docs" / "notebooks" / "count-audit-compare.ipynb"
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("text/html" in o.get("data", {}) for o in outputs)
