# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: every OpenCL device clgather sees, one context each.

CI installs POCL, so at least one device must exist: a machine without one
fails here instead of skipping. Intel's CPU runtime is tested too when the
ICD loader offers it (OCL_ICD_VENDORS naming its .icd file).
"""

import os

import pytest
from hypothesis import HealthCheck, settings

import clgather

# Fixed examples (derandomize): a failure repeats on every run and machine;
# no example database (no .hypothesis folder beside the tests).
# CLGATHER_HYPOTHESIS_EXAMPLES scales every property test's count.
EXAMPLES = int(os.environ.get("CLGATHER_HYPOTHESIS_EXAMPLES", "300"))
settings.register_profile(
    "clgather", max_examples=EXAMPLES, derandomize=True, database=None,
    deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture])
settings.load_profile("clgather")


def _contexts():
    devices = clgather.devices()
    if not devices:
        raise RuntimeError("no OpenCL device: install POCL "
                           "(Debian: pocl-opencl-icd)")
    return [(d, clgather.Context(d.spec)) for d in devices]


_CONTEXTS = None


@pytest.fixture(scope="session")
def contexts():
    """[(clgather.Device, clgather.Context)] for every device."""
    global _CONTEXTS
    if _CONTEXTS is None:
        _CONTEXTS = _contexts()
    return _CONTEXTS


def pytest_report_header(config):
    lines = ["clgather %s from %s" % (clgather.__version__,
                                      clgather.library_path),
             "hypothesis: %d examples per property, derandomized" % EXAMPLES]
    lines += ["device %s: %s (%s, %s)" % (d.spec, d.name, d.platform_name,
                                          d.version)
              for d in clgather.devices()]
    return lines
