"""The Python package against libherd.so's own reductions and against the herd program."""

import csv
import json
import math
import re
import subprocess
import sys

import numpy as np
import pytest

import herd


def small(seed=11):
    return herd.Scenario.default().set("sheep.count", 60).set("seed", seed)


def test_positions_agree_with_the_observation():
    """The id-ordered positions give the backend's centroid and extent (another route to the
    same numbers: a wrong stride, order or dims breaks this)."""
    sim = herd.Sim(small(), threads=1)
    assert sim.step(40) == 40 and sim.step_index == 40
    pos, o = sim.positions, sim.observation
    assert pos.shape == (60, 2) and pos.dtype == np.float32
    assert np.allclose(pos.astype(np.float64).mean(axis=0), o["centroid"], rtol=0, atol=1e-3)
    assert tuple(pos.min(axis=0)) == pytest.approx(o["extent_min"], abs=0)
    assert tuple(pos.max(axis=0)) == pytest.approx(o["extent_max"], abs=0)
    far = o["farthest_id"]
    assert tuple(pos[far]) == pytest.approx(o["farthest_pos"], abs=0)
    # the sectors: each agent in the one its azimuth about the centroid names
    off = pos.astype(np.float64) - np.array(o["centroid"])
    sector = np.floor(np.mod(np.arctan2(off[:, 1], off[:, 0]), 2 * np.pi) / (np.pi / 4)).astype(int)
    assert [s["count"] for s in o["sectors"]] == [int((sector == k).sum()) for k in range(8)]
    for k, s in enumerate(o["sectors"]):
        if s["count"]:
            dist = np.where(sector == k, np.hypot(off[:, 0], off[:, 1]), -1.0)
            assert s["farthest_id"] == int(dist.argmax())
            assert tuple(pos[s["farthest_id"]]) == pytest.approx(s["farthest_pos"], abs=0)


def test_headings_are_unit_vectors():
    sim = herd.Sim(small(), threads=1)
    sim.step(5)
    assert np.allclose(np.linalg.norm(sim.headings, axis=1), 1.0, atol=1e-4)


@pytest.mark.parametrize("name", ["strombom2014", "boids2d", "boids3d", "netlogo-flocking", "couzin-torus",
                                  "fish-shark"])
def test_headings_are_unit_velocities_for_every_model(root, name):
    """Boids, Couzin's fish and the fish school keep speeds other than 1: headings are still unit
    vectors along the velocities, which stay available as velocities."""
    sc = herd.Scenario.load(root / "scenarios" / f"{name}.json")
    sim = herd.Sim(sc, threads=1)
    sim.step(3)
    v, h = sim.velocities.astype(np.float64), sim.headings.astype(np.float64)
    speed = np.linalg.norm(v, axis=1)
    assert h.shape == v.shape == (sc.count, sc.dims) and sim.ids.tolist() == list(range(sc.count))
    assert np.allclose(np.linalg.norm(h[speed > 0], axis=1), 1.0, atol=1e-6)
    assert np.allclose(h[speed > 0], v[speed > 0] / speed[speed > 0, None], atol=1e-6)


def test_headings_are_the_trajectories_headings_to_the_bit(herd_cli, root, tmp_path):
    """Boids (speeds of 3-6 m/s): the package's headings after 20 steps are the HDF5 file's last
    /headings frame of the same run, bit for bit."""
    h5py = pytest.importorskip("h5py")
    out = tmp_path / "run.h5"
    subprocess.run([herd_cli, "run", str(root / "scenarios" / "boids2d.json"), "-s", "20", "-q", "--set",
                    "output.trajectories.every_steps=20", "--trajectories", str(out)], check=True)
    sim = herd.Sim(herd.Scenario.load(root / "scenarios" / "boids2d.json"), threads=1)
    sim.step(20)
    with h5py.File(out, "r") as f:
        assert f["steps"][-1] == 20
        frame = f["headings"][-1]
    assert np.array_equal(sim.headings, frame)
    assert not np.allclose(np.linalg.norm(sim.velocities, axis=1), 1.0)  # what headings used to be


