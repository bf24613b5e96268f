"""inflow.io.gfile against tf.io.gfile, and inflow.train.match_filenames_once
against tf.compat.v1.train.match_filenames_once: the same results on the
same directory, and the same error classes (inflow.errors.X where TF raises
tf.errors.X)."""
import os
import pathlib

import pytest
import tensorflow as tf

import inflow
from inflow import errors

tf1 = tf.compat.v1
gfile = inflow.io.gfile


@pytest.fixture
def tree(tmp_path):
    for name in ["b.txt", "a.txt", "c10.txt", "c2.txt", ".hid.txt", "x.dat"]:
        (tmp_path / name).write_text("hi")
    (tmp_path / "sub.txt").mkdir()
    (tmp_path / "sub.txt" / "in.txt").write_text("in")
    return tmp_path


def outcome(fn, *args):
    """("ok", result) or ("error", the error class's name)."""
    try:
        return "ok", fn(*args)
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return "error", type(e).__name__


def same_outcome(name, *args):
    ours, theirs = outcome(getattr(gfile, name), *args), outcome(getattr(tf.io.gfile, name),
                                                                 *args)
    assert ours == theirs, (name, args, ours, theirs)
    return ours


def test_glob_gives_tfs_matches_sorted(tree):
    d = str(tree)
    for pattern in ["*.txt", "c?.txt", "c[0-9]*", "[!a-c]*", "zz*", "a.txt", "q.txt",
                    "nodir/*"]:
        p = os.path.join(d, pattern)
        # TF gives directory order; inflow sorts (docs/conformance.md).
        assert gfile.glob(p) == sorted(tf.io.gfile.glob(p)), pattern
    both = [os.path.join(d, "c*"), os.path.join(d, "a.txt")]
    assert gfile.glob(both) == [os.path.join(d, n) for n in ["c10.txt", "c2.txt", "a.txt"]]
    assert gfile.glob(pathlib.Path(d) / "a.*") == [os.path.join(d, "a.txt")]
    with pytest.raises(errors.InvalidArgumentError):  # TF matches directories too
        gfile.glob(os.path.join(d, "s*", "*.txt"))


def test_exists_isdir_listdir_as_tf(tree):
    d = str(tree)
    for path in [d, os.path.join(d, "a.txt"), os.path.join(d, "nope"),
                 os.path.join(d, "a.txt", "x"), os.path.join(d, "sub.txt")]:
        same_outcome("exists", path)
        same_outcome("isdir", path)
        ours = outcome(gfile.listdir, path)
        theirs = outcome(tf.io.gfile.listdir, path)
        if ours[0] == "ok":
            assert sorted(ours[1]) == sorted(theirs[1])
        else:
            assert ours == theirs
    assert gfile.exists(pathlib.Path(d)) and gfile.exists(os.fsencode(d))
    for bad in (None, 5, ["a"]):
        with pytest.raises(TypeError, match="gfile.exists: path"):
            gfile.exists(bad)


def test_mkdir_makedirs_remove_as_tf(tmp_path):
    for side, root in (("inflow", tmp_path / "i"), ("tf", tmp_path / "t")):
        root.mkdir()
        (root / "f").write_text("x")
        (root / "d").mkdir()
    results = {}
    for side, mod in (("inflow", gfile), ("tf", tf.io.gfile)):
        root = str(tmp_path / ("i" if side == "inflow" else "t"))
        results[side] = [
            outcome(mod.makedirs, os.path.join(root, "m1", "m2", "m3")),
            outcome(mod.makedirs, os.path.join(root, "m1", "m2")),
            outcome(mod.makedirs, os.path.join(root, "f", "q")),
            outcome(mod.makedirs, os.path.join(root, "f")),
            outcome(mod.mkdir, os.path.join(root, "mk")),
            outcome(mod.mkdir, os.path.join(root, "mk")),
            outcome(mod.mkdir, os.path.join(root, "np", "x")),
            outcome(mod.remove, os.path.join(root, "f")),
            outcome(mod.remove, os.path.join(root, "f")),
            outcome(mod.remove, os.path.join(root, "d")),
            sorted(os.listdir(root)),
        ]
    assert results["inflow"] == results["tf"]


def test_gfile_reads_and_writes_as_tf(tmp_path):
    def session(mod, path):
        out = []
        with mod.GFile(path, "w") as f:
            f.write("line1\nline2\n")
            f.write(b"bytes\n")
        with mod.GFile(path, "r") as f:
            out.append(f.read())
        with mod.GFile(path, "rb") as f:
            out += [f.read(3), f.tell(), f.readline()]
            f.seek(1)
            out.append(f.read(2))
        with mod.GFile(path) as f:
            out.append(list(f))
        with mod.GFile(path, "a") as f:
            f.write("app\n")
        with mod.GFile(path) as f:
            out += [f.readlines(), f.size(), f.name == path, f.mode]
        with mod.GFile(path, "w") as f:
            out.append(outcome(f.read))
            out.append(outcome(f.write, 5))
        with mod.GFile(path, "r") as f:
            out.append(outcome(f.write, "x"))
        with open(path, "rb") as f:
            out.append(f.read())
        out.append(outcome(lambda: mod.GFile(str(tmp_path)).read()))
        out.append(outcome(lambda: mod.GFile(path, "x")))
        return out
    ours = session(gfile, str(tmp_path / "i.txt"))
    theirs = session(tf.io.gfile, str(tmp_path / "t.txt"))
    assert ours == theirs
    # Missing files: NotFoundError (inflow at open, TF at the first read).
    missing = str(tmp_path / "nope")
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(missing).read()
    with pytest.raises(tf.errors.NotFoundError):
        tf.io.gfile.GFile(missing).read()


def tf_match_once(patterns):
    with tf.Graph().as_default():
        m = tf1.train.match_filenames_once(patterns)
        with tf1.Session() as s:
            s.run(tf1.local_variables_initializer())
            return list(s.run(m))


def test_match_filenames_once_gives_tfs_names_and_feeds_string_input_producer(tree):
    d = str(tree)
    for patterns in [os.path.join(d, "*.txt"), [os.path.join(d, "c*.txt"),
                                                os.path.join(d, "a*")],
                     os.path.join(d, "nothing*"), os.path.join(d, "a.txt")]:
        node = inflow.train.match_filenames_once(patterns)
        assert node.dtype == object and node.shape == [len(tf_match_once(patterns))]
        assert list(inflow.run(node)) == tf_match_once(patterns)
    inflow.train._coordination._clear_queue_runners()
    files = inflow.train.match_filenames_once(os.path.join(d, "c*.txt"))
    queue = inflow.train.string_input_producer(files, num_epochs=1, shuffle=False)
    coord = inflow.train.Coordinator()
    threads = inflow.train.start_queue_runners(coord=coord)
    try:
        got = [queue.dequeue(timeout=30), queue.dequeue(timeout=30)]
        with pytest.raises(errors.OutOfRangeError):
            queue.dequeue(timeout=30)
    finally:
        coord.request_stop()
        coord.join(threads, stop_grace_period_secs=30)
        inflow.train._coordination._clear_queue_runners()
    assert got == [os.fsencode(os.path.join(d, n)) for n in ["c10.txt", "c2.txt"]]
    with pytest.raises(errors.InvalidArgumentError):  # no names: as an empty list
        inflow.train.string_input_producer(
            inflow.train.match_filenames_once(os.path.join(d, "nothing*")))
    with pytest.raises(TypeError, match="match_filenames_once: pattern"):
        inflow.train.match_filenames_once(None)
