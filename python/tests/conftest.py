"""The package from this checkout (python/), the library from $HERD_LIB (ctest sets it to the
build's libherd.so) and the program from $HERD_CLI (default build/herd), run from the
repository root."""

import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
os.environ.setdefault("HERD_LIB", str(ROOT / "build" / "libherd.so"))


@pytest.fixture
def herd_cli():
    path = os.environ.get("HERD_CLI", str(ROOT / "build" / "herd"))
    if not os.path.exists(path):
        pytest.skip(f"no herd program at {path} (set HERD_CLI)")
    return path


@pytest.fixture
def root():
    return ROOT
