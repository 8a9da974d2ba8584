# pytest for the Python package: the CPU tests run everywhere; those marked gpu need torch (or CuPy)
# with a CUDA device and are skipped without one. Seeded inputs: GPUREDUCE_SEED replays a run.
import os
import random

import pytest

SEED = int(os.environ.get("GPUREDUCE_SEED", random.SystemRandom().randrange(1 << 31)))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")


def pytest_report_header(config):
    return f"GPUREDUCE_SEED={SEED}"


def pytest_runtest_logreport(report):
    if report.failed:
        report.sections.append(("seed", f"GPUREDUCE_SEED={SEED} replays this failure"))


def _cuda():
    try:
        import torch
        return torch.cuda.is_available()
    except ImportError:
        pass
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


HAS_GPU = _cuda()


def pytest_collection_modifyitems(config, items):
    if HAS_GPU:
        return
    skip = pytest.mark.skip(reason="SKIPPED: no CUDA device")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def seed(request):
    return SEED ^ (hash(request.node.name) & 0x7FFFFFFF)
