"""bench/py/tf_reference_accuracy.py (the model of `inflow train` in
TensorFlow, whose accuracy docs/PERFORMANCE.md compares with inflow's) runs
and learns: one short epoch beats chance by far."""
import json
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "py" / "tf_reference_accuracy.py"


def test_one_short_epoch_prints_an_accuracy_well_above_chance():
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--epochs", "1", "--train-limit", "25600", "--seed", "2"],
        capture_output=True, text=True, timeout=300, check=True)
    line = json.loads(out.stdout.strip().splitlines()[-1])
    assert line["bench"] == "tf_reference_accuracy"
    assert line["epochs"] == 1 and len(line["test_accuracy"]) == 1
    assert 0.5 < line["test_accuracy"][0] <= 1.0, out.stderr
    assert "epoch 1: test accuracy" in out.stderr
