"""What GPU compilers say of herd's OpenCL programs (tests/gpu_compile.py): the parsers of
ptxas -v and of clang's AMDGPU assembly, the theoretical occupancy of a kernel on an NVIDIA
H100/H200 (sm_90), and the C struct definitions of a preprocessed program."""

import re

# ---- NVIDIA: PTX and ptxas -------------------------------------------------------------------

ENTRY_RE = re.compile(r"^\.(?:visible )?\.?entry (\w+)\(", re.M)
FUNC_DEF_RE = re.compile(r"^(?:\.visible |\.weak )?\.func\b[^;{]*\{", re.M)


def _braced(ptx, start):
    """ptx[start:end] up to the brace that closes the first one after start."""
    depth, i = 0, ptx.index("{", start)
    while True:
        depth += ptx[i] == "{"
        depth -= ptx[i] == "}"
        i += 1
        if depth == 0:
            return ptx[start:i]


def ptx_entries(ptx):
    """(prefix, {kernel: its PTX}): each kernel from `.entry` to the end of its body, and what
    any of them may need beside it (the module's header and global declarations, and every
    function defined in it), so that prefix + one kernel assembles alone."""
    entries = {m.group(1): _braced(ptx, m.start()) for m in ENTRY_RE.finditer(ptx)}
    first = ENTRY_RE.search(ptx)
    prefix = ptx[: first.start()] if first else ptx
    functions = [_braced(ptx, m.start()) for m in FUNC_DEF_RE.finditer(ptx) if m.start() > (first.start() if first else 0)]
    return prefix + "\n".join(functions) + "\n", entries


FUNC_RE = re.compile(r"^(?:\.visible |\.extern |\.weak )?\.func\s*(?:\([^)]*\)\s*)?(\w+)\s*(?:\([^)]*\))?\s*([;{])", re.M)


def ptx_unresolved(ptx):
    """Functions a PTX module declares but never defines: calls to nothing (a C99 `inline`
    function the compiler did not inline), which ptxas refuses."""
    heads = FUNC_RE.findall(ptx)
    defined = {name for name, end in heads if end == "{"}
    return sorted({name for name, end in heads if end == ";"} - defined)


def parse_ptxas(log):
    """{kernel: {registers, stack, spill_stores, spill_loads, smem}} from `ptxas -v`."""
    kernels, props, current, function = {}, {}, None, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"Function properties for (\w+)", line)
        if m:
            function = m.group(1)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and function:
            props[function] = [int(v) for v in m.groups()]
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            smem = re.search(r"(\d+) bytes smem", line)
            stack, stores, loads = props.get(current, [0, 0, 0])
            kernels[current] = {
                "registers": int(m.group(1)),
                "stack": stack,
                "spill_stores": stores,
                "spill_loads": loads,
                "smem": int(smem.group(1)) if smem else 0,
            }
            current = None
    return kernels


# sm_90 (H100 and H200 have the same SM), from CUDA's occupancy calculator: 64 warps, 32 blocks,
# 65,536 registers (allotted per warp in units of 256) and 228 KiB of shared memory (in units of
# 128 B, 1 KiB of it reserved per block by the runtime) per SM.
SM90 = {"warps": 64, "blocks": 32, "registers": 65536, "register_unit": 256, "smem": 228 * 1024,
        "smem_unit": 128, "smem_reserved": 1024}


def sm90_occupancy(registers, smem, group):
    """Resident warps per SM over the 64 it holds, for blocks of `group` work-items."""
    warps = -(-group // 32)
    per_warp = -(-registers * 32 // SM90["register_unit"]) * SM90["register_unit"]
    by_registers = (SM90["registers"] // per_warp) // warps if per_warp else SM90["blocks"]
    per_block = -(-(smem + SM90["smem_reserved"]) // SM90["smem_unit"]) * SM90["smem_unit"]
    by_smem = SM90["smem"] // per_block
    blocks = min(SM90["blocks"], SM90["warps"] // warps, by_registers, by_smem)
    return blocks * warps / SM90["warps"]


# ---- AMD: clang's assembly for amdgcn --------------------------------------------------------


def parse_amdgpu(asm):
    """{kernel: {vgprs, agprs, sgprs, scratch, lds, vgpr_spills, sgpr_spills, group, occupancy,
    args}} from the code object metadata and the kernel-info comments of `clang -S`."""
    kernels = {}
    meta = asm[asm.index("amdhsa.kernels:"):]
    for block in re.split(r"\n  - \.args:", meta)[1:]:
        name = re.search(r"\n    \.name:\s+(\w+)", block).group(1)

        def value(key):
            m = re.search(r"\n    \.%s:\s+(\d+)" % key, block)
            return int(m.group(1)) if m else 0

        group = re.search(r"\.reqd_workgroup_size:\s*\n\s+- (\d+)", block)
        args = re.findall(r"\.type_name:\s+'?([\w ]+\*?)'?\s*\n\s+\.value_kind:\s+(\w+)", block)
        kernels[name] = {
            "vgprs": value("vgpr_count"),
            "agprs": value("agpr_count"),
            "sgprs": value("sgpr_count"),
            "scratch": value("private_segment_fixed_size"),
            "lds": value("group_segment_fixed_size"),
            "vgpr_spills": value("vgpr_spill_count"),
            "sgpr_spills": value("sgpr_spill_count"),
            "group": int(group.group(1)) if group else None,
            "args": args,
        }
    for m in re.finditer(r"\.size\s+(\w+), \.Lfunc_end\d+-\w+\n(?:.*\n){0,40}?; Occupancy: (\d+)", asm):
        if m.group(1) in kernels:
            kernels[m.group(1)]["occupancy"] = int(m.group(2))
    return kernels


# ---- Struct layouts ------------------------------------------------------------------------

STRUCT_RE = re.compile(r"typedef struct (\w+)\s*\{([^{}]*)\}\s*\1\s*;")


def structs(preprocessed):
    """{name: [(member type, member name, array dimensions text)]} of every
    `typedef struct NAME {...} NAME;` without nested braces in preprocessed C; a pointer
    member's type ends in `*`."""
    found = {}
    for m in STRUCT_RE.finditer(preprocessed):
        members = []
        for decl in m.group(2).split(";"):
            parts = " ".join(decl.split()).split(",")
            if not parts[0]:
                continue
            first = re.match(r"(.*?)\s*(\**)\s*(\w+)\s*((?:\[[^\]]*\])*)$", parts[0])
            base = first.group(1)
            for pointer, name, length in [first.groups()[1:]] + [
                    re.match(r"\s*(\**)\s*(\w+)\s*((?:\[[^\]]*\])*)$", d).groups() for d in parts[1:]]:
                members.append((base + pointer, name, length))
        found[m.group(1)] = members
    return found
