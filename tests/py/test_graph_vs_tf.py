"""inflow.Graph and set_random_seed against TensorFlow's own, in one pytest.

Seeds: each program below is written once against the names inflow and
tf.compat.v1 share (set_random_seed, train.string_input_producer,
slice_input_producer, shuffle_batch, RandomShuffleQueue, ...) and run in a
fresh TF graph (one Session, start_queue_runners) and in a fresh
inflow.Graph; the elements must come out in the same order. TF 2.18 gives
an op that asks for a seed without one, in a graph with a seed, the next
number of a per-graph count of such ops (tf.compat.v1.get_seed); inflow's
graph keeps the same count, so graph-seed-only programs give TF's orders.
A RandomShuffleQueue's order is reproducible once every element is in it:
batching queues are drained only after they hold all their input (their
size is polled, with a deadline), as test_pipeline_vs_tf.py does.

Graphs: what TF does with default graphs, collections and
reset_default_graph is checked against inflow's, and the train-then-eval
program (a second pipeline in a new graph after the first one's
coordinator stopped) gets every evaluation example.
"""
import threading
import time
import types

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

tf1 = tf.compat.v1

WAIT_S = 60


def text(x):
    """A fetched value as plain Python (str for strings)."""
    if isinstance(x, (bytes, np.bytes_)):
        return bytes(x).decode()
    if isinstance(x, np.ndarray):
        return text(x.tolist())
    if isinstance(x, (list, tuple)):
        return [text(v) for v in x]
    if isinstance(x, np.generic):
        return x.item()
    return x


# The two sides of a program: `api` has the names a program uses; targets
# are what it returns, drained in order once the runners run.

class TfSide:
    errors = tf.errors

    def __init__(self):
        self.set_random_seed = tf1.set_random_seed
        self.train = tf1.train
        self.RandomShuffleQueue = tf1.RandomShuffleQueue
        # A seedless random op inflow does not have.
        self.other_random_op = lambda: tf.random.uniform([1])

    def batch_queue(self, out):
        return tf1.get_collection(tf1.GraphKeys.QUEUE_RUNNERS)[-1].queue

    def run(self, program):
        graph = tf.Graph()
        with graph.as_default():
            targets = program(self)
            with tf1.Session() as sess:
                sess.run([tf1.global_variables_initializer(),
                          tf1.local_variables_initializer()])
                coord = tf1.train.Coordinator()
                threads = tf1.train.start_queue_runners(sess, coord)
                out = [self._drain(sess, t) for t in targets]
                coord.request_stop()
                coord.join(threads)
        return out

    def _drain(self, sess, target):
        kind = target[0]
        if kind == "rsq":
            _, q, values = target
            sess.run(q.enqueue_many([values]))
            sess.run(q.close())
            fetch = q.dequeue()
        elif kind == "batch":
            _, out, queue, n = target
            wait_for_size(lambda: sess.run(queue.size()), n)
            fetch = out
        else:  # "queue" (a producer's) or "node"
            fetch = target[1].dequeue() if kind == "queue" else target[1]
        got = []
        while True:
            try:
                got.append(text(sess.run(fetch)))
            except tf.errors.OutOfRangeError:
                return got


class InflowSide:
    errors = errors

    def __init__(self):
        self.set_random_seed = inflow.set_random_seed
        self.train = inflow.train
        self.RandomShuffleQueue = inflow.RandomShuffleQueue
        # What a port puts in place of it: the count advances as TF's does.
        self.other_random_op = lambda: inflow.get_seed(None)

    def batch_queue(self, out):
        return out.queue

    def run(self, program):
        with inflow.Graph().as_default():
            targets = program(self)
            coord = inflow.train.Coordinator()
            threads = inflow.train.start_queue_runners(coord=coord)
            out = [self._drain(t) for t in targets]
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=WAIT_S)
        return out

    def _drain(self, target):
        kind = target[0]
        if kind == "rsq":
            _, q, values = target
            q.enqueue_many([values])
            q.close()
            fetch = q.dequeue
        elif kind == "batch":
            _, out, queue, n = target
            wait_for_size(queue.size, n)
            fetch = lambda: inflow.run(out.tensors)  # noqa: E731
        elif kind == "queue":
            fetch = target[1].dequeue
        else:
            fetch = lambda: inflow.run(target[1])  # noqa: E731
        got = []
        while True:
            try:
                got.append(text(fetch()))
            except errors.OutOfRangeError:
                return got


