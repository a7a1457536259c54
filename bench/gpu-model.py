#!/usr/bin/env python3
"""Predicts herd's time per step on one NVIDIA H200 for the three GPU targets, kernel by kernel.

    bench/gpu-model.py BUILD/herd [--static bench/results/gpu-static.md] [--work DIR] [--out FILE.md] [--only TEXT]

For each target case it
  1. runs the case on this machine's OpenCL device (PoCL) with HERD_CL_TRACE, and takes one
     step's commands from the trace: every kernel with its work-items and group size, every
     non-blocking copy, every host wait (the slices herd run cuts a long kernel into on a CPU
     device, each followed by a clFinish, are joined back into one launch: a GPU step is not cut);
  2. runs it for one step on the CPU backend with --trajectories and counts, from the flock's
     positions, the candidates each agent's query visits (the same cells the kernels read);
  3. prices each kernel on the H200 from the GPU compile table (registers, shared memory and so
     occupancy; stack = private arrays in local memory) and the bytes it moves, and adds the
     launches and waits.

Every constant below is an assumption, named and sourced in bench/results/gpu-model.md, and
is to be checked against the first real measurement (bench/gpu-kit.sh): the model is a
roofline with a latency floor, not a simulator. Needs /usr/bin/python3 (numpy, h5py).
"""
import argparse
import math
import os
import re
import subprocess
import sys

import h5py
import numpy as np

# ---- The device (NVIDIA H200 SXM; datasheet figures) ----------------------------------------
SMS = 132                 # streaming multiprocessors (H100/H200 SXM: GH100 with 132 SMs)
CLOCK_HZ = 1.98e9         # boost clock
LANES_PER_SM = 128        # 4 sub-partitions x 32 lanes: one warp instruction each per clock
DRAM_BPS = 4.8e12 * 0.85  # HBM3e 4.8 TB/s, of which a streaming kernel reaches about 85 %
L2_BPS = 6.0e12           # L2 hit bandwidth (H100 measurements: 5.5-7 TB/s)
LAUNCH_S = 5e-6           # one enqueued command on an in-order queue (the issue's figure)
WAIT_S = 15e-6            # a host wait: the event's completion seen by the host plus the read
HOST_STEP_S = 3e-6        # the host's own work per step (steering, observation, bookkeeping)
HIDE_OCCUPANCY = 0.5      # occupancy at which a loop of dependent global loads hides its latency
DIVERGENCE = 0.75         # lanes busy in a loop whose trip count differs between agents

# ---- The work, in thread instructions (from the kernels' inner loops, kernels/grid.h) ---------
INSTR_AGENT = 300         # per agent: its state, random numbers, the model's update, its stores
INSTR_KNN_CANDIDATE = 24  # a k-nearest candidate: load, distance, compare, heap insert (amortised)
INSTR_RADIUS_CANDIDATE = 40  # a radius candidate: load, wrapped delta, distance, the model's sums
INSTR_SORT_KEY = 40       # a key through one radix pass (count, scan share, scatter)
COOP_WALK_STEPS = 84      # the pre-pass's histogram walk per sheep: 450 steps by one lane before issue 26
#                           (its count); now 48 steps a pass instead of 256 (the lanes share it)
KNN_SELECT_WALKS = 10     # walks over the candidates of a k-nearest selection without a private array
#                           (4-bit radix passes plus the count and the final sum: 8-13)
CAPPED_SPILL_RUNS = {2: 3, 3: 9}  # a kernel built under a register bound reloads what it spilled once per
#                           run of candidates (a row of cells: 3 in 2D, 9 in 3D), not per candidate (an
#                           assumption: ptxas spills values the candidate loop does not touch first)
SERIAL_STORE_S = 1.5e-9   # one iteration of a loop that a single work-item runs alone (a store each)
LOAD_LATENCY_S = 0.5e-6   # a global load that misses the caches, waited for by its warp: a loop
#                           whose each iteration needs its load (the reductions' agents, the last
#                           group's fold of the partials) is that many in a row when the device
#                           has too few warps to hide them (an assumption: 400-600 ns published
#                           for Hopper's HBM; the kit measures it)


