"""`inflow convert`: Fashion-MNIST (and any IDX or NPY pair) into TFRecord
shards of Examples. TensorFlow reads the shards (tf.data.TFRecordDataset +
tf.io.parse_single_example) and gets the source's pixels and labels, for
each compression; a bad source is exit 1 naming the file and leaves no
shard behind; the progress display is a bar on a terminal and lines
elsewhere."""
import gzip
import json
import os
import pty
import shutil
import signal
import subprocess
import time

import numpy as np
import pytest
import tensorflow as tf

from conftest import FASHION, fashion_idx

COMPRESSION = {"none": "", "gzip": "GZIP", "zlib": "ZLIB"}
FEATURES = {
    "image_raw": tf.io.FixedLenFeature([], tf.string),
    "label": tf.io.FixedLenFeature([], tf.int64),
    "height": tf.io.FixedLenFeature([], tf.int64),
    "width": tf.io.FixedLenFeature([], tf.int64),
    "depth": tf.io.FixedLenFeature([], tf.int64),
}



@pytest.fixture(scope="module")
def fashion():
    return {"train": (fashion_idx("train-images-idx3-ubyte"), fashion_idx("train-labels-idx1-ubyte")),
            "test": (fashion_idx("t10k-images-idx3-ubyte"), fashion_idx("t10k-labels-idx1-ubyte"))}


def tf_examples(paths, compression):
    ds = tf.data.TFRecordDataset([str(p) for p in paths], compression_type=compression)
    return ds.map(lambda r: tf.io.parse_single_example(r, FEATURES))


def check_sample(paths, compression, images, labels, sample):
    """TF's parse of records `sample` (indices across the shards in order)
    equals the source, and the shards hold exactly len(labels) records."""
    ds = tf.data.TFRecordDataset([str(p) for p in paths], compression_type=compression)
    assert int(ds.reduce(np.int64(0), lambda n, _: n + 1)) == len(labels)
    wanted = tf.constant(sample, tf.int64)
    picked = ds.enumerate().filter(lambda i, _: tf.reduce_any(tf.equal(i, wanted))).map(
        lambda i, r: (i, tf.io.parse_single_example(r, FEATURES)))
    seen = []
    for i, ex in picked:
        i = int(i)
        seen.append(i)
        pixels = tf.io.decode_raw(ex["image_raw"], tf.uint8).numpy()
        assert pixels.tobytes() == images[i].tobytes(), i
        assert ex["label"].numpy() == labels[i], i
        assert (ex["height"].numpy(), ex["width"].numpy(), ex["depth"].numpy()) == (28, 28, 1)
    assert seen == sorted(set(sample))


