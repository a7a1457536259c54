#!/usr/bin/python3
"""A model of the time per step of `herd run --mpi` at 10^8-10^9 agents on 8-64 GPUs.

    t_step = t_compute + t_exchange + t_host + t_reduce

    t_compute  = t_agent * N / P                       (the rank's own agents)
    t_exchange = M * alpha + B / beta                  (Hockney: M messages, B bytes sent)
    t_host     = C_host * alpha_host + 2 * B / beta_host   (halo staged through host memory)
    t_reduce   = C_coll * ceil(log2 P) * (alpha + S / beta)

for the busiest (interior) rank of a flock that fills a square of side L = sqrt(N / rho)
cut into P slabs or a px * py grid. Every parameter, its value and its source is in
PARAMETERS below and in the written bench/results/mpi-model.md.

    /usr/bin/python3 bench/mpi_model.py [--scaling OUTDIR/scaling.csv] [--out bench/results]
                                        [--t-agent-ns NS|csv]
"""

import argparse
import csv
import dataclasses
import math
import os
import sys

# Strömbom all-active, the workload of bench/all-active.sh and bench/mpi-scaling.sh: one
# sheep per 4 m^2, n = 50 nearest neighbours.
DENSITY_PER_M2 = 0.25
NEIGHBOURS = 50
CELL_M = 2.0  # the grid's cell: r_a, the largest radius of the Strömbom sheep (ours)


def knn_halo_width(k, density, cell_m):
    """herd_knn_halo_width's bound (src/backend/mpi/decomp.h) for a uniform flock: the k-th
    nearest lies within the smallest (2R+1)^2 block of cells that holds k + 1 agents, so at
    most (R + 1) cell_m sqrt(2) away; an agent on the boundary needs that much halo."""
    r = 0
    while (2 * r + 1) ** 2 * cell_m * cell_m * density < k + 1:
        r += 1
    return (r + 1) * cell_m * math.sqrt(2)


@dataclasses.dataclass
class Parameters:
    t_agent_s: float = 1e-9  # per agent-step on one GPU
    density_per_m2: float = DENSITY_PER_M2
    halo_width_m: float = knn_halo_width(NEIGHBOURS, DENSITY_PER_M2, CELL_M)
    bytes_per_agent: float = 24.0  # float2 position + float2 heading + id + flags
    migrate_bytes_per_agent: float = 40.0  # the whole agent state, with its id and scratch
    speed_m_per_step: float = 1.0  # delta: how fast agents cross a boundary (migration)
    alpha_s: float = 2e-6  # network latency per message
    beta_bytes_per_s: float = 25e9  # network bandwidth per GPU
    alpha_host_s: float = 10e-6  # one device <-> host copy: enqueue + wait
    beta_host_bytes_per_s: float = 25e9  # PCIe 4.0 x16, effective
    host_staging: bool = True  # OpenCL buffers cannot be handed to MPI: halo goes via host
    host_copies_per_step: int = 4  # read boundary + write halo, for halo and for migration
    collectives_per_step: int = 3  # 2 allreduces (observation partials) + 1 bcast (steering)
    collective_bytes: float = 400.0
    messages_per_neighbour: float = 2.0  # per step: the halo, and the migrants


# name -> (value as written, source); the markdown's parameter table.
def parameter_sources(p, t_agent_source, measured):
    def m(key, default_source):
        return "measured: " + measured[key] if key in measured else default_source

    return [
        ("t_agent", "%.3g ns per agent-step" % (p.t_agent_s * 1e9), t_agent_source),
        ("rho", "%.3g agents/m^2" % p.density_per_m2, m("density_per_m2",
                                                       "bench/all-active.sh: one sheep per 4 m^2")),
        ("w", "%.2f m" % p.halo_width_m, m("halo_width_m",
                                           "herd_knn_halo_width's bound (src/backend/mpi/decomp.h) in a "
                                           "uniform flock, n = %d, cells of %.0f m: (R + 1) c sqrt(2) with "
                                           "(2R + 1)^2 c^2 rho >= n + 1" % (NEIGHBOURS, CELL_M))),
        ("b", "%.0f bytes per halo agent" % p.bytes_per_agent, m("bytes_per_agent",
                                                                 "float2 position + float2 heading + 4-byte id + 4-byte flags "
                                                                 "(ours; 40 in 3D)")),
        ("b_mig", "%.0f bytes per migrating agent" % p.migrate_bytes_per_agent,
         "the whole agent: position, heading, id, flags, model state (ours)"),
        ("v", "%.3g m/step" % p.speed_m_per_step, "sheep.speed_m_per_step, Strömbom Table 1"),
        ("alpha", "%.3g us" % (p.alpha_s * 1e6), "InfiniBand HDR MPI latency, stated (typical 1-2 us)"),
        ("beta", "%.3g GB/s" % (p.beta_bytes_per_s / 1e9), "InfiniBand HDR, 200 Gb/s per GPU, stated"),
        ("alpha_host", "%.3g us" % (p.alpha_host_s * 1e6),
         "one OpenCL read/write with its wait, stated"),
        ("beta_host", "%.3g GB/s" % (p.beta_host_bytes_per_s / 1e9), "PCIe 4.0 x16 effective, stated"),
        ("C_host", "%d copies" % p.host_copies_per_step if p.host_staging else "0 (no staging)",
         "read the boundary, write the halo; for the halo and for migrants"),
        ("C_coll", "%d collectives" % p.collectives_per_step,
         "2 allreduces of the observation's partials + 1 broadcast of the steering agents"),
        ("S", "%.0f bytes" % p.collective_bytes, "the observation's partial sums, about 400 bytes"),
        ("m", "%.3g messages per neighbour per step" % p.messages_per_neighbour,
         m("messages_per_neighbour", "one for the halo, one for the migrants (ours)")),
    ]