def run(cmd, env=None, **kw):
    full = dict(os.environ, **(env or {}))
    return subprocess.run(cmd, env=full, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


# ---- The cases: the device kit's own commands (bench/gpu-kit-run.sh) ---------------------------
def cases(repo):
    all_active = [os.path.join(repo, 'bench/all-active.json'), '--set', 'sheep.count=1000000',
                  '--set', 'field.size_m=6000']
    boids3d = ['--set', 'model=boids', '--set', 'boids.count=1000000', '--set', 'world.size_m=[2375,2375,2375]',
               '--set', 'world.wrap=[true,true,true]']
    herding = ['--set', 'sheep.count=10000']
    return [
        dict(name='Strömbom all-active, N = 10^6 (k = 50)', args=all_active, kind='knn', dims=2, goal_s=1e-3,
             active='all', env={'HERD_CL_COOP': '1'}, r_a=2.0, k=50, cell_m=4.0),
        dict(name='boids 3D, N = 10^6', args=boids3d, kind='radius', dims=3, goal_s=0.2e-3, cell_m=40.0,
             wrap=True, size=2375.0, env={}),
        dict(name='herding, N = 10^4 with its dog', args=herding, kind='knn', dims=2, goal_s=50e-6, active='dog',
             env={'HERD_CL_COOP': '1'}, r_a=2.0, k=50, r_s=65.0, cell_m=4.0, settle_steps=2000, every_steps=100),
        # The massive herding scenarios with their teams (sheep attracted to the whole flock: the
        # r_a query alone), priced at the step of their run so far whose queries visit the most
        # candidates (the flock packed). The goal, 1 ms (a thousand steps a second), is ours.
        dict(name='herding-10k, 16 dogs by sectors', args=[os.path.join(repo, 'scenarios/herding-10k.json')],
             kind='radius', dims=2, goal_s=1e-3, env={}, r_s=65.0, cell_m=4.0, settle_steps=3000, every_steps=250,
             pick='densest'),
        dict(name='herding-100k, 64 dogs in a ring', args=[os.path.join(repo, 'scenarios/herding-100k.json')],
             kind='radius', dims=2, goal_s=1e-3, env={}, r_s=65.0, cell_m=4.0, settle_steps=4000,
             every_steps=500, pick='densest'),
    ]


# ---- 1. One step's commands from the trace -----------------------------------------------------
def trace_step(herd, case, work):
    path = os.path.join(work, re.sub(r'\W+', '-', case['name']) + '.trace')
    if os.path.exists(path):
        os.remove(path)
    # the reductions and a small flock's one-group grid sized as on a GPU (cl_backend.h,
    # herd_cl_reduce_per_item, HERD_CL_SMALL_GROUP_GPU), not as on PoCL
    env = dict(case['env'], HERD_CL_REDUCE='gpu', HERD_CL_SMALL_GROUP='gpu', HERD_CL_TRACE=path,
               POCL_CACHE_DIR=os.path.join(work, 'pocl'))
    run([herd, 'run', *case['args'], '--backend', 'opencl', '-s', '3', '-q'], env=env)
    steps, current = [], None
    for line in open(path):
        word = line.split()
        if word[0] == 'step':
            current = []
            steps.append(current)
        elif current is not None and word[0] != 'time':  # device times: with --profile only
            current.append(word)
    return join_slices(steps[1])  # the middle one: the first and last hold the run's start and end


def join_slices(lines):
    """The step's commands as a GPU runs them. On a slow device herd run looks at Ctrl-C between
    the grid's stages and between slices of a long kernel, each look a clFinish (cl_grid.c
    stage_break, cl_backend.c step_slice); a step under SLOW_STEP_S has none. So every
    "wait finish" inside a step is dropped and the slices of a kernel are joined."""
    out = []
    for word in lines:
        if word[0] == 'wait' and word[1] == 'finish':
            if out and out[-1][0] == 'kernel':
                out[-1][4] = True  # the next launch of the same kernel is its next slice
            continue
        if word[0] == 'kernel' and out and out[-1][0] == 'kernel' and out[-1][1] == word[1] and out[-1][4]:
            out[-1][2] += int(word[2])
            continue
        if out and out[-1][0] == 'kernel':
            out[-1][4] = False
        out.append([word[0], word[1], int(word[2]), int(word[3]), False] if word[0] == 'kernel' else word)
    return out


# ---- 2. Candidates per agent, from the flock's positions ----------------------------------------
def positions(herd, case, work):
    path = os.path.join(work, re.sub(r'\W+', '-', case['name']) + '.h5')
    steps, every = case.get('settle_steps', 1), case.get('every_steps', 1)
    run([herd, 'run', *case['args'], '--backend', 'cpu', '-s', str(steps), '-q', '--force', '--trajectories', path,
         '--set', 'output.trajectories.every_steps=%d' % every])
    with h5py.File(path, 'r') as f:
        frames = np.asarray(f['positions'], dtype=np.float64)
        dogs = np.asarray(f['steering/positions'], dtype=np.float64) if 'steering/positions' in f else None
    if case.get('pick') == 'densest':
        # The frame whose r_a queries visit the most candidates: a packed flock's step costs most.
        # Penned sheep (sheep.success = remove_delivered) stand far off, in no query: left out.
        frames = [p[np.all(np.abs(p) < 1e7, axis=1)] for p in frames]
        load = [radius_candidates(p, case).sum() if len(p) else 0 for p in frames]
        pick = int(np.argmax(load))
        return frames[pick], dogs[pick] if dogs is not None else None
    if dogs is None or 'r_s' not in case:
        return frames[-1], None
    # The frame with the most sheep within r_s of a dog: the step that costs most.
    near = [(np.linalg.norm(p[:, None, :] - d[None, :, :2], axis=2).min(axis=1) < case['r_s']).sum()
            for p, d in zip(frames, dogs)]
    pick = int(np.argmax(near))
    return frames[pick], dogs[pick]


def cell_counts(pos, cell_m):
    cells = np.floor((pos - pos.min(axis=0)) / cell_m).astype(np.int64)
    shape = tuple(cells.max(axis=0) + 1)
    grid = np.zeros(shape, dtype=np.int64)
    np.add.at(grid, tuple(cells.T), 1)
    return cells, grid


def block_sums(grid, r, wrap):
    """Agents in the (2r+1)^d block of cells about each cell."""
    total = np.zeros_like(grid)
    for axis_shifts in np.ndindex(*(2 * r + 1,) * grid.ndim):
        shifted = grid
        for axis, s in enumerate(axis_shifts):
            if wrap:
                shifted = np.roll(shifted, s - r, axis=axis)
            else:
                shifted = shift_zero(shifted, s - r, axis)
        total = total + shifted
    return total


def shift_zero(a, s, axis):
    out = np.zeros_like(a)
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    if s > 0:
        src[axis], dst[axis] = slice(0, a.shape[axis] - s), slice(s, None)
    elif s < 0:
        src[axis], dst[axis] = slice(-s, None), slice(0, a.shape[axis] + s)
    out[tuple(dst)] = a[tuple(src)]
    return out


def knn_candidates(pos, case):
    """The square of cells a k-nearest search gathers: the smallest block about the agent's cell
    holding k + 1 agents (itself included) - a lower bound, as the search opens one ring more
    when the k-th distance passes the square's clearance - and the 3 x 3 block of the r_a
    repulsion query."""
    cells, grid = cell_counts(pos, case['cell_m'])
    need = case['k'] + 1
    chosen, ring = np.zeros(len(pos)), np.zeros(len(pos), dtype=np.int64)
    for r in range(0, 40):
        sums = block_sums(grid, r, False)[tuple(cells.T)]
        pick = (chosen == 0) & (sums >= need)
        chosen[pick], ring[pick] = sums[pick], r
        if (chosen > 0).all():
            break
    chosen[chosen == 0], ring[chosen == 0] = len(pos), 40
    repulsion = block_sums(grid, 1, False)[tuple(cells.T)]
    return chosen, ring, repulsion


def radius_candidates(pos, case):
    cells, grid = cell_counts(pos, case['cell_m'])
    return block_sums(grid, 1, case.get('wrap', False))[tuple(cells.T)]


# ---- 3. Prices -----------------------------------------------------------------------------
def static_table(path):
    """{kernel: figures}: each kernel's first row, but the capped program's where it has one (an
    NVIDIA GPU creates those kernels from it: kernels/models/steps.h, HERD_CAPPED_MODELS)."""
    rows = {}
    for line in open(path):
        m = re.match(r'\| `(\w+)` \| ([^|]+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+)% \|', line)
        capped = bool(m) and m.group(2).startswith('capped')
        if m and (m.group(1) not in rows or capped):
            rows[m.group(1)] = dict(regs=int(m.group(3)), stack=int(m.group(4)), spills=int(m.group(5)),
                                    smem=int(m.group(6)), wg=int(m.group(7)), occ=int(m.group(8)) / 100.0,
                                    capped=capped)
    return rows


def issue_s(instructions, occ):
    rate = SMS * LANES_PER_SM * CLOCK_HZ * min(1.0, occ / HIDE_OCCUPANCY)
    return instructions / rate


def price_kernel(name, items, group, ctx, table):
    """Seconds for one launch: max(issue, DRAM, L2) (a roofline) plus the launch."""
    n, s = ctx['n'], ctx['pos_bytes']
    state = 2 * s + 4
    row = table.get(name, dict(regs=32, stack=0, smem=0, wg=group, occ=1.0))
    instr, dram, l2 = 0.0, 0.0, 0.0
    serial = 0.0
    if name.startswith('herd_step'):
        cand = ctx['candidates']
        searching = ctx['step_searching']
        # Without a private array (stack 0) the k nearest are selected by radix passes over the
        # candidates (kernels/grid.h): each pass walks them again.
        walks = KNN_SELECT_WALKS if ctx['kind'] == 'knn' and row['stack'] == 0 else 1
        instr = searching * cand * ctx['instr_candidate'] * walks / DIVERGENCE + n * INSTR_AGENT
        instr += n * ctx['repulsion'] * INSTR_RADIUS_CANDIDATE / DIVERGENCE if ctx['kind'] == 'knn' else 0
        dram = 2 * state * n + 4 * n
        l2 = 1.5 * ctx['candidates_per_warp_unique'] * s * n / 32
        if row.get('capped'):  # values spilled under the register bound, reloaded once per run of candidates
            l2 += n * row['spills'] * CAPPED_SPILL_RUNS[ctx['dims']]
        elif row['stack'] > 0 and searching > 0:  # private arrays: a store and a load per candidate, via L1 to L2
            l2 += searching * cand * 16 + n * 2 * row['stack']
    elif name.endswith('_coop'):
        cand = ctx['candidates']
        instr = ctx['searching'] * (cand * INSTR_KNN_CANDIDATE / DIVERGENCE + ctx['coop_walk_instr'])
        dram = 16 * n
        l2 = 1.5 * ctx['candidates_per_warp_unique'] * s * n / 32
    elif name.startswith('herd_radix_scatter_state'):
        instr, dram = INSTR_SORT_KEY * n, 8 * n + 2 * state * n + 4 * n
    elif name.startswith('herd_radix') or name == 'herd_bin':
        instr, dram = INSTR_SORT_KEY * n, (s + 8) * n + 32 * items + 4 * ctx.get('cleared', 0)
        if name == 'herd_radix_scatter':  # the next pass's counts: an L2 atomic per key
            l2 += 8 * n
    elif name.startswith('herd_scan'):
        instr, dram = 8 * items * 4, 32 * items
    elif name == 'herd_grid_small':
        # the whole grid of a small flock by one work-group (kernels/herd.cl): one SM bins, sorts
        # (4-bit passes: 4 for keys below 2^16) and builds the ranges, at the issue rate of its
        # warps alone (group / 32: 8 at 256 work-items, 32 at a GPU's 1024), however many SMs stand idle
        passes = max(1, math.ceil(max(1, 4 * n - 1).bit_length() / 4))
        instr, dram = INSTR_SORT_KEY * n * passes + 12 * 4 * n, (s + 8) * n + 2 * state * n + 8 * 4 * n
        serial = instr / (LANES_PER_SM * CLOCK_HZ * min(1.0, (group / 32 / 64) / HIDE_OCCUPANCY))
    elif name.startswith('herd_ranges'):
        instr, dram = 12 * items, 8 * items + 4 * ctx['tail']
        serial = ctx['tail'] * SERIAL_STORE_S
    elif name.startswith('herd_order'):
        instr, dram = 10 * items, 4 * items
    elif name.startswith('herd_reduce'):
        # each work-item folds its n / items agents one load after another, then the last group
        # folds every group's partial, groups / group of them per work-item (kernels/sized.cl)
        instr, dram = 60 * n, state * n
        groups = max(1, items // group)
        serial = (math.ceil(n / items) + math.ceil(groups / group)) * LOAD_LATENCY_S
    else:
        instr, dram = 20 * items, 8 * items
    work = max(issue_s(instr, row['occ']), dram / DRAM_BPS, l2 / L2_BPS, serial)
    return work + LAUNCH_S, dict(instr=instr, dram=dram, l2=l2, occ=row['occ'], stack=row['stack'], serial=serial)


def context(case, pos, dog, commands):
    n = len(pos)
    ctx = dict(n=n, kind=case['kind'], pos_bytes=8 if case['dims'] == 2 else 16, far_share=0.0, dims=case['dims'])
    if case['kind'] == 'knn':
        knn, ring, rep = knn_candidates(pos, case)
        if case['active'] == 'dog' and dog is not None and len(dog):
            near = np.linalg.norm(pos[:, None, :] - dog[None, :, :2], axis=2).min(axis=1) < case['r_s']
        else:
            near = np.ones(n, dtype=bool)
        ctx.update(candidates=float(knn[near].mean()) if near.any() else 0.0, searching=float(near.sum()),
                   repulsion=float(rep.mean()), instr_candidate=INSTR_KNN_CANDIDATE,
                   candidates_per_warp_unique=float(knn.mean()))
        items = {c[1]: c[2] for c in commands if c[0] == 'kernel'}
        coop = [v for x, v in items.items() if x.endswith('_coop')]
        if coop:
            # The pre-pass searched: the step only reads its result. Its serial walk
            # (kernels/knn_coop.h, herd_coop_advance): after each radix pass one lane per sheep
            # scans the 256 bins while the sheep's other lanes wait, about 450 steps of 6
            # instructions in all, paid by every lane. The sheep whose k nearest lie beyond its
            # largest block (HERD_COOP_RINGS = 4) are searched again by the step kernel, each
            # alone in its warp: 32 lanes' issue slots a far sheep.
            lanes = max(1, round(coop[0] / n))
            ctx['coop_walk_instr'] = COOP_WALK_STEPS * 6 * lanes
            ctx['far_share'] = float((ring[near] > 4).mean()) if near.any() else 0.0
            ctx['step_searching'] = ctx['far_share'] * ctx['searching'] * 32
    else:
        c = radius_candidates(pos, case)
        ctx.update(candidates=float(c.mean()), searching=float(n), repulsion=0.0,
                   instr_candidate=INSTR_RADIUS_CANDIDATE, candidates_per_warp_unique=float(c.mean()))
    ctx.setdefault('step_searching', ctx['searching'])
    ctx['tail'] = serial_tail(pos, case, commands)
    for c in commands:
        if c[0] == 'kernel' and c[1].startswith('herd_order'):
            ctx['cleared'] = c[2]
    return ctx


def serial_tail(pos, case, commands):
    """Buckets herd_ranges' last work-item fills alone: from the flock's last cell to the end of
    the hash table, when the ranges kernel is sized by the agents and the bucket ordering by
    the table (the shape before issue 26's item 1)."""
    n = len(pos)
    table = 1 << max(0, (2 * n - 1).bit_length())
    order = [c[2] for c in commands if c[0] == 'kernel' and c[1] == 'herd_order_buckets']
    if not order or order[0] != table:
        return 0
    extent = (pos.max(axis=0) - pos.min(axis=0)) / case['cell_m'] + 3
    box = int(np.prod(np.ceil(extent)))
    return max(0, table - box) if box <= table else 0


def predict(case, commands, ctx, table):
    rows, total = [], HOST_STEP_S
    for c in commands:
        if c[0] == 'kernel':
            t, info = price_kernel(c[1], c[2], c[3], ctx, table)
            rows.append((c[1], c[2], t, info))
        elif c[0] == 'wait':
            t = WAIT_S
            rows.append(('wait ' + c[1], 0, t, None))
        else:
            t = LAUNCH_S
            rows.append((c[0] + ' ' + c[1], int(c[2]), t, None))
        total += t
    return rows, total


def report(results, static_path):
    out = ['| case | goal | predicted | kernels | other commands | waits | verdict |', '|---|---:|---:|---:|---:|---:|---|']
    detail = []
    for case, rows, total, ctx in results:
        kernels = sum(1 for r in rows if r[3] is not None)
        waits = sum(1 for r in rows if r[0].startswith('wait'))
        other = len(rows) - kernels - waits
        verdict = 'at or under the goal' if total <= case['goal_s'] else 'over the goal'
        out.append('| %s | %s | %s | %d | %d | %d | %s |' % (case['name'], fmt(case['goal_s']), fmt(total), kernels, other,
                                                         waits, verdict))
        detail.append('\n### %s\n\nN = %d; candidates per searching agent %.1f (searching: %d)%s.\n' %
                      (case['name'], ctx['n'], ctx['candidates'], ctx['searching'],
                       '; r_a candidates %.1f' % ctx['repulsion'] if ctx['kind'] == 'knn' else ''))
        detail.append('| command | work-items | predicted | bound by | occ. | stack |')
        detail.append('|---|---:|---:|---|---:|---:|')
        for name, items, t, info in rows:
            if info is None:
                detail.append('| %s | %s | %s | latency | | |' % (name, items or '', fmt(t)))
                continue
            bounds = {'issue': issue_s(info['instr'], info['occ']), 'DRAM': info['dram'] / DRAM_BPS,
                      'L2': info['l2'] / L2_BPS, 'one work-item': info['serial']}
            bound = max(bounds, key=bounds.get)
            if bounds[bound] < LAUNCH_S:
                bound = 'launch'
            detail.append('| `%s` | %d | %s | %s | %d%% | %d |' % (name, items, fmt(t), bound, round(info['occ'] * 100),
                                                                   info['stack']))
    return '\n'.join(out + detail) + '\n'


def fmt(seconds):
    return '%.1f µs' % (seconds * 1e6) if seconds < 1e-3 else '%.2f ms' % (seconds * 1e3)


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('herd', help='the herd program to trace (an OpenCL build)')
    ap.add_argument('--static', default=os.path.join(repo, 'bench/results/gpu-static.md'),
                    help='the GPU compile table (tests/gpu_compile.py writes it)')
    ap.add_argument('--work', default='/tmp/herd-gpu-model', help='folder for traces and trajectories')
    ap.add_argument('--out', help='also write the report to this file')
    ap.add_argument('--only', help='only the cases whose name holds this text (e.g. herding-1)')
    args = ap.parse_args()
    if not os.access(args.herd, os.X_OK):
        sys.exit('gpu-model.py: %s: not an executable herd' % args.herd)
    if not os.path.isfile(args.static):
        sys.exit('gpu-model.py: --static %s: no such file (run ctest -R test_gpu_compile)' % args.static)
    os.makedirs(args.work, exist_ok=True)
    table = static_table(args.static)
    results = []
    for case in cases(repo):
        if args.only and args.only not in case['name']:
            continue
        commands = trace_step(args.herd, case, args.work)
        pos, dog = positions(args.herd, case, args.work)
        ctx = context(case, pos, dog, commands)
        rows, total = predict(case, commands, ctx, table)
        results.append((case, rows, total, ctx))
    text = report(results, args.static)
    sys.stdout.write(text)
    if args.out:
        tmp = args.out + '.part'
        with open(tmp, 'w') as f:
            f.write(text)
        os.replace(tmp, args.out)


if __name__ == '__main__':
    main()
