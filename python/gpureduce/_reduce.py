"""The reductions: NumPy/PyTorch-style arguments turned into one call of the extension."""

import collections

from . import _arrays, _dtypes, _torch_ops
from ._arrays import CuPy, Foreign, Torch, _row_major

try:
    from . import _core
except ImportError as e:  # a source tree without the built extension
    _core = None
    _core_error = e

OPS = {"sum": 0, "prod": 1, "min": 2, "max": 3, "argmin": 4, "argmax": 5, "min_index": 6, "max_index": 7,
       "minmax": 8, "all": 9, "any": 10, "exact_sum": 11, "dot": 12, "exact_dot": 13, "exact_words": 14,
       "round_words": 15}
_EXTREME = frozenset(("min", "max", "argmin", "argmax", "min_index", "max_index", "minmax"))

# torch.max(x, dim) and torch.aminmax's results.
values_indices = collections.namedtuple("values_indices", ["values", "indices"])
min_max = collections.namedtuple("min_max", ["min", "max"])


_core_ready = []


def _require_core():
    if _core_ready:
        return
    if _core is None:
        raise ImportError(f"gpureduce: the extension gpureduce._core is not built ({_core_error})")
    if _core.device_count() == 0:
        raise RuntimeError("gpureduce: no CUDA device is present (or no driver)")
    _core_ready.append(True)


def _raise(fname, code, message):
    text = f"gpureduce.{fname}: {message}"
    if code == -1:
        raise TypeError(text)
    if code in (1, 2, 3, 4):
        raise ValueError(text)
    raise RuntimeError(text)


def _dtype_code(dtype, fname):
    """A dtype argument (torch.dtype, NumPy/CuPy dtype or type, name string, float/int/bool) as a code."""
    if isinstance(dtype, str):
        name = dtype
    elif dtype is float:
        name = "float64"
    elif dtype is int:
        name = "int64"
    elif dtype is bool:
        name = "bool"
    else:
        name = getattr(dtype, "name", None) or getattr(dtype, "__name__", None) or str(dtype)
    name = str(name).replace("torch.", "")
    name = {"half": "float16", "float": "float32", "double": "float64", "long": "int64", "int": "int32",
            "bool_": "bool", "short": "int16"}.get(name, name)
    code = _dtypes.CODES.get(name)
    if code is None:
        raise TypeError(f"gpureduce.{fname}: dtype={dtype!r} is not a type gpureduce reduces into")
    return code


