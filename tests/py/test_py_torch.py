"""inflow.torch: batches handed to PyTorch without a copy.

PyTorch is Debian's python3-torch, importable only from /usr/bin/python3,
so every check here runs as a script under .venv-torch's python
(scripts/install-deps installs python3-torch and makes .venv-torch) with
this build's package first on its path; each script prints one JSON line
that the test asserts on. The tests fail, saying what to run, when
.venv-torch or torch in it is missing, and when a torch that is there
does not import: they never skip.
"""
import subprocess
import sys
import textwrap

import pytest

from conftest import BUILD
from torch_venv import require_torch_python, run_script, script_env


@pytest.fixture(scope="module")
def torch_run():
    """Runs a script under .venv-torch's python; returns its JSON line."""
    python = require_torch_python()
    return lambda code: run_script(python, code)


def test_import_without_torch_is_a_clear_import_error():
    # Any interpreter: torch is made unimportable for this run.
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent("""
            import sys
            sys.modules["torch"] = None  # import torch raises ImportError
            try:
                import inflow.torch
            except ImportError as e:
                print(e)
            else:
                print("imported")
            import inflow  # the rest of the package is unaffected
            print(inflow.FIFOQueue.__name__)
        """)], capture_output=True, text=True, env=script_env(), timeout=60)
    assert proc.returncode == 0, proc.stderr
    message, name = proc.stdout.strip().splitlines()
    assert message.startswith("inflow.torch needs PyTorch"), message
    assert "scripts/install-deps" in message
    assert name == "FIFOQueue"


def test_extension_imports_under_debian_python(torch_run):
    # The build's extension is for CPython 3.11 (.venv, 3.11.7); Debian's
    # 3.11.2 has the same ABI and loads the same file.
    out = torch_run("""
        import json, sys, inflow, torch
        print(json.dumps({"version": list(sys.version_info[:2]),
                          "module": inflow._inflow.__file__,
                          "torch": torch.__version__}))
    """)
    assert out["version"] == [3, 11]
    assert out["module"].startswith(str(BUILD / "python" / "inflow"))


def test_to_torch_shares_the_dequeued_arrays_memory(torch_run):
    out = torch_run("""
        import json
        import numpy as np
        import inflow
        from inflow.torch import to_torch

        q = inflow.FIFOQueue(4, [np.float32, np.int64],
                             shapes=[[3, 2], [3]])
        q.enqueue([np.arange(6, dtype=np.float32).reshape(3, 2),
                   np.array([7, 8, 9], dtype=np.int64)])
        images, labels = q.dequeue()
        t_images, t_labels = to_torch([images, labels])
        address = lambda a: a.__array_interface__["data"][0]
        named = to_torch({"x": images, "s": np.array([b"a", b"b"], dtype=object)})
        print(json.dumps({
            "same_images": t_images.data_ptr() == address(images),
            "same_labels": t_labels.data_ptr() == address(labels),
            "named_same": named["x"].data_ptr() == address(images),
            "strings": [type(named["s"]).__name__,
                        [v.decode() for v in named["s"].tolist()]],
            "dtypes": [str(t_images.dtype), str(t_labels.dtype)],
            "shapes": [list(t_images.shape), list(t_labels.shape)],
            "values": t_images.flatten().tolist() + t_labels.tolist(),
        }))
    """)
    assert out["same_images"] and out["same_labels"] and out["named_same"]
    assert out["strings"] == ["ndarray", ["a", "b"]]  # no string tensors in torch
    assert out["dtypes"] == ["torch.float32", "torch.int64"]
    assert out["shapes"] == [[3, 2], [3]]
    assert out["values"] == [0, 1, 2, 3, 4, 5, 7, 8, 9]


def test_to_torch_structures_and_unsupported_dtypes(torch_run):
    out = torch_run("""
        import json
        import numpy as np
        import torch
        from inflow.torch import to_torch

        a = np.arange(4, dtype=np.float64)
        writes = to_torch(a)
        a[0] = 42.0  # the tensor sees the array's memory
        ro = np.arange(3, dtype=np.int32)
        ro.flags.writeable = False
        try:
            to_torch(np.zeros(2, np.uint16))
            unsupported = None
        except TypeError as e:
            unsupported = str(e)
        print(json.dumps({
            "tensor": isinstance(writes, torch.Tensor),
            "first": writes[0].item(),
            "tuple": type(to_torch([a, a])).__name__,
            "dict_keys": sorted(to_torch({"b": a, "a": a})),
            "readonly_same": to_torch(ro).data_ptr() == ro.__array_interface__["data"][0],
            "strings": type(to_torch(np.array([b"x"], dtype=object))).__name__,
            "scalar": [to_torch(np.int64(7)).item(), to_torch(np.int64(7)).dim(),
                       str(to_torch(np.float32(0.5)).dtype)],
            "bytes_leaf": to_torch((b"k", a))[0].decode(),
            "unsupported": unsupported,
        }))
    """)
    assert out["tensor"] and out["first"] == 42.0
    assert out["tuple"] == "tuple"
    assert out["dict_keys"] == ["a", "b"]
    assert out["readonly_same"]
    assert out["strings"] == "ndarray"
    assert out["scalar"] == [7, 0, "torch.float32"]
    assert out["bytes_leaf"] == "k"
    assert out["unsupported"] is not None and "uint16" in out["unsupported"]


