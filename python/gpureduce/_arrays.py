"""The arrays gpureduce takes and returns: torch tensors and CuPy arrays directly (zero-copy, on the
framework's current stream), anything else through __cuda_array_interface__ or DLPack.

Each framework is a class of static methods: describe(x) -> (pointer, dtype code, shape, element
strides, device); empty(shape, code, device); the current stream; and the few array operations the
reductions need on their results (a dtype view, a slice of the last axis, a reshape, a cast, a
division in place)."""

import ctypes
import sys

from . import _dtypes

_FRAMEWORKS = []  # (module name, adapter class), filled as frameworks are found imported


def _not_cuda(arg, what):
    return TypeError(f"gpureduce: {arg} must be a CUDA array (a torch.Tensor on a CUDA device, a cupy.ndarray, "
                     f"or an object with __cuda_array_interface__ or __dlpack__), got {what}")


def _dtype_error(arg, name):
    return TypeError(f"gpureduce: {arg} has dtype {name}, which gpureduce does not reduce "
                     f"(supported: {', '.join(_dtypes.CODES)})")


class Torch:
    module = "torch"
    tensor = ()  # torch.Tensor once setup() ran: isinstance(x, ()) is False before

    @staticmethod
    def setup():
        import torch
        Torch.torch = torch
        codes = {torch.bool: 0, torch.int8: 1, torch.uint8: 2, torch.int16: 3, torch.int32: 5, torch.int64: 7,
                 torch.float16: 9, torch.bfloat16: 10, torch.float32: 11, torch.float64: 12}
        for name, code in (("uint16", 4), ("uint32", 6), ("uint64", 8)):
            if hasattr(torch, name):
                codes[getattr(torch, name)] = code
        Torch.codes = codes
        Torch.dtypes = {code: dt for dt, code in codes.items()}
        Torch.tensor = torch.Tensor
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
        Torch.stream = staticmethod(raw if raw is not None else
                                    (lambda d: torch.cuda.current_stream(d).cuda_stream))
        from . import _torch_ops
        _torch_ops.register()

    @staticmethod
    def owns(x):
        return isinstance(x, Torch.tensor)

    @staticmethod
    def describe(x, arg):
        if not x.is_cuda:
            raise _not_cuda(arg, f"a torch.Tensor on {x.device}")
        code = Torch.codes.get(x.dtype)
        if code is None:
            raise _dtype_error(arg, x.dtype)
        return x.data_ptr(), code, tuple(x.shape), x.stride(), x.get_device()

    @staticmethod
    def empty(shape, code, device):
        return Torch.torch.empty(shape, dtype=Torch.dtypes[code], device=device)

    @staticmethod
    def dtype(code):
        return Torch.dtypes[code]

    @staticmethod
    def view(a, code):
        return a.view(Torch.dtypes[code])

    @staticmethod
    def cast(a, code):
        return a.to(Torch.dtypes[code])


class CuPy:
    module = "cupy"

    @staticmethod
    def setup():
        import cupy
        CuPy.cupy = cupy
        CuPy.ndarray = cupy.ndarray
        CuPy.dtypes = {}
        for name, code in _dtypes.CODES.items():
            try:
                CuPy.dtypes[code] = cupy.dtype(name)
            except TypeError:
                pass  # bfloat16 without ml_dtypes
        CuPy.codes = {dt: code for code, dt in CuPy.dtypes.items()}

    @staticmethod
    def owns(x):
        return isinstance(x, CuPy.ndarray)

    @staticmethod
    def describe(x, arg):
        code = CuPy.codes.get(x.dtype)
        if code is None:
            raise _dtype_error(arg, x.dtype)
        return x.data.ptr, code, x.shape, _element_strides(x.strides, x.itemsize, arg), x.device.id

    @staticmethod
    def empty(shape, code, device):
        cupy = CuPy.cupy
        if cupy.cuda.runtime.getDevice() == device:
            return cupy.empty(shape, CuPy.dtypes[code])
        with cupy.cuda.Device(device):
            return cupy.empty(shape, CuPy.dtypes[code])

    @staticmethod
    def stream(device):
        cupy = CuPy.cupy
        if cupy.cuda.runtime.getDevice() == device:
            return cupy.cuda.get_current_stream().ptr
        with cupy.cuda.Device(device):
            return cupy.cuda.get_current_stream().ptr

    @staticmethod
    def dtype(code):
        return CuPy.dtypes[code]

    @staticmethod
    def view(a, code):
        return a.view(CuPy.dtypes[code])

    @staticmethod
    def cast(a, code):
        return a.astype(CuPy.dtypes[code])


