"""TensorFlow 1's reading pipeline as the oracle for inflow's.

A case (a dict, also handed as JSON to tests/input/pipeline_tf_driver.cc):

  {"name": str,
   "files": [path, ...],
   "features": [{"key": K, "dtype": "int64" | "float32" | "string",
                 "shape": [..]}, ...]          (FixedLenFeature, no default)
   "num_epochs": int, "shuffle": bool,
   "seed": int | None,                         (the producer's op seed)
   "graph_seed": int | None,                   (tf.compat.v1.set_random_seed)
   "batch": "batch" | "shuffle_batch",
   "batch_size": int, "capacity": int,
   "min_after_dequeue": int,                   (shuffle_batch)
   "batch_seed": int | None,                   (shuffle_batch's op seed)
   "allow_smaller_final_batch": bool,
   "wait_full": bool}

runs as string_input_producer(files, num_epochs, shuffle, seed) ->
TFRecordReader.read -> parse_single_example -> batch / shuffle_batch (one
thread), in graph mode, and gives {"batches": [{K: Tensor}], "status":
{"code": C, "message": M}}: every batch until the first error, and that
error (OUT_OF_RANGE at the end of input). With "mode": "producer" only the
producer runs: {"filenames": [...], "status": ...}. Tensor: {"dtype", "shape",
"values"}, floats as their uint32 bit patterns, strings as base64.

Why "wait_full": a RandomShuffleQueue picks each dequeued element from what
it holds at that moment, so shuffle_batch's order depends on how far the
enqueue thread has got when the consumer asks: with the consumer racing the
reader thread, TF's own order changes from run to run even with every seed
fixed (one thread, op seeds). Waiting before every dequeue until the
batching queue is full (size == capacity) or closed makes that state the
same in every run and on both sides: the queues' waiter model then fixes
every later step (the enqueue thread's pending enqueue and the consumer's
pending dequeue_many are served in the same order under the queue's lock).
There is no event to wait on for "full", so both sides poll the queue's size
with a deadline.
"""
import base64
import time

import numpy as np
import tensorflow as tf

tf1 = tf.compat.v1

DTYPES = {"int64": tf.int64, "float32": tf.float32, "string": tf.string}
FEATURES = [
    {"key": "id", "dtype": "int64", "shape": []},
    {"key": "vec", "dtype": "float32", "shape": [3]},
    {"key": "name", "dtype": "string", "shape": []},
]
WAIT_FULL_DEADLINE_S = 60.0
_CODE_NAMES = {getattr(tf.errors, n): n for n in [
    "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED"]}


def b64(data):
    return base64.b64encode(data).decode()


# ---- the corpora ---------------------------------------------------------------

def example(record_id):
    """Example `record_id`: its id, a float vector and a bytes feature of
    varying length (empty for every seventh id)."""
    vec = [record_id * 0.5, -float(record_id), record_id / 3.0]
    name = b"" if record_id % 7 == 0 else b"rec-%d-" % record_id + bytes([record_id % 256]) * (
        record_id % 5)
    ex = tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[record_id])),
        "vec": tf.train.Feature(float_list=tf.train.FloatList(value=vec)),
        "name": tf.train.Feature(bytes_list=tf.train.BytesList(value=[name])),
    }))
    return ex.SerializeToString()


def corpus_records(sizes):
    """One list of serialized Examples per file; ids run on across files."""
    out, next_id = [], 0
    for n in sizes:
        out.append([example(i) for i in range(next_id, next_id + n)])
        next_id += n
    return out


def write_tf(path, records):
    with tf.io.TFRecordWriter(str(path)) as w:
        for r in records:
            w.write(r)


# ---- TF's pipeline -------------------------------------------------------------

def tensor_json(a):
    a = np.asarray(a)
    if a.dtype == np.float32:
        values = [int(x) for x in a.reshape(-1).view(np.uint32)]
        dtype = "float32"
    elif a.dtype == np.int64:
        values = [int(x) for x in a.reshape(-1)]
        dtype = "int64"
    else:
        values = [b64(x) for x in a.reshape(-1)]
        dtype = "string"
    return {"dtype": dtype, "shape": list(a.shape), "values": values}


