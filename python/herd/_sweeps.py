"""herd.sweep: a sweep's runs as data, run as herd sweep runs them (herd_batch_run)."""

import concurrent.futures
import itertools
import os

from ._lib import ffi, lib
from .core import Scenario, _check, _error, _text, HERD_E_INPUT

# runs.csv's columns after run, cell, seed and the varied paths (docs/sweep.md)
RUN_COLUMNS = ("outcome", "steps", "wall_s", "count", "delivered", "in_goal", "centroid_x", "centroid_y", "centroid_z",
               "farthest_m", "polarisation", "milling", "mode_changes", "drive_farthest_m", "polarisation_late",
               "milling_late", "steering_nearest_m", "food_eaten")
OPENCL_BATCH = 64  # herd sweep's default --batch off the CPU backend
MAX_BATCH = 4096  # and the most it takes


def _cells(vary):
    """The varied fields' values crossed, the last fastest (as herd sweep)."""
    paths = list(vary)
    return paths, list(itertools.product(*(list(vary[p]) for p in paths)))


def _row(result):
    """runs.csv's columns of one herd_run_result (NaN where the CSV has an empty field)."""
    o = result.obs
    return {
        "outcome": _text(lib.herd_outcome_name(result.outcome)),
        "steps": int(result.steps),
        "wall_s": float(result.wall_s),
        "count": int(o.count),
        "delivered": int(o.delivered),
        "in_goal": int(o.in_goal),
        "centroid_x": float(o.centroid[0]),
        "centroid_y": float(o.centroid[1]),
        "centroid_z": float(o.centroid[2]),
        "farthest_m": float(o.farthest_dist_m),
        "polarisation": float(o.polarisation),
        "milling": float(o.milling),
        "mode_changes": int(result.mode_changes),
        "drive_farthest_m": float(result.drive_farthest_m),
        "polarisation_late": float(result.late_polarisation),
        "milling_late": float(result.late_milling),
        "steering_nearest_m": float(result.steering_nearest_m),
        "food_eaten": float(result.food_eaten),
    }


class _Runner:
    """Runs groups of scenarios with herd_batch_run on one backend; a shared stop flag ends
    them between steps (Ctrl-C)."""

    def __init__(self, backend, device, threads):
        self._backend = ffi.new("char[]", backend.encode())
        self._device = ffi.new("char[]", str(device).encode()) if device is not None else ffi.NULL
        self.threads = threads
        self.stop = ffi.new("int *")

    def run(self, scenarios):
        """herd_batch_run over consecutive scenarios of one model and dimension at a time."""
        rows = []
        start = 0
        while start < len(scenarios):
            end = start + 1
            while end < len(scenarios) and (scenarios[end].model, scenarios[end].dims) == (
                    scenarios[start].model, scenarios[start].dims):
                end += 1
            rows += self._batch(scenarios[start:end])
            start = end
        return rows

    def _batch(self, scenarios):
        count = len(scenarios)
        descs = ffi.new("herd_sim_desc[]", count)
        for k, sc in enumerate(scenarios):
            descs[k].scenario = sc._ptr
            descs[k].threads = self.threads
            descs[k].backend = self._backend
            descs[k].device = self._device
            descs[k].stop = self.stop
        results = ffi.new("herd_run_result[]", count)
        err = ffi.new("herd_error *")
        _check(lib.herd_batch_run(descs, count, results, err), err)  # cffi lets go of the GIL meanwhile
        return [_row(results[k]) for k in range(count)]


def _frame(rows, columns):
    """A pandas DataFrame of the rows when pandas is installed, else the rows as they are."""
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows, columns=columns)


def _check_batch(batch, backend):
    if batch is None:
        return 1 if backend == "cpu" else OPENCL_BATCH
    if isinstance(batch, bool) or not isinstance(batch, int) or not 1 <= batch <= MAX_BATCH:
        raise _error(HERD_E_INPUT, f"herd.sweep: batch = {batch!r} is not allowed (allowed: an integer from 1 to "
                                   f"{MAX_BATCH})")
    return batch


def sweep(scenario, vary=None, seeds=range(1, 11), steps=None, backend="cpu", threads=0, batch=None, device=None,
          frame=True):
    """Runs every cell of `vary` ({path: [values]}, crossed, the last fastest) for every seed,
    as `herd sweep` runs them: on the CPU backend one run a thread side by side over `threads`
    threads (0: every core); with `batch` = K (default 1 on the CPU, 64 on OpenCL), K runs at a
    time stepped together as one batch of worlds on every thread or on the device. Each run
    gives the row it gives in herd sweep's runs.csv, whatever the batch.

    Returns a pandas DataFrame when pandas is installed (frame=False: a list of dicts), in run
    order with runs.csv's columns: run, cell, seed, each varied path, outcome, steps, wall_s,
    count, delivered, in_goal, centroid_x/y/z, farthest_m, polarisation, milling, mode_changes,
    drive_farthest_m, polarisation_late, milling_late, steering_nearest_m, food_eaten (NaN
    where the CSV has none). `steps` caps each run (max_steps). Every run's scenario is checked
    before any runs; Ctrl-C stops the runs between steps and raises KeyboardInterrupt."""
    if isinstance(scenario, (str, os.PathLike)):
        scenario = Scenario.load(scenario)
    if not isinstance(scenario, Scenario):
        raise TypeError("herd.sweep needs a herd.Scenario or a scenario file's path")
    batch = _check_batch(batch, backend)
    paths, cells = _cells(vary or {})
    seeds = [int(seed) for seed in seeds]
    if not seeds:
        raise _error(HERD_E_INPUT, "herd.sweep: no seeds given")
    heads, scenarios = [], []
    for cell, values in enumerate(cells):
        for seed in seeds:
            sets = dict(zip(paths, values))
            sets["seed"] = seed
            if steps is not None:
                sets["max_steps"] = int(steps)
            scenarios.append(scenario.copy().update(sets))
            head = {"run": len(heads), "cell": cell, "seed": seed}
            head.update(zip(paths, values))
            heads.append(head)
    cores = int(threads) if threads else (os.cpu_count() or 1)
    side_by_side = batch == 1 and backend == "cpu"
    runner = _Runner(backend, device, 1 if side_by_side else cores)
    groups = [scenarios[k:k + batch] for k in range(0, len(scenarios), batch)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=cores if side_by_side else 1) as pool:
        futures = [pool.submit(runner.run, group) for group in groups]
        try:
            results = [row for f in futures for row in f.result()]
        except BaseException:
            runner.stop[0] = 1  # the runs under way end between steps; the rest never start
            for f in futures:
                f.cancel()
            raise
    rows = [dict(head, **result) for head, result in zip(heads, results)]
    return _frame(rows, list(heads[0]) + list(RUN_COLUMNS)) if frame else rows

