"""gpureduce's reductions as torch custom operators (torch.library), so that torch.compile traces
them as single operators (with fake implementations for their shapes) instead of breaking its graph.
Eager calls skip them: they cost a dispatch that the direct path does not need."""

import sys

_ops = {}


def compiling():
    torch = sys.modules.get("torch")
    return torch is not None and torch.compiler.is_compiling()


def _register():
    from typing import List, Optional, Tuple

    import torch

    from . import _reduce
    from ._arrays import Torch

    def plan(x, fname, op, dim, keepdim, dtype, exact, nan, torch_style, invariant):
        code = Torch.codes[x.dtype]
        return _reduce.Plan(fname, op, tuple(x.shape), code, dim, keepdim, dtype, exact, nan, torch_style, invariant)

    @torch.library.custom_op("gpureduce::reduce", mutates_args=())
    def reduce_op(x: torch.Tensor, fname: str, op: str, dim: Optional[List[int]], keepdim: bool,
                  dtype: Optional[torch.dtype], exact: bool, nan: str, torch_style: bool,
                  invariant: bool) -> torch.Tensor:
        return _reduce.reduce(fname, op, x, dim, keepdim, dtype, None, exact, nan, None, torch_style, invariant)

    @reduce_op.register_fake
    def _(x, fname, op, dim, keepdim, dtype, exact, nan, torch_style, invariant):
        p = plan(x, fname, op, dim, keepdim, dtype, exact, nan, torch_style, invariant)
        return x.new_empty(p.keep_shape, dtype=Torch.dtypes[p.result_code])

    @torch.library.custom_op("gpureduce::reduce_pair", mutates_args=())
    def pair_op(x: torch.Tensor, fname: str, op: str, dim: Optional[List[int]], keepdim: bool, nan: str,
                torch_style: bool, invariant: bool) -> Tuple[torch.Tensor, torch.Tensor]:
        a, b = _reduce.reduce(fname, op, x, dim, keepdim, None, None, False, nan, None, torch_style, invariant)
        return a.contiguous(), b.contiguous()

    @pair_op.register_fake
    def _(x, fname, op, dim, keepdim, nan, torch_style, invariant):
        p = plan(x, fname, op, dim, keepdim, None, False, nan, torch_style, invariant)
        second = x.dtype if op == "minmax" else torch.int64
        return x.new_empty(p.keep_shape), x.new_empty(p.keep_shape, dtype=second)

    _ops["reduce"], _ops["pair"] = reduce_op, pair_op
    _ops["dtype"] = lambda d: None if d is None else Torch.dtypes[_reduce._dtype_code(d, "dtype")]
    _ops["tuple"] = {"minmax": _reduce.min_max, "min_index": _reduce.values_indices,
                     "max_index": _reduce.values_indices}


def register():
    """Registers the operators (once; the package does it on import where torch is imported)."""
    if not _ops:
        _register()


def call(fname, op, x, dim, keepdim, dtype, out, exact, nan, stream, torch_style, invariant=False):
    """The reduction as a custom operator, for torch.compile's graphs (out= and stream= are eager-only)."""
    if out is not None or stream is not None:
        raise TypeError(f"gpureduce.{fname}: out= and stream= are not available under torch.compile")
    register()
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    if op in _ops["tuple"]:
        return _ops["tuple"][op](*_ops["pair"](x, fname, op, dims, keepdim, nan, torch_style, invariant))
    return _ops["reduce"](x, fname, op, dims, keepdim, _ops["dtype"](dtype), exact, nan, torch_style, invariant)