def wait_for_size(size, n):
    """Polls a batching queue until it holds its whole input (n)."""
    deadline = time.monotonic() + WAIT_S
    while size() < n:
        assert time.monotonic() < deadline, "the batching queue never filled"
        time.sleep(0.002)


FILES = [f"file{i}" for i in range(7)]


def producer_shuffled_by_the_graph_seed(api):
    api.set_random_seed(5)
    q = api.train.string_input_producer(FILES, num_epochs=3)
    return [("queue", q)]


def two_producers_count_0_and_1(api):
    api.set_random_seed(11)
    a = api.train.string_input_producer(FILES, num_epochs=2)
    b = api.train.range_input_producer(9, num_epochs=2)
    return [("queue", a), ("queue", b)]


def slice_producer_then_shuffle_batch(api):
    # The producer's shuffle takes op seed 0, the batching queue 1.
    api.set_random_seed(7)
    x, = api.train.slice_input_producer([np.arange(20, dtype=np.int64)], num_epochs=2)
    out = api.train.shuffle_batch([x], batch_size=4, capacity=64, min_after_dequeue=8)
    return [("batch", out, api.batch_queue(out), 40)]


def unshuffled_and_op_seeded_ops_do_not_count(api):
    # Only ops without an op seed that shuffle count: the queue gets 0.
    api.set_random_seed(3)
    a = api.train.string_input_producer(FILES, num_epochs=1, shuffle=False)
    b = api.train.range_input_producer(9, num_epochs=1, seed=9)
    q = api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]])
    return [("queue", a), ("queue", b), ("rsq", q, np.arange(30, dtype=np.int64))]


def queues_before_and_after_set_random_seed(api):
    # An unseeded queue before the graph seed is random and is not counted;
    # the queue made after it gets (4, 0).
    api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]])
    api.set_random_seed(4)
    q = api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]])
    q2 = api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]], seed=2)
    q3 = api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]])
    return [("rsq", q, np.arange(30, dtype=np.int64)),
            ("rsq", q2, np.arange(30, dtype=np.int64)),
            ("rsq", q3, np.arange(30, dtype=np.int64))]


def graph_seed_zero_and_a_reset_seed(api):
    # (0, 0) becomes (0, 2**31 - 1); a new graph seed keeps the count.
    api.set_random_seed(0)
    a = api.train.range_input_producer(12, num_epochs=2)
    api.set_random_seed(-6)
    b = api.train.range_input_producer(12, num_epochs=2)
    return [("queue", a), ("queue", b)]


def op_seeded_producer_and_graph_seeded_shuffle_batch(api):
    # (g, 5) for the producer, (g, 0) for the queue: the first without one.
    api.set_random_seed(2**40 + 3)
    x, = api.train.slice_input_producer([np.arange(12, dtype=np.int64)], num_epochs=2,
                                        seed=5)
    out = api.train.shuffle_batch([x], batch_size=3, capacity=40, min_after_dequeue=4)
    return [("batch", out, api.batch_queue(out), 24)]


def shared_name_queues_seed2_from_the_name(api):
    # A graph seed, no op seed and a shared_name: seed2 is an MD5 of the
    # graph seed and the name (TF's RandomShuffleQueue), the count still
    # advances (the last queue gets (8, 2)).
    api.set_random_seed(8)
    q = api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]], shared_name="graph_sq")
    x, = api.train.slice_input_producer([np.arange(16, dtype=np.int64)], num_epochs=1,
                                        shuffle=False)
    out = api.train.shuffle_batch([x], batch_size=4, capacity=20, min_after_dequeue=2,
                                  shared_name="graph_sb")
    q2 = api.RandomShuffleQueue(50, 0, [np.int64], shapes=[[]])
    return [("rsq", q, np.arange(30, dtype=np.int64)),
            ("batch", out, api.batch_queue(out), 16),
            ("rsq", q2, np.arange(30, dtype=np.int64))]