def grid_shape(ranks):
    """px * py = ranks, as square as possible, px >= py."""
    py = int(math.isqrt(ranks))
    while ranks % py:
        py -= 1
    return ranks // py, py


def layout_shape(layout, ranks):
    if layout == "slabs":
        return ranks, 1
    if layout == "grid":
        return grid_shape(ranks)
    raise ValueError("layout: expected slabs or grid, got %r" % layout)


def rank_halo_agents(i, j, px, py, side_m, p):
    """Agents of other ranks within the halo width of rank (i, j)'s box: Euclidean distance
    to the box (herd_decomp_halo_ranks), so a corner is a quarter disc of radius w."""
    dx, dy = side_m / px, side_m / py
    wx = (i > 0) + (i < px - 1)  # neighbours across x cuts
    wy = (j > 0) + (j < py - 1)
    w = min(p.halo_width_m, dx, dy)  # a halo never reaches past the next rank (ours: no)
    area = wx * w * dy + wy * w * dx + wx * wy * math.pi / 4 * w * w
    return area * p.density_per_m2


def rank_neighbours(i, j, px, py):
    wx = (i > 0) + (i < px - 1)
    wy = (j > 0) + (j < py - 1)
    return wx + wy + wx * wy


def side_m(agents, p):
    return math.sqrt(agents / p.density_per_m2)


def halo_agents(layout, ranks, agents, p, reduce=max):
    """reduce=max: the busiest rank's halo; reduce=sum: all ranks' together."""
    px, py = layout_shape(layout, ranks)
    side = side_m(agents, p)
    return reduce(rank_halo_agents(i, j, px, py, side, p) for i in range(px) for j in range(py))


def messages_per_step(layout, ranks, reduce=max, per_neighbour=2.0):
    """Messages one rank sends per step: per neighbour, one for the halo and one for the
    migrants (or as measured)."""
    px, py = layout_shape(layout, ranks)
    return reduce(per_neighbour * rank_neighbours(i, j, px, py) for i in range(px) for j in range(py))


def migrants_per_step(layout, ranks, agents, p):
    """The busiest rank's agents crossing out: isotropic headings at speed v cross a line at
    rho * v / pi per metre per step in each direction."""
    px, py = layout_shape(layout, ranks)
    side = side_m(agents, p)
    length = max(((i > 0) + (i < px - 1)) * side / py + ((j > 0) + (j < py - 1)) * side / px
                 for i in range(px) for j in range(py))
    return length * p.density_per_m2 * p.speed_m_per_step / math.pi


def step_time(layout, ranks, agents, p):
    """The terms of the time per step (seconds) of the busiest rank."""
    halo = halo_agents(layout, ranks, agents, p)
    migr = migrants_per_step(layout, ranks, agents, p)
    sent = halo * p.bytes_per_agent + migr * p.migrate_bytes_per_agent
    msgs = messages_per_step(layout, ranks, per_neighbour=p.messages_per_neighbour)
    t = {
        "compute": p.t_agent_s * agents / ranks,
        "exchange": msgs * p.alpha_s + sent / p.beta_bytes_per_s,
        "host": 0.0,
        "reduce": 0.0,
    }
    if ranks > 1 and p.host_staging:
        t["host"] = p.host_copies_per_step * p.alpha_host_s + 2 * sent / p.beta_host_bytes_per_s
    if ranks > 1:
        t["reduce"] = p.collectives_per_step * math.ceil(math.log2(ranks)) * (
            p.alpha_s + p.collective_bytes / p.beta_bytes_per_s)
    t["total"] = sum(t.values())
    t["halo_agents"] = halo
    t["halo_bytes"] = sent
    t["messages"] = msgs
    return t


