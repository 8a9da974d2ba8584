// Short rows and segments, a thread each: a block stages a tile of whole segments through shared
// memory, read from global memory as one stream of 16-byte vectors (elements one by one where their
// size does not divide 16 bytes), then each thread folds its segment from the stage in order.
//   staged_rows_kernel  rows of one length back to back (fixed-size segments). Their fold is the
//                       batch-invariant rows' (run_invariant_rows, dispatch_axis.cuh), so a row's
//                       bits depend on its values and length alone, in either mode.
//   staged_tiles        the tile loop, which csr_segments_kernel also runs for short CSR segments
//                       (a tile that outgrows the stage reads its segments a warp each instead).
//   Stage: element e of the tile at e + e / (128 / sizeof(T)): one element of padding per 128
//   bytes, so that threads reading rows a stride apart hit distinct banks; Loads loads in flight
//   per thread fill it.
#pragma once

#include <gpureduce/agent/sources.cuh>
#include <gpureduce/kernel/axis_kernels.cuh>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// What a thread loads at once: a 16-byte vector of elements aligned to their size, or one element.
template <class T>
inline constexpr bool staged_vectors_v = sizeof(T) < vector_bytes && vector_bytes % sizeof(T) == 0 &&
                                         alignof(T) == sizeof(T);
template <class T>
using StagedLoad = std::conditional_t<staged_vectors_v<T>, Vector<T>, T>;
template <class T>
inline constexpr unsigned staged_load_size = staged_vectors_v<T> ? Vector<T>::size : 1;
// Elements per padding element (0: records of more than 16 bytes, unpadded).
template <class T>
inline constexpr unsigned staged_pad_every = sizeof(T) <= 16 ? unsigned(128 / sizeof(T)) : 0;

// Elements a stage of Loads loads per thread holds, and the slots it takes with its padding.
template <class T>
GPUREDUCE_HD constexpr unsigned staged_capacity(unsigned threads, unsigned loads) {
  return threads * loads * staged_load_size<T>;
}
template <class T>
GPUREDUCE_HD constexpr unsigned staged_slots(unsigned capacity) {
  return capacity + (staged_pad_every<T> ? capacity / staged_pad_every<T> : 0);
}

// The most loads per thread whose stage fits in `bytes`.
template <class T>
GPUREDUCE_HD constexpr unsigned staged_loads(unsigned threads, unsigned bytes) {
  unsigned loads = 0;
  while (staged_slots<T>(staged_capacity<T>(threads, loads + 1)) * sizeof(T) <= bytes) ++loads;
  return loads;
}

// The stage's slot of tile element e.
template <class T>
__device__ __forceinline__ unsigned staged_slot(unsigned e) {
  if constexpr (staged_pad_every<T> == 0) return e;
  else return e + e / staged_pad_every<T>;
}

// Segments per tile: `fit` elements of the stage at the mean length, whole blocks of `threads`
// where the segments fill the device, fewer where they would leave blocks short of
// `target_blocks`; at least one.
GPUREDUCE_HD constexpr std::uint64_t staged_per_tile(std::uint64_t segments, std::uint64_t mean, unsigned fit,
                                                     unsigned threads, std::uint64_t target_blocks) {
  const std::uint64_t most = fit / (mean > 0 ? mean : 1);
  const std::uint64_t share = (segments + target_blocks - 1) / target_blocks;
  const std::uint64_t spread = (share + threads - 1) / threads * threads;
  const std::uint64_t n = spread < most ? spread : most;
  return n > 0 ? n : 1;
}

// Rows of one length back to back: row x begins at x * length.
struct FixedRows {
  std::uint64_t length;
  __device__ __forceinline__ std::int64_t offset(std::uint64_t x) const { return std::int64_t(x * length); }
};

