"""Shared fixtures: where the built CLI and the shared test data live."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("INFLOW_BUILD_DIR", ROOT / "build" / "release"))
SHARED = pathlib.Path(os.environ.get("INFLOW_SHARED_DIR", ROOT.parent / "shared"))


@pytest.fixture(scope="session")
def inflow_bin():
    path = BUILD / "bin" / "inflow"
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make build` first")
    return str(path)


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


@pytest.fixture(scope="session")
def shared_dir():
    return SHARED