def latency_per_step(layout, ranks, p):
    """The part of the step that does not shrink with the agents: what is left at N = 0."""
    t = step_time(layout, ranks, 0, p)
    return t["total"]


def read_scaling(path):
    """Rows of bench/mpi-scaling.sh's scaling.csv ('#' lines are provenance)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def number(row, key):
    try:
        return float(row.get(key) or "nan")
    except ValueError:
        return float("nan")


def mean(values):
    values = [v for v in values if math.isfinite(v)]
    return sum(values) / len(values) if values else float("nan")


def measured_inputs(rows, model="strombom"):
    """What scaling.csv measured that the model takes: halo width, density, bytes per halo
    agent, bytes per message, and the per-agent step cost of one rank (on this machine's
    CPU). Only rows of the given model; a quantity no row has is left out."""
    rows = [r for r in rows if r.get("model") == model]
    halo = [r for r in rows if number(r, "halo_agents_per_step") > 0]
    got = {
        "halo_width_m": mean(number(r, "halo_width_m") for r in halo),
        "density_per_m2": mean(number(r, "density_per_m2") for r in rows),
        "bytes_per_agent": mean(number(r, "halo_bytes_per_step") / number(r, "halo_agents_per_step")
                                for r in halo),
        "bytes_per_message": mean(number(r, "bytes_per_message") for r in halo),
        "messages_per_neighbour": mean(number(r, "messages_per_step") / messages_per_step(
            r["layout"], int(number(r, "ranks")), reduce=sum, per_neighbour=1) for r in halo
            if r.get("layout") in LAYOUTS and number(r, "ranks") >= 2),
        "t_agent_s": mean(number(r, "ns_per_agent_step") * 1e-9 for r in rows if number(r, "ranks") == 1),
    }
    return {k: v for k, v in got.items() if math.isfinite(v) and v > 0}


def apply_measured(p, got, use_t_agent):
    fields = ["halo_width_m", "density_per_m2", "bytes_per_agent", "messages_per_neighbour"]
    fields += ["t_agent_s"] if use_t_agent else []
    return dataclasses.replace(p, **{k: got[k] for k in fields if k in got})


GPUS = [8, 16, 32, 64]
SIZES = [1e8, 3e8, 1e9]
LAYOUTS = ["slabs", "grid"]


def plot(p, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, share) = plt.subplots(1, 2, figsize=(11, 4.5))
    for n, colour in zip(SIZES, ["tab:blue", "tab:orange", "tab:green"]):
        for layout, style in zip(LAYOUTS, ["-o", "--s"]):
            times = [step_time(layout, g, n, p) for g in GPUS]
            label = "N = %.0e, %s" % (n, layout)
            ax.plot(GPUS, [1e3 * t["total"] for t in times], style, color=colour, label=label)
            share.plot(GPUS, [100 * (t["total"] - t["compute"]) / t["total"] for t in times], style, color=colour,
                       label=label)
        ax.plot(GPUS, [1e3 * p.t_agent_s * n / g for g in GPUS], ":", color=colour, linewidth=1)
    for a in (ax, share):
        a.set_xscale("log", base=2)
        a.set_xticks(GPUS, [str(g) for g in GPUS])
        a.set_xlabel("GPUs (one rank each)")
        a.grid(True, which="both", alpha=0.3)
    ax.set_yscale("log")
    ax.set_ylabel("time per step, ms")
    ax.set_title("time per step (dotted: compute alone)")
    share.set_ylabel("exchange + host copies + collectives, % of the step")
    share.set_title("communication share")
    share.legend(fontsize=8)
    fig.suptitle("herd run --mpi, modelled: t_agent %.3g ns, %.3g GB/s, %.3g us" % (
        p.t_agent_s * 1e9, p.beta_bytes_per_s / 1e9, p.alpha_s * 1e6))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def table(p):
    lines = ["| N | GPUs | layout | compute ms | exchange ms | host ms | reduce ms | total ms | "
             "halo agents (busiest rank) | comm share | efficiency vs compute |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in SIZES:
        for g in GPUS:
            for layout in LAYOUTS:
                t = step_time(layout, g, n, p)
                px, py = layout_shape(layout, g)
                lines.append("| %.0e | %d | %s %dx%d | %.3f | %.3f | %.3f | %.4f | %.3f | %.0f | %.1f %% | %.2f |" % (
                    n, g, layout, px, py, 1e3 * t["compute"], 1e3 * t["exchange"], 1e3 * t["host"],
                    1e3 * t["reduce"], 1e3 * t["total"], t["halo_agents"],
                    100 * (t["total"] - t["compute"]) / t["total"], t["compute"] / t["total"]))
    return lines


def validation(rows, p):
    """The measured runs against the model's halo count, all ranks together, for rows whose
    layout the model knows; the model assumes the flock fills a square uniformly."""
    lines = []
    for r in rows:
        ranks, agents = number(r, "ranks"), number(r, "agents")
        ranks = int(ranks) if math.isfinite(ranks) else 1
        layout = r.get("layout") or "slabs"
        if r.get("model") != "strombom" or ranks < 2 or layout not in LAYOUTS:
            continue
        if not math.isfinite(number(r, "halo_agents_per_step")):
            continue
        predicted = halo_agents(layout, ranks, agents, p, reduce=sum)
        lines.append("| %s | %d | %s | %.0f | %.0f | %.2f |" % (
            r.get("scaling", ""), ranks, layout, number(r, "halo_agents_per_step"), predicted,
            number(r, "halo_agents_per_step") / predicted if predicted else float("nan")))
    if not lines:
        return []
    return ["", "### The measured runs against the model's halo", "",
            "Halo agents per step, all ranks together (scaling.csv against `halo_agents(..., reduce=sum)`):", "",
            "| scaling | ranks | layout | measured | model | measured / model |",
            "|---|---:|---|---:|---:|---:|"] + lines


EQUATIONS = """\
## The model

