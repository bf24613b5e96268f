"""The model of `inflow train` in TensorFlow itself, for its test accuracy.

TensorFlow 1.x graph mode (tf.compat.v1), one thread: 784-625-625-10 with
ReLU and biases, tf.nn.dropout keeping 0.8 of the input and 0.5 of each
hidden layer, softmax cross-entropy (mean over the batch), weights
N(0, 0.01), zero biases, RMSPropOptimizer(0.001, decay 0.9), batches of 128
drawn from a fresh permutation of the training set each epoch (the last
partial batch dropped), pixels scaled to [0, 1]. Prints the test accuracy
after each epoch on stderr and one JSON line on stdout:
{"bench": "tf_reference_accuracy", "seed": s, "epochs": n,
 "test_accuracy": [a1, ..., an]}.

    .venv/bin/python bench/py/tf_reference_accuracy.py --seed 1 --epochs 10
"""
import argparse
import gzip
import json
import os
import sys
import time

import numpy as np


def read_idx(path, header_bytes):
    with gzip.open(path, "rb") as f:
        return np.frombuffer(f.read(), np.uint8, offset=header_bytes)


def load(dataset, split, limit):
    prefix = "train" if split == "train" else "t10k"
    images = read_idx(os.path.join(dataset, f"{prefix}-images-idx3-ubyte.gz"), 16)
    labels = read_idx(os.path.join(dataset, f"{prefix}-labels-idx1-ubyte.gz"), 8)
    images = images.reshape(-1, 784).astype(np.float32) / 255.0
    labels = labels.astype(np.int64)
    if limit:
        images, labels = images[:limit], labels[:limit]
    return images, labels


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--train-limit", type=int, default=0,
                        help="use only the first N training examples (0: all)")
    args = parser.parse_args()

    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import tensorflow as tf
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()

    x_train, y_train = load(args.dataset, "train", args.train_limit)
    x_test, y_test = load(args.dataset, "test", 0)
    tf1.set_random_seed(args.seed)
    x = tf1.placeholder(tf.float32, [None, 784])
    y = tf1.placeholder(tf.int64, [None])
    keep_input = tf1.placeholder_with_default(1.0, [])
    keep_hidden = tf1.placeholder_with_default(1.0, [])

    def layer(inputs, units, relu):
        w = tf.Variable(tf1.random_normal([int(inputs.shape[1]), units], stddev=0.01))
        b = tf.Variable(tf.zeros([units]))
        z = tf.matmul(inputs, w) + b
        return tf.nn.relu(z) if relu else z

    h = tf1.nn.dropout(x, keep_prob=keep_input)
    h = tf1.nn.dropout(layer(h, 625, True), keep_prob=keep_hidden)
    h = tf1.nn.dropout(layer(h, 625, True), keep_prob=keep_hidden)
    logits = layer(h, 10, False)
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train = tf1.train.RMSPropOptimizer(0.001, 0.9).minimize(loss)
    correct = tf.equal(tf.argmax(logits, 1), y)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))

    config = tf1.ConfigProto(intra_op_parallelism_threads=1,
                             inter_op_parallelism_threads=1)
    rng = np.random.default_rng(args.seed)
    steps_per_epoch = len(x_train) // args.batch_size
    accuracies = []
    with tf1.Session(config=config) as sess:
        sess.run(tf1.global_variables_initializer())
        t0 = time.time()
        for epoch in range(1, args.epochs + 1):
            order = rng.permutation(len(x_train))
            for i in range(steps_per_epoch):
                batch = order[i * args.batch_size:(i + 1) * args.batch_size]
                sess.run(train, {x: x_train[batch], y: y_train[batch],
                                 keep_input: 0.8, keep_hidden: 0.5})
            accuracies.append(float(sess.run(accuracy, {x: x_test, y: y_test})))
            print(f"epoch {epoch}: test accuracy {accuracies[-1]:.4f} "
                  f"({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    print(json.dumps({"bench": "tf_reference_accuracy", "seed": args.seed,
                      "epochs": args.epochs,
                      "test_accuracy": [round(a, 4) for a in accuracies]}))


if __name__ == "__main__":
    main()
