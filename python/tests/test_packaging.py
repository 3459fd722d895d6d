# SPDX-License-Identifier: Apache-2.0
"""The two ways to install the package, `pip install ./python` and
`pip install .` at the repository root, build the same package: the root
pyproject.toml repeats python/pyproject.toml with its paths from the
root."""

import os

try:
    import tomllib
except ImportError:  # Python < 3.11: the parser pip carries
    from pip._vendor import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.dirname(HERE)
ROOT = os.path.dirname(PACKAGE)

# Keys whose values are paths, relative to the pyproject.toml's folder;
# None: scikit-build-core's default, that folder itself.
PATHS = [("project", "readme"),
         ("tool", "scikit-build", "cmake", "source-dir"),
         ("tool", "scikit-build", "wheel", "packages"),
         ("tool", "scikit-build", "metadata", "version", "input")]


def _load(folder):
    with open(os.path.join(folder, "pyproject.toml"), "rb") as f:
        doc = tomllib.load(f)
    for keys in PATHS:
        table = doc
        for key in keys[:-1]:
            table = table.setdefault(key, {})
        value = table.get(keys[-1], ".")
        resolve = lambda p: os.path.normpath(os.path.join(folder, p))
        table[keys[-1]] = ([resolve(p) for p in value]
                           if isinstance(value, list) else resolve(value))
    return {"build-system": doc["build-system"], "project": doc["project"],
            "tool.scikit-build": doc["tool"]["scikit-build"]}


def test_root_pyproject_builds_the_same_package():
    package, root = _load(PACKAGE), _load(ROOT)
    assert root == package
    # Both build python/CMakeLists.txt and ship python/src/clgather.
    sk = root["tool.scikit-build"]
    assert sk["cmake"]["source-dir"] == PACKAGE
    assert sk["wheel"]["packages"] == [os.path.join(PACKAGE, "src",
                                                    "clgather")]
    assert sk["metadata"]["version"]["input"] == os.path.join(
        ROOT, "include", "clgather", "clgather.h")
