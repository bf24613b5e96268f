"""`inflow records cat` decodes Examples and SequenceExamples to protobuf's
canonical JSON: the same objects google.protobuf.json_format makes."""
import base64
import hashlib
import json
import math
import random

import pytest
import tensorflow as tf
from google.protobuf import json_format

from conftest import tf_testdata_file


def records_of(path, compression=""):
    return [r.numpy() for r in tf.data.TFRecordDataset(str(path), compression_type=compression)]


def canonical(message):
    return json.loads(json_format.MessageToJson(message, indent=None))


def cat(run_inflow, *args):
    out = run_inflow("records", "cat", *args).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("name,compression,kind", [
    ("images.tfrecord", "", "example"),
    ("images.tfrecord.gz", "GZIP", "example"),
    ("wmt14.tfrecord", "", "example"),
    ("seqex.tfrecord.gz", "GZIP", "sequence_example"),
])
def test_cat_matches_json_format_on_tensorflow_files(run_inflow, name, compression, kind):
    path = tf_testdata_file("tfrecord/" + name)
    proto = tf.train.Example if kind == "example" else tf.train.SequenceExample
    want = [canonical(proto.FromString(r)) for r in records_of(path, compression)]
    assert cat(run_inflow, "--as", kind, path) == want
    # auto recognises both kinds.
    assert cat(run_inflow, path) == want


def test_cat_values_match_expected_json_hashes(run_inflow, tf_expected):
    facts = tf_expected["files"]["tfrecord/images.tfrecord"]
    lines = cat(run_inflow, "--as", "example", tf_testdata_file("tfrecord/images.tfrecord"))
    assert len(lines) == facts["records"]
    for line, which in ((lines[0], "first_record"), (lines[-1], "last_record")):
        data = base64.b64decode(line["features"]["feature"]["data"]["bytesList"]["value"][0])
        assert hashlib.sha256(data).hexdigest() == facts[which]["data"]["first_sha256"]
        shape = line["features"]["feature"]["shape"]["int64List"]["value"]
        assert [int(x) for x in shape] == facts[which]["shape"]["first"]


def random_example(rng):
    ex = tf.train.Example()
    for _ in range(rng.randint(0, 5)):
        key = rng.choice(["a", "b", "x y", "\u00e4\u2581", "", "q\"\\\n"])
        f = ex.features.feature[key]
        kind = rng.randint(0, 3)
        n = rng.randint(0, 4)
        if kind == 1:
            f.bytes_list.value.extend(bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 9)))
                                      for _ in range(n))
        elif kind == 2:
            f.float_list.value.extend(rng.choice([0.1, -0.0, 1e-45, 3.4e38, math.inf, -math.inf,
                                                  math.nan, rng.uniform(-1e6, 1e6)])
                                      for _ in range(n))
        elif kind == 3:
            f.int64_list.value.extend(rng.choice([0, -1, 2**63 - 1, -2**63, rng.randint(-9, 9)])
                                      for _ in range(n))
        elif rng.random() < 0.5:
            f.Clear()
    return ex


def test_cat_matches_json_format_on_random_examples(run_inflow, tmp_path):
    rng = random.Random(6)
    examples = [random_example(rng) for _ in range(300)]
    path = tmp_path / "random.tfrecord"
    with tf.io.TFRecordWriter(str(path)) as w:
        for ex in examples:
            w.write(ex.SerializeToString())
    got = cat(run_inflow, "--as", "example", path)
    want = [canonical(ex) for ex in examples]
    # NaN compares unequal to itself only as a float; json_format and we
    # both write the string "NaN".
    assert got == want


def test_features_flag_selects_keys(run_inflow):
    path = tf_testdata_file("tfrecord/wmt14.tfrecord")
    got = cat(run_inflow, "--as", "example", "--features", "source_id,example_index", path)
    for line, record in zip(got, records_of(path)):
        full = canonical(tf.train.Example.FromString(record))
        keep = {k: v for k, v in full["features"]["feature"].items()
                if k in ("source_id", "example_index")}
        assert line == {"features": {"feature": keep}}
    seq = cat(run_inflow, "--features", "s,i", tf_testdata_file("tfrecord/seqex.tfrecord.gz"))
    assert set(seq[1]["context"]["feature"]) == {"i"}
    assert set(seq[1]["featureLists"]["featureList"]) == {"s"}


def test_raw_record_as_example_is_invalid_argument(run_inflow):
    fox = tf_testdata_file("tfrecord/fox.tfrecord")
    proc = run_inflow("records", "cat", "--as", "example", fox, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("INVALID_ARGUMENT")
    # auto falls back to raw.
    assert cat(run_inflow, fox) == [
        {"raw": base64.b64encode(b"The Quick Brown Fox").decode()}]
