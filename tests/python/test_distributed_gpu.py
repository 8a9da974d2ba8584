# gpureduce.distributed on one GPU: 1 to 4 ranks, one process each, through gloo (which exchanges
# by its int64 all-reduce), and one rank through NCCL (its all-gather); what each rank checks is
# in distributed_checks.py. Several GPUs run tests/nccl (C++) and the same checks under torchrun.
import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
import gpureduce.distributed as gd  # noqa: E402

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("backend, world", [("gloo", 1), ("gloo", 2), ("gloo", 3), ("gloo", 4), ("nccl", 1)])
def test_sharded_reductions_match_one_gpu(backend, world, seed, tmp_path):
    if not dist.is_available() or not getattr(dist, f"is_{backend}_available")():
        pytest.skip(f"torch.distributed without {backend}")
    import torch.multiprocessing as mp

    import distributed_checks
    mp.spawn(distributed_checks.run, args=(world, backend, str(tmp_path / "init"), seed), nprocs=world)


def test_calls_need_an_initialised_group():
    if dist.is_available() and dist.is_initialized():
        pytest.skip("a process group is already initialised")
    with pytest.raises(RuntimeError, match=r"gpureduce.distributed.sum: torch.distributed is not initialised"):
        gd.sum(torch.ones(3, device="cuda"))
