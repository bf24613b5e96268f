"""inflow's checkpoints against TensorFlow's, in both directions.

inflow -> TF: inflow's Saver (build/<dir>/tests/saver_tf_driver) saves
tensors of every dtype both have (scalars, empty tensors, strings with
non-UTF-8 bytes, names with '/'); TF reads them with
tf.train.load_checkpoint and restores them into tf.compat.v1 variables with
a graph-mode tf.compat.v1.train.Saver, and finds them with
tf.train.latest_checkpoint / tf.train.get_checkpoint_state. Values must be
identical bit for bit (NaN payloads included).

TF -> inflow: a graph-mode TF1 Saver saves random variables of every dtype
with max_to_keep=2 over 4 steps; inflow restores every tensor of the newest
checkpoint with its Saver, reads the same state file listing, and its own
Saver, given the same saves, leaves the same files and writes the same
state file text.
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
DRIVER = BUILD / "tests" / "saver_tf_driver"

DTYPES = [tf.float32, tf.float64, tf.int32, tf.uint8, tf.int16, tf.int8, tf.string,
          tf.int64, tf.bool, tf.bfloat16, tf.uint16, tf.float16, tf.uint32, tf.uint64]
SHAPES = [(), (0,), (3,), (2, 3), (2, 0, 4)]


def driver(request):
    if not DRIVER.exists():
        pytest.fail(f"{DRIVER} is missing: build the saver_tf_driver target")
    proc = subprocess.run([str(DRIVER)], input=json.dumps(request), capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    reply = json.loads(proc.stdout)
    assert "error" not in reply, reply["error"]
    return reply


def random_array(dtype, shape, rng):
    if dtype == tf.string:
        pool = [b"", b"plain", b"\xff\xfe not \x00 utf-8", "é".encode(), bytes(range(256))]
        flat = [pool[i] for i in rng.integers(0, len(pool), size=int(np.prod(shape)))]
        return np.array(flat, dtype=object).reshape(shape)
    if dtype == tf.bool:
        return rng.integers(0, 2, size=shape).astype(bool)
    np_dtype = dtype.as_numpy_dtype
    if dtype.is_floating:
        values = rng.standard_normal(size=shape).astype(np.float32) * 100
        values = values.astype(np_dtype)
        flat = values.reshape(-1)
        if flat.size >= 3:  # specials survive the round trip too
            flat[0], flat[1], flat[2] = np.inf, -0.0, np.nan
        return values
    info = np.iinfo(np_dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=np_dtype, endpoint=True)


def to_json(name, array, dtype):
    entry = {"name": name, "dtype": dtype.name, "shape": list(array.shape)}
    if dtype == tf.string:
        entry["strings"] = [bytes(s).hex() for s in array.reshape(-1)]
    else:
        entry["data"] = np.ascontiguousarray(array).tobytes().hex()
    return entry


def from_json(entry):
    dtype = tf.as_dtype(entry["dtype"])
    shape = tuple(entry["shape"])
    if dtype == tf.string:
        flat = [bytes.fromhex(s) for s in entry["strings"]]
        return np.array(flat, dtype=object).reshape(shape)
    return np.frombuffer(bytes.fromhex(entry["data"]),
                         dtype=dtype.as_numpy_dtype).reshape(shape)


def assert_identical(actual, expected, what):
    """Same shape and the same bytes (strings: the same byte strings)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, what
    if expected.dtype == object:
        assert [bytes(a) for a in actual.reshape(-1)] == \
               [bytes(e) for e in expected.reshape(-1)], what
    else:
        assert actual.dtype == expected.dtype, what
        assert actual.tobytes() == expected.tobytes(), what


def tensor_set(seed):
    """{name: (dtype, array)}: every dtype in every shape, names with '/'."""
    rng = np.random.default_rng(seed)
    tensors = {}
    for dtype in DTYPES:
        for shape in SHAPES:
            name = f"{dtype.name}/rank{len(shape)}/" + "x".join(map(str, shape))
            tensors[name] = (dtype, random_array(dtype, shape, rng))
    return tensors


