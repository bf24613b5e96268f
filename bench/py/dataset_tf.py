"""bench_dataset's tf.data side: the Fashion-MNIST pipeline over the shard
files given, in tf.data, and the size of a tf.data iterator checkpoint.

Forms (AUTOTUNE everywhere tf.data offers it), each reading the files
--epochs times and summing every batch of 128 as NumPy arrays:
  per_example  TFRecordDataset -> map(parse_single_example + decode_raw +
               cast / 255) -> shuffle(10000, seed 1) -> batch(128,
               drop_remainder) -> prefetch;
  batched      TFRecordDataset -> shuffle(10000) -> batch(128) ->
               map(parse_example + decode_raw + cast / 255) -> prefetch.
A form's figure is its median samples/s over --rounds; "tf_data" is the
better. checkpoint_bytes: the files tf.train.Checkpoint(iterator=it)
writes after --state-after elements of TFRecordDataset -> map(parse +
decode) -> shuffle(10000). Last stdout line:
  {"tf_data": x, "forms": {...}, "checkpoint_bytes": n}
"""
import argparse
import json
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf  # noqa: E402

FEATURES = {"image_raw": tf.io.FixedLenFeature([], tf.string),
            "label": tf.io.FixedLenFeature([], tf.int64)}


def decode(parsed):
    image = tf.cast(tf.io.decode_raw(parsed["image_raw"], tf.uint8), tf.float32) / 255.0
    return image, parsed["label"]


def per_example(files, epochs):
    return (tf.data.TFRecordDataset(files).repeat(epochs)
            .map(lambda r: decode(tf.io.parse_single_example(r, FEATURES)),
                 num_parallel_calls=tf.data.AUTOTUNE))


def forms(files, epochs):
    return {
        "per_example": per_example(files, epochs).shuffle(10000, seed=1)
        .batch(128, drop_remainder=True).prefetch(tf.data.AUTOTUNE),
        "batched": tf.data.TFRecordDataset(files).repeat(epochs).shuffle(10000, seed=1)
        .batch(128, drop_remainder=True)
        .map(lambda r: decode(tf.io.parse_example(r, FEATURES)),
             num_parallel_calls=tf.data.AUTOTUNE).prefetch(tf.data.AUTOTUNE),
    }


def rate(ds):
    t0 = time.perf_counter()
    n, total = 0, 0.0
    for images, labels in ds.as_numpy_iterator():
        total += float(images.sum()) + float(labels.sum())
        n += len(labels)
    return n / (time.perf_counter() - t0)


def checkpoint_bytes(files, after):
    ds = per_example(files, 1).shuffle(10000, seed=1)
    it = iter(ds)
    for _ in range(after):
        next(it)
    with tempfile.TemporaryDirectory() as d:
        tf.train.Checkpoint(iterator=it).write(os.path.join(d, "ckpt"))
        return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--state-after", type=int, default=5000)
    args = p.parse_args()
    made = forms(args.files, args.epochs)
    rates = {name: [] for name in made}
    for r in range(args.rounds):
        names = list(made)
        for name in names[r % len(names):] + names[:r % len(names)]:
            rates[name].append(rate(made[name]))
            print(f"dataset_tf.py: round {r}: {name:<12} {rates[name][-1]:10.0f} samples/s",
                  file=sys.stderr, flush=True)
    med = {name: round(statistics.median(v), 1) for name, v in rates.items()}
    print(json.dumps({"tf_data": max(med.values()), "forms": med,
                      "checkpoint_bytes": checkpoint_bytes(args.files, args.state_after)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