def _build(case):
    if case["graph_seed"] is not None:
        tf1.set_random_seed(case["graph_seed"])
    files = tf1.train.string_input_producer(
        case["files"], num_epochs=case["num_epochs"], shuffle=case["shuffle"],
        seed=case["seed"])
    _, value = tf1.TFRecordReader().read(files)
    parsed = tf1.parse_single_example(value, {
        f["key"]: tf1.FixedLenFeature(f["shape"], DTYPES[f["dtype"]])
        for f in case["features"]})
    if case["batch"] == "shuffle_batch":
        batch = tf1.train.shuffle_batch(
            parsed, batch_size=case["batch_size"], capacity=case["capacity"],
            min_after_dequeue=case["min_after_dequeue"], num_threads=1,
            seed=case["batch_seed"],
            allow_smaller_final_batch=case["allow_smaller_final_batch"])
    else:
        batch = tf1.train.batch(
            parsed, batch_size=case["batch_size"], capacity=case["capacity"], num_threads=1,
            allow_smaller_final_batch=case["allow_smaller_final_batch"])
    # The batching call's runner is the last one registered.
    queue = tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)[-1].queue
    return batch, queue.size(), queue.is_closed()


def run_tf_producer(case):
    """The filenames TF's string_input_producer yields for `case` (its
    files, num_epochs, shuffle, seed, graph_seed), and the error that ended
    them."""
    graph = tf.Graph()
    with graph.as_default():
        if case["graph_seed"] is not None:
            tf1.set_random_seed(case["graph_seed"])
        queue = tf1.train.string_input_producer(
            case["files"], num_epochs=case["num_epochs"], shuffle=case["shuffle"],
            seed=case["seed"])
        name = queue.dequeue()
        init = [tf1.global_variables_initializer(), tf1.local_variables_initializer()]
    names, status = [], None
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord)
        try:
            while True:
                names.append(sess.run(name).decode())
        except tf.errors.OpError as e:
            status = {"code": _CODE_NAMES[e.error_code], "message": e.message}
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=30)
    return {"filenames": names, "status": status}


def _wait_full(sess, size, closed, capacity):
    deadline = time.monotonic() + WAIT_FULL_DEADLINE_S
    while True:
        n, is_closed = sess.run([size, closed])
        if n >= capacity or is_closed:
            return
        if time.monotonic() > deadline:
            raise AssertionError("TF's batching queue neither filled nor closed")
        time.sleep(0.0002)


def run_tf(case):
    """TF's batches for `case` and the error that ended them."""
    graph = tf.Graph()
    with graph.as_default():
        batch, size, closed = _build(case)
        init = [tf1.global_variables_initializer(), tf1.local_variables_initializer()]
    batches, status = [], None
    with tf1.Session(graph=graph) as sess:
        sess.run(init)
        coord = tf1.train.Coordinator()
        threads = tf1.train.start_queue_runners(sess, coord)
        try:
            while True:
                if case["wait_full"]:
                    _wait_full(sess, size, closed, case["capacity"])
                out = sess.run(batch)
                batches.append({k: tensor_json(v) for k, v in out.items()})
        except tf.errors.OpError as e:
            status = {"code": _CODE_NAMES[e.error_code], "message": e.message}
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=30)
    return {"batches": batches, "status": status}


# ---- the recorded sample ctest replays ----------------------------------------

def make_sample(cases, sizes, workdir):
    """TF's results for `cases` over a corpus of `sizes`, with the corpus
    itself, as tests/input/pipeline_tf_driver.cc's --check reads it: files
    are given by index into "corpus" (the driver writes them)."""
    records = corpus_records(sizes)
    paths = []
    for i, file_records in enumerate(records):
        path = f"{workdir}/sample-{i}.tfrecord"
        write_tf(path, file_records)
        paths.append(path)
    out = {"corpus": [[b64(r) for r in f] for f in records], "cases": []}
    for c in cases:
        result = run_tf({**c, "files": paths})
        case = {k: v for k, v in c.items() if k not in ("corpus", "files")}
        case["files"] = list(range(len(paths)))
        out["cases"].append({"case": case, "batches": result["batches"],
                             "code": result["status"]["code"]})
    return out


if __name__ == "__main__":
    # Rewrites tests/input/testdata/pipeline_sample.json from TF.
    import json
    import pathlib
    import sys
    import tempfile
    here = pathlib.Path(__file__).resolve().parent
    sys.path.insert(0, str(here))
    import test_pipeline_vs_tf as t  # noqa: E402
    with tempfile.TemporaryDirectory() as d:
        sample = make_sample(t.SAMPLE, t.CORPORA[t.SAMPLE_CORPUS], d)
    out = here.parents[1] / "tests" / "input" / "testdata" / "pipeline_sample.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(sample, separators=(",", ":")) + "\n")
    print(f"wrote {out}")
