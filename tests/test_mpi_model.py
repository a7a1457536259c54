"""bench/mpi_model.py: the halo against a brute count on a synthetic flock, and the limits
the model must keep (run by ctest as test_mpi_model)."""

import dataclasses
import math
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import mpi_model as m  # noqa: E402

P = m.Parameters()


def brute_halo(points, side, px, py, width):
    """Per rank: the other ranks' agents within `width` (Euclidean) of the rank's box, counted
    one by one (each rank owns the agents in its box of the px x py cut)."""
    dx, dy = side / px, side / py
    counts = {}
    for i in range(px):
        for j in range(py):
            x0, x1, y0, y1 = i * dx, (i + 1) * dx, j * dy, (j + 1) * dy
            n = 0
            for x, y in points:
                inside = x0 <= x < x1 and y0 <= y < y1
                gx, gy = max(x0 - x, 0, x - x1), max(y0 - y, 0, y - y1)
                near = gx * gx + gy * gy <= width * width
                n += near and not inside
            counts[(i, j)] = n
    return counts


@pytest.mark.parametrize("layout,ranks", [("slabs", 4), ("grid", 4), ("grid", 6)])
def test_halo_equals_brute_count(layout, ranks):
    rng = random.Random(17)
    agents, density, width = 20000, 0.25, 25.0  # wide: the corners count
    p = dataclasses.replace(P, density_per_m2=density, halo_width_m=width)
    side = math.sqrt(agents / density)
    points = [(rng.uniform(0, side), rng.uniform(0, side)) for _ in range(agents)]
    px, py = m.layout_shape(layout, ranks)
    counted = brute_halo(points, side, px, py, width)
    total = sum(counted.values())
    model_total = m.halo_agents(layout, ranks, agents, p, reduce=sum)
    # About 7000 halo agents in all: the noise is about 1 %.
    assert abs(total - model_total) < 0.04 * model_total, (total, model_total)
    busiest = max(counted.values())
    assert abs(busiest - m.halo_agents(layout, ranks, agents, p)) < 0.1 * busiest


def test_one_rank_has_no_halo_messages_or_collectives():
    for layout in m.LAYOUTS:
        t = m.step_time(layout, 1, 1e6, P)
        assert t["halo_agents"] == 0 and t["messages"] == 0
        assert t["exchange"] == 0 and t["host"] == 0 and t["reduce"] == 0
        assert t["total"] == pytest.approx(P.t_agent_s * 1e6)


def test_doubling_agents_doubles_compute():
    for layout in m.LAYOUTS:
        a, b = m.step_time(layout, 16, 1e8, P), m.step_time(layout, 16, 2e8, P)
        assert b["compute"] == pytest.approx(2 * a["compute"])
        # The halo grows with the side, sqrt(2), not with N (but for the w x w corners).
        assert b["halo_agents"] == pytest.approx(math.sqrt(2) * a["halo_agents"], rel=0.01)


def test_slab_halo_stays_grid_halo_shrinks():
    # Interior ranks from P = 9 (3 x 3) on: each has a neighbour on every side.
    slabs = [m.halo_agents("slabs", g, 1e8, P) for g in (9, 16, 64)]
    grid = [m.halo_agents("grid", g, 1e8, P) for g in (9, 16, 64)]
    assert slabs[0] == pytest.approx(slabs[1]) == pytest.approx(slabs[2])
    assert grid[0] > grid[1] > grid[2]
    assert all(g < s for g, s in zip(grid[1:], slabs[1:]))


def test_two_slabs_have_one_neighbour_each():
    assert m.messages_per_step("slabs", 2) == 2  # the halo and the migrants, to the one neighbour
    assert m.messages_per_step("slabs", 8) == 4
    assert m.messages_per_step("grid", 16) == 2 * 8  # 4 sides and 4 corners
    assert m.grid_shape(12) == (4, 3) and m.grid_shape(7) == (7, 1)


def test_network_terms():
    t = m.step_time("grid", 64, 1e8, P)
    fast = m.step_time("grid", 64, 1e8, dataclasses.replace(P, beta_bytes_per_s=2 * P.beta_bytes_per_s))
    assert fast["exchange"] < t["exchange"] and fast["compute"] == t["compute"]
    direct = m.step_time("grid", 64, 1e8, dataclasses.replace(P, host_staging=False))
    assert direct["host"] == 0 and direct["total"] < t["total"]
    assert m.step_time("grid", 64, 1e8, P)["reduce"] > m.step_time("grid", 8, 1e8, P)["reduce"]


def write_scaling(path):
    with open(path, "w") as f:
        f.write("# herd: {\"version\": \"x\"}\n")
        f.write("scaling,model,ranks,layout,agents,density_per_m2,ns_per_agent_step,halo_width_m,"
                "halo_agents_per_step,halo_bytes_per_step,bytes_per_message,messages_per_step\n")
        f.write("weak,strombom,1,slabs,20000,0.2,2000,,0,0,,0\n")
        f.write("weak,strombom,2,slabs,40000,0.2,2100,9.5,1000,32000,8000,6\n")
        f.write("weak,boids,1,slabs,20000,0.004,900,,0,0,,0\n")


def test_measured_inputs_from_scaling_csv(tmp_path):
    path = tmp_path / "scaling.csv"
    write_scaling(path)
    got = m.measured_inputs(m.read_scaling(str(path)))
    assert got["bytes_per_agent"] == pytest.approx(32)
    assert got["halo_width_m"] == pytest.approx(9.5)
    assert got["density_per_m2"] == pytest.approx(0.2)
    assert got["t_agent_s"] == pytest.approx(2e-6)  # the 1-rank strombom row, not boids'
    assert got["messages_per_neighbour"] == pytest.approx(3)  # 6 messages, 2 slabs facing each other
    p = m.apply_measured(P, got, use_t_agent=False)
    assert p.bytes_per_agent == 32 and p.t_agent_s == P.t_agent_s
    assert m.step_time("slabs", 8, 1e8, p)["messages"] == 3 * 2


def test_command_writes_plot_and_markdown(tmp_path):
    path = tmp_path / "scaling.csv"
    write_scaling(path)
    assert m.main(["--scaling", str(path), "--out", str(tmp_path), "--t-agent-ns", "csv"]) == 0
    md = (tmp_path / "mpi-model.md").read_text()
    assert "measured: 1 rank" in md and "| 1e+09 | 64 | grid 8x8 |" in md
    assert "The measured runs against the model's halo" in md
    assert (tmp_path / "mpi-model.png").stat().st_size > 10000


def test_bad_options_exit_2(tmp_path):
    for argv in (["--t-agent-ns", "-1", "--out", str(tmp_path)], ["--t-agent-ns", "csv", "--out", str(tmp_path)],
                 ["--out", str(tmp_path / "missing")]):
        with pytest.raises(SystemExit) as e:
            m.main(argv)
        assert e.value.code == 2