def h5_datasets(path, h5py):
    """Every dataset of an HDF5 file, by its path."""
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, item: found.__setitem__(name, item[()]) if isinstance(item, h5py.Dataset) else None)
        attrs = dict(f.attrs)
    return found, attrs


def test_record_writes_what_herd_run_writes(herd_cli, root, tmp_path):
    """Sim.record is herd run --trajectories' writer: the same datasets, frame for frame, and
    the same provenance but for the command line."""
    h5py = pytest.importorskip("h5py")
    scenario = root / "scenarios" / "fish-shark.json"
    sets = ["output.trajectories.every_steps=7", "output.observation.every_steps=3", "max_steps=60"]
    cli = tmp_path / "cli.h5"
    subprocess.run([herd_cli, "run", str(scenario), "-q", "--trajectories", str(cli)]
                   + [a for s in sets for a in ("--set", s)], check=True)
    sc = herd.Scenario.load(scenario)
    for s in sets:
        path, value = s.split("=")
        sc.set(path, value)
    ours = tmp_path / "ours.h5"
    with herd.Sim(sc) as sim:
        sim.record(ours)
        assert not ours.exists()  # under a temporary name until it is complete
        assert sim.run() == "step_limit"
    want, want_attrs = h5_datasets(cli, h5py)
    got, got_attrs = h5_datasets(ours, h5py)
    assert sorted(got) == sorted(want) and {"positions", "headings", "steps", "ids"} <= set(got)
    assert any(name.startswith("steering/") for name in got)
    for name in want:
        assert np.array_equal(got[name], want[name], equal_nan=True), name
    assert list(got["steps"]) == list(range(0, 61, 7))
    assert got_attrs["command"].startswith("python") and want_attrs["command"].startswith("herd")
    for key in ("seed", "scenario", "every_steps", "flock_count", "dims"):
        assert got_attrs[key] == want_attrs[key], key


def test_record_refuses_and_leaves_nothing(tmp_path):
    taken = tmp_path / "taken.h5"
    taken.write_text("mine")
    sim = herd.Sim(small())
    with pytest.raises(herd.HerdInputError, match=r"herd\.Sim\.record .*taken\.h5.*exists"):
        sim.record(taken)
    assert taken.read_text() == "mine"
    with pytest.raises(herd.HerdInputError, match="cannot go to standard output"):
        sim.record("-")
    out = tmp_path / "failed.h5"
    with pytest.raises(RuntimeError, match="the user's"):
        with herd.Sim(small()) as failing:
            failing.record(out)
            failing.step(5)
            raise RuntimeError("the user's own error")
    assert not out.exists() and list(tmp_path.iterdir()) == [taken]  # no temporary file either
    kept = tmp_path / "kept.h5"
    sim.record(kept)
    with pytest.raises(ValueError, match="already recording"):
        sim.record(tmp_path / "other.h5")
    sim.step(3)
    sim.close()  # closing keeps the file
    assert kept.exists()


def test_explain_gives_the_terms_of_the_new_heading():
    """The explained sheep's new heading is the unit vector of the sum of weight x dir."""
    sc = herd.Scenario.default().update({"sheep.count": 40, "sheep.neighbours": 20, "sheep.dog_radius_m": 1e9})
    sim = herd.Sim(sc, threads=1)
    assert sim.update_terms is None
    sim.explain(7)
    sim.step()
    terms = sim.update_terms
    assert terms["id"] == 7 and terms["step"] == 0 and terms["moved"]
    assert {"attraction", "repulsion"} <= {t["name"].split()[0] for t in terms["terms"]}
    total = sum(t["weight"] * np.array(t["dir"]) for t in terms["terms"])
    assert np.allclose(total / np.linalg.norm(total), sim.headings[7], atol=1e-5)
    sim.explain(None)
    with pytest.raises(IndexError, match="flock agent 40: this simulation has 40"):
        sim.explain(40)


def test_a_3d_scenario_gives_three_columns(root):
    sc = herd.Scenario.load(root / "scenarios" / "boids3d.json")
    assert sc.dims == 3
    sim = herd.Sim(sc, threads=1)
    sim.step(2)
    assert sim.positions.shape == (sc.count, 3)
    assert np.allclose(sim.positions.astype(np.float64).mean(axis=0), sim.observation["centroid"], atol=1e-2)


