"""inflow's model files (`<prefix>.meta`, `graph.pbtxt`) against TensorFlow.

build/<dir>/tests/meta_graph_tf_driver writes, for an MLP description, a
checkpoint of random weights (BundleWriter; with a global_step and an
optimizer slot the model's saver does not restore), `<prefix>.meta`
(WriteMetaGraph) and `graph.pbtxt` (WriteGraphText), and prints a few
random inputs with the predictions a plain C++ forward pass computes for
them; for inflow's own Mlp, the graph is MlpGraphForVariables of the
model's variables and the predictions are Mlp::Predict's.

TensorFlow then
  - loads the model the way TF1 programs do (import_meta_graph,
    saver.restore, sess.run("predictions:0", {"x:0": images})) and must
    compute the C++ predictions to 1e-5;
  - builds the same model itself in graph mode (get_variable with
    VariableV2, name scopes, tf.compat.v1.train.Saver) and exports it: the
    .meta must be the same bytes as TensorFlow's export, and graph.pbtxt the
    same bytes as tf.io.write_graph's.

graph.pbtxt is not the .meta's graph_def exactly: TensorFlow's
export_meta_graph adds an `_output_shapes` attr to every node with
outputs and write_graph does not. The test pins that, as TensorFlow does
it.
"""
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest
import tensorflow as tf
from google.protobuf import text_format
from tensorflow.core.framework import graph_pb2, variable_pb2
from tensorflow.core.protobuf import meta_graph_pb2

tf1 = tf.compat.v1

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
DRIVER = BUILD / "tests" / "meta_graph_tf_driver"

NORMAL_001 = {"kind": "random_normal", "mean": 0.0, "stddev": 0.01}
ZEROS = {"kind": "zeros"}


def layer(scope, units, relu, weights=None, biases=None, weights_init=NORMAL_001,
          biases_init=ZEROS):
    return {"scope": scope, "weights": weights or scope + "/weights",
            "biases": biases or scope + "/biases", "units": units, "relu": relu,
            "weights_init": weights_init, "biases_init": biases_init}


CASES = {
    # The model `inflow train` trains: 784-625-625-10, ReLU, softmax.
    "issue15_mlp_784_625_625_10": {
        "input_size": 784, "num_inputs": 6,
        "layers": [layer("layer1", 625, True), layer("layer2", 625, True),
                   layer("layer3", 10, False)]},
    # Other names, a zeros initializer large enough for TF's Fill form, a
    # random-normal bias (its shape constant stored as int_val), ReLU on the
    # last layer, and other saver options and tags.
    "names_initializers_and_options_varied": {
        "input_size": 12, "num_inputs": 5, "input_name": "images",
        "output_name": "probs",
        "layers": [
            layer("fc1", 100, True, weights="dense/kernel", biases="dense/bias",
                  weights_init=ZEROS,
                  biases_init={"kind": "random_normal", "mean": 0.5, "stddev": 0.25}),
            layer("fc2", 7, True, weights="out/w", biases="out/b",
                  weights_init={"kind": "random_normal", "mean": -0.125,
                                "stddev": 1e-5})],
        "options": {"max_to_keep": 3, "keep_checkpoint_every_n_hours": 2.5,
                    "tags": ["serve", "train"]}},
    # inflow's Mlp itself: MlpGraphForVariables(model.variables()) and
    # Mlp::Predict's predictions (the layers come back from the driver).
    "inflow_mlp_and_its_predict": {
        "num_inputs": 8,
        "mlp": {"layer_sizes": [784, 625, 625, 10], "init_stddev": 0.1, "seed": 5}},
}


