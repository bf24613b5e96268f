"""inflow.io's TFRecord functions against TensorFlow's: byte-identical files
both ways for every compression, TF reads inflow's files and inflow reads
TF's, and damaged files raise DataLossError naming the file and offset."""
import os

import numpy as np
import pytest
import tensorflow as tf

import inflow
from inflow import errors

RECORDS = [b"", b"a", b"hello world" * 50, bytes(range(256)) * 40, b"last"]
COMPRESSIONS = [None, "", "ZLIB", "GZIP"]


def tf_write(path, records, compression):
    with tf.io.TFRecordWriter(str(path), tf.io.TFRecordOptions(compression)) as w:
        for r in records:
            w.write(r)


def inflow_write(path, records, compression):
    with inflow.io.TFRecordWriter(path, inflow.io.TFRecordOptions(compression)) as w:
        for r in records:
            w.write(r)


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_files_are_byte_identical_to_tfs(tmp_path, compression):
    inflow_write(tmp_path / "i.rec", RECORDS, compression)
    tf_write(tmp_path / "t.rec", RECORDS, compression)
    assert (tmp_path / "i.rec").read_bytes() == (tmp_path / "t.rec").read_bytes()


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_tf_reads_inflows_records(tmp_path, compression):
    path = str(tmp_path / "i.rec")
    inflow_write(path, RECORDS, compression)
    got = [r.numpy() for r in tf.data.TFRecordDataset(path, compression_type=compression)]
    assert got == RECORDS


@pytest.mark.parametrize("compression", COMPRESSIONS)
def test_inflow_reads_tfs_records(tmp_path, compression):
    path = tmp_path / "t.rec"
    tf_write(path, RECORDS, compression)
    assert list(inflow.io.tf_record_iterator(path, compression)) == RECORDS
    tf_got = list(tf.compat.v1.io.tf_record_iterator(str(path), tf.io.TFRecordOptions(
        compression)))
    assert list(inflow.io.tf_record_iterator(str(path), inflow.io.TFRecordOptions(
        compression))) == tf_got


def test_compression_type_constants_and_strings(tmp_path):
    path = tmp_path / "z.rec"
    inflow_write(path, RECORDS, inflow.io.TFRecordCompressionType.ZLIB)
    assert list(inflow.io.tf_record_iterator(path, "zlib")) == RECORDS
    assert inflow.io.TFRecordOptions.get_compression_type_string(None) == ""
    assert inflow.io.TFRecordOptions.get_compression_type_string("GZIP") == "GZIP"
    assert inflow.io.TFRecordOptions.get_compression_type_string(
        inflow.io.TFRecordOptions(inflow.io.TFRecordCompressionType.GZIP)) == "GZIP"
    with pytest.raises(ValueError):
        inflow.io.TFRecordOptions("LZ4")


def test_zlib_settings_match_tfs(tmp_path):
    opts = dict(compression_level=9, mem_level=8, window_bits=12)
    with inflow.io.TFRecordWriter(tmp_path / "i.rec",
                                  inflow.io.TFRecordOptions("ZLIB", **opts)) as w:
        for r in RECORDS:
            w.write(r)
    with tf.io.TFRecordWriter(str(tmp_path / "t.rec"),
                              tf.io.TFRecordOptions("ZLIB", **opts)) as w:
        for r in RECORDS:
            w.write(r)
    assert (tmp_path / "i.rec").read_bytes() == (tmp_path / "t.rec").read_bytes()