def test_iterable_dataset_over_dequeue_many_ends_at_out_of_range(torch_run):
    out = torch_run("""
        import json
        import numpy as np
        import torch.utils.data
        import inflow
        from inflow.torch import IterableDataset

        q = inflow.FIFOQueue(20, [np.float32, np.int64], shapes=[[2], []])
        q.enqueue_many([np.arange(20, dtype=np.float32).reshape(10, 2),
                        np.arange(10, dtype=np.int64)])
        q.close()
        loader = torch.utils.data.DataLoader(IterableDataset(q.dequeue_many, 4),
                                             batch_size=None, num_workers=0)
        batches = [(x.tolist(), y.tolist(), type(x).__name__) for x, y in loader]
        # The queue is a stream: nothing is left after the end.
        again = list(IterableDataset(q.dequeue_many, 4))
        print(json.dumps({"batches": batches, "again": len(again)}))
    """)
    # dequeue_many(4) of a closed queue holding 2 raises OutOfRangeError
    # (TF's rule), which ends the iteration: 2 batches, the last 2 rows
    # stay in the queue.
    assert [b[1] for b in out["batches"]] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert out["batches"][0][0] == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert {b[2] for b in out["batches"]} == {"Tensor"}
    assert out["again"] == 0


def test_iterable_dataset_passes_other_errors_and_refuses_workers(torch_run):
    out = torch_run("""
        import json
        import numpy as np
        import torch.utils.data
        import inflow
        from inflow.torch import IterableDataset

        q = inflow.FIFOQueue(2, [np.float32], shapes=[[]])
        try:
            # A timeout while the queue is empty is not the end of input.
            list(IterableDataset(q.dequeue_many, 1, timeout=0.05))
            timeout = None
        except inflow.errors.DeadlineExceededError as e:
            timeout = e.error_code
        try:
            list(IterableDataset(42))
            bad_source = None
        except TypeError as e:
            bad_source = str(e)
        loader = torch.utils.data.DataLoader(
            IterableDataset([np.zeros(2, np.float32)]), batch_size=None,
            num_workers=1)
        try:
            list(loader)
            worker = None
        except RuntimeError as e:
            worker = str(e)
        print(json.dumps({"timeout": timeout, "bad_source": bad_source,
                          "worker": worker}))
    """)
    assert out["timeout"] == 4  # DEADLINE_EXCEEDED
    assert "must be iterable" in out["bad_source"]
    assert out["worker"] is not None and "num_workers=0" in out["worker"]