def test_run_takes_the_steps_herd_run_takes(herd_cli):
    for seed in (3, 11):
        out = subprocess.run(
            [herd_cli, "run", "--set", "sheep.count=60", "--set", f"seed={seed}"],
            capture_output=True, text=True, check=True,
        ).stdout
        want = int(re.search(r"^steps: (\d+) ", out, re.M).group(1))
        sim = herd.Sim(small(seed))
        outcome = sim.run()
        assert sim.step_index == want
        assert outcome == ("succeeded" if "result: success" in out else "step_limit")


def test_a_schedule_as_herd_run_set_at_and_as_set_param(herd_cli):
    out = subprocess.run(
        [herd_cli, "run", "--set", "sheep.count=60", "--set", "seed=3", "--set-at", "100:sheep.repulsion=0.5",
         "--set-at", "40:sheep.noise=1"],
        capture_output=True, text=True, check=True,
    ).stdout
    want = int(re.search(r"^steps: (\d+) ", out, re.M).group(1))
    sc = small(3).set_at(100, "sheep.repulsion", 0.5).set_at(40, "sheep.noise", 1)
    assert sc.schedule == [(40, "sheep.noise", 1.0), (100, "sheep.repulsion", 0.5)]
    scheduled = herd.Sim(sc)
    scheduled.run()
    assert scheduled.step_index == want and scheduled.schedule_made == 2
    by_hand = herd.Sim(small(3))
    by_hand.step(40)
    by_hand.set_param("sheep.noise", 1)
    by_hand.step(60)
    by_hand.set_param("sheep.repulsion", 0.5)
    by_hand.run()
    assert by_hand.step_index == want
    assert (by_hand.positions == scheduled.positions).all()
    with pytest.raises(herd.HerdInputError, match=r"sheep\.count"):
        small().set_at(10, "sheep.count", 5)
    with pytest.raises(ValueError, match=r"out of range"):
        by_hand.set_param("sheep.repulsion", -1)


def test_delivered_flags_count_the_observation():
    sim = herd.Sim(small(), threads=1)
    sim.step(300)
    assert int(sim.delivered.sum()) == sim.observation["delivered"]
    sim.run()
    assert sim.outcome == "succeeded" and sim.delivered.all()


def test_set_with_a_bad_path_raises_with_the_path():
    sc = small()
    with pytest.raises(herd.HerdInputError, match=r"sheep\.bogus"):
        sc.set("sheep.bogus", 3)
    with pytest.raises(herd.HerdInputError, match=r"sheep\.count"):
        sc.set("sheep.count", -5)
    with pytest.raises(ValueError, match=r"world\.size_m"):
        sc.set("world.size_m", "wide")
    assert sc.sets == ["sheep.count=60", "seed=11"]  # a refused set leaves it as it was
    assert sc.count == 60


def test_a_bad_file_raises_with_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"sheep": {"count": 10,}}')
    with pytest.raises(herd.HerdInputError, match="bad.json"):
        herd.Scenario.load(bad)


def test_to_json_carries_the_sets_and_reloads():
    sc = herd.Scenario.default().set("sheep.count", 80).set("dogs.speed_m_per_step", 2.5)
    doc = json.loads(sc.to_json())
    assert doc["sheep"]["count"] == 80 and doc["dogs"]["speed_m_per_step"] == 2.5
    again = herd.Scenario.from_json(sc.to_json())
    assert again.to_json() == sc.to_json() and again.count == 80
    assert sc.get("sheep.count") == 80


def test_a_scenario_is_a_handle_of_its_own():
    """The scenario is opaque (no size the package could allocate); its fields come through
    herd_scenario_describe, and a copy changes apart from its original."""
    from herd._lib import lib

    assert lib.herd_sizeof(b"herd_scenario") == 0
    sc = herd.Scenario.default().update({"seed": 4, "max_steps": 250, "sheep.count": 70})
    assert (sc.model, sc.seed, sc.max_steps, sc.dims, sc.count) == ("strombom", 4, 250, 2, 70)
    twin = sc.copy().set("seed", 9)
    assert (sc.seed, twin.seed, twin.count, twin.sets[-1]) == (4, 9, 70, "seed=9")
    assert json.loads(twin.to_json())["seed"] == 9 and json.loads(sc.to_json())["seed"] == 4
    boids = herd.Scenario.default().set("model", "boids")
    assert boids.model == "boids" and boids.get("world.size_m[0]") > 0


