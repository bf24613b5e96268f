"""inflow's Example parsing against TensorFlow's on the same random inputs.

tf.io.parse_single_example, parse_example and parse_single_sequence_example
and inflow (through build/<dir>/tests/example_tf_driver) get the same
serialized records and feature configurations; the tensors (dtype, shape,
values bit for bit, sparse indices) and the error codes must be identical.
"""
import base64
import json
import os
import pathlib
import random
import struct
import subprocess

import numpy as np
import pytest
import tensorflow as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
DRIVER = BUILD / "tests" / "example_tf_driver"

KEYS = ["a", "b", "c", "d", "\u00e4"]
DTYPES = {"float32": tf.float32, "int64": tf.int64, "string": tf.string}
KIND_OF = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}


def b64(data):
    return base64.b64encode(data).decode()


def run_driver(cases):
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing: build the example_tf_driver target")
    proc = subprocess.run([str(DRIVER)], input=json.dumps(cases), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# ---- random inputs ---------------------------------------------------------

def rand_values(rng, dtype, n):
    if dtype == "float32":
        return [rng.choice([0.0, -0.0, 1.5, float(rng.randint(-9, 9)), rng.uniform(-1e3, 1e3)])
                for _ in range(n)]
    if dtype == "int64":
        return [rng.choice([0, -1, 2**63 - 1, -2**63, rng.randint(-1000, 1000)]) for _ in range(n)]
    return [bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 6))) for _ in range(n)]


def make_feature(rng, dtype, n):
    values = rand_values(rng, dtype, n)
    if dtype == "float32":
        return tf.train.Feature(float_list=tf.train.FloatList(value=values))
    if dtype == "int64":
        return tf.train.Feature(int64_list=tf.train.Int64List(value=values))
    return tf.train.Feature(bytes_list=tf.train.BytesList(value=values))


def rand_spec(rng, key, allowed):
    kind = rng.choice(allowed)
    dtype = rng.choice(list(DTYPES))
    spec = {"key": key, "type": kind, "dtype": dtype}
    if kind == "fixed":
        spec["shape"] = rng.choice([[], [1], [2], [3], [2, 2], [0]])
        if rng.random() < 0.4:
            n = int(np.prod(spec["shape"])) if spec["shape"] else 1
            spec["default"] = rand_values(rng, dtype, n)
    elif kind == "seq":
        spec["shape"] = rng.choice([[], [2], [1, 2]])
        spec["allow_missing"] = True
        if rng.random() < 0.4:
            spec["default"] = rand_values(rng, dtype, 1)
    return spec


def elements(spec):
    return int(np.prod(spec.get("shape") or [1])) if spec.get("shape") != [0] else 0


def feature_for(rng, spec):
    """A feature that usually fits `spec`, sometimes not (errors must agree)."""
    r = rng.random()
    if r < 0.08:
        return None  # absent
    if r < 0.14:
        return tf.train.Feature()  # kind not set
    dtype = spec["dtype"] if rng.random() < 0.85 else rng.choice(list(DTYPES))
    if spec["type"] == "fixed":
        n = elements(spec) if rng.random() < 0.85 else rng.randint(0, 4)
    elif spec["type"] == "seq":
        n = elements(spec) * rng.randint(0, 3) if rng.random() < 0.9 else rng.randint(0, 5)
    else:
        n = rng.randint(0, 4)
    return make_feature(rng, dtype, n)


def make_example(rng, specs):
    ex = tf.train.Example()
    for spec in specs:
        f = feature_for(rng, spec)
        if f is not None:
            ex.features.feature[spec["key"]].CopyFrom(f)
    if rng.random() < 0.2:  # a feature nobody asked for
        ex.features.feature["zz"].CopyFrom(make_feature(rng, "int64", 2))
    data = ex.SerializeToString()
    if rng.random() < 0.1 and specs:
        # A second Example appended: the maps merge, a repeated key's last
        # value wins.
        spec = rng.choice(specs)
        extra = tf.train.Example()
        extra.features.feature[spec["key"]].CopyFrom(feature_for(rng, spec) or tf.train.Feature())
        data += extra.SerializeToString()
    return data


def tf_spec(spec):
    dtype = DTYPES[spec["dtype"]]
    default = spec.get("default")
    if spec["type"] == "var":
        return tf.io.VarLenFeature(dtype)
    if spec["type"] == "fixed":
        return tf.io.FixedLenFeature(spec["shape"], dtype, default_value=default)
    return tf.io.FixedLenSequenceFeature(spec["shape"], dtype, allow_missing=spec["allow_missing"],
                                         default_value=default[0] if default else None)


def driver_spec(spec):
    out = dict(spec)
    out["key"] = b64(spec["key"].encode())
    if "default" in spec and spec["dtype"] == "string":
        out["default"] = [b64(v) for v in spec["default"]]
    return out


# ---- comparing ---------------------------------------------------------------

def tensor_json(t):
    return array_json(t.numpy())