For the busiest rank (an interior one: it has the most neighbours) of a flock of N agents
that fills a square of side L = sqrt(N / rho), cut into P slabs (px = P, py = 1) or a
px x py grid (as square as P allows):

    t_step     = t_compute + t_exchange + t_host + t_reduce
    t_compute  = t_agent * N / P
    halo       = rho * (n_x * w * L/py + n_y * w * L/px + n_x * n_y * pi/4 * w^2)  agents received
    migrants   = rho * v / pi * (n_x * L/py + n_y * L/px)                    agents sent away
    B          = halo * b + migrants * b_mig                                 bytes sent
    M          = m * (n_x + n_y + n_x * n_y)                                 messages sent
    t_exchange = M * alpha + B / beta
    t_host     = C_host * alpha_host + 2 * B / beta_host      (when the halo goes via host memory)
    t_reduce   = C_coll * ceil(log2 P) * (alpha + S / beta)   (P > 1)

n_x, n_y (0, 1 or 2) are the rank's neighbours across x and y cuts; the halo is the
neighbours' agents within distance w of the rank's box (src/backend/mpi/decomp.h), so its
corners are quarter discs. Halo bytes sent equal halo bytes received by symmetry. Isotropic headings at speed v
cross a line at rho v / pi per metre per step each way. P = 1 has no halo, no messages and
no collectives.

