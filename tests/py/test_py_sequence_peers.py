"""bench/py/sequence_peers.py --smoke: the Sequence benchmark runs end to
end, every form (inflow's thread and process workers, Keras 3's PyDataset
enqueuer, PyTorch's DataLoader in .venv-torch, the plain loop, two plain-loop
processes) delivers
batches, and its last line has the shape docs/PERFORMANCE.md gives."""
import json
import subprocess
import sys

from conftest import BUILD, ROOT
from torch_venv import TORCH_PYTHON, require_torch_python, script_env


def test_sequence_peers_smoke_prints_the_json_line():
    require_torch_python()
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "py" / "sequence_peers.py"),
         "--smoke", "--build", str(BUILD), "--torch-python", str(TORCH_PYTHON)],
        capture_output=True, text=True, env=script_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    line = json.loads(proc.stdout.strip().splitlines()[-1])
    assert line["bench"] == "sequence"
    sides = line["batches_per_s"]
    assert set(sides) == {"plain", "plain_2_processes", "inflow", "keras", "torch"}
    assert all(v > 0 for v in sides.values()), line
    assert set(line["forms"]) == {
        "plain", "plain_2_processes", "inflow_threads_2", "inflow_processes_2", "keras_threads_1",
        "keras_threads_2", "keras_processes_2", "torch_workers_0",
        "torch_workers_1", "torch_workers_2"}
    assert all(v > 0 for v in line["forms"].values()), line
    assert sides["inflow"] == max(line["forms"]["inflow_threads_2"],
                                  line["forms"]["inflow_processes_2"])
    assert line["ratio_vs_keras"] == round(sides["inflow"] / sides["keras"], 3)
    assert line["ratio_vs_torch"] == round(sides["inflow"] / sides["torch"], 3)
    assert line["processes_vs_limit"] == round(
        line["forms"]["inflow_processes_2"] / sides["plain_2_processes"], 3)
    assert line["transfer_us_per_mb"] > 0
    for key in ("handoff_us", "consumer_sum_us", "start_ms"):
        assert line[key] > 0, (key, line)