def test_dogs_and_placing_them():
    sim = herd.Sim(small(), threads=1)
    dogs = sim.dogs
    assert len(dogs) == 1 and dogs[0]["strategy"] == "dog"
    sim.place(0, (100.0, 120.0))
    assert sim.dogs[0]["pos"] == pytest.approx((100.0, 120.0))
    with pytest.raises(herd.HerdInputError, match="outside the world"):
        sim.place(0, (100.0, -50.0))
    sim.steer(0, (0.0, 0.0))
    sim.step()
    assert sim.dogs[0]["mode"] == "manual"
    sim.release(0)
    sim.step()
    assert sim.dogs[0]["mode"] != "manual"


def test_steering_an_agent_that_does_not_exist_raises_index_error():
    sim = herd.Sim(small(), threads=1)  # one dog
    says = r"steering agent 99: this simulation has 1 \(0\.\.0\)"
    with pytest.raises(IndexError, match="herd_sim_steer: " + says):
        sim.steer(99, (1.0, 2.0))
    with pytest.raises(IndexError, match="herd_sim_release: " + says):
        sim.release(99)
    with pytest.raises(IndexError, match="herd_sim_place_steering: " + says):
        sim.place(99, (1.0, 2.0))
    with pytest.raises(IndexError, match=r"steering agent 1: this simulation has 1"):
        sim.steer(1, (1.0, 2.0))
    with pytest.raises(IndexError, match=r"steering agent -1: this simulation has 1"):
        sim.release(-1)
    with pytest.raises(IndexError, match=r"steering agent 4294967296: this simulation has 1"):
        sim.steer(2**32, (1.0, 2.0))
    with pytest.raises(herd.HerdIndexError) as refused:
        sim.release(7)
    assert isinstance(refused.value, herd.HerdInputError) and refused.value.status == 2
    with pytest.raises(TypeError):
        sim.release(0.5)
    sim.step()
    assert sim.dogs[0]["mode"] != "manual"  # nothing was handed to the user


def test_steering_toward_a_point_that_is_not_finite_raises_value_error():
    sim = herd.Sim(small(), threads=1)
    sim.steer(0, (30.0, 40.0))
    for aim, says in (((float("inf"), 0.0), r"aim\[0\] \(x\) = inf is not a finite number"),
                      ((0.0, float("nan")), r"aim\[1\] \(y\) = nan is not a finite number"),
                      ((1e39, 0.0), r"aim\[0\] = 1e\+39 is beyond a float's range"),
                      ((1.0, 2.0, 3.0), r"shape \(3,\); this world takes 2 numbers"),
                      ([[1.0, 2.0]], r"shape \(1, 2\)"),
                      (("a", "b"), r"expected 2 numbers")):
        with pytest.raises(ValueError, match=says) as refused:
            sim.steer(0, aim)
        assert not isinstance(refused.value, IndexError) and isinstance(refused.value, herd.HerdInputError)
    with pytest.raises(ValueError, match=r"herd_sim_place_steering: position\[0\] \(x\) = inf"):
        sim.place(0, (float("inf"), 10.0))
    with pytest.raises(ValueError, match=r"position\[1\] \(y\) = nan"):
        sim.place(0, (10.0, float("nan")))
    before = sim.dogs[0]["pos"]
    sim.step()
    dog = sim.dogs[0]
    assert all(np.isfinite(dog["pos"])) and dog["mode"] == "manual"
    # still heading for (30, 40): the refused aims changed nothing
    assert np.hypot(30 - before[0], 40 - before[1]) - np.hypot(30 - dog["pos"][0], 40 - dog["pos"][1]) == \
        pytest.approx(dog["speed_m_per_step"], abs=1e-4)
    sim.release(0)