def inflow_save(save_path, steps, tensors, **options):
    return driver({"op": "save", "save_path": str(save_path), "steps": steps,
                   "options": options,
                   "tensors": [to_json(n, a, d) for n, (d, a) in tensors.items()]})["prefixes"]


def test_tf_load_checkpoint_reads_what_inflow_saves(tmp_path):
    tensors = tensor_set(seed=1)
    [prefix] = inflow_save(tmp_path / "model.ckpt", [1000], tensors)
    assert prefix == str(tmp_path / "model.ckpt-1000")
    reader = tf.train.load_checkpoint(prefix)
    assert reader.get_variable_to_dtype_map() == {n: d for n, (d, _) in tensors.items()}
    assert reader.get_variable_to_shape_map() == \
        {n: list(a.shape) for n, (_, a) in tensors.items()}
    for name, (dtype, array) in tensors.items():
        assert_identical(reader.get_tensor(name), array, name)


def test_tf1_saver_restores_inflow_checkpoints_into_variables(tmp_path):
    tensors = tensor_set(seed=2)
    [prefix] = inflow_save(tmp_path / "model.ckpt", [7], tensors)
    graph = tf.Graph()
    with graph.as_default():
        variables = {}
        for name, (dtype, array) in tensors.items():
            zeros = np.zeros(array.shape, dtype=object if dtype == tf.string
                             else dtype.as_numpy_dtype)
            if dtype == tf.string:
                zeros[...] = b""
            variables[name] = tf1.Variable(zeros, dtype=dtype, name="v")
        saver = tf1.train.Saver(variables)
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            saver.restore(sess, prefix)
            values = sess.run(variables)
    for name, (dtype, array) in tensors.items():
        assert_identical(values[name], array, name)


def test_tf_finds_inflows_checkpoints_through_the_state_file(tmp_path):
    tensors = {"global_step": (tf.int64, np.array(5, dtype=np.int64))}
    prefixes = inflow_save(tmp_path / "model.ckpt", [1, 2, 3, 4], tensors, max_to_keep=3)
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefixes[-1]
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == prefixes[-1]
    assert list(state.all_model_checkpoint_paths) == prefixes[1:]
    # Relative paths: TF joins them onto the directory, as inflow does.
    rel = tmp_path / "rel"
    prefixes = inflow_save(rel / "model.ckpt", [1, 2], tensors, save_relative_paths=True)
    assert (rel / "checkpoint").read_text() == (
        'model_checkpoint_path: "model.ckpt-2"\n'
        'all_model_checkpoint_paths: "model.ckpt-1"\n'
        'all_model_checkpoint_paths: "model.ckpt-2"\n')
    assert tf.train.latest_checkpoint(str(rel)) == prefixes[-1]
    assert list(tf.train.get_checkpoint_state(str(rel)).all_model_checkpoint_paths) == prefixes


def tf1_save_run(directory, tensors, steps, max_to_keep, write_meta_graph):
    """A graph-mode TF1 Saver over variables holding `tensors`; returns the
    prefixes TF's save returned."""
    graph = tf.Graph()
    with graph.as_default():
        variables = {name: tf1.Variable(array, dtype=dtype, name="v")
                     for name, (dtype, array) in tensors.items()}
        saver = tf1.train.Saver(variables, max_to_keep=max_to_keep)
        with tf1.Session(graph=graph) as sess:
            sess.run(tf1.global_variables_initializer())
            return [saver.save(sess, str(directory / "model.ckpt"), global_step=step,
                               write_meta_graph=write_meta_graph) for step in steps]


def listing(directory):
    return sorted(p.name for p in directory.iterdir())


