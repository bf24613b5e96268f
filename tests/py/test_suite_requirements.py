"""tests/py fails, never skips, when what `make test` installs is missing:
a session without the built programs or without TensorFlow stops with an
error naming what is missing, and runs no test; and a test, fixture or
module that skips anyway fails, giving its reason (conftest.py)."""
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def run_suite(tmp_path, **env):
    """A pytest session over one test file of this suite, in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         str(HERE / "test_cli_info.py")],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, **env})
    return proc.returncode, proc.stdout + proc.stderr


def test_a_missing_build_fails_the_session_naming_the_programs(tmp_path):
    rc, out = run_suite(tmp_path, INFLOW_BUILD_DIR=str(tmp_path / "no-build"))
    assert rc != 0, out
    assert "cannot run" in out, out
    for program in ("bin/inflow", "tests/example_tf_driver", "tests/queue_tf_replay",
                    "tests/producer_tf_driver"):
        assert f"{tmp_path / 'no-build' / program} is missing" in out, out
    assert "passed" not in out and "skipped" not in out, out


def test_missing_tensorflow_fails_the_session(tmp_path):
    # A `tensorflow` module that cannot be imported, ahead of the real one.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "tensorflow.py").write_text("raise ImportError('no TensorFlow here')\n")
    rc, out = run_suite(tmp_path, PYTHONPATH=str(shadow))
    assert rc != 0, out
    assert "TensorFlow cannot be imported (no TensorFlow here)" in out, out
    assert "passed" not in out and "skipped" not in out, out


SKIPPING_TESTS = '''
import pytest

def test_calls_skip():
    pytest.skip("no frobnicator here")

@pytest.mark.skip(reason="marked to skip")
def test_marked_skip():
    pass

@pytest.mark.skipif(True, reason="skipif was true")
def test_marked_skipif():
    pass

@pytest.fixture
def needs_thing():
    pytest.skip("the fixture found no thing")

def test_fixture_skips(needs_thing):
    pass

def test_passes():
    pass
'''


def run_with_conftest(tmp_path, source):
    """A pytest session over `source` (one test file in tmp_path) with this
    suite's conftest.py loaded as a plugin."""
    test = tmp_path / "test_skipping.py"
    test.write_text(source)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider",
         "-p", "conftest", str(test)],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(HERE)})
    return proc.returncode, proc.stdout + proc.stderr


def test_every_kind_of_skip_fails_giving_its_reason(tmp_path):
    rc, out = run_with_conftest(tmp_path, SKIPPING_TESTS)
    assert rc == 1, out
    # A skip in a test fails it; one in its set-up (a mark, a fixture) is
    # an error, as any failing set-up.
    assert "1 failed, 1 passed, 3 errors" in out, out
    assert "skipped" not in out.splitlines()[-1], out
    for reason in ("no frobnicator here", "marked to skip", "skipif was true",
                   "the fixture found no thing"):
        assert f"skipped: {reason}" in out, out
    assert "tests/py never skips" in out, out


def test_a_module_that_skips_fails_the_session(tmp_path):
    rc, out = run_with_conftest(
        tmp_path, 'import pytest\npytest.importorskip("no_such_module_here")\n'
                  'def test_never_runs():\n    pass\n')
    assert rc != 0, out
    assert "could not import 'no_such_module_here'" in out, out
    assert "1 error" in out and "passed" not in out, out