def test_step_counts_must_be_whole_and_positive():
    sim = herd.Sim(small(), threads=1)
    for n in (0, -3, 2**32):
        with pytest.raises(ValueError, match=r"herd\.Sim\.step: n = "):
            sim.step(n)
    with pytest.raises(TypeError):
        sim.step(2.5)
    with pytest.raises(ValueError, match=r"herd\.Sim\.run: chunk = 0"):
        sim.run(chunk=0)
    assert sim.step_index == 0


def cli_sweep_rows(herd_cli, out, *args):
    subprocess.run([herd_cli, "sweep", *args, "--quiet", "--out", str(out)], capture_output=True, check=True)
    with open(out / "runs.csv", newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def half_last_digit(text):
    """Half a unit of the last digit a number was written with: how far rounding it moved."""
    mantissa, _, exponent = text.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    return 0.5001 * 10.0 ** (int(exponent or 0) - decimals)


def assert_rows_equal(got, want, varied):
    """Every column of runs.csv but the wall time: whole numbers and words as written, the rest
    to the digits the CSV keeps, NaN where it has an empty field."""
    assert len(got) == len(want)
    words = ("run", "cell", "seed", *varied, "outcome", "steps", "count", "delivered", "in_goal", "mode_changes")
    for g, w in zip(got, want):
        assert list(g) == list(w), "the columns, in runs.csv's order"
        assert {k: str(g[k]) for k in words} == {k: w[k] for k in words}
        for k in herd._sweeps.RUN_COLUMNS[3:]:
            if k in words:
                continue
            if w[k] == "":
                assert math.isnan(g[k]), k
            else:
                assert abs(g[k] - float(w[k])) <= half_last_digit(w[k]), (k, g[k], w[k])


def test_sweep_rows_equal_herd_sweeps(herd_cli, tmp_path):
    """Side by side (the CPU's default) and batched, every column as herd sweep writes it: the
    dog's mode changes and farthest distance while driving included."""
    want = cli_sweep_rows(herd_cli, tmp_path / "sweep", "--vary", "sheep.count=30,60", "--vary",
                          "sheep.neighbours=10,20", "--seeds", "1-3", "--steps", "1500")
    assert any(w["drive_farthest_m"] for w in want) and any(int(w["mode_changes"]) > 1 for w in want)
    vary = {"sheep.count": [30, 60], "sheep.neighbours": [10, 20]}
    side = herd.sweep(herd.Scenario.default(), vary=vary, seeds=range(1, 4), steps=1500, threads=2, frame=False)
    assert_rows_equal(side, want, vary)
    batched = herd.sweep(herd.Scenario.default(), vary=vary, seeds=range(1, 4), steps=1500, batch=5, frame=False)
    assert_rows_equal(batched, want, vary)


def test_sweep_of_a_school_with_food(herd_cli, root, tmp_path):
    """The fish's food eaten and the late order parameters, as herd sweep writes them."""
    scenario = root / "scenarios" / "fish-foraging.json"
    want = cli_sweep_rows(herd_cli, tmp_path / "fish", "--scenario", str(scenario), "--vary", "fish.count=40,60", "--seeds", "1-2",
                          "--steps", "300")
    assert all(w["food_eaten"] != "" and w["polarisation_late"] != "" for w in want)
    got = herd.sweep(str(scenario), vary={"fish.count": [40, 60]}, seeds=[1, 2], steps=300, frame=False)
    assert_rows_equal(got, want, ["fish.count"])


def test_sweep_gives_a_data_frame():
    pandas = pytest.importorskip("pandas")
    base = herd.Scenario.default().update({"sheep.count": 20, "sheep.neighbours": 3})
    runs = herd.sweep(base, vary={"sheep.neighbours": [3, 19]}, seeds=[1, 2], steps=400)
    assert isinstance(runs, pandas.DataFrame)
    assert list(runs.columns[:4]) == ["run", "cell", "seed", "sheep.neighbours"]
    assert list(runs["run"]) == [0, 1, 2, 3] and list(runs["sheep.neighbours"]) == [3, 3, 19, 19]
    assert set(runs["outcome"]) <= {"succeeded", "step_limit"}


def test_sweep_refuses_bad_input():
    with pytest.raises(ValueError, match=r"herd\.sweep: batch = 0 is not allowed \(allowed: an integer from 1 to 4096\)"):
        herd.sweep(herd.Scenario.default(), batch=0)
    with pytest.raises(ValueError, match="no seeds"):
        herd.sweep(herd.Scenario.default(), seeds=[])
    with pytest.raises(ValueError, match="sheep.neighbours"):  # checked before any run
        herd.sweep(herd.Scenario.default(), vary={"sheep.neighbours": [5, -1]}, seeds=[1])


def test_opencl_when_there_is_a_device():
    try:
        sim = herd.Sim(small(), backend="opencl")
    except herd.HerdError as e:
        pytest.skip(f"no OpenCL: {e}")
    assert sim.backend == "opencl"
    sim.step(10)
    assert np.allclose(sim.positions.astype(np.float64).mean(axis=0), sim.observation["centroid"], atol=1e-3)
    sim.place(0, (50.0, 50.0))
    assert sim.dogs[0]["pos"] == pytest.approx((50.0, 50.0))


def test_a_closed_sim_refuses():
    sim = herd.Sim(small())
    sim.close()
    with pytest.raises(ValueError, match="closed"):
        sim.step()


def test_the_example_script_draws_its_figure(root, tmp_path):
    out = tmp_path / "fig.png"
    script = root / "python" / "examples" / "success_vs_neighbours.py"
    done = subprocess.run([sys.executable, str(script), "--quick", "--out", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Enough neighbours herd the flock, too few do not (Strömbom et al.'s result).
    rates = dict(re.findall(r"n = +(\d+): ([0-9.]+) of", done.stdout))
    assert float(rates["2"]) == 0.0 and float(rates["49"]) == 1.0
    again = subprocess.run([sys.executable, str(script), "--quick", "--out", str(out)], capture_output=True, text=True)
    assert again.returncode == 2 and "--force" in again.stderr  # never replaced without --force


def test_python_readme_runs_as_written(root, tmp_path, monkeypatch):
    """Every python block of python/README.md, in order, from a folder with the scenarios."""
    text = (root / "python" / "README.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)
    assert len(blocks) >= 2
    (tmp_path / "scenarios").symlink_to(root / "scenarios")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        exec(compile(block, "python/README.md", "exec"), namespace)
    assert (tmp_path / "run.h5").exists() and (tmp_path / "at500.ckpt").exists()
    assert namespace["run"].update_terms is not None and len(namespace["rows"]) == 40
    assert namespace["obs"].shape == (64, namespace["env"].observation_size)


def test_the_readme_walkthrough_runs(herd_cli, root, tmp_path):
    """The README's "For researchers" commands: a sweep, a run with its JSON summary and HDF5
    trajectories, and the script that draws them (here smaller)."""
    sweep = tmp_path / "nn"
    subprocess.run([herd_cli, "sweep", "--set", "sheep.count=40", "--vary", "sheep.neighbours=2,20", "--seeds",
                    "1-2", "-s", "1500", "-q", "-o", str(sweep)], check=True)
    run = [herd_cli, "run", "-r", "7", "--set", "sheep.count=40", "--set", "sheep.neighbours=20", "-s", "300",
           "--summary", str(tmp_path / "run.json"), "--set", "output.trajectories.every_steps=10",
           "--trajectories", str(tmp_path / "run.h5")]
    subprocess.run(run, check=True, capture_output=True)
    sys.path.insert(0, str(root / "python" / "examples"))
    import sweep_run_plot

    out = tmp_path / "figure.png"
    n, rate, spread = sweep_run_plot.main(str(sweep), str(tmp_path / "run.json"), str(tmp_path / "run.h5"), str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert n == [2, 20] and rate[0] < rate[1]  # too few neighbours do not herd (Strömbom et al.)
    frames = json.load(open(tmp_path / "run.json"))["steps"] // 10 + 1
    assert len(spread) == frames  # a frame every 10 steps, step 0 included


def test_a_checkpoint_resumes_bit_for_bit(tmp_path):
    """Checkpoint after 150 steps, resume, and run to step 400: the same bits as the run that
    never stopped; the checkpoint's scenario and step come back with it."""
    sc = small()
    whole = herd.Sim(sc, threads=1)
    whole.step(400)
    first = herd.Sim(sc, threads=1)
    first.step(150)
    first.checkpoint(tmp_path / "at150.ckpt")
    scenario, step = herd.checkpoint_scenario(tmp_path / "at150.ckpt")
    assert step == 150 and scenario.count == sc.count and scenario.get("sheep.neighbours") == sc.get("sheep.neighbours")
    resumed = herd.Sim.resume(tmp_path / "at150.ckpt", threads=1)
    assert resumed.step_index == 150
    resumed.step(250)
    assert np.array_equal(resumed.positions, whole.positions) and np.array_equal(resumed.headings, whole.headings)


def test_checkpoints_cross_between_python_and_herd_run(herd_cli, tmp_path):
    """herd run's checkpoint resumes in Python, and Python's in herd run, each as the run that
    never stopped: the same bits, the same end."""
    sets = ["sheep.count=60", "seed=11"]
    sc = small()
    whole = herd.Sim(sc, threads=1)
    whole.step(400)
    cli_ckpt = tmp_path / "cli150.ckpt"
    subprocess.run([herd_cli, "run", "-q", "--steps", "150", "--checkpoint", str(cli_ckpt)]
                   + [a for s in sets for a in ("--set", s)], check=True)
    resumed = herd.Sim.resume(cli_ckpt, threads=1, max_steps=400)
    assert resumed.step_index == 150 and resumed.step(250) == 250
    assert np.array_equal(resumed.positions, whole.positions) and np.array_equal(resumed.headings, whole.headings)
    ours = herd.Sim(sc, threads=1)
    ours.step(150)
    ours.checkpoint(tmp_path / "py150.ckpt")
    done = subprocess.run([herd_cli, "run", "--resume", str(tmp_path / "py150.ckpt"), "--summary", "-", "-q"],
                          capture_output=True, text=True, check=True)
    summary = json.loads(done.stdout)
    outcome = whole.run()
    assert {"succeeded": "finished"}.get(outcome, outcome) == summary["exit_reason"]
    assert whole.step_index == summary["steps"] and summary["observation"]["delivered"] == whole.observation["delivered"]


def test_checkpoint_errors_say_what_and_where(tmp_path):
    """herd's own classes: what the user gave wrong (a file that exists, a folder that does not,
    a file that is not a checkpoint) is a HerdInputError, a ValueError; a write the system refuses
    is a HerdIOError, an OSError. Each message names the file."""
    sim = herd.Sim(small(), threads=1)
    sim.step(2)
    sim.checkpoint(tmp_path / "a.ckpt")
    with pytest.raises(ValueError, match="a.ckpt: file exists"):
        sim.checkpoint(tmp_path / "a.ckpt")
    sim.checkpoint(tmp_path / "a.ckpt", force=True)
    with pytest.raises(ValueError, match="does not exist"):
        sim.checkpoint(tmp_path / "no-such-folder" / "a.ckpt")
    (tmp_path / "bad.ckpt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(herd.HerdInputError, match="bad.ckpt"):
        herd.checkpoint_scenario(tmp_path / "bad.ckpt")
    with pytest.raises(ValueError, match="missing.ckpt"):
        herd.Sim.resume(tmp_path / "missing.ckpt")
    with pytest.raises(OSError) as caught:
        sim.checkpoint("/proc/a.ckpt")  # a folder no file can be made in
    assert isinstance(caught.value, herd.HerdIOError) and "/proc/a.ckpt" in str(caught.value)


def test_the_profile_counts_each_stage_only_when_asked():
    profiled = herd.Sim(small(), threads=1, profile=True)
    profiled.step(25)
    p = profiled.profile
    assert p["step"][1] == 25 and p["step"][0] > 0 and p["steer"][1] == 25
    plain = herd.Sim(small(), threads=1)
    plain.step(25)
    assert all(v == (0.0, 0) for k, v in plain.profile.items() if k not in ("kernels", "waits"))
