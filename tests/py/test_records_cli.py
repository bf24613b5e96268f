"""`inflow records` as a new user meets it: which compression `write`
picks, TF's compression spellings, `verify` over several files, errors
that name the record, writes that leave nothing behind when they fail, and
where gzip damage is reported. TensorFlow reads what inflow writes."""
import base64
import json
import os
import re
import signal
import subprocess
import time

import pytest
import tensorflow as tf


def lines_of(records):
    return "".join(json.dumps({"raw": base64.b64encode(r).decode()}) + "\n"
                   for r in records)


def tf_records(path, compression):
    ds = tf.data.TFRecordDataset(str(path), compression_type=compression)
    return [r.numpy() for r in ds]


def tf_write(path, records, compression=""):
    options = tf.io.TFRecordOptions(compression_type=compression)
    with tf.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


RECORDS = [b"first", b"", b"x" * 3000, bytes(range(256))]


@pytest.mark.parametrize("name,compression", [
    ("out.tfrecord.gz", "GZIP"),
    ("out.gzip", "GZIP"),
    ("out.tfrecord.zz", "ZLIB"),
    ("out.zlib", "ZLIB"),
    ("out.tfrecord", ""),
])
def test_write_auto_compression_follows_the_output_name(tmp_path, run_inflow, name,
                                                        compression):
    path = tmp_path / name
    run_inflow("records", "write", path, input=lines_of(RECORDS))
    assert tf_records(path, compression) == RECORDS
    tf_write(tmp_path / "tf", RECORDS, compression)
    assert path.read_bytes() == (tmp_path / "tf").read_bytes()


@pytest.mark.parametrize("flag,compression", [
    ("GZIP", "GZIP"), ("gzip", "GZIP"), ("Gzip", "GZIP"),
    ("ZLIB", "ZLIB"), ("zlib", "ZLIB"),
    ("NONE", ""), ("none", ""), ("", ""),
])
def test_compression_accepts_tensorflow_spellings_in_any_case(tmp_path, run_inflow, flag,
                                                              compression):
    path = tmp_path / "f.tfrecord"  # the name asks for none: the flag decides
    run_inflow("records", "write", "--compression", flag, path, input=lines_of(RECORDS))
    assert tf_records(path, compression) == RECORDS
    out = run_inflow("records", "cat", "--as", "raw", "--compression", flag, path).stdout
    assert [base64.b64decode(json.loads(l)["raw"]) for l in out.splitlines()] == RECORDS


def test_unknown_compression_is_a_usage_error(tmp_path, run_inflow):
    proc = run_inflow("records", "write", "--compression", "gz", tmp_path / "f",
                      input="", check=False)
    assert proc.returncode == 2
    assert "unknown compression type" in proc.stderr
    assert not (tmp_path / "f").exists()


def test_verify_checks_every_file_and_prints_a_line_for_each(tmp_path, run_inflow):
    good, bad, also_good = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    tf_write(good, [b"1", b"22"])
    tf_write(bad, [b"one", b"two", b"three"])
    tf_write(also_good, [b"333"])
    damaged = bytearray(bad.read_bytes())
    damaged[19 + 12] ^= 0x01  # a data byte of record 1 (offset 19)
    bad.write_bytes(bytes(damaged))

    proc = run_inflow("records", "verify", good, bad, also_good, check=False)
    assert proc.returncode == 1
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    assert [l["file"] for l in lines] == [str(good), str(bad), str(also_good)]
    assert lines[0] == {"file": str(good), "records": 2,
                        "bytes": os.path.getsize(good), "ok": True}
    assert lines[1]["ok"] is False and lines[1]["records"] == 1
    assert lines[1]["error"].startswith("DATA_LOSS:")
    assert "offset 19" in lines[1]["error"] and str(bad) in lines[1]["error"]
    assert lines[2] == {"file": str(also_good), "records": 1,
                        "bytes": os.path.getsize(also_good), "ok": True}
    assert proc.stderr.startswith("DATA_LOSS: 1 of 3 files failed")
    # A missing file is one failed line too, not the end of the run.
    proc = run_inflow("records", "verify", tmp_path / "missing", good, check=False)
    assert proc.returncode == 1
    lines = [json.loads(l) for l in proc.stdout.splitlines()]
    assert [l["ok"] for l in lines] == [False, True]
    assert lines[0]["error"].startswith("NOT_FOUND:")


@pytest.mark.parametrize("kind,what", [("example", "not an Example"),
                                       ("sequence_example", "not a SequenceExample")])
