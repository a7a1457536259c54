#!/usr/bin/python3
"""Reads the runs of bench/mpi-scaling.sh (OUTDIR/runs/runs.tsv and one summary JSON per run)
and writes OUTDIR/scaling.csv and OUTDIR/scaling.md.

    /usr/bin/python3 bench/mpi_scaling_tables.py OUTDIR COMMAND

COMMAND is the bench command line, as typed, for the files' provenance. The summary's "mpi"
object (issue 17: ranks, layout, px, py, halo_width_m, halo_agents_per_step,
halo_bytes_per_step, messages_per_step, migrated_per_step, rebalances, halo_grows, seconds
{step, exchange, reduce, total}) is read by name; a member a run lacks is left empty, so the
tables still come out from a herd that reports less. "seconds" are taken as rank 0's totals
over the run, like the summary's wall_time_s, and divided by the steps.
"""

import csv
import json
import os
import subprocess
import sys

COLUMNS = ["scaling", "model", "ranks", "layout", "px", "py", "agents", "agents_per_rank", "density_per_m2",
           "steps", "wall_s", "ms_per_step", "ns_per_agent_step", "efficiency", "step_ms", "exchange_ms",
           "reduce_ms", "halo_width_m", "halo_agents_per_step", "halo_bytes_per_step", "messages_per_step",
           "bytes_per_message", "migrated_per_step", "rebalances", "halo_grows", "status"]
MPI_COPIED = ["layout", "px", "py", "halo_width_m", "halo_agents_per_step", "halo_bytes_per_step",
              "messages_per_step", "migrated_per_step", "rebalances", "halo_grows"]


