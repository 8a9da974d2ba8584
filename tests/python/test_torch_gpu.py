# The package on torch tensors, on the GPU: every function x dtype x dim pattern against torch's own
# reductions of upcast copies (integers exact, floats within the bound below), exact=True bit for
# bit against exact_reference, non-contiguous views, empty shapes, streams, CUDA graphs,
# torch.compile and the errors users see.
import math
import random

import pytest

torch = pytest.importorskip("torch")
import gpureduce  # noqa: E402
from exact_reference import exact_sum  # noqa: E402

pytestmark = pytest.mark.gpu
DTYPES = ["bool", "int8", "uint8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
DTYPES += [d for d in ("uint16", "uint32", "uint64") if hasattr(torch, d)]
FLOATS = ("float16", "bfloat16", "float32", "float64")
UNIT = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24, "float64": 2.0 ** -53}
SHAPES_DIMS = [((37, 129), None), ((37, 129), 0), ((37, 129), -1), ((5, 7, 11), (0, 2)), ((5, 7, 11), 1),
               ((2, 3, 4, 5), (1, 3)), ((1000, 3), 1), ((3, 1000), 0), ((64,), 0), ((5, 7, 11), ())]


def make(shape, dtype, seed, lo=-100, hi=100):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g, device="cuda").bool()
    if dtype in FLOATS:
        return (torch.rand(shape, generator=g, device="cuda", dtype=torch.float64) * (hi - lo) + lo).to(
            getattr(torch, dtype))
    lo = 0 if dtype.startswith("u") else lo
    return torch.randint(lo, hi, shape, generator=g, device="cuda").to(getattr(torch, dtype))


def upcast(x):
    return x.double() if x.is_floating_point() else x.to(torch.int64)


def as_int64(r):
    return r.view(torch.int64) if r.dtype == torch.uint64 else r.to(torch.int64)


def check_float_sum(got, x, dim, keepdim, count):
    ref = upcast(x).sum(dim=dim, keepdim=keepdim) if dim is not None else upcast(x).sum()
    mag = x.double().abs().sum(dim=dim, keepdim=keepdim) if dim is not None else x.double().abs().sum()
    acc = 2.0 ** -53 if x.dtype == torch.float64 else 2.0 ** -24
    bound = (count + 64) * acc * mag + UNIT[str(got.dtype).replace("torch.", "")] * ref.abs()
    assert got.numel() == ref.numel()
    err = (got.double() - ref.reshape(got.shape)).abs()
    bound = bound.reshape(got.shape)
    assert bool((err <= bound).all()), f"max error {err.max().item()} over bound"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim", SHAPES_DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_sum_prod_match_torch(dtype, shape, dim, keepdim, seed):
    x = make(shape, dtype, seed)
    torch_dim = dim if dim != () else None
    count = x.numel() if torch_dim is None else math.prod(
        shape[d] for d in ((dim,) if isinstance(dim, int) else dim))
    got = gpureduce.sum(x, dim, keepdim)
    unsigned = dtype in ("uint16", "uint32", "uint64")
    assert got.dtype == (torch.uint64 if unsigned else torch.zeros(1, dtype=x.dtype).sum().dtype)
    if dtype in FLOATS:
        check_float_sum(got, x, torch_dim, keepdim and torch_dim is not None, count)
    else:
        ref = upcast(x).sum(dim=torch_dim, keepdim=keepdim) if torch_dim is not None else upcast(x).sum()
        if keepdim and torch_dim is None:
            ref = ref.reshape((1,) * len(shape))
        assert torch.equal(as_int64(got), ref)
    if dtype not in FLOATS:  # products of small integers, wrapping in int64 as torch's
        y = make(shape, dtype, seed + 1, -3, 4)
        ref = upcast(y).prod(dim=torch_dim) if isinstance(torch_dim, int) else None
        if ref is not None:
            assert torch.equal(as_int64(gpureduce.prod(y, torch_dim)), ref)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, dim", SHAPES_DIMS)
