#!/usr/bin/env python3
"""Benchmark (not a test): how many world-steps a second herd.VecEnv gives a Python controller,
against stepping herd.Sim objects one by one in a Python loop.

K worlds of the default Strömbom scenario (N sheep, each reacting to the dog every step; one
dog the controller steers toward a fixed point, so no run ends) are stepped for a number of steps: VecEnv on the CPU backend
(the worlds in parallel over every core) and on OpenCL (every world in one launch of each
kernel), and K herd.Sim objects each given sim.steer() and sim.step() per step in a Python
loop. Each figure is the median over --rounds rounds (the configurations take turns) of the
wall time per step of all K worlds over steps 2 to 51 (the first a warm-up); world-steps/s = K / that time.

usage: HERD_LIB=build/libherd.so /usr/bin/python3 bench/vecenv-speed.py [--sheep N] [--ks 1,64,1024]
       [--rounds R] [--no-opencl] [--out FILE.md]"""

import argparse
import os
import pathlib
import platform
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "python"))
import herd  # noqa: E402


STEPS = 50  # every configuration times the same steps 2-51 of the same runs: a flock's cost changes as it spreads


def time_vecenv(scenario, k, backend):
    env = herd.VecEnv(scenario, num_envs=k, backend=backend)
    env.reset(seed=1)
    aims = np.full(env.action_shape, 60.0)
    env.step(aims)  # warm-up (OpenCL: the kernels' first launch)
    started = time.perf_counter()
    for _ in range(STEPS):
        env.step(aims)
    elapsed = (time.perf_counter() - started) / STEPS
    env.close()
    return elapsed


def time_python_loop(scenario, k):
    sims = [herd.Sim(scenario.copy().set("seed", 1 + w), threads=1) for w in range(k)]
    aim = (60.0, 60.0)
    for sim in sims:
        sim.steer(0, aim)
        sim.step()
    started = time.perf_counter()
    for _ in range(STEPS):
        for sim in sims:
            sim.steer(0, aim)
            sim.step()
    elapsed = (time.perf_counter() - started) / STEPS
    for sim in sims:
        sim.close()
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sheep", type=int, default=100)
    parser.add_argument("--ks", default="1,64,1024")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-opencl", action="store_true")
    parser.add_argument("--out", help="write the table there (Markdown) as well")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    # every sheep reacts to the dog each step (r_s = 10^9 m, as bench/all-active.json): the full
    # Strömbom update for all, not a grazing flock that mostly stands still
    scenario = herd.Scenario.default().update({"sheep.count": args.sheep, "sheep.neighbours": args.sheep // 2,
                                               "sheep.dog_radius_m": 1e9})
    configs = [("VecEnv, cpu", lambda k: time_vecenv(scenario, k, "cpu"))]
    if not args.no_opencl:
        configs.append(("VecEnv, opencl", lambda k: time_vecenv(scenario, k, "opencl")))
    configs.append(("herd.Sim in a Python loop", lambda k: time_python_loop(scenario, k)))
    seconds = {(name, k): [] for name, _ in configs for k in ks}
    for _ in range(args.rounds):
        for k in ks:
            for name, run in configs:
                seconds[(name, k)].append(run(k))
    command = "HERD_LIB=build/libherd.so /usr/bin/python3 bench/vecenv-speed.py " + " ".join(sys.argv[1:])
    lines = [f"`{command.strip()}`", "", f"K worlds of {args.sheep} sheep (every one reacting each step) and one steered dog; median of {args.rounds} rounds; "
             f"{os.cpu_count()} cores ({platform.processor() or platform.machine()}); herd {herd.version()}",
             "", "| configuration | K | ms per step (all K worlds) | world-steps/s | vs the Python loop |",
             "|---|---:|---:|---:|---:|"]
    for k in ks:
        loop = statistics.median(seconds[("herd.Sim in a Python loop", k)])
        for name, _ in configs:
            t = statistics.median(seconds[(name, k)])
            lines.append(f"| {name} | {k} | {1e3 * t:.3f} | {k / t:,.0f} | {loop / t:.1f}x |")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
