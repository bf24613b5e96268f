"""Writes the small TensorFlow checkpoints that tests/checkpoint reads:
partitioned (sliced) variables and complex tensors.

Rerun from the repository root after changing it (the outputs are
committed):

    .venv/bin/python tests/testdata/make_tf_sliced_checkpoints.py

Outputs, in tests/checkpoint/testdata/:
  partitioned.index, partitioned.data-00000-of-00001
      written by tf.compat.v1.train.Saver from graph-mode variables:
      "part/rows" float32 [5, 3] split in 3 along axis 0 and
      "part/cols" int64 [2, 7] split in 2 along axis 1 (fixed_size_partitioner),
      "part/names" string [4] split in 2, "part/big" int32 [130] split in 2
      (slice keys with two-byte starts and lengths), and a plain "plain"
      float32 [2]. Values: rows = arange(15) / 2, cols = arange(14) * 3 - 7,
      names = [b"a", b"bc", b"", b"def"], big = arange(130) - 60,
      plain = [1.5, -2.5].
  complex.index, complex.data-00000-of-00001
      written by tf.train.Checkpoint: "c64" complex64 [3] and "c128"
      complex128 [2, 2] (values below), under TF's object-graph names.
"""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "checkpoint",
                   "testdata")

ROWS = (np.arange(15, dtype=np.float32) / 2).reshape(5, 3)
COLS = (np.arange(14, dtype=np.int64) * 3 - 7).reshape(2, 7)
NAMES = np.array([b"a", b"bc", b"", b"def"], dtype=object)
BIG = np.arange(130, dtype=np.int32) - 60
PLAIN = np.array([1.5, -2.5], dtype=np.float32)
C64 = np.array([1 + 2j, -3.5 + 0.25j, 0 - 1j], dtype=np.complex64)
C128 = np.array([[1e100 + 1j, -2 - 2j], [0.5 + 0j, 3 - 1e-300j]], dtype=np.complex128)


def _sliced(full):
    """An initializer giving each partition its part of `full`."""
    def init(shape, dtype=None, partition_info=None):
        offsets = partition_info.var_offset if partition_info else [0] * len(shape)
        index = tuple(slice(o, o + n) for o, n in zip(offsets, shape))
        return tf.constant(full[index], dtype=dtype)
    return init


def partitioned(prefix):
    g = tf.Graph()
    with g.as_default():
        v1 = tf.compat.v1
        rows = v1.get_variable("part/rows", shape=ROWS.shape, dtype=tf.float32,
                               initializer=_sliced(ROWS),
                               partitioner=v1.fixed_size_partitioner(3, axis=0))
        cols = v1.get_variable("part/cols", shape=COLS.shape, dtype=tf.int64,
                               initializer=_sliced(COLS),
                               partitioner=v1.fixed_size_partitioner(2, axis=1))
        names = v1.get_variable("part/names", shape=NAMES.shape, dtype=tf.string,
                                initializer=_sliced(NAMES),
                                partitioner=v1.fixed_size_partitioner(2))
        big = v1.get_variable("part/big", shape=BIG.shape, dtype=tf.int32,
                              initializer=_sliced(BIG),
                              partitioner=v1.fixed_size_partitioner(2))
        plain = v1.get_variable("plain", initializer=PLAIN)
        saver = v1.train.Saver()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            saver.save(sess, prefix, write_meta_graph=False, write_state=False)
        del rows, cols, names, big, plain


def complex_tensors(prefix):
    ckpt = tf.train.Checkpoint(c64=tf.Variable(C64), c128=tf.Variable(C128))
    path = ckpt.write(prefix)
    assert path == prefix, path


def main():
    os.makedirs(OUT, exist_ok=True)
    partitioned(os.path.join(OUT, "partitioned"))
    complex_tensors(os.path.join(OUT, "complex"))
    for name in sorted(os.listdir(OUT)):
        print(name, os.path.getsize(os.path.join(OUT, name)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
