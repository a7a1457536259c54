"""The package's build beside pyproject.toml: a wheel made with libherd.so.1 inside the package
(cmake --build build --target python-wheel copies it there) carries the machine's tag, as a
wheel with a compiled library must; without it the package is pure Python and finds the
library at run time (python/README.md)."""

import pathlib

from setuptools import setup
from setuptools.dist import Distribution

BUNDLED = (pathlib.Path(__file__).resolve().parent / "herd" / "libherd.so.1").exists()


class HerdDistribution(Distribution):
    def has_ext_modules(self):
        return BUNDLED


setup(distclass=HerdDistribution)
