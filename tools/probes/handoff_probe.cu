// Where the time of a mid-size reduction goes (2^14-2^18 elements). Not part of the
// library: a stand-alone measurement, same protocol as `gpureduce bench` (100 MB memset before
// each sample, CUDA events, 3 warm-ups, median of 30), run by `tools/device-run COMMIT probe`.
//   launch    an empty kernel of B blocks: the launch floor
//   handoff   no input; every block but the last publishes a flagged 16-byte slot, the last polls
//             them all (the tag is a kernel argument): the cost of the hand-off alone, against B,
//             for each way the last block can combine (Mode below)
//   trace     the same with %globaltimer stamps: block start (skew), publish, and when the last
//             block saw each slot; shows whether the hand-off cost is dispatch, loads or
//             propagation
//   floor     per size: an empty kernel, reading the input with no combine (each block stores its
//             own partial), then with each hand-off, then gpureduce::sum and CUB's Sum
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "read_sum.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                   \
  do {                                                                                          \
    const cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));          \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

namespace {

using u64 = unsigned long long;
constexpr unsigned threads = 256;
constexpr unsigned unroll = 4;

struct alignas(16) Slot {
  u64 value, tag;
};

__device__ __forceinline__ void store_slot(Slot* p, u64 v, u64 t) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v), "l"(t) : "memory");
}
__device__ __forceinline__ Slot load_slot(const Slot* p) {
  Slot s;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(s.value), "=l"(s.tag) : "l"(p) : "memory");
  return s;
}
__device__ __forceinline__ u64 now() {
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}

struct Trace {
  u64* start;   // per block, thread 0 at entry
  u64* publish; // per block, just before its slot store
  u64* seen;    // per block, when the last block saw its slot
  unsigned* sm; // per block
};

__global__ void empty_kernel() {}

__device__ __forceinline__ u64 block_sum(u64 v) {
  __shared__ u64 warps[threads / 32];
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = v;
  __syncthreads();
  v = threadIdx.x < threads / 32 ? warps[threadIdx.x] : 0;
  if (threadIdx.x < 32)
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads();
  return v;
}

// How the last block combines. two_copies: reduces its own partial, polls, reduces the polled
// partials (two inlined copies of the block reduction); fold: polls into its threads' partials,
// then one reduction (its own copy); fold_shared: the same, through the one reduction call that
// every block runs (code the publishers already pulled into L2); same_code: as two_copies, but both
// reductions through one call site (a loop), so the second runs from this SM's instruction cache;
// warp_final: reduces its own partial first, then warp 0 alone polls and reduces by shuffles (no
// barrier after the poll); warp_publish: every warp of the other blocks publishes its own slot
// (no barrier before the publish), the last block folds them all as in fold.
enum Mode { two_copies, fold, fold_shared, same_code, warp_final, warp_publish };
const char* const mode_names[] = {"two reductions", "fold", "fold, shared code", "two reductions, same code",
                                  "warp 0 combines", "warps publish"};

