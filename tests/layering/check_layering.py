#!/usr/bin/env python3
"""Checks that components depend downward only, as docs/ARCHITECTURE.md says.

Three sources must agree:
  - docs/ARCHITECTURE.md's component list (the first indented block after
    "# Architecture"), lowest first, and its ```mermaid picture of the
    graph;
  - the dependency graph the build declares (component_graph.txt, written by
    inflow_add_component: "name: dep dep ...");
  - the #include lines of include/inflow/<component>/ and src/<component>/,
    and of the trees above the components (CONSUMER_TREES).

Violations, each printed as one line:
  - a built component missing from ARCHITECTURE.md; a listed component
    that is not built;
  - a declared dependency on a component that is not below it in the list;
  - a file that includes a header of a component (public "inflow/<c>/..." or
    internal "<c>/...") that its component does not depend on, directly or
    through its dependencies;
  - a file of tools/, examples/ or python/src/ that includes an internal
    header (see CONSUMER_TREES);
  - ARCHITECTURE.md's ```mermaid block differing from what --print-mermaid
    prints for the declared graph (or missing).

Usage: check_layering.py SOURCE_DIR COMPONENT_GRAPH
       check_layering.py --print-mermaid COMPONENT_GRAPH
       check_layering.py --self-test
Exit status 0 when the tree is clean, 1 with the violations listed.
--print-mermaid prints the block ARCHITECTURE.md must hold, fences included.
"""

import pathlib
import re
import sys
import tempfile

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_SUFFIXES = {".h", ".cc"}

# The trees above the components, and whether each may include internal
# headers ("<c>/..." of src/<c>/). Every tree may include public headers
# ("inflow/..."), its own headers and system headers.
#   tools/, examples/, python/src/: no. They are what a user of the
#     installed library could write (the CLI, the example programs, the
#     Python bindings), so they use the public API only, and are built
#     without src/ on their include path. When one of them needs something
#     a component keeps internal, the component gets a public header.
#   bench/: yes. The kernel benchmarks time internal kernels (CRC-32C's,
#     varint decoding's, uint8 -> float conversion's, the training step's
#     products) through their inflow::internal APIs, which are no public
#     API, as tests/ do. Only the benchmarks that need it get src/ on their
#     include path (inflow_add_bench INTERNAL_HEADERS).
CONSUMER_TREES = {
    "tools": False,
    "examples": False,
    "python/src": False,
    "bench": True,
}

# Words Mermaid's flowchart grammar reserves; a component of that name gets
# the node id NAME_ and the label NAME.
MERMAID_KEYWORDS = {"call", "class", "classDef", "click", "default",
                    "direction", "end", "flowchart", "graph", "href",
                    "linkStyle", "style", "subgraph"}


def read_architecture(path):
    """Returns the component names of ARCHITECTURE.md's list, lowest first."""
    lines = path.read_text().splitlines()
    try:
        start = next(i for i, l in enumerate(lines) if l.startswith("# Architecture"))
    except StopIteration:
        raise SystemExit(f"{path}: no '# Architecture' heading")
    components = []
    in_block = False
    for line in lines[start + 1:]:
        if line.startswith("    ") and line.strip():
            in_block = True
            word = line.split()[0]
            if "/" in word:  # tools/, bench/: not components
                continue
            components.append(word)
        elif in_block:
            break
    return components


def read_mermaid(path):
    """The first ```mermaid block of `path`, fences included, or None."""
    lines = path.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.strip() == "```mermaid":
            for j in range(i + 1, len(lines)):
                if lines[j].strip() == "```":
                    return "\n".join(l.rstrip() for l in lines[i:j + 1])
            return "\n".join(lines[i:])
    return None


def read_graph(path):
    graph = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        name, _, deps = line.partition(":")
        graph[name.strip()] = deps.split()
    return graph