@pytest.fixture(scope="module")
def example_files(tmp_path_factory):
    """3 TFRecord files of 10 Examples each, {"x": 2 floats, "label": i},
    written by TensorFlow (the reference) in this process."""
    import tensorflow as tf
    folder = tmp_path_factory.mktemp("torch_records")
    paths = []
    for f in range(3):
        path = str(folder / f"part-{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(10 * f, 10 * f + 10):
                w.write(tf.train.Example(features=tf.train.Features(feature={
                    "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i, -i])),
                    "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
                })).SerializeToString())
        paths.append(path)
    return paths


def test_iterable_dataset_over_a_pipeline(torch_run, example_files):
    out = torch_run(f"""
        import json
        import torch.utils.data
        import inflow
        from inflow.torch import IterableDataset

        files = {example_files!r}
        pipeline = inflow.Pipeline(
            files, features={{"x": inflow.FixedLenFeature([2], "float32"),
                             "label": inflow.FixedLenFeature([], "int64")}},
            num_epochs=1, shuffle=False, batch_size=4, allow_smaller_final_batch=True)
        batches = list(torch.utils.data.DataLoader(IterableDataset(pipeline),
                                                   batch_size=None, num_workers=0))
        pipeline.close()
        print(json.dumps({{
            "keys": sorted(batches[0]),
            "types": sorted({{type(b[k]).__name__ for b in batches for k in b}}),
            "sizes": [b["label"].shape[0] for b in batches],
            "labels": sorted(l for b in batches for l in b["label"].tolist()),
            "x_ok": all(b["x"][:, 0].tolist() == [float(l) for l in b["label"].tolist()]
                        for b in batches),
            "dtype": str(batches[0]["x"].dtype),
        }}))
    """)
    assert out["keys"] == ["label", "x"]
    assert out["types"] == ["Tensor"]
    assert sum(out["sizes"]) == 30 and max(out["sizes"]) == 4
    assert out["labels"] == list(range(30))
    assert out["x_ok"]
    assert out["dtype"] == "torch.float32"


def test_iterable_dataset_over_a_shuffle_batch(torch_run, example_files):
    out = torch_run(f"""
        import json
        import inflow
        from inflow.torch import IterableDataset

        files = inflow.train.string_input_producer({example_files!r}, num_epochs=1,
                                                    seed=3)
        _, serialized = inflow.TFRecordReader().read(files)
        features = inflow.parse_single_example(serialized, {{
            "x": inflow.FixedLenFeature([2], "float32"),
            "label": inflow.FixedLenFeature([], "int64")}})
        batches = inflow.train.shuffle_batch(
            [features["x"], features["label"]], batch_size=4, capacity=20,
            min_after_dequeue=5, num_threads=2, seed=3)
        coord = inflow.train.Coordinator()
        threads = inflow.train.start_queue_runners(coord=coord)
        seen = [(type(x).__name__, x[:, 0].tolist(), y.tolist())
                for x, y in IterableDataset(batches)]
        coord.request_stop()
        coord.join(threads)
        print(json.dumps(seen))
    """)
    # 30 examples in full batches of 4: 7 batches, 2 examples left over.
    assert len(out) == 7
    assert {kind for kind, _, _ in out} == {"Tensor"}
    labels = [v for _, _, y in out for v in y]
    assert len(set(labels)) == 28 and set(labels) <= set(range(30))
    assert all(x == [float(v) for v in y] for _, x, y in out)


def run_debian_python_test(tmp_path, torch_python):
    """This file's debian_python test in a pytest subprocess whose torch
    venv is `torch_python`; (returncode, output)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
         __file__, "-k", "debian_python"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**script_env(), "INFLOW_TORCH_PYTHON": str(torch_python)})
    return proc.returncode, proc.stdout + proc.stderr


def test_a_broken_torch_fails_the_tests_instead_of_skipping(tmp_path):
    # A "torch venv" whose torch is installed but raises on import.
    shadow = tmp_path / "shadow" / "torch"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('this torch is broken')\n")
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\nPYTHONPATH={shadow.parent}:$PYTHONPATH "
                      f"exec {sys.executable} \"$@\"\n")
    python.chmod(0o755)
    rc, out = run_debian_python_test(tmp_path, python)
    assert rc != 0, out
    assert "1 failed" in out and "this torch is broken" in out, out
    assert "skipped" not in out, out


def test_a_missing_torch_venv_fails_the_tests_saying_what_to_run(tmp_path):
    rc, out = run_debian_python_test(tmp_path, tmp_path / "no-venv" / "bin" / "python")
    assert rc != 0, out
    assert "1 error" in out, out  # in the torch_run fixture
    assert f"no PyTorch venv: {tmp_path / 'no-venv' / 'bin' / 'python'} is missing" in out
    assert "run scripts/install-deps (or `make test`, which runs it)" in out, out
    assert "skipped" not in out, out


def test_a_venv_without_torch_fails_the_tests_saying_what_to_run(tmp_path):
    # A python that exists but has no torch module to find.
    python = tmp_path / "python"
    python.write_text(f"#!/bin/sh\nexec {sys.executable} -I \"$@\"\n")
    python.chmod(0o755)
    rc, out = run_debian_python_test(tmp_path, python)
    assert rc != 0, out
    assert "1 error" in out, out  # in the torch_run fixture
    assert f"torch is not installed for {python}" in out, out
    assert "run scripts/install-deps" in out, out
    assert "skipped" not in out, out


SEQUENCE = """
    import json, os, threading
    import numpy as np
    from inflow import utils

    class Rows(utils.Sequence):
        # Batch i: ({"x": 4 x 3 float32 rows of value i}, int64 labels i);
        # the arrays each call returned, by index, to compare addresses.
        def __init__(self, n):
            self.n = n
            self.made = {}
            self.ends = 0
            self.lock = threading.Lock()

        def __len__(self):
            return self.n

        def __getitem__(self, i):
            x = np.full((4, 3), i, np.float32)
            with self.lock:
                self.made.setdefault(i, []).append(x.__array_interface__["data"][0])
            return {"x": x}, np.full(4, i, np.int64)

        def on_epoch_end(self):
            self.ends += 1
"""
# Indented as the scripts of the tests below, which it starts.
SEQUENCE = textwrap.indent(textwrap.dedent(SEQUENCE), " " * 8)


def test_sequence_dataset_over_thread_workers_is_epochs_without_copies(torch_run):
    out = torch_run(SEQUENCE + """
        import torch, torch.utils.data
        from inflow.torch import SequenceDataset

        seq = Rows(5)
        with SequenceDataset(seq, workers=2, max_queue_size=3) as ds:
            loader = torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
            epochs, shared = [], True
            for _ in range(3):
                seen = []
                for x, y in loader:
                    i = int(y[0])
                    seen.append(i)
                    shared &= x["x"].data_ptr() in seq.made[i]
                    assert type(x["x"]) is torch.Tensor and x["x"].dtype == torch.float32
                    assert x["x"][0, 0].item() == i
                epochs.append(seen)
            running = ds.enqueuer.is_running()
            workers = ds.enqueuer.workers
            length = len(ds)
        print(json.dumps({"epochs": epochs, "shared": shared, "ends": seq.ends,
                          "running": running, "after": ds.enqueuer.is_running(),
                          "workers": workers, "len": length}))
    """)
    assert out["epochs"] == [list(range(5))] * 3
    assert out["shared"]  # the tensors are the arrays __getitem__ returned
    assert out["ends"] >= 2 and out["workers"] == 2 and out["len"] == 5
    assert out["running"] and not out["after"]


def test_sequence_dataset_over_process_workers_shares_memory(torch_run):
    out = torch_run(SEQUENCE + """
        import torch
        from inflow.torch import SequenceDataset

        def shm_ranges():
            ranges = []
            with open("/proc/self/maps") as f:
                for line in f:
                    if "/dev/shm/" in line:
                        lo, hi = (int(v, 16) for v in line.split()[0].split("-"))
                        ranges.append((lo, hi))
            return ranges

        ds = SequenceDataset(Rows(4), workers=2, use_multiprocessing=True,
                             shuffle=True, seed=3, start_method="fork")
        epochs, in_shm = [], True
        for _ in range(2):
            seen = []
            for x, y in ds:
                seen.append(int(y[0]))
                ranges = shm_ranges()
                in_shm &= any(lo <= t.data_ptr() < hi for t in (x["x"], y)
                              for lo, hi in ranges)
                assert x["x"][0, 0].item() == int(y[0])
            epochs.append(seen)
        ds.close()
        import random
        rng = random.Random(3)
        expected = []
        for _ in range(2):
            perm = list(range(4))
            rng.shuffle(perm)
            expected.append(perm)
        print(json.dumps({"epochs": epochs, "expected": expected, "in_shm": in_shm,
                          "running": ds.enqueuer.is_running()}))
    """)
    assert out["epochs"] == out["expected"]
    assert out["in_shm"]  # views of the workers' shared-memory blocks
    assert not out["running"]


def test_iterable_dataset_takes_an_enqueuer_or_a_sequence(torch_run):
    out = torch_run(SEQUENCE + """
        from inflow.torch import IterableDataset, SequenceDataset

        seq = Rows(3)
        enqueuer = utils.OrderedEnqueuer(seq)
        enqueuer.start(workers=2, max_queue_size=2)
        ds = IterableDataset(enqueuer)
        passes = [[int(y[0]) for _, y in ds] for _ in range(2)]
        still = enqueuer.is_running()  # started by the caller: left running
        enqueuer.stop()

        # A Sequence is an iterable: one pass in order, in this thread.
        plain = [int(y[0]) for _, y in IterableDataset(Rows(3))]

        def gen():
            for i in range(4):
                yield np.full(2, i, np.int64)
        generated = [t.tolist() for t in IterableDataset(
            utils.GeneratorEnqueuer(gen()))]
        errors = {}
        try:
            SequenceDataset(utils.OrderedEnqueuer(seq), shuffle=True)
        except ValueError as e:
            errors["option"] = str(e)
        try:
            len(SequenceDataset(utils.GeneratorEnqueuer(gen())))
        except TypeError as e:
            errors["len"] = str(e)
        print(json.dumps({"passes": passes, "still": still, "plain": plain,
                          "generated": generated, "errors": errors}))
    """)
    assert out["passes"] == [[0, 1, 2], [0, 1, 2]]
    assert out["still"]
    assert out["plain"] == [0, 1, 2]
    assert out["generated"] == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert "the enqueuer's own" in out["errors"]["option"]
    assert "no length" in out["errors"]["len"]
