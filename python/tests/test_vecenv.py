"""herd.VecEnv against herd.Sim: K worlds of a batch steered from Python run bit for bit as K
simulations steered alike; worlds that end start anew on the next step; bad actions raise."""

import re
import subprocess
import sys

import numpy as np
import pytest

import herd
from herd._lib import ffi, lib
from herd._vecenv import OBSERVATION_DTYPE, STEERING_DTYPE


def flock(count=30, max_steps=400, neighbours=None):
    return herd.Scenario.default().update({"sheep.count": count, "max_steps": max_steps,
                                           "sheep.neighbours": count // 2 if neighbours is None else neighbours})


def packed(record):
    """Every field's bits, leaf by leaf (the C structs' padding left out)."""
    record = np.asarray(record)
    if record.dtype.names is None:
        return record.tobytes()
    return b"".join(packed(record[name]) for name in record.dtype.names)


def sim_state(sim):
    """A Sim's observation and first steering agent, as packed() gives VecEnv.observations()'."""
    obs = np.frombuffer(ffi.buffer(lib.herd_sim_observation(sim._handle), ffi.sizeof("herd_observation")),
                        dtype=OBSERVATION_DTYPE)[0]
    dog = np.frombuffer(ffi.buffer(lib.herd_sim_steering(sim._handle, 0), ffi.sizeof("herd_steering_state")),
                        dtype=STEERING_DTYPE)[0]
    return packed(obs), packed(dog)


def aims_at(step, k):
    """An aim that moves about the field, different for each world."""
    return (20.0 + (1.3 * step + 7.0 * k) % 110.0, 140.0 - (0.9 * step) % 130.0)


def check_worlds_equal_sims(backend):
    env = herd.VecEnv(flock(), num_envs=3, backend=backend)
    obs, info = env.reset(seed=5)
    assert list(info["seed"]) == [5, 6, 7]
    sims = [herd.Sim(flock().set("seed", 5 + k), backend=backend) for k in range(3)]
    for step in range(60):
        actions = np.array([[aims_at(step, k)] for k in range(3)])
        obs, reward, terminated, truncated, info = env.step(actions)
        for k, sim in enumerate(sims):
            sim.steer(0, actions[k, 0])
            sim.step()
    worlds, dogs = env.observations()
    for k, sim in enumerate(sims):
        raw_obs, raw_dog = sim_state(sim)
        assert packed(worlds[k]) == raw_obs, f"world {k}: the observation differs from the Sim's"
        assert packed(dogs[k, 0]) == raw_dog, f"world {k}: the dog differs from the Sim's"
        o = sim.observation
        assert tuple(env.part(obs, "centroid")[k]) == tuple(o["centroid"])
        assert env.part(obs, "step")[k] == sim.step_index == 60
        assert tuple(env.part(obs, "steering[0].pos")[k]) == pytest.approx(sim.dogs[0]["pos"], abs=0)
    assert obs.shape == (3, env.observation_size) and obs.dtype == np.float64
    assert not terminated.any() and not truncated.any()


def test_worlds_run_as_sims_steered_alike():
    check_worlds_equal_sims("cpu")


def test_worlds_run_as_sims_steered_alike_on_opencl():
    try:
        herd.Sim(flock(), backend="opencl")
    except herd.HerdError as e:
        pytest.skip(f"no OpenCL: {e}")
    check_worlds_equal_sims("opencl")


def test_ended_worlds_start_anew_on_the_next_step():
    """Next-step autoreset: the step a world ends returns its last observation and truncated;
    the next returns a new start (step 0, reward 0) seeded after every seed used so far, the
    same as a new Sim of that seed, while the other worlds go on."""
    long, short = flock(max_steps=400), flock(max_steps=12)
    env = herd.VecEnv(short, num_envs=2)
    obs, _ = env.reset(seed=10)
    hold = np.array([[[75.0, 75.0]], [[75.0, 75.0]]])
    for _ in range(11):
        obs, reward, terminated, truncated, info = env.step(hold)
        assert not truncated.any()
    obs, reward, terminated, truncated, info = env.step(hold)
    assert list(truncated) == [True, True] and not terminated.any()
    assert list(env.part(obs, "step")) == [12, 12]
    obs, reward, terminated, truncated, info = env.step(hold)
    assert list(env.part(obs, "step")) == [0, 0] and list(reward) == [0.0, 0.0]
    assert not truncated.any() and list(info["seed"]) == [12, 13]
    worlds, _ = env.observations()
    for k, seed in enumerate((12, 13)):
        assert packed(worlds[k]) == sim_state(herd.Sim(short.copy().set("seed", seed)))[0]
    obs, reward, terminated, truncated, info = env.step(hold)
    assert list(env.part(obs, "step")) == [1, 1]


def test_a_world_ends_alone_and_the_others_go_on(root):
    """Driven by the example's dog, worlds herd their flocks at different steps: one that
    succeeds starts anew (with the next seed) while the others keep stepping."""
    sys.path.insert(0, str(root / "python" / "examples"))
    from python_dog import strombom_dog

    env = herd.VecEnv(flock(count=20, max_steps=3000, neighbours=19), num_envs=3)  # n near N: herded
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    ended = np.zeros(3, dtype=bool)
    for _ in range(3000):
        before = env.part(obs, "step").copy()
        obs, reward, terminated, truncated, info = env.step(strombom_dog(env, obs, 2.0, np.zeros(2), 1.5, rng))
        assert list(env.part(obs, "step")) == [0 if e else b + 1 for e, b in zip(ended, before)]
        if ended.any() and not ended.all():
            break
        ended = terminated | truncated
    assert ended.any() and not ended.all(), "one world should have started anew while the others went on"
    assert sorted(info["seed"][ended]) == list(range(4, 4 + int(ended.sum())))
    assert all(info["seed"][~ended] == np.array([1, 2, 3])[~ended])
    assert not (terminated[ended] | truncated[ended]).any()  # the new start's


def test_default_reward_is_progress_and_delivery():
    """The reward's sum over an episode is 1 - d_end / d_start + the fraction delivered."""
    env = herd.VecEnv(flock(max_steps=300), num_envs=2)
    obs, _ = env.reset(seed=2)
    target = np.zeros(2)
    start = np.linalg.norm(env.part(obs, "centroid") - target, axis=1)
    total = np.zeros(2)
    for step in range(300):
        obs, reward, terminated, truncated, info = env.step(np.array([[aims_at(step, 0)], [aims_at(step, 1)]]))
        total += reward
    end = np.linalg.norm(env.part(obs, "centroid") - target, axis=1)
    delivered = env.part(obs, "delivered") / env.part(obs, "count")
    assert total == pytest.approx(1 - end / start + delivered, rel=1e-9, abs=1e-9)
    assert list(truncated) == [True, True]


def test_a_reward_function_replaces_the_default():
    env = herd.VecEnv(flock(), num_envs=2, reward=lambda previous, obs: obs[:, 0] * 10.0)
    env.reset(seed=1)
    _, reward, *_ = env.step(np.full(env.action_shape, 75.0))
    assert list(reward) == [10.0, 10.0]  # the step index, times ten


def test_bad_actions_raise_and_change_nothing():
    env = herd.VecEnv(flock(), num_envs=2)
    with pytest.raises(ValueError, match=r"call reset\(\) first"):
        env.step(np.zeros(env.action_shape))
    env.reset(seed=1)
    good = np.full(env.action_shape, 75.0)
    cases = [
        (np.zeros((2, 2)), r"actions of shape \(2, 2\); expected \(2, 1, 2\)"),
        (np.zeros((3, 1, 2)), r"actions of shape \(3, 1, 2\); expected \(2, 1, 2\)"),
        ([[["a", "b"]], [["c", "d"]]], "the actions are not numbers"),
    ]
    nan = good.copy()
    nan[1, 0, 1] = np.nan
    cases.append((nan, r"world 1, agent 0: aim\[1\] \(y\) = nan is not a finite number"))
    far = good.copy()
    far[0, 0, 0] = 1e6
    cases.append((far, r"world 0, agent 0: aim\[0\] \(x\) = 1e\+06 is out of range \(allowed: -150 to 300 m\)"))
    for actions, message in cases:
        with pytest.raises(herd.HerdInputError, match=message):
            env.step(actions)
    _, *_, info = env.step(good)
    assert list(info["step"]) == [1, 1]  # no refused call stepped


def test_bad_construction_raises(root):
    with pytest.raises(ValueError, match=r"num_envs = 0 is not allowed"):
        herd.VecEnv(flock(), num_envs=0)
    with pytest.raises(ValueError, match="steering agent 3 cannot be controlled"):
        herd.VecEnv(flock(), controls=[3])
    with pytest.raises(ValueError, match="no steering agent to control"):
        herd.VecEnv(str(root / "scenarios" / "boids2d.json"), num_envs=1)
    with pytest.raises(KeyError, match="no part 'nope'"):
        env = herd.VecEnv(flock())
        env.part(np.zeros((1, env.observation_size)), "nope")


def test_the_python_dog_herds_like_the_built_in_one(root):
    done = subprocess.run([sys.executable, str(root / "python" / "examples" / "python_dog.py"), "--quick"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    herded = {name: int(n) for name, n in re.findall(r"(built-in|Python) dog *: herded (\d+) of 8", done.stdout)}
    assert herded["built-in"] >= 6, done.stdout
    assert herded["Python"] >= herded["built-in"] - 1, done.stdout
