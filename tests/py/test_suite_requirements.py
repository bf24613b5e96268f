"""tests/py fails, never skips, when what `make test` installs is missing:
a session without the built programs or without TensorFlow stops with an
error naming what is missing, and runs no test."""
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