def array_json(a):
    if isinstance(a, bytes):  # a scalar string
        value, a = a, np.empty((), dtype=object)
        a[()] = value
    if a.dtype == np.float32:
        values = [int(x) for x in a.reshape(-1).view(np.uint32)]
        dtype = "float32"
    elif a.dtype == np.int64:
        values = [int(x) for x in a.reshape(-1)]
        dtype = "int64"
    else:
        values = [b64(x) for x in a.reshape(-1)]
        dtype = "string"
    return {"dtype": dtype, "shape": list(a.shape), "values": values}


def tf_outputs(parsed, specs):
    dense, sparse = {}, {}
    for spec in specs:
        key = b64(spec["key"].encode())
        t = parsed[spec["key"]]
        if isinstance(t, tf.SparseTensor):
            sparse[key] = {"indices": tensor_json(t.indices), "values": tensor_json(t.values),
                           "dense_shape": tensor_json(t.dense_shape)}
        else:
            dense[key] = tensor_json(t)
    return {"dense": dense, "sparse": sparse}


def tf_call(fn):
    try:
        return {"ok": True, **fn()}
    except (tf.errors.InvalidArgumentError, ValueError, TypeError) as e:
        return {"ok": False, "code": "INVALID_ARGUMENT", "message": str(e)[:300]}


def check(cases, expected):
    got = run_driver(cases)
    assert len(got) == len(expected)
    mismatches = []
    for i, (ours, theirs) in enumerate(zip(got, expected)):
        if ours["ok"] != theirs["ok"]:
            mismatches.append((i, cases[i], ours, theirs))
        elif not ours["ok"]:
            if ours["code"] != theirs["code"]:
                mismatches.append((i, cases[i], ours, theirs))
        else:
            ours = {k: v for k, v in ours.items() if k != "ok"}
            theirs = {k: v for k, v in theirs.items() if k != "ok"}
            if ours != theirs:
                mismatches.append((i, cases[i], ours, theirs))
    assert not mismatches, json.dumps(mismatches[:3], indent=1)[:4000]
    oks = sum(1 for e in expected if e["ok"])
    # Both outcomes must be exercised, or the comparison proves little.
    assert 0.2 * len(expected) < oks < 0.9 * len(expected), oks


# ---- tests -------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["single", "batch"])
def test_parse_example_matches_tensorflow(mode):
    rng = random.Random(1 if mode == "single" else 2)
    cases, expected = [], []
    for _ in range(250):
        keys = rng.sample(KEYS, rng.randint(1, 3))
        specs = [rand_spec(rng, k, ["fixed", "var", "seq"]) for k in keys]
        batch = [make_example(rng, specs) for _ in range(1 if mode == "single" else rng.randint(1, 4))]
        cases.append({"mode": mode, "features": [driver_spec(s) for s in specs],
                      "serialized": [b64(x) for x in batch]})

        def run(specs=specs, batch=batch):
            feats = {s["key"]: tf_spec(s) for s in specs}
            if mode == "single":
                out = tf.io.parse_single_example(batch[0], feats)
            else:
                out = tf.io.parse_example(tf.constant(batch), feats)
            return tf_outputs(out, specs)
        expected.append(tf_call(run))
    check(cases, expected)


def make_sequence_example(rng, context_specs, seq_specs):
    se = tf.train.SequenceExample()
    for spec in context_specs:
        f = feature_for(rng, spec)
        if f is not None:
            se.context.feature[spec["key"]].CopyFrom(f)
    for spec in seq_specs:
        if rng.random() < 0.1:
            continue  # missing list
        steps = se.feature_lists.feature_list[spec["key"]]
        for _ in range(rng.randint(0, 3)):
            if spec["type"] == "seq" and rng.random() < 0.9:
                dtype = spec["dtype"] if rng.random() < 0.95 else rng.choice(list(DTYPES))
                steps.feature.add().CopyFrom(make_feature(rng, dtype, elements(spec)))
            elif rng.random() < 0.1:
                steps.feature.add()  # a step with no kind
            else:
                steps.feature.add().CopyFrom(make_feature(rng, spec["dtype"], rng.randint(0, 3)))
    return se.SerializeToString()


def rand_sequence_case(rng):
    """A random case: (context specs, feature list specs, serialized
    SequenceExample)."""
    keys = rng.sample(KEYS, rng.randint(1, 4))
    n_ctx = rng.randint(0, len(keys))
    context = [rand_spec(rng, k, ["fixed", "var"]) for k in keys[:n_ctx]]
    sequence = [rand_spec(rng, k, ["seq", "var"]) for k in keys[n_ctx:]]
    for s in sequence:
        s.pop("default", None)
        if s["type"] == "seq":
            s["allow_missing"] = rng.random() < 0.5
    return context, sequence, make_sequence_example(rng, context, sequence)


def tf_parse_sequence(context, sequence, record):
    """TensorFlow's tf.io.parse_single_sequence_example of a case, as
    tf_call gives it."""
    def run():
        c, s = tf.io.parse_single_sequence_example(
            record, {x["key"]: tf_spec(x) for x in context} or None,
            {x["key"]: tf_spec(x) for x in sequence} or None)
        return {"context": tf_outputs(c, context), "sequence": tf_outputs(s, sequence)}
    return tf_call(run)


