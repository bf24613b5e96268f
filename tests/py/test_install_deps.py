"""scripts/install-deps installs, for each purpose, the Debian packages the
build it serves finds: `--for demo` those of the CLI-only tree `make demo`
configures (and no Python), `--for test` (the default, `make test`) those
of the full Release tree, PyTorch for inflow.torch's tests and the
benchmarks' peers among them."""
import pathlib
import re
import shlex
import shutil
import subprocess

from conftest import BUILD, ROOT

INSTALL_DEPS = ROOT / "scripts" / "install-deps"
# CMake cache entries naming what a find_package or find_program found.
FOUND = re.compile(r"^(?!CMAKE_)\w+(_DIR|_LIBRARY|_LIBRARY_RELEASE|_EXECUTABLE):"
                   r"(?:PATH|FILEPATH)=(/.+)$", re.M)


def listed(purpose):
    proc = subprocess.run([str(INSTALL_DEPS), "--for", purpose, "--list"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


def owner(path):
    """The Debian package that installed `path` (a file), or None when no
    package did (the project's venv, the build tree)."""
    proc = subprocess.run(["dpkg-query", "-S", str(path)], capture_output=True,
                          text=True, timeout=60)
    if proc.returncode != 0:
        return None
    # "pkg[:arch]: path"; a diverted or shared file lists "a, b: path".
    return proc.stdout.splitlines()[0].split(": ")[0].split(", ")[0].split(":")[0]


def found_packages(cache):
    """The Debian packages of the libraries and programs a configured tree
    found (its CMakeCache.txt), with the compiler, ninja and cmake."""
    text = cache.read_text()
    paths = [pathlib.Path(m.group(2)) for m in FOUND.finditer(text)]
    for key in ("CMAKE_CXX_COMPILER", "CMAKE_MAKE_PROGRAM", "CMAKE_COMMAND"):
        # A compiler given by name (-DCMAKE_CXX_COMPILER=g++) can stay a bare
        # name in the cache: look it up on PATH as CMake did.
        m = re.search(rf"^{key}:\w+=(.+)$", text, re.M)
        assert m, f"{cache} has no {key}"
        found = shutil.which(m.group(1))
        assert found, f"{cache}: {key} {m.group(1)} is not on PATH"
        paths.append(pathlib.Path(found))
    packages = {}
    for path in paths:
        if ROOT in path.parents or ROOT.resolve() in path.resolve().parents:
            continue  # .venv's nanobind: requirements-dev.txt's
        if path.is_dir():
            configs = sorted(path.glob("*[Cc]onfig.cmake"))
            if not configs:
                continue  # an include folder many packages share
            path = configs[0]
        elif not path.exists():
            continue  # NOTFOUND: optional
        # A program reached through update-alternatives (mpiexec ->
        # /etc/alternatives/mpiexec -> orterun) belongs to its target's
        # package.
        package = owner(path) or owner(path.resolve())
        assert package, f"no Debian package installed {path} ({cache})"
        packages[package] = path
    return packages


def test_the_full_set_has_the_demo_set_and_pytorch():
    demo, test = listed("demo"), listed("test")
    assert set(demo) < set(test)
    assert {"python3-torch", "python3-numpy", "libopenblas0-pthread",
            "python3-protobuf", "dataset-fashion-mnist"} <= set(test)
    proc = subprocess.run([str(INSTALL_DEPS), "--list"], capture_output=True,
                          text=True, timeout=60)
    assert proc.stdout.split() == test


def test_the_release_tree_finds_only_packages_of_the_full_set():
    packages = found_packages(BUILD / "CMakeCache.txt")
    assert {"libgtest-dev", "libsnappy-dev", "libcli11-dev"} <= set(packages)
    missing = {p: str(path) for p, path in packages.items() if p not in listed("test")}
    assert not missing, missing


def test_the_demo_set_builds_the_demos_cli_tree(tmp_path):
    # The command `make demo` configures build/cli with, into tmp_path.
    dry = subprocess.run(["make", "-s", "-n", "-B", "-C", str(ROOT),
                          "build/cli/build.ninja"],
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    cmd = shlex.split(dry.stdout.replace("\\\n", " "))
    assert cmd[:2] == ["cmake", "-S"] and cmd[cmd.index("-B") + 1] == "build/cli", cmd
    cmd[cmd.index("-B") + 1] = str(tmp_path / "cli")
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    packages = found_packages(tmp_path / "cli" / "CMakeCache.txt")
    assert {"libsnappy-dev", "libcli11-dev", "nlohmann-json3-dev", "zlib1g-dev",
            "g++", "ninja-build", "cmake"} <= set(packages), packages
    missing = {p: str(path) for p, path in packages.items() if p not in listed("demo")}
    assert not missing, missing
    # Nothing of the tests, benchmarks or Python is configured.
    cache = (tmp_path / "cli" / "CMakeCache.txt").read_text()
    for absent in ("GTest_DIR", "benchmark_DIR", "nanobind_DIR", "Python_EXECUTABLE"):
        assert absent not in cache, absent


def test_the_demo_set_is_installed_without_python():
    # Everything is installed here (`make test` ran install-deps): the
    # demo's run says so, and stops before the venvs.
    proc = subprocess.run([str(INSTALL_DEPS), "--for", "demo"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "install-deps: Debian packages (for demo): all present\n"


def test_an_unknown_purpose_is_an_error_naming_the_choices():
    proc = subprocess.run([str(INSTALL_DEPS), "--for", "bench"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2
    assert "--for 'bench': expected demo or test" in proc.stderr
