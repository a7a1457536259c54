#!/usr/bin/env python3
"""test_gpu_compile: herd's OpenCL programs, exactly as the backend builds them (the embedded
sources and options, from tests/cl_program), compiled by real GPU compilers: clang for
nvptx64-nvidia-nvcl with libclc's builtins, assembled by CUDA's ptxas for sm_90 (H100/H200),
and clang for amdgcn-amd-amdhsa gfx90a (MI200), assembled and linked.

Every variant the host can build: the main program (kernels/herd.cl) has one, the sized program
(kernels/sized.cl) one per steering room (1 and HERD_MAX_STEERING, the extremes) and pre-pass
lanes (8, 16, 32). ptxas assembles each distinct kernel once: a kernel whose PTX is the same in
two variants is the same code. For amdgcn the main program and the sized one at the extremes of
local memory (16 steering agents and 8 lanes, 1 and 32): its compiles are the slowest.

It fails on any function called but not defined, any spill, a stack over STACK_LIMIT, local
(shared) memory over LOCAL_LIMIT, more than REGISTER_LIMIT registers on sm_90, and on a struct
the host and the device lay out differently. It writes the table of every kernel to --table (deterministic: no
times in it). Exit 77 (skipped) when a tool is missing, saying which; 2 on bad arguments.

--plant NAME compiles a small program with a planted fault instead and must fail (the suite runs
them, so that the checks are seen to fail): `inline` (a C99 inline helper left uninlined), `local`
(a 40 KiB __local array)."""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import gpu_static

REGISTER_LIMIT = 128  # per work-item on sm_90: at least 25 % occupancy for any block size
# The batch step kernels (herd_step_batch_<model>) read their world's grid, step facts and
# parameters from memory, which a one-world kernel reads from its parameter space for free; a
# work-group steps one world, so that much of it stays in uniform registers, but Strömbom's (131)
# and fish's (132) still pass REGISTER_LIMIT in the main program. This bound keeps them from growing.
BATCH_STEP_RE = re.compile(r"herd_step_batch_\w+$")
BATCH_REGISTER_LIMIT = 132
# A kernel's stack frame (its private arrays) lives in local memory, DRAM through L1/L2: a few
# hundred bytes stay in L1; the 2 KiB neighbour arrays the k nearest once kept did not.
STACK_LIMIT = 256
# The radius models' step kernels, one per dimension, one-world and batch (kernels/model.h's
# HERD_MODEL_ENTRY_BY_DIMS), held where they stand in the main program (bench/results/gpu-static.md)
# so that a regression fails: (pattern, registers, stack bytes), the first that matches a kernel
# applies. A world's path is followed through the guide pass (herd_path_guide, some 80 registers
# and the 256 B de Casteljau array of kernels/path.h), so no step kernel carries its search.
STEP_LIMITS = [(re.compile(p), regs, stack) for p, regs, stack in (
    (r"herd_step_batch_fish_3d$", 132, 0),
    (r"herd_step_batch_\w+_(2d|3d)$", 95, 0),
    (r"herd_step_fish_3d$", 86, 0),
    (r"herd_step_\w+_(2d|3d)$", 74, 0),
)]
# The capped program's kernels (kernels/models/steps.h, HERD_CAPPED_MODELS) are built with their
# model's register bound on NVIDIA (-cl-nv-maxrregcount: 64, fish 96): what ptxas cannot fit
# spills to local memory, which L1 holds at these sizes. At most this many bytes stored + loaded
# (the first pattern that matches; held where they stand), and a stack of at most STACK_LIMIT.
# Couzin's and the fish's zone sums written once for the CPU's lanes and the GPU (kernels/lanes.h)
# took 112 -> 116 B and 252 -> 264 B, where their 2D kernels stopped spilling and their uncapped
# kernels lost 2-6 registers. The sated fish's flag (it ignores food) took the fish's 264 -> 268 B
# (its stack 104 -> 96 B).
CAPPED_SPILL_LIMITS = [(re.compile(p), spilled) for p, spilled in (
    (r"herd_step_batch_fish_3d$", 268),
    (r"herd_step_(batch_)?couzin_3d$", 116),
    (r"herd_step_", 16),
)]
LOCAL_LIMIT = 28 * 1024  # OpenCL 1.2 guarantees 32 KiB per group; 4 KiB stay for the driver
# Kernels whose group the host sizes by the device's local memory (cl_backend.c,
# choose_small_group: herd_grid_small at 1024 work-items, 36 KiB, halved where less fits): built
# as for these two devices, they are held to the devices' own bounds (sm_90: 48 KiB of static
# shared memory a block; gfx90a: 64 KiB of LDS), less the driver's 4 KiB.
DEVICE_SIZED_LOCAL = re.compile(r"herd_grid_small$")
DEVICE_LOCAL_LIMIT = {"sm_90": 44 * 1024, "gfx90a": 60 * 1024}
STEERING = (1, 16)  # the partials' room: 1 to HERD_MAX_STEERING (16)
LANES = (8, 16, 32)  # the pre-pass's lanes per agent
BASE = (1, 16)  # the variant the main program is built as (its code depends on neither)
LIBCLC = "/usr/lib/clc"
TIMEOUT_S = 900

