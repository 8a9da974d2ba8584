// Where the grid's hand-off spends its 1.1-1.3 us (issue 3, 2^14-2^18 elements). handoff_probe's
// trace showed the last slot seen 250-500 ns after it was published, and the result written
// 700-800 ns after that, where a publisher's whole block reduction takes under 400 ns. This probe
// takes the last block's steps apart. Not part of the library: an int32 sum in the grid's layout
// (read_sum.cuh) with the library's flagged slots and block reduction, timed as the bench times a
// call (src/bench/timer.hpp), each kernel variant under two L2 states:
//   flush        the bench's flush (a memset of 2x L2): the slots' lines are in DRAM, so the last
//                block's first poll of each is a DRAM miss
//   flush+slots  the same flush, then a kernel that loads the slots' lines back into L2
// Variants of the last block:
//   no_combine     every block stores its own partial: the floor without a hand-off
//   fold           the library's: poll one slot per thread into its partial, one block reduction
//   fold_prefetch  the same, with the slots' lines prefetched into L2 at kernel start
//   poll_only      poll, and each poller stores what it saw (no reduction after the poll)
//   late_empty     fold, the slots emptied after the reduction instead of before it
//   warp_uniform   fold, polled in warp-uniform loops: no lane leaves the poll before its warp
//   every_warp     every warp polls every slot (warp-uniform), warp 0 keeps the values: all warps
//                  reach the block reduction's barrier together
//   warp_final     the block reduces its own partial first; then warp 0 alone polls (warp-uniform,
//                  up to 64 slots) and reduces by shuffles, no barrier after the poll
//   wait_reduce    no poll: wait until `wait_ns` after the block's start, then reduce and store
//                  (the reduction's cost after a wait as long as the poll's)
// warp_uniform and warp_final also run with one block more than the input has batches: that last
// block reads nothing and polls from the start, a combiner off the readers' critical path.
// and the ticketed hand-off of wide accumulators (argmin/argmax), where every block's thread 0
// stores its partial and draws a ticket while the rest of its warp waits:
//   ticket          the library's: thread 0 alone, in a branch
//   ticket_uniform  warp 0 runs one asm statement in which lane 0 stores and draws (no branch)
// Then a %globaltimer trace of the polling variants: publish, last slot seen, reduced, stored.
// Run by `tools/device-run COMMIT steps`.
#include <gpureduce/gpureduce.cuh>

#include <cuda/atomic>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"
#include "read_sum.cuh"

#include <algorithm>
#include <array>
#include <utility>
#include <cstdio>
#include <vector>

namespace {

using u64 = unsigned long long;
using gpureduce::FlaggedPartial;
constexpr unsigned threads = 256, unroll = 4, max_blocks = 1056;

enum Variant {
  no_combine,
  fold,
  fold_prefetch,
  poll_only,
  wait_reduce,
  late_empty,
  warp_uniform,
  every_warp,
  warp_final
};
const char* const variant_names[] = {"no_combine", "fold",      "fold_prefetch", "poll_only",
                                     "wait_reduce", "late_empty", "warp_uniform", "every_warp",
                                     "warp_final"};

// Stamps (ns of %globaltimer), per launch: [0, B) publish per block, [B, 2B) slot seen, then for
// the last block: start, reduced, stored.
struct Stamps {
  u64* t;
  __device__ void put(unsigned i, u64 v) const { t[i] = v; }
};

// The timer read takes `dep` as an operand, so that the PTX orders it after dep's computation.
__device__ __forceinline__ u64 now(u64 dep = 0) {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t) : "l"(dep));
  return t;
}

