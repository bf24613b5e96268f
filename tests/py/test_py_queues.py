"""inflow's four queues through Python: API, TF's results, GIL, Ctrl-C, leaks.

The differential part replays the TF differential test's sequences
(queue_tf_oracle.py runs them on TF's kernels and records every result and
error code) through inflow's Python API, with the same timeouts, and
compares values, dtypes, shapes, codes and what the queue held at the end.
A Python-level rejection (ValueError or TypeError for a wrong component
count or dtype, as TF's Python layer raises) counts as INVALID_ARGUMENT,
the kernel's code for the same call.
"""
import collections
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import inflow
from inflow import errors

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import queue_tf_oracle as oracle  # noqa: E402

COUNT = int(os.environ.get("INFLOW_PY_QUEUE_TF_SEQUENCES", 100))
SEED = int(os.environ.get("INFLOW_QUEUE_TF_SEED", 3))
ROOT = pathlib.Path(__file__).resolve().parents[2]


# ---- the API ---------------------------------------------------------------

def test_fifo_queue_api_and_properties():
    q = inflow.FIFOQueue(3, [np.float32, "string"], shapes=[[2], []],
                         name="api")
    assert q.name == "api" and q.capacity == 3
    assert q.dtypes == [np.dtype(np.float32), np.dtype(object)]
    assert q.shapes == [(2,), ()] and q.names is None
    assert q.size() == 0 and not q.is_closed()
    q.enqueue([np.array([1, 2], np.float32), b"a"])
    q.enqueue_many([np.array([[3, 4], [5, 6]], np.float32), [b"b", b"c"]])
    assert q.size() == 3
    x, s = q.dequeue()
    assert x.tolist() == [1, 2] and s == b"a"
    xs, ss = q.dequeue_up_to(2, timeout=0)
    assert xs.shape == (2, 2) and ss.tolist() == [b"b", b"c"]
    q.close()
    assert q.is_closed()
    with pytest.raises(errors.OutOfRangeError):
        q.dequeue_up_to(1)
    assert "FIFOQueue" in repr(q)
    assert inflow.FIFOQueue(1, np.int64).shapes == [None]
    assert inflow.FIFOQueue(-1, [np.int64]).capacity == 2**31 - 1


def test_single_component_queues_take_and_return_single_values():
    q = inflow.FIFOQueue(4, np.int64, shapes=[])  # TF's single-shape form
    q.enqueue(5)
    q.enqueue([6])  # a list is the component list, as TF
    assert q.dequeue() == 5 and q.dequeue() == 6
    with pytest.raises(ValueError):
        q.enqueue([1, 2])  # two components for a one-component queue
    q.enqueue_many([[1, 2, 3]])
    np.testing.assert_array_equal(q.dequeue_many(3), [1, 2, 3])


def test_named_queue_takes_and_returns_dicts():
    q = inflow.FIFOQueue(4, [np.int64, np.float32], shapes=[[], [2]],
                         names=["label", "x"])
    assert q.names == ["label", "x"]
    q.enqueue({"x": [1.0, 2.0], "label": 3})
    q.enqueue_many({"label": [4, 5], "x": np.ones([2, 2], np.float32)})
    out = q.dequeue()
    assert set(out) == {"label", "x"} and out["label"] == 3
    batch = q.dequeue_many(2)
    assert batch["label"].tolist() == [4, 5] and batch["x"].shape == (2, 2)
    with pytest.raises(ValueError):
        q.enqueue([1, [1.0, 2.0]])  # names need a dict
    with pytest.raises(ValueError):
        q.enqueue({"label": 1})
    with pytest.raises(ValueError):
        inflow.FIFOQueue(1, [np.int64], names=["a", "b"])
    with pytest.raises(ValueError):
        inflow.FIFOQueue(1, [np.int64]).enqueue({"a": 1})


def test_padding_fifo_pads_unknown_dims():
    q = inflow.PaddingFIFOQueue(4, [np.int32, "string"],
                                shapes=[[None], [None]])
    assert q.shapes == [(None,), (None,)]
    q.enqueue([[1, 2, 3], [b"a"]])
    q.enqueue([[4], [b"b", b"c"]])
    x, s = q.dequeue_many(2)
    assert x.tolist() == [[1, 2, 3], [4, 0, 0]]
    assert s.tolist() == [[b"a", b""], [b"b", b"c"]]
    with pytest.raises(ValueError):
        inflow.PaddingFIFOQueue(4, [np.int32], shapes=None)
    with pytest.raises(errors.InvalidArgumentError):
        inflow.FIFOQueue(4, [np.int32], shapes=[[None]])