@pytest.fixture(scope="module", params=sorted(CASES))
def written(request, tmp_path_factory):
    """Runs the driver for one case: paths, the spec and its output."""
    spec = dict(CASES[request.param])
    out = tmp_path_factory.mktemp(request.param)
    spec["prefix"] = str(out / "model.ckpt-7")
    spec["graph_pbtxt"] = str(out / "graph.pbtxt")
    proc = subprocess.run([str(DRIVER)], input=json.dumps(spec), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    if "mlp" in spec:
        spec["layers"] = result["layers"]
        spec["input_size"] = spec["mlp"]["layer_sizes"][0]
    n, size = spec["num_inputs"], spec["input_size"]
    classes = spec["layers"][-1]["units"]
    images = np.array(result["images"], np.float32).reshape(n, size)
    predictions = np.array(result["predictions"], np.float32).reshape(n, classes)
    return {"spec": spec, "name": request.param, "images": images,
            "predictions": predictions}


def tf_model(spec):
    """The same model built by TensorFlow 1's graph mode and exported.

    Returns (MetaGraphDef bytes as export_meta_graph writes them, the text
    tf.io.write_graph writes).
    """
    g = tf.Graph()
    with g.as_default():
        h = tf1.placeholder(tf.float32, [None, spec["input_size"]],
                            name=spec.get("input_name", "x"))
        for lay in spec["layers"]:
            inits = []
            for key in ("weights_init", "biases_init"):
                init = lay[key]
                if init["kind"] == "zeros":
                    inits.append(tf1.zeros_initializer())
                else:
                    inits.append(tf1.random_normal_initializer(mean=init["mean"],
                                                               stddev=init["stddev"]))
            units = lay["units"]
            w = tf1.get_variable(lay["weights"], [h.shape[1], units], initializer=inits[0],
                                 use_resource=False)
            b = tf1.get_variable(lay["biases"], [units], initializer=inits[1],
                                 use_resource=False)
            with tf1.name_scope(lay["scope"] + "/"):
                h = tf.raw_ops.Add(x=tf.matmul(h, w), y=b)
                if lay["relu"]:
                    h = tf.nn.relu(h)
        tf.nn.softmax(h, name=spec.get("output_name", "predictions"))
        options = spec.get("options", {})
        saver = tf1.train.Saver(
            max_to_keep=options.get("max_to_keep", 5),
            keep_checkpoint_every_n_hours=options.get("keep_checkpoint_every_n_hours", 10000))
        meta = saver.export_meta_graph()
        # Saver.export_meta_graph has no tags argument; SavedModel sets them.
        meta.meta_info_def.tags.extend(options.get("tags", []))
        text = text_format.MessageToString(g.as_graph_def(), float_format="")
    return meta.SerializeToString(deterministic=True), text


def read_meta(path):
    meta = meta_graph_pb2.MetaGraphDef()
    meta.ParseFromString(pathlib.Path(path).read_bytes())
    return meta


def test_meta_graph_is_byte_for_byte_what_tf_exports_for_the_same_model(written):
    spec = written["spec"]
    ours = pathlib.Path(spec["prefix"] + ".meta").read_bytes()
    theirs, _ = tf_model(spec)
    ours_msg, theirs_msg = meta_graph_pb2.MetaGraphDef(), meta_graph_pb2.MetaGraphDef()
    ours_msg.ParseFromString(ours)
    theirs_msg.ParseFromString(theirs)
    # The message first, so that a difference is shown field by field.
    assert text_format.MessageToString(ours_msg) == text_format.MessageToString(theirs_msg)
    assert ours == theirs


def test_graph_pbtxt_is_byte_for_byte_what_tf_write_graph_writes(written):
    spec = written["spec"]
    _, theirs = tf_model(spec)
    assert pathlib.Path(spec["graph_pbtxt"]).read_text() == theirs
    # And what write_graph itself puts in a file.
    out = pathlib.Path(spec["graph_pbtxt"]).parent / "tf"
    graph = graph_pb2.GraphDef()
    text_format.Parse(theirs, graph)
    tf.io.write_graph(graph, str(out), "graph.pbtxt", as_text=True)
    assert (out / "graph.pbtxt").read_bytes() == pathlib.Path(spec["graph_pbtxt"]).read_bytes()


def test_import_meta_graph_restore_and_run_gives_the_cpp_predictions(written):
    spec = written["spec"]
    x = spec.get("input_name", "x") + ":0"
    out = spec.get("output_name", "predictions") + ":0"
    g = tf.Graph()
    with g.as_default(), tf1.Session(graph=g) as sess:
        saver = tf1.train.import_meta_graph(spec["prefix"] + ".meta")
        saver.restore(sess, spec["prefix"])
        got = sess.run(out, {x: written["images"]})
    assert got.dtype == np.float32
    assert got.shape == written["predictions"].shape
    np.testing.assert_allclose(got, written["predictions"], rtol=0, atol=1e-5)
    np.testing.assert_allclose(got.sum(axis=1), 1.0, atol=1e-5)
    # Random weights of stddev 0.1 give predictions far from uniform, so
    # the comparison above is not between two near-constant arrays.
    assert np.ptp(got) > 1e-3


def test_graph_pbtxt_parses_to_the_meta_graph_def_less_its_output_shapes(written):
    spec = written["spec"]
    text = tf.io.read_file(spec["graph_pbtxt"]).numpy().decode()
    from_text = graph_pb2.GraphDef()
    text_format.Parse(text, from_text)
    from_meta = read_meta(spec["prefix"] + ".meta").graph_def
    assert from_text != from_meta  # export_meta_graph's _output_shapes
    for node in from_meta.node:
        if node.op not in ("SaveV2", "NoOp"):
            assert "_output_shapes" in node.attr, node.name
            del node.attr["_output_shapes"]
    assert from_text == from_meta


def test_meta_graph_parses_with_the_model_saver_and_collections(written):
    spec = written["spec"]
    meta = read_meta(spec["prefix"] + ".meta")
    names = [n.name for n in meta.graph_def.node]
    ops = {n.name: n.op for n in meta.graph_def.node}
    x = spec.get("input_name", "x")
    assert ops[x] == "Placeholder"
    assert meta.graph_def.node[names.index(x)].attr["shape"].shape.dim[1].size == \
        spec["input_size"]
    variables = []
    for lay in spec["layers"]:
        for v in (lay["weights"], lay["biases"]):
            variables.append(v)
            assert ops[v] == "VariableV2"
            assert ops[v + "/Assign"] == "Assign"
            assert ops[v + "/read"] == "Identity"
        assert ops[lay["scope"] + "/MatMul"] == "MatMul"
        assert ops[lay["scope"] + "/Add"] == "Add"
        assert (lay["scope"] + "/Relu" in ops) == lay["relu"]
    assert ops[spec.get("output_name", "predictions")] == "Softmax"
    for name, op in [("save/Const", "PlaceholderWithDefault"), ("save/SaveV2", "SaveV2"),
                     ("save/RestoreV2", "RestoreV2"), ("save/restore_all", "NoOp")]:
        assert ops[name] == op
    restore = meta.graph_def.node[names.index("save/RestoreV2/tensor_names")]
    assert [s.decode() for s in restore.attr["value"].tensor.string_val] == sorted(variables)

    options = spec.get("options", {})
    saver = meta.saver_def
    assert (saver.filename_tensor_name, saver.save_tensor_name, saver.restore_op_name) == \
        ("save/Const:0", "save/control_dependency:0", "save/restore_all")
    assert saver.max_to_keep == options.get("max_to_keep", 5)
    assert saver.keep_checkpoint_every_n_hours == options.get("keep_checkpoint_every_n_hours",
                                                              10000)
    assert saver.version == 2  # V2
    assert list(meta.meta_info_def.tags) == options.get("tags", [])
    assert meta.meta_info_def.tensorflow_version == tf.__version__
    assert sorted(op.name for op in meta.meta_info_def.stripped_op_list.op) == \
        sorted(set(ops.values()))
    assert sorted(meta.collection_def) == ["trainable_variables", "variables"]
    for key in ("variables", "trainable_variables"):
        defs = [variable_pb2.VariableDef.FromString(b)
                for b in meta.collection_def[key].bytes_list.value]
        assert [d.variable_name for d in defs] == [v + ":0" for v in variables]
        assert all(d.trainable and not d.is_resource for d in defs)


def test_imported_initializers_give_tf_initial_values(written):
    spec = written["spec"]
    g = tf.Graph()
    with g.as_default(), tf1.Session(graph=g) as sess:
        tf1.train.import_meta_graph(spec["prefix"] + ".meta")
        sess.run(tf1.global_variables_initializer())
        for lay in spec["layers"]:
            for key, init in (("weights", lay["weights_init"]), ("biases", lay["biases_init"])):
                value = sess.run(lay[key] + ":0")
                if init["kind"] == "zeros":
                    assert not value.any(), lay[key]
                else:
                    # Loose bounds: a sample of at least 7 draws.
                    assert abs(value.mean() - init["mean"]) < 4 * init["stddev"], lay[key]
                    assert 0 < value.std() < 2 * init["stddev"], lay[key]
