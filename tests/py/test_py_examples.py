"""examples/py: each program runs briefly (--steps) and says what the
README says it does."""
import json
import os
import re
import subprocess
import sys

from conftest import BUILD, ROOT
from torch_venv import require_torch_python, script_env

EXAMPLES = ROOT / "examples" / "py"


def run_example(python, name, *args, timeout=300):
    proc = subprocess.run([str(python), str(EXAMPLES / name), *map(str, args)],
                          capture_output=True, text=True, env=script_env(),
                          timeout=timeout)
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{proc.stderr}"
    return proc.stdout


def check_seed000(out, backend):
    assert f"model: {backend}" in out
    losses = [float(v) for v in re.findall(r"^step (?:3|6): loss (\S+)$", out, re.M)]
    assert len(losses) == 2, out
    # Random labels over 10 classes: the loss starts near ln 10.
    assert all(0 < v < 10 for v in losses), losses
    assert re.search(r"^6 steps in \S+ s \(\S+ steps/s\)$", out, re.M), out


def test_seed000_queue_fed_with_numpy():
    out = run_example(sys.executable, "seed000_queue_fed.py", "--steps", 6,
                      "--log-every", 3, "--backend", "numpy")
    check_seed000(out, "numpy")


def test_seed000_queue_fed_with_torch():
    out = run_example(require_torch_python(), "seed000_queue_fed.py", "--steps", 6,
                      "--log-every", 3, "--backend", "torch")
    check_seed000(out, "torch")


def test_fashion_mnist_torch_saves_and_resumes(tmp_path):
    python = require_torch_python()
    data, ckpt = tmp_path / "data", tmp_path / "ckpt"
    common = ["--data", data, "--ckpt-dir", ckpt, "--inflow", BUILD / "bin" / "inflow",
              "--save-every", 10, "--log-every", 10]
    first = run_example(python, "fashion_mnist_torch.py", "--steps", 20, *common)
    assert "resumed" not in first
    summary = json.loads(first.strip().splitlines()[-1])
    assert summary["step"] == 20 and summary["steps_run"] == 20
    second = run_example(python, "fashion_mnist_torch.py", "--steps", 40, *common)
    assert f"resumed from {ckpt / 'model.ckpt-20'} at step 20" in second
    summary = json.loads(second.strip().splitlines()[-1])
    assert summary["step"] == 40 and summary["steps_run"] == 20
    assert summary["checkpoint"] == str(ckpt / "model.ckpt-40")
    # 40 steps of Adam are well past chance (0.1) on the test images.
    assert summary["test_accuracy"] > 0.4, summary

    # TensorFlow reads the checkpoint: the weights in torch's layout, Adam's
    # slots, global_step.
    import tensorflow as tf
    assert tf.train.latest_checkpoint(str(ckpt)) == str(ckpt / "model.ckpt-40")
    reader = tf.train.load_checkpoint(str(ckpt))
    assert reader.get_tensor("global_step") == 40
    shapes = reader.get_variable_to_shape_map()
    assert shapes["0.weight"] == [625, 784]
    assert shapes["0.weight/Adam/exp_avg_sq"] == [625, 784]
    assert reader.get_tensor("6.bias/Adam/step") == 40


def readme_python_blocks():
    """The TF1 and inflow programs of README's "From Python", in order."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### From Python"):]
    section = section[:section.index("\n## ")]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def readme_convert_command():
    """The first `inflow convert` of README's "From image files to TFRecord
    shards" (the shards "From Python" reads), as an argument list."""
    text = (ROOT / "README.md").read_text()
    section = text[text.index("### From image files to TFRecord shards"):]
    section = section[:section.index("\n### ")]
    [command] = [line[2:] for line in re.findall(r"```sh\n(.*?)```", section, re.S)[0]
                 .splitlines() if line.startswith("$ ") and " convert " in line][:1]
    args = command.split()
    assert args[0] == "build/release/bin/inflow", command
    return args[1:]


def test_readme_tf1_snippet_and_its_inflow_port_see_the_same_batches(tmp_path, run_inflow):
    """README's steps in order: its convert command, then both programs on
    what it wrote."""
    tf1, port = readme_python_blocks()
    assert "import tensorflow.compat.v1 as tf" in tf1 and "import inflow" in port
    args = readme_convert_command()
    assert args[args.index("--out") + 1] == "data/fashion-mnist"
    args[args.index("--out") + 1] = str(tmp_path / "data" / "fashion-mnist")
    run_inflow(*args)
    # The snippets read data/fashion-mnist/train-*: one shard of four here
    # (15000 records), to keep the test short.
    data = tmp_path / "data" / "fashion-mnist"
    for name in os.listdir(data):
        if name.startswith("train-") and name != "train-00000-of-00004.tfrecord":
            os.remove(data / name)
    seen = []
    for code in (tf1, port):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=script_env(), cwd=tmp_path, timeout=300)
        assert proc.returncode == 0, proc.stderr
        seen.append(int(proc.stdout.strip().splitlines()[-1]))
    # One epoch of 15000 in full batches of 128 (no smaller final batch).
    assert seen == [15000 // 128 * 128] * 2