@pytest.mark.parametrize("write_meta_graph", [False, True])
def test_inflow_reads_tf1_saver_checkpoints_and_retains_as_tf_does(tmp_path, write_meta_graph):
    tensors = tensor_set(seed=3)
    tf_dir, inflow_dir = tmp_path / "tf", tmp_path / "inflow"
    tf_prefixes = tf1_save_run(tf_dir, tensors, [1, 2, 3, 4], max_to_keep=2,
                               write_meta_graph=write_meta_graph)

    # Every tensor of the newest checkpoint, restored by inflow's Saver.
    restored = driver({"op": "restore_all", "prefix": tf_prefixes[-1]})["tensors"]
    assert {t["name"] for t in restored} == set(tensors)
    for entry in restored:
        dtype, array = tensors[entry["name"]]
        assert entry["dtype"] == dtype.name, entry["name"]
        assert_identical(from_json(entry), array, entry["name"])

    # The state file: inflow reads TF's listing.
    state = driver({"op": "state", "dir": str(tf_dir)})
    tf_state = tf.train.get_checkpoint_state(str(tf_dir))
    assert state["latest"] == tf.train.latest_checkpoint(str(tf_dir)) == tf_prefixes[-1]
    assert state["state"]["model_checkpoint_path"] == tf_state.model_checkpoint_path
    assert state["state"]["all_model_checkpoint_paths"] == \
        list(tf_state.all_model_checkpoint_paths) == tf_prefixes[-2:]

    # inflow's Saver, given the same saves, leaves the same files (TF's
    # .meta files aside: inflow writes none) and the same state file text.
    inflow_prefixes = inflow_save(inflow_dir / "model.ckpt", [1, 2, 3, 4], tensors,
                                  max_to_keep=2)
    tf_files = listing(tf_dir)
    if write_meta_graph:
        assert [f for f in tf_files if f.endswith(".meta")] == \
            ["model.ckpt-3.meta", "model.ckpt-4.meta"]
    assert [f for f in tf_files if not f.endswith(".meta")] == listing(inflow_dir)
    assert (inflow_dir / "checkpoint").read_text() == \
        (tf_dir / "checkpoint").read_text().replace(str(tf_dir), str(inflow_dir))
    assert [p.replace(str(inflow_dir), str(tf_dir)) for p in inflow_prefixes] == tf_prefixes

    # The same bundle bytes: TF's and inflow's data files are identical.
    for prefix in tf_prefixes[-2:]:
        name = pathlib.Path(prefix).name + ".data-00000-of-00001"
        assert (tf_dir / name).read_bytes() == (inflow_dir / name).read_bytes(), name


def test_inflow_evicts_tf_checkpoints_only_once_it_adopts_them(tmp_path):
    """A fresh inflow Saver neither lists nor deletes a TF run's checkpoints;
    one that recovers the state file's list evicts them as TF would, .meta
    files included."""
    tensors = {"w": (tf.float32, np.arange(4, dtype=np.float32))}
    fresh, adopting = tmp_path / "fresh", tmp_path / "adopting"
    for directory in (fresh, adopting):
        tf1_save_run(directory, tensors, [1, 2], max_to_keep=5, write_meta_graph=True)
    tf_files = listing(fresh)
    assert "model.ckpt-1.meta" in tf_files

    inflow_save(fresh / "model.ckpt", [3], tensors, max_to_keep=1)
    assert set(tf_files) <= set(listing(fresh))
    assert list(tf.train.get_checkpoint_state(str(fresh)).all_model_checkpoint_paths) == \
        [str(fresh / "model.ckpt-3")]

    driver({"op": "save", "save_path": str(adopting / "model.ckpt"), "steps": [3],
            "options": {"max_to_keep": 2}, "recover": True,
            "tensors": [to_json(n, a, d) for n, (d, a) in tensors.items()]})
    assert not [f for f in listing(adopting) if f.startswith("model.ckpt-1.")]
    assert "model.ckpt-2.meta" in listing(adopting)
    assert list(tf.train.get_checkpoint_state(str(adopting)).all_model_checkpoint_paths) == \
        [str(adopting / "model.ckpt-2"), str(adopting / "model.ckpt-3")]


# --- The state file's text, against Python protobuf's text_format (which is
# what TF's update_checkpoint_state / get_checkpoint_state call).

from google.protobuf import text_format  # noqa: E402
from tensorflow.python.training.checkpoint_state_pb2 import CheckpointState  # noqa: E402
import math  # noqa: E402
import struct  # noqa: E402


def double_hex(d):
    return struct.pack("<d", d).hex()


