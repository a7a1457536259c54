"""herd for Python: scenarios, simulations and sweeps over libherd.so (cffi, ABI mode).

    import herd
    sc = herd.Scenario.default().set("sheep.count", 80)
    sim = herd.Sim(sc, backend="cpu")
    sim.run()                      # "succeeded" or "step_limit"
    sim.positions, sim.observation["polarisation"], sim.dogs

The library is found through $HERD_LIB, next to this package, or where herd is installed."""

import importlib.util as _util
import sys as _sys

_missing = [name for name in ("cffi", "numpy") if _util.find_spec(name) is None]
if _missing:
    raise ImportError(
        f"herd needs {' and '.join(_missing)}, which this Python ({_sys.executable}) lacks: on Debian use "
        "/usr/bin/python3 with python3-cffi and python3-numpy (scripts/deps.sh installs them), or a venv made "
        "with --system-site-packages (python/README.md)"
    )

from ._lib import lib_path  # noqa: E402
from .core import (  # noqa: E402
    HerdError,
    HerdIndexError,
    HerdInputError,
    HerdIOError,
    Scenario,
    Sim,
    checkpoint_scenario,
    version,
)
from ._sweeps import sweep  # noqa: E402
from ._vecenv import VecEnv  # noqa: E402

__all__ = ["HerdError", "HerdIndexError", "HerdInputError", "HerdIOError", "Scenario", "Sim", "checkpoint_scenario",
           "sweep", "version", "lib_path", "VecEnv"]