# A struct member of these types is laid out alike by C on x86-64 and by OpenCL C on GPUs.
PORTABLE_TYPES = {"float", "herd_u32", "herd_i32", "herd_u64", "herd_i64", "herd_choice"}


def fail(message):
    print("test_gpu_compile: " + message, file=sys.stderr)
    sys.exit(2)


def find_tools():
    """{name: path} of the compilers, or exit 77 saying what is missing."""
    tools = {
        "clang": shutil.which("clang-14") or shutil.which("clang"),
        "ptxas": next((p for p in (os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas"),
                                   shutil.which("ptxas") or "") if p and os.access(p, os.X_OK)), None),
        "lld": shutil.which("ld.lld") or shutil.which("ld.lld-14"),
        "nvptx_bc": os.path.join(LIBCLC, "nvptx64--nvidiacl.bc"),
        "amdgcn_bc": os.path.join(LIBCLC, "amdgcn--amdhsa.bc"),
    }
    hints = {"clang": "Debian's clang-14", "ptxas": "CUDA's toolkit at /usr/local/cuda (or $CUDA_HOME)",
             "lld": "Debian's lld-14", "nvptx_bc": "Debian's libclc-14", "amdgcn_bc": "Debian's libclc-14"}
    missing = [f"{k} ({hints[k]})" for k, v in tools.items() if not v or not os.path.exists(v)]
    if missing:
        print("skipped: missing " + ", ".join(missing))
        sys.exit(77)
    return tools


def run(cmd, what, cwd=None):
    """Runs an argument vector; its output, or an exception saying what failed."""
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    return done.stdout + done.stderr


def clang_cl(tools, target, source, options, out, emit):
    """clang's OpenCL C front end for a GPU target, with libclc's builtins linked in."""
    if target == "nvptx":
        args = ["-target", "nvptx64-nvidia-nvcl", "-Xclang", "-target-cpu", "-Xclang", "sm_86"]
        builtins = tools["nvptx_bc"]
    else:
        args = ["-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-nogpulib"]
        builtins = tools["amdgcn_bc"]
    cmd = [tools["clang"], *args, "-x", "cl", "-Xclang", "-finclude-default-header", "-O3", *options.split(),
           "-Xclang", "-mlink-builtin-bitcode", "-Xclang", builtins, "-Wno-linker-warnings", emit, source, "-o", out]
    return run(cmd, f"clang ({target}) {os.path.basename(source)} {options}")


class Program:
    """One program in one variant: its source, options, and what each compiler made of it."""

    def __init__(self, name, variant, source, options):
        self.name, self.variant, self.source, self.options = name, variant, source, options
        self.tag = f"{name}-s{variant[0]}-l{variant[1]}"
        self.nv, self.amd, self.unresolved, self.link_error = {}, {}, [], None
        self.ptx_header, self.entries = "", {}  # the PTX module's first lines; {kernel: its PTX}
        self.ptxas_extra = []  # ptxas options the device's compiler gets from the build options
        self.kernels = None  # the kernels the host creates from this program (None: all)

    def label(self):
        if self.name == "capped":
            return f"capped ({' '.join(self.ptxas_extra)})"
        if self.name != "sized":
            return self.name
        return f"sized, steering {self.variant[0]}, lanes {self.variant[1]}"


