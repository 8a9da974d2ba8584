# The package without a GPU: it imports, refuses host arrays by name, and plans every reduction's
# axes and types (the rules of docs/python.md) before any device work.
import pytest

import gpureduce
from gpureduce import _dtypes, _reduce
from gpureduce._reduce import Plan

C = _dtypes.CODES


def plan(op, shape, code, dim=None, keepdim=False, dtype=None, exact=False, nan="propagate", torch_style=True,
         batch_invariant=False):
    return Plan(op, op, shape, C[code] if isinstance(code, str) else code, dim, keepdim, dtype, exact, nan,
                torch_style, batch_invariant)


def test_imports_and_lists_its_types():
    from gpureduce import _core
    assert set(_core.dtypes) == set(_dtypes.CODES)
    assert all(_core.dtypes[name][0] == code for name, code in _dtypes.CODES.items())
    assert _core.ops == _reduce.OPS
    assert _core.exchange_words(_dtypes.CODES["float32"]) > 5 and _core.exchange_words(_dtypes.CODES["int32"]) == 0
    assert gpureduce.__version__


def test_host_arrays_are_refused_by_name():
    np = pytest.importorskip("numpy")
    for f in (gpureduce.sum, gpureduce.amax, gpureduce.argmax, gpureduce.mean):
        with pytest.raises(TypeError, match=r"x must be a CUDA array.*host array \(numpy\.ndarray\)"):
            f(np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"x must be a CUDA array.*builtins\.list"):
        gpureduce.sum([1.0, 2.0])
    with pytest.raises(TypeError, match=r"a must be a CUDA array"):
        gpureduce.dot(np.ones(3), np.ones(3))
    with pytest.raises(TypeError, match=r"x must be a CUDA array"):
        gpureduce.segment_sum(np.ones(3), np.array([0, 3]))


def test_axes_follow_torch_for_dim_and_numpy_for_axis():
    assert plan("sum", (2, 3, 4), "float32", dim=(0, -1)).axes == (0, 2)
    assert plan("sum", (2, 3, 4), "float32", dim=()).axes == (0, 1, 2)
    assert plan("sum", (2, 3, 4), "float32", dim=(), torch_style=False).axes == ()
    p = plan("sum", (2, 3, 4), "float32", dim=1, keepdim=True)
    assert (p.kept, p.keep_shape, p.reduced) == ((2, 4), (2, 1, 4), 3)
    assert plan("sum", (), "float32", dim=0).kept == ()
    assert plan("sum", (), "float32", dim=-1).scalar


@pytest.mark.parametrize("dim, error, text", [
    (2, IndexError, r"dim 2 is out of range for an array of 2 dimensions"),
    (-3, IndexError, r"expected in \[-2, 1\]"),
    ((0, -2), ValueError, r"dim 0 appears more than once"),
    (1.0, TypeError, r"dim must be None, an int or a tuple"),
    ((0, "a"), TypeError, r"dim must hold ints"),
])
def test_bad_dims_are_named(dim, error, text):
    with pytest.raises(error, match=text):
        plan("sum", (3, 4), "float32", dim=dim)


@pytest.mark.parametrize("code, result", [
    ("bool", "int64"), ("int8", "int64"), ("uint8", "int64"), ("int16", "int64"), ("int32", "int64"),
    ("int64", "int64"), ("uint16", "uint64"), ("uint32", "uint64"), ("uint64", "uint64"),
    ("float16", "float16"), ("bfloat16", "bfloat16"), ("float32", "float32"), ("float64", "float64"),
])
def test_sum_types_are_torchs(code, result):
    p = plan("sum", (5,), code)
    assert (_dtypes.NAMES[p.result_code], p.acc_code) == (result, _dtypes.NO_ACC)
    assert _dtypes.NAMES[plan("prod", (5,), code).result_code] == result
    assert _dtypes.NAMES[plan("max", (5,), code).result_code] == code
    assert _dtypes.NAMES[plan("argmax", (5,), code).result_code] == "int64"
    assert _dtypes.NAMES[plan("all", (5,), code).result_code] == "bool"


