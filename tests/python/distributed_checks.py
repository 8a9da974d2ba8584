# What each rank of test_distributed_gpu.py (or of a torchrun launch: the end of this file) checks:
# the same seeded arrays on every rank, cut into uneven consecutive shards (one empty from 3 ranks
# up), reduced by gpureduce.distributed and compared with gpureduce's reduction of the whole array
# on one GPU (bit for bit wherever that is promised) and with a float64 reference within the float
# bound.
import os

import torch
import torch.distributed as dist

import gpureduce
import gpureduce.distributed as gd
from exact_reference import exact_sum


def bits(t):
    return t.detach().reshape(-1).contiguous().view(torch.uint8).cpu()


def same_bits(got, want, what):
    assert got.shape == want.shape and got.dtype == want.dtype, f"{what}: {got.shape} {got.dtype}, {want.dtype}"
    assert torch.equal(bits(got), bits(want)), f"{what}: {got.tolist()} != {want.tolist()}"


def same_on_every_rank(t, what):
    """Every byte of t the same on every rank: its bytes as int64 words, whose minimum and maximum
    over the ranks agree."""
    b = t.detach().reshape(-1).contiguous().view(torch.uint8)
    words = torch.zeros((b.numel() + 7) // 8 * 8, dtype=torch.uint8, device=t.device)
    words[:b.numel()] = b
    lo, hi = words.view(torch.int64).clone(), words.view(torch.int64).clone()
    dist.all_reduce(lo, op=dist.ReduceOp.MIN)
    dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    assert torch.equal(lo, hi), f"{what}: the ranks' results differ"


def bounds(n, world, g):
    points = sorted(torch.randint(0, n + 1, (world - 1,), generator=g).tolist())
    if world >= 3:
        points[1] = points[0]  # rank 1 holds nothing
    return [0] + points + [n]


def adversarial(n, dtype, g):
    """Wide exponents, exact cancellation (a value and its negative in other shards), ties."""
    top = {torch.float16: 6, torch.bfloat16: 60, torch.float32: 60, torch.float64: 300}[dtype]
    x = torch.randn(n, generator=g, dtype=torch.float64) * torch.pow(
        2.0, torch.randint(-top, top, (n,), generator=g).double())
    half = n // 3
    x[n - half:] = -x[:half].flip(0)
    return x.to(dtype)


def check_float_sums(rank, world, g, device):
    for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
        n = 10007
        whole = adversarial(n, dtype, g).to(device)
        b = bounds(n, world, g)
        shard = whole[b[rank]:b[rank + 1]]
        got = gd.sum(shard, exact=True)
        same_bits(got, gpureduce.sum(whole, exact=True), f"exact sum {dtype}")
        want = exact_sum(whole.double().tolist(), str(dtype).replace("torch.", ""))
        assert got.double().item() == want, f"exact sum {dtype}: {got.item()} != host {want}"
        same_bits(gd.sum(shard, exact=True, dtype=torch.float64), gpureduce.sum(whole, exact=True, dtype=torch.float64),
                  f"exact sum {dtype} into float64")
        same_bits(gd.mean(shard, exact=True), gpureduce.mean(whole, exact=True), f"exact mean {dtype}")
        same_bits(gd.sum(shard, exact=True, keepdim=True), gpureduce.sum(whole, exact=True, keepdim=True),
                  f"exact sum {dtype}, keepdim")
        fast = gd.sum(shard)
        same_on_every_rank(fast, f"sum {dtype}")
        ref = whole.double().sum().item()
        acc = 2.0 ** -53 if dtype == torch.float64 else 2.0 ** -24
        unit = {torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8}.get(dtype, acc)
        bound = (n + 64 + world) * acc * whole.double().abs().sum().item() + unit * abs(ref)
        assert fast.dtype == dtype and abs(fast.double().item() - ref) <= bound, f"sum {dtype}: {fast.item()} {ref}"
        m = gd.mean(shard)
        assert m.dtype == dtype and abs(m.double().item() - ref / n) <= bound / n + unit * abs(ref / n), f"mean {dtype}"
    # infinities in different shards, NaN, a shard of only -0.0
    whole = torch.tensor([1.0, float("inf"), 2.0, -3.0, float("-inf"), 5.0, -0.0, -0.0], device=device)
    for lo, hi in ((0, 4), (0, 8), (4, 8), (6, 8)):
        part = whole[lo:hi]
        cut = bounds(part.numel(), world, g)
        same_bits(gd.sum(part[cut[rank]:cut[rank + 1]], exact=True), gpureduce.sum(part, exact=True),
                  f"exact sum of {part.tolist()}")


def check_integers(rank, world, g, device):
    n = 100003
    whole = torch.randint(-(2 ** 31), 2 ** 31 - 1, (n,), generator=g, dtype=torch.int64).to(torch.int32).to(device)
    b = bounds(n, world, g)
    shard = whole[b[rank]:b[rank + 1]]
    same_bits(gd.sum(shard), whole.long().sum(), "int32 sum")
    small = (torch.randint(1, 4, (n,), generator=g) * (torch.randint(0, 2, (n,), generator=g) * 2 - 1)).to(device)
    same_bits(gd.prod(small[b[rank]:b[rank + 1]]), gpureduce.prod(small), "int64 product (wraps)")
    same_bits(gd.amax(shard), whole.max(), "int32 amax")
    same_bits(gd.amin(shard.to(torch.int8)), whole.to(torch.int8).min(), "int8 amin")
    same_bits(gd.amax(shard.to(torch.int16)), whole.to(torch.int16).max(), "int16 amax (gathered)")
    mine = small[b[rank]:b[rank + 1]]
    same_bits(gd.all(mine > -3), (small > -3).all(), "all")
    same_bits(gd.all(mine != 0), (small != 0).all(), "all of true")
    same_bits(gd.any(mine == 3), (small == 3).any(), "any")


def check_extremes(rank, world, g, device):
    n = 4099
    for fill_nan in (False, True):
        whole = torch.randn(n, generator=g).to(device)
        whole[n // 2] = whole[n - 7] = whole[3] = 50.0  # ties in several shards
        whole[n // 3] = whole[n // 5] = -50.0
        if fill_nan:
            whole[n // 4] = whole[n - 2] = float("nan")
        b = bounds(n, world, g)
        shard = whole[b[rank]:b[rank + 1]]
        for nan in ("propagate", "ignore"):
            same_bits(gd.amax(shard, nan=nan), gpureduce.amax(whole, nan=nan), f"amax, nan={nan}")
            same_bits(gd.amin(shard, nan=nan), gpureduce.amin(whole, nan=nan), f"amin, nan={nan}")
            same_bits(gd.argmax(shard, nan=nan), gpureduce.argmax(whole, nan=nan), f"argmax, nan={nan}")
            same_bits(gd.argmin(shard, nan=nan), gpureduce.argmin(whole, nan=nan), f"argmin, nan={nan}")
    same_ones = torch.ones(n, device=device)  # every element ties: the first
    b = bounds(n, world, g)
    same_bits(gd.argmax(same_ones[b[rank]:b[rank + 1]]), torch.tensor(0, device=device), "argmax of ties")
    whole = torch.full((n,), float("-inf"), device=device)
    same_bits(gd.argmax(whole[b[rank]:b[rank + 1]]), torch.tensor(0, device=device), "argmax of -inf")
    ints = torch.randint(0, 5, (n,), generator=g, dtype=torch.int32).to(device)
    same_bits(gd.argmin(ints[b[rank]:b[rank + 1]]), gpureduce.argmin(ints), "int32 argmin")


def check_axes(rank, world, g, device):
    rows, cols = 37, 5
    whole = torch.randn(rows, cols, generator=g, dtype=torch.float64).float().to(device)
    b = bounds(rows, world, g)
    shard = whole[b[rank]:b[rank + 1]]
    s = gd.sum(shard, 0)
    same_on_every_rank(s, "column sums")
    ref = whole.double().sum(0)
    assert s.shape == (cols,) and bool(((s.double() - ref).abs() <= (rows + 64 + world) * 2.0 ** -24 *
                                        whole.double().abs().sum(0)).all()), "column sums"
    assert gd.sum(shard, 0, keepdim=True).shape == (1, cols)
    same_bits(gd.amax(shard, 0), whole.amax(0), "column maxima")
    same_bits(gd.amin(shard, (0, 1)), whole.amin(), "amin over both dims")
    ints = (whole * 100).int()
    same_bits(gd.sum(ints[b[rank]:b[rank + 1]], dim=0), ints.long().sum(0), "int32 column sums")
    m = gd.mean(shard, dim=(0, 1))
    assert abs(m.item() - ref.sum().item() / (rows * cols)) <= 1e-5, "mean over both dims"
    for fn, kwargs, error in ((gd.sum, {"dim": 1}, ValueError), (gd.sum, {"dim": 0, "exact": True}, ValueError)):
        try:
            fn(shard, **kwargs)
        except error as e:
            assert "gpureduce.distributed.sum" in str(e)
        else:
            raise AssertionError(f"gd.sum(shard, {kwargs}) did not raise {error.__name__}")
    try:
        gd.sum(shard.cpu())
    except TypeError as e:
        assert "x must be a torch.Tensor on a CUDA device" in str(e)
    else:
        raise AssertionError("a CPU tensor was not refused")


def check_empty(rank, world, g, device):
    nothing = torch.empty(0, device=device)
    same_bits(gd.argmax(nothing), torch.tensor(-1, device=device), "argmax of nothing")
    same_bits(gd.sum(nothing), torch.tensor(0.0, device=device), "sum of nothing")
    same_bits(gd.sum(nothing, exact=True), torch.tensor(0.0, device=device), "exact sum of nothing")
    same_bits(gd.amax(nothing), torch.tensor(float("-inf"), device=device), "amax of nothing")


def run(rank, world, backend, init, seed):
    """One rank's checks; init: the rendezvous file, or None for torchrun's environment."""
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    device = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)) % torch.cuda.device_count())
    torch.cuda.set_device(device)
    dist.init_process_group(backend, init_method=f"file://{init}" if init else "env://", rank=rank, world_size=world)
    try:
        for check in (check_float_sums, check_integers, check_extremes, check_axes, check_empty):
            g = torch.Generator().manual_seed(seed + world)
            try:
                check(rank, world, g, device)
            except AssertionError as e:
                raise AssertionError(f"{backend}, {world} ranks, rank {rank}, seed {seed}: {check.__name__}: {e}")
        torch.cuda.synchronize()
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":  # under torchrun: a GPU per process (nccl), or several processes on one (gloo)
    #   torchrun --nproc-per-node 8 tests/python/distributed_checks.py --backend nccl
    import argparse
    ap = argparse.ArgumentParser(description="gpureduce.distributed's checks on every rank of a torchrun launch")
    ap.add_argument("--backend", default="nccl")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    run(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), a.backend, None, a.seed)
    print(f"rank {os.environ['RANK']} of {os.environ['WORLD_SIZE']}: passed", flush=True)