def _element_strides(strides, itemsize, arg):
    out = []
    for s in strides:
        if s % itemsize:
            raise ValueError(f"gpureduce: {arg} has a stride of {s} bytes, not a multiple of its item size {itemsize}")
        out.append(s // itemsize)
    return tuple(out)


def _row_major(shape):
    strides, step = [], 1
    for e in reversed(shape):
        strides.append(step)
        step *= max(e, 1)
    return tuple(reversed(strides))


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", _DLTensor)]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]

_DL_CUDA = 2


class Foreign:
    """Any other array: its pointer through __cuda_array_interface__ (waiting on the stream it
    names) or DLPack (asking the producer to order its work before our stream); results are CuPy
    arrays where CuPy is installed, else torch tensors, handed back through from_dlpack to JAX."""

    @staticmethod
    def describe(x, arg, stream_for, core):
        iface = getattr(x, "__cuda_array_interface__", None)
        if iface is not None:
            code = _dtypes.TYPESTR.get(iface["typestr"])
            if code is None:
                raise _dtype_error(arg, iface["typestr"])
            ptr = iface["data"][0]
            shape = tuple(iface["shape"])
            strides = iface.get("strides")
            strides = _row_major(shape) if strides is None else _element_strides(strides, _dtypes.ITEMSIZE[code], arg)
            device = core.pointer_device(ptr) if ptr else 0
            if device < 0:
                raise _not_cuda(arg, f"an array in host memory ({type(x).__module__}.{type(x).__name__})")
            producer = iface.get("stream")
            consumer = stream_for(device)
            if producer is not None and producer != consumer:
                _check(core.wait_stream(1 if producer == 1 else producer, consumer, device), arg)
            return (ptr, code, shape, strides, device), None
        if hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
            kind, device = x.__dlpack_device__()
            if int(kind) != _DL_CUDA:
                raise _not_cuda(arg, f"a {type(x).__module__}.{type(x).__name__} on DLPack device type {int(kind)}")
            consumer = stream_for(device)
            capsule = x.__dlpack__(stream=consumer if consumer else 1)
            name = _capsule_name(capsule)
            raw = _capsule_pointer(capsule, name)
            if name == b"dltensor_versioned":
                t = _DLManagedTensorVersioned.from_address(raw).dl_tensor
            else:
                t = _DLTensor.from_address(raw)
            code = _dtypes.DLPACK.get((t.code, t.bits)) if t.lanes == 1 else None
            if code is None:
                raise _dtype_error(arg, f"DLPack (code {t.code}, {t.bits} bits, {t.lanes} lanes)")
            shape = tuple(t.shape[d] for d in range(t.ndim))
            strides = _row_major(shape) if not t.strides else tuple(t.strides[d] for d in range(t.ndim))
            return ((t.data or 0) + t.byte_offset, code, shape, strides, device), capsule
        raise _not_cuda(arg, f"{type(x).__module__}.{type(x).__name__}")


def _check(result, arg):
    code, message = result
    if code:
        raise RuntimeError(f"gpureduce: {arg}: {message}")


def framework_of(x):
    """The adapter of x's framework, or None for a foreign array."""
    for module, adapter in _FRAMEWORKS:
        if adapter.owns(x):
            return adapter
    for adapter in (Torch, CuPy):
        if adapter.module in sys.modules and (adapter.module, adapter) not in _FRAMEWORKS:
            adapter.setup()
            _FRAMEWORKS.append((adapter.module, adapter))
            if adapter.owns(x):
                return adapter
    return None


def result_framework():
    """Where the results of foreign inputs are allocated: CuPy, else torch."""
    for adapter in (CuPy, Torch):
        try:
            __import__(adapter.module)
        except ImportError:
            continue
        if (adapter.module, adapter) not in _FRAMEWORKS:
            adapter.setup()
            _FRAMEWORKS.append((adapter.module, adapter))
        return adapter
    raise TypeError("gpureduce: results of arrays other than torch's and CuPy's are allocated through CuPy or torch; "
                    "install either")


def to_caller(x, result):
    """A result allocated for a foreign input, as an array of x's framework where it has from_dlpack."""
    module = type(x).__module__.split(".")[0]
    if module in ("jax", "jaxlib"):
        import jax.dlpack
        return jax.dlpack.from_dlpack(result)
    return result