def mermaid(graph):
    """The components (in the graph file's order, the build's, lowest first)
    and their direct declared dependencies as a Mermaid flowchart: each
    component above those it depends on, an arrow from it to each, its
    dependencies in the same order. Fences included."""
    def node(name):
        return f"{name}_[{name}]" if name in MERMAID_KEYWORDS else name

    order = {name: i for i, name in enumerate(graph)}
    lines = ["```mermaid", "graph TD"]
    for name, deps in graph.items():
        if not deps:
            lines.append(f"  {node(name)}")
        for dep in sorted(set(deps), key=lambda d: (order.get(d, len(order)), d)):
            lines.append(f"  {node(name)} --> {node(dep)}")
    lines.append("```")
    return "\n".join(lines)


def closure(graph, name):
    seen = set()
    stack = list(graph.get(name, []))
    while stack:
        dep = stack.pop()
        if dep not in seen:
            seen.add(dep)
            stack.extend(graph.get(dep, []))
    return seen


def source_files(base):
    if base.is_dir():
        for f in sorted(base.rglob("*")):
            if f.suffix in SOURCE_SUFFIXES:
                yield f


def component_files(root, name):
    for base in (root / "include" / "inflow" / name, root / "src" / name):
        yield from source_files(base)


def included_component(target):
    """("public" | "internal", component) for an include of a component's
    header, or None for any other ("command.h", "example.pb.h")."""
    parts = target.split("/")
    if parts[0] == "inflow" and len(parts) > 2:
        return "public", parts[1]
    if len(parts) > 1:
        return "internal", parts[0]
    return None


def check_consumers(root, known):
    violations = []
    internal_dirs = {p.name for p in (root / "src").iterdir() if p.is_dir()} if (root / "src").is_dir() else set()
    for tree, may_include_internals in CONSUMER_TREES.items():
        if may_include_internals:
            continue
        for f in source_files(root / tree):
            for target in INCLUDE_RE.findall(f.read_text(errors="replace")):
                kind = included_component(target)
                if kind is None or kind[0] != "internal":
                    continue
                if kind[1] in known or kind[1] in internal_dirs:
                    rel = f.relative_to(root)
                    violations.append(
                        f"{rel} includes \"{target}\", an internal header: {tree}/ uses public "
                        f"headers only (\"inflow/{kind[1]}/...\"; a component gets one if needed)")
    return violations


def check(root, graph):
    violations = []
    architecture = root / "docs" / "ARCHITECTURE.md"
    order = read_architecture(architecture)
    for name in graph:
        if name not in order:
            violations.append(f"component {name} is built but not listed in docs/ARCHITECTURE.md")
    for name in order:
        if name not in graph:
            violations.append(f"docs/ARCHITECTURE.md lists {name}, which is not built")
    for name, deps in graph.items():
        if name not in order:
            continue
        for dep in deps:
            if dep not in order or order.index(dep) >= order.index(name):
                violations.append(f"component {name} depends on {dep}, which is not below it in docs/ARCHITECTURE.md")
    known = set(order) | set(graph)
    for name in graph:
        allowed = closure(graph, name) | {name}
        for f in component_files(root, name):
            for target in INCLUDE_RE.findall(f.read_text(errors="replace")):
                kind = included_component(target)
                if kind is None:
                    continue
                dep = kind[1]
                if dep in known and dep not in allowed:
                    rel = f.relative_to(root)
                    violations.append(f"{rel} includes \"{target}\", but component {name} does not depend on {dep}")
    violations.extend(check_consumers(root, known))
    picture = read_mermaid(architecture)
    if picture is None:
        violations.append("docs/ARCHITECTURE.md has no ```mermaid block: put the output of "
                          "check_layering.py --print-mermaid COMPONENT_GRAPH after the component list")
    elif picture != mermaid(graph):
        violations.append("docs/ARCHITECTURE.md's ```mermaid block differs from the declared graph: replace it "
                          "with the output of check_layering.py --print-mermaid COMPONENT_GRAPH")
    return violations