template <Variant V, bool Traced>
__global__ void __launch_bounds__(threads)
    steps_kernel(const int4* in, u64 vectors, u64* out, FlaggedPartial* slots, u64 wait_ns, Stamps st) {
  __shared__ u64 warp_partials[gpureduce::warp_threads];
  const gpureduce::Sum op;
  const unsigned nb = gridDim.x, last = nb - 1;
  const bool is_last = blockIdx.x == last;
  const u64 t0 = now();
  if (V == fold_prefetch && is_last && threadIdx.x * 8 < last)  // 8 slots per 128-byte line
    asm volatile("prefetch.global.L2 [%0];" ::"l"(slots + threadIdx.x * 8));
  u64 acc = read_sum<threads, unroll>(in, vectors, [](const int4* p) { return *p; });
  if (V == no_combine || (V == wait_reduce && !is_last)) {
    acc = gpureduce::block_reduce<threads>(acc, op, 0ull, warp_partials);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
    return;
  }
  if (!is_last) {
    acc = gpureduce::block_reduce<threads>(acc, op, 0ull, warp_partials);
    if (threadIdx.x == 0) {
      if (Traced) st.put(blockIdx.x, now(acc));
      gpureduce::store_flagged(slots + blockIdx.x, gpureduce::flag_partial<u64, gpureduce::Sum>(acc));
    }
    return;
  }
  if (V == wait_reduce)
    while (now(acc) - t0 < wait_ns) {
    }
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (V == warp_final) {
    // The block's own partial first (while the others still publish), then warp 0 alone polls up
    // to 64 slots warp-uniform (two per lane, both in flight) and reduces by shuffles: no barrier
    // after the poll.
    acc = gpureduce::block_reduce<threads>(acc, op, 0ull, warp_partials);
    if (warp != 0) return;
    u64 v = lane == 0 ? acc : 0;
    FlaggedPartial p[2] = {};
    const auto waiting = [&](unsigned k) {
      return lane + 32 * k < last && !gpureduce::is_full<u64, gpureduce::Sum>(p[k]);
    };
    do
      for (unsigned k = 0; k < 2; ++k)
        if (waiting(k)) p[k] = gpureduce::load_flagged(slots + lane + 32 * k);
    while (__any_sync(~0u, waiting(0) || waiting(1)));
    for (unsigned k = 0; k < 2; ++k)
      if (lane + 32 * k < last) {
        if (Traced) st.put(nb + lane + 32 * k, now(p[k].lo));
        gpureduce::store_flagged(slots + lane + 32 * k, {});
        v += p[k].lo;
      }
    v = gpureduce::warp_reduce(v, op);
    if (lane == 0) {
      const u64 reduced = Traced ? now(v) : 0;
      out[0] = v;
      if (Traced) st.put(2 * nb, t0), st.put(2 * nb + 1, reduced), st.put(2 * nb + 2, now());
    }
    return;
  }
  if (V == warp_uniform || V == every_warp) {
    // Polled in warp-uniform loops (no lane leaves before its warp): warp w's lanes take slots
    // w * 32 + lane, ... (warp_uniform), or every warp polls every slot and warp 0 keeps them
    // (every_warp: all warps reach the barrier together).
    const unsigned first = V == every_warp ? lane : threadIdx.x, step = V == every_warp ? 32 : threads;
    for (unsigned i = first; __any_sync(~0u, i < last); i += step) {
      FlaggedPartial p{};
      do
        if (i < last && !gpureduce::is_full<u64, gpureduce::Sum>(p)) p = gpureduce::load_flagged(slots + i);
      while (__any_sync(~0u, i < last && !gpureduce::is_full<u64, gpureduce::Sum>(p)));
      if (Traced && i < last) st.put(nb + i, now(p.lo));
      if ((V == warp_uniform || warp == 0) && i < last) acc += p.lo;
    }
  } else if (V != wait_reduce && threadIdx.x < last) {
    FlaggedPartial p = gpureduce::load_flagged(slots + threadIdx.x);
    while (!gpureduce::is_full<u64, gpureduce::Sum>(p)) p = gpureduce::load_flagged(slots + threadIdx.x);
    if (Traced) st.put(nb + threadIdx.x, now(p.lo));
    if (V != late_empty) gpureduce::store_flagged(slots + threadIdx.x, {});
    if (V == poll_only) out[threadIdx.x] = p.lo;
    acc += p.lo;
  }
  if (V == poll_only) return;
  acc = gpureduce::block_reduce<threads>(acc, op, 0ull, warp_partials);
  if (V == late_empty || V == warp_uniform || V == every_warp)  // emptied once every poll is over
    for (unsigned i = threadIdx.x; i < last; i += threads) gpureduce::store_flagged(slots + i, {});
  if (threadIdx.x == 0) {
    const u64 reduced = Traced ? now(acc) : 0;
    out[0] = acc;
    if (Traced) {
      const u64 stored = now();
      st.put(2 * nb, t0), st.put(2 * nb + 1, reduced), st.put(2 * nb + 2, stored);
    }
  }
}