def random_doubles(rng, n):
    """Bit patterns of every kind, timestamps, small integers, powers of ten."""
    out = [0.0, -0.0, math.inf, -math.inf, math.nan, 5e-324, 1.7976931348623157e308]
    for _ in range(n):
        kind = rng.integers(0, 4)
        if kind == 0:
            out.append(struct.unpack("<d", rng.bytes(8))[0])
        elif kind == 1:
            out.append(1.7e9 + float(rng.random()) * 1e8)
        elif kind == 2:
            out.append(float(rng.integers(-10**6, 10**6)))
        else:
            out.append(float(rng.choice([1, 2, 5, 9.5])) * 10.0 ** int(rng.integers(-30, 30)))
    return out


def random_path(rng):
    alphabet = ["a", "/", ".", "-", "0", '"', "'", "\\", "\n", "\t", "\r", "\x00", "\x01",
                "\x1f", "\x7f", " ", "?", "é", "\u20ac", "\U0001F600", "#", ":"]
    return "".join(rng.choice(alphabet, size=int(rng.integers(0, 12))))


def test_state_file_text_is_byte_for_byte_what_python_protobuf_writes():
    rng = np.random.default_rng(14)
    for trial in range(40):
        paths = [random_path(rng) for _ in range(int(rng.integers(1, 5)))]
        doubles = random_doubles(rng, 50)
        timestamps = doubles[trial % 2::2][:len(paths)] if trial % 3 else []
        last = doubles[trial % len(doubles)]
        proto = CheckpointState(model_checkpoint_path=paths[-1],
                                all_model_checkpoint_paths=paths,
                                all_model_checkpoint_timestamps=timestamps,
                                last_preserved_timestamp=last)
        ours = driver({"op": "format", "paths": [p.encode().hex() for p in paths],
                       "timestamps": [double_hex(t) for t in timestamps],
                       "last_preserved": double_hex(last)})["text"]
        assert ours == text_format.MessageToString(proto), (paths, timestamps, last)
    # Every double kind, many at once.
    doubles = random_doubles(rng, 3000)
    proto = CheckpointState(all_model_checkpoint_timestamps=doubles)
    ours = driver({"op": "format", "paths": [], "timestamps": [double_hex(d) for d in doubles],
                   "last_preserved": double_hex(0.0)})["text"]
    assert ours == text_format.MessageToString(proto)


def parse_both(texts):
    ours = driver({"op": "parse", "texts": [t.encode("utf-8", "surrogateescape").hex()
                                            for t in texts]})["results"]
    theirs = []
    for text in texts:
        proto = CheckpointState()
        try:
            text_format.Merge(text, proto)
            theirs.append(proto)
        except text_format.ParseError as e:
            theirs.append(e)
    return ours, theirs


def assert_same_state(ours, proto, text):
    state = ours["state"]
    assert bytes.fromhex(state["model_checkpoint_path"]) == \
        proto.model_checkpoint_path.encode(), text
    assert [bytes.fromhex(p) for p in state["all_model_checkpoint_paths"]] == \
        [p.encode() for p in proto.all_model_checkpoint_paths], text
    doubles = [bytes.fromhex(d) for d in state["all_model_checkpoint_timestamps"]] + \
        [bytes.fromhex(state["last_preserved_timestamp"])]
    expected = list(proto.all_model_checkpoint_timestamps) + [proto.last_preserved_timestamp]
    for ours_bits, value in zip(doubles, expected, strict=True):
        mine = struct.unpack("<d", ours_bits)[0]
        assert (math.isnan(mine) and math.isnan(value)) or ours_bits == struct.pack("<d", value), \
            (text, mine, value)