def a_seedless_tf_op_before_the_pipeline(api):
    # TF's tf.random.uniform takes 0; the producer 1, the queue 2.
    api.set_random_seed(21)
    api.other_random_op()
    x, = api.train.slice_input_producer([np.arange(10, dtype=np.int64)], num_epochs=2)
    out = api.train.shuffle_batch([x], batch_size=5, capacity=30, min_after_dequeue=5)
    return [("batch", out, api.batch_queue(out), 20)]


PROGRAMS = [producer_shuffled_by_the_graph_seed, two_producers_count_0_and_1,
            slice_producer_then_shuffle_batch, unshuffled_and_op_seeded_ops_do_not_count,
            queues_before_and_after_set_random_seed, graph_seed_zero_and_a_reset_seed,
            op_seeded_producer_and_graph_seeded_shuffle_batch,
            shared_name_queues_seed2_from_the_name, a_seedless_tf_op_before_the_pipeline]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
def test_graph_seeded_orders_are_tfs(program):
    want = TfSide().run(program)
    got = InflowSide().run(program)
    assert got == want
    # Not the identity: the seeds did shuffle.
    assert any(len(t) > 1 and t != sorted(t, key=str) for t in want)


def test_graph_seeded_reading_pipeline_is_tfs(tmp_path):
    # The common TF1 program: set_random_seed, string_input_producer over
    # files (op seed 0), a reader, parse_single_example, shuffle_batch (1).
    files = []
    for f in range(3):
        path = str(tmp_path / f"part-{f}.tfrecord")
        with tf.io.TFRecordWriter(path) as w:
            for i in range(10):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "i": tf.train.Feature(int64_list=tf.train.Int64List(
                        value=[100 * f + i]))}))
                w.write(ex.SerializeToString())
        files.append(path)

    def program(api):
        api.set_random_seed(1234)
        q = api.train.string_input_producer(files, num_epochs=2)
        _, value = api.TFRecordReader().read(q)
        features = api.parse_single_example(
            value, {"i": api.FixedLenFeature([], api.int64)})
        out = api.train.shuffle_batch([features["i"]], batch_size=5, capacity=80,
                                      min_after_dequeue=10)
        return [("batch", out, api.batch_queue(out), 60)]

    tf_side, inflow_side = TfSide(), InflowSide()
    tf_side.TFRecordReader, tf_side.parse_single_example = (tf1.TFRecordReader,
                                                            tf1.parse_single_example)
    tf_side.FixedLenFeature, tf_side.int64 = tf1.FixedLenFeature, tf.int64
    inflow_side.TFRecordReader, inflow_side.parse_single_example = (
        inflow.TFRecordReader, inflow.parse_single_example)
    inflow_side.FixedLenFeature, inflow_side.int64 = inflow.FixedLenFeature, inflow.int64
    want = tf_side.run(program)
    assert inflow_side.run(program) == want
    assert len(want[0]) == 12 and sorted(sum(want[0], [])) == sorted(
        [100 * f + i for f in range(3) for i in range(10)] * 2)


def test_get_seed_follows_tfs_count():
    def calls(get_seed, set_random_seed):
        out = [get_seed(None), get_seed(3)]
        set_random_seed(9)
        out += [get_seed(None), get_seed(4), get_seed(None), get_seed(-1)]
        set_random_seed(0)
        out += [get_seed(0), get_seed(None), get_seed(2**33)]
        set_random_seed(None)
        out += [get_seed(None), get_seed(0)]
        return out

    with tf.Graph().as_default():
        want = calls(tf1.get_seed, tf1.set_random_seed)
    with inflow.Graph().as_default():
        got = calls(inflow.get_seed, inflow.set_random_seed)
    assert got == want
    # Each graph counts for itself.
    with inflow.Graph().as_default():
        inflow.set_random_seed(1)
        assert inflow.get_seed(None) == (1, 0)


# Graphs and collections --------------------------------------------------


