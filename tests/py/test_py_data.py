"""inflow.data against tf.data: the same pipelines give the same elements
(where tf.data is deterministic), in the same structures; iterator
save/restore at random positions; errors naming the stage and element;
TFRecordDataset over files TensorFlow wrote; Ctrl-C during iteration."""
import collections
import os
import random
import select
import signal
import threading
import time
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import data
from inflow.errors import InvalidArgumentError, OutOfRangeError

from conftest import BUILD

TIMEOUT = 120


def same(a, b):
    """Nested equality of elements (NumPy values in tuples, lists, dicts)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(same, a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def assert_like_tf(ours, theirs):
    ours, theirs = list(ours), list(theirs.as_numpy_iterator())
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    for k, (a, b) in enumerate(zip(ours, theirs)):
        assert same(a, b), (k, a, b)


PIPELINES = {
    "range": lambda D: D.range(3, 20, 4),
    "range_negative": lambda D: D.range(10, 0, -3),
    "map": lambda D: D.range(10).map(lambda x: x * 3 + 1),
    "map_parallel": lambda D: D.range(50).map(lambda x: x * 2, num_parallel_calls=4),
    "map_tuple": lambda D: D.range(6).map(lambda x: (x, x * 10)).map(lambda a, b: a + b),
    "batch": lambda D: D.range(10).batch(4),
    "batch_drop": lambda D: D.range(10).batch(4, drop_remainder=True),
    "batch_parallel": lambda D: D.range(23).map(lambda x: (x, x * 2)).batch(
        4, num_parallel_calls=3),
    "shard": lambda D: D.range(17).shard(5, 3),
    "take_skip": lambda D: D.range(30).skip(4).take(9),
    "take_all": lambda D: D.range(5).take(-1),
    "zip": lambda D: D.zip((D.range(5), D.range(10, 20).batch(2))),
    "zip_dict": lambda D: D.zip({"a": D.range(4), "b": D.range(3)}),
    "concatenate": lambda D: D.range(3).concatenate(D.range(7, 9)),
    "enumerate": lambda D: D.range(4).map(lambda x: x * x).enumerate(5),
    "repeat": lambda D: D.range(3).repeat(3),
    "cache_repeat": lambda D: D.range(7).map(lambda x: x * 2).cache().repeat(3),
    "filter": lambda D: D.range(20).filter(lambda x: x % 3 != 0),
    "slices_dict": lambda D: D.from_tensor_slices(
        {"x": np.arange(12, dtype=np.float32).reshape(4, 3),
         "y": np.array([1, 2, 3, 4], np.int32)}).batch(3),
    "flat_map": lambda D: D.range(1, 5).flat_map(lambda x: D.range(x * 10, x * 10 + x)),
    "interleave": lambda D: D.range(1, 6).interleave(
        lambda x: D.range(x * 10, x * 10 + x), cycle_length=2, block_length=1),
    "interleave_blocks": lambda D: D.range(1, 8).interleave(
        lambda x: D.range(x * 10, x * 10 + x).map(lambda y: y * 2),
        cycle_length=3, block_length=2),
    "interleave_parallel": lambda D: D.range(1, 9).interleave(
        lambda x: D.range(x * 10, x * 10 + x).map(lambda y: y + 1),
        cycle_length=3, block_length=2, num_parallel_calls=3),
    "unbatch": lambda D: D.range(11).batch(4).unbatch(),
    "padded_batch": lambda D: D.range(1, 8).map(
        lambda x: tf.fill([x], x) if D is tf.data.Dataset else np.full([x], x)
    ).padded_batch(3),
    "padded_batch_empty_first": lambda D: D.range(6).map(
        lambda x: tf.fill([x], x) if D is tf.data.Dataset else np.full([x], x)
    ).padded_batch(4),
    "unbatch_batch": lambda D: D.range(11).batch(4).map(
        lambda x: (x, x * 2)).unbatch().batch(3),
    "batch_beyond_the_input": lambda D: D.range(5).batch(10**9),
    "padded_batch_values": lambda D: D.range(1, 6).map(
        lambda x: (tf.fill([x], x), x) if D is tf.data.Dataset else (np.full([x], x), x)
    ).padded_batch(2, padded_shapes=([6], []), padding_values=(np.int64(-1), np.int64(0))),
    "everything": lambda D: D.range(100).shard(2, 1).map(lambda x: x + 1).filter(
        lambda x: x % 5 != 0).batch(3, drop_remainder=True).skip(2).take(8).enumerate(),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_the_same_pipeline_gives_what_tf_data_gives(name):
    make = PIPELINES[name]
    assert_like_tf(make(data.Dataset), make(tf.data.Dataset))
    ours, theirs = make(data.Dataset), make(tf.data.Dataset)
    assert ours.cardinality() == int(theirs.cardinality()), name


def test_file_sources_give_what_tf_data_gives(tmp_path):
    text = [tmp_path / "a.txt", tmp_path / "b.txt"]
    text[0].write_bytes(b"one\ntwo\r\n\nlast line")
    text[1].write_bytes(b"\nb\n")
    files = [str(p) for p in text]
    assert_like_tf(data.TextLineDataset(files), tf.data.TextLineDataset(files))
    fixed = tmp_path / "f.bin"
    fixed.write_bytes(b"HDR" + bytes(range(42)) + b"FT")
    assert_like_tf(data.FixedLengthRecordDataset(str(fixed), 6, header_bytes=3,
                                                 footer_bytes=2),
                   tf.data.FixedLengthRecordDataset(str(fixed), 6, header_bytes=3,
                                                    footer_bytes=2))
    partial = tmp_path / "p.bin"
    partial.write_bytes(bytes(10))
    with pytest.raises(InvalidArgumentError, match="not an exact multiple"):
        list(data.FixedLengthRecordDataset(str(partial), 4))
    pattern = str(tmp_path / "*.txt")
    assert_like_tf(data.Dataset.list_files(pattern, shuffle=False),
                   tf.data.Dataset.list_files(pattern, shuffle=False))
    shuffled = sorted(data.Dataset.list_files(pattern, seed=3))
    assert shuffled == sorted(x.encode() for x in files)
    with pytest.raises(InvalidArgumentError, match="no files match"):
        list(data.Dataset.list_files(str(tmp_path / "*.csv")))


def test_cache_reads_the_input_once_and_a_cache_file_serves_another_dataset(tmp_path):
    calls = []

    def counted(x):
        calls.append(int(x))
        return x, np.full([2], x, np.float32), str(int(x)).encode()

    ds = data.Dataset.range(6).map(counted).cache()
    want = [(np.int64(i), np.full([2], i, np.float32), str(i).encode()) for i in range(6)]
    assert same(list(ds.repeat(2)), want * 2)
    assert same(list(ds), want)
    assert calls == list(range(6))
    path = tmp_path / "cache"
    calls.clear()
    assert same(list(data.Dataset.range(6).map(counted).cache(path)), want)
    assert calls == list(range(6)) and os.listdir(tmp_path) == ["cache"]
    calls.clear()
    assert same(list(data.Dataset.range(6).map(counted).cache(str(path))), want)
    # The file, and one element of the input for the map's structure.
    assert calls == [0]
    keyed = data.Dataset.range(3).map(lambda x: {"x": x, "y": (x, x + 1)})
    assert same(list(keyed.cache(tmp_path / "keyed")), list(keyed))
    assert same(list(data.Dataset.range(3).map(lambda x: {"x": x, "y": (x, x + 1)})
                     .cache(tmp_path / "keyed").batch(2)), list(keyed.batch(2)))
    # A checkpoint taken while the cache fills restores in a new Dataset.
    it = iter(data.Dataset.range(6).map(counted).cache().repeat(2))
    for _ in range(4):
        next(it)
    state = it.save()
    assert len(state) < 64
    restored = iter(data.Dataset.range(6).map(counted).cache().repeat(2))
    restored.restore(state)
    assert same(list(restored), (want * 2)[4:])


def test_from_generator_gives_the_generators_elements_each_pass():
    def gen(n):
        for i in range(n):
            yield i, {"square": np.int64(i * i)}
    ours = data.Dataset.from_generator(gen, args=(4,)).repeat(2)
    theirs = tf.data.Dataset.from_generator(
        gen, args=(4,), output_signature=(tf.TensorSpec([], tf.int64),
                                          {"square": tf.TensorSpec([], tf.int64)})).repeat(2)
    assert_like_tf(ours, theirs)
    # A save in the middle restores there (the generator is run again).
    it = iter(data.Dataset.from_generator(gen, args=(6,)))
    next(it), next(it)
    state = it.save()
    again = iter(data.Dataset.from_generator(gen, args=(6,)))
    again.restore(state)
    assert [int(x) for x, _ in again] == [2, 3, 4, 5]


def test_cardinality_constants_are_tf_datas():
    assert data.INFINITE_CARDINALITY == tf.data.INFINITE_CARDINALITY
    assert data.UNKNOWN_CARDINALITY == tf.data.UNKNOWN_CARDINALITY
    assert data.Dataset.range(3).repeat().cardinality() == data.INFINITE_CARDINALITY
    assert data.Dataset.range(3).filter(lambda x: True).cardinality() == \
        data.UNKNOWN_CARDINALITY
    assert len(data.Dataset.range(7).batch(2)) == 4
    with pytest.raises(TypeError, match="infinite"):
        len(data.Dataset.range(3).repeat())


def test_structures_come_back_as_given():
    Point = collections.namedtuple("Point", "x y")
    ds = data.Dataset.from_tensor_slices(
        (np.arange(3), {"b": np.arange(3) * 2.0, "a": [b"p", b"q", b"r"]})
    ).map(lambda i, d: Point(i, [d["a"], d["b"]]))
    got = list(ds)
    assert got[1] == Point(np.int64(1), [b"q", np.float64(2.0)])
    assert isinstance(got[0], Point) and isinstance(got[0].y, list)


def test_shuffle_is_a_seeded_permutation_new_each_epoch():
    a = [int(x) for x in data.Dataset.range(50).shuffle(8, seed=4)]
    unseeded = [int(x) for x in data.Dataset.range(50).shuffle(8)]
    assert sorted(unseeded) == list(range(50))
    assert sorted(a) == list(range(50)) and a != list(range(50))
    assert a == [int(x) for x in data.Dataset.range(50).shuffle(8, seed=4)]
    two = [int(x) for x in data.Dataset.range(20).shuffle(20, seed=1).repeat(2)]
    assert sorted(two[:20]) == sorted(two[20:]) == list(range(20)) and two[:20] != two[20:]


@pytest.mark.parametrize("parallel", [1, 3, 8])
def test_save_and_restore_at_random_positions(parallel):
    def make():
        return (data.Dataset.range(300).map(lambda x: x * 2, num_parallel_calls=parallel)
                .shuffle(20, seed=9).batch(7).prefetch(3).enumerate())
    want = list(make())
    rng = random.Random(parallel)
    for _ in range(4):
        at = rng.randrange(len(want) + 1)
        it = iter(make())
        for _ in range(at):
            next(it)
        state = it.save()
        assert isinstance(state, bytes) and len(state) < 200, len(state)
        again = iter(make())
        again.restore(state)
        rest = list(again)
        assert len(rest) == len(want) - at
        assert all(same(a, b) for a, b in zip(rest, want[at:]))


def test_a_state_of_another_pipeline_is_invalid_argument():
    it = iter(data.Dataset.range(10).batch(2))
    next(it)
    state = it.save()
    other = iter(data.Dataset.range(10).map(lambda x: x))
    with pytest.raises(InvalidArgumentError, match='"batch" where this pipeline has "map"'):
        other.restore(state)
    with pytest.raises(InvalidArgumentError, match="checksum"):
        other.restore(state[:-1] + bytes([state[-1] ^ 1]))
    with pytest.raises(TypeError):
        other.restore("not bytes")


def test_a_map_error_names_the_stage_and_element_and_iteration_goes_on():
    def fail_on_3(x):
        if x == 3:
            raise ValueError("three is bad")
        return x
    for parallel in (None, 3):
        it = iter(data.Dataset.range(6).map(fail_on_3, num_parallel_calls=parallel))
        got = [next(it) for _ in range(3)]
        with pytest.raises(InvalidArgumentError) as e:
            next(it)
        assert "map (stage 1), element 3" in str(e.value)
        assert "three is bad" in str(e.value) and "fail_on_3" in str(e.value)
        got += list(it)
        assert got == [0, 1, 2, 4, 5]


def test_bad_arguments_are_python_errors():
    with pytest.raises(ValueError):
        data.Dataset.range(3).batch(0)
    with pytest.raises(ValueError):
        data.Dataset.range(3).shard(2, 2)
    with pytest.raises(TypeError):
        data.Dataset.range(3).map(3)
    with pytest.raises(ValueError):
        data.Dataset.range(0, 3, 0)
    with pytest.raises(ValueError, match="different numbers of rows"):
        data.Dataset.from_tensor_slices((np.arange(3), np.arange(4)))
    # Raised in the map function's call: an error in that element's place.
    with pytest.raises(InvalidArgumentError, match="must have the same structure"):
        list(data.Dataset.range(4).map(lambda x: x if x < 2 else (x, x)))


def test_an_element_comes_before_later_ones_are_computed():
    # Element 1 waits until the consumer has element 0: a parallel map that
    # held element 0 back until its neighbours were computed would fail it.
    gate = threading.Event()

    def f(x):
        if x == 1 and not gate.wait(TIMEOUT):
            raise RuntimeError("element 0 never came out")
        return x
    for parallel in (2, 4):
        gate.clear()
        it = iter(data.Dataset.range(40).map(f, num_parallel_calls=parallel).prefetch(2))
        assert next(it) == 0
        gate.set()
        assert [int(x) for x in it] == list(range(1, 40))


def test_get_next_times_out_without_losing_an_element():
    gate = threading.Event()

    def slow(x):
        if x >= 2:
            gate.wait()
        return x
    it = iter(data.Dataset.range(6).map(slow, num_parallel_calls=2).batch(3))
    with pytest.raises(inflow.errors.DeadlineExceededError):
        it.get_next(timeout=0.05)
    state = it.save()
    gate.set()
    assert [list(b) for b in it] == [[0, 1, 2], [3, 4, 5]]
    again = iter(data.Dataset.range(6).map(slow, num_parallel_calls=2).batch(3))
    again.restore(state)
    assert [list(b) for b in again] == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(OutOfRangeError):
        it.get_next()


@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_tfrecord_dataset_reads_what_tensorflow_wrote(tmp_path, compression):
    files = []
    for f in range(2):
        path = str(tmp_path / f"part-{f}.tfrecord")
        options = tf.io.TFRecordOptions(compression_type=compression or "")
        with tf.io.TFRecordWriter(path, options) as w:
            for i in range(5):
                w.write(f"file {f} record {i}".encode() * (i + 1))
        files.append(path)
    ours = data.TFRecordDataset(files, compression_type=compression)
    theirs = tf.data.TFRecordDataset(files, compression_type=compression)
    assert_like_tf(ours, theirs)
    assert_like_tf(ours.batch(3), theirs.batch(3))


def test_a_damaged_record_names_the_file_and_offset(tmp_path):
    path = str(tmp_path / "d.tfrecord")
    with tf.io.TFRecordWriter(path) as w:
        for i in range(3):
            w.write(b"abcd")
    raw = bytearray(open(path, "rb").read())
    raw[20 + 12 + 1] ^= 0xFF  # record 1's data
    open(path, "wb").write(raw)
    it = iter(data.TFRecordDataset(path))
    assert next(it) == b"abcd"
    with pytest.raises(inflow.errors.DataLossError) as e:
        next(it)
    assert path in str(e.value) and "offset 20" in str(e.value)
    assert "tfrecord (stage 0)" in str(e.value)


CTRL_C_CHILD = textwrap.dedent("""
    import sys, threading
    sys.path.insert(0, {build!r})
    from inflow import data
    gate = threading.Event()
    def stuck(x):
        if x >= 1:
            gate.wait()
        return x
    it = iter(data.Dataset.range(10).map(stuck, num_parallel_calls=2))
    next(it)
    try:
        print("ready", flush=True)
        next(it)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        gate.set()
        raise
