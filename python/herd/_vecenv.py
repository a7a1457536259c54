"""herd.VecEnv: K worlds of a scenario stepped together as one batch (herd_batch), whose steering
agents a Python controller drives, with Gymnasium's vector-environment conventions."""

import os

import numpy as np

from ._lib import ffi, lib
from .core import HERD_E_INPUT, Scenario, _check, _error

MAX_STEERING = 64  # herd.h's HERD_MAX_STEERING: the steering slots herd_batch_read_worlds fills per world
STRATEGY_FOOD = 4  # herd_strategy's HERD_STRATEGY_FOOD: particles, never steered
OUTCOME_SUCCEEDED, OUTCOME_STEP_LIMIT = 1, 2

_NUMPY_OF_C = {"uint32_t": "<u4", "int32_t": "<i4", "int": "<i4", "uint64_t": "<u8", "float": "<f4", "double": "<f8",
               "_Bool": "?", "bool": "?", "uint8_t": "u1"}


def _dtype(ctype):
    """The numpy dtype laid out as cffi lays out the C type (offsets and size from cffi)."""
    if ctype.kind == "array":
        return np.dtype((_dtype(ctype.item), (ctype.length,)))
    if ctype.kind == "enum":
        return np.dtype("<i4")
    if ctype.kind == "primitive":
        return np.dtype(_NUMPY_OF_C[ctype.cname])
    names, formats, offsets = [], [], []
    for name, field in ctype.fields:
        names.append(name)
        formats.append(_dtype(field.type))
        offsets.append(field.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(ctype)})


OBSERVATION_DTYPE = _dtype(ffi.typeof("herd_observation"))
STEERING_DTYPE = _dtype(ffi.typeof("herd_steering_state"))


def _layout(dims, steering, groups):
    """(name, width) of each part of a flattened observation, in order."""
    parts = [("step", 1), ("count", 1), ("delivered", 1), ("in_goal", 1), ("centroid", dims), ("extent_min", dims),
             ("extent_max", dims), ("farthest_pos", dims), ("farthest_dist_m", 1), ("polarisation", 1),
             ("milling", 1)]
    for d in range(steering):
        parts += [(f"steering[{d}].pos", dims), (f"steering[{d}].velocity", dims),
                  (f"steering[{d}].nearest_pos", dims), (f"steering[{d}].nearest_dist_m", 1)]
    if groups:
        parts.append(("group_count", 1))
        for g in range(groups):
            parts += [(f"group[{g}].count", 1), (f"group[{g}].centroid", dims), (f"group[{g}].radius_m", 1)]
    return parts