def test_default_graph_scoping_is_tfs():
    def observe(G, get_default_graph, reset_default_graph):
        seen = {}
        outer = get_default_graph()
        g1, g2 = G(), G()
        with g1.as_default() as entered:
            seen["as_default gives the graph"] = entered is g1
            seen["inner default"] = get_default_graph() is g1
            with g2.as_default():
                seen["nested"] = get_default_graph() is g2
                try:
                    reset_default_graph()
                    seen["reset nested"] = "no error"
                except AssertionError as e:
                    seen["reset nested"] = str(e)
            seen["after nested"] = get_default_graph() is g1
        seen["after"] = get_default_graph() is outer
        with outer.as_default():
            try:
                reset_default_graph()
                seen["reset in outer as_default"] = "no error"
            except AssertionError:
                seen["reset in outer as_default"] = "AssertionError"
        reset_default_graph()
        fresh = get_default_graph()
        seen["reset gives a new graph"] = fresh is not outer
        seen["its seed"] = fresh.seed
        box = {}
        t = threading.Thread(target=lambda: box.update(g=get_default_graph()))
        with g1.as_default():
            t.start()
            t.join()
        seen["a thread has its own default graph"] = box["g"] not in (g1, fresh)
        return seen

    def in_a_thread(*args):
        # Its own global default graph, so the reset leaves the main
        # thread's alone.
        box = {}
        t = threading.Thread(target=lambda: box.update(seen=observe(*args)))
        t.start()
        t.join()
        return box["seen"]

    want = in_a_thread(tf.Graph, tf1.get_default_graph, tf1.reset_default_graph)
    got = in_a_thread(inflow.Graph, inflow.get_default_graph, inflow.reset_default_graph)
    assert got == want
    assert want["reset nested"].startswith("Do not use tf.reset_default_graph()")


def test_the_importing_threads_default_graph_holds_cpps_default_collection():
    # pytest imports inflow on the main thread, and no test resets its graph.
    assert threading.current_thread() is threading.main_thread()
    assert inflow.get_default_graph()._native.is_default
    box = {}
    t = threading.Thread(target=lambda: box.update(g=inflow.get_default_graph()))
    t.start()
    t.join()
    assert not box["g"]._native.is_default
    assert not inflow.Graph()._native.is_default
    # A runner C++ code adds to QueueRunnerCollection::Default() starts
    # with the main thread's start_queue_runners (and appears in its
    # collection).
    q = inflow.FIFOQueue(8, [np.int64], shapes=[[]])
    items = iter(range(3))

    def produce():
        for i in items:
            return np.int64(i)
        raise errors.OutOfRangeError(None, None, "no more items")
    qr = inflow.train.QueueRunner(q, [produce])
    inflow._inflow._QueueRunnerCollection.default().add(qr._native, "cpp_side")
    try:
        [runner] = inflow.get_collection("cpp_side")
        assert runner._native._key == qr._native._key
        coord = inflow.train.Coordinator()
        threads = inflow.train.start_queue_runners(coord=coord, collection="cpp_side")
        assert len(threads) == 2
        got = [int(q.dequeue(timeout=WAIT_S)) for _ in range(3)]
        assert got == [0, 1, 2]
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=WAIT_S)
    finally:
        inflow.get_default_graph().clear_collection("cpp_side")


def test_pipelines_register_their_runners_in_the_default_graph_as_tf():
    def count(api_train, get_collection, Graph, queue_runners):
        counts = []
        with Graph().as_default():
            api_train.string_input_producer(FILES)
            counts.append(len(get_collection(queue_runners)))
            x, = api_train.slice_input_producer([np.arange(4, dtype=np.int64)])
            counts.append(len(get_collection(queue_runners)))
            api_train.shuffle_batch([x], 2, 10, 2)
            api_train.batch([x], 2)
            counts.append(len(get_collection(queue_runners)))
            with Graph().as_default():
                counts.append(len(get_collection(queue_runners)))
        return counts

    want = count(tf1.train, tf1.get_collection, tf.Graph, tf1.GraphKeys.QUEUE_RUNNERS)
    got = count(inflow.train, inflow.get_collection, inflow.Graph,
                inflow.GraphKeys.QUEUE_RUNNERS)
    assert got == want == [1, 2, 4, 0]


