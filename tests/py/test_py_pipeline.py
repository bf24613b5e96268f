"""inflow.Pipeline: every record once per epoch, the end of input after the
right number of batches, raw_to_float as TF's cast-and-scale, map_fn, and
errors naming the stage, the file and the offset."""
import collections
import os
import threading

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

IMAGE_BYTES = 16


def example(i):
    image = bytes((i * 7 + j) % 256 for j in range(IMAGE_BYTES))
    return tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
    })).SerializeToString()


def image_of(i):
    return np.array([(i * 7 + j) % 256 for j in range(IMAGE_BYTES)], np.uint8)


@pytest.fixture
def shards(tmp_path):
    """3 shards of 50, 50 and 37 records (labels 0..136)."""
    paths, i = [], 0
    for s, n in enumerate([50, 50, 37]):
        path = tmp_path / f"train-{s}.tfrecord"
        with inflow.io.TFRecordWriter(path) as w:
            for _ in range(n):
                w.write(example(i))
                i += 1
        paths.append(str(path))
    return paths


FEATURES = {"image": inflow.FixedLenFeature([], "string"),
            "label": inflow.FixedLenFeature([], "int64")}


def test_one_epoch_every_record_once_then_the_end(shards, tmp_path):
    p = inflow.Pipeline(str(tmp_path / "train-*.tfrecord"), features=FEATURES,
                        num_epochs=1, shuffle=False, batch_size=32,
                        allow_smaller_final_batch=True, raw_to_float={"image": (16, 0.5)})
    assert p.files == shards
    assert p.names == ["image", "label"]
    sizes, labels = [], []
    for batch in p:
        assert batch["image"].dtype == np.float32 and batch["image"].shape[1:] == (16,)
        for img, label in zip(batch["image"], batch["label"]):
            np.testing.assert_array_equal(img, image_of(label).astype(np.float32) * 0.5)
        sizes.append(len(batch["label"]))
        labels.extend(batch["label"].tolist())
    assert sizes == [32, 32, 32, 32, 9]
    assert labels == list(range(137))  # one reader, no shuffling: file order
    with pytest.raises(errors.OutOfRangeError):
        p.get_next()
    with pytest.raises(errors.OutOfRangeError):
        p.next(timeout=5)
    p.close()
    p.close()


def test_without_smaller_final_batch_the_remainder_is_dropped(shards):
    with inflow.Pipeline(shards, features=FEATURES, num_epochs=1, batch_size=32) as p:
        assert sum(1 for _ in p) == 137 // 32


def test_shuffled_epochs_with_readers_keep_every_record(shards):
    with inflow.Pipeline(shards, features={"label": FEATURES["label"]}, num_epochs=2,
                         seed=3, num_readers=3, batch_size=10, shuffle_batch=True,
                         min_after_dequeue=20, capacity=60, read_batch=8,
                         allow_smaller_final_batch=True) as p:
        counts = collections.Counter(
            label for batch in p for label in batch["label"].tolist())
    assert counts == {i: 2 for i in range(137)}


def test_batches_are_arrays_over_inflows_buffers(shards):
    with inflow.Pipeline(shards, features=FEATURES, num_epochs=1, batch_size=8,
                         raw_to_float={"image": (16, 1.0)}) as p:
        batch = p.get_next(timeout=30)
    image = batch["image"]
    # The array's memory is the batch tensor's buffer (no copy into Python).
    assert inflow._inflow._buffer_address(image) == image.__array_interface__["data"][0]
    assert image.__array_interface__["data"][0] % 64 == 0  # inflow's aligned buffer
    assert image.flags.c_contiguous


def test_records_without_features(shards):
    with inflow.Pipeline(shards[2], num_epochs=1, batch_size=37, shuffle=False) as p:
        batch = next(p)
    assert p.names == ["value"]
    assert list(batch["value"]) == [example(100 + i) for i in range(37)]


