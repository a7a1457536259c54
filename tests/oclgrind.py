#!/usr/bin/env python3
"""test_oclgrind: every kernel of herd's OpenCL programs run under Oclgrind, an OpenCL device
simulator, with its data-race and uninitialised-value detectors (--data-races --uninitialized)
on small cases: every model, 2D and 3D, obstacles, a path, the flock's groups, batches of
worlds, the Strömbom pre-pass at 8, 16 and 32 lanes, and a flock large enough that every
reduction, scan and sort runs more than one work-group. It fails on any diagnostic not on the
allow-list below (patterns correct by design on every GPU, each with its reason), and when a
kernel of the programs ran in no case.

Oclgrind 21.10's own bugs, worked around (docs/opencl.md, "Oclgrind", reproduces each):
- --uninitialized crashes on optimised builds of large kernels: the programs are built with
  -cl-opt-disable, and without always_inline (at -O0 the inliner emits an intrinsic Oclgrind's
  interpreter does not know): HERD_CL_BUILD_OPTIONS;
- what clEnqueueFillBuffer wrote, and the rest of a buffer after a partial host write or copy,
  read as uninitialised; a released buffer's shadow passes to the next one created: the shim
  (tests/oclgrind_shim.c) writes and copies through kernels, with staging buffers it keeps;
- it counts some kernels' __local arrays twice: 64 KiB of local memory (tests/gpu_compile.py
  checks the real budget);
- it stops reporting after 1000 errors: the limit is raised.
The bug reproductions (tests/oclgrind_bugs.c) run first: a bug that no longer shows is said.

--plant barrier runs one case with a barrier taken out of the scan (through HERD_KERNEL_DIR),
which must be reported. Exit 77 (skipped) without Oclgrind, 2 on bad arguments."""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

RUNTIME_DIRS = ("/usr/lib/oclgrind", "/usr/local/lib/oclgrind", "/usr/lib/x86_64-linux-gnu/oclgrind")
BUILD_OPTIONS = "-cl-opt-disable -DHERD_INLINE_ATTRIBUTE="
TIMEOUT_S = 600

# The cases: (name, command after the herd program or "test_opencl", extra environment). Flocks
# of tens to a few thousand agents and two steps: Oclgrind interprets every work-item.
RUN = ["run", "--backend", "opencl", "-q", "-s", "2"]


def sweep(scenario, *sets):
    return ["sweep", "--scenario", scenario, *[a for s in sets for a in ("--set", s)], "--seeds", "1-3", "--batch",
            "3", "-s", "2", "--backend", "opencl", "-q", "--force", "-o", "{work}/sweep-" + os.path.basename(scenario)]


# 80 sheep that all feel the dog: the pre-pass has work (a step skips it when the last
# observation puts every sheep beyond r_s of the dog, as two steps from the default start do).
PRE_PASS_WORK = ["--set", "sheep.count=80", "--set", "sheep.dog_radius_m=1e6"]