def test_corrupt_record_is_data_loss_naming_file_and_offset(tmp_path):
    path = tmp_path / "c.rec"
    inflow_write(path, [b"x" * 10, b"y" * 10, b"z" * 10], None)
    data = bytearray(path.read_bytes())
    # Record 1 starts at 12 + 10 + 4 = 26; flip a payload byte.
    data[26 + 12 + 3] ^= 0xFF
    path.write_bytes(bytes(data))
    it = inflow.io.tf_record_iterator(path)
    assert next(it) == b"x" * 10
    with pytest.raises(errors.DataLossError) as e:
        next(it)
    assert "26" in e.value.message and str(path) in e.value.message
    assert e.value.error_code == errors.DATA_LOSS
    # TF fails on the same record.
    tf_it = tf.compat.v1.io.tf_record_iterator(str(path))
    next(tf_it)
    with pytest.raises(tf.errors.DataLossError):
        next(tf_it)


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_a_compressed_file_read_plain_says_which_compression(tmp_path, compression):
    path = tmp_path / "c.rec"
    tf_write(path, RECORDS, compression)
    hint = f"the file looks {compression}-compressed"
    with pytest.raises(errors.DataLossError) as e:
        next(inflow.io.tf_record_iterator(path))
    assert f"offset 0 in {path}" in e.value.message and hint in e.value.message
    assert f"open it with compression {compression}" in e.value.message
    files = inflow.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
    _, value = inflow.TFRecordReader().read(files)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    try:
        with pytest.raises(errors.DataLossError) as e:
            inflow.run(value)
        assert hint in e.value.message and str(path) in e.value.message
    finally:
        coord.request_stop()
        coord.join(threads)
    # With the compression named, the same file reads.
    options = inflow.io.TFRecordOptions(compression)
    assert list(inflow.io.tf_record_iterator(path, options)) == RECORDS


def test_truncated_file_is_data_loss(tmp_path):
    path = tmp_path / "t.rec"
    inflow_write(path, [b"abc" * 10, b"def" * 10], None)
    path.write_bytes(path.read_bytes()[:-5])
    it = inflow.io.tf_record_iterator(path)
    next(it)
    with pytest.raises(errors.DataLossError, match="truncated record at offset 46 in .*t.rec"):
        next(it)


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError):
        inflow.io.tf_record_iterator(tmp_path / "missing.rec")


def test_writer_after_close_fails_and_close_is_idempotent(tmp_path):
    w = inflow.io.TFRecordWriter(tmp_path / "w.rec")
    w.write(b"a")
    w.close()
    w.close()
    with pytest.raises(errors.FailedPreconditionError):
        w.write(b"b")
    with pytest.raises(errors.FailedPreconditionError):
        w.flush()


def test_flush_makes_a_readable_prefix(tmp_path):
    for compression in ["", "GZIP"]:
        path = tmp_path / f"f{compression}.rec"
        w = inflow.io.TFRecordWriter(path, compression)
        w.write(b"one")
        w.write(b"two")
        w.flush()
        got = []
        it = inflow.io.tf_record_iterator(path, compression)
        try:
            for r in it:
                got.append(r)
        except errors.DataLossError:
            pass  # the compressed stream has no end yet
        assert got == [b"one", b"two"]
        w.close()


def test_writer_accepts_str_and_buffers(tmp_path):
    path = tmp_path / "s.rec"
    with inflow.io.TFRecordWriter(str(path)) as w:
        w.write("text")
        w.write(bytearray(b"buf"))
        w.write(memoryview(b"mv"))
    assert list(inflow.io.tf_record_iterator(os.fspath(path))) == [b"text", b"buf", b"mv"]


def test_empty_file_yields_nothing(tmp_path):
    path = tmp_path / "e.rec"
    inflow_write(path, [], "GZIP")
    assert list(inflow.io.tf_record_iterator(path, "GZIP")) == []


def test_write_takes_bytes_like_records_only_as_tf(tmp_path):
    # bytes(5) is five zero bytes and bytes([1, 2]) is b"\x01\x02": neither
    # an int nor a list is a record; TF's writer raises TypeError for both.
    path = str(tmp_path / "w.tfrecord")
    tf_path = str(tmp_path / "tf.tfrecord")
    with inflow.io.TFRecordWriter(path) as w, tf.io.TFRecordWriter(tf_path) as t:
        for bad in (5, [1, 2], None, np.array(b"ab"), 1.5):
            with pytest.raises(TypeError, match="record must be bytes"):
                w.write(bad)
            with pytest.raises(TypeError):
                t.write(bad)
        for good in (b"ab", "str\u00e9", bytearray(b"ba"), np.bytes_(b"nb")):
            w.write(good)
            t.write(good)
        w.write(memoryview(b"mv"))  # bytes-like: accepted (TF refuses it)
    assert list(inflow.io.tf_record_iterator(path)) == [
        b"ab", "str\u00e9".encode(), b"ba", b"nb", b"mv"]
    assert list(inflow.io.tf_record_iterator(tf_path)) == [
        b"ab", "str\u00e9".encode(), b"ba", b"nb"]