def test_text_lines_with_keys(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("header\n" + "".join(f"line {i}\n" for i in range(5)))
    with inflow.Pipeline(str(path), reader="text", skip_header_lines=1, num_epochs=1,
                         batch_size=5, include_key=True) as p:
        batch = next(p)
    assert list(batch["value"]) == [f"line {i}".encode() for i in range(5)]
    assert list(batch["key"]) == [f"{path}:{i + 2}".encode() for i in range(5)]


def test_map_fn_with_its_own_signature(shards):
    def fn(rows):
        return {"x": rows["label"].astype(np.float32) * 2,
                "pair": np.stack([rows["label"], rows["label"] + 1], axis=1)}

    with inflow.Pipeline(shards, features={"label": FEATURES["label"]}, num_epochs=1,
                         shuffle=False, batch_size=137, map_fn=fn,
                         map_output={"x": ([], "float32"), "pair": ([2], "int64")}) as p:
        batch = next(p)
    assert p.names == ["x", "pair"]
    np.testing.assert_array_equal(batch["x"], np.arange(137, dtype=np.float32) * 2)
    np.testing.assert_array_equal(batch["pair"][:, 1] - batch["pair"][:, 0], 1)


def test_nice_lowers_the_readers_priority_only(shards):
    # map_fn runs on the reader threads: it sees their niceness.
    base = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    seen = set()

    def fn(rows):
        seen.add(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        return rows

    with inflow.Pipeline(shards, features={"label": FEATURES["label"]}, num_epochs=1,
                         num_readers=2, batch_size=137, map_fn=fn, nice=5) as p:
        assert sorted(next(p)["label"]) == list(range(137))
    assert seen == {min(base + 5, 19)}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == base
    with pytest.raises(errors.InvalidArgumentError):
        inflow.Pipeline(shards, features=FEATURES, nice=-1)


def test_map_fn_error_names_the_stage_and_the_traceback(shards):
    def fn(rows):
        raise RuntimeError("boom in map")

    p = inflow.Pipeline(shards, features={"label": FEATURES["label"]}, num_epochs=1,
                        batch_size=4, map_fn=fn)
    with pytest.raises(errors.OpError) as e:
        p.get_next(timeout=60)
    assert "map" in e.value.message and "boom in map" in e.value.message
    with pytest.raises(errors.OpError):
        p.close()


def test_corrupt_record_names_stage_file_and_offset(tmp_path):
    path = tmp_path / "bad.tfrecord"
    with inflow.io.TFRecordWriter(path) as w:
        for i in range(10):
            w.write(example(i))
    data = bytearray(path.read_bytes())
    offset = 3 * (12 + len(example(0)) + 4)
    data[offset + 20] ^= 0x55  # payload of record 3
    path.write_bytes(bytes(data))
    p = inflow.Pipeline(str(path), features=FEATURES, num_epochs=1, batch_size=2)
    with pytest.raises(errors.DataLossError) as e:
        while True:
            p.get_next(timeout=60)
    msg = e.value.message
    assert msg.startswith("read") and str(offset) in msg and str(path) in msg
    with pytest.raises(errors.DataLossError):
        p.get_next(timeout=60)  # the error stays
    with pytest.raises(errors.DataLossError):
        p.close()


def test_parse_error_names_the_record(tmp_path):
    path = tmp_path / "p.tfrecord"
    with inflow.io.TFRecordWriter(path) as w:
        w.write(example(0))
    p = inflow.Pipeline(str(path), features={"missing": inflow.FixedLenFeature([], "int64")},
                        num_epochs=1, batch_size=1)
    with pytest.raises(errors.InvalidArgumentError, match="parse.*p.tfrecord"):
        p.get_next(timeout=60)


def test_bad_arguments(shards, tmp_path):
    with pytest.raises(errors.NotFoundError):
        inflow.Pipeline(str(tmp_path / "nothing-*"), features=FEATURES)
    with pytest.raises(ValueError):
        inflow.Pipeline(shards, reader="parquet")
    with pytest.raises(ValueError):
        inflow.Pipeline(shards, features={"t": inflow.FixedLenSequenceFeature(
            [], "string", allow_missing=True)})
    with pytest.raises(ValueError):
        inflow.Pipeline(shards, features=FEATURES, raw_to_float={"other": (16, 1.0)})
    with pytest.raises(errors.InvalidArgumentError):
        inflow.Pipeline(shards, features=FEATURES, num_readers=0)


def test_timeout_when_nothing_comes(tmp_path):
    path = tmp_path / "empty.tfrecord"
    inflow.io.TFRecordWriter(path).close()
    # Unlimited epochs of a file without records: no batch ever comes.
    with inflow.Pipeline(str(path), features=FEATURES, batch_size=1) as p:
        with pytest.raises(errors.DeadlineExceededError):
            p.get_next(timeout=0.2)


SIGINT_CHILD = """
import sys, time
import inflow
path = sys.argv[1]
inflow.io.TFRecordWriter(path).close()
{setup}
print("blocking", flush=True)
try:
    {call}
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), flush=True)
    sys.exit(0)
print("not interrupted", flush=True)
sys.exit(1)
"""

SIGINT_CASES = {
    "pipeline": ("p = inflow.Pipeline(path, batch_size=1)", "p.get_next()"),
    "batch": ("files = inflow.train.string_input_producer([path])\n"
              "_, v = inflow.TFRecordReader().read(files)\n"
              "b = inflow.train.batch([v], 1)\n"
              "c = inflow.train.Coordinator()\n"
              "t = inflow.train.start_queue_runners(coord=c)", "b.dequeue()"),
    "run": ("q = inflow.FIFOQueue(2, 'string')\n"
            "_, v = inflow.TFRecordReader().read(q)", "inflow.run(v)"),
}


@pytest.mark.parametrize("case", sorted(SIGINT_CASES))
def test_sigint_while_waiting_for_a_batch_raises_keyboard_interrupt(tmp_path, case):
    import os
    import select
    import signal
    import subprocess
    import sys
    import time

    def read_line(proc, seconds):
        ready, _, _ = select.select([proc.stdout], [], [], seconds)
        return proc.stdout.readline() if ready else ""

    setup, call = SIGINT_CASES[case]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGINT_CHILD.format(setup=setup, call=call),
         str(tmp_path / "empty.tfrecord")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, bufsize=1)
    try:
        assert read_line(proc, 60).strip() == "blocking"
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        line = read_line(proc, 10).split()
        assert line and line[0] == "interrupted", line
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()
    assert float(line[1]) - sent < 0.5
