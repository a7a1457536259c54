"""From a sweep and one run to a figure: the README's "For researchers" walk-through.

    herd sweep --set sheep.count=100 --vary sheep.neighbours=10:90:10 --seeds 1-20 -o nn
    herd run -r 7 --set sheep.neighbours=30 --summary run.json \
        --set output.trajectories.every_steps=10 --trajectories run.h5
    /usr/bin/python3 python/examples/sweep_run_plot.py nn run.json run.h5 figure.png

Left: the success rate over n with its 95 % Wilson interval (the sweep's summary.csv). Right:
the flock's spread over the run (the HDF5 trajectories), titled from the run's JSON summary.
Needs h5py and matplotlib (Debian: python3-h5py python3-matplotlib; use /usr/bin/python3).
"""
import csv
import json
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    """A herd CSV file's rows: its first lines are '#' provenance comments."""
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def main(sweep_dir, summary_json, trajectories_h5, out_png):
    if os.path.exists(out_png):
        sys.exit(f"sweep_run_plot: {out_png} exists; not replacing it")
    cells = rows(os.path.join(sweep_dir, "summary.csv"))
    run = json.load(open(summary_json))
    with h5py.File(trajectories_h5, "r") as h5:
        steps, pos = h5["steps"][:], h5["positions"][:]  # [frames], [frames, agents, dims]
    spread = pos.std(axis=1).mean(axis=1)  # the flock's width per frame, in metres

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
    n = [int(c["sheep.neighbours"]) for c in cells]
    rate = [float(c["success_rate"]) for c in cells]
    lo = [r - float(c["wilson_lo"]) for r, c in zip(rate, cells)]
    hi = [float(c["wilson_hi"]) - r for r, c in zip(rate, cells)]
    a.errorbar(n, rate, yerr=[lo, hi], marker="o", capsize=3)
    a.set(xlabel="n (neighbours)", ylabel="success rate (95 % Wilson)", ylim=(-0.05, 1.05))
    b.plot(steps, spread)
    b.set(xlabel="step", ylabel="flock spread (m)",
          title=f"seed {run['provenance']['seed']}: {run['outcome']} after {run['steps']} steps")
    fig.tight_layout()
    fig.savefig(out_png)
    return n, rate, spread


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: sweep_run_plot.py SWEEP_DIR SUMMARY.json TRAJECTORIES.h5 OUT.png")
    main(*sys.argv[1:])