__device__ __forceinline__ u64 warp_sum(u64 v) {
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ u64 poll_slots(const Slot* slots, unsigned count, u64 tag, u64 v, Trace trace, bool traced) {
  for (unsigned i = threadIdx.x; i < count; i += threads) {
    Slot s = load_slot(slots + i);
    while (s.tag != tag) s = load_slot(slots + i);
    if (traced) trace.seen[i] = now();
    v += s.value;
  }
  return v;
}

// Int32 sum of `vectors` int4 in the production layout (a block's batch: 4 x 256 vectors, grid
// stride), then either each block stores its own partial (Handoff false: the floor without a
// combine) or the flagged hand-off to the last block.
template <bool Handoff, bool Traced, Mode M = two_copies>
__global__ void __launch_bounds__(threads)
    read_kernel(const int4* in, u64 vectors, u64* out, Slot* slots, u64 tag, Trace trace) {
  if (Traced && threadIdx.x == 0) trace.start[blockIdx.x] = now(), trace.sm[blockIdx.x] = sm_id();
  u64 acc = read_sum<threads, unroll>(in, vectors, [](const int4* p) { return *p; });
  const unsigned last = gridDim.x - 1;
  const bool is_last = blockIdx.x == last;
  if (!Handoff) {
    acc = block_sum(acc);
    if (threadIdx.x == 0) out[blockIdx.x] = acc;
    return;
  }
  if (M == fold && is_last) {
    acc = block_sum(poll_slots(slots, last, tag, acc, trace, Traced));
    if (threadIdx.x == 0) {
      out[0] = acc;
      if (Traced) trace.publish[last] = trace.seen[last] = now();
    }
    return;
  }
  if (M == warp_publish) {
    if (!is_last) {
      acc = warp_sum(acc);
      if (threadIdx.x % 32 == 0) {
        if (Traced) trace.publish[blockIdx.x] = now();
        store_slot(slots + blockIdx.x * (threads / 32) + threadIdx.x / 32, acc, tag);
      }
      return;
    }
    acc = block_sum(poll_slots(slots, last * (threads / 32), tag, acc, trace, false));
    if (threadIdx.x == 0) {
      out[0] = acc;
      if (Traced) trace.publish[last] = now();
    }
    return;
  }
  if (M == warp_final && is_last) {
    acc = block_sum(acc);
    if (threadIdx.x >= 32) return;
    for (unsigned i = threadIdx.x; i < last; i += 32) {
      Slot sl = load_slot(slots + i);
      while (sl.tag != tag) sl = load_slot(slots + i);
      if (Traced) trace.seen[i] = now();
      acc += sl.value;
    }
    acc = warp_sum(acc);
    if (threadIdx.x == 0) {
      out[0] = acc;
      if (Traced) trace.publish[last] = trace.seen[last] = now();
    }
    return;
  }
  if (M == fold_shared && is_last) acc = poll_slots(slots, last, tag, acc, trace, Traced);
  if (M == same_code) {
    for (unsigned round = 0;; ++round) {
      acc = block_sum(acc);
      if (!is_last) {
        if (threadIdx.x == 0) {
          if (Traced) trace.publish[blockIdx.x] = now();
          store_slot(slots + blockIdx.x, acc, tag);
        }
        return;
      }
      if (round == 1) break;
      acc = poll_slots(slots, last, tag, threadIdx.x == 0 ? acc : 0, trace, Traced);
    }
    if (threadIdx.x == 0) {
      out[0] = acc;
      if (Traced) trace.publish[last] = trace.seen[last] = now();
    }
    return;
  }
  const u64 total = block_sum(acc);
  if (!is_last) {
    if (threadIdx.x == 0) {
      if (Traced) trace.publish[blockIdx.x] = now();
      store_slot(slots + blockIdx.x, total, tag);
    }
    return;
  }
  u64 v = total;
  if (M == two_copies) v = block_sum(poll_slots(slots, last, tag, threadIdx.x == 0 ? total : 0, trace, Traced));
  if (threadIdx.x == 0) {
    out[0] = v;
    if (Traced) trace.publish[last] = trace.seen[last] = now();
  }
}

struct Bench {
  cudaStream_t stream{};
  void* flush = nullptr;
  std::size_t flush_bytes = 100u << 20;
  cudaEvent_t a{}, b{};

  Bench() {
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CK(cudaMalloc(&flush, flush_bytes));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  void flush_l2() { CK(cudaMemsetAsync(flush, 0, flush_bytes, stream)); }
  template <class F>
  double median_us(F&& f, int reps = 30) {
    for (int i = 0; i < 3; ++i) f();
    CK(cudaStreamSynchronize(stream));
    std::vector<double> v;
    for (int i = 0; i < reps; ++i) {
      flush_l2();
      CK(cudaEventRecord(a, stream));
      f();
      CK(cudaEventRecord(b, stream));
      CK(cudaEventSynchronize(b));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, a, b));
      v.push_back(ms * 1e3);
    }
    CK(cudaGetLastError());
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main() {
  Bench bench;
  const unsigned block_counts[] = {1, 2, 4, 8, 9, 12, 16, 24, 32, 64, 132, 264, 1056};
  constexpr unsigned max_blocks = 1056;
  const u64 max_vectors = (u64(1) << 24) / 4;  // 2^24 int32
  int4* in = nullptr;
  u64* out = nullptr;
  Slot* slots = nullptr;
  Trace tr{};
  CK(cudaMalloc(&in, max_vectors * sizeof(int4)));
  CK(cudaMemset(in, 1, max_vectors * sizeof(int4)));
  CK(cudaMalloc(&out, max_blocks * sizeof(u64)));
  CK(cudaMalloc(&slots, max_blocks * (threads / 32) * sizeof(Slot)));
  CK(cudaMemset(slots, 0, max_blocks * (threads / 32) * sizeof(Slot)));
  CK(cudaMalloc(&tr.start, max_blocks * sizeof(u64)));
  CK(cudaMalloc(&tr.publish, max_blocks * sizeof(u64)));
  CK(cudaMalloc(&tr.seen, max_blocks * sizeof(u64)));
  CK(cudaMalloc(&tr.sm, max_blocks * sizeof(unsigned)));
  u64 tag = 0;
  cudaStream_t s = bench.stream;

  // Launches one hand-off kernel of mode m.
  auto handoff = [&](Mode m, bool traced, unsigned nb, u64 vectors) {
    const auto go = [&](auto kernel) { kernel<<<nb, threads, 0, s>>>(in, vectors, out, slots, ++tag, tr); };
    switch (m * 2 + traced) {
      case 0: return go(read_kernel<true, false, two_copies>);
      case 1: return go(read_kernel<true, true, two_copies>);
      case 2: return go(read_kernel<true, false, fold>);
      case 3: return go(read_kernel<true, true, fold>);
      case 4: return go(read_kernel<true, false, fold_shared>);
      case 5: return go(read_kernel<true, true, fold_shared>);
      case 6: return go(read_kernel<true, false, same_code>);
      case 7: return go(read_kernel<true, true, same_code>);
      case 8: return go(read_kernel<true, false, warp_final>);
      case 9: return go(read_kernel<true, true, warp_final>);
      case 10: return go(read_kernel<true, false, warp_publish>);
      default: return go(read_kernel<true, true, warp_publish>);
    }
  };
  const Mode modes[] = {two_copies, fold, fold_shared, same_code, warp_final, warp_publish};

  std::printf("== launch and hand-off against block count (no input), median us\n| B | empty kernel |");
  for (Mode m : modes) std::printf(" %s |", mode_names[m]);
  std::printf("\n|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (unsigned nb : block_counts) {
    std::printf("| %u | %.2f |", nb, bench.median_us([&] { empty_kernel<<<nb, threads, 0, s>>>(); }));
    for (Mode m : modes) std::printf(" %.2f |", bench.median_us([&] { handoff(m, false, nb, 0); }));
    std::printf("\n");
  }

  std::printf("\n== trace of the hand-off (no input), median over 15 cold samples, ns after the first block's start\n");
  std::printf(
      "| combine | B | last block starts | latest start | latest publish | last slot seen | result | publish->seen, "
      "median over slots | max |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (Mode m : modes) {
    if (m == warp_publish) continue;  // one slot per warp: not traced per block
    for (unsigned nb : {4u, 16u, 64u, 132u}) {
      std::vector<double> last_start, max_start, max_pub, max_seen, result, lat_med, lat_max;
      std::vector<unsigned> sms(nb);
      for (int r = 0; r < 15; ++r) {
        bench.flush_l2();
        handoff(m, true, nb, 0);
        CK(cudaStreamSynchronize(s));
        std::vector<u64> st(nb), pub(nb), seen(nb);
        CK(cudaMemcpy(st.data(), tr.start, nb * sizeof(u64), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(pub.data(), tr.publish, nb * sizeof(u64), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(seen.data(), tr.seen, nb * sizeof(u64), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(sms.data(), tr.sm, nb * sizeof(unsigned), cudaMemcpyDeviceToHost));
        const u64 t0 = *std::min_element(st.begin(), st.end());
        last_start.push_back(double(st[nb - 1] - t0));
        max_start.push_back(double(*std::max_element(st.begin(), st.end()) - t0));
        max_pub.push_back(double(*std::max_element(pub.begin(), pub.end() - 1) - t0));
        max_seen.push_back(double(*std::max_element(seen.begin(), seen.end() - 1) - t0));
        std::vector<double> lat;
        for (unsigned i = 0; i + 1 < nb; ++i) lat.push_back(double(seen[i]) - double(pub[i]));
        lat_med.push_back(med(lat));
        lat_max.push_back(*std::max_element(lat.begin(), lat.end()));
        result.push_back(double(pub[nb - 1] - t0));
      }
      std::printf("| %s | %u | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", mode_names[m], nb, med(last_start),
                  med(max_start), med(max_pub), med(max_seen), med(result), med(lat_med), med(lat_max));
    }
  }

  std::printf("\n== int32 sum by size, median us\n| n | blocks | empty kernel | read, no combine |");
  for (Mode m : modes) std::printf(" %s |", mode_names[m]);
  std::printf(" gpureduce::sum | CUB Sum |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  long long* res = nullptr;
  CK(cudaMalloc(&res, sizeof(long long)));
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  const auto* ints = reinterpret_cast<const int*>(in);
  CK(cub::DeviceReduce::Sum(nullptr, temp_bytes, ints, res, std::int64_t(max_vectors * 4), s));
  CK(cudaMalloc(&temp, temp_bytes));
  for (int lg = 10; lg <= 24; lg += 1) {
    const u64 n = u64(1) << lg, vectors = n / 4;
    const unsigned nb =
        unsigned(std::min<u64>(std::max<u64>(1, (vectors + threads * unroll - 1) / (threads * unroll)), max_blocks));
    std::printf(
        "| 2^%d | %u | %.2f | %.2f |", lg, nb, bench.median_us([&] { empty_kernel<<<nb, threads, 0, s>>>(); }),
        bench.median_us([&] { read_kernel<false, false><<<nb, threads, 0, s>>>(in, vectors, out, slots, 0, tr); }));
    for (Mode m : modes) std::printf(" %.2f |", bench.median_us([&] { handoff(m, false, nb, vectors); }));
    std::printf(" %.2f |", bench.median_us([&] { gpureduce::sum(ints, n, res, s); }));
    std::printf(" %.2f |\n", bench.median_us([&] {
      std::size_t b = temp_bytes;
      CK(cub::DeviceReduce::Sum(temp, b, ints, res, std::int64_t(n), s));
    }));
  }
  return 0;
}
