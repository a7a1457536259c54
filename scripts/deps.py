#!/usr/bin/env python3
"""The file-level dependency graph of a built herd, and its circles.

usage: scripts/deps.py BUILD_DIR [--target T]... [--under PREFIX] [--edges] [--layers]

Two kinds of edges between source files, measured from what was built:
  include  A -> B  A has the line  #include "B"  (resolved against A's folder, then src/,
                   include/ and kernels/, as the build's include folders are)
  call     A -> B  A's object file needs a symbol (nm: U) that B's object file defines
                   (nm: T, D, B, R, C: functions, data, read-only tables such as an ops table)
The objects are those of the CMake targets named by --target (default: the library's layers,
herd_sweep, herd_render and herd_cli, or herd_objects, herd_render and herd_cli in a build from
before the layers; not the tests, which compile some program files again), found as BUILD_DIR/CMakeFiles/TARGET.dir/**/*.o (skipping those whose source is gone).
--under keeps only the files whose path starts with PREFIX (e.g. src/cli/).

Prints the number of files and edges of each kind, then every strongly connected component
of more than two files, of the call graph, of the include graph and of both together (a
component of two files is a pair that calls each other: allowed), and with --edges every
edge. Exits 1 when some component has more than two files.

--layers also checks every edge against the build's layers (docs/architecture.md; a file's
layer is its folder: src/util, src/core, ..., kernels/, include/): an edge may go to the file's
own layer or one it stands on; the layers above the library (sweep, render, cli), and record,
reach the library's other layers only through the public header, so their calls there must be
to a function of include/herd/*.h. Prints every edge that breaks this and exits 1 if one does.
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


LIBRARY = ["util", "core", "backend", "steer", "sim", "record"]
# The layers each layer stands on (besides itself, kernels' model math and the public header).
STANDS_ON = {
    "kernels": [],
    "api": [],
    "util": [],
    "core": ["util"],
    "backend": ["util", "core"],
    "steer": ["util", "core"],
    "sim": ["util", "core", "backend", "steer"],
    "record": ["util"],
    "sweep": ["util"],
    "render": ["util"],
    "cli": ["util", "sweep", "render", "record"],
}
# The layers that reach the library's others only through the public header: those above it,
# and record, which is in the library but writes what any program could (herd_record.h).
THROUGH_API = {"sweep", "render", "cli", "record"}


# How a model runs (its update, the kernels' entry points): the backends' alone. The rest of
# kernels/ (parameter lists, grid and path maths, random numbers) any layer may read.
KERNELS_EXECUTION = re.compile(r"kernels/(model\.h|models/(?!models\.h|\w+_params\.h)\w+\.h|.*\.cl)$")
SEES_EXECUTION = {"backend", "sim"}


def layer_of(path):
    parts = path.split("/")
    if parts[0] in ("kernels", "include"):
        return "kernels" if parts[0] == "kernels" else "api"
    if parts[0] == "src" and len(parts) > 2:
        return parts[1]
    return "generated"  # embedded kernels, scenarios, the commit: the build's own


def public_functions(root):
    names = set()
    for h in sorted(os.listdir(os.path.join(root, "include", "herd"))):
        text = open(os.path.join(root, "include", "herd", h), encoding="utf-8").read()
        names |= set(re.findall(r"\b(herd_\w+)\s*\(", text))
    return names


def layer_breaks(root, inc, call_symbols):
    """Every include or call edge that runs against the layers, as lines of text."""
    public = public_functions(root)
    out = []

    def allowed(a, b):
        la, lb = layer_of(a), layer_of(b)
        return la == lb or lb in ("api", "generated") or lb in STANDS_ON.get(la, []) or (
            lb == "kernels" and la not in ("api",))

    for a in sorted(inc):
        for b in sorted(inc[a]):
            if not allowed(a, b):
                out.append(f"include {a} -> {b} ({layer_of(a)} does not stand on {layer_of(b)})")
    closure = {}

    def reach(f, stack=()):
        if f not in closure:
            closure[f] = set()
            for g in inc.get(f, ()):
                closure[f] |= {g} | reach(g)
        return closure[f]

    for a in sorted(inc):
        if layer_of(a) in SEES_EXECUTION or layer_of(a) == "kernels":
            continue
        runs = sorted(g for g in reach(a) if KERNELS_EXECUTION.match(g))
        if runs:
            out.append(f"include {a} reaches {', '.join(runs[:3])}{' ...' if len(runs) > 3 else ''} "
                       f"(how a model runs: the backends' alone)")
    for (a, b), syms in sorted(call_symbols.items()):
        la, lb = layer_of(a), layer_of(b)
        if allowed(a, b):
            continue
        if la in THROUGH_API and lb in LIBRARY and syms <= public:
            continue
        bad = sorted(syms - public) if la in THROUGH_API and lb in LIBRARY else sorted(syms)
        out.append(f"call    {a} -> {b}: {', '.join(bad)} ({la} does not stand on {lb})")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build")
    ap.add_argument("--target", action="append")
    ap.add_argument("--under", default="")
    ap.add_argument("--edges", action="store_true")
    ap.add_argument("--layers", action="store_true")
    args = ap.parse_args()
    root = source_root(args.build)
    layered = os.path.isdir(os.path.join(args.build, "CMakeFiles", "herd_sim.dir"))
    targets = args.target or (["herd_" + l for l in LIBRARY] + ["herd_sweep", "herd_render", "herd_cli"]
                              if layered else ["herd_objects", "herd_render", "herd_cli"])

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
    call_symbols = collections.defaultdict(set)
    for src, u in needs.items():
        for s in u:
            for other in defined_in.get(s, ()):
                if other != src and keep(src) and keep(other):
                    calls[src].add(other)
                    call_symbols[(src, other)].add(s)

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
    breaks = layer_breaks(root, inc, call_symbols) if args.layers else []
    if args.layers:
        print(f"layers: {len(breaks)} edges against the layers" + (":" if breaks else ""))
        for line in breaks:
            print("  " + line)
    return 1 if worst > 2 or breaks else 0


if __name__ == "__main__":
    sys.exit(main())