template <bool Uniform>
__global__ void __launch_bounds__(threads)
    ticket_kernel(const int4* in, u64 vectors, u64* out, u64* partials, unsigned* counter) {
  __shared__ u64 warp_partials[gpureduce::warp_threads];
  __shared__ bool is_last;
  const gpureduce::Sum op;
  u64 acc = read_sum<threads, unroll>(in, vectors, [](const int4* p) { return *p; });
  acc = gpureduce::block_reduce<threads>(acc, op, 0ull, warp_partials);
  if (!Uniform && threadIdx.x == 0) {
    partials[blockIdx.x] = acc;
    const unsigned ticket =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).fetch_add(1, cuda::memory_order_acq_rel);
    is_last = ticket == gridDim.x - 1;
  }
  if (Uniform && threadIdx.x < gpureduce::warp_threads) {
    unsigned ticket;
    asm volatile(
        "{ .reg .pred p;\n setp.eq.u32 p, %1, 0;\n @p st.global.u64 [%2], %3;\n"
        " @p atom.acq_rel.gpu.global.add.u32 %0, [%4], 1; }"
        : "=r"(ticket)
        : "r"(threadIdx.x), "l"(partials + blockIdx.x), "l"(acc), "l"(counter)
        : "memory");
    ticket = __shfl_sync(~0u, ticket, 0);
    if (threadIdx.x == 0) is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last) return;
  u64 v = 0;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += threads) v += partials[i];
  v = gpureduce::block_reduce<threads>(v, op, 0ull, warp_partials);
  if (threadIdx.x == 0) {
    out[0] = v;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).store(0, cuda::memory_order_relaxed);
  }
}

// Every variant, untraced and traced: steps_kernels[v * 2 + traced].
template <std::size_t... I>
constexpr auto make_steps_kernels(std::index_sequence<I...>) {
  return std::array{steps_kernel<Variant(I / 2), I % 2 == 1>...};
}
constexpr auto steps_kernels = make_steps_kernels(std::make_index_sequence<2 * (warp_final + 1)>{});

__global__ void touch_slots(const FlaggedPartial* slots, unsigned count, u64* sink) {
  u64 v = 0;
  for (unsigned i = threadIdx.x; i < count; i += blockDim.x) v ^= gpureduce::load_flagged(slots + i).hi;
  if (v == 0x5eed) *sink = v;
}

