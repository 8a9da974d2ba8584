"""Reductions of a torch tensor sharded over the ranks of a torch.distributed process group: each
rank passes its shard, and every rank gets the reduction of the whole array (docs/python.md,
"Several GPUs"). The shards are the array's consecutive pieces along dim 0 in rank order (rank 0
holds its first rows); any may be empty, and their other dimensions agree.

    import torch.distributed as dist, gpureduce.distributed as gd
    dist.init_process_group("nccl")        # under torchrun
    total = gd.sum(shard, exact=True)       # the same bits on 1, 2, 4 or 8 GPUs

A call makes the local reduction, one collective of the group (NCCL, gloo, or any backend with
an int64 all-reduce) and a few small kernels, on torch's current stream, with no synchronisation.
Every rank must make the same calls in the same order, as with torch.distributed's own. Bits:
- exact=True: the exact sum of the whole array rounded once (each rank's exact sum as integer
  words, added by one int64 all-reduce): those of gpureduce.sum(whole, exact=True) on one GPU,
  whatever the number of ranks or the shards' sizes;
- integer sums, and min, max, all and any of integers and bool: exact;
- floating sums, products and means: the ranks' partials, gathered, combined in rank order, so
  for fixed shards the bits do not depend on the backend's algorithm, protocol or channels;
- argmin/argmax: the index into the whole flattened array of the first best element, as on one
  GPU; -1 where every shard is empty (min and max of no element at all give the identity).
"""

import builtins

from . import _api, _arrays, _dtypes, _reduce

__all__ = ["all", "amax", "amin", "any", "argmax", "argmin", "mean", "prod", "sum"]

# Types whose min/max the backends all-reduce directly (NCCL has no 16-bit integers).
_DIRECT = ("int8", "uint8", "int32", "int64")


def _check(fname, x, group):
    """torch and torch.distributed, once x and the group are known to be usable."""
    import torch
    import torch.distributed as dist
    if not isinstance(x, torch.Tensor) or not x.is_cuda:
        where = f"a torch.Tensor on {x.device}" if isinstance(x, torch.Tensor) else type(x).__name__
        raise TypeError(f"gpureduce.distributed.{fname}: x must be a torch.Tensor on a CUDA device, got {where}")
    if not dist.is_available() or not dist.is_initialized():
        raise RuntimeError(f"gpureduce.distributed.{fname}: torch.distributed is not initialised (call "
                           f"torch.distributed.init_process_group first)")
    return torch, dist


def _code(fname, x):
    """x's dtype code (python/src/call.hpp), and the torch dtype of a code."""
    torch_types = _arrays.framework_of(x)
    code = torch_types.codes.get(x.dtype)
    if code is None:
        raise _arrays._dtype_error("x", x.dtype)
    _reduce._require_core()
    return code, torch_types.dtypes.__getitem__


def _sharded(fname, x, dim):
    """The reduced axes, which must include dim 0, the one the shards are cut along."""
    axes = _reduce._axes(dim, x.dim(), True, f"distributed.{fname}")
    if x.dim() and 0 not in axes:
        raise ValueError(f"gpureduce.distributed.{fname}: dim must include 0, the dimension the ranks' shards are "
                         f"cut along (reduce the other dimensions of a shard with gpureduce.{fname})")
    return axes


