# The package on CuPy arrays (CuPy in, CuPy out), on objects that offer only
# __cuda_array_interface__ or DLPack, and on JAX arrays where JAX is installed.
import pytest

cupy = pytest.importorskip("cupy")
import gpureduce  # noqa: E402
from exact_reference import exact_sum  # noqa: E402

pytestmark = pytest.mark.gpu


def rand(shape, dtype, seed):
    return cupy.random.default_rng(seed).uniform(-10, 10, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "float16", "uint8"])
def test_cupy_in_cupy_out(dtype, seed):
    x = rand((300, 77), dtype, seed) if dtype.startswith("f") else cupy.random.default_rng(seed).integers(
        0, 50, (300, 77)).astype(dtype)
    wide = x.astype(cupy.float64 if dtype.startswith("f") else cupy.int64)
    for dim in (None, 0, 1, -1):
        got = gpureduce.sum(x, axis=dim)
        assert isinstance(got, cupy.ndarray)
        if dtype.startswith("f"):
            n = x.size if dim is None else x.shape[dim]
            bound = (n + 64) * 2.0 ** -24 * cupy.abs(wide).sum(axis=dim) + 2.0 ** -11 * cupy.abs(wide.sum(axis=dim))
            assert bool((cupy.abs(got.astype(cupy.float64) - wide.sum(axis=dim)) <= bound).all())
        else:
            assert got.dtype == cupy.int64 and bool((got == wide.sum(axis=dim)).all())
        assert bool((gpureduce.amax(x, axis=dim) == x.max(axis=dim)).all())
        assert bool((gpureduce.argmin(x, axis=dim) == x.argmin(axis=dim)).all())
    assert gpureduce.max(x, axis=1).shape == (300,)  # axis= follows NumPy: the values alone


def test_negative_strides_and_byte_strides(seed):
    x = rand((50, 60), "float32", seed)
    for view in (x[::-1], x[:, ::-2], x.T[::-1], x[3:40:3, ::-1]):
        assert bool((gpureduce.amax(view, axis=0) == view.max(axis=0)).all())
        assert bool((gpureduce.argmax(view, axis=1) == view.argmax(axis=1)).all())
        assert bool((gpureduce.argmax(view) == view.argmax()).all())


def test_exact_sum_of_cupy(seed):
    x = rand((10000,), "float32", seed)
    assert gpureduce.sum(x, exact=True).item() == exact_sum(x.astype(cupy.float64).get().tolist(), "float32")


class Interface:
    """An array that offers only __cuda_array_interface__ (as Numba's device arrays)."""

    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = a.__cuda_array_interface__


class DLPackOnly:
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_foreign_arrays(seed):
    x = rand((128, 33), "float32", seed)
    for wrapped in (Interface(x), DLPackOnly(x), Interface(x[:, ::2])):
        got = gpureduce.amax(wrapped, axis=1)
        assert bool((cupy.asarray(got) == wrapped.a.max(axis=1)).all())
    with pytest.raises(TypeError, match=r"x must be a CUDA array"):
        gpureduce.sum(object())


def test_jax_in_jax_out(seed):
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("SKIPPED: JAX has no GPU")
    x = jnp.asarray(rand((64, 100), "float32", seed).get())
    got = gpureduce.sum(x, axis=1)
    assert isinstance(got, jax.Array)
    assert bool(jnp.allclose(got, x.sum(axis=1), rtol=1e-5, atol=1e-3))
    assert bool((gpureduce.argmax(x, axis=0) == x.argmax(axis=0)).all())
