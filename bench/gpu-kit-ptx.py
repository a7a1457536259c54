#!/usr/bin/env python3
"""KIT/ptx DIR...: the kernels as the device's own OpenCL compiler built them, kernel by kernel.

Each DIR holds the programs one herd run dumped (HERD_CL_DUMP_BINARIES: main.bin, sized.bin,
capped-N.bin). NVIDIA's binaries are PTX: CUDA's ptxas -v assembles each for the PTX's own
target (the capped program with the register bound N the driver gives it,
-cl-nv-maxrregcount=N), and a markdown table of registers, stack, spills, shared memory and
theoretical occupancy (tests/gpu_static.py's parser and calculator, as test_gpu_compile's
table from clang) goes to stdout. bench/gpu-kit-run.sh runs it on the GPU machine."""

import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "tests")]  # beside it in the kit, tests/ in the repository
from gpu_static import parse_ptxas, ptx_entries, sm90_occupancy  # noqa: E402


def find_ptxas():
    for path in (shutil.which("ptxas"), *sorted(glob.glob("/usr/local/cuda*/bin/ptxas"), reverse=True)):
        if path and os.access(path, os.X_OK):
            return path
    return None


def group_sizes(ptx):
    """{kernel: its required work-group size} from each entry's .reqntid (else 0: unknown)."""
    _, entries = ptx_entries(ptx)
    sizes = {}
    for name, body in entries.items():
        m = re.search(r"\.reqntid\s+(\d+)", body[: body.index("{")])
        sizes[name] = int(m.group(1)) if m else 0
    return sizes


def assemble(ptxas, path, program):
    ptx = open(path, encoding="utf-8", errors="replace").read()
    target = re.search(r"^\.target\s+(\w+)", ptx, re.M)
    if not target:
        return None, f"{path}: not PTX (no .target line)"
    options = [ptxas, "-v", f"-arch={target.group(1)}", "-o", os.devnull, path]
    capped = re.fullmatch(r"capped-(\d+)", program)  # the model's bound (kernels/models/steps.h)
    if capped:
        options[2:2] = [f"--maxrregcount={capped.group(1)}"]
    done = subprocess.run(options, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        return None, f"{path}: ptxas failed: {done.stderr.strip().splitlines()[-1:]}"
    return (target.group(1), parse_ptxas(done.stderr), group_sizes(ptx)), None


def main(dirs):
    paths = [p for d in dirs for p in sorted(glob.glob(os.path.join(d, "*.bin")))]
    if not any(b".target" in open(p, "rb").read() for p in paths):
        print(f"no PTX: the device's compiler made none of these {len(paths)} programs PTX (not an NVIDIA device)")
        print("\n0 kernels")
        return 0 if paths else 1
    ptxas = find_ptxas()
    if not ptxas:
        print("no ptxas on this machine (PATH, /usr/local/cuda*/bin)")
        return 1
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    print(f"ptxas: {version[-1] if version else '?'}\n")
    print("| kernel | program | target | regs | stack | spills | smem | wg | occ. |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|")
    seen, failed = set(), 0
    for path in paths:
        program = os.path.basename(path)[: -len(".bin")]
        result, error = assemble(ptxas, path, program)
        if error:
            print(f"| {error} | | | | | | | | |")
            failed += 1
            continue
        target, kernels, sizes = result
        for name, k in sorted(kernels.items()):
            if (name, program) in seen:
                continue
            seen.add((name, program))
            wg = sizes.get(name, 0)
            occ = f"{100 * sm90_occupancy(k['registers'], k['smem'], wg):.0f}%" if wg else "?"
            print(f"| `{name}` | {program} | {target} | {k['registers']} | {k['stack']} | "
                  f"{k['spill_stores'] + k['spill_loads']} | {k['smem']} | {wg or '?'} | {occ} |")
    print(f"\n{len(seen)} kernels")
    return 1 if failed or not seen else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
