"""gpureduce: fast, correct reductions of CUDA arrays (torch, CuPy, JAX, anything with DLPack or
__cuda_array_interface__), in NumPy/PyTorch conventions. docs/python.md has the reference.

    import gpureduce, torch
    x = torch.randn(4096, 4096, device="cuda")
    gpureduce.sum(x, dim=-1)            # row sums, on torch's current stream, no synchronisation
    gpureduce.sum(x, exact=True)        # the exact sum, rounded once: the same bits on any GPU
"""

from ._api import (all, amax, amin, any, argmax, argmin, dot, max, mean, min, minmax, nanmax, nanmin, nansum, prod,
                   segment_reduce, segment_sum, sum)
from ._reduce import min_max, values_indices

__version__ = "0.1.0"


def _register_torch_ops():
    import sys
    if "torch" in sys.modules:  # torch.compile needs the custom operators before it traces a call
        from . import _arrays
        _arrays.framework_of(None)


_register_torch_ops()
del _register_torch_ops
__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "dot", "max", "mean", "min", "minmax", "nanmax",
           "nanmin", "nansum", "prod", "segment_reduce", "segment_sum", "sum", "min_max", "values_indices"]