def test_priority_queue_dequeues_smallest_priority_first():
    q = inflow.PriorityQueue(8, [np.float32], shapes=[[]])
    assert q.dtypes == [np.dtype(np.int64), np.dtype(np.float32)]
    assert q.shapes == [(), ()]
    for p in (5, 1, 3):
        q.enqueue([p, float(p) * 10])
    pri, val = q.dequeue_many(3)
    assert pri.tolist() == [1, 3, 5] and val.tolist() == [10, 30, 50]
    named = inflow.PriorityQueue(2, ["string"], shapes=[[]],
                                 names=["p", "v"])
    named.enqueue({"p": 2, "v": b"two"})
    assert named.dequeue() == {"p": 2, "v": b"two"}


def test_random_shuffle_queue_order_is_tfs_for_the_same_seed():
    import tensorflow as tf
    values = np.arange(20, dtype=np.int64)
    q = inflow.RandomShuffleQueue(30, 0, [np.int64], shapes=[[]], seed=17)
    q.enqueue_many([values])
    ours = q.dequeue_many(20).tolist()
    g = tf.Graph()
    with g.as_default():
        tq = tf.compat.v1.RandomShuffleQueue(30, 0, [tf.int64], shapes=[[]],
                                             seed=17)
        enq = tq.enqueue_many([values])
        deq = tq.dequeue_many(20)
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(enq)
            theirs = sess.run(deq).tolist()
    assert ours == theirs
    assert sorted(ours) == values.tolist()
    # min_after_dequeue holds elements back while open.
    r = inflow.RandomShuffleQueue(10, 2, [np.int64], shapes=[[]])
    r.enqueue_many([[1, 2, 3]])
    r.dequeue()
    with pytest.raises(errors.DeadlineExceededError):
        r.dequeue(timeout=0.01)
    r.close()
    rest = sorted([r.dequeue(), r.dequeue()])
    assert len(rest) == 2 and set(rest) < {1, 2, 3}
    with pytest.raises(errors.OutOfRangeError):
        r.dequeue()


def test_close_with_cancel_fails_pending_enqueues():
    q = inflow.FIFOQueue(1, [np.int64], shapes=[[]])
    q.enqueue(1)
    result = {}

    def blocked():
        try:
            q.enqueue(2, timeout=10)
            result["code"] = 0
        except errors.OpError as e:
            result["code"] = e.error_code

    t = threading.Thread(target=blocked)
    t.start()
    time.sleep(0.1)
    q.close(cancel_pending_enqueues=True)
    t.join(10)
    assert result["code"] == errors.CANCELLED
    assert q.dequeue() == 1


def test_shared_name_shares_one_queue():
    a = inflow.FIFOQueue(4, [np.int64], shapes=[[]], shared_name="py_shared")
    b = inflow.FIFOQueue(4, [np.int64], shapes=[[]], shared_name="py_shared")
    a.enqueue(42)
    assert b.dequeue() == 42
    assert a._queue._same(b._queue)


def test_timeouts():
    q = inflow.FIFOQueue(1, [np.int64], shapes=[[]])
    start = time.monotonic()
    with pytest.raises(errors.DeadlineExceededError):
        q.dequeue(timeout=0.05)
    assert time.monotonic() - start >= 0.05
    with pytest.raises(errors.DeadlineExceededError):
        q.dequeue_many(1, timeout=0)
    with pytest.raises(errors.DeadlineExceededError):
        q.dequeue_up_to(1, timeout=-1)
    q.enqueue(1)
    with pytest.raises(errors.DeadlineExceededError):
        q.enqueue(2, timeout=0.01)
    with pytest.raises(errors.DeadlineExceededError):
        q.enqueue_many([[2, 3]], timeout=0.01)
    with pytest.raises(TypeError):
        q.dequeue(timeout="soon")
    with pytest.raises(ValueError):
        q.dequeue(timeout=float("nan"))


def test_blocking_calls_release_the_gil():
    # A Python thread runs (and feeds the queue) while the main thread is
    # blocked in dequeue; and a blocked call on another thread lets the main
    # thread run.
    q = inflow.FIFOQueue(2, [np.int64], shapes=[[]])
    ticks = []

    def producer():
        for i in range(5):
            ticks.append(i)
            time.sleep(0.01)
        q.enqueue(7)

    t = threading.Thread(target=producer)
    t.start()
    assert q.dequeue(timeout=30) == 7
    assert ticks == [0, 1, 2, 3, 4]
    t.join()
    got = []
    t = threading.Thread(target=lambda: got.append(q.dequeue(timeout=30)))
    t.start()
    spins = sum(1 for _ in range(100000))  # runs while t blocks
    q.enqueue(8)
    t.join(30)
    assert got == [8] and spins == 100000