CASES = [  # the longest first: the cases run side by side, one per core
    # 4200 boids that see few others on a large field: 3 reduction groups, 5 radix blocks (a
    # digit table of 1280 entries, scanned level by level: 2 scan groups); the grid in a launch
    # per stage (every other case's flock is small: its grid is built by one work-group).
    ("every reduction, scan and sort over several groups",
     RUN + ["scenarios/boids2d.json", "--set", "boids.count=4200", "--set", "world.size_m=[3000,3000]",
            "--set", "boids.visual_range_m=6", "--set", "boids.protected_range_m=2", "-s", "1"],
     {"HERD_CL_SCAN_SINGLE_MAX": "0", "HERD_CL_GRID_SMALL_MAX": "0"}),
    # 2100 boids: the groups' kernels over several work-groups (runs of 32 agents, 64 a group).
    ("groups over several work-groups",
     RUN + ["scenarios/boids2d.json", "--set", "boids.count=2100", "--set", "world.size_m=[2000,2000]",
            "--set", "boids.visual_range_m=6", "--set", "boids.protected_range_m=2", "--set", "groups.observe=always",
            "--set", "groups.view_radius_m=3", "-s", "1"], {}),
    ("strombom pre-pass 8 lanes", RUN + PRE_PASS_WORK, {"HERD_CL_COOP": "1", "HERD_COOP_LANES": "8"}),
    ("strombom pre-pass 16 lanes", RUN + PRE_PASS_WORK, {"HERD_CL_COOP": "1", "HERD_COOP_LANES": "16"}),
    ("strombom pre-pass 32 lanes", RUN + PRE_PASS_WORK, {"HERD_CL_COOP": "1", "HERD_COOP_LANES": "32"}),
    ("strombom without pre-pass", RUN + ["--set", "sheep.count=80"], {"HERD_CL_COOP": "0"}),
    ("strombom, nearest among the reacting", RUN + ["--set", "sheep.count=80", "--set", "sheep.neighbours_from=reacting",
                                                  "--set", "sheep.dog_radius_m=30"], {}),
    ("boids 2D, margins", RUN + ["scenarios/boids2d.json", "--set", "boids.count=150"], {}),
    # the grid's one work-group as wide as on a GPU (1024 work-items; PoCL's default is 256)
    ("boids 3D", RUN + ["scenarios/boids3d.json", "--set", "boids.count=200"], {"HERD_CL_SMALL_GROUP": "gpu"}),
    ("boids fleeing a pursuer", RUN + ["scenarios/boids-predator.json", "--set", "boids.count=150"], {}),
    ("netlogo torus, enemies", RUN + ["scenarios/netlogo-enemies.json", "--set", "netlogo.count=150"], {}),
    ("couzin 3D", RUN + ["scenarios/couzin-torus.json", "--set", "couzin.count=60"], {}),
    ("couzin 2D", RUN + ["{work}/couzin2d.json"], {}),
    ("fish and shark", RUN + ["scenarios/fish-shark.json", "--set", "fish.count=60"], {}),
    ("fish foraging past reefs (spheres)", RUN + ["scenarios/fish-foraging.json", "--set", "fish.count=60"], {}),
    ("pen with gate (walls, pens)", RUN + ["scenarios/pen-with-gate.json", "--set", "sheep.count=60"], {}),
    ("path 2D", RUN + ["scenarios/path2d.json", "--set", "boids.count=100"], {}),
    ("path 3D past a sphere", RUN + ["scenarios/path3d-sphere.json", "--set", "boids.count=100"], {}),
    ("groups: Lien's shepherds", RUN + ["scenarios/lien-empty.json"], {}),
    ("batch: strombom", sweep("scenarios/strombom2014.json", "sheep.count=40", "sheep.neighbours=20"), {}),
    ("batch: boids", sweep("scenarios/boids2d.json", "boids.count=40"), {}),
    ("batch: netlogo", sweep("scenarios/netlogo-flocking.json", "netlogo.count=40"), {}),
    ("batch: couzin", sweep("scenarios/couzin-torus.json", "couzin.count=30"), {}),
    ("batch: fish", sweep("scenarios/fish-foraging.json", "fish.count=30"), {}),
    ("batch: boids 3D", sweep("scenarios/boids3d.json", "boids.count=40"), {}),
    ("batch: boids on a path", sweep("scenarios/path2d.json", "boids.count=40"), {}),
    ("batch: couzin 2D", sweep("{work}/couzin2d.json", "couzin.count=30"), {}),
    ("batch: couzin on a path", sweep("{work}/couzin-path.json", "couzin.count=30"), {}),
    ("batch: fish on a path", sweep("{work}/fish-path.json", "fish.count=30"), {}),
    ("couzin on a path", RUN + ["{work}/couzin-path.json"], {}),
    ("fish on a path", RUN + ["{work}/fish-path.json"], {}),
    # The viewer's copy path maps each agent to its group (herd_groups_map): under Xvfb, with
    # Mesa's softpipe: llvmpipe brings its own LLVM into the process, and Oclgrind's crashes in it.
    ("viewer's map of the groups", ["xvfb-run", "-a", "{herd}", "view", "scenarios/lien-empty.json", "--backend",
                                    "opencl", "--steps", "1", "--screenshot", "{work}/groups.png", "--force", "--size", "320x200"],
     {"GALLIUM_DRIVER": "softpipe"}),
    ("k nearest (test_opencl)", ["test_opencl"],
     {"HERD_TEST_OPENCL_AGENTS": "100", "HERD_TEST_ONLY": "neighbour_sets_equal_the_cpu_backend"}),
]

