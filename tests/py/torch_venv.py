"""The PyTorch venv for tests/py: Debian's python3-torch is importable only
from /usr/bin/python3, so the torch tests run their scripts under
.venv-torch's python (scripts/install-deps installs python3-torch and
makes .venv-torch over it), with this build's inflow first on its path.
"""
import json
import os
import pathlib
import subprocess
import textwrap

import pytest

from conftest import BUILD, ROOT

TORCH_PYTHON = pathlib.Path(os.environ.get("INFLOW_TORCH_PYTHON",
                                           ROOT / ".venv-torch" / "bin" / "python"))


def script_env():
    """The environment of a script: this build's inflow first on the path,
    OpenBLAS's tuning variables unset (as bench_train_vs_torch runs
    torch)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}
    env["PYTHONPATH"] = str(BUILD / "python")
    return env


INSTALL_HINT = "run scripts/install-deps (or `make test`, which runs it)"


def require_torch_python():
    """.venv-torch's python with torch in it; otherwise the test fails,
    saying what is missing and what to run (the torch tests never skip).
    A torch that is installed but does not import fails them too."""
    if not TORCH_PYTHON.exists():
        pytest.fail(f"no PyTorch venv: {TORCH_PYTHON} is missing; {INSTALL_HINT}: "
                    "it installs Debian's python3-torch and makes .venv-torch",
                    pytrace=False)
    probe = subprocess.run(
        [str(TORCH_PYTHON), "-c",
         "import importlib.util, sys; "
         "sys.exit(0 if importlib.util.find_spec('torch') else 5)"],
        capture_output=True, text=True, env=script_env(), timeout=60)
    if probe.returncode == 5:
        pytest.fail(f"torch is not installed for {TORCH_PYTHON}; {INSTALL_HINT}: "
                    "it installs Debian's python3-torch", pytrace=False)
    assert probe.returncode == 0, probe.stderr
    return TORCH_PYTHON


def run_script(python, code, timeout=120):
    """Runs `code` under `python`; its last stdout line, parsed as JSON."""
    proc = subprocess.run([str(python), "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, env=script_env(),
                          timeout=timeout)
    assert proc.returncode == 0, f"the script exited {proc.returncode}:\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])