def test_extremes_and_logic_match_torch(dtype, shape, dim, seed):
    x = make(shape, dtype, seed, -5, 5)  # few values: many ties
    torch_dim = dim if dim != () else None
    u = upcast(x)
    red = (lambda f: f(u)) if torch_dim is None else (lambda f: f(u, torch_dim))
    assert torch.equal(upcast(gpureduce.amax(x, dim)), red(lambda a, *d: a.amax(*d)))
    assert torch.equal(upcast(gpureduce.amin(x, dim)), red(lambda a, *d: a.amin(*d)))
    assert torch.equal(gpureduce.all(x, dim), red(lambda a, *d: (a != 0).all(*d)))
    assert torch.equal(gpureduce.any(x, dim), red(lambda a, *d: (a != 0).any(*d)))
    if isinstance(dim, int) or dim is None:
        assert torch.equal(gpureduce.argmax(x, dim), u.argmax(dim))
        assert torch.equal(gpureduce.argmin(x, dim), u.argmin(dim))
    if isinstance(dim, int):
        values, indices = gpureduce.max(x, dim)
        ref = u.max(dim)
        assert torch.equal(upcast(values), ref.values) and torch.equal(indices, ref.indices)
        lo, hi = gpureduce.minmax(x, dim)
        assert torch.equal(upcast(lo), u.amin(dim)) and torch.equal(upcast(hi), u.amax(dim))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_propagates_or_is_ignored(dtype, seed):
    x = make((8, 33), dtype, seed)
    x[2, 5] = x[2, 20] = x[7, 0] = float("nan")
    s = gpureduce.sum(x, -1).double()
    assert s[2].isnan() and s[7].isnan() and not s[0].isnan()
    ref = torch.nansum(x.double(), -1)
    assert torch.allclose(gpureduce.nansum(x, -1).double(), ref, rtol=1e-2, atol=1e-2)
    assert torch.equal(gpureduce.argmax(x, -1)[[2, 7]], torch.tensor([5, 0], device="cuda"))
    assert gpureduce.amax(x, -1).double()[2].isnan()
    clean = x.double().nan_to_num(nan=-math.inf).amax(-1)
    assert torch.equal(gpureduce.nanmax(x, -1).double(), clean)
    assert torch.equal(gpureduce.amax(x, axis=1, nan="ignore").double(), clean)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, dim", [((300,), None), ((17, 130), -1), ((130, 17), 0), ((3, 40, 5), 1)])
def test_exact_sums_are_correctly_rounded(dtype, shape, dim, seed):
    rng = random.Random(seed)
    vals = [rng.choice([1, -1]) * rng.random() * 2.0 ** rng.randint(-20, 12) for _ in range(math.prod(shape))]
    x = torch.tensor(vals, dtype=torch.float64, device="cuda").to(getattr(torch, dtype)).reshape(shape)
    got = gpureduce.sum(x, dim, exact=True)
    assert got.dtype == x.dtype
    xs = x.double().cpu()
    d = dim if dim is None else dim % len(shape)
    moved = xs.reshape(1, -1) if d is None else xs.movedim(d, -1).reshape(-1, shape[d])
    ref = [exact_sum(row.tolist(), dtype) for row in moved]
    assert got.double().flatten().cpu().tolist() == ref
    wide = gpureduce.sum(x, dim, exact=True, dtype=torch.float64).flatten().cpu().tolist()
    assert wide == [exact_sum(row.tolist(), "float64") for row in moved]


def test_exact_sums_are_batch_invariant(seed):
    row = make((1, 1000), "float32", seed)
    alone = gpureduce.sum(row, -1, exact=True)
    for rows in (7, 1000, 100000):
        batch = make((rows, 1000), "float32", seed + rows)
        at = rows // 2
        batch[at] = row[0]
        assert gpureduce.sum(batch, -1, exact=True)[at].view(torch.int32) == alone.view(torch.int32)