def read_manifest(outdir):
    """runs.tsv: name, scaling, model, ranks, agents, density_per_m2, steps, exit status."""
    with open(os.path.join(outdir, "runs", "runs.tsv")) as f:
        keys = ["name", "scaling", "model", "ranks", "agents", "density_per_m2", "steps", "rc"]
        return [dict(zip(keys, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def load_summary(outdir, name):
    try:
        with open(os.path.join(outdir, "runs", name + ".json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def row_of(run, summary):
    ranks, agents = int(run["ranks"]), int(run["agents"])
    row = {k: "" for k in COLUMNS}
    row.update(scaling=run["scaling"], model=run["model"], ranks=ranks, agents=agents,
               agents_per_rank=agents // ranks, density_per_m2="%.6g" % float(run["density_per_m2"]))
    if summary is None or run["rc"] != "0":
        row["status"] = "failed (exit %s)" % run["rc"]
        return row
    steps, wall = summary["steps"], summary["wall_time_s"]
    row.update(steps=steps, wall_s="%.6g" % wall, status="ok")
    if steps > 0:
        row["ms_per_step"] = "%.6g" % (1e3 * wall / steps)
        row["ns_per_agent_step"] = "%.6g" % (1e9 * wall / steps / (agents / ranks))
    mpi = summary.get("mpi") or {}
    for key in MPI_COPIED:
        if mpi.get(key) is not None:
            row[key] = mpi[key]
    for key, value in (mpi.get("seconds") or {}).items():
        if key + "_ms" in row and value is not None and steps > 0:
            row[key + "_ms"] = "%.6g" % (1e3 * value / steps)
    if mpi.get("ranks") not in (None, ranks):
        row["status"] = "mpi.ranks %s, asked for %d" % (mpi["ranks"], ranks)
    halo_bytes, messages = mpi.get("halo_bytes_per_step"), mpi.get("messages_per_step")
    if halo_bytes is not None and messages:
        row["bytes_per_message"] = "%.6g" % (halo_bytes / messages)
    return row


def add_efficiency(rows):
    """weak: t(1) / t(P), the same work per rank; strong: t(1) / (P t(P)), the same flock."""
    for row in rows:
        base = [r for r in rows if r["scaling"] == row["scaling"] and r["model"] == row["model"] and r["ranks"] == 1]
        if not base or not base[0]["ms_per_step"] or not row["ms_per_step"]:
            continue
        t1, tp = float(base[0]["ms_per_step"]), float(row["ms_per_step"])
        scale = row["ranks"] if row["scaling"] == "strong" else 1
        row["efficiency"] = "%.3f" % (t1 / (scale * tp))


def provenance_lines(rows_summaries, command):
    """'# key: value' as herd's own CSVs: texts as they are, the rest as one-line JSON. From
    the first run that wrote a summary, less what differs between runs (command, scenario)."""
    lines = ["# bench: %s" % command]
    first = next((s for s in rows_summaries if s), None)
    if first:
        for key, value in first.get("provenance", {}).items():
            if key in ("command", "scenario"):
                continue
            text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            lines.append("# %s: %s" % (key, text.replace("\n", " ")))
    lines.append("# cores: %d" % os.cpu_count())
    lines.append("# mpirun: %s" % mpirun_version())
    return lines


def mpirun_version():
    try:
        out = subprocess.run([os.environ.get("MPIRUN", "mpirun"), "--version"], capture_output=True, text=True,
                             timeout=30).stdout
        return out.splitlines()[0] if out else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_csv(path, rows, provenance):
    with open(path + ".part", "w", newline="") as f:
        f.write("\n".join(provenance) + "\n")
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    os.replace(path + ".part", path)


def cell(value, fmt="%s"):
    if value == "" or value is None:
        return "–"
    try:
        return fmt % float(value)
    except (TypeError, ValueError):
        return str(value)


def md_table(rows):
    lines = ["| ranks | agents | layout | ms/step | efficiency | exchange ms/step | reduce ms/step | halo agents/step | "
             "halo KiB/step | messages/step | bytes/message | migrated/step | rebalances | halo grows | status |",
             "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        layout = r["layout"] + (" %sx%s" % (r["px"], r["py"]) if r["px"] != "" else "")
        kib = float(r["halo_bytes_per_step"]) / 1024 if r["halo_bytes_per_step"] != "" else ""
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            r["ranks"], r["agents"], layout or "–", cell(r["ms_per_step"], "%.2f"), cell(r["efficiency"], "%.2f"),
            cell(r["exchange_ms"], "%.3f"), cell(r["reduce_ms"], "%.3f"), cell(r["halo_agents_per_step"], "%.0f"),
            cell(kib, "%.1f"), cell(r["messages_per_step"], "%.1f"), cell(r["bytes_per_message"], "%.0f"),
            cell(r["migrated_per_step"], "%.1f"), cell(r["rebalances"], "%.0f"), cell(r["halo_grows"], "%.0f"),
            r["status"]))
    return lines


OVERSUBSCRIBED = """\
This machine has {cores} cores. Every rank runs one thread (`--threads 1`), so up to
{cores} ranks each have a core; beyond that (`mpirun --oversubscribe`) ranks share cores and
take turns, and Open MPI, which knows it is oversubscribed, yields the core while it waits for a
message instead of spinning. The time per step then rises with P even when the work per rank
is fixed: the rows with P > {cores} measure the decomposition's overheads (halo volume,
messages, migrations, rebalancing) and its correctness, not its speed-up. Efficiency is
t(1) / t(P) for weak scaling (the same agents per rank) and t(1) / (P t(P)) for strong
scaling (the same flock); on this machine the ideal for P > {cores} is {cores}/P of it at
best. The halo and message counts do not depend on the cores: they are what a cluster run
of the same flock would exchange.
"""


def write_md(path, rows, provenance, command):
    lines = ["# herd run --mpi: weak and strong scaling", "", "Command: `%s`" % command, ""]
    lines += ["Provenance (as in scaling.csv):", "", "```"] + [p[2:] for p in provenance] + ["```", ""]
    lines += [OVERSUBSCRIBED.format(cores=os.cpu_count())]
    lines += ["Times are rank 0's: ms/step is the run's wall time over its steps; exchange and reduce "
              "are `mpi.seconds` over the steps. Halo, bytes, messages and migrations are means per "
              "step over all ranks.", ""]
    for model in sorted({r["model"] for r in rows}):
        for scaling in ("weak", "strong"):
            part = [r for r in rows if r["model"] == model and r["scaling"] == scaling]
            if not part:
                continue
            what = ("%d agents per rank" % part[0]["agents_per_rank"] if scaling == "weak"
                    else "%d agents in all" % part[0]["agents"])
            lines += ["## %s, %s scaling (%s)" % (model, scaling, what), ""] + md_table(part) + [""]
    with open(path + ".part", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".part", path)


def main(argv):
    if len(argv) != 2:
        print("usage: mpi_scaling_tables.py OUTDIR COMMAND", file=sys.stderr)
        return 2
    outdir, command = argv
    runs = read_manifest(outdir)
    summaries = [load_summary(outdir, run["name"]) for run in runs]
    rows = [row_of(run, s) for run, s in zip(runs, summaries)]
    add_efficiency(rows)
    provenance = provenance_lines(summaries, command)
    write_csv(os.path.join(outdir, "scaling.csv"), rows, provenance)
    write_md(os.path.join(outdir, "scaling.md"), rows, provenance, command)
    failed = [r for r in rows if r["status"] != "ok"]
    for r in failed:
        print("mpi-scaling: %s %s P=%s: %s" % (r["model"], r["scaling"], r["ranks"], r["status"]), file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