class VecEnv:
    """`num_envs` worlds of `scenario` stepped together as one herd batch on the "cpu" backend
    (the worlds in parallel over `threads`) or "opencl" (every world in one launch of each
    kernel), whose steering agents `controls` (default: every one that is not food) a Python
    controller drives. Gymnasium's vector-environment conventions, without depending on it:

        env = herd.VecEnv("scenarios/strombom2014.json", num_envs=64)
        obs, info = env.reset(seed=1)                   # (K, D) float64
        obs, reward, terminated, truncated, info = env.step(aims)   # aims (K, A, dims)

    An action is, for each world and controlled agent, the point it heads for this step at its
    own speed, in metres, from action_low to action_high on each axis: on an axis that wraps,
    the world's period (0 to world.size_m); on another, the world and as much again on each
    side (-size to 2 size: a field without walls lets its agents leave it). Each world runs bit
    for bit as herd.Sim of its scenario steered with sim.steer(agent, aim) would run.

    terminated: the run succeeded (herd's outcome); truncated: it reached max_steps. A world
    that ended is reset on the next step() (Gymnasium's next-step autoreset): its action is then
    ignored, and it returns its new start's observation with reward 0 and terminated and
    truncated False. reset(seed=s) seeds world k with s + k; each later reset of a world takes
    the next seed after all those used (s + K, s + K + 1, ... in the order the worlds end,
    lowest world first), so a run of the environment is reproducible from its first seed.

    The observation of a world is its run's observation flattened (observation_layout names
    each part): step, count, delivered, in_goal, centroid, extent_min, extent_max, farthest_pos
    (world.dims each), farthest_dist_m, polarisation, milling; then for every steering agent
    its pos, velocity (m per step), the position of the flock agent nearest it and that
    distance; then, where the scenario observes groups, group_count and for each of the
    groups.max largest its count, centroid and radius_m (0 past group_count).

    The default reward is the progress of the flock's centroid toward the target, as a
    fraction of its distance at the episode's start, plus the fraction of the flock newly
    delivered: (d_prev - d_now) / d_start + (delivered_now - delivered_prev) / count, with d
    the centroid's distance from target.position_m in the xy-plane; an episode's rewards sum
    to 1 - d_end / d_start + the fraction delivered. reward=f takes f(previous_obs, obs) -> (K,)
    on the flattened arrays instead."""

    def __init__(self, scenario, num_envs=1, backend="cpu", threads=0, device=None, controls=None, reward=None):
        if isinstance(scenario, (str, os.PathLike)):
            scenario = Scenario.load(scenario)
        if not isinstance(scenario, Scenario):
            raise TypeError("herd.VecEnv needs a herd.Scenario or a scenario file's path")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or not 1 <= num_envs <= 65536:
            raise _error(HERD_E_INPUT, f"herd.VecEnv: num_envs = {num_envs!r} is not allowed (allowed: an integer "
                                       "from 1 to 65536)")
        if reward is not None and not callable(reward):
            raise TypeError("herd.VecEnv: reward must be a function (previous_obs, obs) -> (num_envs,) rewards")
        self.scenario = scenario.copy()
        self.num_envs = num_envs
        self.dims = self.scenario.dims
        self._reward_fn = reward
        info = self.scenario._info
        self.world_size_m = np.array([info.size_m[k] for k in range(self.dims)], dtype=np.float64)
        wraps = np.array([bool(info.wrap[k]) for k in range(self.dims)])
        # Where an aim may lie: on a wrapping axis the world's period, elsewhere the world and
        # as much again on each side (agents may leave a field without walls).
        self.action_low = np.where(wraps, 0.0, -self.world_size_m)
        self.action_high = np.where(wraps, self.world_size_m, 2.0 * self.world_size_m)
        self._target = np.array([info.target_m[0], info.target_m[1]], dtype=np.float64)
        self._backend = ffi.new("char[]", backend.encode())
        self._device = ffi.new("char[]", str(device).encode()) if device is not None else ffi.NULL
        self._threads = int(threads)
        self._batch = None
        self._obs_buf = ffi.new("herd_observation[]", num_envs)
        self._steer_buf = ffi.new("herd_steering_state[]", num_envs * MAX_STEERING)
        self._steps = np.zeros(num_envs, dtype=np.uint32)
        self._outcomes = np.zeros(num_envs, dtype=np.uint32)
        self._obs_np = np.frombuffer(ffi.buffer(self._obs_buf), dtype=OBSERVATION_DTYPE)
        self._steer_np = np.frombuffer(ffi.buffer(self._steer_buf), dtype=STEERING_DTYPE).reshape(num_envs,
                                                                                                     MAX_STEERING)
        self._create([self.scenario.seed + k for k in range(num_envs)])
        strategies = self._steer_np["strategy"][0, :self._steering]
        if controls is None:
            controls = [d for d in range(self._steering) if strategies[d] != STRATEGY_FOOD]
        controls = [int(d) for d in controls]
        if not controls:
            raise _error(HERD_E_INPUT, f"herd.VecEnv: the scenario has no steering agent to control "
                                       f"({self._steering} steering agents, food not counted)")
        for d in controls:
            if not 0 <= d < self._steering or strategies[d] == STRATEGY_FOOD:
                raise _error(HERD_E_INPUT, f"herd.VecEnv: controls: steering agent {d} cannot be controlled (the "
                                           f"scenario has {self._steering}, food particles never)", )
        self.controls = controls
        self._agents = ffi.new("uint32_t[]", controls)
        self.action_shape = (num_envs, len(controls), self.dims)
        groups = int(self.scenario.get("groups.max")) if info.observes_groups else 0
        self.observation_layout = []
        at = 0
        for name, width in _layout(self.dims, self._steering, groups):
            self.observation_layout.append((name, slice(at, at + width)))
            at += width
        self.observation_size = at
        self._parts = dict(self.observation_layout)
        self._groups = groups
        self._obs = None

    # ---- the batch ----------------------------------------------------------------------------

    def _scenario_with_seed(self, seed):
        return self.scenario.copy().set("seed", int(seed))

    def _create(self, seeds):
        self.close()
        self._scenarios = [self._scenario_with_seed(s) for s in seeds]
        descs = ffi.new("herd_sim_desc[]", self.num_envs)
        for k, sc in enumerate(self._scenarios):
            descs[k].scenario = sc._ptr
            descs[k].threads = self._threads
            descs[k].backend = self._backend
            descs[k].device = self._device
        out = ffi.new("herd_batch **")
        err = ffi.new("herd_error *")
        _check(lib.herd_batch_create(descs, self.num_envs, out, err), err)
        self._batch = ffi.gc(out[0], lib.herd_batch_destroy)
        self._seeds = np.array(seeds, dtype=np.uint64)
        self._unstepped = True  # every world as made: a reset to these seeds has nothing to do
        self._read()
        self._steering = int(self._obs_np["steering_count"][0])

    def _restart(self, worlds, seeds):
        """herd_batch_restart of `worlds` with `seeds` (their new episodes)."""
        scenarios = [self._scenario_with_seed(s) for s in seeds]
        handles = ffi.new("herd_scenario *[]", [sc._ptr for sc in scenarios])
        err = ffi.new("herd_error *")
        _check(lib.herd_batch_restart(self._batch, ffi.new("uint32_t[]", worlds), handles, len(worlds), err), err)
        for w, sc, seed in zip(worlds, scenarios, seeds):
            self._scenarios[w] = sc
            self._seeds[w] = seed

    def _read(self):
        lib.herd_batch_read_worlds(self._batch, self._obs_buf, self._steer_buf,
                                   ffi.cast("uint32_t *", ffi.from_buffer(self._steps)),
                                   ffi.cast("uint32_t *", ffi.from_buffer(self._outcomes)))

    def close(self):
        """Frees the worlds (also when the environment is collected)."""
        if self._batch is not None:
            ffi.release(self._batch)
            self._batch = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- observations and rewards --------------------------------------------------------------

    def _flatten(self):
        """(K, D) float64: each world's observation in observation_layout's order."""
        o, st, d, k = self._obs_np, self._steer_np, self.dims, self.num_envs
        cols = [self._steps[:, None], o["count"][:, None], o["delivered"][:, None], o["in_goal"][:, None],
                o["centroid"][:, :d], o["extent_min"][:, :d], o["extent_max"][:, :d], o["farthest_pos"][:, :d],
                o["farthest_dist_m"][:, None], o["polarisation"][:, None], o["milling"][:, None]]
        s = self._steering
        if s:
            near = o["nearest"][:, :s]
            per_agent = np.concatenate([st["pos"][:, :s, :d], st["velocity"][:, :s, :d], near["pos"][:, :, :d],
                                        near["dist_m"][:, :, None]], axis=2, dtype=np.float64)
            cols.append(per_agent.reshape(k, -1))
        if self._groups:
            g = o["group"][:, :self._groups]
            per_group = np.concatenate([g["count"][:, :, None], g["centroid"][:, :, :d], g["radius_m"][:, :, None]],
                                       axis=2, dtype=np.float64)
            per_group[np.arange(self._groups)[None, :] >= o["groups_tracked"][:, None]] = 0.0
            cols += [o["group_count"][:, None], per_group.reshape(k, -1)]
        return np.concatenate(cols, axis=1, dtype=np.float64)

    def part(self, obs, name):
        """Part `name` of observations (K, D) as step() returns them (observation_layout's
        names): (K,) for a number, (K, width) for a point or vector."""
        where = self._parts.get(name)
        if where is None:
            raise KeyError(f"herd.VecEnv.part: no part {name!r} (observation_layout names them)")
        return obs[:, where.start] if where.stop - where.start == 1 else obs[:, where]

    def _goal_distance(self, obs):
        centroid = self.part(obs, "centroid")[:, :2]
        return np.hypot(centroid[:, 0] - self._target[0], centroid[:, 1] - self._target[1])

    def _default_reward(self, previous, obs):
        now = self._goal_distance(obs)
        progress = (self._goal_distance(previous) - now) / self._start_distance
        count = np.maximum(self.part(obs, "count"), 1.0)
        return progress + (self.part(obs, "delivered") - self.part(previous, "delivered")) / count

    def _info(self):
        return {"seed": self._seeds.copy(), "step": self._steps.copy(),
                "delivered_fraction": self._obs_np["delivered"] / np.maximum(self._obs_np["count"], 1)}

    def _episode_started(self, worlds):
        distance = self._goal_distance(self._obs[worlds])
        self._start_distance[worlds] = np.where(distance > 0, distance, 1.0)

    # ---- Gymnasium's calls ---------------------------------------------------------------------

    def reset(self, seed=None):
        """Every world anew: seed None (the scenario's seed), an int s (world k takes s + k) or
        a list of num_envs seeds. Returns (obs (K, D), info)."""
        if seed is None:
            seeds = [self.scenario.seed + k for k in range(self.num_envs)]
        elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = [int(seed) + k for k in range(self.num_envs)]
        else:
            seeds = [int(s) for s in seed]
            if len(seeds) != self.num_envs:
                raise _error(HERD_E_INPUT, f"herd.VecEnv.reset: {len(seeds)} seeds for {self.num_envs} worlds")
        if any(not 0 <= s < 2 ** 64 for s in seeds):
            raise _error(HERD_E_INPUT, "herd.VecEnv.reset: a seed is outside 0 .. 2^64 - 1")
        if not (self._unstepped and seeds == [int(s) for s in self._seeds]):
            self._restart(list(range(self.num_envs)), seeds)
        self._next_seed = max(seeds) + 1
        self._read()
        self._obs = self._flatten()
        self._start_distance = np.ones(self.num_envs)
        self._episode_started(np.arange(self.num_envs))
        self._ended = np.zeros(self.num_envs, dtype=bool)
        return self._obs.copy(), self._info()

    def _aims(self, actions):
        """The actions checked and laid out as herd_batch_steer takes them (float32)."""
        try:
            aims = np.asarray(actions, dtype=np.float64)
        except (TypeError, ValueError):
            raise _error(HERD_E_INPUT, f"herd.VecEnv.step: the actions are not numbers; expected shape "
                                       f"{self.action_shape}") from None
        if aims.shape != self.action_shape:
            raise _error(HERD_E_INPUT, f"herd.VecEnv.step: actions of shape {aims.shape}; expected {self.action_shape}"
                                       " (worlds, controlled agents, world.dims)")
        bad = ~np.isfinite(aims) | (aims < self.action_low) | (aims > self.action_high)
        if bad.any():
            w, a, k = (int(i) for i in np.argwhere(bad)[0])
            what = "is not a finite number" if not np.isfinite(aims[w, a, k]) else \
                f"is out of range (allowed: {self.action_low[k]:g} to {self.action_high[k]:g} m)"
            raise _error(HERD_E_INPUT, f"herd.VecEnv.step: world {w}, agent {self.controls[a]}: aim[{k}] "
                                       f"({'xyz'[k]}) = {aims[w, a, k]:g} {what}")
        return np.ascontiguousarray(aims, dtype=np.float32)

    def step(self, actions):
        """Every running world one step with its controlled agents heading for `actions` (K, A,
        dims); the worlds that ended on the previous step start anew instead. Returns (obs,
        reward, terminated, truncated, info) as numpy arrays of K rows."""
        if self._obs is None:
            raise _error(HERD_E_INPUT, "herd.VecEnv.step: call reset() first")
        aims = self._aims(actions)
        self._unstepped = False
        err = ffi.new("herd_error *")
        _check(lib.herd_batch_steer(self._batch, self._agents, len(self.controls),
                                    ffi.cast("float *", ffi.from_buffer(aims)), err), err)
        if lib.herd_batch_running(self._batch):
            _check(lib.herd_batch_step(self._batch, err), err)
        restarted = np.flatnonzero(self._ended)
        if restarted.size:
            seeds = list(range(self._next_seed, self._next_seed + restarted.size))
            self._next_seed += restarted.size
            self._restart(restarted.tolist(), seeds)
        self._read()
        previous, self._obs = self._obs, self._flatten()
        if restarted.size:
            self._episode_started(restarted)
        reward = (self._reward_fn or self._default_reward)(previous, self._obs)
        reward = np.array(reward, dtype=np.float64).reshape(self.num_envs)
        reward[restarted] = 0.0
        terminated = self._outcomes == OUTCOME_SUCCEEDED
        truncated = self._outcomes == OUTCOME_STEP_LIMIT
        self._ended = terminated | truncated
        return self._obs.copy(), reward, terminated, truncated, self._info()

    def observations(self):
        """Every world's whole observation now, as a numpy structured array (herd_observation's
        fields: sectors and all), and its steering agents (K, their count) likewise."""
        return self._obs_np.copy(), self._steer_np[:, :self._steering].copy()

    def __repr__(self):
        return (f"VecEnv({self.scenario.model}, num_envs={self.num_envs}, controls={self.controls}, "
                f"observation_size={self.observation_size})")