double med(std::vector<double> v) { return v.empty() ? 0 : gpureduce::median(std::move(v)); }

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  gpureduce::GpuTimer timer(s, setup.l2_bytes);
  gpureduce::DeviceBuffer<unsigned char> flush(2 * setup.l2_bytes);
  const u64 max_vectors = (u64(1) << 18) / 4;
  gpureduce::DeviceBuffer<int4> in(max_vectors);
  gpureduce::DeviceBuffer<u64> out(max_blocks), stamps(2 * max_blocks + 3);
  gpureduce::DeviceBuffer<FlaggedPartial> slots(max_blocks);
  gpureduce::DeviceBuffer<u64> partials(max_blocks);
  gpureduce::DeviceBuffer<unsigned> counter(1);
  GPUREDUCE_CUDA(cudaMemset(counter.get(), 0, sizeof(unsigned)));
  GPUREDUCE_CUDA(cudaMemset(in.get(), 1, max_vectors * sizeof(int4)));
  GPUREDUCE_CUDA(cudaMemset(slots.get(), 0, max_blocks * sizeof(FlaggedPartial)));
  const Stamps st{stamps.get()};

  const auto launch = [&](Variant v, bool traced, unsigned nb, u64 vectors, u64 wait_ns, cudaStream_t stream) {
    steps_kernels[v * 2 + traced]<<<nb, threads, 0, stream>>>(in.get(), vectors, out.get(), slots.get(), wait_ns, st);
  };
  const auto flush_l2 = [&](cudaStream_t stream) {
    GPUREDUCE_CUDA(cudaMemsetAsync(flush.get(), 0, flush.size(), stream));
  };
  const auto flush_then_slots = [&](cudaStream_t stream) {
    flush_l2(stream);
    touch_slots<<<1, threads, 0, stream>>>(slots.get(), max_blocks, out.get());
  };

  struct Case {
    const char* name;
    unsigned blocks;
    u64 vectors;
  };
  const Case cases[] = {{"no input, 2 blocks", 2, 0},   {"no input, 16 blocks", 16, 0},
                        {"2^14 int32", 4, 1u << 12},     {"2^16 int32", 16, 1u << 14},
                        {"2^18 int32", 64, 1u << 16}};

  std::printf(
      "== median us of 60 samples; L2: flush = the bench's flush, flush+slots = then the slots' lines loaded\n");
  std::printf(
      "| case | L2 | no_combine | fold | fold_prefetch | poll_only | late_empty | warp_uniform | every_warp | "
      "warp_final | warp_uniform +1 block | warp_final +1 block | wait_reduce 0 | 500 | 1000 ns | ticket | "
      "ticket_uniform |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const Case& c : cases) {
    for (int warm_slots = 0; warm_slots < 2; ++warm_slots) {
      const auto median_us = [&](const std::function<void(cudaStream_t)>& enqueue) {
        return 1e3 *
               timer
                   .measure(enqueue, 60, 3, warm_slots ? std::function<void(cudaStream_t)>(flush_then_slots) : flush_l2)
                   .median_ms;
      };
      const auto time = [&](Variant v, u64 wait_ns, unsigned extra_blocks = 0) {
        return median_us(
            [&](cudaStream_t stream) { launch(v, false, c.blocks + extra_blocks, c.vectors, wait_ns, stream); });
      };
      std::printf("| %s | %s |", c.name, warm_slots ? "flush+slots" : "flush");
      for (Variant v : {no_combine, fold, fold_prefetch, poll_only, late_empty, warp_uniform, every_warp, warp_final})
        std::printf(" %.2f |", time(v, 0));
      for (Variant v : {warp_uniform, warp_final}) std::printf(" %.2f |", time(v, 0, c.vectors ? 1 : 0));
      for (u64 wait_ns : {0, 500, 1000}) std::printf(" %.2f |", time(wait_reduce, wait_ns));
      for (bool uniform : {false, true}) {
        const auto go = [&](auto kernel) {
          return median_us([&](cudaStream_t stream) {
            kernel<<<c.blocks, threads, 0, stream>>>(in.get(), c.vectors, out.get(), partials.get(), counter.get());
          });
        };
        std::printf(" %.2f |", uniform ? go(ticket_kernel<true>) : go(ticket_kernel<false>));
      }
      std::printf("\n");
    }
  }

  std::printf("\n== trace, L2 flushed, median over 31 samples, ns after the last block's start\n");
  std::printf(
      "| case | variant | latest publish | last slot seen | reduced | result stored "
      "|\n|---|---|---:|---:|---:|---:|\n");
  std::vector<u64> h(2 * max_blocks + 3);
  for (const Case& c : cases) {
    for (Variant v : {fold, fold_prefetch, warp_uniform, every_warp, warp_final}) {
      const unsigned nb = c.blocks;
      std::vector<double> pub, seen, reduced, stored;
      for (int r = 0; r < 34; ++r) {
        flush_l2(s);
        launch(v, true, nb, c.vectors, 0, s);
        GPUREDUCE_CUDA(cudaStreamSynchronize(s));
        if (r < 3) continue;
        GPUREDUCE_CUDA(cudaMemcpy(h.data(), stamps.get(), h.size() * sizeof(u64), cudaMemcpyDeviceToHost));
        const double t0 = double(h[2 * nb]);
        pub.push_back(double(*std::max_element(h.begin(), h.begin() + nb - 1)) - t0);
        seen.push_back(double(*std::max_element(h.begin() + nb, h.begin() + 2 * nb - 1)) - t0);
        reduced.push_back(double(h[2 * nb + 1]) - t0);
        stored.push_back(double(h[2 * nb + 2]) - t0);
      }
      std::printf("| %s | %s | %.0f | %.0f | %.0f | %.0f |\n", c.name, variant_names[v], med(pub), med(seen),
                  med(reduced), med(stored));
    }
  }
  GPUREDUCE_CUDA(cudaGetLastError());
  return 0;
}
