#!/usr/bin/env python3
"""A sheepdog written in Python, driving the dogs of many worlds at once through herd.VecEnv,
against herd's built-in dog on the same flocks: Strömbom et al.'s (2014) rule, written here
from the observation alone (docs/models/strombom.md, "The dog"):

  f(N) = r_a N^(2/3);  stand still within 3 r_a of a sheep;  drive from
  P_d = G + r_a sqrt(N) unit(G - T) when every sheep is within f(N) of the centre G, else
  collect from P_c = A_far + r_a unit(A_far - G) behind the sheep farthest from G.

and the dog's step turned by noise (e = 0.3) as the built-in dog's is, from numpy's random
numbers rather than herd's, so the two dogs do not take the same steps.

    /usr/bin/python3 python/examples/python_dog.py --quick     (N = 50, 8 seeds: seconds)
    /usr/bin/python3 python/examples/python_dog.py             (N = 100, 20 seeds)

Runs from a checkout with HERD_LIB=build/libherd.so (or with herd installed)."""

import argparse
import pathlib
import statistics
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import herd  # noqa: E402


def strombom_dog(env, obs, r_a, target, speed, rng):
    """Every world's aim for its dog (K, 1, dims), from the flattened observations."""
    centre, far = env.part(obs, "centroid"), env.part(obs, "farthest_pos")
    dog, n = env.part(obs, "steering[0].pos"), env.part(obs, "count")
    gathered = env.part(obs, "farthest_dist_m") < r_a * n ** (2.0 / 3.0)

    def unit(v):
        length = np.linalg.norm(v, axis=1, keepdims=True)
        return np.divide(v, length, out=np.zeros_like(v), where=length > 0)

    drive = centre + (r_a * np.sqrt(n))[:, None] * unit(centre - target)
    collect = far + r_a * unit(far - centre)
    point = np.where(gathered[:, None], drive, collect)
    # the step's direction turned by noise e = 0.3 (a random unit vector), as the built-in dog's
    noise = rng.normal(size=point.shape)
    direction = unit(unit(point - dog) + 0.3 * unit(noise))
    aim = dog + speed * direction
    waiting = env.part(obs, "steering[0].nearest_dist_m") < 3.0 * r_a
    aim[waiting] = dog[waiting]
    return np.clip(aim, env.action_low, env.action_high)[:, None, :]


def python_dog_runs(scenario, seeds, backend="cpu"):
    """Each world's first episode: (outcome, steps) per seed, the dog driven from Python."""
    env = herd.VecEnv(scenario, num_envs=len(seeds), backend=backend)
    obs, _ = env.reset(seed=seeds[0])
    r_a, speed = scenario.get("sheep.repulsion_radius_m"), scenario.get("dogs.speed_m_per_step")
    rng = np.random.default_rng(seeds[0])
    target = np.array([scenario.get("target.position_m[0]"), scenario.get("target.position_m[1]")])
    results = [None] * len(seeds)
    while any(r is None for r in results):
        obs, _, terminated, truncated, info = env.step(strombom_dog(env, obs, r_a, target, speed, rng))
        for k in np.flatnonzero(terminated | truncated):
            if results[k] is None:
                results[k] = ("succeeded" if terminated[k] else "step_limit", int(info["step"][k]))
    env.close()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 50 sheep, 8 seeds")
    parser.add_argument("--backend", default="cpu", help="cpu or opencl")
    args = parser.parse_args()
    count, seeds = (50, list(range(1, 9))) if args.quick else (100, list(range(1, 21)))
    scenario = herd.Scenario.default().update({"sheep.count": count, "sheep.neighbours": count // 2})
    built_in = herd.sweep(scenario, seeds=seeds, backend=args.backend, frame=False)
    ours = python_dog_runs(scenario, seeds, args.backend)
    for name, runs in (("built-in dog", [(r["outcome"], r["steps"]) for r in built_in]), ("Python dog", ours)):
        won = [steps for outcome, steps in runs if outcome == "succeeded"]
        median = f", median {statistics.median(won):.0f} steps" if won else ""
        print(f"{name:12s}: herded {len(won)} of {len(runs)} flocks of {count}{median}")


if __name__ == "__main__":
    main()