// The tiles of `per_tile` segments, the block's every gridDim.x-th, through `stage` (staged_slots of
// staged_capacity<T>(Threads, Loads) elements). where.offset(x): segment x's begin and segment
// x - 1's end.
template <unsigned Threads, unsigned Loads, class A, class Out, class T, class Segments, class Op>
__device__ __forceinline__ void staged_tiles(T* stage, const T* in, const Segments& where, std::uint64_t segments,
                                             std::uint64_t per_tile, Out* out, const Op& op) {
  using Load = StagedLoad<T>;
  constexpr unsigned V = staged_load_size<T>;
  constexpr unsigned capacity = staged_capacity<T>(Threads, Loads);
  const A identity = op.template identity<A>();
  // Offsets within [first, last]: offsets that decrease (which check_segments refuses) read
  // nothing outside the segments' span.
  const std::int64_t first = where.offset(0), last_end = where.offset(segments);
  const std::int64_t last = last_end > first ? last_end : first;
  const auto at = [&](std::uint64_t x) {
    const std::int64_t o = where.offset(x);
    return o < first ? first : o < last ? o : last;
  };
  for (std::uint64_t s0 = std::uint64_t(blockIdx.x) * per_tile; s0 < segments;
       s0 += std::uint64_t(gridDim.x) * per_tile) {
    const std::uint64_t count = segments - s0 < per_tile ? segments - s0 : per_tile;
    const std::int64_t b = at(s0), e = at(s0 + count);
    const std::uint64_t span = e > b ? std::uint64_t(e - b) : 0;
    if (span > capacity) {
      // More than the stage holds (long segments among short ones): a warp per segment.
      const unsigned wl = threadIdx.x % warp_threads;
      for (std::uint64_t r = threadIdx.x / warp_threads; r < count; r += Threads / warp_threads) {
        const std::int64_t rb = at(s0 + r), re = at(s0 + r + 1);
        A acc = identity;
        if (re > rb) acc = fold_run<warp_threads, 4, true>(acc, in + rb, 0, std::uint64_t(re - rb), wl, 0, op);
        acc = butterfly(acc, op, warp_threads / 2, 1);
        if (wl == 0) out[s0 + r] = finish<Out>(acc);
      }
      continue;  // no stage used: no barrier needed
    }
    // The tile's elements: a head up to the first 16-byte boundary, whole vectors, a tail.
    const T* p = in + b;
    const unsigned n = unsigned(span);
    const unsigned misfit = unsigned(reinterpret_cast<std::uintptr_t>(p) / sizeof(T) % V);
    const unsigned head = misfit == 0 ? 0 : V - misfit < n ? V - misfit : n;
    const unsigned vectors = (n - head) / V;
    const unsigned tail = head + vectors * V;
    const Load* body = reinterpret_cast<const Load*>(p + head);
    Load x[Loads];
#pragma unroll
    for (unsigned k = 0; k < Loads; ++k)
      if (threadIdx.x + k * Threads < vectors) x[k] = body[threadIdx.x + k * Threads];
    if (threadIdx.x < head) stage[staged_slot<T>(threadIdx.x)] = p[threadIdx.x];
    if (tail + threadIdx.x < n) stage[staged_slot<T>(tail + threadIdx.x)] = p[tail + threadIdx.x];
#pragma unroll
    for (unsigned k = 0; k < Loads; ++k) {
      const unsigned i = threadIdx.x + k * Threads;
      if (i < vectors) {
        if constexpr (!staged_vectors_v<T>) {
          stage[staged_slot<T>(head + i)] = x[k];
        } else {
#pragma unroll
          for (unsigned j = 0; j < V; ++j) stage[staged_slot<T>(head + i * V + j)] = x[k].v[j];
        }
      }
    }
    __syncthreads();
    for (std::uint64_t r = threadIdx.x; r < count; r += Threads) {
      // The segment within the tile (decreasing offsets clamped to it).
      const std::int64_t rb = at(s0 + r) - b, re = at(s0 + r + 1) - b;
      const unsigned lo = rb < 0 ? 0 : rb < std::int64_t(n) ? unsigned(rb) : n;
      const unsigned hi = re < std::int64_t(lo) ? lo : re < std::int64_t(n) ? unsigned(re) : n;
      A acc = identity;
      for (unsigned k = lo; k < hi; ++k)
        acc = op(acc, lift_element<A>(op, stage[staged_slot<T>(k)], std::int64_t(k - lo)));
      out[s0 + r] = finish<Out>(acc);
    }
    __syncthreads();  // the stage is refilled by the next tile
  }
}

// Staged_rows_kernel: `rows` rows of `length` elements back to back, `per_tile` rows a tile (at most
// staged_capacity elements).
template <unsigned Threads, unsigned Loads, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    staged_rows_kernel(const T* in, std::uint64_t rows, std::uint64_t length, std::uint64_t per_tile, Out* out,
                       Op runtime_op) {
  with_constant_nan(runtime_op, [&](auto op) {
    __shared__ alignas(16) unsigned char stage_bytes[staged_slots<T>(staged_capacity<T>(Threads, Loads)) * sizeof(T)];
    T* stage = reinterpret_cast<T*>(stage_bytes);  // T may have constructors
    staged_tiles<Threads, Loads, A>(stage, in, FixedRows{length}, rows, per_tile, out, op);
  });
}

}  // namespace gpureduce::detail