Left out: load imbalance (rebalancing every K steps keeps it small for a uniform flock, not
for a herded, clumped one), the halo agents' own cost in the rank's bin and sort (a fraction
of t_agent each), overlap of exchange with compute (the model adds them: an upper bound),
and trajectory output (gathered to rank 0: docs/cluster.md).
"""


def write_markdown(path, p, sources, rows, command):
    lines = ["# herd --mpi at 10^8-10^9 agents on 8-64 GPUs: a model", "",
             "Command: `%s`" % command, "",
             "![time per step](mpi-model.png)", "", EQUATIONS,
             "## Parameters", "", "| symbol | value | source |", "|---|---|---|"]
    lines += ["| %s | %s | %s |" % row for row in sources]
    got = measured_inputs(rows) if rows else {}
    if "bytes_per_message" in got:
        lines += ["", "Measured, for reference (not an input): %.0f bytes per halo message." % got["bytes_per_message"]]
    lines += ["", "Halo width w relative to the slab width at the largest case (N = 1e8, 64 slabs): "
              "%.2f m of %.0f m." % (p.halo_width_m, side_m(1e8, p) / 64), "",
              "## Time per step", ""] + table(p) + validation(rows, p)
    lines += ["", "## What it says", "",
              "- Compute dominates: at 10^8 agents on 64 GPUs each rank steps 1.6 10^6 agents, "
              "and the halo of a slab (two full cuts of the flock) is %.1f %% of them; a grid's "
              "halo is %.1f %%." % (100 * halo_agents("slabs", 64, 1e8, p) / (1e8 / 64),
                                   100 * halo_agents("grid", 64, 1e8, p) / (1e8 / 64)),
              "- A slab's halo does not shrink as P grows (every cut spans the whole flock), so slabs "
              "stop scaling first; the grid's halo falls as 1/sqrt(P).",
              "- Memory on the device is no limit: at about 50 bytes per agent (bench/results/README.md: "
              "48-51 at 10^6) 10^9 agents on 8 GPUs are 6.3 GB each, plus the halo. herd as built also "
              "holds about 30 bytes per agent of the whole flock on each rank's host (docs/cluster.md, "
              "Limits): 30 GB at 10^9.",
              "- The model moves only the halo and migrants through the host (t_host). herd as built "
              "moves each rank's whole part there and back every step (docs/cluster.md, Limits): "
              "2 x 20 bytes x N/P over PCIe, %.1f ms at 10^9 agents on 64 GPUs, more than the "
              "step's compute." % (1e3 * 2 * 20 * (1e9 / 64) / 25e9),
              "- Latency alone (messages, collectives, the host copies) is %.0f us per step on a 64-rank "
              "grid: it matters only once compute per rank falls under a millisecond." % (
                  1e6 * latency_per_step("grid", 64, p)),
              "- The figures are as good as t_agent: a GPU figure measured with bench/gpu-kit.sh replaces "
              "the default with `--t-agent-ns`.", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scaling", help="OUTDIR/scaling.csv of bench/mpi-scaling.sh: the measured inputs")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"),
                    help="folder for mpi-model.png and mpi-model.md (default: bench/results)")
    ap.add_argument("--t-agent-ns", default=None,
                    help="per agent-step cost on one GPU in ns, or 'csv' for the 1-rank cost measured "
                         "in --scaling (this machine's CPU); default 1 ns, the project's GPU target")
    ap.add_argument("--no-host-staging", action="store_true",
                    help="the halo goes GPU to GPU (GPU-aware MPI): no host copies")
    args = ap.parse_args(argv)
    if args.t_agent_ns not in (None, "csv"):
        try:
            if not float(args.t_agent_ns) > 0:
                raise ValueError
        except ValueError:
            ap.error("--t-agent-ns: expected a number > 0 or 'csv', got %r" % args.t_agent_ns)
    if args.t_agent_ns == "csv" and not args.scaling:
        ap.error("--t-agent-ns csv needs --scaling")
    if not os.path.isdir(args.out):
        ap.error("--out: %s is not a folder" % args.out)
    return args


def build_parameters(args, rows):
    p = Parameters(host_staging=not args.no_host_staging)
    t_source = ("1 ns: the project's GPU target for 10^6 all-active sheep (<= 1 ms per step, "
                "bench/results/README.md, GPU section): unmeasured, no GPU was lent so far. "
                "For scale: this machine's CPU does 1080 ns (2 threads, N = 5e4, all-active-2core.csv)")
    got = measured_inputs(rows) if rows else {}
    if args.t_agent_ns == "csv":
        if "t_agent_s" not in got:
            sys.exit("mpi_model.py: --t-agent-ns csv: %s has no 1-rank strombom row with ns_per_agent_step"
                     % args.scaling)
        t_source = "measured: 1 rank, this machine's CPU (%s)" % args.scaling
    elif args.t_agent_ns is not None:
        p.t_agent_s = float(args.t_agent_ns) * 1e-9
        t_source = "given: --t-agent-ns %s" % args.t_agent_ns
    p = apply_measured(p, got, args.t_agent_ns == "csv")
    measured = {k: args.scaling for k in got}
    return p, parameter_sources(p, t_source, measured)


def main(argv):
    args = parse_args(argv)
    rows = []
    if args.scaling:
        try:
            rows = read_scaling(args.scaling)
        except OSError as e:
            print("mpi_model.py: --scaling: %s" % e, file=sys.stderr)
            return 2
    p, sources = build_parameters(args, rows)
    png, md = os.path.join(args.out, "mpi-model.png"), os.path.join(args.out, "mpi-model.md")
    plot(p, png)
    command = " ".join(["/usr/bin/python3", "bench/mpi_model.py"] + argv)
    write_markdown(md, p, sources, rows, command)
    print("wrote %s and %s" % (png, md))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