ACCEPTED = [
    'model_checkpoint_path: "a"',
    "model_checkpoint_path: 'a' \"b\" 'c'",
    '# c\n  model_checkpoint_path :"a" # x\n all_model_checkpoint_paths: "p"',
    'model_checkpoint_path: "a";all_model_checkpoint_paths:"b",all_model_checkpoint_paths:"c"',
    'all_model_checkpoint_paths: ["a", "b"] model_checkpoint_path: "b"',
    'model_checkpoint_path: "\\x41\\101\\n\\\'\\"\\?\\a\\b\\f\\v\\t\\r\\0\\x4"',
    'model_checkpoint_path: "a\\q"',
    'model_checkpoint_path: "a" model_checkpoint_path: "b"',
    'model_checkpoint_path: "\\303\\251" "\\xc3\\xa9"',
    'model_checkpoint_path: """a"""',
    "model_checkpoint_path:\"a\"#c",
    'model_checkpoint_path\t:\t"a"\r\n',
    'model_checkpoint_path: "a" ,',
    "",
    "  \n\n # only a comment",
] + [f"last_preserved_timestamp: {v}" for v in [
    "1.5f", "1", "-inf", "Infinity", "NaN", ".5", "1e5", "1.", "1E5", "010", "+1", "-1",
    "5e-400", "1e400", "-nan", "10f", "18446744073709551616", "1e-5", "-0", "-0.0"]] + [
    "all_model_checkpoint_timestamps: [1, 2.5] all_model_checkpoint_timestamps: []",
]

# Rejected by both, at the same line:column.
REJECTED_SAME_PLACE = [
    'model_checkpoint_path "a"',
    'model_checkpoint_path: "a',
    'model_checkpoint_path: "a\nb"',
    'model_checkpoint_path: "a"\nfoo: 1',
    '\n  bar: 1',
    'model_checkpoint_path: a',
    'model_checkpoint_path {',
    'model_checkpoint_path: "a"\n  all_model_checkpoint_paths: "x" extra',
    'model_checkpoint_path: "a" ;; ',
    'model_checkpoint_path: "a\\',
    'model_checkpoint_path: "a" \'b\n',
    'Model_checkpoint_path: "a"',
    '1: "a"',
] + [f"last_preserved_timestamp: {v}" for v in [
    "0x10", "- 2", '"1"', "1.5e", "1.5.5", "1ef", "0x1p3"]]

# Rejected by both; inflow names the escape, Python the string or its end.
REJECTED = ['model_checkpoint_path: "\\xzz"', 'model_checkpoint_path: "\\377"',
            'model_checkpoint_path: "\\303"']

# Differs from TF (docs/conformance.md): Python accepts these, inflow does not.
PYTHON_ONLY = ["last_preserved_timestamp: 1_000", 'model_checkpoint_path: "\\777"']


# protobuf's unescaping warns about the escapes Python does not know
# (\?, \q, \777), which these texts use on purpose.
@pytest.mark.filterwarnings("ignore:invalid .*escape sequence:DeprecationWarning")
def test_state_file_parser_agrees_with_python_text_format():
    rng = np.random.default_rng(15)
    round_trips = []
    for _ in range(30):
        paths = [random_path(rng) for _ in range(int(rng.integers(1, 4)))]
        doubles = random_doubles(rng, 6)
        round_trips.append(text_format.MessageToString(CheckpointState(
            model_checkpoint_path=paths[-1], all_model_checkpoint_paths=paths,
            all_model_checkpoint_timestamps=doubles[:len(paths)],
            last_preserved_timestamp=doubles[-1])))
    texts = ACCEPTED + round_trips
    ours, theirs = parse_both(texts)
    for text, mine, proto in zip(texts, ours, theirs):
        assert not isinstance(proto, Exception), (text, proto)
        assert "state" in mine, (text, mine)
        assert_same_state(mine, proto, text)

    ours, theirs = parse_both(REJECTED_SAME_PLACE + REJECTED)
    for i, (text, mine, error) in enumerate(zip(REJECTED_SAME_PLACE + REJECTED, ours, theirs)):
        assert isinstance(error, text_format.ParseError), text
        assert mine.get("error", {}).get("code") == "DATA_LOSS", (text, mine)
        if i < len(REJECTED_SAME_PLACE):
            place = str(error).split(" ")[0]
            assert mine["error"]["message"].startswith(place + ":"), (text, mine, str(error))

    ours, theirs = parse_both(PYTHON_ONLY)
    for text, mine, proto in zip(PYTHON_ONLY, ours, theirs):
        assert not isinstance(proto, Exception), text
        assert mine.get("error", {}).get("code") == "DATA_LOSS", (text, mine)