# Scenarios the cases need that the project does not ship, written into the work folder.
PATH_3D = '"path": {"points_m": [[5, 5, 5], [30, 40, 35], [55, 10, 20]], "lookahead_m": 5, "weight": 0.05}'
SCENARIOS = {
    "couzin2d.json": '{"model": "couzin", "world": {"size_m": [20, 20]}, "couzin": {"count": 60}}\n',
    # The models that follow a path read its pull from the guide pass (herd_path_guide).
    "couzin-path.json": '{"model": "couzin", "world": {"size_m": [60, 60, 60]}, "couzin": {"count": 40}, %s}\n' % PATH_3D,
    "fish-path.json": '{"model": "fish", "world": {"size_m": [60, 60, 60]}, "fish": {"count": 40}, %s}\n' % PATH_3D,
}

# Diagnostics that are correct by design on every GPU: (kernel, a source line of the report,
# why). OpenCL 1.2 defines no order between work-items of different groups, nor between a plain
# access and an atomic; these patterns rely only on what every GPU keeps: aligned 32-bit loads
# and stores are single accesses, and a fenced store is seen by a later atomic's reader.
ALLOWED = [
    (r"herd_groups_(star|hook|compress)", r"herd_shared_load|herd_shared_store|herd_atomic_cas",
     "the union-find of the groups (kernels/groups.h): parents only ever move to a lower label, "
     "by compare-and-swap; a volatile read that sees an old parent follows a longer path to the "
     "same root, so every interleaving gives the same labels"),
    (r"herd_reduce_(first|far)(_batch)?",
     r"seen\[k\]|partials\[first \+ group\] = tree\[0\]|\*ticket = 0u|atomic_inc\(ticket\)",
     "the last work-group's fold (kernels/sized.cl, herd_fold_last): each group's partial is "
     "written and fenced before its ticket; the group that draws the last ticket reads them all "
     "(CUDA's threadfence reduction), then resets the ticket for the next launch"),
]

# A report's first line: "Uninitialized value written to ...", "Read-write data race at ...",
# "Invalid read of size 4 ...", "Oclgrind - OpenCL runtime error detected", ...
HEADER_RE = re.compile(r"^[A-Z].*?(?:data race|ninitiali[sz]ed|nvalid|rror)")


def fail(message):
    print("test_oclgrind: " + message, file=sys.stderr)
    sys.exit(2)


def find_runtime():
    if not shutil.which("oclgrind"):
        print("skipped: Oclgrind is not installed (Debian's oclgrind)")
        sys.exit(77)
    for d in RUNTIME_DIRS:
        path = os.path.join(d, "liboclgrind-rt.so")
        if os.path.exists(path):
            return path
    print("skipped: oclgrind is installed but liboclgrind-rt.so is not in " + ", ".join(RUNTIME_DIRS))
    sys.exit(77)


def oclgrind_env(runtime, shim, log, extra):
    env = dict(os.environ)
    env.update({
        "OCLGRIND_DATA_RACES": "1",
        "OCLGRIND_UNINITIALIZED": "1",
        "OCLGRIND_CHECK_API": "1",
        "OCLGRIND_MAX_ERRORS": "1000000",
        "OCLGRIND_LOCAL_MEM_SIZE": "65536",
        "OCLGRIND_NUM_THREADS": "1",
        "HERD_CL_BUILD_OPTIONS": BUILD_OPTIONS,
        "HERD_OCLGRIND_LOG": log,
        "LD_PRELOAD": ":".join(p for p in (shim, runtime) if p),
    })
    env.update(extra)
    return env