def programs_of(cl_program, work):
    """Every variant of both programs: [Program]."""
    sources = {}
    for name in ("main", "sized"):
        sources[name] = os.path.join(work, f"{name}.cl")
        run([cl_program, "source", name, sources[name]], "cl_program source")

    def options(name, s, lanes, *registers):
        return run([cl_program, "options", name, str(s), str(lanes), *registers], "cl_program options").strip()

    if any(options("main", s, lanes) != options("main", *BASE) for s in STEERING for lanes in LANES):
        fail("the main program's options depend on the steering room or the lanes: give it variants")
    found = [Program("main", BASE, sources["main"], options("main", *BASE))]
    found += [Program("sized", (s, lanes), sources["sized"], options("sized", s, lanes)) for s in STEERING
              for lanes in LANES]
    by_bound = {}  # the capped program's register bound -> the kernels created from it with that bound
    for line in run([cl_program, "capped-kernels"], "cl_program capped-kernels").splitlines():
        kernel, registers = line.split()
        by_bound.setdefault(registers, set()).add(kernel)
    for registers, kernels in sorted(by_bound.items()):
        found.append(capped_program(found[0], options("capped", *BASE, registers), registers, kernels))
    return found


def capped_program(main, options, registers, kernels):
    """The main program built with a register bound (NVIDIA's -cl-nv-maxrregcount, which its
    compiler hands to ptxas as --maxrregcount) for the kernels the host creates from it, one
    variant a model's bound: clang sees the main program's options, so its PTX is the main
    program's."""
    bound = [o for o in options.split() if o.startswith("-cl-nv-")]
    rest = " ".join(o for o in options.split() if not o.startswith("-cl-nv-"))
    if rest != main.options or bound != ["-cl-nv-maxrregcount=" + registers]:
        fail(f"the capped program's options are not the main program's and its register bound {registers}: {options}")
    p = Program("capped", BASE, main.source, rest)
    p.tag += "-r" + registers
    p.ptxas_extra = ["--maxrregcount=" + registers]
    p.kernels = kernels
    return p


def take_main_ptx(programs):
    """The capped program's kernels from the main program's PTX (the same clang options)."""
    main = programs[0]
    for p in programs:
        if p.name == "capped":
            p.ptx_header, p.unresolved = main.ptx_header, main.unresolved
            p.entries = {k: t for k, t in main.entries.items() if k in p.kernels}
            if not p.entries and not main.unresolved:
                fail("none of the capped program's kernels is in the main program: " + ", ".join(sorted(p.kernels)))


def compile_nvptx(tools, p, work):
    """clang to PTX: the module's kernels, or the functions it calls but never defines."""
    ptx = os.path.join(work, p.tag + ".ptx")
    clang_cl(tools, "nvptx", p.source, p.options, ptx, "-S")
    with open(ptx) as f:
        text = f.read()
    p.unresolved = gpu_static.ptx_unresolved(text)
    if not p.unresolved:
        p.ptx_header, p.entries = gpu_static.ptx_entries(text)


def local_limit(kernel, device):
    """The local memory a kernel may take on `device` (LOCAL_LIMIT, DEVICE_SIZED_LOCAL)."""
    return DEVICE_LOCAL_LIMIT[device] if DEVICE_SIZED_LOCAL.match(kernel) else LOCAL_LIMIT


def amd_variant(p):
    """The variants compiled for amdgcn: the main program, and the sized one at the extremes of
    local memory (16 steering agents with 8 lanes, 1 with 32). ptxas sees every variant."""
    if p.name == "capped":  # amdgcn has no register bound the host passes
        return False
    return p.name != "sized" or p.variant in ((STEERING[-1], LANES[0]), (STEERING[0], LANES[-1]))


def compile_amdgcn(tools, p, work):
    asm = os.path.join(work, p.tag + ".s")
    clang_cl(tools, "amdgcn", p.source, p.options, asm, "-S")
    with open(asm) as f:
        p.amd = gpu_static.parse_amdgpu(f.read())
    try:  # assembled and linked into a code object: an undefined function stops lld
        run([tools["clang"], "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx90a", asm, "-o", asm + ".co"], "lld (amdgcn)")
    except RuntimeError as e:  # lld's own line names the symbol
        lines = str(e).splitlines()
        p.link_error = next((l for l in lines if "undefined" in l), lines[-1])


def ptxas_entries(tools, ptx_text, names, work, tag, extra=()):
    """ptxas -v for sm_90 on the named entries of one module: {kernel: figures}."""
    path = os.path.join(work, tag + ".ptx")
    with open(path, "w") as f:
        f.write(ptx_text)
    cmd = [tools["ptxas"], "-v", "--gpu-name", "sm_90", *extra, "-o", path + ".cubin", path]
    for n in names:
        cmd += ["--entry", n]
    return gpu_static.parse_ptxas(run(cmd, f"ptxas {tag}"))