def test_native_queue_round_trip():
    from inflow import _queues
    q = inflow.PaddingFIFOQueue(2, [np.int64], shapes=[[None]])
    again = _queues._from_native(q._queue)
    assert type(again) is inflow.PaddingFIFOQueue
    again.enqueue([[1, 2]])
    assert q.dequeue().tolist() == [1, 2]
    assert q.stats()["enqueued"] == 1


# ---- Ctrl-C ----------------------------------------------------------------

SIGINT_CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import inflow
    q = inflow.FIFOQueue(2, [np.int64], shapes=[[]])
    print("blocking", flush=True)
    try:
        q.{call}
    except KeyboardInterrupt:
        print("interrupted", time.monotonic(), flush=True)
        print("size", q.size(), flush=True)
        sys.exit(0)
    print("not interrupted", flush=True)
    sys.exit(1)
""")


def read_line(proc, seconds):
    """The child's next stdout line, or "" after `seconds`."""
    import select
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    return proc.stdout.readline() if ready else ""


@pytest.mark.parametrize("call,size", [("dequeue()", 0), ("dequeue_many(2)", 0),
                                       ("dequeue_up_to(2, timeout=60)", 0),
                                       ("enqueue_many([[1, 2, 3]])", 2)])
def test_sigint_during_a_blocked_call_raises_keyboard_interrupt(call, size):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.Popen([sys.executable, "-c",
                             SIGINT_CHILD.format(call=call)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, bufsize=1)
    try:
        assert read_line(proc, 60).strip() == "blocking"
        time.sleep(0.3)  # well inside the blocking call
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        line = read_line(proc, 10).split()
        assert line and line[0] == "interrupted", line
        latency = float(line[1]) - sent
        # The interrupted call left the queue as TF's cancelled call does:
        # nothing taken; enqueue_many's rows that fitted stay.
        assert read_line(proc, 10).split() == ["size", str(size)]
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()
    assert latency < 0.5, latency


# ---- leaks -----------------------------------------------------------------

def rss_pages():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1])


