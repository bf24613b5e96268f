"""bench/py/peers.py --smoke: the peer benchmark runs end to end and its
last line has the shape docs/python.md gives (so that it does not rot),
with the PyTorch side's figures: without .venv-torch (scripts/install-deps
makes it) the test fails, saying so."""
import json
import subprocess
import sys

from conftest import BUILD, ROOT
from torch_venv import TORCH_PYTHON, require_torch_python, script_env


def test_peers_smoke_prints_the_json_line(tmp_path):
    require_torch_python()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "py" / "peers.py"), "--smoke",
         "--build", str(BUILD), "--data", str(tmp_path / "shards"),
         "--torch-python", str(TORCH_PYTHON)],
        capture_output=True, text=True, env=script_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["bench"] == "py_peers"
    figures = line["samples_per_s"]
    assert set(figures) == {"inflow", "inflow_cpp", "tf_data", "torch"}
    for side in ("inflow", "inflow_cpp", "tf_data"):
        assert figures[side] > 0, line
    assert line["ratio_vs_cpp"] == round(figures["inflow"] / figures["inflow_cpp"], 3)
    assert line["ratio_vs_tf_data"] == round(figures["inflow"] / figures["tf_data"], 3)
    assert set(line["forms"]) >= {"inflow_1_reader", "inflow_2_readers",
                                  "inflow_1_reader_nice5", "inflow_2_readers_nice5",
                                  "tf_data_vectorized", "tf_data_per_example"}
    # bench_pipeline ran with both reader niceness increments; the figure is
    # the better run's.
    assert set(line["inflow_cpp_by_nice"]) == {"0", "5"}
    assert figures["inflow_cpp"] == max(line["inflow_cpp_by_nice"].values())
    assert line["inflow_cpp_nice"] in (0, 5)
    assert figures["torch"] > 0, line
    assert {"torch_workers_0", "torch_workers_2"} <= set(line["forms"])
    assert line["forms"]["dataset_python"] > 0
    assert line["ratio_dataset_vs_tf_data"] == round(
        line["forms"]["dataset_python"] / figures["tf_data"], 3)
    assert line["ratio_vs_torch"] == round(figures["inflow"] / figures["torch"], 3)
    # The shards were written once, into the folder named.
    assert len(list((tmp_path / "shards").glob("train-*.tfrecord"))) == 4
