"""Where inflow's headers and library are, for building op libraries with a
plain compiler line (TF's ``tf.sysconfig``; docs/custom_ops.md):

    g++ -shared -o libzero_out.so zero_out.cc \\
        $(python -c 'import inflow.sysconfig as s; print(*s.get_compile_flags())') \\
        $(python -c 'import inflow.sysconfig as s; print(*s.get_link_flags())')

An installed package holds the headers in ``inflow/include`` and the
library in ``inflow/lib``; a build tree's package names the source tree's
headers and the built library (``_build_paths``, written by CMake).
"""

import os

__all__ = ["get_include", "get_lib", "get_compile_flags", "get_link_flags"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CORE = "libinflow_core.a"


def _build_paths():
    from inflow import _build_paths  # written into a build tree's package
    return _build_paths


def get_include():
    """The folder holding ``inflow/ops/op_library.h`` and the other headers."""
    installed = os.path.join(_PACKAGE, "include")
    if os.path.isdir(installed):
        return installed
    return _build_paths().INCLUDE_DIR


def get_lib():
    """The folder holding ``libinflow_core.a``, what an op library links."""
    installed = os.path.join(_PACKAGE, "lib")
    if os.path.isfile(os.path.join(installed, _CORE)):
        return installed
    return os.path.dirname(_build_paths().CORE_LIBRARY)


def get_compile_flags():
    """The compiler flags of an op library's sources: the include folder,
    C++20, position-independent code, and hidden symbols (the library
    exports only what INFLOW_OP_LIBRARY defines)."""
    return [f"-I{get_include()}", "-std=c++20", "-fPIC", "-fvisibility=hidden",
            "-fvisibility-inlines-hidden"]


def get_link_flags():
    """The linker flags of an op library (after its sources; add
    ``-shared``): inflow's core, with that copy's symbols kept inside the
    library."""
    return [f"-L{get_lib()}", f"-l:{_CORE}", "-Wl,--exclude-libs,ALL", "-pthread"]
