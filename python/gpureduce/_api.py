"""The public functions: NumPy's and PyTorch's names and arguments (dim/axis, keepdim/keepdims,
dtype, out), plus exact=, nan=, stream= and batch_invariant=. Where the two libraries differ, the argument's name
picks: dim= follows PyTorch (max(x, dim=1) is (values, indices); dim=() reduces every axis),
axis= follows NumPy (max(x, axis=1) is the values; axis=() reduces none)."""

from . import _reduce
from ._reduce import min_max, values_indices  # noqa: F401  (re-exported by the package)

_UNSET = object()


def _dims(fname, dim, axis, keepdim, keepdims):
    if axis is not _UNSET:
        if dim is not None:
            raise TypeError(f"gpureduce.{fname}: pass dim= or axis=, not both")
        return axis, (keepdim if keepdims is None else keepdims), False
    return dim, (keepdim if keepdims is None else keepdims), True


def _reduction(fname, op, nan_default="propagate"):
    def f(x, dim=None, keepdim=False, *, dtype=None, out=None, exact=False, nan=nan_default, stream=None,
          batch_invariant=False, axis=_UNSET, keepdims=None):
        d, k, torch_style = _dims(fname, dim, axis, keepdim, keepdims)
        return _reduce.reduce(fname, op, x, d, k, dtype, out, exact, nan, stream, torch_style, batch_invariant)
    f.__name__ = f.__qualname__ = fname
    return f


sum = _reduction("sum", "sum")
sum.__doc__ = """The sum over dim (None: every axis; an int or a tuple). Integers and bool sum into int64
(uint16-uint64 into uint64), floats into their own type (16-bit floats accumulate in float32);
dtype= int64, float32 or float64 picks another. exact=True (floating inputs): the exact sum rounded
once, the same bits for any layout, batch or GPU."""
nansum = _reduction("nansum", "sum", "ignore")
nansum.__doc__ = "sum with NaN skipped (nan='ignore')."
prod = _reduction("prod", "prod")
prod.__doc__ = "The product over dim; types as sum."
mean = _reduction("mean", "mean")
mean.__doc__ = """The mean over dim: the sum in float32 (float64 for float64 inputs) divided by the count,
in the input's type or dtype=; integer inputs need a floating dtype=, as torch.mean."""
amin = _reduction("amin", "min")
amin.__doc__ = "The smallest element over dim; NaN propagates unless nan='ignore'."
amax = _reduction("amax", "max")
amax.__doc__ = "The largest element over dim; NaN propagates unless nan='ignore'."
nanmin = _reduction("nanmin", "min", "ignore")
nanmin.__doc__ = "amin with NaN skipped."
nanmax = _reduction("nanmax", "max", "ignore")
nanmax.__doc__ = "amax with NaN skipped."
argmin = _reduction("argmin", "argmin")
argmin.__doc__ = """The index of the smallest element (int64), the first on ties: into the flattened array
for dim=None, along dim otherwise (row-major over several axes)."""
argmax = _reduction("argmax", "argmax")
argmax.__doc__ = "The index of the largest element; as argmin."
all = _reduction("all", "all")
all.__doc__ = "Whether every element over dim is non-zero (bool)."
any = _reduction("any", "any")
any.__doc__ = "Whether any element over dim is non-zero (bool)."


def _extreme(fname, op, pair_op):
    def f(x, dim=None, keepdim=False, *, out=None, exact=False, nan="propagate", stream=None, batch_invariant=False,
          axis=_UNSET, keepdims=None):
        d, k, torch_style = _dims(fname, dim, axis, keepdim, keepdims)
        if torch_style and d is not None:
            if not isinstance(d, int) or isinstance(d, bool):
                raise TypeError(f"gpureduce.{fname}: dim must be an int (for several axes use a{fname})")
            return _reduce.reduce(fname, pair_op, x, d, k, None, out, exact, nan, stream, True, batch_invariant)
        return _reduce.reduce(fname, op, x, d, k, None, out, exact, nan, stream, torch_style, batch_invariant)
    f.__name__ = f.__qualname__ = fname
    f.__doc__ = (f"The {'smallest' if op == 'min' else 'largest'} element: over every axis, or with axis= "
                 f"(NumPy); with an int dim= (PyTorch), the pair (values, indices), the first index on ties.")
    return f


min = _extreme("min", "min", "min_index")
max = _extreme("max", "max", "max_index")


def minmax(x, dim=None, keepdim=False, *, exact=False, nan="propagate", stream=None, batch_invariant=False,
           axis=_UNSET, keepdims=None):
    """(min, max) over dim in one pass, as torch.aminmax."""
    d, k, torch_style = _dims("minmax", dim, axis, keepdim, keepdims)
    return _reduce.reduce("minmax", "minmax", x, d, k, None, None, exact, nan, stream, torch_style, batch_invariant)


def dot(a, b, *, dtype=None, out=None, exact=False, stream=None):
    """sum(a * b) over every element of two contiguous arrays of one shape and dtype (as torch.dot
    for 1-D); dtype=float64 accumulates in float64; exact=True (float32): the exact dot product,
    rounded once."""
    return _reduce.dot("dot", a, b, dtype, out, exact, stream)


def segment_reduce(x, offsets, op="sum", *, dtype=None, out=None, exact=False, nan="propagate", stream=None,
                   unsafe=False, batch_invariant=False):
    """One result per segment of the 1-D contiguous x: segment r is x[offsets[r]:offsets[r + 1]]
    (offsets: int32 or int64, segments + 1 of them, on x's device). op: sum, prod, mean, min, max,
    amin, amax, argmin, argmax (the index within the segment), all, any. An empty segment gives the
    identity (argmin/argmax: -1, mean: NaN). unsafe=False checks the offsets first, which waits
    for the stream (as torch.segment_reduce); unsafe=True skips the check."""
    return _reduce.segments("segment_reduce", op, x, offsets, dtype, out, exact, nan, stream, unsafe, batch_invariant)


def segment_sum(x, offsets, *, dtype=None, out=None, exact=False, nan="propagate", stream=None, unsafe=False,
                batch_invariant=False):
    """segment_reduce(x, offsets, 'sum')."""
    return _reduce.segments("segment_sum", "sum", x, offsets, dtype, out, exact, nan, stream, unsafe, batch_invariant)

