#!/usr/bin/env python3
"""The file-level dependency graph of a built herd, and its circles.

usage: scripts/deps.py BUILD_DIR [--target T]... [--under PREFIX] [--edges]

Two kinds of edges between source files, measured from what was built:
  include  A -> B  A has the line  #include "B"  (resolved against A's folder, then src/,
                   include/ and kernels/, as the build's include folders are)
  call     A -> B  A's object file needs a symbol (nm: U) that B's object file defines
                   (nm: T, D, B, R, C: functions, data, read-only tables such as an ops table)
The objects are those of the CMake targets named by --target (default: herd_objects,
herd_render, herd_cli: the library, the renderer and the program; not the tests, which
compile some program files again), found as BUILD_DIR/CMakeFiles/TARGET.dir/**/*.o (skipping those whose source is gone).
--under keeps only the files whose path starts with PREFIX (e.g. src/cli/).

Prints the number of files and edges of each kind, then every strongly connected component
of more than two files, of the call graph, of the include graph and of both together (a
component of two files is a pair that calls each other: allowed), and with --edges every
edge. Exits 1 when some component has more than two files.
"""
import argparse
import collections
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
DEFINED = set("TDBRCVWG")  # W, V: weak definitions; G: small initialised data


def source_root(build):
    cache = os.path.join(build, "CMakeCache.txt")
    if os.path.exists(cache):
        for line in open(cache, encoding="utf-8", errors="replace"):
            if line.startswith("CMAKE_HOME_DIRECTORY:"):
                return line.split("=", 1)[1].strip()
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def objects(root, build, target):
    """(object, source) of each object file whose source still exists (in the source tree, or
    generated in the build folder): a file deleted since leaves its old object behind."""
    top = os.path.join(build, "CMakeFiles", target + ".dir")
    for folder, _, files in os.walk(top):
        for f in files:
            if f.endswith(".o"):
                path = os.path.join(folder, f)
                src = os.path.relpath(path, top)[: -len(".o")]
                if os.path.exists(os.path.join(root, src)) or os.path.exists(os.path.join(build, src)):
                    yield path, src


def symbols(obj):
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, needed = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            needed.add(name)
        elif kind in DEFINED:
            defined.add(name)
    return defined, needed


def includes(root, rel, search):
    try:
        text = open(os.path.join(root, rel), encoding="utf-8", errors="replace").read()
    except OSError:
        return []
    found = []
    for name in INCLUDE.findall(text):
        for base in [os.path.dirname(rel)] + search:
            cand = os.path.normpath(os.path.join(base, name))
            if os.path.exists(os.path.join(root, cand)):
                found.append(cand)
                break
    return found


def sccs(nodes, edges):
    """Tarjan's algorithm, iterative; components in no particular order."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in sorted(nodes):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--target", action="append")
    ap.add_argument("--under", default="")
    ap.add_argument("--edges", action="store_true")
    args = ap.parse_args()
    root = source_root(args.build)
    targets = args.target or ["herd_objects", "herd_render", "herd_cli"]

    defined_in, needs = collections.defaultdict(set), {}
    for target in targets:
        for obj, src in objects(root, args.build, target):
            d, u = symbols(obj)
            needs[src] = u
            for s in d:
                defined_in[s].add(src)
    if not needs:
        sys.exit(f"deps.py: no object files for {', '.join(targets)} under {args.build}/CMakeFiles")

    keep = lambda f: f.startswith(args.under)
    calls = collections.defaultdict(set)
    for src, u in needs.items():
        for s in u:
            for other in defined_in.get(s, ()):
                if other != src and keep(src) and keep(other):
                    calls[src].add(other)

    search = ["src", "include", "kernels"]
    inc = collections.defaultdict(set)
    todo, seen = [s for s in needs if keep(s)], set()
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        for g in includes(root, f, search):
            if keep(g):
                inc[f].add(g)
                todo.append(g)

    worst = 0
    for label, graphs in (("call", [calls]), ("include", [inc]), ("include+call", [calls, inc])):
        edges = collections.defaultdict(set)
        for g in graphs:
            for a, bs in g.items():
                edges[a] |= bs
        nodes = set(edges) | {b for bs in edges.values() for b in bs}
        if label == "call":
            nodes |= {s for s in needs if keep(s)}
        n_edges = sum(len(bs) for bs in edges.values())
        big = sorted((c for c in sccs(nodes, edges) if len(c) > 2), key=len, reverse=True)
        sizes = [len(c) for c in big]
        print(f"{label}: {len(nodes)} files, {n_edges} edges; components of more than 2 files: {sizes or 'none'}")
        for c in big:
            print(f"  {len(c)} files: {' '.join(c)}")
            worst = max(worst, len(c))
        if args.edges:
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    print(f"  {a} -> {b}")
    return 1 if worst > 2 else 0


if __name__ == "__main__":
    sys.exit(main())