def _exchange(torch, dist, group, *parts):
    """Every rank's `parts`, stacked in rank order: one (world, *part.shape) tensor each, from one
    collective. NCCL all-gathers; other backends (gloo has no all-gather of CUDA tensors) sum
    int64 words in which each rank wrote its bytes into a row of zeros, which changes no bit."""
    world = dist.get_world_size(group)
    flat = [p.contiguous().reshape(-1).view(torch.uint8) for p in parts]
    mine = torch.cat(flat) if len(flat) > 1 else flat[0]
    n = mine.numel()
    if n == 0:
        everyone = mine.new_empty((world, 0))
    elif "nccl" in str(dist.get_backend(group)):
        everyone = mine.new_empty((world, n))
        dist.all_gather_into_tensor(everyone, mine, group=group)
    else:
        words = torch.zeros((world, (n + 7) // 8), dtype=torch.int64, device=mine.device)
        words.view(torch.uint8)[dist.get_rank(group), :n] = mine
        dist.all_reduce(words, group=group)
        everyone = words.view(torch.uint8)[:, :n]
    stacked, at = [], 0
    for p, f in zip(parts, flat):
        piece = torch.empty((world, f.numel()), dtype=torch.uint8, device=mine.device)  # at offset 0, aligned
        piece.copy_(everyone[:, at:at + f.numel()])
        stacked.append(piece.view(p.dtype).reshape((world,) + tuple(p.shape)))
        at += f.numel()
    return stacked


def _kept_shape(x, axes, keepdim):
    return tuple(1 if d in axes else e for d, e in enumerate(x.shape)) if keepdim else \
        tuple(e for d, e in enumerate(x.shape) if d not in axes)


def _summed(fname, op, x, dim, keepdim, group, dtype, exact, nan):
    torch, dist = _check(fname, x, group)
    axes = _sharded(fname, x, dim)
    code, dtype_of = _code(fname, x)
    p = _reduce.Plan(fname, op, tuple(x.shape), code, dim, keepdim, dtype, exact, nan, True)
    if exact:
        if len(axes) != x.dim():
            raise ValueError(f"gpureduce.distributed.{fname}: exact=True reduces every dimension (dim=None)")
        return _exact(torch, dist, fname, x, code, p, dtype_of, keepdim, group)
    result = dtype_of(p.result_code)
    if op != "mean" and not result.is_floating_point:  # integer sums and products wrap: any order
        local = (_api.prod if op == "prod" else _api.sum)(x, dim, keepdim, dtype=result)
        dist.all_reduce(local.view(torch.int64), group=group,
                        op=dist.ReduceOp.PRODUCT if op == "prod" else dist.ReduceOp.SUM)
        return local
    acc = dtype_of(p.sum_code if op == "mean" else
                   (_dtypes.FLOAT32 if _dtypes.ITEMSIZE[p.result_code] == 2 else p.result_code))
    local = (_api.prod if op == "prod" else _api.sum)(x, dim, keepdim, dtype=acc, nan=nan)
    if op != "mean":
        parts = _exchange(torch, dist, group, local)[0]
        total = (_api.prod if op == "prod" else _api.sum)(parts, 0, batch_invariant=True)
        return total if total.dtype == result else total.to(result)
    count = torch.full((), p.reduced, dtype=torch.int64, device=x.device)
    parts, counts = _exchange(torch, dist, group, local, count)
    return _over(torch, _api.sum(parts, 0, batch_invariant=True), _api.sum(counts), result)


def _over(torch, total, count, result):
    """total / count (a device integer) into result, as gpureduce.mean divides by its count (torch's
    division by a number): times the count's reciprocal, both in float32, or float64 for float64."""
    wide = torch.float64 if total.dtype == torch.float64 else torch.float32
    return (total.to(wide) * (1 / count.to(wide))).to(result)


def _exact(torch, dist, fname, x, code, p, dtype_of, keepdim, group):
    """The exact sum (or mean) of every rank's shard: the ranks' exchange vectors added by one
    int64 all-reduce, then rounded once."""
    core = _reduce._core
    x = x.contiguous()
    device, stream = x.get_device(), torch.cuda.current_stream(x.device).cuda_stream
    n = x.numel()
    words = torch.empty(core.exchange_words(code), dtype=torch.int64, device=x.device)
    _reduce._call(fname, "exact_words", (x.data_ptr(), code, (n,), (1,), device), stream, (0,), _dtypes.INT64,
                  _dtypes.NO_ACC, words.data_ptr(), (words.numel(),), (1,), False)
    dist.all_reduce(words, group=group)
    out = torch.empty((), dtype=dtype_of(p.sum_code), device=x.device)
    _reduce._call(fname, "round_words", (words.data_ptr(), code, (words.numel(),), (1,), device), stream, (0,),
                  p.sum_code, _dtypes.NO_ACC, out.data_ptr(), (), (), False)
    if fname == "mean":  # the vector's last word: the count
        out = _over(torch, out, words[-1], dtype_of(p.result_code))
    return out.reshape((1,) * x.dim()) if keepdim else out


def _identity(torch, dtype, op):
    if dtype == torch.bool:
        return op == "min"
    if dtype.is_floating_point:
        return float("inf") if op == "min" else float("-inf")
    info = torch.iinfo(dtype)
    return info.max if op == "min" else info.min


def _extreme(fname, op, x, dim, keepdim, group, nan):
    torch, dist = _check(fname, x, group)
    axes = _sharded(fname, x, dim)
    _code(fname, x)
    if builtins.any(x.shape[d] == 0 for d in axes if d != 0):
        raise ValueError(f"gpureduce.distributed.{fname}: the reduced axes of x have no elements, and {fname} has "
                         f"no identity")
    if x.dim() and x.shape[0] == 0:  # an empty shard: the identity, which every element beats
        local = torch.full(_kept_shape(x, axes, keepdim), _identity(torch, x.dtype, op), dtype=x.dtype,
                           device=x.device)
    else:
        local = (_api.amin if op == "min" else _api.amax)(x, dim, keepdim, nan=nan)
    name = str(x.dtype).replace("torch.", "")
    if name in _DIRECT or name == "bool":
        dist.all_reduce(local.view(torch.uint8) if name == "bool" else local, group=group,
                        op=dist.ReduceOp.MIN if op == "min" else dist.ReduceOp.MAX)
        return local
    parts = _exchange(torch, dist, group, local)[0]
    return (_api.amin if op == "min" else _api.amax)(parts, 0, nan=nan)


def _logical(fname, x, dim, keepdim, group):
    torch, dist = _check(fname, x, group)
    _sharded(fname, x, dim)
    _code(fname, x)
    local = (_api.all if fname == "all" else _api.any)(x, dim, keepdim)
    dist.all_reduce(local.view(torch.uint8), group=group,
                    op=dist.ReduceOp.MIN if fname == "all" else dist.ReduceOp.MAX)
    return local


def _arg(fname, x, group, nan):
    torch, dist = _check(fname, x, group)
    _code(fname, x)
    pair_op = "min_index" if fname == "argmin" else "max_index"
    if x.numel():
        value, index = _reduce.reduce(fname, pair_op, x, None, False, None, None, False, nan, None, True)
    else:
        value = torch.full((), _identity(torch, x.dtype, fname[3:]), dtype=x.dtype, device=x.device)
        index = torch.full((), -1, dtype=torch.int64, device=x.device)
    count = torch.full((), x.numel(), dtype=torch.int64, device=x.device)
    values, indices, counts = _exchange(torch, dist, group, value, index, count)
    # The ranks in order, the empty ones last with the first one's value: ties go to the earlier,
    # non-empty rank, and the operator's own rules (NaN, first on ties) pick among the rest.
    order = torch.argsort((counts == 0).to(torch.int8), stable=True)
    starts = (torch.cumsum(counts, 0) - counts).index_select(0, order)
    values, indices, counts = values.index_select(0, order), indices.index_select(0, order), counts.index_select(
        0, order)
    values = torch.where(counts > 0, values, values[0])
    best = (_api.argmin if fname == "argmin" else _api.argmax)(values, nan=nan).reshape(1)
    found = counts.index_select(0, best) > 0
    return torch.where(found, starts.index_select(0, best) + indices.index_select(0, best), -1).reshape(())


def sum(x, dim=None, keepdim=False, *, group=None, dtype=None, exact=False, nan="propagate"):
    """The sum over dim (None: every dimension; it must include 0) of the array whose shards the
    ranks of group pass; types and arguments as gpureduce.sum. exact=True (dim=None): the exact
    sum rounded once, the same bits for any number of ranks."""
    return _summed("sum", "sum", x, dim, keepdim, group, dtype, exact, nan)


def prod(x, dim=None, keepdim=False, *, group=None, dtype=None, nan="propagate"):
    """The product over dim of the sharded array, the ranks' partials combined in rank order."""
    return _summed("prod", "prod", x, dim, keepdim, group, dtype, False, nan)


def mean(x, dim=None, keepdim=False, *, group=None, dtype=None, exact=False):
    """The mean over dim of the sharded array: the sum (exact=True: exact, dim=None) over the
    count of every rank's elements."""
    return _summed("mean", "mean", x, dim, keepdim, group, dtype, exact, "propagate")


def amin(x, dim=None, keepdim=False, *, group=None, nan="propagate"):
    """The smallest element over dim of the sharded array."""
    return _extreme("amin", "min", x, dim, keepdim, group, nan)


def amax(x, dim=None, keepdim=False, *, group=None, nan="propagate"):
    """The largest element over dim of the sharded array."""
    return _extreme("amax", "max", x, dim, keepdim, group, nan)


def argmin(x, *, group=None, nan="propagate"):
    """The index into the whole flattened array (the ranks' shards in order) of its first smallest
    element, on every rank; -1 where every shard is empty."""
    return _arg("argmin", x, group, nan)


def argmax(x, *, group=None, nan="propagate"):
    """As argmin, for the first largest element."""
    return _arg("argmax", x, group, nan)


def all(x, dim=None, keepdim=False, *, group=None):
    """Whether every element over dim of the sharded array is non-zero."""
    return _logical("all", x, dim, keepdim, group)


def any(x, dim=None, keepdim=False, *, group=None):
    """Whether any element over dim of the sharded array is non-zero."""
    return _logical("any", x, dim, keepdim, group)
