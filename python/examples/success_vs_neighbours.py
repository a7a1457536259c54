#!/usr/bin/env python3
"""Strömbom et al. (2014), Fig. 3's question: how often does one dog herd N sheep home, as a
function of n, the number of neighbours each sheep is attracted to? Few neighbours: the
flock does not cohere and the dog fails; enough: it succeeds.

    /usr/bin/python3 python/examples/success_vs_neighbours.py --quick        (under a minute)
    /usr/bin/python3 python/examples/success_vs_neighbours.py --out fig.png  (the full grid)

Runs from a checkout with HERD_LIB=build/libherd.so (or with herd installed). Written as
notebook cells ("# %%"): each can be run on its own in an editor that knows them."""

# %% Setup: the package from this checkout, matplotlib without a display.
import argparse
import math
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import herd  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("--quick", action="store_true", help="N = 50, 7 values of n, 5 seeds, 3000 steps")
parser.add_argument("--out", default="success_vs_neighbours.png", help="the PNG to write")
parser.add_argument("--force", action="store_true", help="replace --out if it exists")
args = parser.parse_args()
if os.path.exists(args.out) and not args.force:
    print(f"success_vs_neighbours.py: --out {args.out}: exists; add --force to replace it", file=sys.stderr)
    sys.exit(2)

# %% The grid: one flock size, n from few to almost all, seeds 1..S.
if args.quick:
    count, neighbours, seeds, steps = 50, [2, 5, 10, 20, 30, 40, 49], range(1, 6), 3000
else:
    count, neighbours, seeds, steps = 100, [5, 10, 20, 30, 35, 40, 45, 50, 70, 99], range(1, 21), None
base = herd.Scenario.default().update({"sheep.count": count, "sheep.neighbours": neighbours[0]})

# %% Run it: herd.sweep gives one row per run, the columns of herd sweep's runs.csv, its runs side
# by side on every core (frame=False: a list of dicts; a pandas DataFrame otherwise).
rows = herd.sweep(base, vary={"sheep.neighbours": neighbours}, seeds=seeds, steps=steps, frame=False)


# %% Success rate per n, with its 95 % Wilson interval (as herd sweep's summary).
def wilson(successes, runs, z=1.959964):
    p = successes / runs
    centre = (p + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    return p, centre - half, centre + half


rates = []
for n in neighbours:
    outcomes = [r["outcome"] for r in rows if r["sheep.neighbours"] == n]
    rates.append(wilson(sum(o == "succeeded" for o in outcomes), len(outcomes)))
    print(f"n = {n:3d}: {rates[-1][0]:.2f} of {len(outcomes)} runs herded")

# %% The figure, written to a temporary name and renamed when complete.
fig, ax = plt.subplots(figsize=(5, 3.4), dpi=100)
p = [r[0] for r in rates]
below, above = [max(0.0, a - r[1]) for a, r in zip(p, rates)], [max(0.0, r[2] - a) for a, r in zip(p, rates)]
ax.errorbar(neighbours, p, yerr=[below, above],
            marker="o", capsize=3)
limit = f", at most {steps} steps" if steps else ""
ax.set(xlabel="n (neighbours a sheep is attracted to)", ylabel="success rate", ylim=(-0.05, 1.05),
       title=f"One dog, N = {count} sheep, {len(seeds)} seeds per point{limit}")
ax.title.set_fontsize(9)
fig.tight_layout()
folder = os.path.dirname(os.path.abspath(args.out))
handle, temporary = tempfile.mkstemp(suffix=".png", dir=folder)
os.close(handle)
umask = os.umask(0)
os.umask(umask)
os.chmod(temporary, 0o666 & ~umask)  # mkstemp made it private; the PNG is an ordinary file
fig.savefig(temporary)
os.replace(temporary, args.out)
print(f"wrote {args.out}")