@pytest.mark.parametrize("compression", ["none", "gzip", "zlib"])
def test_fashion_mnist_shards_read_by_tensorflow_equal_the_idx_source(
        tmp_path, run_inflow, fashion, compression):
    out = tmp_path / "fm"
    proc = run_inflow("convert", "fashion-mnist", "--out", out, "--shards", 3,
                      "--compression", compression)
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["compression"] == compression
    names = sorted(os.listdir(out))
    assert names == ["dataset.json"] + [f"test-0000{i}-of-00003.tfrecord" for i in range(3)] \
        + [f"train-0000{i}-of-00003.tfrecord" for i in range(3)]
    assert json.loads((out / "dataset.json").read_text()) == summary
    for split, n in (("train", 60000), ("test", 10000)):
        s = summary["splits"][split]
        assert s["records"] == n
        assert s["shards"] == [str(out / f"{split}-0000{i}-of-00003.tfrecord") for i in range(3)]
        images, labels = fashion[split]
        # Shard boundaries (20000, 40000; 3333, 6666) and the ends included.
        sample = [0, 1, 2, n // 3 - 1, n // 3, 2 * n // 3, n // 2 + 7, n - 1]
        check_sample(s["shards"], COMPRESSION[compression], images, labels, sample)
    first = tf_examples(summary["splits"]["train"]["shards"][:1], COMPRESSION[compression])
    assert [int(e["label"]) for e in first.take(5)] == [9, 0, 0, 3, 0]


def make_source(tmp_path, **replace):
    """A copy of the Fashion-MNIST folder with some files replaced."""
    src = tmp_path / "src"
    src.mkdir()
    for name in os.listdir(FASHION):
        shutil.copy(os.path.join(FASHION, name), src / name)
    for name, data in replace.items():
        (src / (name.replace("_", "-") + ".gz")).write_bytes(data)
    return src


def test_a_truncated_source_file_is_exit_1_naming_it_and_leaves_no_shard(tmp_path, run_inflow):
    raw = gzip.open(os.path.join(FASHION, "t10k-images-idx3-ubyte.gz")).read()
    src = make_source(tmp_path, t10k_images_idx3_ubyte=gzip.compress(raw[:-100]))
    out = tmp_path / "out"
    proc = run_inflow("convert", "fashion-mnist", "--source", src, "--out", out, check=False)
    assert proc.returncode == 1, proc.stderr
    bad = str(src / "t10k-images-idx3-ubyte.gz")
    assert proc.stderr.startswith("DATA_LOSS: " + bad + ": truncated IDX data"), proc.stderr
    assert not out.exists() or os.listdir(out) == []


def test_bad_magic_and_missing_files_are_exit_1_naming_them(tmp_path, run_inflow):
    src = make_source(tmp_path, train_labels_idx1_ubyte=gzip.compress(b"\x08\x00\x00\x01" + b"\0" * 8))
    proc = run_inflow("convert", "fashion-mnist", "--source", src, "--out", tmp_path / "o",
                      check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"INVALID_ARGUMENT: {src / 'train-labels-idx1-ubyte.gz'}: not an IDX file"), proc.stderr
    os.remove(src / "train-labels-idx1-ubyte.gz")
    proc = run_inflow("convert", "fashion-mnist", "--source", src, "--out", tmp_path / "o",
                      check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("NOT_FOUND: ") and "train-labels-idx1-ubyte" in proc.stderr


def test_a_failed_convert_leaves_the_previous_shards_as_they_were(tmp_path, run_inflow):
    out = tmp_path / "out"
    run_inflow("convert", "fashion-mnist", "--out", out, "--shards", 2)
    before = {n: (out / n).read_bytes() for n in os.listdir(out)}
    raw = gzip.open(os.path.join(FASHION, "train-labels-idx1-ubyte.gz")).read()
    bad = bytearray(raw)
    bad[8 + 17] = 10  # label 17 is not a class
    src = make_source(tmp_path, train_labels_idx1_ubyte=gzip.compress(bytes(bad)))
    proc = run_inflow("convert", "fashion-mnist", "--source", src, "--out", out,
                      "--shards", 3, check=False)
    assert proc.returncode == 1
    assert "train-labels-idx1-ubyte.gz: label 17 is 10" in proc.stderr, proc.stderr
    assert {n: (out / n).read_bytes() for n in os.listdir(out)} == before


def test_an_interrupted_convert_leaves_no_file_under_a_final_name(tmp_path, inflow_bin):
    out = tmp_path / "out"
    proc = subprocess.Popen([inflow_bin, "convert", "fashion-mnist", "--out", out,
                             "--compression", "gzip"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # Wait (bounded) until the first temporary shard exists, then interrupt.
    deadline = time.monotonic() + 60
    while not (out.exists() and any(n.startswith(".train-") for n in os.listdir(out))):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.005)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGINT
    assert all(n.startswith(".") and ".tmp-" in n for n in os.listdir(out)), os.listdir(out)


def test_a_new_shard_count_replaces_the_old_shards(tmp_path, run_inflow):
    out = tmp_path / "out"
    run_inflow("convert", "fashion-mnist", "--out", out, "--shards", 4)
    stale_tmp = out / ".train-00000-of-00004.tfrecord.tmp-999999999"
    stale_tmp.write_bytes(b"half")
    run_inflow("convert", "fashion-mnist", "--out", out, "--shards", 2)
    assert sorted(os.listdir(out)) == ["dataset.json", "test-00000-of-00002.tfrecord",
                                       "test-00001-of-00002.tfrecord",
                                       "train-00000-of-00002.tfrecord",
                                       "train-00001-of-00002.tfrecord"]


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
def test_npy_images_of_any_dtype_convert_and_decode_in_tensorflow(tmp_path, run_inflow, version):
    rng = np.random.default_rng(7)
    images = rng.standard_normal((50, 4, 3, 2)).astype(np.float32)
    labels = rng.integers(0, 1000, 50).astype(">i8")  # big-endian in the file
    for name, array in (("images.npy", images), ("labels.npy", labels)):
        with open(tmp_path / name, "wb") as f:
            np.lib.format.write_array(f, np.asfortranarray(array) if name == "images.npy"
                                      else array, version=version)
    run_inflow("convert", "npy", "--images", tmp_path / "images.npy", "--labels",
               tmp_path / "labels.npy", "--out", tmp_path / "x" / "part", "--shards", 2)
    paths = [tmp_path / "x" / f"part-0000{i}-of-00002.tfrecord" for i in range(2)]
    got = list(tf_examples(paths, ""))
    assert len(got) == 50
    for i, ex in enumerate(got):
        pixels = tf.io.decode_raw(ex["image_raw"], tf.float32).numpy().reshape(4, 3, 2)
        np.testing.assert_array_equal(pixels, images[i])
        assert ex["label"].numpy() == labels[i]
        assert ex["depth"].numpy() == 2


def test_idx_general_form_writes_prefix_shards(tmp_path, run_inflow, fashion):
    run_inflow("convert", "idx", "--images", os.path.join(FASHION, "t10k-images-idx3-ubyte.gz"),
               "--labels", os.path.join(FASHION, "t10k-labels-idx1-ubyte.gz"),
               "--out", tmp_path / "t10k", "--compression", "gzip")
    images, labels = fashion["test"]
    check_sample([tmp_path / "t10k-00000-of-00001.tfrecord"], "GZIP", images, labels,
                 [0, 5000, 9999])


def test_progress_is_periodic_lines_when_stderr_is_not_a_terminal(tmp_path, run_inflow):
    proc = run_inflow("convert", "fashion-mnist", "--out", tmp_path / "o")
    lines = proc.stderr.splitlines()
    assert lines[-2].startswith("train: 60000/60000 (100%) "), proc.stderr
    assert lines[-1].startswith("test: 10000/10000 (100%) "), proc.stderr
    assert "records/s" in lines[-1] and "\r" not in proc.stderr


def test_progress_is_a_bar_redrawn_in_place_on_a_terminal(tmp_path, inflow_bin):
    leader, follower = pty.openpty()
    proc = subprocess.run([inflow_bin, "convert", "fashion-mnist", "--out", tmp_path / "o"],
                          stdout=subprocess.PIPE, stderr=follower, timeout=300)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert proc.returncode == 0
    text = shown.decode()
    assert "\rtrain [" in text and "\rtest [" in text, text
    assert "] 60000/60000  100%" in text.replace("  60000", " 60000"), text


def test_shards_is_read_as_a_decimal_integer_and_bad_counts_are_usage_errors(tmp_path,
                                                                             run_inflow):
    labels = np.arange(12, dtype=np.int64)
    np.save(tmp_path / "labels.npy", labels)
    np.save(tmp_path / "images.npy", np.zeros((12, 2, 2), np.uint8))
    args = ["convert", "npy", "--images", tmp_path / "images.npy", "--labels",
            tmp_path / "labels.npy", "--out", tmp_path / "x" / "part"]
    # "010" is ten shards, not octal 8.
    run_inflow(*args, "--shards", "010")
    assert sorted(os.listdir(tmp_path / "x")) == [
        f"part-{i:05d}-of-00010.tfrecord" for i in range(10)]
    for shards, named in [("0", "--shards: 0 is outside [1, 99999]"),
                          ("100000", "--shards: 100000 is outside [1, 99999]"),
                          ("99999999999999999999", "--shards: 99999999999999999999 is outside"),
                          ("1e2", "--shards: 1e2 is not a decimal integer")]:
        proc = run_inflow(*args, "--shards", shards, check=False)
        assert proc.returncode == 2 and named in proc.stderr, proc.stderr
