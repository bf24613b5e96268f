"""py_checkpoint_read: reading one large tensor of a V2 checkpoint from
Python, inflow against TensorFlow, in the same run.

A checkpoint holding one float32 tensor of --mib MiB (written by TF's
tf.train.Checkpoint, so both read TF's file) is read, in alternating order
each round, by

  tf              tf.train.load_checkpoint(p).get_tensor(name)
  inflow          inflow.train.load_checkpoint(p).get_tensor(name)
  inflow_restore  inflow.train.Saver({name: array}).restore(p) into an
                  existing array (in place)

Every read checks the tensor's CRC32C. The file is in the page cache after
the first round (the figures are of CPU and memory work, not of the disk).
Each figure is the median over --rounds rounds of the seconds one read
takes; also ns per byte. The last line is one JSON object whose "ratio" is
inflow's median over TF's (below 1: inflow is faster).

  PYTHONPATH=build/release/python .venv/bin/python \
      bench/py/checkpoint_read_vs_tf.py [--mib 200] [--rounds 9]
"""

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--smoke", action="store_true", help="8 MiB, 3 rounds")
    args = parser.parse_args()
    if args.smoke:
        args.mib, args.rounds = 8, 3

    import tensorflow as tf
    import inflow.train

    n = args.mib * (1 << 20) // 4
    values = np.random.default_rng(1).standard_normal(n, dtype=np.float32)
    with tempfile.TemporaryDirectory() as tmp:
        prefix = tf.train.Checkpoint(w=tf.Variable(values)).write(
            os.path.join(tmp, "big"))
        name = "w/.ATTRIBUTES/VARIABLE_VALUE"
        del values
        target = np.empty(n, np.float32)
        saver = inflow.train.Saver({name: target})

        def tf_read():
            return tf.train.load_checkpoint(prefix).get_tensor(name)

        def inflow_read():
            return inflow.train.load_checkpoint(prefix).get_tensor(name)

        def inflow_restore():
            saver.restore(prefix)
            return target

        forms = {"tf": tf_read, "inflow": inflow_read,
                 "inflow_restore": inflow_restore}
        expected = tf_read()
        for f in forms.values():  # warm the page cache and check equality
            got = f()
            assert got.shape == expected.shape and np.array_equal(got, expected)
            del got
        times = {k: [] for k in forms}
        order = list(forms)
        for r in range(args.rounds):
            for k in order[r % len(order):] + order[:r % len(order)]:
                start = time.perf_counter()
                out = forms[k]()
                times[k].append(time.perf_counter() - start)
                del out
        nbytes = n * 4
        result = {"bench": "py_checkpoint_read", "cpu": cpu_name(),
                  "bytes": nbytes, "rounds": args.rounds}
        for k, v in times.items():
            med = statistics.median(v)
            result[k + "_s"] = med
            result[k + "_ns_per_byte"] = med * 1e9 / nbytes
            print(f"{k:15s} median {med * 1e3:8.1f} ms  "
                  f"{med * 1e9 / nbytes:6.3f} ns/byte  "
                  f"(min {min(v) * 1e3:.1f}, max {max(v) * 1e3:.1f} ms)")
        result["ratio"] = result["inflow_s"] / result["tf_s"]
        result["restore_ratio"] = result["inflow_restore_s"] / result["tf_s"]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