""")


def test_ctrl_c_interrupts_an_iteration():
    proc = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_CHILD.format(build=str(BUILD / "python"))],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT)
        assert ready, "the child printed nothing"
        assert proc.stdout.readline() == "ready\n", proc.stderr.read()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert "interrupted" in out and "KeyboardInterrupt" in err, (out, err)


DROP_CHILD = textwrap.dedent("""
    import sys
    sys.path.insert(0, {build!r})
    from inflow import data
    for k in range(300):
        it = iter(data.Dataset.range(100000).map(lambda x: x * 2, num_parallel_calls=3))
        next(it)
        del it  # its workers are calling the lambda, which needs the GIL
    print("done", flush=True)
""")


def test_dropping_an_iterator_whose_python_map_is_running_does_not_hang():
    # The iterator's threads are joined with the GIL released: a worker
    # waiting for it to call the map function finishes, then stops.
    proc = subprocess.run(
        [sys.executable, "-c", DROP_CHILD.format(build=str(BUILD / "python"))],
        capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0 and proc.stdout == "done\n", (proc.stdout, proc.stderr)


def _saver_pipeline():
    return (data.Dataset.range(200).map(lambda x: (x, x * 2), num_parallel_calls=3)
            .shuffle(32, seed=4).batch(5).prefetch(2))


def _rest(it):
    return [tuple(np.asarray(c).tolist() for c in e) for e in it]


def test_a_saver_keeps_iterators_beside_the_variables(tmp_path):
    # The iterator's position is a string scalar beside the variables;
    # TensorFlow's reader reads it; a restore puts both back.
    weights = np.arange(6, dtype=np.float32).reshape(2, 3)
    it = iter(_saver_pipeline())
    for _ in range(7):
        next(it)
    saver = inflow.train.Saver({"w": weights}, iterators={"input/iterator": it})
    prefix = saver.save(str(tmp_path / "ckpt"), global_step=7)
    state = it.save()
    want = _rest(it)
    weights[...] = -1
    assert tf.train.load_checkpoint(prefix).get_tensor("input/iterator") == state
    assert sorted(n for n, _ in tf.train.list_variables(prefix)) == ["input/iterator", "w"]

    fresh = iter(_saver_pipeline())
    next(fresh)  # somewhere else
    restored = inflow.train.Saver({"w": weights}, iterators={"input/iterator": fresh}) \
        .restore(prefix)
    assert restored["input/iterator"] is fresh
    np.testing.assert_array_equal(weights, np.arange(6, dtype=np.float32).reshape(2, 3))
    assert _rest(fresh) == want


def test_a_saver_restores_variables_and_iterators_all_or_nothing(tmp_path):
    weights = np.ones(4, np.float32)
    other = iter(data.Dataset.range(50).shuffle(8, seed=1))  # another pipeline
    next(other)
    prefix = inflow.train.Saver({"w": weights}, iterators={"it": other}).save(
        str(tmp_path / "ckpt"))
    weights[...] = 5
    it = iter(_saver_pipeline())
    next(it)
    position = it.save()
    with pytest.raises(InvalidArgumentError):
        inflow.train.Saver({"w": weights}, iterators={"it": it}).restore(prefix)
    np.testing.assert_array_equal(weights, np.full(4, 5, np.float32))  # untouched
    assert it.save() == position  # the iterator too
    # A checkpoint without the iterator's entry: NotFoundError naming it.
    plain = inflow.train.Saver({"w": weights}).save(str(tmp_path / "plain"))
    with pytest.raises(inflow.errors.NotFoundError, match="it"):
        inflow.train.Saver({"w": weights}, iterators={"it": it}).restore(plain)
    assert it.save() == position
    with pytest.raises(ValueError, match="both a variable and an iterator"):
        inflow.train.Saver({"w": weights}, iterators={"w": it})
    with pytest.raises(TypeError, match="not an inflow.data.Iterator"):
        inflow.train.Saver({"w": weights}, iterators={"x": [1, 2]})


def test_tfrecord_num_parallel_reads_gives_tf_data_order(tmp_path):
    files = []
    for f, n in enumerate([3, 5, 1, 4]):
        files.append(str(tmp_path / f"f{f}.tfrecord"))
        with tf.io.TFRecordWriter(files[-1]) as w:
            for i in range(n):
                w.write(f"f{f}r{i}".encode())
    for reads in (None, 1, 2, 3, 8):
        assert_like_tf(data.TFRecordDataset(files, num_parallel_reads=reads),
                       tf.data.TFRecordDataset(files, num_parallel_reads=reads))
    auto = [bytes(x) for x in data.TFRecordDataset(files, num_parallel_reads=data.AUTOTUNE)]
    assert sorted(auto) == sorted(bytes(x) for x in data.TFRecordDataset(files))
    with pytest.raises(ValueError, match="num_parallel_reads"):
        data.TFRecordDataset(files, num_parallel_reads=0)


def test_tfrecord_records_by_index_shard_and_global_shuffle(tmp_path):
    files = []
    for f, n in enumerate([6, 0, 9]):
        files.append(str(tmp_path / f"f{f}.tfrecord"))
        with tf.io.TFRecordWriter(files[-1]) as w:
            for i in range(n):
                w.write(f"f{f}r{i}".encode())
    records = [bytes(x) for x in tf.data.TFRecordDataset(files).as_numpy_iterator()]
    for index in (True, "memory", "read", "write"):
        assert [bytes(x) for x in data.TFRecordDataset(files, index=index)] == records
    assert os.path.exists(files[0] + ".index")  # "write" wrote it
    assert [bytes(x) for x in data.TFRecordDataset(files, index="require")] == records
    # A shard reads its own records: tf.data's shard of the same files.
    for n, i in ((2, 0), (2, 1), (4, 3)):
        assert_like_tf(data.TFRecordDataset(files, index=True).shard(n, i),
                       tf.data.TFRecordDataset(files).shard(n, i))
    shuffled = data.TFRecordDataset(files, shuffle_records=True, seed=3)
    assert len(shuffled) == 15
    two = [bytes(x) for x in shuffled.repeat(2)]
    assert sorted(two[:15]) == sorted(records) == sorted(two[15:])
    assert two[:15] != two[15:] and two[:15] != records
    assert [bytes(x) for x in shuffled.repeat(2)] == two  # the seed's order
    it = iter(shuffled.repeat(2))
    for _ in range(20):
        next(it)
    state = it.save()
    assert len(state) < 64
    again = iter(data.TFRecordDataset(files, shuffle_records=True, seed=3).repeat(2))
    again.restore(state)
    assert [bytes(x) for x in again] == two[20:]
    with pytest.raises(ValueError, match="index"):
        data.TFRecordDataset(files, index="sometimes")
    with pytest.raises(InvalidArgumentError, match="plain files only"):
        list(data.TFRecordDataset(files, compression_type="GZIP", shuffle_records=True))


def test_stats_name_the_stages_and_the_bottleneck():
    def slow(x):
        t = time.perf_counter() + 0.0005
        while time.perf_counter() < t:
            pass
        return x

    it = iter(data.Dataset.range(200).map(slow, num_parallel_calls=2).batch(8))
    assert it.stats()["bottleneck"] == ""
    assert len(list(it)) == 25
    s = it.stats()
    names = [st["stage"] for st in s["stages"]]
    assert names == ["range (stage 0)", "map (stage 1)", "batch (stage 2)"]
    assert [st["elements"] for st in s["stages"]] == [200, 200, 25]
    assert s["stages"][1]["threads"] == 2 and s["stages"][1]["seconds"] >= 0.1
    assert s["bottleneck"] == "map (stage 1)"
    assert s["thread_budget"] == os.cpu_count() and s["wall_seconds"] > 0


def test_options_and_autotune_within_the_thread_budget():
    opts = data.Options()
    opts.autotune.cpu_budget = 2
    ds = (data.Dataset.range(300).map(lambda x: x + 1, num_parallel_calls=data.AUTOTUNE)
          .map(lambda x: x * 2, num_parallel_calls=data.AUTOTUNE)
          .prefetch(data.AUTOTUNE).with_options(opts))
    assert ds.options().autotune.cpu_budget == 2
    assert ds.options().autotune.enabled is None
    it = iter(ds)
    assert [int(x) for x in it] == [(i + 1) * 2 for i in range(300)]
    s = it.stats()
    assert s["thread_budget"] == 2
    maps = [st for st in s["stages"] if st["stage"].startswith("map")]
    assert [st["threads"] for st in maps] == [1, 1]
    off = data.Options()
    off.autotune.enabled = False
    merged = ds.with_options(off).options()
    assert merged.autotune.enabled is False and merged.autotune.cpu_budget == 2
    with pytest.raises(TypeError, match="Options"):
        ds.with_options({"autotune": 1})
    bad = data.Options()
    bad.autotune.cpu_budget = 0
    with pytest.raises(InvalidArgumentError, match="thread_budget"):
        list(ds.with_options(bad))


def test_compressed_text_and_fixed_length_files_give_what_tf_data_gives(tmp_path):
    import gzip
    import zlib
    (tmp_path / "a.txt.gz").write_bytes(gzip.compress(b"one\ntwo\r\n\nlast"))
    (tmp_path / "b.zz").write_bytes(zlib.compress(b"a\nb\n"))
    for name, kind in (("a.txt.gz", "GZIP"), ("b.zz", "ZLIB")):
        path = str(tmp_path / name)
        assert_like_tf(data.TextLineDataset(path, compression_type=kind),
                       tf.data.TextLineDataset(path, compression_type=kind))
    fixed = str(tmp_path / "f.gz")
    (tmp_path / "f.gz").write_bytes(gzip.compress(b"HDR" + bytes(range(42)) + b"FT"))
    assert_like_tf(
        data.FixedLengthRecordDataset(fixed, 6, header_bytes=3, footer_bytes=2,
                                      compression_type="GZIP"),
        tf.data.FixedLengthRecordDataset(fixed, 6, header_bytes=3, footer_bytes=2,
                                         compression_type="GZIP"))
    partial = str(tmp_path / "p.gz")
    (tmp_path / "p.gz").write_bytes(gzip.compress(b"HDR" + bytes(13) + b"FT"))
    it = iter(data.FixedLengthRecordDataset(partial, 4, header_bytes=3, footer_bytes=2,
                                            compression_type="GZIP"))
    assert [bytes(next(it)) for _ in range(3)] == [bytes(4)] * 3  # as tf.data
    with pytest.raises(inflow.errors.DataLossError, match="not an exact multiple"):
        next(it)
    # Cut short: tf.data reads it as empty; inflow says so.
    cut = tmp_path / "cut.gz"
    full = gzip.compress(b"x" * 1000 + b"\n" + b"y" * 5000)
    cut.write_bytes(full[:len(full) // 2])
    assert list(tf.data.TextLineDataset(str(cut), compression_type="GZIP")) == []
    with pytest.raises(inflow.errors.DataLossError, match="cut short"):
        list(data.TextLineDataset(str(cut), compression_type="GZIP"))


def test_ragged_and_sparse_batches_give_what_tf_data_gives():
    def filled(D, pairs=False):
        def f(x):
            if D is tf.data.Dataset:
                return tf.fill([x, 2] if pairs else [x], x)
            return np.full([x, 2] if pairs else [x], x)
        return D.range(1, 6).map(f)

    for pairs in (False, True):
        ours = list(filled(data.Dataset, pairs).ragged_batch(2))
        theirs = list(filled(tf.data.Dataset, pairs).ragged_batch(2))
        assert len(ours) == len(theirs) == 3
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.values, b.values.numpy())
            np.testing.assert_array_equal(a.row_splits, b.row_splits.numpy())
            assert a.to_list() == b.to_list()
        row = [5, 2] if pairs else [6]
        ours = list(filled(data.Dataset, pairs).sparse_batch(2, row))
        theirs = list(filled(tf.data.Dataset, pairs).sparse_batch(2, row))
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.indices, b.indices.numpy())
            np.testing.assert_array_equal(a.values, b.values.numpy())
            np.testing.assert_array_equal(a.dense_shape, b.dense_shape.numpy())
    # Scalars come back dense; a tuple element's ragged parts in place.
    assert [list(x) for x in data.Dataset.range(3).ragged_batch(2)] == [[0, 1], [2]]
    first = next(iter(data.Dataset.range(1, 4).map(lambda x: (x, np.full([x], x)))
                      .ragged_batch(3)))
    assert list(first[0]) == [1, 2, 3]
    assert first[1].to_list() == [[1], [2, 2], [3, 3, 3]]
    with pytest.raises(inflow.errors.DataLossError, match="larger than the row shape"):
        list(filled(data.Dataset).sparse_batch(2, [3]))


# -- maps traced from inflow's steps ------------------------------------------------

def _image_records(path, n=40, width=12):
    """TFRecords of Examples {image: width bytes of i, label: i}."""
    with tf.io.TFRecordWriter(path) as w:
        for i in range(n):
            w.write(tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(bytes_list=tf.train.BytesList(
                    value=[bytes([i % 256]) * width])),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
            })).SerializeToString())


FEATURES = {"image": inflow.io.FixedLenFeature([], "string"),
            "label": inflow.io.FixedLenFeature([], "int64")}
TF_FEATURES = {"image": tf.io.FixedLenFeature([], tf.string),
               "label": tf.io.FixedLenFeature([], tf.int64)}


@pytest.mark.parametrize("parallel", [None, 3])
def test_a_traced_map_of_inflows_steps_gives_what_tf_data_gives(tmp_path, parallel):
    path = str(tmp_path / "images.tfrecord")
    _image_records(path)
    calls = []

    @data.trace
    def decode(record):
        calls.append(type(record).__name__)
        parsed = inflow.io.parse_single_example(record, FEATURES)
        return inflow.io.decode_raw_to_float(parsed["image"], 1 / 255), parsed["label"]

    def tf_decode(record):
        parsed = tf.io.parse_single_example(record, TF_FEATURES)
        image = tf.cast(tf.io.decode_raw(parsed["image"], tf.uint8), tf.float32) * (1 / 255)
        return image, parsed["label"]

    ours = data.TFRecordDataset(path).map(decode, num_parallel_calls=parallel).batch(8)
    # Traced once, on a placeholder Node, however many elements and threads.
    assert calls == ["Node"]
    theirs = tf.data.TFRecordDataset(path).map(tf_decode).batch(8)
    assert_like_tf(ours, theirs)
    assert_like_tf(ours, theirs)  # a second pass: no more calls
    assert calls == ["Node"]


def test_inflows_step_functions_map_batches_traced_without_a_mark(tmp_path):
    import functools
    path = str(tmp_path / "images.tfrecord")
    _image_records(path, n=10)
    ours = data.TFRecordDataset(path).batch(4).map(
        functools.partial(inflow.io.parse_example, features=FEATURES))
    theirs = tf.data.TFRecordDataset(path).batch(4).map(
        functools.partial(tf.io.parse_example, features=TF_FEATURES))
    assert_like_tf(ours, theirs)
    # Traced maps keep the element's dtypes and shapes: a second one can
    # follow.
    images = data.TFRecordDataset(path).batch(4).map(
        functools.partial(inflow.io.parse_example, features=FEATURES)).map(
        data.trace(lambda d: inflow.io.decode_raw(d["image"], np.uint8)))
    got = list(images)
    assert [b.shape for b in got] == [(4, 12), (4, 12), (2, 12)]
    assert got[2][1].tolist() == [9] * 12


def test_a_traced_map_saves_and_restores_and_names_a_damaged_record(tmp_path):
    path = str(tmp_path / "images.tfrecord")
    _image_records(path, n=20)
    ds = data.TFRecordDataset(path).map(
        data.trace(lambda r: inflow.io.parse_single_example(r, FEATURES)["label"]))
    it = iter(ds)
    first = [next(it) for _ in range(7)]
    state = it.save()
    rest = list(it)
    again = iter(ds)
    again.restore(state)
    assert [int(x) for x in first + rest] == list(range(20))
    assert [int(x) for x in again] == [int(x) for x in rest]
    # A record that is not an Example: the stage and element are named.
    bad = str(tmp_path / "bad.tfrecord")
    with tf.io.TFRecordWriter(bad) as w:
        w.write(b"\xff\xff not an example")
    with pytest.raises(InvalidArgumentError, match=r"map \(stage 1\), element 0"):
        list(data.TFRecordDataset(bad).map(
            data.trace(lambda r: inflow.io.parse_single_example(r, FEATURES)["label"])))


def test_a_traced_map_that_does_not_return_nodes_is_a_type_error(tmp_path):
    path = str(tmp_path / "images.tfrecord")
    _image_records(path, n=4)
    with pytest.raises(TypeError, match="must return inflow Nodes only .*ndarray"):
        data.TFRecordDataset(path).map(data.trace(lambda r: np.zeros(3)))
    # The element's dtypes are not known after a Python map.
    with pytest.raises(TypeError, match="needs the element's dtypes and shapes"):
        data.TFRecordDataset(path).map(lambda r: r).map(
            data.trace(lambda r: inflow.io.decode_raw(r, np.uint8)))
    # Not marked: a Python function sees arrays, element by element.
    seen = []
    list(data.Dataset.range(3).map(lambda x: seen.append(type(x).__name__) or x))
    assert seen == ["int64"] * 3


def test_unbatching_a_scalar_component_is_a_value_error_as_in_tf_data():
    # tf.data refuses at construction where it knows the component is a
    # scalar; so does inflow, from the element spec it tracks.
    for make in (lambda D: D.range(5),
                 lambda D: D.from_tensor_slices((np.arange(6).reshape(3, 2),
                                                 np.arange(3)))):
        with pytest.raises(ValueError, match="Cannot unbatch an input with scalar "
                                             "components"):
            make(tf.data.Dataset).unbatch()
        with pytest.raises(ValueError, match="Cannot unbatch an input with scalar "
                                             "components"):
            make(data.Dataset).unbatch()
    # Numeric slices have a known spec: a traced map runs on them.
    ds = data.Dataset.from_tensor_slices(np.arange(6, dtype=np.int32).reshape(3, 2)).map(
        data.trace(lambda x: inflow.cast(x, np.float32)))
    got = list(ds)
    assert [a.dtype for a in got] == [np.float32] * 3
    assert [a.tolist() for a in got] == [[0, 1], [2, 3], [4, 5]]