def test_cat_as_example_names_the_file_record_and_offset(tmp_path, run_inflow, kind, what):
    example = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(int64_list=tf.train.Int64List(value=[7]))}))
    seq = tf.train.SequenceExample(context=example.features)
    good = (example if kind == "example" else seq).SerializeToString()
    records = [good, good, good, b"\x0a\xff not a proto", good]
    path = tmp_path / "mixed.tfrecord"
    tf_write(path, records)
    proc = run_inflow("records", "cat", "--as", kind, path, check=False)
    assert proc.returncode == 1
    assert len(proc.stdout.splitlines()) == 3  # the records before it
    offset = sum(16 + len(r) for r in records[:3])
    assert proc.stderr.startswith(
        f"INVALID_ARGUMENT: {path}: record 3 at offset {offset}: {what}: "), proc.stderr


def test_failed_write_leaves_no_file_and_keeps_an_existing_one(tmp_path, run_inflow):
    out = tmp_path / "out.tfrecord.gz"
    bad_input = lines_of(RECORDS[:2]) + "not json\n" + lines_of(RECORDS[2:])
    proc = run_inflow("records", "write", out, input=bad_input, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("INVALID_ARGUMENT:") and "stdin line 3" in proc.stderr
    assert os.listdir(tmp_path) == []  # neither OUT nor a temporary file

    run_inflow("records", "write", out, input=lines_of(RECORDS))
    before = out.read_bytes()
    proc = run_inflow("records", "write", out, input='{"raw": "!!"}\n', check=False)
    assert proc.returncode == 1 and "stdin line 1" in proc.stderr
    assert out.read_bytes() == before
    assert os.listdir(tmp_path) == ["out.tfrecord.gz"]
    # A successful write replaces it.
    run_inflow("records", "write", out, input=lines_of([b"new"]))
    assert tf_records(out, "GZIP") == [b"new"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_write_ended_by_a_signal_leaves_no_file(tmp_path, inflow_bin, sig):
    out = tmp_path / "out.tfrecord"
    proc = subprocess.Popen([inflow_bin, "records", "write", str(out)],
                            stdin=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(lines_of(RECORDS).encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 30
        while not any(".tmp" in n for n in os.listdir(tmp_path)):
            assert time.monotonic() < deadline, "the write never started"
            time.sleep(0.01)
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == -sig  # it still dies of the signal
    finally:
        proc.kill()
        proc.wait()
    assert os.listdir(tmp_path) == []


def test_write_into_a_missing_directory_fails_and_creates_nothing(tmp_path, run_inflow):
    proc = run_inflow("records", "write", tmp_path / "no" / "out", input=lines_of(RECORDS),
                      check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith("NOT_FOUND:") or proc.stderr.startswith("PERMISSION_DENIED:")
    assert os.listdir(tmp_path) == []


def test_gzip_damage_is_reported_at_or_after_where_it_is(tmp_path, run_inflow):
    records = [bytes((i * 7 + j) % 11 for j in range(400 + i)) for i in range(300)]
    clean = tmp_path / "clean.gz"
    tf_write(clean, records, "GZIP")
    data = clean.read_bytes()
    for pos in (40, len(data) // 3, 2 * len(data) // 3):
        damaged = bytearray(data)
        damaged[pos:pos + 32] = b"\xff" * 32
        path = tmp_path / f"damaged_{pos}.gz"
        path.write_bytes(bytes(damaged))
        proc = run_inflow("records", "count", path, check=False)
        assert proc.returncode == 1
        m = re.search(r"near compressed offset (\d+)", proc.stderr)
        assert m and proc.stderr.startswith("DATA_LOSS:"), proc.stderr
        # zlib cannot notice damage before it; it may notice it only at
        # the member's CRC, at the end.
        assert pos <= int(m.group(1)) <= len(data), (pos, proc.stderr)


@pytest.mark.parametrize("n", ["0", "-1", "x", "99999999999999999999"])
def test_head_n_below_1_or_not_an_integer_is_a_usage_error_naming_it(tmp_path, run_inflow, n):
    path = tmp_path / "f.tfrecord"
    tf_write(path, RECORDS)
    proc = run_inflow("records", "head", "-n", n, path, check=False)
    assert proc.returncode == 2, proc.stderr
    first = proc.stderr.splitlines()[0]
    assert first.startswith(f"-n: {n} is ") and len(first) < 80, first
    assert proc.stdout == ""


@pytest.mark.parametrize("compression,flag", [("GZIP", "NONE"), ("ZLIB", "")])
def test_a_compressed_file_read_plain_says_which_compression(tmp_path, run_inflow,
                                                             compression, flag):
    path = tmp_path / "f.tfrecord"
    tf_write(path, RECORDS, compression)
    proc = run_inflow("records", "count", "--compression", flag, path, check=False)
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"DATA_LOSS: corrupted record (length checksum) at "
                                  f"offset 0 in {path}; the file looks "
                                  f"{compression}-compressed"), proc.stderr
    assert f"open it with compression {compression}" in proc.stderr
