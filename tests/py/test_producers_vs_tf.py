"""Differential test: inflow's input producers against TensorFlow's own.

Each case runs tf.compat.v1.train.range_input_producer,
string_input_producer or slice_input_producer in graph mode (a fresh graph,
one Session, start_queue_runners, dequeue until OutOfRange) and the same
producer in inflow through tests/producer_tf_driver, and compares the whole
sequence: the same elements in the same order, and the same end (TF's
OutOfRangeError, the driver's OUT_OF_RANGE). Shuffled cases use an op seed,
an op seed with a graph seed, (0, 0) (TF's special case) or a graph seed
alone; the last is reproducible because the producer's shuffle is the first
op of a fresh graph to ask for a seed (TF then gives it op seed 0, as
inflow does). Unseeded shuffles are random in both and are compared as
counts per element.

Run as a program with --golden, it prints the table of
tests/input/producers_tf_golden_test.cc from TF's outputs.
"""
import collections
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
DRIVER = BUILD / "tests" / "producer_tf_driver"

SIZES = {"range": 10, "string": 7, "slice": 6}
# (shuffle, op seed, graph seed)
SEEDINGS = [(False, None, None), (True, 1, None), (True, 42, None), (True, -4, None),
            (True, 7, 3), (True, 0, 0), (True, None, 5)]
CASES = [(kind, SIZES[kind], epochs, shuffle, seed, graph_seed, capacity)
         for kind in ("range", "string", "slice")
         for epochs in (1, 2, 3)
         for i, (shuffle, seed, graph_seed) in enumerate(SEEDINGS)
         for capacity in ((2, 32)[(i + epochs) % 2],)]
CASES += [("range", 33, 2, True, 12345, None, 2), ("string", 40, 3, True, 9, 2, 32),
          ("range", 1, 3, True, 5, None, 2)]

# The cases the C++ golden test pins (a subset of CASES).
GOLDEN = [("range", 10, 3, True, 42, None, 32), ("range", 10, 2, True, -4, None, 2),
          ("range", 33, 2, True, 12345, None, 2), ("range", 10, 2, True, 0, 0, 32),
          ("range", 10, 2, True, None, 5, 2), ("string", 7, 3, True, 7, 3, 2),
          ("string", 7, 1, True, 1, None, 32), ("string", 40, 3, True, 9, 2, 32),
          ("slice", 6, 2, True, 42, None, 2), ("slice", 6, 3, True, 7, 3, 32)]


def run_tf(kind, n, num_epochs, shuffle, seed, graph_seed, capacity):
    """TF's sequence for one case, each element as the driver prints it."""
    import tensorflow as tf
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        if graph_seed is not None:
            v1.set_random_seed(graph_seed)
        kwargs = dict(num_epochs=num_epochs, shuffle=shuffle, seed=seed, capacity=capacity)
        if kind == "range":
            out = v1.train.range_input_producer(n, **kwargs).dequeue()
        elif kind == "string":
            out = v1.train.string_input_producer([f"s{i}" for i in range(n)],
                                                 **kwargs).dequeue()
        else:
            values = tf.constant([10 * i for i in range(n)], tf.int64)
            names = tf.constant([[f"r{i}", f"c{i}"] for i in range(n)])
            out = v1.train.slice_input_producer([values, names], **kwargs)
        got = []
        with v1.Session() as sess:
            sess.run([v1.global_variables_initializer(), v1.local_variables_initializer()])
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess, coord)
            try:
                while True:
                    r = sess.run(out)
                    if kind == "range":
                        got.append(str(int(r)))
                    elif kind == "string":
                        got.append(r.decode())
                    else:
                        got.append(f"{int(r[0])} {r[1][0].decode()} {r[1][1].decode()}")
            except tf.errors.OutOfRangeError:
                got.append("OUT_OF_RANGE")
            coord.request_stop()
            coord.join(threads)
    return got


def run_inflow(kind, n, num_epochs, shuffle, seed, graph_seed, capacity):
    text = lambda v: "none" if v is None else str(v)  # noqa: E731
    proc = subprocess.run([str(DRIVER), kind, str(n), text(num_epochs), str(int(shuffle)),
                           text(seed), text(graph_seed), str(capacity)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"driver exited {proc.returncode}: {proc.stdout}{proc.stderr}"
    return proc.stdout.splitlines()


def case_id(case):
    kind, n, epochs, shuffle, seed, graph_seed, capacity = case
    return (f"{kind}{n}-epochs{epochs}-" + (f"seed{seed}-graph{graph_seed}" if shuffle
                                             else "ordered") + f"-cap{capacity}")


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_producer_yields_tfs_sequence(case):
    tf_out = run_tf(*case)
    ours = run_inflow(*case)
    n, epochs = case[1], case[2]
    assert len(tf_out) == n * epochs + 1 and tf_out[-1] == "OUT_OF_RANGE"
    assert ours == tf_out


@pytest.mark.parametrize("kind", ["range", "string", "slice"])
def test_unseeded_shuffle_delivers_each_element_num_epochs_times_as_tf(kind):
    case = (kind, SIZES[kind], 3, True, None, None, 2)
    tf_counts = collections.Counter(run_tf(*case))
    ours = run_inflow(*case)
    assert collections.Counter(ours) == tf_counts
    assert set(tf_counts.values()) == {3, 1}  # every element 3 times, one OUT_OF_RANGE


def print_golden():
    """The golden table of tests/input/producers_tf_golden_test.cc."""
    opt = lambda v: "std::nullopt" if v is None else str(v)  # noqa: E731
    for case in GOLDEN:
        kind, n, epochs, shuffle, seed, graph_seed, capacity = case
        assert shuffle, "the golden test shuffles"
        got = run_tf(*case)[:-1]
        if kind == "slice":
            got = [str(int(v.split()[0]) // 10) for v in got]
        values = ", ".join(f'"{v}"' for v in got)
        print(f'      {{"{kind}", {n}, {epochs}, {opt(seed)}, {opt(graph_seed)}, {capacity},\n'
              f'       {{{values}}}}},')


if __name__ == "__main__":
    if sys.argv[1:] == ["--golden"]:
        print_golden()
    else:
        sys.exit(pytest.main([__file__, *sys.argv[1:]]))