def test_no_leak_over_100000_dequeues():
    q = inflow.FIFOQueue(-1, [np.float32, "string"], shapes=[[16], []])
    x = np.ones(16, np.float32)

    def run(n):
        for _ in range(n // 100):
            q.enqueue_many([np.tile(x, (100, 1)), [b"abc"] * 100])
            for _ in range(100):
                a, s = q.dequeue()
        q.enqueue([x, b"x"])
        q.dequeue_many(1)

    run(20000)  # warm-up: allocator pools, caches
    before = rss_pages()
    run(100000)
    grown_kb = (rss_pages() - before) * os.sysconf("SC_PAGE_SIZE") // 1024
    # 100 000 leaked elements of 64+ bytes each would be > 6 MB.
    assert grown_kb < 2048, grown_kb


# ---- the TF differential ---------------------------------------------------

KIND_CLASS = {"fifo": "FIFOQueue", "padding_fifo": "PaddingFIFOQueue",
              "random_shuffle": "RandomShuffleQueue", "priority": "PriorityQueue"}


def make_queue(spec):
    kind = spec["kind"]
    dtypes = list(spec["dtypes"])
    shapes = spec["shapes"]
    if shapes is not None:
        shapes = [[None if d < 0 else d for d in s] for s in shapes]
    if kind == "random_shuffle":
        return inflow.RandomShuffleQueue(
            spec["capacity"], spec["min_after_dequeue"], dtypes, shapes=shapes,
            seed=(spec["seed"], spec["seed2"]))
    if kind == "priority":
        return inflow.PriorityQueue(spec["capacity"], dtypes, shapes=shapes)
    if kind == "padding_fifo":
        return inflow.PaddingFIFOQueue(spec["capacity"], dtypes, shapes=shapes)
    return inflow.FIFOQueue(spec["capacity"], dtypes, shapes=shapes)


def as_list(q, value):
    return value if len(q.dtypes) > 1 else [value]


def queue_dtypes(spec):
    return (["int64"] if spec["kind"] == "priority" else []) + list(spec["dtypes"])


def call(q, spec, op):
    """(code, result json) of one recorded op through the Python API."""
    name = op["op"]
    timeout = op["timeout_ms"] / 1000.0
    try:
        if name in ("enqueue", "enqueue_many"):
            args = [oracle.tensor_numpy(t) for t in op["args"]]
            getattr(q, name)(args, timeout=timeout)
            return 0, None
        if name == "dequeue":
            value = q.dequeue(timeout=timeout)
        elif name in ("dequeue_many", "dequeue_up_to"):
            value = getattr(q, name)(op["n"], timeout=timeout)
        elif name == "close":
            q.close(cancel_pending_enqueues=op["cancel"], timeout=timeout)
            return 0, None
        elif name == "size":
            return 0, {"size": q.size()}
        elif name == "is_closed":
            return 0, {"closed": q.is_closed()}
        else:
            raise AssertionError(name)
        return 0, {"values": [oracle.tensor_json(d, v) for d, v in
                              zip(queue_dtypes(spec), as_list(q, value))]}
    except errors.OpError as e:
        return e.error_code, None
    except (ValueError, TypeError):
        return oracle.INVALID_ARGUMENT, None


def drain(q, spec):
    q.close(cancel_pending_enqueues=True, timeout=2)
    out = []
    while True:
        try:
            value = q.dequeue(timeout=2)
        except errors.OutOfRangeError:
            return out
        out.append([oracle.tensor_json(d, v) for d, v in
                    zip(queue_dtypes(spec), as_list(q, value))])


def replay(rec):
    """None when inflow's Python API gives TF's results, else a message."""
    spec = rec["queue"]
    multiset = spec.get("order") == "multiset"
    q = make_queue(spec)
    dequeued_ours, dequeued_tf = [], []
    for i, op in enumerate(rec["ops"]):
        code, got = call(q, spec, op)
        want = op["expect"]
        if code != want["code"]:
            return f"op#{i} {op['op']}: code {code}, TF {want['code']}"
        if got is None:
            continue
        if "values" in got and multiset:
            rows = op["op"] != "dequeue"
            dequeued_ours.extend(elements_of(got["values"], rows))
            dequeued_tf.extend(elements_of(want["values"], rows))
            continue
        for key, value in got.items():
            if want.get(key) != value:
                return f"op#{i} {op['op']}: {key} {value} != TF {want.get(key)}"
    if "remaining" in rec:
        remaining = drain(q, spec)
        if multiset:
            dequeued_ours.extend(elements_of(c, False)[0] for c in remaining)
            dequeued_tf.extend(elements_of(c, False)[0]
                               for c in rec["remaining"])
        elif remaining != rec["remaining"]:
            return f"remaining {remaining} != TF {rec['remaining']}"
    if multiset and "remaining" in rec:
        if sorted(dequeued_ours) != sorted(dequeued_tf):
            return "dequeued multisets differ"
    return None


def elements_of(components, rows):
    """The elements of a dequeued value (a batch when `rows`), each as a
    comparable string."""
    if not rows:
        return [repr([(c["shape"], c["values"]) for c in components])]
    n = components[0]["shape"][0]
    out = []
    for i in range(n):
        element = []
        for c in components:
            per_row = len(c["values"]) // n if n else 0
            element.append((c["shape"][1:],
                            c["values"][i * per_row:(i + 1) * per_row]))
        out.append(repr(element))
    return out


@pytest.fixture(scope="module")
def recorded():
    import tensorflow as tf
    records, stats = oracle.generate(oracle.KINDS, COUNT, SEED, workers=4, tf=tf)
    return records, stats


@pytest.mark.parametrize("kind", oracle.KINDS)
def test_python_api_gives_tfs_results_for_the_differential_sequences(
        kind, recorded):
    records, _ = recorded
    mine = [r for r in records if r["queue"]["kind"] == kind]
    assert len(mine) >= COUNT * 0.99
    ops = sum(len(r["ops"]) for r in mine)
    assert ops > 5 * len(mine)
    failures = [(r["seed"], m) for r in mine if (m := replay(r)) is not None]
    assert not failures, f"{len(failures)} of {len(mine)} {kind} sequences " \
        f"differ from TF, first: {failures[:5]}"


def test_replay_comparison_can_fail(recorded):
    import json
    records, _ = recorded
    rec = next(r for r in records if any(
        o["expect"].get("values") and o["expect"]["values"][0]["values"]
        and o["expect"]["values"][0]["dtype"] == "int64"
        and r["queue"].get("order") != "multiset" for o in r["ops"]))
    rec = json.loads(json.dumps(rec))
    op = next(o for o in rec["ops"] if o["expect"].get("values")
              and o["expect"]["values"][0]["values"])
    op["expect"]["values"][0]["values"][0] += 1
    assert replay(rec) is not None
    rec2 = json.loads(json.dumps(records[0]))
    rec2["ops"][0]["expect"]["code"] = 13
    assert replay(rec2) is not None
