"""`pip install .`: the package metadata and layout, checked cheaply.

A real pip build compiles the whole library (minutes), too slow for `make
test`; docs/python.md says how to run one by hand. This checks what such a
build relies on: pyproject.toml's backend, pins and CMake options, the
install rules of python/CMakeLists.txt, one version everywhere, and that
the build folder's package mirrors python/inflow (what pip installs).
"""
import pathlib
import re
import tomllib

import inflow

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "inflow"


def pyproject():
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


def test_pyproject_uses_scikit_build_core_and_the_pinned_nanobind():
    p = pyproject()
    assert p["build-system"]["build-backend"] == "scikit_build_core.build"
    requires = p["build-system"]["requires"]
    assert any(r.startswith("scikit-build-core") for r in requires)
    pins = dict(line.strip().split("==") for line in
                (ROOT / "requirements-dev.txt").read_text().splitlines()
                if "==" in line)
    assert f"nanobind=={pins['nanobind']}" in requires
    project = p["project"]
    assert project["name"] == "inflow"
    assert project["requires-python"] == ">=3.11"
    assert any(d.startswith("numpy") for d in project["dependencies"])


def test_pip_builds_only_the_modules():
    sk = pyproject()["tool"]["scikit-build"]
    # The extension, and inflow.distributed's, the one that links Open MPI.
    assert sk["build"]["targets"] == ["_inflow", "_inflow_mpi"]
    assert sk["install"]["components"] == ["python"]
    assert sk["wheel"]["packages"] == []
    defines = sk["cmake"]["define"]
    for option in ("INFLOW_BUILD_TESTS", "INFLOW_BUILD_BENCH",
                   "INFLOW_BUILD_TOOLS", "INFLOW_BUILD_EXAMPLES"):
        assert defines[option] == "OFF", option
    assert defines["INFLOW_BUILD_PYTHON"] == "ON"
    options = set(re.findall(r"option\((INFLOW_\w+)",
                             (ROOT / "CMakeLists.txt").read_text()))
    assert set(defines) <= options


def test_install_rules_install_the_extension_and_the_package():
    cmake = (ROOT / "python" / "CMakeLists.txt").read_text()
    rules = cmake[cmake.index("if(SKBUILD)"):]
    assert re.search(r"install\(TARGETS _inflow _inflow_mpi LIBRARY DESTINATION"
                     r"\s+inflow\s+COMPONENT python\)", rules)
    assert "DESTINATION inflow" in rules and 'PATTERN "*.pyi"' in rules
    assert 'PATTERN "py.typed"' in rules


def test_one_version_everywhere():
    version = pyproject()["project"]["version"]
    assert inflow.__version__ == version
    header = (ROOT / "include" / "inflow" / "version.h").read_text()
    assert f'kVersion[] = "{version}"' in header
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert f"project(inflow VERSION {version}" in cmake


def test_built_package_mirrors_the_source_package():
    built = pathlib.Path(inflow.__file__).parent
    sources = sorted(p.relative_to(PACKAGE) for p in PACKAGE.rglob("*")
                     if p.suffix in (".py", ".pyi") or p.name == "py.typed")
    assert pathlib.Path("py.typed") in sources
    for rel in sources:
        assert (built / rel).read_bytes() == (PACKAGE / rel).read_bytes(), rel
    assert list(built.glob("_inflow*.so")), "the extension is missing"
    for stub in ("errors.pyi", "_queues.pyi", "train/_coordination.pyi"):
        assert (PACKAGE / stub).exists(), stub


def test_package_exposes_the_api():
    for name in ("FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue",
                 "PriorityQueue"):
        assert callable(getattr(inflow, name))
    for name in ("Coordinator", "QueueRunner", "add_queue_runner",
                 "start_queue_runners"):
        assert callable(getattr(inflow.train, name))
    assert issubclass(inflow.errors.OutOfRangeError, inflow.errors.OpError)
    assert inflow.FIFOQueue.__doc__ and inflow.train.Coordinator.join.__doc__