def assemble_distinct(tools, pool, programs, work):
    """Each distinct kernel (name, PTX text and ptxas options) assembled once, with the module it
    came from; its figures go to every variant that has that text. The big kernels alone, the
    rest in chunks, all in parallel."""
    distinct = {}  # (name, text, ptxas options) -> [program]
    for p in programs:
        for name, text in p.entries.items():
            distinct.setdefault((name, text, tuple(p.ptxas_extra)), []).append(p)
    jobs = []  # (program, [kernel name])
    for p in programs:
        mine = sorted((k for k in distinct if distinct[k][0] is p), key=lambda k: -len(k[1]))
        chunk, size = [], 0
        for name, text, _ in mine:
            if len(text) > 200_000:
                jobs.append((p, [name]))
                continue
            chunk.append(name)
            size += len(text)
            if size > 400_000:
                jobs.append((p, chunk))
                chunk, size = [], 0
        if chunk:
            jobs.append((p, chunk))

    def assemble(i, job):
        p, names = job
        text = p.ptx_header + "\n".join(p.entries[n] for n in names)
        return p, ptxas_entries(tools, text, names, work, f"ptxas-{i}", p.ptxas_extra)

    for p, figures in pool.map(lambda ij: assemble(*ij), enumerate(jobs)):
        for name, f in figures.items():
            for q in distinct[(name, p.entries[name], tuple(p.ptxas_extra))]:
                q.nv[name] = f


def check(programs):
    """Every failure, as lines saying where and what."""
    problems = []
    for p in programs:
        where = p.label()
        if p.unresolved:
            problems.append(f"{where}: nvptx: called but never defined: {', '.join(p.unresolved)}")
        if p.link_error:
            problems.append(f"{where}: amdgcn: does not link: {p.link_error.strip()}")
        for k, f in sorted(p.nv.items()):
            if p.name == "capped":
                problems += check_capped(where, k, f)
                continue
            if f["spill_stores"] or f["spill_loads"]:
                problems.append(f"{where}: {k}: spills on sm_90 ({f['spill_stores']} B stored, "
                                f"{f['spill_loads']} B loaded)")
            limit = BATCH_REGISTER_LIMIT if BATCH_STEP_RE.match(k) else REGISTER_LIMIT
            stack_limit = None
            for pattern, regs, stack in STEP_LIMITS:
                if pattern.match(k):
                    limit, stack_limit = regs, stack
                    break
            if f["registers"] > limit:
                problems.append(f"{where}: {k}: {f['registers']} registers on sm_90, at most {limit}")
            stack_cap = STACK_LIMIT if stack_limit is None else min(stack_limit, STACK_LIMIT)
            if f["stack"] > stack_cap:
                problems.append(f"{where}: {k}: a stack of {f['stack']} B on sm_90, at most {stack_cap}")
            local_cap = local_limit(k, "sm_90")
            if f["smem"] > local_cap:
                problems.append(f"{where}: {k}: {f['smem']} B of local memory on sm_90, at most {local_cap}")
        for k, a in sorted(p.amd.items()):
            if a["vgpr_spills"]:  # to scratch memory (SGPRs spill into VGPR lanes: no memory)
                problems.append(f"{where}: {k}: spills {a['vgpr_spills']} VGPRs on gfx90a")
            local_cap = local_limit(k, "gfx90a")
            if a["lds"] > local_cap:
                problems.append(f"{where}: {k}: {a['lds']} B of local memory on gfx90a, at most {local_cap}")
        missing = sorted(set(p.amd) - set(p.nv))
        if missing and not p.unresolved and amd_variant(p):
            problems.append(f"{where}: no ptxas figures for {', '.join(missing)}")
    return problems


def check_capped(where, k, f):
    """A kernel of the capped program: within its bound (ptxas keeps to it), spilling at most its
    CAPPED_SPILL_LIMITS bytes (stored + loaded) for it, through L1, with a stack of at most
    STACK_LIMIT."""
    problems = []
    spilled = f["spill_stores"] + f["spill_loads"]
    limit = next((n for pattern, n in CAPPED_SPILL_LIMITS if pattern.match(k)), 0)
    if spilled > limit:
        problems.append(f"{where}: {k}: spills {spilled} B on sm_90 under its register bound, at most {limit}")
    if f["stack"] > STACK_LIMIT:
        problems.append(f"{where}: {k}: a stack of {f['stack']} B on sm_90, at most {STACK_LIMIT}")
    return problems