def _stream_handle(stream, adapter, device):
    if stream is None:
        return adapter.stream(device)
    if isinstance(stream, int):
        return stream
    for attr in ("cuda_stream", "ptr", "handle"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return proto()[1]
    raise TypeError(f"gpureduce: stream= must be a stream handle (int), a torch.cuda.Stream, a cupy Stream or an "
                    f"object with __cuda_stream__, got {type(stream).__name__}")


def _take(x, arg, stream):
    """(adapter, (pointer, code, shape, strides, device), stream handle, foreign keep-alive)."""
    adapter = _arrays.framework_of(x)
    if adapter is not None:
        info = adapter.describe(x, arg)
        return adapter, info, _stream_handle(stream, adapter, info[4]), None
    if not (hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__")) or hasattr(x, "__array_interface__"):
        where = "a host array " if hasattr(x, "__array_interface__") else ""
        raise _arrays._not_cuda(arg, f"{where}({type(x).__module__}.{type(x).__name__})")
    _require_core()
    adapter = _arrays.result_framework()
    handle = []

    def stream_for(device):
        handle.append(_stream_handle(stream, adapter, device))
        return handle[-1]
    info, capsule = Foreign.describe(x, arg, stream_for, _core)
    # keep: the DLPack capsule (alive until the call is enqueued), or True: results go back to x's framework
    return adapter, info, handle[-1] if handle else _stream_handle(stream, adapter, info[4]), capsule or True


def _axes(dim, ndim, torch_style, fname):
    """The reduced axes, sorted and non-negative."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int) and not isinstance(dim, bool):
        dims = (dim,)
    elif isinstance(dim, (tuple, list)):
        dims = tuple(dim)
        if not dims:
            return tuple(range(ndim)) if torch_style else ()
    else:
        raise TypeError(f"gpureduce.{fname}: dim must be None, an int or a tuple of ints, got {type(dim).__name__}")
    seen = []
    bound = max(ndim, 1)
    for d in dims:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"gpureduce.{fname}: dim must hold ints, got {type(d).__name__}")
        if not -bound <= d < bound:
            raise IndexError(f"gpureduce.{fname}: dim {d} is out of range for an array of {ndim} dimensions "
                             f"(expected in [{-bound}, {bound - 1}])")
        d %= bound
        if d in seen:
            raise ValueError(f"gpureduce.{fname}: dim {d} appears more than once")
        seen.append(d)
    return tuple(sorted(seen)) if ndim else ()


def _count(shape):
    n = 1
    for e in shape:
        n *= e
    return n


def _out_view(out, adapter, code, axes, kept, keep_shape, device, fname):
    """out='s pointer and its strides over the kept axes, after checking it."""
    if _arrays.framework_of(out) is not adapter:
        raise TypeError(f"gpureduce.{fname}: out must be an array of the input's framework ({adapter.module})")
    ptr, out_code, shape, strides, out_device = adapter.describe(out, "out")
    if out_code != code:
        raise TypeError(f"gpureduce.{fname}: out has dtype {_dtypes.NAMES[out_code]}, the result is "
                        f"{_dtypes.NAMES[code]}")
    if out_device != device:
        raise ValueError(f"gpureduce.{fname}: out is on device {out_device}, the input on device {device}")
    shape = tuple(shape)
    if shape == kept:
        return ptr, tuple(strides)
    if shape == keep_shape:
        return ptr, tuple(strides[d] for d in range(len(shape)) if d not in axes)
    raise ValueError(f"gpureduce.{fname}: out has shape {shape}, the result {kept}")


def _call(fname, op, info, stream, axes, out_code, acc_code, out_ptr, out_extents, out_strides,
          nan_ignore, second=0, offsets=0, segments=0, invariant=False):
    ptr, code, shape, strides, device = info
    err, message = _core.reduce(OPS[op], code, out_code, acc_code, ptr, tuple(shape), tuple(strides), axes, out_ptr,
                                out_extents, out_strides, second, offsets, segments, nan_ignore, invariant, device,
                                stream)
    if err:
        _raise(fname, err, message)


def _nan_flag(nan, fname):
    if nan == "propagate":
        return False
    if nan == "ignore":
        return True
    raise ValueError(f"gpureduce.{fname}: nan must be 'propagate' or 'ignore', got {nan!r}")


def _invariant_flag(batch_invariant, fname):
    if isinstance(batch_invariant, bool):
        return batch_invariant
    raise TypeError(f"gpureduce.{fname}: batch_invariant must be True or False, got {batch_invariant!r}")


def _sum_types(code, dtype, fname):
    """(result code, accumulator code) of a sum or product."""
    default = _dtypes.sum_result(code)
    if dtype is None:
        return default, _dtypes.NO_ACC
    want = _dtype_code(dtype, fname)
    if want == default:
        return default, _dtypes.NO_ACC
    if want == code and code != _dtypes.BOOL:
        return code, _dtypes.NO_ACC
    if want in (_dtypes.INT64, _dtypes.FLOAT32, _dtypes.FLOAT64):
        return want, want
    raise TypeError(f"gpureduce.{fname}: dtype={_dtypes.NAMES[want]} for {_dtypes.NAMES[code]} input: the choices "
                    f"are {_dtypes.NAMES[default]} (the default), the input's own type, int64, float32 or float64")


def _result_types(fname, op, code, dtype, exact, nan_ignore):
    """(kernel, result code, code the kernel writes, accumulator code) of op ('mean' or an OPS name)
    over elements of type code, with PyTorch's type rules and dtype=; exact= and nan= checked."""
    if exact and op in ("sum", "prod", "mean"):
        if op == "prod":
            raise ValueError(f"gpureduce.{fname}: exact=True applies to sums and means; a product has no "
                             f"exact mode")
        if code not in _dtypes.FLOATING:
            raise TypeError(f"gpureduce.{fname}: exact=True takes floating inputs (integer sums are exact "
                            f"already), got {_dtypes.NAMES[code]}")
        if nan_ignore:
            raise ValueError(f"gpureduce.{fname}: exact sums propagate NaN; nan='ignore' is not available "
                             f"with exact=True")
    acc_code = _dtypes.NO_ACC
    if op == "mean":
        if nan_ignore:
            raise ValueError(f"gpureduce.{fname}: nan='ignore' is not available for mean")
        result_code = code if dtype is None else _dtype_code(dtype, fname)
        if result_code not in _dtypes.FLOATING:
            raise TypeError(f"gpureduce.{fname}: mean of {_dtypes.NAMES[code]} needs a floating dtype= "
                            f"(as torch.mean), got {_dtypes.NAMES[result_code]}")
        sum_code = _dtypes.mean_accumulator(result_code)
        if exact:
            kernel = "exact_sum"
            sum_code = sum_code if sum_code in (code, _dtypes.FLOAT64) else code
        else:
            kernel = "sum"
            acc_code = _dtypes.NO_ACC if sum_code == _dtypes.sum_result(code) else sum_code
    elif op in ("sum", "prod"):
        if exact:
            kernel = "exact_sum"
            result_code = code if dtype is None else _dtype_code(dtype, fname)
            if result_code not in (code, _dtypes.FLOAT64):
                raise TypeError(f"gpureduce.{fname}: an exact sum rounds into the input's type or float64, "
                                f"not {_dtypes.NAMES[result_code]}")
        else:
            kernel = op
            result_code, acc_code = _sum_types(code, dtype, fname)
        sum_code = result_code
    else:
        if dtype is not None:
            raise TypeError(f"gpureduce.{fname}: dtype= applies to sums, products and means, not to {fname}")
        kernel = op
        result_code = sum_code = _RESULT.get(op, code)
    return kernel, result_code, sum_code, acc_code


class Plan:
    """What a reduction of an array of `shape` and dtype `code` over dim computes, and into what."""
    __slots__ = ("kernel", "axes", "kept", "keep_shape", "reduced", "result_code", "sum_code", "acc_code",
                 "nan_ignore", "invariant", "scalar", "op_code", "results", "out_strides", "simple", "code")

    def __init__(self, fname, op, shape, code, dim, keepdim, dtype, exact, nan, torch_style, batch_invariant=False):
        self.code = code
        self.nan_ignore = nan_ignore = _nan_flag(nan, fname)
        self.invariant = _invariant_flag(batch_invariant, fname)
        if len(shape) > 8:
            raise ValueError(f"gpureduce.{fname}: x has {len(shape)} dimensions; gpureduce takes up to 8")
        self.scalar = not shape
        if not shape:  # a 0-d array: one element, reduced over its one (implicit) axis
            _axes(dim, 0, torch_style, fname)
            shape, axes, kept, keep_shape = (1,), (0,), (), ()
        else:
            axes = _axes(dim, len(shape), torch_style, fname)
            kept = tuple(e for d, e in enumerate(shape) if d not in axes)
            keep_shape = tuple(1 if d in axes else e for d, e in enumerate(shape)) if keepdim else kept
        self.axes, self.kept, self.keep_shape = axes, kept, keep_shape
        self.reduced = reduced = _count(shape[d] for d in axes)
        kernel, result_code, sum_code, acc_code = _result_types(fname, op, code, dtype, exact, nan_ignore)
        if op in _EXTREME and reduced == 0 and _count(kept) > 0:
            raise ValueError(f"gpureduce.{fname}: the reduced axes of x have no elements, and {fname} has no "
                             f"identity")
        self.kernel, self.result_code, self.sum_code, self.acc_code = kernel, result_code, sum_code, acc_code
        self.op_code, self.results, self.out_strides = OPS[kernel], _count(kept), _row_major(kept)
        self.simple = op not in ("mean", "min_index", "max_index", "minmax")  # one result array, as computed


_RESULT = {"argmin": _dtypes.INT64, "argmax": _dtypes.INT64, "all": _dtypes.BOOL, "any": _dtypes.BOOL}


_plans = {}  # Plan by call signature: a repeated call skips the planning
# The common call (a torch tensor on a CUDA device, one result array, no out= or stream=): the plan,
# the result's torch dtype and the shape and strides passed to the extension, by the signature read
# straight from the tensor, so that a repeated call skips describing it.
_torch_calls = {}


def reduce(fname, op, x, dim, keepdim, dtype, out, exact, nan, stream, torch_style, batch_invariant=False):
    """One reduction of x over dim: op names the extension's operator (OPS) or 'mean'."""
    if _torch_ops.compiling():  # before anything torch.compile cannot trace (data_ptr)
        return _torch_ops.call(fname, op, x, dim, keepdim, dtype, out, exact, nan, stream, torch_style,
                               batch_invariant)
    fast = None
    if out is None and stream is None and isinstance(x, Torch.tensor) and x.is_cuda:
        fast = (fname, op, x.dtype, x.shape, x.stride(), dim, keepdim, dtype, exact, nan, torch_style,
                batch_invariant)
        try:
            hit = _torch_calls.get(fast)
        except TypeError:  # a dim list: not hashable
            hit = fast = None
        if hit is not None:
            p, result_dtype, shape, strides = hit
            device = x.get_device()
            result = x.new_empty(p.kept, dtype=result_dtype)
            if p.results:
                _run(fname, p, x.data_ptr(), shape, strides, result.data_ptr(), device, Torch.stream(device))
            return result.reshape(p.keep_shape) if keepdim else result
    adapter, info, handle, keep = _take(x, "x", stream)
    _require_core()
    ptr, code, shape, strides, device = info
    key = (fname, op, code, shape, strides, dim, keepdim, dtype, exact, nan, torch_style, batch_invariant)
    try:
        p = _plans.get(key)
    except TypeError:  # a dim list: not hashable
        p, key = None, None
    if p is None:
        p = Plan(fname, op, shape, code, dim, keepdim, dtype, exact, nan, torch_style, batch_invariant)
        if key is not None and len(_plans) < 4096:
            _plans[key] = p
    if p.scalar:
        info = (ptr, code, (1,), (1,), device)
        shape, strides = info[2], info[3]
    if p.simple and out is None:  # the common call, in as few steps as it takes
        if fast is not None and len(_torch_calls) < 4096:
            _torch_calls[fast] = (p, Torch.dtypes[p.sum_code], shape, strides)
        result = adapter.empty(p.kept, p.sum_code, device)
        if p.results:
            _run(fname, p, ptr, shape, strides, _ptr(adapter, result), device, handle)
        if keepdim:
            result = result.reshape(p.keep_shape)
        return result if keep is None else _arrays.to_caller(x, result)
    return execute(fname, op, p, adapter, info, handle, keepdim, out, x if keep is not None else None)


def _run(fname, p, ptr, shape, strides, out_ptr, device, stream):
    """Plan p's one call of the extension, for a simple plan: the array at ptr (shape and strides as
    given to the extension) into a contiguous result at out_ptr."""
    err, message = _core.reduce(p.op_code, p.code, p.sum_code, p.acc_code, ptr, shape, strides, p.axes, out_ptr,
                                p.kept, p.out_strides, 0, 0, 0, p.nan_ignore, p.invariant, device, stream)
    if err:
        _raise(fname, err, message)


def execute(fname, op, p, adapter, info, handle, keepdim, out, foreign):
    """Runs plan p on the array described by info; foreign: the input, where its results go back to
    its framework."""
    device = info[4]
    kept, keep_shape, axes = p.kept, p.keep_shape, p.axes
    results = _count(kept)
    if op in ("min_index", "max_index", "minmax"):
        if out is not None:
            raise TypeError(f"gpureduce.{fname}: out= is not available where the result is a pair")
        # IndexedValue<T> is {T value; int64 index}: 16 bytes; MinMax<T> is {T min; T max}.
        code = info[1]
        buffer = adapter.empty(kept + (2,), code if op == "minmax" else _dtypes.INT64, device)
        if results:
            _call(fname, p.kernel, info, handle, axes, code, p.acc_code, _ptr(adapter, buffer), kept,
                  _row_major(kept), p.nan_ignore, invariant=p.invariant)
        if op == "minmax":
            first, second = buffer[..., 0], buffer[..., 1]
        else:
            first, second = adapter.view(buffer, code)[..., 0], buffer[..., 1]
        if keepdim:
            first, second = first.reshape(keep_shape), second.reshape(keep_shape)
        if foreign is not None:
            first, second = _arrays.to_caller(foreign, first), _arrays.to_caller(foreign, second)
        return min_max(first, second) if op == "minmax" else values_indices(first, second)

    direct = out is not None and p.sum_code == p.result_code
    if direct:
        out_ptr, out_strides = _out_view(out, adapter, p.result_code, axes, kept, keep_shape, device, fname)
        result = out
    else:
        result = adapter.empty(kept, p.sum_code, device)
        out_ptr, out_strides = _ptr(adapter, result), _row_major(kept)
    if results:
        _call(fname, p.kernel, info, handle, axes, p.sum_code, p.acc_code, out_ptr, kept, out_strides, p.nan_ignore,
              invariant=p.invariant)
    if op == "mean":
        result /= p.reduced
        if direct:
            return out
        if p.sum_code != p.result_code:
            result = adapter.cast(result, p.result_code)
        if out is not None:
            _out_view(out, adapter, p.result_code, axes, kept, keep_shape, device, fname)
            out[...] = result.reshape(out.shape)
            return out
    if direct:
        return out
    if keepdim:
        result = result.reshape(keep_shape)
    if foreign is not None:
        result = _arrays.to_caller(foreign, result)
    return result


def _ptr(adapter, a):
    return a.data_ptr() if adapter is Torch else a.data.ptr


_SEGMENT_OPS = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "amin": "min", "amax": "max",
                "argmin": "argmin", "argmax": "argmax", "all": "all", "any": "any", "mean": "mean"}


def segments(fname, op, x, offsets, dtype, out, exact, nan, stream, unsafe, batch_invariant=False):
    """One result per segment of the 1-D x: segment r is x[offsets[r]:offsets[r + 1]]."""
    kind = _SEGMENT_OPS.get(op)
    if kind is None:
        raise ValueError(f"gpureduce.{fname}: op must be one of {', '.join(_SEGMENT_OPS)}, got {op!r}")
    adapter, info, handle, keep = _take(x, "x", stream)
    _require_core()
    ptr, code, shape, strides, device = info
    if len(shape) != 1 or (shape[0] > 1 and strides[0] != 1):
        raise ValueError(f"gpureduce.{fname}: x must be one contiguous dimension, got shape {tuple(shape)} "
                         f"and strides {tuple(strides)}")
    if _arrays.framework_of(offsets) is not adapter:
        raise TypeError(f"gpureduce.{fname}: offsets must be an array of x's framework ({adapter.module})")
    o_ptr, o_code, o_shape, o_strides, o_device = adapter.describe(offsets, "offsets")
    if o_code not in (_dtypes.INT64, 5):
        raise TypeError(f"gpureduce.{fname}: offsets must be int32 or int64, got {_dtypes.NAMES[o_code]}")
    if len(o_shape) != 1 or o_shape[0] < 1:
        raise ValueError(f"gpureduce.{fname}: offsets must be 1-D with at least one element (segments + 1 "
                         f"offsets), got shape {tuple(o_shape)}")
    if o_device != device:
        raise ValueError(f"gpureduce.{fname}: offsets are on device {o_device}, x on device {device}")
    if o_code != _dtypes.INT64 or (o_shape[0] > 1 and o_strides[0] != 1):
        offsets = adapter.cast(offsets, _dtypes.INT64)
        if o_shape[0] > 1 and adapter.describe(offsets, "offsets")[3][0] != 1:
            offsets = offsets.copy() if adapter is CuPy else offsets.contiguous()
        o_ptr = adapter.describe(offsets, "offsets")[0]
    count = o_shape[0] - 1
    nan_ignore = _nan_flag(nan, fname)
    invariant = _invariant_flag(batch_invariant, fname)
    kernel, result_code, sum_code, acc_code = _result_types(fname, kind, code, dtype, exact, nan_ignore)
    if not unsafe and count:
        err, message, first = _core.check_offsets(o_ptr, count, shape[0], device, handle)
        if err:
            raise ValueError(f"gpureduce.{fname}: offsets: {message} (segment {first})")

    direct = out is not None and sum_code == result_code
    if direct:
        out_ptr, _ = _out_view(out, adapter, result_code, (), (count,), (count,), device, fname)
        if count > 1 and adapter.describe(out, "out")[3][0] != 1:
            raise ValueError(f"gpureduce.{fname}: out must be contiguous")
        result = out
    else:
        result = adapter.empty((count,), sum_code, device)
        out_ptr = _ptr(adapter, result)
    if count:
        _call(fname, kernel, (ptr, code, shape, strides, device), handle, (), sum_code, acc_code, out_ptr,
              (count,), (1,), nan_ignore, offsets=o_ptr, segments=count, invariant=invariant)
    if kind == "mean":
        result /= offsets[1:] - offsets[:-1]
        if not direct:
            if sum_code != result_code:
                result = adapter.cast(result, result_code)
            if out is not None:
                _out_view(out, adapter, result_code, (), (count,), (count,), device, fname)
                out[...] = result
                result = out
    if keep is not None:
        result = _arrays.to_caller(x, result)
    return result


def dot(fname, a, b, dtype, out, exact, stream):
    """sum(a * b) over every element of a and b."""
    adapter, info, handle, keep = _take(a, "a", stream)
    _require_core()
    if _arrays.framework_of(b) is not adapter and keep is None:
        raise TypeError(f"gpureduce.{fname}: b must be an array of a's framework ({adapter.module})")
    b_adapter, b_info, _, b_keep = _take(b, "b", stream) if keep is not None else (adapter, adapter.describe(b, "b"),
                                                                                 None, None)
    ptr, code, shape, strides, device = info
    if b_info[1] != code:
        raise TypeError(f"gpureduce.{fname}: a is {_dtypes.NAMES[code]}, b is {_dtypes.NAMES[b_info[1]]}")
    if tuple(b_info[2]) != tuple(shape):
        raise ValueError(f"gpureduce.{fname}: a has shape {tuple(shape)}, b {tuple(b_info[2])}")
    if b_info[4] != device:
        raise ValueError(f"gpureduce.{fname}: a is on device {device}, b on device {b_info[4]}")
    for arg, s in (("a", strides), ("b", b_info[3])):
        if any(e > 1 and st != r for e, st, r in zip(shape, s, _row_major(shape))):
            raise ValueError(f"gpureduce.{fname}: {arg} must be contiguous (row-major)")
    n = _count(shape)
    if exact:
        if code != _dtypes.FLOAT32:
            raise TypeError(f"gpureduce.{fname}: exact=True takes float32, got {_dtypes.NAMES[code]}")
        if dtype is not None and _dtype_code(dtype, fname) != _dtypes.FLOAT32:
            raise TypeError(f"gpureduce.{fname}: an exact dot product rounds into float32")
        kernel, result_code, acc_code = "exact_dot", _dtypes.FLOAT32, _dtypes.NO_ACC
    else:
        kernel = "dot"
        default = _dtypes.sum_result(code)
        want = default if dtype is None else _dtype_code(dtype, fname)
        if want == default:
            result_code, acc_code = default, _dtypes.NO_ACC
        elif want == _dtypes.FLOAT64:
            result_code, acc_code = want, want
        else:
            raise TypeError(f"gpureduce.{fname}: dtype= of a dot product: float64, or none "
                            f"({_dtypes.NAMES[default]})")
    if out is not None:
        out_ptr, _ = _out_view(out, adapter, result_code, (), (), (), device, fname)
        result = out
    else:
        result = adapter.empty((), result_code, device)
        out_ptr = _ptr(adapter, result)
    flat = (ptr, code, (n,), (1,), device)
    _call(fname, kernel, flat, handle, (0,), result_code, acc_code, out_ptr, (), (), False,
          second=b_info[0])
    if keep is not None and out is None:
        result = _arrays.to_caller(a, result)
    return result
