"""Shared fixtures: where the built CLI and the TensorFlow-written test data
(tests/testdata/tf, from scripts/make-tf-testdata) live.

The suite needs TensorFlow (the reference) and the built programs; `make
test` installs and builds both. When either is missing the session stops
with an error before any test runs: nothing is skipped. A skip anywhere
else (pytest.skip, a skip or skipif mark, importorskip, in a test, a
fixture or a module) is turned into a failure that gives its reason.
"""
import json
import os
import pathlib
import signal
import subprocess

import pytest

# A shell that starts `make test` in the background (`cmd &` without job
# control) leaves SIGINT ignored, and programs inherit an ignored signal
# through exec: the Ctrl-C tests' children would never see it. A handler
# here makes every child start with SIGINT at its default.
signal.signal(signal.SIGINT, signal.default_int_handler)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
TF_TESTDATA = ROOT / "tests" / "testdata" / "tf"

# The programs tests/py drives, relative to the build directory.
PROGRAMS = ["bin/inflow", "tests/example_tf_driver", "tests/queue_tf_replay",
            "tests/producer_tf_driver", "tests/pipeline_tf_driver",
            "tests/events_tf_driver", "tests/meta_graph_tf_driver", "tests/mlp_tf_driver",
            "tests/bundle_tf_driver", "tests/saver_tf_driver"]


def missing_requirements():
    """What the suite needs and cannot find, one message each."""
    problems = [f"{BUILD / p} is missing: run `make build` (or `make test`)"
                for p in PROGRAMS if not (BUILD / p).exists()]
    try:
        import tensorflow  # noqa: F401
    except ImportError as e:
        problems.append(f"TensorFlow cannot be imported ({e}): run "
                        "scripts/install-deps (or `make test`) and use .venv/bin/python")
    return problems


def pytest_sessionstart(session):
    problems = missing_requirements()
    if problems:
        pytest.exit("tests/py cannot run:\n  " + "\n  ".join(problems), returncode=1)


def skip_as_failure(report):
    """A skipped report, turned into a failure saying why it skipped."""
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = (f"skipped: {reason}\n(tests/py never skips: what a test "
                       "needs, `make test` installs; run scripts/install-deps)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    skip_as_failure(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    skip_as_failure(outcome.get_result())


@pytest.fixture(scope="session")
def inflow_bin():
    return str(BUILD / "bin" / "inflow")


@pytest.fixture(scope="session")
def run_inflow(inflow_bin):
    def run(*args, check=True, input=None):
        proc = subprocess.run([inflow_bin, *map(str, args)], capture_output=True,
                              text=input is None or isinstance(input, str), input=input,
                              timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError(f"inflow {' '.join(map(str, args))} exited "
                                 f"{proc.returncode}: {proc.stderr}")
        return proc
    return run


FASHION = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist


def fashion_idx(name):
    """A Fashion-MNIST IDX file ("train-images-idx3-ubyte", ...) as NumPy,
    read with Python's gzip."""
    import gzip
    import numpy as np
    data = gzip.open(os.path.join(FASHION, name + ".gz")).read()
    if "images" in name:
        return np.frombuffer(data[16:], np.uint8).reshape(-1, 28, 28)
    return np.frombuffer(data[8:], np.uint8)


def fashion_shards(root, run_inflow, train, test):
    """The first `train` training and `test` test examples, converted by
    `inflow convert npy` into two shards each under root/data; that path."""
    import numpy as np
    for split, prefix, n in [("train", "train", train), ("test", "t10k", test)]:
        np.save(root / f"{split}_x.npy", fashion_idx(f"{prefix}-images-idx3-ubyte")[:n])
        np.save(root / f"{split}_y.npy",
                fashion_idx(f"{prefix}-labels-idx1-ubyte")[:n].astype(np.int64))
        run_inflow("convert", "npy", "--images", root / f"{split}_x.npy", "--labels",
                   root / f"{split}_y.npy", "--out", root / "data" / split, "--shards", "2")
    return root / "data"


def tf_testdata_file(relative):
    """TF_TESTDATA / relative; a missing or empty file fails the test that
    asks, naming the file."""
    path = TF_TESTDATA / relative
    assert path.is_file() and path.stat().st_size > 0, (
        f"{path} is missing or empty: rerun `.venv/bin/python scripts/make-tf-testdata`")
    return path


@pytest.fixture(scope="session")
def tf_testdata():
    """tests/testdata/tf; fails when its expected.json is not there."""
    tf_testdata_file("expected.json")
    return TF_TESTDATA


@pytest.fixture(scope="session")
def tf_expected(tf_testdata):
    """tests/testdata/tf/expected.json, parsed."""
    return json.loads((tf_testdata / "expected.json").read_text())