def variants_text(group):
    """The variants of the sized program in `group`, in few words: a size that takes every value
    is left out."""
    steering = sorted({p.variant[0] for p in group})
    lanes = sorted({p.variant[1] for p in group})
    if group[0].name != "sized":
        return group[0].label()
    words = ["sized"]
    if len(group) == len(steering) * len(lanes):  # a product: say each size once
        if steering != list(STEERING):
            words.append("steering " + ", ".join(map(str, steering)))
        if lanes != list(LANES):
            words.append("lanes " + ", ".join(map(str, lanes)))
        return ", ".join(words) if len(words) > 1 else "sized (every variant)"
    return "; ".join(p.label() for p in group)


def figures_key(p, k):
    return tuple(sorted(p.nv[k].items()))


def table(programs, tools_line):
    """The Markdown table of every kernel: one row per kernel and distinct figures."""
    lines = [
        "# herd's OpenCL kernels as GPU compilers see them",
        "",
        "Written by `tests/gpu_compile.py` (ctest `test_gpu_compile`) on every run of the test suite:",
        "the programs exactly as the OpenCL backend builds them (embedded source, same options),",
        "compiled by clang 14 for `nvptx64-nvidia-nvcl` with libclc, assembled by `ptxas -v` for",
        "sm_90 (H100/H200), and for `amdgcn-amd-amdhsa` gfx90a (MI200). NVIDIA's own OpenCL",
        "compiler is not clang, so its figures may differ; these are the ones a clang-based GPU",
        "compiler gives, checked: no function called but undefined, no spill to memory, a stack",
        f"of at most {STACK_LIMIT} B, local memory at most {LOCAL_LIMIT} B (`herd_grid_small`, whose group",
        "the host sizes by the device: the device's own, "
        + ", ".join(f"{d} {v} B" for d, v in DEVICE_LOCAL_LIMIT.items())
        + f"), at most {REGISTER_LIMIT}",
        f"registers on sm_90 (the batch step kernels: at most {BATCH_REGISTER_LIMIT}; the radius models'",
        "step kernels: each its own bound, `STEP_LIMITS` in the test). The step kernels of boids,",
        "Couzin, NetLogo (64) and fish (96) that an NVIDIA GPU builds with a register bound are listed",
        "again as the capped program gives them, with the bytes they spill (`CAPPED_SPILL_LIMITS`).",
        "",
        tools_line,
        "",
        "- *regs*, *stack*, *spills*, *smem*: ptxas's registers per work-item, stack frame (private",
        "  arrays: local memory, i.e. DRAM through L1/L2), bytes spilled (stored + loaded) and static",
        "  shared memory in bytes.",
        "- *occ.*: theoretical occupancy on sm_90 (resident warps of the 64 an SM holds) for the",
        "  kernel's work-group size (*wg*), from registers and shared memory (CUDA's calculator).",
        "- *VGPRs*, *SGPRs*, *scratch*, *LDS*, *waves*: clang's gfx90a figures (waves per SIMD, of 8);",
        "  *SGPR sp.*: SGPRs spilled into VGPR lanes (no memory traffic; VGPR spills would fail).",
        "",
        "| kernel | program | regs | stack | spills | smem | wg | occ. sm_90 | VGPRs | SGPRs | SGPR sp. | scratch | LDS | waves |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    rows = {}  # (kernel, ptxas figures) -> [program]
    groups = {}  # kernel -> its work-group size (reqd_work_group_size, from the amdgcn metadata)
    for p in programs:
        for k in p.nv:
            rows.setdefault((k, figures_key(p, k)), []).append(p)
        for k, a in p.amd.items():
            groups[k] = a.get("group") or 64
    order = {"main": 0, "sized": 1, "capped": 2}
    for (k, _), group in sorted(rows.items(), key=lambda r: (order.get(r[1][0].name, 3), r[0][0], r[1][0].variant)):
        p = group[0]
        f = p.nv[k]
        a = next((q.amd[k] for q in group if k in q.amd), {})  # amdgcn: the variants compiled for it
        wg = groups.get(k, 64)
        occ = gpu_static.sm90_occupancy(f["registers"], f["smem"], wg)
        spills = f["spill_stores"] + f["spill_loads"] + a.get("vgpr_spills", 0)
        lines.append(f"| `{k}` | {variants_text(group)} | {f['registers']} | {f['stack']} | {spills} | {f['smem']} | "
                     f"{wg} | {occ:.0%} | {a.get('vgprs', '')} | {a.get('sgprs', '')} | {a.get('sgpr_spills', '')} | "
                     f"{a.get('scratch', '')} | {a.get('lds', '')} | {a.get('occupancy', '')} |")
    return "\n".join(lines) + "\n"


# ---- Layouts: every struct a kernel takes (by value or through a buffer) ----------------------


def shared_structs(programs, device_structs):
    """The structs that cross between host and device: the kernels' argument types and the
    structs inside them."""
    names = set()
    for p in programs:
        for kernel in p.amd.values():
            for type_name, _ in kernel["args"]:
                names.add(type_name.rstrip("*").strip())
    todo, shared = [n for n in names if n in device_structs], set()
    while todo:
        n = todo.pop()
        if n in shared:
            continue
        shared.add(n)
        todo += [t for t, _, _ in device_structs[n] if t in device_structs]
    return sorted(shared)


def layout_problems(tools, host_cc, kernels_dir, programs, work):
    """Member types that are not portable, and every size, alignment and offset that differs
    between the host (host_cc, as the CPU backend compiles the headers) and nvptx64/amdgcn."""
    problems = []
    for p in [q for q in programs if amd_variant(q)]:  # the kernels' argument types come from amdgcn
        pre = run([tools["clang"], "-target", "nvptx64-nvidia-nvcl", "-x", "cl", "-Xclang",
                   "-finclude-default-header", "-E", "-P", *p.options.split(), p.source], "clang -E")
        device = gpu_static.structs(pre)
        shared = shared_structs([p], device)
        for s in shared:
            for t, m, _ in device[s]:
                if t not in PORTABLE_TYPES and t not in shared:
                    problems.append(f"{p.label()}: {s}.{m} is a {t}: host and device may lay it out apart "
                                    f"(use {', '.join(sorted(PORTABLE_TYPES))} or a shared struct)")
        figures = host_layout(host_cc, kernels_dir, p, device, shared, work)
        problems += device_layout_problems(tools, p, figures, work)
    return problems


def layout_queries(device, shared):
    """(label, C expression) of every size, alignment and member offset to compare."""
    queries = []
    for s in shared:
        queries.append((f"sizeof({s})", f"sizeof({s})"))
        queries.append((f"_Alignof({s})", f"__alignof__({s})"))
        for _, m, _ in device[s]:
            queries.append((f"offsetof({s}, {m})", f"__builtin_offsetof({s}, {m})"))
    return queries


def host_layout(host_cc, kernels_dir, p, device, shared, work):
    """{label: value} as the host's C compiler lays the structs out, with the program's -D."""
    queries = layout_queries(device, shared)
    c = os.path.join(work, p.tag + "-layout.c")
    with open(c, "w") as f:
        f.write('#include <stdio.h>\n#include "models/steps.h"\n#include "reduce.h"\n#include "groups.h"\n')
        f.write("int main(void) {\n")
        for label, expr in queries:
            f.write(f'  printf("%s %zu\\n", "{label}", (size_t)({expr}));\n')
        f.write("  return 0;\n}\n")
    exe = c[:-2]
    defines = [o for o in p.options.split() if o.startswith("-D")]
    run([host_cc, "-std=c11", "-DHERD_LAYER_BACKEND", "-I", kernels_dir, *defines, c, "-o", exe, "-lm"],
        "host layout compile")
    out = run([exe], "host layout")
    return dict(line.rsplit(" ", 1) for line in out.splitlines())


def device_layout_problems(tools, p, figures, work):
    """Compiles the program with a static check per figure for both GPU targets."""
    with open(p.source) as f:
        source = f.read()
    checks = []
    for i, (label, value) in enumerate(sorted(figures.items())):
        expr = label.replace("_Alignof(", "__alignof__(").replace("offsetof(", "__builtin_offsetof(")
        checks.append(f"typedef char herd_layout_{i}[({expr}) == {value} ? 1 : -1]; /* {label} == {value} */")
    path = os.path.join(work, p.tag + "-layout.cl")
    with open(path, "w") as f:
        f.write(source + "\n" + "\n".join(checks) + "\n")
    problems = []
    for target in ("nvptx", "amdgcn"):
        try:
            clang_cl(tools, target, path, p.options, os.devnull, "-fsyntax-only")
        except RuntimeError as e:
            bad = sorted(set(re.findall(r"herd_layout_(\d+)", str(e))), key=int)
            labels = sorted(figures.items())
            for i in bad:
                label, value = labels[int(i)]
                problems.append(f"{p.label()}: {target}: {label} is not {value} as on the host")
            if not bad:
                problems.append(f"{p.label()}: {target}: the layout check does not compile: {e}")
    return problems


# ---- Planted faults: the checks must see them ----------------------------------------------

PLANTS = {
    "inline": """
inline __attribute__((noinline)) float herd_planted_helper(float x) { return x * 2.0f + 1.0f; }
__kernel void herd_planted(__global float *out) { out[get_global_id(0)] = herd_planted_helper(out[0]); }
""",
    "local": """
__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void herd_planted(__global float *out) {
  __local float big[10240]; /* 40 KiB */
  big[get_local_id(0)] = out[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[get_global_id(0)] = big[(get_local_id(0) * 160u) % 10240u];
}
""",
}


def planted(tools, name, work):
    source = os.path.join(work, f"planted-{name}.cl")
    with open(source, "w") as f:
        f.write(PLANTS[name])
    p = Program("planted " + name, BASE, source, "-cl-std=CL1.2")
    compile_nvptx(tools, p, work)
    compile_amdgcn(tools, p, work)
    for k, text in p.entries.items():
        p.nv.update(ptxas_entries(tools, p.ptx_header + text, [k], work, p.tag.replace(" ", "-")))
    return check([p])


# ---- Main ------------------------------------------------------------------------------------


def collapse(failures):
    """The same failure of a kernel in several variants, said once with the variants named."""
    merged = {}
    for line in failures:
        where, _, what = line.partition(": ")
        merged.setdefault(what, []).append(where)
    return [f"{' / '.join(dict.fromkeys(wheres))}: {what}" for what, wheres in merged.items()]



def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cl-program", required=True, help="tests/cl_program, built")
    ap.add_argument("--host-cc", required=True, help="the C compiler the CPU backend is built with")
    ap.add_argument("--kernels", required=True, help="the kernels/ folder")
    ap.add_argument("--table", help="where to write the table (Markdown)")
    ap.add_argument("--work", help="a folder for the compilers' files (default: a temporary one)")
    ap.add_argument("--plant", choices=sorted(PLANTS), action="append", default=[],
                    help="also compile a planted fault, which must fail the checks")
    args = ap.parse_args()
    tools = find_tools()
    work = args.work or tempfile.mkdtemp(prefix="herd-gpu-")
    os.makedirs(work, exist_ok=True)
    started = time.time()
    programs = programs_of(args.cl_program, work)
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        # The main program first in each compiler: it takes the longest.
        nv = [pool.submit(compile_nvptx, tools, p, work) for p in programs if p.name != "capped"]
        amd = [pool.submit(compile_amdgcn, tools, p, work) for p in programs if amd_variant(p)]
        plants = {name: pool.submit(planted, tools, name, work) for name in args.plant}
        for f in nv:
            f.result()
        take_main_ptx(programs)
        assemble_distinct(tools, pool, programs, work)
        for f in amd:
            f.result()
        failures += check(programs)
        failures += layout_problems(tools, args.host_cc, args.kernels, programs, work)
        for name, f in plants.items():
            found = f.result()
            if found:
                print(f"planted {name}: caught: {found[0]}")
            else:
                failures.append(f"planted {name}: the checks did not catch it")
    elapsed = time.time() - started
    versions = run([tools["clang"], "--version"], "clang --version").splitlines()[0]
    ptxas = run([tools["ptxas"], "--version"], "ptxas --version").strip().splitlines()[-1]
    if args.table:
        text = table(programs, f"Compilers: {versions}; ptxas {ptxas}.")
        tmp = args.table + ".part"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.table)
    kernels = sum(len(p.nv) for p in programs)
    print(f"{len(programs)} program variants, {kernels} kernels compiled in {elapsed:.0f} s")
    for line in collapse(failures):
        print("FAILED: " + line)
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