@pytest.mark.parametrize("rows", [1, 7, 1000, 100000])
def test_batch_invariant_sums_keep_their_bits(rows, seed):
    """With batch_invariant=True the same row among `rows` others, at its first, middle and last
    position, gives the bits it gives alone, within the float bound; so does a segment, and a
    column gives the bits it gives beside one other column (each kind has its own order)."""
    for n in (3, 100, 5000):
        row = make((1, n), "float32", seed + n)
        alone = gpureduce.sum(row, -1, batch_invariant=True)
        check_float_sum(alone, row, -1, False, n)
        pair = torch.cat([row, make((1, n), "float32", seed)]).t().contiguous()  # two columns
        column = gpureduce.sum(pair, 0, batch_invariant=True)[0]
        check_float_sum(column, row, -1, False, n)
        ends = torch.tensor([0, n], device="cuda")
        segment = gpureduce.segment_sum(row.flatten(), ends, batch_invariant=True)[0]
        check_float_sum(segment, row, -1, False, n)
        batch = make((rows, n), "float32", seed + rows)
        for at in {0, rows // 2, rows - 1}:
            batch[at] = row[0]
            got = gpureduce.sum(batch, -1, batch_invariant=True)[at]
            assert got.view(torch.int32) == alone.view(torch.int32), f"row: rows {rows}, n {n}, at {at}"
            if rows > 1:  # one column alone is a contiguous run: a row
                got = gpureduce.sum(batch.t().contiguous(), 0, batch_invariant=True)[at]
                assert got.view(torch.int32) == column.view(torch.int32), f"column: rows {rows}, n {n}, at {at}"
        offsets = torch.arange(0, rows * n + 1, n, device="cuda", dtype=torch.int64)
        got = gpureduce.segment_sum(batch.flatten(), offsets, batch_invariant=True)[rows - 1]
        assert got.view(torch.int32) == segment.view(torch.int32), f"segment: rows {rows}, n {n}"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_mean_matches_torch(dtype, seed):
    x = make((33, 257), dtype, seed)
    for dim in (None, 0, 1):
        got = gpureduce.mean(x, dim)
        ref = x.double().mean() if dim is None else x.double().mean(dim)
        assert got.dtype == x.dtype
        assert torch.allclose(got.double(), ref, rtol=4 * UNIT[dtype], atol=1e-3 if dtype != "float64" else 1e-12)
    assert torch.allclose(gpureduce.mean(make((9, 5), "int32", seed), 1, dtype=torch.float64),
                          make((9, 5), "int32", seed).double().mean(1))


@pytest.mark.parametrize("view", ["transposed", "sliced", "expanded", "narrowed"])
@pytest.mark.parametrize("dtype", ["int32", "float32", "bfloat16"])
def test_non_contiguous_inputs(view, dtype, seed):
    base = make((64, 96), dtype, seed)
    x = {"transposed": base.t(), "sliced": base[::3, 1::2], "expanded": base[:, :1].expand(64, 500),
         "narrowed": base[5:40, 7:90]}[view]
    for dim in (0, 1, None):
        got = gpureduce.sum(x, dim)
        ref = upcast(x).sum(dim) if dim is not None else upcast(x).sum()
        if dtype == "int32":
            assert torch.equal(got, ref)
        else:
            check_float_sum(got, x, dim, False, x.numel() if dim is None else x.shape[dim])
        assert torch.equal(upcast(gpureduce.amax(x, dim)), upcast(x).amax(dim) if dim is not None else upcast(x).amax())


def test_zero_size_shapes(seed):
    for shape in ((0,), (0, 5), (5, 0), (3, 0, 4)):
        x = make(shape, "float32", seed)
        assert torch.equal(gpureduce.sum(x), torch.zeros((), device="cuda"))
        for d in range(len(shape)):
            assert torch.equal(gpureduce.sum(x, d), x.sum(d))
            assert torch.equal(gpureduce.prod(x, d), x.prod(d))
            assert torch.equal(gpureduce.any(x, d), x.any(d))
        assert gpureduce.sum(x, keepdim=True).shape == (1,) * len(shape)
    with pytest.raises(ValueError, match=r"amax has no identity"):
        gpureduce.amax(make((4, 0), "float32", seed), 1)
    with pytest.raises(ValueError, match=r"argmax has no identity"):
        gpureduce.argmax(make((0,), "float32", seed))
    s = gpureduce.sum(make((), "float32", seed))
    assert s.shape == ()


def test_out_and_keepdim(seed):
    x = make((6, 7, 8), "float32", seed)
    out = torch.full((6, 8), float("nan"), device="cuda")
    r = gpureduce.sum(x, 1, out=out)
    assert r is out
    check_float_sum(out, x, 1, False, 7)
    out_t = torch.full((8, 6), float("nan"), device="cuda").t()  # a strided out
    gpureduce.amax(x, 1, out=out_t)
    assert torch.equal(out_t, x.amax(1))
    k = torch.empty((6, 1, 8), device="cuda")
    gpureduce.amin(x, 1, keepdim=True, out=k)
    assert torch.equal(k, x.amin(1, keepdim=True))
    assert gpureduce.sum(x, (0, 2), keepdims=True).shape == (1, 7, 1)
    with pytest.raises(ValueError, match=r"out has shape \(6, 7\), the result \(6, 8\)"):
        gpureduce.sum(x, 1, out=torch.empty((6, 7), device="cuda"))
    with pytest.raises(TypeError, match=r"out has dtype float64, the result is float32"):
        gpureduce.sum(x, 1, out=torch.empty((6, 8), device="cuda", dtype=torch.float64))
    with pytest.raises(ValueError, match=r"result overlaps the input"):
        gpureduce.sum(x, 1, out=x[:, 0, :])


def test_errors_name_the_argument():
    with pytest.raises(TypeError, match=r"x must be a CUDA array.*torch.Tensor on cpu"):
        gpureduce.sum(torch.ones(3))
    with pytest.raises(TypeError, match=r"x has dtype torch.complex64"):
        gpureduce.sum(torch.ones(3, device="cuda", dtype=torch.complex64))
    x = torch.ones(3, 4, device="cuda")
    with pytest.raises(IndexError, match=r"dim 2 is out of range"):
        gpureduce.sum(x, 2)
    with pytest.raises(TypeError, match=r"pass dim= or axis=, not both"):
        gpureduce.sum(x, 0, axis=1)
    with pytest.raises(TypeError, match=r"dim must be an int \(for several axes use amax\)"):
        gpureduce.max(x, (0, 1))
    with pytest.raises(ValueError, match=r"nan must be"):
        gpureduce.sum(x, nan="drop")
    with pytest.raises(TypeError, match=r"exact=True takes float32"):
        gpureduce.dot(x.double(), x.double(), exact=True)
    with pytest.raises(ValueError, match=r"b must be contiguous|a has shape"):
        gpureduce.dot(x, x.t())


def test_dot_matches_torch(seed):
    a, b = make((1000,), "float32", seed), make((1000,), "float32", seed + 1)
    ref = (a.double() * b.double()).sum()
    assert abs(gpureduce.dot(a, b).double() - ref) <= 1064 * 2.0 ** -24 * (a.double() * b.double()).abs().sum()
    products = (a.double() * b.double()).cpu().tolist()  # exact: 24-bit by 24-bit significands
    assert gpureduce.dot(a, b, exact=True).item() == exact_sum(products, "float32")
    i, j = make((4097,), "int32", seed), make((4097,), "int32", seed + 1)
    assert gpureduce.dot(i, j).item() == int((i.to(torch.int64) * j.to(torch.int64)).sum())


@pytest.mark.parametrize("op", ["sum", "max", "argmax", "mean", "prod", "any"])
def test_segments_match_torch(op, seed):
    rng = random.Random(seed)
    lengths = [rng.choice([0, 1, 2, 3, 50, 700]) for _ in range(300)]
    offsets = torch.tensor([0] + list(__import__("itertools").accumulate(lengths)), device="cuda")
    x = make((int(offsets[-1]),), "float32", seed)
    got = gpureduce.segment_reduce(x, offsets, op)
    for r, (b, e) in enumerate(zip(offsets[:-1].tolist(), offsets[1:].tolist())):
        seg = x[b:e].double()
        if op == "sum":
            assert abs(got[r].item() - seg.sum().item()) <= (e - b + 64) * 2.0 ** -24 * seg.abs().sum().item()
        elif op == "max":
            assert got[r].item() == (seg.max().item() if e > b else -math.inf)
        elif op == "argmax":
            assert got[r].item() == (seg.argmax().item() if e > b else -1)
        elif op == "mean" and e > b:
            assert math.isclose(got[r].item(), seg.mean().item(), rel_tol=1e-5, abs_tol=1e-4)
        elif op == "mean":
            assert math.isnan(got[r].item())
    assert torch.equal(gpureduce.segment_sum(x, offsets.int()), gpureduce.segment_sum(x, offsets))


def test_segment_offsets_are_checked():
    x = torch.ones(10, device="cuda")
    with pytest.raises(ValueError, match=r"offsets: a segment ends outside the input \(segment 1\)"):
        gpureduce.segment_sum(x, torch.tensor([0, 5, 11], device="cuda"))
    with pytest.raises(ValueError, match=r"offsets: CSR offsets decrease"):
        gpureduce.segment_sum(x, torch.tensor([0, 5, 3, 10], device="cuda"))
    with pytest.raises(TypeError, match=r"offsets must be int32 or int64"):
        gpureduce.segment_sum(x, torch.tensor([0.0, 10.0], device="cuda"))
    with pytest.raises(ValueError, match=r"x must be one contiguous dimension"):
        gpureduce.segment_sum(torch.ones(4, 5, device="cuda"), torch.tensor([0, 3], device="cuda"))


def test_runs_on_the_current_stream_without_synchronising(seed):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = make((4096, 512), "float32", seed) * 2  # produced on s
        torch.cuda._sleep(20_000_000)  # s is busy: a call on another stream would read too early
        x += 1
        got = gpureduce.sum(x, -1)
    s.synchronize()
    check_float_sum(got, x, -1, False, 512)
    other = torch.cuda.Stream()
    other.wait_stream(s)
    y = gpureduce.amax(x, 0, stream=other)
    other.synchronize()
    assert torch.equal(y, x.amax(0))


def test_cuda_graph_capture_replays_on_new_data(seed):
    x = make((1000, 300), "float32", seed)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        gpureduce.sum(x, 1), gpureduce.argmax(x, 0), gpureduce.sum(x, exact=True)  # warm-up
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        rows, best, total = gpureduce.sum(x, 1), gpureduce.argmax(x, 0), gpureduce.sum(x, exact=True)
    x.copy_(make((1000, 300), "float32", seed + 7))
    g.replay()
    torch.cuda.synchronize()
    check_float_sum(rows, x, 1, False, 300)
    assert torch.equal(best, x.argmax(0))
    assert total.item() == exact_sum(x.double().flatten().tolist(), "float32")


def test_torch_compile_traces_the_calls(seed):
    @torch.compile(fullgraph=True)
    def f(x):
        v, i = gpureduce.max(x, 1)
        return gpureduce.sum(x, -1) * 2 + v, i, gpureduce.mean(x, 0, keepdim=True)

    x = make((128, 64), "float32", seed)
    s, i, m = f(x)
    check_float_sum((s - x.amax(1)) / 2, x, -1, False, 64)
    assert torch.equal(i, x.argmax(1))
    assert torch.allclose(m, x.mean(0, keepdim=True), rtol=1e-5, atol=1e-5)
