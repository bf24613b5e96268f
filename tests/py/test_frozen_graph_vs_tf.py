"""The frozen GraphDef `inflow train` writes beside its checkpoints
(frozen_graph.pb: the weights as constants, tf.io.write_graph's binary
format) and `inflow export` writes from one: TensorFlow loads it with
import_graph_def, without the checkpoint, and computes the test predictions
`inflow eval` gives, to 1e-5. The data: a
slice of Fashion-MNIST (1280 train and 500 test images, converted with
`inflow convert npy`)."""
import glob
import json
import os

import numpy as np
import pytest
import tensorflow as tf

from conftest import fashion_shards

tf1 = tf.compat.v1
@pytest.fixture(scope="module")
def data(tmp_path_factory, run_inflow):
    return fashion_shards(tmp_path_factory.mktemp("fashion_frozen"), run_inflow, 1280, 500)


def test_tensorflow_imports_the_frozen_graph_and_gets_inflows_predictions(
        data, run_inflow, tmp_path):
    ckpt = tmp_path / "ckpt"
    run_inflow("train", "--data", data, "--steps", "30", "--seed", "7", "--ckpt-dir", ckpt)
    assert (ckpt / "graph.pbtxt").exists()
    ev = run_inflow("eval", "--ckpt", ckpt, "--data", data, "--predictions",
                    tmp_path / "p.bin")
    result = json.loads(ev.stdout)
    ours = np.fromfile(tmp_path / "p.bin", np.float32).reshape(-1, 10)

    features = {"image_raw": tf.io.FixedLenFeature([], tf.string),
                "label": tf.io.FixedLenFeature([], tf.int64)}
    images, labels = [], []
    for r in tf.data.TFRecordDataset(sorted(glob.glob(str(data / "test-*.tfrecord")))):
        ex = tf.io.parse_single_example(r, features)
        images.append(tf.io.decode_raw(ex["image_raw"], tf.uint8).numpy())
        labels.append(int(ex["label"]))
    x = np.stack(images).astype(np.float32) * np.float32(1 / 255)

    graph_def = tf1.GraphDef.FromString((ckpt / "frozen_graph.pb").read_bytes())
    ops = [n.op for n in graph_def.node]
    assert "VariableV2" not in ops and "SaveV2" not in ops
    # 784-625-625-10: weights and biases of 3 layers.
    assert ops.count("Const") == 6 and ops[-1] == "Softmax"
    g = tf.Graph()
    with g.as_default():
        tf1.import_graph_def(graph_def, name="")
        with tf1.Session(graph=g) as sess:
            theirs = sess.run("predictions:0", {"x:0": x})
    assert theirs.shape == ours.shape == (500, 10)
    np.testing.assert_allclose(theirs, ours, rtol=0, atol=1e-5)
    assert np.mean(theirs.argmax(1) == np.array(labels)) == pytest.approx(
        result["test_accuracy"], abs=1e-6)

    # `inflow export` writes the same file from the checkpoint.
    exported = run_inflow("export", "--ckpt", ckpt, "--out", tmp_path / "model.pb")
    assert json.loads(exported.stdout) == {"checkpoint": str(ckpt / "model.ckpt-30"),
                                           "out": str(tmp_path / "model.pb")}
    assert (tmp_path / "model.pb").read_bytes() == (ckpt / "frozen_graph.pb").read_bytes()


def test_export_without_a_checkpoint_is_an_error_naming_the_folder(run_inflow, tmp_path):
    proc = run_inflow("export", "--ckpt", tmp_path, "--out", tmp_path / "m.pb", check=False)
    assert proc.returncode == 1
    assert f"NOT_FOUND: no checkpoint in {tmp_path}" in proc.stderr