def test_parse_single_sequence_example_matches_tensorflow():
    rng = random.Random(3)
    cases, expected = [], []
    for _ in range(200):
        context, sequence, record = rand_sequence_case(rng)
        cases.append({"mode": "sequence", "context": [driver_spec(s) for s in context],
                      "sequence": [driver_spec(s) for s in sequence], "serialized": [b64(record)]})
        expected.append(tf_parse_sequence(context, sequence, record))
    check(cases, expected)


def test_python_parse_single_sequence_example_matches_tensorflow():
    # inflow.io.parse_single_sequence_example (Python, tf.io's name and
    # arguments) on the driver test's kind of random inputs.
    import inflow
    from inflow.errors import OpError

    def ours_spec(spec):
        dtype = {"float32": np.float32, "int64": np.int64, "string": object}[spec["dtype"]]
        default = spec.get("default")
        if spec["type"] == "var":
            return inflow.io.VarLenFeature(dtype)
        if spec["type"] == "fixed":
            return inflow.io.FixedLenFeature(spec["shape"], dtype, default_value=default)
        return inflow.io.FixedLenSequenceFeature(spec["shape"], dtype,
                                                 allow_missing=spec["allow_missing"])

    def ours_outputs(parsed, specs):
        dense, sparse = {}, {}
        for spec in specs:
            key = b64(spec["key"].encode())
            v = parsed[spec["key"]]
            if isinstance(v, inflow.io.SparseTensorValue):
                sparse[key] = {"indices": array_json(np.asarray(v.indices)),
                               "values": array_json(np.asarray(v.values)),
                               "dense_shape": array_json(np.asarray(v.dense_shape))}
            else:
                dense[key] = array_json(np.asarray(v))
        return {"dense": dense, "sparse": sparse}

    rng = random.Random(5)
    oks = 0
    for i in range(200):
        context, sequence, record = rand_sequence_case(rng)
        theirs = tf_parse_sequence(context, sequence, record)
        try:
            c, q = inflow.io.parse_single_sequence_example(
                record, {x["key"]: ours_spec(x) for x in context} or None,
                {x["key"]: ours_spec(x) for x in sequence} or None)
            ours = {"ok": True, "context": ours_outputs(c, context),
                    "sequence": ours_outputs(q, sequence)}
        except (OpError, ValueError) as e:
            ours = {"ok": False, "message": str(e)}
        assert ours["ok"] == theirs["ok"], (i, ours, theirs)
        if ours["ok"]:
            oks += 1
            assert ours == theirs, i
    assert 40 < oks < 180, oks
    # Neither dict: TF's ValueError.
    with pytest.raises(ValueError, match="Both context_features and sequence_features "
                                         "are None"):
        inflow.io.parse_single_sequence_example(record)


def protobuf_accepts(data):
    try:
        tf.train.Example.FromString(data)
        return True
    except Exception:  # google.protobuf.message.DecodeError
        return False


def test_damaged_records_are_judged_as_protobuf_judges_them():
    """Damaged records: where inflow and TF disagree on accepting one,
    protobuf (the format's own parser) sides with inflow; where both accept,
    the tensors agree. TF's fast parser is stricter in places (it wants a
    map entry's key before its value, and no unknown fields there) and
    laxer in others (a nested length may run past its enclosing message);
    inflow follows the wire format, as protobuf does."""
    rng = random.Random(4)
    specs = [{"key": "a", "type": "var", "dtype": "int64"}]
    good = tf.train.Example(features=tf.train.Features(feature={
        "a": tf.train.Feature(int64_list=tf.train.Int64List(value=[1, 300, -5]))})).SerializeToString()
    cases, expected, records = [], [], []
    for _ in range(80):
        data = bytearray(good)
        cut = rng.randint(1, len(data) - 1)
        if rng.random() < 0.5:
            data = bytes(data[:cut])
        else:
            data = bytes(data[:cut]) + bytes([rng.randint(0, 255)]) + bytes(data[cut + 1:])
        records.append(data)
        cases.append({"mode": "single", "features": [driver_spec(s) for s in specs],
                      "serialized": [b64(data)]})
        expected.append(tf_call(lambda data=data: tf_outputs(
            tf.io.parse_single_example(data, {"a": tf.io.VarLenFeature(tf.int64)}), specs)))
    got = run_driver(cases)
    rejected = 0
    for i, (ours, theirs) in enumerate(zip(got, expected)):
        if ours["ok"] != theirs["ok"]:
            assert ours["ok"] == protobuf_accepts(records[i]), (i, cases[i], ours, theirs)
        if not ours["ok"]:
            assert ours["code"] == "INVALID_ARGUMENT", (i, ours)
            rejected += 1
        elif theirs["ok"]:
            assert {k: v for k, v in ours.items() if k != "ok"} == \
                {k: v for k, v in theirs.items() if k != "ok"}, i
    assert rejected > 20
