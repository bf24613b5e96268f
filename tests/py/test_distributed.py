"""Data-parallel training under Open MPI's mpirun, 2 and 3 ranks on this
machine (--oversubscribe), on a slice of Fashion-MNIST (240 training and
60 test images):

  - every record is used exactly once per epoch across the ranks (each
    rank logs a CRC-32 of each example's pixels with --log-records; the
    union of an epoch is the dataset, without duplicates): whole files
    (2 ranks), records by index (3 ranks), every 3rd record of gzip shards;
  - 2 ranks train the model 1 rank trains with the same global batch and
    seed (--feed sequence), within float tolerance;
  - a 2-rank checkpoint resumes with 1 rank and with 3, to the weights of
    an uninterrupted run;
  - the step over one copy of the parameters per machine in shared memory
    (the default) trains the model of MPI_Allreduce alone
    (--no-shared-memory), on one machine and on ranks posing as machines
    (--ranks-per-host);
  - a rank killed with SIGKILL makes the other exit within 10 s with an
    error naming the dead rank and the step; a rank whose input fails
    fails every rank, naming it; Ctrl-C on mpirun stops every rank with a
    final checkpoint from rank 0;
  - inflow.distributed in `mpirun python ...`: rank, size, shard, an
    in-place allreduce of NumPy arrays and of a PyTorch tensor, broadcast
    and barrier.
"""
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import zlib

import numpy as np
import pytest

from conftest import BUILD, fashion_idx
from torch_venv import require_torch_python, script_env

TRAIN, TEST = 240, 60
# 5 steps an epoch with a global batch of 48 (a multiple of 1, 2 and 3).
BATCH = 48


def mpirun_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(BUILD / "python")
    if os.geteuid() == 0:  # as root (containers, CI), mpirun must be told
        env["OMPI_ALLOW_RUN_AS_ROOT"] = "1"
        env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    return env


def mpirun_args(ranks):
    return ["mpirun", "-np", str(ranks), "--oversubscribe"]


def train_args(inflow_bin, data, *args):
    return [inflow_bin, "train", "--data", str(data), "--distributed",
            "--batch-size", str(BATCH), "--seed", "7", "--optimizer", "adam",
            "--lr", "0.005", *map(str, args)]


def mpirun(ranks, inflow_bin, data, *args, check=True):
    proc = subprocess.run(mpirun_args(ranks) + train_args(inflow_bin, data, *args),
                          capture_output=True, text=True, env=mpirun_env(), timeout=300)
    if check:
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.fixture(scope="module")
def images():
    return fashion_idx("train-images-idx3-ubyte")[:TRAIN]


def convert(root, run_inflow, images, shards, compression="none"):
    """The slice converted into `shards` shards per split under root/data."""
    labels = fashion_idx("train-labels-idx1-ubyte")[:TRAIN].astype(np.int64)
    np.save(root / "train_x.npy", images)
    np.save(root / "train_y.npy", labels)
    np.save(root / "test_x.npy", fashion_idx("t10k-images-idx3-ubyte")[:TEST])
    np.save(root / "test_y.npy",
            fashion_idx("t10k-labels-idx1-ubyte")[:TEST].astype(np.int64))
    for split in ("train", "test"):
        run_inflow("convert", "npy", "--images", root / f"{split}_x.npy", "--labels",
                   root / f"{split}_y.npy", "--out", root / "data" / split,
                   "--shards", shards, "--compression", compression)
    return root / "data"


@pytest.fixture(scope="module")
def data(tmp_path_factory, run_inflow, images):
    return convert(tmp_path_factory.mktemp("dist"), run_inflow, images, 2)


@pytest.fixture(scope="module")
def gzip_data(tmp_path_factory, run_inflow, images):
    return convert(tmp_path_factory.mktemp("dist_gz"), run_inflow, images, 2, "gzip")


