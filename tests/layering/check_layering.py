#!/usr/bin/env python3
"""Checks that components depend downward only, as docs/ARCHITECTURE.md says.

Three sources must agree:
  - docs/ARCHITECTURE.md's component list (the first indented block after
    "# Architecture"), lowest first; components not built yet are marked
    "(planned)";
  - the dependency graph the build declares (component_graph.txt, written by
    inflow_add_component: "name: dep dep ...");
  - the #include lines of include/inflow/<component>/ and src/<component>/.

Violations, each printed as one line:
  - a built component missing from ARCHITECTURE.md, or listed there as
    planned; a listed component that is neither built nor marked planned;
  - a declared dependency on a component that is not below it in the list;
  - a file that includes a header of a component (public "inflow/<c>/..." or
    internal "<c>/...") that its component does not depend on, directly or
    through its dependencies.

Usage: check_layering.py SOURCE_DIR COMPONENT_GRAPH
       check_layering.py --self-test
Exit status 0 when the tree is clean, 1 with the violations listed.
"""

import pathlib
import re
import sys
import tempfile

INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SOURCE_SUFFIXES = {".h", ".cc"}


def read_architecture(path):
    """Returns [(name, planned)] from ARCHITECTURE.md, lowest first."""
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
            components.append((word, "(planned)" in line))
        elif in_block:
            break
    return components


def read_graph(path):
    graph = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        name, _, deps = line.partition(":")
        graph[name.strip()] = deps.split()
    return graph


def closure(graph, name):
    seen = set()
    stack = list(graph.get(name, []))
    while stack:
        dep = stack.pop()
        if dep not in seen:
            seen.add(dep)
            stack.extend(graph.get(dep, []))
    return seen


def component_files(root, name):
    for base in (root / "include" / "inflow" / name, root / "src" / name):
        if base.is_dir():
            for f in sorted(base.rglob("*")):
                if f.suffix in SOURCE_SUFFIXES:
                    yield f


def check(root, graph):
    violations = []
    listed = read_architecture(root / "docs" / "ARCHITECTURE.md")
    order = [name for name, _ in listed]
    planned = {name for name, p in listed if p}
    for name in graph:
        if name not in order:
            violations.append(f"component {name} is built but not listed in docs/ARCHITECTURE.md")
        elif name in planned:
            violations.append(f"component {name} is built but docs/ARCHITECTURE.md marks it planned")
    for name in order:
        if name not in graph and name not in planned:
            violations.append(f"docs/ARCHITECTURE.md lists {name}, which is not built and not marked (planned)")
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
                parts = target.split("/")
                if parts[0] == "inflow" and len(parts) > 2:
                    dep = parts[1]
                elif len(parts) > 1:
                    dep = parts[0]
                else:
                    continue
                if dep in known and dep not in allowed:
                    rel = f.relative_to(root)
                    violations.append(f"{rel} includes \"{target}\", but component {name} does not depend on {dep}")
    return violations


def self_test():
    """The checker itself: a clean fixture passes, each kind of fault fails."""
    arch = ("# Architecture\n\n    core   base\n    io     files\n"
            "    queue  queues\n    data   datasets (planned)\n    tools/ CLI\n\nText.\n")

    def fixture(tmp, files, arch_text=arch):
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
             "src/queue/q.cc": '#include "inflow/io/b.h"\n'}
    graph = {"core": [], "io": ["core"], "queue": ["io"]}
    cases = [
        ("clean tree", clean, graph, arch, None),
        ("public include upward", dict(clean, **{"include/inflow/io/c.h": '#include "inflow/queue/q.h"\n'}),
         graph, arch, 'includes "inflow/queue/q.h"'),
        ("internal include sideways", dict(clean, **{"src/io/d.cc": '#include "queue/internal.h"\n'}),
         graph, arch, 'includes "queue/internal.h"'),
        ("dependency upward", clean, dict(graph, core=["queue"]), arch, "depends on queue"),
        ("built but planned", clean, dict(graph, data=["core"]), arch, "marks it planned"),
        ("built but unlisted", clean, dict(graph, train=["core"]), arch, "not listed"),
        ("listed, unbuilt, unmarked", clean, graph, arch.replace(" (planned)", ""), "not marked (planned)"),
    ]
    failures = 0
    for label, files, g, arch_text, expect in cases:
        with tempfile.TemporaryDirectory() as tmp:
            found = check(fixture(tmp, files, arch_text), g)
        ok = (not found) if expect is None else any(expect in v for v in found)
        print(f"{'ok  ' if ok else 'FAIL'} {label}: {found or 'no violations'}")
        failures += not ok
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
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
