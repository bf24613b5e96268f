"""`inflow records index FILES`: FILE.index beside each file, holding the
offsets of the records TensorFlow wrote (docs/formats.md "Record index");
one JSON line per file, every file tried, exit 1 if any failed; a stale or
corrupt index replaced; compressed and damaged files refused."""
import json
import struct

import tensorflow as tf


def tf_write(path, records, compression=""):
    options = tf.io.TFRecordOptions(compression_type=compression)
    with tf.io.TFRecordWriter(str(path), options) as w:
        for r in records:
            w.write(r)


def read_index(path):
    data = path.read_bytes()
    assert data[:8] == b"IFRECIDX"
    version, reserved, size, mtime_ns, count = struct.unpack_from("<IIQqQ", data, 8)
    assert (version, reserved) == (1, 0)
    assert len(data) == 40 + 8 * count + 4
    return size, mtime_ns, list(struct.unpack_from(f"<{count}Q", data, 40))


def offsets_of(records):
    out, at = [], 0
    for r in records:
        out.append(at)
        at += len(r) + 16
    return out


def lines(proc):
    return [json.loads(l) for l in proc.stdout.splitlines()]


def test_index_writes_each_records_offset_beside_each_file(tmp_path, run_inflow):
    a, b, empty = tmp_path / "a.tfrecord", tmp_path / "b.tfrecord", tmp_path / "e"
    ra = [b"one", b"", b"x" * 5000]
    rb = [bytes(range(256))] * 3 + [b"z"]
    tf_write(a, ra)
    tf_write(b, rb)
    tf_write(empty, [])
    proc = run_inflow("records", "index", a, b, empty)
    assert lines(proc) == [
        {"file": str(p), "index": f"{p}.index", "records": n, "ok": True}
        for p, n in ((a, 3), (b, 4), (empty, 0))]
    for path, records in ((a, ra), (b, rb), (empty, [])):
        size, mtime_ns, offsets = read_index(tmp_path / (path.name + ".index"))
        assert size == path.stat().st_size
        assert abs(mtime_ns - path.stat().st_mtime_ns) < 1000
        assert offsets == offsets_of(records)
    assert "index" in proc.stderr  # the progress line


def test_index_replaces_a_stale_or_corrupt_index(tmp_path, run_inflow):
    path = tmp_path / "f"
    tf_write(path, [b"a", b"b"])
    run_inflow("records", "index", path)
    tf_write(path, [b"a", b"b", b"c"])
    run_inflow("records", "index", path)
    assert read_index(tmp_path / "f.index")[2] == offsets_of([b"a"] * 3)
    (tmp_path / "f.index").write_bytes(b"garbage")
    run_inflow("records", "index", path)
    assert read_index(tmp_path / "f.index")[2] == offsets_of([b"a"] * 3)


def test_index_tries_every_file_and_fails_after_the_last(tmp_path, run_inflow):
    good, gz, bad, also_good = (tmp_path / n for n in ("good", "c.gz", "bad", "also"))
    tf_write(good, [b"1", b"22"])
    tf_write(gz, [b"1"], "GZIP")
    tf_write(bad, [b"one", b"two", b"three"])
    damaged = bytearray(bad.read_bytes())
    damaged[19 + 12 + 1] ^= 1  # "two"'s payload
    bad.write_bytes(bytes(damaged))
    tf_write(also_good, [b"333"])
    proc = run_inflow("records", "index", good, gz, bad, also_good, check=False)
    assert proc.returncode == 1
    out = lines(proc)
    assert [l["ok"] for l in out] == [True, False, False, True]
    assert out[1]["error"].startswith("FAILED_PRECONDITION: cannot index ")
    assert "GZIP-compressed" in out[1]["error"]
    assert out[2]["error"] == (f"DATA_LOSS: corrupted record (data checksum) at offset 19 "
                               f"in {bad}")
    assert "FAILED_PRECONDITION: 2 of 4 files failed; the first: cannot index" in proc.stderr
    assert (tmp_path / "good.index").exists() and (tmp_path / "also.index").exists()
    assert not (tmp_path / "c.gz.index").exists() and not (tmp_path / "bad.index").exists()


def test_an_index_is_not_indexed(tmp_path, run_inflow):
    path = tmp_path / "f"
    tf_write(path, [b"a"])
    run_inflow("records", "index", path)
    proc = run_inflow("records", "index", f"{path}.index", check=False)
    assert proc.returncode == 1
    assert "is a record index, not a TFRecord file" in lines(proc)[0]["error"]


def test_index_needs_files(run_inflow):
    assert run_inflow("records", "index", check=False).returncode == 2
