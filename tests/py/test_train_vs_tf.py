"""inflow's training step against TensorFlow 1's, optimizer by optimizer.

build/<dir>/tests/mlp_tf_driver trains inflow's Mlp (784-625-625-10, ReLU,
dropout 0.8 / 0.5, softmax cross-entropy, mean over the batch) for a few
steps on image-like batches with given dropout masks and writes the
batches, the masks, the initial weights, the first step's gradients and
every variable after the last step. Here TF builds the same model in graph
mode (tf.compat.v1: variables named layer1/weights ..., dropout as
tf.nn.dropout computes it with the masks fed in: where(mask, x * float(1 /
keep), 0)), runs the same steps with tf.compat.v1.train's RMSPropOptimizer,
AdamOptimizer or GradientDescentOptimizer and global_step, and the losses,
gradients, weights, slots (named by TF), beta powers and global_step must
agree to ~1e-5.

The two sides sum the products in different orders, so values differ in
the last bits. Adam's first steps move each weight by about lr * sign(g):
where a gradient is so near zero that rounding could flip its sign, the
updated weight is compared only after masking those elements (see
`sign_stable`).
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest
import tensorflow as tf

tf1 = tf.compat.v1

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
DRIVER = BUILD / "tests" / "mlp_tf_driver"
STEPS = 3


def run_driver(tmp_path, optimizer):
    out = tmp_path / optimizer
    out.mkdir()
    subprocess.run([str(DRIVER), "--out", str(out), "--optimizer", optimizer,
                    "--steps", str(STEPS), "--batch", "32", "--seed", "5"],
                   check=True, timeout=120)
    manifest = json.loads((out / "manifest.json").read_text())
    arrays = {}
    for name, a in manifest["arrays"].items():
        data = np.fromfile(out / a["file"], dtype=np.dtype(a["dtype"]).newbyteorder("<"))
        arrays[name] = data.reshape(a["shape"])
    return manifest, arrays


def tf_run(manifest, arrays):
    """The same steps in TF1: losses, first gradients, final variables."""
    sizes, (keep_in, keep_hidden) = manifest["sizes"], manifest["keep"]
    layers = len(sizes) - 1
    graph = tf.Graph()
    with graph.as_default():
        x = tf1.placeholder(tf.float32, [None, sizes[0]])
        y = tf1.placeholder(tf.int64, [None])
        masks = [tf1.placeholder(tf.float32, [None, sizes[i]]) for i in range(layers)]
        params = []
        for i in range(layers):
            with tf1.variable_scope(f"layer{i + 1}"):
                for kind in ("weights", "biases"):
                    init = arrays[f"init/layer{i + 1}/{kind}"]
                    params.append(tf1.get_variable(kind, initializer=tf.constant(init)))
        h = x
        for i in range(layers):
            if i > 0:
                h = tf.nn.relu(h)
            keep = keep_in if i == 0 else keep_hidden
            scale = tf.constant(1.0 / keep, tf.float32)
            h = tf.where(masks[i] > 0, h * scale, tf.zeros_like(h))
            h = tf.matmul(h, params[2 * i]) + params[2 * i + 1]
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(
            labels=tf.one_hot(y, sizes[-1]), logits=h))
        global_step = tf1.train.get_or_create_global_step()
        lr = manifest["lr"]
        opt = {"rmsprop": lambda: tf1.train.RMSPropOptimizer(lr, decay=0.9, momentum=0.0,
                                                            epsilon=1e-10),
               "adam": lambda: tf1.train.AdamOptimizer(lr),
               "sgd": lambda: tf1.train.GradientDescentOptimizer(lr)}[manifest["optimizer"]]()
        grads = tf.gradients(loss, params)
        train = opt.apply_gradients(zip(grads, params), global_step=global_step)
        init = tf1.global_variables_initializer()
        with tf1.Session(graph=graph) as sess:
            sess.run(init)
            losses, first_grads = [], None
            for k in range(manifest["steps"]):
                feed = {x: arrays[f"images/{k}"], y: arrays[f"labels/{k}"]}
                feed.update({masks[i]: arrays[f"mask/{k}/{i}"] for i in range(layers)})
                value, g = sess.run([loss, grads], feed)
                losses.append(value)
                if k == 0:
                    first_grads = g
                sess.run(train, feed)
            final = {v.op.name: sess.run(v) for v in tf1.global_variables()}
    return losses, first_grads, final


def assert_close(got, want, what, rtol=1e-5):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    scale = max(np.abs(want).max(), 1e-30)
    err = np.abs(got - want).max()
    assert err <= rtol * scale, f"{what}: max |diff| {err:.3g} > {rtol} * {scale:.3g}"


def sign_stable(grad):
    """Elements whose gradient is far enough from 0 that its sign is sure."""
    return np.abs(grad) > 1e-4 * np.abs(grad).max()


@pytest.mark.parametrize("optimizer", ["rmsprop", "adam", "sgd"])
def test_training_steps_match_tensorflow(tmp_path, optimizer):
    manifest, arrays = run_driver(tmp_path, optimizer)
    losses, grads, final = tf_run(manifest, arrays)
    np.testing.assert_allclose(manifest["losses"], losses, rtol=1e-5)
    names = [f"layer{i // 2 + 1}/{'weights' if i % 2 == 0 else 'biases'}"
             for i in range(len(grads))]
    for name, g in zip(names, grads):
        assert_close(arrays[f"grad/{name}"], g, f"gradient of {name}")
    ours = {k[len("final/"):]: v for k, v in arrays.items() if k.startswith("final/")}
    # The same variables under the same names: parameters, slots, global_step.
    assert sorted(ours) == sorted(final)
    assert int(ours["global_step"]) == int(final["global_step"]) == STEPS
    for name in sorted(final):
        got, want = ours[name], final[name]
        if name == "global_step":
            continue
        if optimizer == "adam" and name in names:
            keep = sign_stable(grads[names.index(name)])
            assert keep.mean() > 0.5, name
            got, want = got[keep], want[keep]
        assert_close(got, want, name)
    if optimizer == "rmsprop":
        # TF1's mean-square slot starts at ones, so after the steps it is
        # near 0.9^STEPS, not near 0.
        ms = final["layer1/weights/RMSProp"]
        assert abs(float(np.median(ms)) - 0.9 ** STEPS) < 0.01


def test_driver_checks_its_optimizer_name(tmp_path):
    proc = subprocess.run([str(DRIVER), "--out", str(tmp_path), "--optimizer", "adagrad"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert "unknown optimizer" in proc.stderr
