"""Scenarios, simulations and sweeps over libherd.so (docs/library.md, python/README.md)."""

import json
import math
import operator
import os
import shlex
import sys

import numpy as np

from ._lib import STAGE_COUNT, ffi, lib

HERD_E_INPUT = 2
HERD_E_IO = 3
UINT32_MAX = 0xFFFFFFFF
FLOAT_MAX = float(np.finfo(np.float32).max)


class HerdError(Exception):
    """A failure reported by herd; `status` is herd's herd_status, str() its message."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


class HerdInputError(HerdError, ValueError):
    """The input was wrong (herd's HERD_E_INPUT: a scenario, a field path or value, a point
    that is not finite or has the wrong number of coordinates)."""


class HerdIOError(HerdError, OSError):
    """A file could not be read or written (herd's HERD_E_IO): also an OSError."""


class HerdIndexError(HerdInputError, IndexError):
    """An index past the end (a steering agent the simulation does not have): also an
    IndexError, and a HerdInputError as herd reports it (HERD_E_INPUT)."""


def _error(status, message, index=False):
    """The exception for herd's `status` and `message`: HerdIndexError where the input refused
    was an index (`index`), HerdInputError for other input, HerdError for the rest. Every
    error the package raises for herd goes through here."""
    if status == HERD_E_IO:
        return HerdIOError(status, message)
    if status != HERD_E_INPUT:
        return HerdError(status, message)
    return (HerdIndexError if index else HerdInputError)(status, message)


def _check(status, err, index=False):
    """Raises herd's error (with herd's message) unless `status` is HERD_OK. `index`: the call
    took an index that is out of range, so a refusal is about it."""
    if status != 0:
        raise _error(status, ffi.string(err.message).decode("utf-8", "replace"), index)


def _text(ptr):
    return ffi.string(ptr).decode("utf-8", "replace") if ptr != ffi.NULL else None


def _value_text(value):
    """A Python value as --set takes it: strings as typed, everything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value.item() if isinstance(value, np.generic) else value)


def version():
    """herd's version and the commit the library was built from."""
    return _text(lib.herd_version()), _text(lib.herd_build_commit())


class Scenario:
    """A validated scenario: a file (or the built-in default, or JSON text) with overrides.

    Scenario.load("scenarios/farm.json").set("sheep.count", 80) is `herd run
    scenarios/farm.json --set sheep.count=80`; every set() is validated at once, exactly as
    --set is, and raises HerdInputError with herd's message (it names the JSON path)."""

    def __init__(self, path=None, text=None, origin=None, sets=()):
        self._path = None if path is None else os.fspath(path)
        self._text = text
        self._origin = origin
        self._sets = list(sets)
        self._sc = self._parse(self._sets)

    @classmethod
    def load(cls, path):
        return cls(path=path)

    @classmethod
    def default(cls):
        return cls()

    @classmethod
    def from_json(cls, text, origin="<json>"):
        return cls(text=text, origin=origin)

    def _parse(self, sets):
        """A new scenario handle (freed with the object) from the source and `sets`."""
        encoded = [ffi.new("char[]", s.encode()) for s in sets]
        array = ffi.new("const char *[]", encoded) if encoded else ffi.NULL
        err = ffi.new("herd_error *")
        out = ffi.new("herd_scenario **")
        if self._text is not None:
            status = lib.herd_scenario_parse(self._text.encode(), self._origin.encode(), array, len(sets), out, err)
        else:
            path = self._path.encode() if self._path is not None else ffi.NULL
            status = lib.herd_scenario_load(path, array, len(sets), out, err)
        _check(status, err)
        return ffi.gc(out[0], lib.herd_scenario_free)

    def set(self, path, value):
        """Overrides field `path` ("sheep.count", "world.size_m[1]"); returns self."""
        return self.update({path: value})

    def update(self, values):
        """Overrides several fields at once ({path: value}), checked together (so that
        sheep.count and sheep.neighbours may change together); returns self."""
        sets = self._sets + [f"{path}={_value_text(value)}" for path, value in values.items()]
        self._sc = self._parse(sets)  # raises, leaving the scenario as it was
        self._sets = sets
        return self

    def set_at(self, step, path, value):
        """Adds to the schedule: field `path` takes `value` once `step` steps have run, before the
        next (`herd run --set-at STEP:PATH=VALUE`; only fields that can change during a run, each
        value checked as that change would be then). Returns self."""
        if isinstance(step, bool) or not isinstance(step, int):
            raise HerdInputError(2, f"set_at: step {step!r} is not a whole number of steps")
        sets = self._sets + [f"@{step}:{path}={float(value)!r}"]
        self._sc = self._parse(sets)  # raises, leaving the scenario as it was
        self._sets = sets
        return self

    @property
    def schedule(self):
        """The schedule's entries in the order they are made: [(step, path, value), ...]."""
        step, path, value = ffi.new("uint32_t *"), ffi.new("const char **"), ffi.new("double *")
        entries = []
        for k in range(lib.herd_scenario_schedule_count(self._sc)):
            lib.herd_scenario_schedule_entry(self._sc, k, step, path, value)
            entries.append((int(step[0]), ffi.string(path[0]).decode(), float(value[0])))
        return entries

    @classmethod
    def _of_handle(cls, handle, origin):
        """A Scenario over a herd_scenario the library made (freed with the object); its source
        is its own JSON, named `origin`."""
        made = cls.__new__(cls)
        text = lib.herd_scenario_to_json(handle)
        made._path, made._text, made._origin, made._sets = None, ffi.string(text).decode(), origin, []
        lib.free(text)
        made._sc = ffi.gc(handle, lib.herd_scenario_free)
        return made

    def copy(self):
        """A scenario of its own with the same source and overrides (herd_scenario_copy)."""
        twin = Scenario.__new__(Scenario)
        twin._path, twin._text, twin._origin, twin._sets = self._path, self._text, self._origin, list(self._sets)
        out = ffi.new("herd_scenario **")
        err = ffi.new("herd_error *")
        _check(lib.herd_scenario_copy(self._sc, out, err), err)
        twin._sc = ffi.gc(out[0], lib.herd_scenario_free)
        return twin

    @property
    def sets(self):
        """The overrides so far, as --set takes them ("PATH=VALUE")."""
        return list(self._sets)

    def get(self, path):
        """The number in field `path`."""
        value = ffi.new("double *")
        err = ffi.new("herd_error *")
        _check(lib.herd_scenario_get(self._ptr, path.encode(), value, err), err)
        return value[0]

    def to_json(self):
        """The scenario as JSON text with every field of its model (as herd writes it)."""
        raw = lib.herd_scenario_to_json(self._ptr)
        if raw == ffi.NULL:
            raise MemoryError("herd_scenario_to_json")
        try:
            return ffi.string(raw).decode()
        finally:
            lib.free(raw)

    @property
    def _ptr(self):
        return self._sc

    @property
    def _info(self):
        return lib.herd_scenario_describe(self._sc)

    @property
    def model(self):
        return _text(lib.herd_model_name(self._info.model))

    @property
    def seed(self):
        return int(self._info.seed)

    @property
    def max_steps(self):
        return int(self._info.max_steps)

    @property
    def dims(self):
        return int(self._info.dims)

    @property
    def count(self):
        """N: the flock's agents."""
        return int(self._info.count)

    def __repr__(self):
        where = self._path or self._origin or "<default>"
        return f"Scenario({where!r}, sets={self._sets!r})"


def _vector(values, dims):
    return tuple(float(values[k]) for k in range(dims))


def _observation_dict(o, dims):
    groups = []
    for g in range(o.groups_tracked):
        grp = o.group[g]
        groups.append(
            {
                "count": grp.count,
                "first_id": grp.first_id,
                "centroid": _vector(grp.centroid, dims),
                "radius_m": grp.radius_m,
                "heading": _vector(grp.heading, dims),
            }
        )
    return {
        "count": o.count,
        "in_goal": o.in_goal,
        "delivered": o.delivered,
        "centroid": _vector(o.centroid, dims),
        "extent_min": _vector(o.extent_min, dims),
        "extent_max": _vector(o.extent_max, dims),
        "farthest_id": o.farthest_id,
        "farthest_pos": _vector(o.farthest_pos, dims),
        "farthest_m": o.farthest_dist_m,
        "polarisation": o.polarisation,
        "milling": o.milling,
        "path_distance_m": o.path_distance_m,
        "path_end": o.path_end,
        "group_count": o.group_count,
        "groups": groups,
        "sectors": [
            {
                "count": sec.count,
                "farthest_id": sec.farthest_id,
                "farthest_pos": _vector(sec.farthest_pos, dims),
                "farthest_m": sec.farthest_dist_m,
            }
            for sec in o.sector
        ],
    }


class Sim:
    """A running simulation of a Scenario on the "cpu" or "opencl" backend.

    Arrays are numpy, shape (N, dims), ordered by agent id, read from the backend at each
    access straight into the new array (no further copy)."""

    FLAG_REMOVED, FLAG_REACTED, FLAG_MOVED, FLAG_DELIVERED, FLAG_SATED = 1, 2, 4, 8, 16

    def __init__(self, scenario, backend="cpu", threads=0, device=None, lockstep=False, profile=False, _resume=None):
        if not isinstance(scenario, Scenario):
            raise TypeError("herd.Sim needs a herd.Scenario")
        self.scenario = scenario.copy()  # later set()s on the caller's do not reach a running sim
        self._keep = [ffi.new("char[]", backend.encode()) if backend is not None else ffi.NULL]
        device_text = ffi.NULL
        if device is not None:
            self._keep.append(ffi.new("char[]", str(device).encode()))
            device_text = self._keep[-1]
        desc = ffi.new(
            "herd_sim_desc *",
            {
                "scenario": self.scenario._ptr,
                "threads": int(threads),
                "backend": self._keep[0],
                "device": device_text,
                "lockstep": bool(lockstep),
                "profile": bool(profile),
            },
        )
        out = ffi.new("herd_sim **")
        err = ffi.new("herd_error *")
        if _resume is None:
            _check(lib.herd_sim_create(desc, out, err), err)
        else:
            _check(lib.herd_sim_resume(desc, os.fsencode(_resume), out, err), err)
        self._sim = ffi.gc(out[0], lib.herd_sim_destroy)
        self._recording = None
        self.dims = self.scenario.dims
        self.count = self.scenario.count

    @classmethod
    def resume(cls, path, backend=None, threads=0, device=None, max_steps=None, profile=False):
        """A simulation going on from the checkpoint at `path` (Sim.checkpoint, herd run
        --checkpoint), bit for bit as the one that wrote it would have: on its backend unless
        `backend` names it (another is refused), with `max_steps` changed if given (nothing else
        may change). HerdInputError for a file that is not a whole herd checkpoint."""
        scenario, _ = checkpoint_scenario(path)
        if max_steps is not None:
            scenario.set("max_steps", max_steps)
        return cls(scenario, backend=backend, threads=threads, device=device, profile=profile, _resume=path)

    def checkpoint(self, path, force=False):
        """Writes the whole state after the last step to `path` (a temporary name, renamed once
        complete); an existing file is replaced only with `force` (else HerdIOError)."""
        err = ffi.new("herd_error *")
        _check(lib.herd_sim_checkpoint(self._handle, os.fsencode(path), bool(force), err), err)

    @property
    def profile(self):
        """Seconds and calls per stage so far ({stage: (seconds, calls)}), with "kernels" and
        "waits" (OpenCL); all zero unless the Sim was made with profile=True."""
        out = ffi.new("herd_profile *")
        err = ffi.new("herd_error *")
        _check(lib.herd_sim_profile(self._handle, out, err), err)
        stages = {ffi.string(lib.herd_stage_name(k)).decode(): (out.seconds[k], int(out.calls[k]))
                  for k in range(STAGE_COUNT)}
        return {**stages, "kernels": int(out.kernels), "waits": int(out.waits)}

    def record(self, path, force=False):
        """Writes the run's trajectories to the HDF5 file `path` as `herd run --trajectories`
        does (the same writer: docs/output.md): from the step the Sim is at, after every step,
        the frames and time series the scenario's output section asks for, with the run's
        provenance (its command: this Python's command line). The file is written under a
        temporary name and appears at `path` at stop_recording() or close(); an existing file
        is replaced only with `force` (HerdInputError, before anything is written)."""
        if self._recording is not None:
            raise _error(HERD_E_INPUT, "herd.Sim.record: already recording (stop_recording() first)")
        command = shlex.join([os.path.basename(sys.executable or "python3")] + sys.argv)
        out = ffi.new("herd_trajectories **")
        err = ffi.new("herd_error *")
        _check(lib.herd_trajectories_open(self._handle, b"herd.Sim.record", os.fsencode(path), bool(force),
                                          command.encode("utf-8", "replace"), out, err), err)
        # collected unclosed (the Sim dropped): the file is abandoned, nothing left at its path
        self._recording = ffi.gc(out[0], lambda t: lib.herd_trajectories_close(t, False, ffi.NULL))
        try:
            _check(lib.herd_trajectories_step(self._recording, self._handle, err), err)  # the step it is at
        except HerdError:
            self.stop_recording(keep=False)
            raise

    def stop_recording(self, keep=True):
        """Closes the trajectory file: renamed to its path (keep), or removed (keep=False)."""
        if self._recording is None:
            return
        recording, self._recording = self._recording, None
        ffi.gc(recording, None)  # closed here, not when collected
        err = ffi.new("herd_error *")
        _check(lib.herd_trajectories_close(recording, bool(keep), err), err)

    def explain(self, agent):
        """From the next step on, keeps the terms of flock agent `agent`'s update (None: stop),
        for update_terms. HerdIndexError for an id past the flock; HerdInputError where the
        model or backend cannot (the CPU backend can, for models with the hook)."""
        index = UINT32_MAX if agent is None else operator.index(agent)
        err = ffi.new("herd_error *")
        if not 0 <= index <= UINT32_MAX:
            raise _error(HERD_E_INPUT, f"herd.Sim.explain: flock agent {index}: this simulation has {self.count}",
                         index=True)
        _check(lib.herd_sim_explain(self._handle, index, err), err, index=index != UINT32_MAX and index >= self.count)

    @property
    def update_terms(self):
        """The explained agent's update in the last step, as the model's step evaluated it:
        {"id", "step", "moved", "terms": [{"name", "weight", "dir"}]} (its new heading is the
        unit vector of the sum of weight x dir); None before a step since explain()."""
        out = ffi.new("herd_update_terms *")
        if not lib.herd_sim_update_terms(self._handle, out):
            return None
        terms = [{"name": _text(out.term[k].name), "weight": float(out.term[k].weight),
                  "dir": _vector(out.term[k].dir, self.dims)} for k in range(out.count)]
        return {"id": int(out.id), "step": int(out.step), "moved": bool(out.moved), "terms": terms}

    def close(self):
        """Frees the simulation now (else when it is garbage), closing its trajectory file
        first (kept)."""
        if self._sim is not None:
            try:
                self.stop_recording()
            finally:
                ffi.release(self._sim)
                self._sim = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, *exc):
        if exc_type is not None and self._sim is not None:
            self.stop_recording(keep=False)  # a run that failed leaves no file, as herd run's
        self.close()

    @property
    def _handle(self):
        if self._sim is None:
            raise ValueError("herd.Sim is closed")
        return self._sim

    def _run(self, steps):
        err = ffi.new("herd_error *")
        if self._recording is None:
            done = ffi.new("uint32_t *")
            _check(lib.herd_sim_run(self._handle, steps, done, err), err)
            return done[0]
        taken = 0  # step by step, each written as it is made
        while taken < steps and lib.herd_sim_outcome(self._handle) == 0:
            _check(lib.herd_sim_step(self._handle, err), err)
            _check(lib.herd_trajectories_step(self._recording, self._handle, err), err)
            taken += 1
        return taken

    @staticmethod
    def _steps(n, what):
        n = operator.index(n)  # TypeError for 2.5 or "3"
        if not 1 <= n <= UINT32_MAX:
            raise _error(HERD_E_INPUT, f"herd.Sim.{what} = {n}: it must be 1 to {UINT32_MAX}")
        return n

    def step(self, n=1):
        """Advances up to n steps (fewer when the outcome comes first); returns the steps taken."""
        return self._run(self._steps(n, "step: n"))

    def run(self, chunk=100):
        """Runs to the outcome ("succeeded" or "step_limit") and returns it. Steps are taken
        `chunk` at a time, so Ctrl-C (KeyboardInterrupt) is answered between chunks."""
        chunk = self._steps(chunk, "run: chunk")
        while self.outcome == "running":
            self._run(chunk)
        return self.outcome

    @property
    def step_index(self):
        return lib.herd_sim_step_index(self._handle)

    @property
    def outcome(self):
        """"running", "succeeded" or "step_limit"."""
        return _text(lib.herd_outcome_name(lib.herd_sim_outcome(self._handle)))

    @property
    def backend(self):
        return _text(lib.herd_sim_backend(self._handle))

    @property
    def device(self):
        return _text(lib.herd_sim_device(self._handle))

    def _read_rows(self, read):
        """(N, dims) float32 filled by read(pointer, err), a herd_sim_read_* call."""
        out = np.empty((self.count, self.dims), dtype=np.float32)
        err = ffi.new("herd_error *")
        _check(read(ffi.cast("float *", ffi.from_buffer(out)), err), err)
        return out

    @property
    def positions(self):
        """Positions in metres, (N, dims) float32, by agent id."""
        return self._read_rows(lambda out, err: lib.herd_sim_read_flock(self._handle, out, ffi.NULL, err))

    @property
    def velocities(self):
        """Velocities as the model keeps them, (N, dims) float32, by agent id: unit headings for
        Strömbom's and NetLogo's models, m per step for boids, m/s for Couzin's zones and the
        fish (herd_sim_read_flock)."""
        return self._read_rows(lambda out, err: lib.herd_sim_read_flock(self._handle, ffi.NULL, out, err))

    @property
    def headings(self):
        """Unit headings, (N, dims) float32, by agent id: velocity / |velocity|, 0 where an agent
        stands still (herd_sim_read_headings: the HDF5 trajectories' /headings, bit for bit)."""
        return self._read_rows(lambda out, err: lib.herd_sim_read_headings(self._handle, out, err))

    @property
    def ids(self):
        """The agent ids, (N,) uint32: row i of every array here is agent i."""
        return np.arange(self.count, dtype=np.uint32)

    @property
    def flags(self):
        """Per-agent flags (N,) uint8: FLAG_DELIVERED, FLAG_MOVED, FLAG_REACTED, FLAG_REMOVED, FLAG_SATED."""
        out = np.empty(self.count, dtype=np.uint8)
        err = ffi.new("herd_error *")
        _check(lib.herd_sim_read_flags(self._handle, ffi.cast("uint8_t *", ffi.from_buffer(out)), err), err)
        return out

    @property
    def delivered(self):
        """(N,) bool: each agent has been within the goal at some step."""
        return (self.flags & self.FLAG_DELIVERED) != 0

    @property
    def observation(self):
        """The last step's observation: counts, centroid, extent, farthest agent, order
        parameters (polarisation, milling), path, groups and the 8 sectors about the centroid
        (each its count and farthest agent; herd.h's herd_sector), as a dict."""
        return _observation_dict(lib.herd_sim_observation(self._handle), self.dims)

    @property
    def dogs(self):
        """The steering agents (dogs, cruisers, shepherds, food...) as a list of dicts."""
        out = []
        for k in range(lib.herd_sim_steering_count(self._handle)):
            a = lib.herd_sim_steering(self._handle, k)
            out.append(
                {
                    "strategy": _text(lib.herd_strategy_name(a.strategy)),
                    "mode": _text(lib.herd_steering_mode_name(a.mode)),
                    "pos": _vector(a.pos, self.dims),
                    "heading": _vector(a.heading, self.dims),
                    "velocity": _vector(a.velocity, self.dims),
                    "aim": _vector(a.aim, self.dims),
                    "speed_m_per_step": a.speed_m_per_step,
                }
            )
        return out

    def _point(self, values, what):
        """A point of world.dims numbers as herd takes it (floats). The wrong number of
        coordinates, or values that are not numbers, raise HerdInputError here; whether each is
        finite herd checks (and names the coordinate)."""
        try:
            point = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise _error(HERD_E_INPUT, f"herd.Sim.{what} = {values!r}: expected {self.dims} numbers") from None
        if point.shape != (self.dims,):
            raise _error(HERD_E_INPUT, f"herd.Sim.{what}: shape {point.shape}; this world takes {self.dims} numbers")
        for k, v in enumerate(point.tolist()):
            if math.isfinite(v) and abs(v) > FLOAT_MAX:  # would reach herd as an infinity
                raise _error(HERD_E_INPUT, f"herd.Sim.{what}[{k}] = {v:g} is beyond a float's range")
        return ffi.new("float[]", point.tolist())

    def _steering(self, function, index, what, *args):
        """function(sim, index, *args, err) on steering agent `index`: an index past the agents
        raises HerdIndexError (an IndexError), other refused input HerdInputError (a
        ValueError), each with herd's message."""
        index = operator.index(index)  # TypeError for 1.5 or "0"
        count = lib.herd_sim_steering_count(self._handle)
        if not 0 <= index <= UINT32_MAX:  # beyond what herd takes: said as herd says it
            span = f" (0..{count - 1})" if count else ""
            raise _error(HERD_E_INPUT, f"herd.Sim.{what}: steering agent {index}: this simulation has {count}{span}",
                         index=True)
        err = ffi.new("herd_error *")
        _check(function(self._handle, index, *args, err), err, index=index >= count)

    def steer(self, index, aim):
        """From the next step on, steering agent `index` heads for `aim` (world.dims finite
        numbers) until release(index)."""
        self._steering(lib.herd_sim_steer, index, "steer", self._point(aim, "steer: aim"))

    def release(self, index):
        """Gives steering agent `index` back to its strategy."""
        self._steering(lib.herd_sim_release, index, "release")

    def place(self, index, pos):
        """Puts steering agent `index` at `pos` (inside the world, or anywhere on a torus's
        wrapping axes) before the next step."""
        self._steering(lib.herd_sim_place_steering, index, "place", self._point(pos, "place: position"))

    def set_param(self, path, value):
        """Field `path` takes `value` from the next step on (herd_sim_set_param: only the fields
        that can change during a run; the same checks and messages as --set)."""
        err = ffi.new("herd_error *")
        _check(lib.herd_sim_set_param(self._handle, path.encode(), float(value), err), err)

    @property
    def schedule_made(self):
        """How many of the scenario's schedule entries the run has made so far."""
        return int(lib.herd_sim_schedule_made(self._handle))


def checkpoint_scenario(path):
    """The scenario a checkpoint holds and the step it was written after: (Scenario, step)."""
    out = ffi.new("herd_scenario **")
    step = ffi.new("uint32_t *")
    err = ffi.new("herd_error *")
    _check(lib.herd_checkpoint_scenario(os.fsencode(path), out, step, err), err)
    return Scenario._of_handle(out[0], f"checkpoint {os.fspath(path)}"), int(step[0])