def test_collections_hold_the_objects_added():
    g = inflow.Graph()
    with g.as_default():
        q = inflow.FIFOQueue(4, [np.int64], shapes=[[]])
        qr = inflow.train.QueueRunner(q, [lambda: np.int64(1)])
        inflow.train.add_queue_runner(qr)
        files = inflow.train.string_input_producer(FILES, name="files")
        runners = inflow.get_collection(inflow.GraphKeys.QUEUE_RUNNERS)
        assert runners[0] is qr and runners[1].queue.name == files.name
        # The C++-made runner comes back as the same object each time.
        assert inflow.get_collection("queue_runners")[1] is runners[1]
        assert [r.name for r in inflow.get_collection("queue_runners", scope="file")] == \
            [runners[1].name]
        inflow.add_to_collection("notes", "a")
        inflow.add_to_collections(["notes", "more"], "b")
        assert inflow.get_collection("notes") == ["a", "b"]
        assert inflow.get_collection_ref("more") == ["b"]
        assert sorted(g.get_all_collection_keys()) == ["more", "notes", "queue_runners"]
    assert inflow.get_collection("notes") == []
    assert g.get_collection("notes") == ["a", "b"]
    with pytest.raises(TypeError, match="expected an inflow.train.QueueRunner, got str"):
        inflow.train.add_queue_runner("not a runner")
    with pytest.raises(TypeError, match="named by a string"):
        g.add_to_collection(3, qr)


def train_then_eval(new_graph_for_eval):
    """Trains on one pipeline, stops its coordinator, then evaluates 10,000
    examples through a second pipeline, as TF1 scripts do."""
    train_x, = inflow.train.slice_input_producer([np.arange(1000, dtype=np.int64)])
    train_batch = inflow.train.shuffle_batch([train_x], batch_size=50, capacity=200,
                                             min_after_dequeue=100, seed=1)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    for _ in range(20):
        assert inflow.run(train_batch.tensors).shape == (50,)
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=WAIT_S)

    def evaluate():
        x, = inflow.train.slice_input_producer([np.arange(10000, dtype=np.int64)],
                                               num_epochs=1, shuffle=False)
        out = inflow.train.batch([x], batch_size=100, allow_smaller_final_batch=True)
        coord = inflow.train.Coordinator()
        threads = inflow.train.start_queue_runners(coord=coord)
        seen = []
        try:
            while True:
                seen.extend(inflow.run(out.tensors).tolist())
        except errors.OutOfRangeError:
            pass
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=WAIT_S)  # raises on an error
        return seen

    if new_graph_for_eval:
        with inflow.Graph().as_default():
            return evaluate()
    inflow.reset_default_graph()
    return evaluate()


def test_train_then_eval_in_a_new_graph_sees_every_example():
    with inflow.Graph().as_default():
        seen = train_then_eval(True)
    assert seen == list(range(10000))


def test_train_then_eval_after_reset_default_graph_sees_every_example():
    # On a thread's global default graph (reset_default_graph raises inside
    # as_default), so that the main thread's stays as it is.
    box = {}

    def main():
        try:
            box["seen"] = train_then_eval(False)
        except BaseException as e:  # re-raised on the test's thread
            box["error"] = e
    t = threading.Thread(target=main)
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    assert box["seen"] == list(range(10000))


@pytest.mark.parametrize("as_session", [False, True])
def test_start_queue_runners_takes_a_graph_for_sess(as_session):
    g = inflow.Graph()
    with g.as_default():
        q = inflow.train.range_input_producer(5, num_epochs=1, shuffle=False)
    with inflow.Graph().as_default():
        coord = inflow.train.Coordinator()
        # The default graph has none of g's runners.
        assert inflow.train.start_queue_runners(coord=coord) == []
        sess = types.SimpleNamespace(graph=g) if as_session else g
        threads = inflow.train.start_queue_runners(sess, coord=coord)
    assert len(threads) == 2  # the producer's enqueue thread and its closer
    assert [int(q.dequeue()) for _ in range(5)] == [0, 1, 2, 3, 4]
    coord.request_stop()
    coord.join(threads, stop_grace_period_secs=WAIT_S)
