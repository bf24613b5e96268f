"""DequeueMany's recycled batch buffers (src/queue/batch_pool.h) seen from
Python. A RandomShuffleQueue whose components are numeric with fully
defined shapes (and so a shuffle_batch Pipeline's queue) gathers each
batch into a buffer from its pool; the batch comes out as NumPy arrays
over that buffer, and inflow.torch's tensors share it too. A batch the
caller keeps keeps its values however many batches follow; once the
caller drops it (and every view of it), the next batch gets its buffer.

The torch checks run as a script under .venv-torch's python (see
torch_venv.py); they fail, saying what to run, when torch is missing.
"""
import numpy as np
import pytest
import tensorflow as tf

import inflow
from torch_venv import require_torch_python, run_script

IMAGE = 16
BATCH = 8


def address(array):
    """The inflow buffer under `array` (checked to be the array's memory)."""
    a = inflow._inflow._buffer_address(array)
    assert a == array.__array_interface__["data"][0]
    return a


def image_rows(first, n=BATCH):
    """Rows first.. of a float32 [IMAGE] queue: row v is v * 100 + j."""
    v = np.arange(first, first + n, dtype=np.float32)[:, None]
    return v * 100 + np.arange(IMAGE, dtype=np.float32)


def check_batch(images, labels):
    """Each image is its label's row."""
    expected = labels[:, None].astype(np.float32) * 100 + np.arange(IMAGE, dtype=np.float32)
    np.testing.assert_array_equal(images, expected)


def shuffle_queue():
    return inflow.RandomShuffleQueue(64, 0, [np.float32, np.int64],
                                     shapes=[[IMAGE], []], seed=3)


def next_batch(q, first):
    """Enqueues rows first..first+BATCH-1 and dequeues them as one batch."""
    q.enqueue_many([image_rows(first), np.arange(first, first + BATCH, dtype=np.int64)])
    images, labels = q.dequeue_many(BATCH)
    check_batch(images, labels)
    assert sorted(labels.tolist()) == list(range(first, first + BATCH))
    return images, labels


def test_kept_queue_batch_keeps_its_values_and_its_buffer_comes_back():
    q = shuffle_queue()
    kept_images, kept_labels = next_batch(q, 0)
    copy = kept_images.copy(), kept_labels.copy()
    kept = address(kept_images)
    later = set()
    for i in range(1, 51):
        images, labels = next_batch(q, BATCH * i)
        later.add(address(images))
        del images, labels  # dropped before the next dequeue
    # The later batches never got the kept buffer, and shared one buffer
    # among themselves (each was dropped before the next was gathered).
    assert kept not in later
    assert len(later) == 1
    np.testing.assert_array_equal(kept_images, copy[0])
    np.testing.assert_array_equal(kept_labels, copy[1])

    # Dropped, the kept batch's buffer is the next batch's.
    del kept_images, kept_labels
    images, _ = next_batch(q, BATCH * 51)
    assert address(images) == kept


def test_a_view_holds_the_whole_batch_buffer():
    q = shuffle_queue()
    images, labels = next_batch(q, 0)
    rows = images[2:5]
    expected = rows.copy()
    kept = address(images)
    del images, labels
    for i in range(1, 21):
        later, _ = next_batch(q, BATCH * i)
        assert address(later) != kept
        del later
    np.testing.assert_array_equal(rows, expected)
    del rows
    later, _ = next_batch(q, BATCH * 21)
    assert address(later) == kept


def example(i):
    image = bytes((i * 7 + j) % 256 for j in range(IMAGE))
    return tf.train.Example(features=tf.train.Features(feature={
        "image": tf.train.Feature(bytes_list=tf.train.BytesList(value=[image])),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i])),
    })).SerializeToString()


def image_of(labels):
    j = np.arange(IMAGE)
    return ((labels[:, None] * 7 + j) % 256).astype(np.float32)


@pytest.fixture
def shard(tmp_path):
    path = tmp_path / "train.tfrecord"
    with inflow.io.TFRecordWriter(path) as w:
        for i in range(100):
            w.write(example(i))
    return str(path)


def test_kept_pipeline_batch_keeps_its_values_and_its_buffer_comes_back(shard):
    features = {"image": inflow.FixedLenFeature([], "string"),
                "label": inflow.FixedLenFeature([], "int64")}
    with inflow.Pipeline(shard, features=features, raw_to_float={"image": (IMAGE, 1.0)},
                         num_epochs=None, seed=5, batch_size=BATCH, shuffle_batch=True,
                         min_after_dequeue=20, capacity=60) as p:
        kept = p.get_next(timeout=30)
        copy = {k: v.copy() for k, v in kept.items()}
        kept_address = address(kept["image"])
        for _ in range(50):
            batch = p.get_next(timeout=30)
            assert address(batch["image"]) != kept_address
            np.testing.assert_array_equal(batch["image"], image_of(batch["label"]))
            del batch
        for k in copy:
            np.testing.assert_array_equal(kept[k], copy[k])
        np.testing.assert_array_equal(kept["image"], image_of(kept["label"]))
        del kept
        batch = p.get_next(timeout=30)
        assert address(batch["image"]) == kept_address


def test_kept_torch_batch_keeps_its_values_and_its_buffer_comes_back():
    python = require_torch_python()
    out = run_script(python, f"""
        import json
        import numpy as np
        import torch
        import inflow
        from inflow.torch import to_torch

        q = inflow.RandomShuffleQueue(64, 0, [np.float32, np.int64],
                                      shapes=[[{IMAGE}], []], seed=3)
        address = lambda a: a.__array_interface__["data"][0]

        def batch(first):
            v = np.arange(first, first + {BATCH}, dtype=np.float32)[:, None]
            q.enqueue_many([v * 100 + np.arange({IMAGE}, dtype=np.float32),
                            np.arange(first, first + {BATCH}, dtype=np.int64)])
            return q.dequeue_many({BATCH})

        images, labels = batch(0)
        kept = address(images)
        t_images, t_labels = to_torch([images, labels])
        shares = t_images.data_ptr() == kept
        copy = t_images.clone(), t_labels.clone()
        del images, labels  # the tensors alone hold the batch now
        later, consistent = set(), True
        for i in range(1, 51):
            images, labels = batch({BATCH} * i)
            later.add(address(images))
            consistent &= bool((images == labels[:, None] * 100
                                + np.arange({IMAGE})).all())
            del images, labels
        same = bool((t_images == copy[0]).all() and (t_labels == copy[1]).all())
        mine = bool((t_images == (t_labels[:, None] * 100
                                  + torch.arange({IMAGE})).float()).all())
        del t_images, t_labels
        images, _ = batch({BATCH} * 51)
        print(json.dumps({{"shares": shares, "kept_in_later": kept in later,
                          "later_buffers": len(later), "consistent": consistent,
                          "same": same, "mine": mine,
                          "reused": address(images) == kept}}))
    """)
    assert out["shares"]  # the tensor is over inflow's buffer
    assert not out["kept_in_later"] and out["later_buffers"] == 1
    assert out["consistent"]
    assert out["same"] and out["mine"]  # the kept tensor's values are intact
    assert out["reused"]  # dropped, its buffer went to the next batch