def reports(stderr):
    """Oclgrind's diagnostics: [(kernel, first line, source lines)] (a report runs from its
    header, at the start of a line, to the next line that starts unindented)."""
    found, current = [], None
    for line in stderr.splitlines():
        if line and not line[0].isspace():
            current = None
            if HEADER_RE.match(line) and not line.startswith("herd:"):
                current = {"what": line, "kernel": "?", "source": []}
                found.append(current)
            continue
        if current is None:
            continue
        s = line.strip()
        if s.startswith("Kernel:"):
            current["kernel"] = s.split(":", 1)[1].strip()
        elif line.startswith("\t  ") and not re.match(r"%|store |call |br |load ", s) and s:
            current["source"].append(s)
    return found


def allowed(report):
    for kernel, source, why in ALLOWED:
        if re.fullmatch(kernel, report["kernel"]) and report["source"] and all(
                re.search(source, s) for s in report["source"]):
            return why
    return None


def run_case(name, argv, extra, args, runtime, work):
    log = os.path.join(work, re.sub(r"\W+", "-", name) + ".log")
    if argv == ["test_opencl"]:
        cmd = [args.test_opencl]
    elif argv[0] == "xvfb-run":
        cmd = [a.replace("{work}", work).replace("{herd}", args.herd) for a in argv]
    else:
        cmd = [args.herd] + [a.replace("{work}", work) for a in argv]
    started = time.time()
    done = subprocess.run(cmd, cwd=args.source, env=oclgrind_env(runtime, args.shim, log, extra),
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    ran, has = set(), set()
    if os.path.exists(log):
        with open(log) as f:
            for line in f:
                what, _, kernel = line.strip().partition(" ")
                (ran if what == "ran" else has).add(kernel)
    return {"name": name, "rc": done.returncode, "seconds": time.time() - started, "reports": reports(done.stderr),
            "stderr": done.stderr, "ran": ran, "has": has}


def bug_reproductions(args, runtime):
    """tests/oclgrind_bugs: each bug shows without the shim and not with it; a diagnostic of
    an initialised word, or none for an uninitialised one, fails the workaround."""
    problems = []
    for mode, bug in ((1, "a partial host write"), (2, "a fill"), (3, "a partial copy")):
        for shim, expect in ((None, True), (args.shim, False)):
            env = oclgrind_env(runtime, shim, os.devnull, {"HERD_CL_BUILD_OPTIONS": ""})
            done = subprocess.run([args.bugs, str(mode)], env=env, capture_output=True, text=True, timeout=120)
            seen = any("ninitiali" in r["what"] for r in reports(done.stderr))  # through the parser the cases use
            if done.returncode != 0:
                problems.append(f"tests/oclgrind_bugs {mode} failed: {done.stderr[-300:]}")
            elif shim is None and not seen:
                print(f"note: Oclgrind no longer misreads {bug}: the shim's workaround may go")
            elif shim and seen:
                problems.append(f"the shim does not work around {bug} (tests/oclgrind_bugs {mode})")
    env = oclgrind_env(runtime, args.shim, os.devnull, {"HERD_CL_BUILD_OPTIONS": ""})
    done = subprocess.run([args.bugs, "4"], env=env, capture_output=True, text=True, timeout=120)
    words = sorted(set(re.findall(r"Uninitialized value written to global memory address 0x[0-9a-f]*([0-9a-f])\b",
                                  done.stderr)))
    if words != ["0", "8", "c"]:
        problems.append(f"with the shim, the words never written should read uninitialised and the one filled "
                        f"not (bytes 0, 8, c of the buffer); Oclgrind said {words}")
    return problems


def planted_barrier(args, runtime, work):
    """The scan with its first barrier taken out must be reported as a race."""
    kernels = os.path.join(work, "kernels-planted")
    shutil.rmtree(kernels, ignore_errors=True)
    shutil.copytree(os.path.join(args.source, "kernels"), kernels)
    path = os.path.join(kernels, "herd.cl")
    with open(path) as f:
        text = f.read()
    target = "  totals[t] = run;\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
    if target not in text:
        return ["--plant barrier: herd_scan_totals' first barrier is not where the plant expects it"]
    with open(path, "w") as f:
        f.write(text.replace(target, "  totals[t] = run;\n", 1))
    # the grid by its launches (a flock this small is otherwise one work-group's: herd_grid_small)
    case = run_case("planted barrier", RUN + ["--set", "sheep.count=60", "-s", "1"],
                    {"HERD_KERNEL_DIR": kernels, "HERD_CL_GRID_SMALL_MAX": "0"}, args, runtime, work)
    races = [r for r in case["reports"] if "race" in r["what"] and r["kernel"].startswith("herd_scan")]
    if not races:
        return ["--plant barrier: the scan without its barrier was not reported"]
    print(f"planted barrier: caught: {races[0]['what']} in {races[0]['kernel']}")
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--herd", required=True, help="the herd program")
    ap.add_argument("--test-opencl", required=True, help="tests/test_opencl")
    ap.add_argument("--shim", required=True, help="tests/oclgrind_shim.c, built")
    ap.add_argument("--bugs", required=True, help="tests/oclgrind_bugs.c, built")
    ap.add_argument("--source", required=True, help="the project's folder (scenarios/, kernels/)")
    ap.add_argument("--work", help="a folder for logs and sweeps (default: a temporary one)")
    ap.add_argument("--plant", choices=["barrier"], action="append", default=[])
    ap.add_argument("--case", action="append", default=[], help="run only the cases whose name has this")
    args = ap.parse_args()
    runtime = find_runtime()
    work = args.work or tempfile.mkdtemp(prefix="herd-oclgrind-")
    os.makedirs(work, exist_ok=True)
    started = time.time()
    for name, text in SCENARIOS.items():
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    problems = bug_reproductions(args, runtime)
    cases = [c for c in CASES if not args.case or any(k in c[0] for k in args.case)]
    if not cases:
        fail("no case matches --case " + ", ".join(args.case))
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda c: run_case(*c, args, runtime, work), cases))
        planted = pool.submit(planted_barrier, args, runtime, work) if "barrier" in args.plant else None
        if planted:
            problems += planted.result()
    ran, has, allowed_counts = set(), set(), {}
    for r in sorted(results, key=lambda r: -r["seconds"]):
        bad = []
        for rep in r["reports"]:
            why = allowed(rep)
            if why:
                allowed_counts[why] = allowed_counts.get(why, 0) + 1
            else:
                bad.append(rep)
        ran |= r["ran"]
        has |= r["has"]
        print(f"{r['name']:<52} {r['seconds']:6.1f} s  exit {r['rc']}  {len(r['reports'])} reports, "
              f"{len(bad)} not allowed")
        if r["rc"] != 0:
            problems.append(f"{r['name']}: exit {r['rc']}: {r['stderr'][-600:]}")
        for rep in bad[:5]:
            problems.append(f"{r['name']}: {rep['kernel']}: {rep['what']}: {' | '.join(rep['source'][:2])}")
        if len(bad) > 5:
            problems.append(f"{r['name']}: {len(bad) - 5} more reports not allowed")
    for why, n in allowed_counts.items():
        print(f"allowed ({n} reports): {why[:100]}...")
    never = sorted(has - ran)
    if never and not args.case:
        problems.append("kernels that ran in no case: " + ", ".join(never))
    print(f"{len(cases)} cases, {len(ran)} of {len(has)} kernels run, {time.time() - started:.0f} s")
    for p in problems:
        print("FAILED: " + p)
    print(f"{0 if problems else 1} passed, {len(problems)} failed")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