def self_test():
    """The checker itself: a clean fixture passes, each kind of fault fails."""
    graph = {"core": [], "io": ["core"], "queue": ["io", "core"]}

    def arch(g=graph, listed=("core", "io", "queue")):
        rows = "".join(f"    {name:6} text\n" for name in listed)
        return f"# Architecture\n\n{rows}    tools/ CLI\n\n{mermaid(g)}\n\nText.\n"

    def fixture(tmp, files, arch_text):
        root = pathlib.Path(tmp)
        (root / "docs").mkdir(parents=True)
        (root / "docs" / "ARCHITECTURE.md").write_text(arch_text)
        for rel, text in files.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text)
        return root

    clean = {"include/inflow/core/a.h": "#include <vector>\n",
             "include/inflow/io/b.h": '#include "inflow/core/a.h"\n',
             "src/io/b.cc": '#include "inflow/io/b.h"\n#include "io/internal.h"\n',
             "src/queue/q.cc": '#include "inflow/io/b.h"\n',
             "tools/ckpt_command.cc": '#include "inflow/io/b.h"\n#include "command.h"\n',
             "examples/x.cc": '#include "inflow/queue/q.h"\n',
             "python/src/bind_io.cc": '#include "inflow/io/b.h"\n#include "py_common.h"\n',
             "bench/io_bench.cc": '#include "io/internal.h"\n#include "bench_util.h"\n'}
    cases = [
        ("clean tree", clean, graph, arch(), None),
        ("public include upward", dict(clean, **{"include/inflow/io/c.h": '#include "inflow/queue/q.h"\n'}),
         graph, arch(), 'includes "inflow/queue/q.h"'),
        ("internal include sideways", dict(clean, **{"src/io/d.cc": '#include "queue/internal.h"\n'}),
         graph, arch(), 'includes "queue/internal.h"'),
        ("dependency upward", clean, dict(graph, core=["queue"]), arch(dict(graph, core=["queue"])),
         "depends on queue"),
        ("built but unlisted", clean, dict(graph, train=["core"]), arch(dict(graph, train=["core"])),
         "not listed"),
        ("listed but not built", clean, graph, arch(listed=("core", "io", "data", "queue")),
         "lists data, which is not built"),
        ("tools include an internal header", dict(clean, **{"tools/ckpt_format.cc": '#include "core/json.h"\n'}),
         graph, arch(), 'tools/ckpt_format.cc includes "core/json.h", an internal header'),
        ("examples include an internal header", dict(clean, **{"examples/y.cc": '#include "queue/slot.h"\n'}),
         graph, arch(), 'examples/y.cc includes "queue/slot.h"'),
        ("python/src includes an internal header",
         dict(clean, **{"python/src/bind_core.cc": '#include "io/internal.h"\n'}),
         graph, arch(), 'python/src/bind_core.cc includes "io/internal.h"'),
        ("mermaid block missing", clean, graph, arch().replace(mermaid(graph), ""), "no ```mermaid block"),
        ("mermaid block stale", clean, graph, arch({"core": [], "io": ["core"], "queue": ["io"]}),
         "```mermaid block differs"),
    ]
    failures = 0
    for label, files, g, arch_text, expect in cases:
        with tempfile.TemporaryDirectory() as tmp:
            found = check(fixture(tmp, files, arch_text), g)
        ok = (not found) if expect is None else any(expect in v for v in found)
        print(f"{'ok  ' if ok else 'FAIL'} {label}: {found or 'no violations'}")
        failures += not ok
    # The picture: every component, keywords renamed, dependencies in graph
    # order whatever order they were declared in.
    picture = mermaid({"core": [], "graph": ["core"], "io": ["graph", "core"]})
    expected = "```mermaid\ngraph TD\n  core\n  graph_[graph] --> core\n  io --> core\n  io --> graph_[graph]\n```"
    ok = picture == expected
    print(f"{'ok  ' if ok else 'FAIL'} mermaid picture: {picture!r}")
    failures += not ok
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 3 and argv[1] == "--print-mermaid":
        print(mermaid(read_graph(pathlib.Path(argv[2]))))
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, graph = pathlib.Path(argv[1]), read_graph(pathlib.Path(argv[2]))
    violations = check(root, graph)
    for v in violations:
        print(f"layering: {v}")
    if violations:
        return 1
    print(f"layering: {len(graph)} components, every include and dependency points downward")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