def epochs_of_logs(log_dir, ranks):
    """{epoch: sorted CRCs} of every rank's records-rank-R.txt."""
    epochs = {}
    for r in range(ranks):
        for line in (log_dir / f"records-rank-{r}.txt").read_text().splitlines():
            step, *crcs = map(int, line.split())
            epochs.setdefault((step - 1) // (TRAIN // BATCH), []).extend(crcs)
    return {e: sorted(c) for e, c in epochs.items()}


@pytest.mark.parametrize("ranks,compressed,plan", [
    (2, False, "whole files i % 2 == 0"),
    (3, False, "read by index"),
    (3, True, "kept from reading every record"),
])
def test_every_record_is_used_once_per_epoch_across_the_ranks(
        ranks, compressed, plan, data, gzip_data, images, inflow_bin, tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    proc = mpirun(ranks, inflow_bin, gzip_data if compressed else data,
                  "--steps", 15, "--log-records", logs)
    assert plan in proc.stderr
    dataset = sorted(zlib.crc32(img.tobytes()) for img in images)
    assert len(set(dataset)) == TRAIN
    epochs = epochs_of_logs(logs, ranks)
    assert sorted(epochs) == [0, 1, 2]
    for e, crcs in epochs.items():
        assert crcs == dataset, f"epoch {e}"


def weights(ckpt):
    import inflow
    reader = inflow.train.load_checkpoint(str(ckpt))
    return {name: reader.get_tensor(name) for name, _ in inflow.train.list_variables(str(ckpt))
            if name.startswith("layer") and "/Adam" not in name}


def assert_same_model(a, b):
    wa, wb = weights(a), weights(b)
    assert sorted(wa) == sorted(wb) and len(wa) == 6
    for name in wa:
        # The sums' order differs between 1 and N ranks: a few 1e-5 after
        # 10 Adam steps (a rank with another batch would be 1e-2 off).
        np.testing.assert_allclose(wa[name], wb[name], atol=1e-4, err_msg=name)


def test_two_ranks_train_the_one_rank_model_and_resume_with_one_and_three(
        data, inflow_bin, tmp_path):
    common = ("--feed", "sequence", "--save-every", 5)
    mpirun(1, inflow_bin, data, "--steps", 10, "--ckpt-dir", tmp_path / "one", *common)
    mpirun(2, inflow_bin, data, "--steps", 10, "--ckpt-dir", tmp_path / "two", *common)
    assert_same_model(tmp_path / "one", tmp_path / "two")
    for then in (1, 3):
        ckpt = tmp_path / f"resumed{then}"
        mpirun(2, inflow_bin, data, "--steps", 5, "--ckpt-dir", ckpt, *common)
        proc = mpirun(then, inflow_bin, data, "--steps", 10, "--ckpt-dir", ckpt, "--resume",
                      *common)
        assert "resumed from" in proc.stderr and "at step 5" in proc.stderr
        assert '"steps": 10' in proc.stdout
        assert_same_model(tmp_path / "one", ckpt)


def test_the_shared_memory_step_trains_the_allreduce_model_on_one_and_on_two_hosts(
        data, inflow_bin, tmp_path):
    # One copy of the parameters per machine, each rank summing and updating
    # a slice; the same with each rank a "machine" of its own (the slices
    # summed between machines with MPI); and MPI_Allreduce alone: two ranks'
    # sums are the same bits on all three paths.
    common = ("--feed", "sequence", "--steps", 10, "--save-every", 5)
    runs = {"shared": (), "hosts": ("--ranks-per-host", 1),
            "allreduce": ("--no-shared-memory",)}
    said = {"shared": "in shared memory: one copy of the parameters per machine, 2 ranks a machine",
            "hosts": "in shared memory: one copy of the parameters per machine, 1 rank a machine",
            "allreduce": "each step sums with MPI_Allreduce"}
    for name, extra in runs.items():
        proc = mpirun(2, inflow_bin, data, "--ckpt-dir", tmp_path / name, *common, *extra)
        assert said[name] in proc.stderr + proc.stdout, name
    want = weights(tmp_path / "allreduce")
    for name in ("shared", "hosts"):
        got = weights(tmp_path / name)
        assert sorted(got) == sorted(want)
        for key in want:
            np.testing.assert_array_equal(got[key], want[key], err_msg=f"{name} {key}")
    # Four ranks as two machines of two.
    mpirun(4, inflow_bin, data, "--ckpt-dir", tmp_path / "four", "--ranks-per-host", 2,
           *common)
    assert_same_model(tmp_path / "allreduce", tmp_path / "four")


def read_lines_until(stream, pattern, deadline, seen):
    """Lines of `stream` into `seen` until one matches `pattern`; the match."""
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return m
    raise AssertionError(f"no line matching {pattern!r}:\n{''.join(seen)}")


def start_long_run(inflow_bin, data, ranks, *args):
    return subprocess.Popen(
        mpirun_args(ranks) + train_args(inflow_bin, data, "--steps", 100000, *args),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=mpirun_env(),
        start_new_session=True)


def test_a_killed_rank_makes_the_others_exit_within_10_s_naming_it_and_the_step(
        data, inflow_bin, tmp_path):
    proc = start_long_run(inflow_bin, data, 2, "--ckpt-dir", tmp_path / "ckpt",
                          "--save-every", 20)
    try:
        seen = []
        deadline = time.monotonic() + 120
        pid = int(read_lines_until(proc.stdout, r"rank 1 \(pid (\d+)", deadline, seen)[1])
        read_lines_until(proc.stdout, r"saved .*model\.ckpt-20\b", deadline, seen)  # training
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        out, _ = proc.communicate(timeout=30)
        elapsed = time.monotonic() - killed
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    output = "".join(seen) + out
    assert proc.returncode != 0
    assert elapsed < 10, output
    m = re.search(r"rank 0 \(pid \d+ on [^)]*\): rank 1 \(pid (\d+) on [^)]*\) has died; "
                  r"the allreduce of step (\d+) cannot complete", output)
    assert m, output
    assert int(m[1]) == pid and int(m[2]) > 20


def test_a_rank_whose_input_fails_fails_every_rank_naming_it(data, inflow_bin, tmp_path):
    # MPMD: rank 1 is given a data folder that does not exist.
    missing = tmp_path / "not-there"
    proc = subprocess.run(
        ["mpirun", "--oversubscribe", "-np", "1"] + train_args(inflow_bin, data, "--steps", 5)
        + [":", "-np", "1"] + train_args(inflow_bin, missing, "--steps", 5),
        capture_output=True, text=True, env=mpirun_env(), timeout=120)
    assert proc.returncode != 0
    # Both ranks report rank 1's error.
    # (Non-greedy: mpirun may join the two ranks' lines into one.)
    errors = re.findall(r"rank 1 \(pid \d+ on [^)]*\): .*?not-there.*? \(loading the data\)",
                        proc.stderr)
    assert len(errors) == 2, proc.stderr


def test_ctrl_c_on_mpirun_stops_every_rank_with_a_final_checkpoint(data, inflow_bin, tmp_path):
    ckpt = tmp_path / "ckpt"
    proc = start_long_run(inflow_bin, data, 2, "--ckpt-dir", ckpt, "--save-every", 20)
    try:
        seen = []
        read_lines_until(proc.stdout, r"saved .*model\.ckpt-20\b", time.monotonic() + 120, seen)
        proc.send_signal(signal.SIGINT)  # mpirun: SIGTERM to every rank
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    output = "".join(seen) + out
    m = re.search(r"interrupted at step (\d+); saved (\S+model\.ckpt-(\d+));", output)
    assert m, output
    assert m[1] == m[3] and int(m[1]) > 20
    assert (ckpt / f"model.ckpt-{m[1]}.index").exists()
    # The last checkpoint is the stop's, of the step rank 0 stopped at.
    import inflow
    assert inflow.train.latest_checkpoint(str(ckpt)).endswith(f"model.ckpt-{m[1]}")


# Each rank writes its JSON to OUT/rank-R.json (mpirun's forwarding of the
# ranks' stdout can join two ranks' lines into one).
PY_SCRIPT = textwrap.dedent("""
    import json, sys, numpy as np, inflow
    from inflow import distributed as dist
    r, n = dist.rank(), dist.size()
    a = np.full(5, r + 1, np.float32)
    assert dist.allreduce(a) is a
    b = np.arange(3, dtype=np.float64) * (r + 1)
    dist.allreduce(b, average=False)
    c = np.arange(4, dtype=np.int64) * (10 if r == 1 else 1)
    assert dist.broadcast(c, root=1) is c
    dist.barrier()
    files = dist.shard([f"f{i}" for i in range(5)])
    ds = dist.shard(inflow.data.Dataset.range(10))
    out = {"rank": r, "size": n, "mean": a.tolist(), "sum": b.tolist(), "files": files,
           "elements": [int(x) for x in ds.as_numpy_iterator()], "broadcast": c.tolist(),
           "launched": dist.launched_by_mpi()}
    try:
        dist.shard(["only"])
        out["few"] = "no error"
    except ValueError as e:
        out["few"] = str(e)
    try:
        dist.allreduce(np.zeros(2, np.int32))
        out["int"] = "no error"
    except Exception as e:
        out["int"] = type(e).__name__
    with open(f"{sys.argv[1]}/rank-{r}.json", "w") as f:
        json.dump(out, f)
""")


def rank_outputs(out_dir, ranks):
    """Each rank's JSON, in rank order."""
    import json
    return [json.loads((out_dir / f"rank-{r}.json").read_text()) for r in range(ranks)]


def test_python_rank_size_shard_and_allreduce_under_mpirun(tmp_path):
    script = tmp_path / "dist.py"
    script.write_text(PY_SCRIPT)
    proc = subprocess.run(mpirun_args(2) + [sys.executable, str(script), str(tmp_path)],
                          capture_output=True, text=True, env=mpirun_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    outs = rank_outputs(tmp_path, 2)
    assert [o["rank"] for o in outs] == [0, 1]
    for o in outs:
        assert o["size"] == 2 and o["launched"]
        assert o["mean"] == [1.5] * 5
        assert o["sum"] == [0.0, 3.0, 6.0]
        assert o["broadcast"] == [0, 10, 20, 30]  # rank 1's on both
        assert "1 files for 2 ranks" in o["few"]
        assert o["int"] == "InvalidArgumentError"
    assert outs[0]["files"] == ["f0", "f2", "f4"] and outs[1]["files"] == ["f1", "f3"]
    assert outs[0]["elements"] == [0, 2, 4, 6, 8] and outs[1]["elements"] == [1, 3, 5, 7, 9]


def test_python_allreduce_of_a_pytorch_tensor_in_place(tmp_path):
    python = require_torch_python()
    script = tmp_path / "torch_dist.py"
    script.write_text(textwrap.dedent("""
        import json, sys, torch
        from inflow import distributed as dist
        t = torch.full((4,), float(dist.rank() * 2))
        before = t.data_ptr()
        out = dist.allreduce(t)
        with open(f"{sys.argv[1]}/rank-{dist.rank()}.json", "w") as f:
            json.dump({"values": t.tolist(), "same": out is t and t.data_ptr() == before}, f)
    """))
    env = script_env()
    env.update({k: v for k, v in mpirun_env().items() if k.startswith("OMPI_")})
    proc = subprocess.run(mpirun_args(2) + [str(python), str(script), str(tmp_path)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for out in rank_outputs(tmp_path, 2):
        assert out == {"values": [1.0, 1.0, 1.0, 1.0], "same": True}


def test_import_inflow_needs_no_mpi_library_until_distributed_is_called():
    # Open MPI's library is linked by inflow._inflow_mpi alone, loaded on
    # the first call of inflow.distributed; without it, that call is an
    # ImportError saying what to install and the rest of inflow works.
    script = textwrap.dedent("""
        import json, sys
        import inflow
        from inflow import distributed as dist

        def mpi_mapped():
            with open("/proc/self/maps") as f:
                return any("libmpi" in line for line in f)

        out = {"elements": [int(x) for x in inflow.data.Dataset.range(3)],
               "after_import": mpi_mapped()}
        sys.modules["inflow._inflow_mpi"] = None  # as if it cannot load
        try:
            dist.rank()
        except ImportError as e:
            out["error"] = str(e)
        # launched_by_mpi() answers without the library, from the
        # launcher's environment, as the library's own check does.
        import os
        out["launched"] = [dist.launched_by_mpi()]
        for name in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"):
            os.environ[name] = "2"
            out["launched"].append(dist.launched_by_mpi())
            del os.environ[name]
        del sys.modules["inflow._inflow_mpi"]
        dist._mpi = None
        out["launched_with_library"] = [dist.launched_by_mpi()]
        os.environ["PMIX_RANK"] = "0"
        out["launched_with_library"].append(dist.launched_by_mpi())
        del os.environ["PMIX_RANK"]
        out["rank"] = dist.rank()
        out["after_call"] = mpi_mapped()
        print(json.dumps(out))
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    import json
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["elements"] == [0, 1, 2]
    assert out["after_import"] is False
    assert "inflow.distributed needs Open MPI's library (libmpi)" in out["error"]
    assert "apt-get install openmpi-bin libopenmpi3" in out["error"]
    assert out["launched"] == [False, True, True, True]
    assert out["launched_with_library"] == [False, True]
    assert out["rank"] == 0 and out["after_call"] is True
