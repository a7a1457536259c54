"""herd for Python: scenarios, simulations and sweeps over libherd.so (cffi, ABI mode).

    import herd
    sc = herd.Scenario.default().set("sheep.count", 80)
    sim = herd.Sim(sc, backend="cpu")
    sim.run()                      # "succeeded" or "step_limit"
    sim.positions, sim.observation["polarisation"], sim.dogs

The library is found through $HERD_LIB, next to this package, or where herd is installed."""

from ._lib import lib_path
from .core import HerdError, HerdIndexError, HerdInputError, Scenario, Sim, sweep, version

__all__ = ["HerdError", "HerdIndexError", "HerdInputError", "Scenario", "Sim", "sweep", "version", "lib_path"]
