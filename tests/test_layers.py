#!/usr/bin/env python3
"""The build's layers hold (docs/architecture.md): a file that includes a header of a layer it
does not stand on must fail to compile.

For each case, a source file of one layer is compiled exactly as the build compiles it (its
command from compile_commands.json) twice: as it is, which must succeed (so a failure below is
the wall's, not a broken command), and with one planted include of a header its layer may not
see, which must fail with the wall's message (src/<layer>/layer.h or kernels/model.h). The
planted copy is written to a scratch folder in the build tree; the source tree is not touched.

Then the whole graph, as built (scripts/deps.py --layers: includes, and calls measured with nm
on the objects): no edge may run against the layers (a call goes past the include walls when a
function of herd.h is defined in a layer above the caller) and no circle may span more than
two files.

usage: test_layers.py BUILD_DIR SOURCE_DIR
"""
import json
import os
import shlex
import subprocess
import sys

# (file compiled, header planted into it, why it must be refused)
CASES = [
    ("src/util/outfile.c", "src/core/geometry.h", "util stands on nothing"),
    ("src/core/output.c", "src/sim/sim_state.h", "core below sim"),
    ("src/core/scenario.c", "src/backend/backend.h", "core below backend"),
    ("src/core/model_info.c", "kernels/models/boids.h", "core reads a model's description, never its update"),
    ("src/core/scenario_fields.c", "src/steer/steer.h", "core below steer"),
    ("src/steer/strategies.c", "src/backend/model_exec.h", "steer beside backend, not on it"),
    ("src/backend/observation.c", "src/steer/route.h", "backend beside steer, not on it"),
    ("src/backend/groups.c", "src/sim/goal.h", "backend below sim"),
    ("src/sweep/stats.c", "src/core/scenario_fields.h", "sweep sees util and herd.h only"),
    ("src/render/camera.c", "src/core/output.h", "render sees util and herd.h only"),
    ("src/record/provenance.c", "src/sim/sim_state.h", "record sees util and herd.h only"),
    ("src/cli/summary.c", "src/sim/sim_state.h", "the program sees util, sweep, render and herd.h only"),
    ("src/cli/options.c", "src/backend/backend.h", "the program sees util, sweep, render and herd.h only"),
]

WALL_MESSAGES = ("headers are for", "was included outside the backend layer")


def compile_command(commands, source_dir, rel):
    path = os.path.join(source_dir, rel)
    for entry in commands:
        if os.path.realpath(entry["file"]) == os.path.realpath(path):
            args = entry.get("arguments") or shlex.split(entry["command"])
            return entry["directory"], args
    return None, None


def syntax_only(args, source, replacement):
    """The build's command for `source`, on `replacement` instead, checking syntax only."""
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a == "-o":
            skip = True
            continue
        if a == "-c":
            continue
        out.append(replacement if os.path.realpath(a) == os.path.realpath(source) else a)
    return out + ["-fsyntax-only"]


def main():
    build, source_dir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    scratch = os.path.join(build, "test-layers")
    os.makedirs(scratch, exist_ok=True)
    failures = skipped = 0
    for rel, planted, why in CASES:
        directory, args = compile_command(commands, source_dir, rel)
        if args is None and rel.startswith("src/render/") and not os.path.isdir(
                os.path.join(build, "CMakeFiles", "herd_render.dir")):
            print(f"skip {rel}: this build has no viewer (HERD_WITH_GL=OFF)")
            skipped += 1
            continue
        if args is None:
            print(f"FAIL {rel}: not in compile_commands.json (is it still built?)")
            failures += 1
            continue
        source = os.path.join(source_dir, rel)
        text = open(source).read()
        name = rel.replace("/", "_")
        clean = os.path.join(scratch, "clean_" + name)
        dirty = os.path.join(scratch, "planted_" + name)
        # The copy includes its own folder's headers by absolute path, as the original does by
        # its place in the tree.
        with open(clean, "w") as f:
            f.write(f'#line 1 "{source}"\n' + text)
        with open(dirty, "w") as f:
            f.write(f'#include "{os.path.join(source_dir, planted)}"\n#line 1 "{source}"\n' + text)
        include_here = ["-iquote", os.path.dirname(source)]
        ok = subprocess.run(syntax_only(args, source, clean) + include_here, cwd=directory, capture_output=True, text=True)
        if ok.returncode != 0:
            print(f"FAIL {rel}: does not compile even as it is:\n{ok.stderr[-2000:]}")
            failures += 1
            continue
        bad = subprocess.run(syntax_only(args, source, dirty) + include_here, cwd=directory, capture_output=True,
                             text=True)
        walled = bad.returncode != 0 and any(m in bad.stderr for m in WALL_MESSAGES)
        if walled:
            print(f"ok   {rel} + {planted}: refused ({why})")
        else:
            print(f"FAIL {rel} + {planted}: " + ("compiled" if bad.returncode == 0 else "failed, but not at the wall") +
                  f" ({why})\n{bad.stderr[-2000:]}")
            failures += 1
    graph = subprocess.run([sys.executable, os.path.join(source_dir, "scripts", "deps.py"), build, "--layers"],
                           capture_output=True, text=True)
    if graph.returncode == 0:
        print("ok   scripts/deps.py --layers: no edge against the layers, no circle of more than 2 files")
    else:
        print(f"FAIL scripts/deps.py --layers:\n{graph.stdout}{graph.stderr}")
        failures += 1
    print(f"{len(CASES) + 1 - failures - skipped} passed, {failures} failed" + (f", {skipped} skipped" if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