def test_dtype_picks_the_accumulator():
    p = plan("sum", (5,), "float16", dtype="float32")
    assert (p.result_code, p.acc_code) == (C["float32"], C["float32"])
    p = plan("sum", (5,), "int32", dtype="int32")  # wraps, as torch.sum(x, dtype=torch.int32)
    assert (p.result_code, p.acc_code) == (C["int32"], _dtypes.NO_ACC)
    p = plan("sum", (5,), "int32", dtype=float)
    assert (p.result_code, p.acc_code) == (C["float64"], C["float64"])
    with pytest.raises(TypeError, match=r"dtype=int16 for int32 input"):
        plan("sum", (5,), "int32", dtype="int16")
    with pytest.raises(TypeError, match=r"dtype= applies to sums, products and means, not to max"):
        plan("max", (5,), "float32", dtype="float64")
    with pytest.raises(TypeError, match=r"dtype='complex64' is not a type"):
        plan("sum", (5,), "float32", dtype="complex64")


def test_mean_and_exact_rules():
    p = plan("mean", (4, 5), "float16", dim=1)
    assert (p.kernel, p.sum_code, p.acc_code, p.result_code) == ("sum", C["float32"], C["float32"], C["float16"])
    p = plan("mean", (4, 5), "float32")
    assert (p.sum_code, p.acc_code) == (C["float32"], _dtypes.NO_ACC)
    with pytest.raises(TypeError, match=r"mean of int32 needs a floating dtype="):
        plan("mean", (5,), "int32")
    assert plan("mean", (5,), "int32", dtype="float64").result_code == C["float64"]
    p = plan("sum", (5,), "bfloat16", exact=True, dtype="float64")
    assert (p.kernel, p.result_code) == ("exact_sum", C["float64"])
    with pytest.raises(TypeError, match=r"exact=True takes floating inputs"):
        plan("sum", (5,), "int32", exact=True)
    with pytest.raises(ValueError, match=r"nan='ignore' is not available with exact=True"):
        plan("sum", (5,), "float32", exact=True, nan="ignore")
    with pytest.raises(ValueError, match=r"a product has no exact mode"):
        plan("prod", (5,), "float32", exact=True)
    with pytest.raises(ValueError, match=r"nan must be 'propagate' or 'ignore'"):
        plan("sum", (5,), "float32", nan="skip")
    assert plan("sum", (4, 5), "float32", dim=1, batch_invariant=True).invariant
    assert not plan("sum", (4, 5), "float32", dim=1).invariant
    with pytest.raises(TypeError, match=r"batch_invariant must be True or False, got 1"):
        plan("sum", (5,), "float32", batch_invariant=1)


def test_extremes_of_nothing_are_refused():
    with pytest.raises(ValueError, match=r"the reduced axes of x have no elements, and max has no identity"):
        plan("max", (3, 0), "float32", dim=1)
    with pytest.raises(ValueError, match=r"argmin has no identity"):
        plan("argmin", (0,), "float32")
    with pytest.raises(ValueError, match=r"minmax has no identity"):
        plan("minmax", (0, 3), "float32", dim=0)
    assert plan("max", (3, 0), "float32", dim=0).kept == (0,)  # no results: nothing to refuse
    assert plan("sum", (3, 0), "float32", dim=1).reduced == 0


def test_more_than_eight_dimensions_are_refused():
    with pytest.raises(ValueError, match=r"x has 9 dimensions; gpureduce takes up to 8"):
        plan("sum", (1,) * 9, "float32")


def test_segment_result_types_follow_the_same_rules():
    types = _reduce._result_types
    assert types("segment_reduce", "argmax", C["float16"], None, False, False) == ("argmax", C["int64"], C["int64"],
                                                                                 _dtypes.NO_ACC)
    assert types("segment_reduce", "any", C["int8"], None, False, False)[1] == C["bool"]
    assert types("segment_sum", "sum", C["int32"], None, False, False)[1] == C["int64"]
    assert types("segment_reduce", "mean", C["bfloat16"], None, False, False) == ("sum", C["bfloat16"],
                                                                                 C["float32"], C["float32"])
    with pytest.raises(TypeError, match=r"segment_reduce: mean of int32 needs a floating dtype="):
        types("segment_reduce", "mean", C["int32"], None, False, False)
    with pytest.raises(ValueError, match=r"segment_reduce: nan='ignore' is not available for mean"):
        types("segment_reduce", "mean", C["float32"], None, False, True)
    with pytest.raises(TypeError, match=r"segment_reduce: dtype= applies to sums, products and means, not to"):
        types("segment_reduce", "max", C["float32"], "float64", False, False)
