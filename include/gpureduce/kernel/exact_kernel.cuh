// The exact sum (docs/exact.md): one launch. Each thread runs a two-term expansion over its
// elements and deposits remainders into its warp's superaccumulator in shared memory (64-bit
// shared atomics; one accumulator per warp keeps contention within a warp). The block sums its
// warps' accumulators; in a grid it publishes the sum as packets of its words
// (grid/exact_packets.hpp), and the grid's last block, which reads no input, adds the blocks'
// words as they arrive and rounds once. Integer additions are associative, so the result does
// not depend on the grid, the block size or the order of anything.
#pragma once

#include <gpureduce/agent/thread_partial.cuh>
#include <gpureduce/dispatch/exact_plan.hpp>
#include <gpureduce/exact/exchange.hpp>
#include <gpureduce/exact/expansion.hpp>
#include <gpureduce/exact/superaccumulator.hpp>
#include <gpureduce/grid/exact_packets.hpp>
#include <gpureduce/kernel/flagged_access.cuh>
#include <gpureduce/kernel/grid_dependency.cuh>
#include <gpureduce/warp/warp_exact_round.cuh>
#include <gpureduce/warp/warp_redux.cuh>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// Deposits every lane's v into the warp's accumulator. The lanes' final expansion terms mostly
// lie within a few words of each other (similar magnitudes): then the warp sums each word's
// chunks in two redux.sync steps (16-bit halves: 32 of them fit an int), instead of each lane's
// chunks going in by 64-bit shared atomics, which sm_90 runs as compare-and-swap loops
// (ATOMS.CAST.SPIN): 32 lanes on the same words retried one another. Lane j then adds word
// bottom + j with a plain load and store: no other warp touches the accumulator (H100: 0.98x of the
// time of lane 0 adding each word by an atomic, median over 2^10-2^22).
__device__ __forceinline__ void deposit_warp(double v, int lsb_exp, long long* acc) {
  exact::Chunks ch{-1, {0, 0, 0}};
  exact::split(v, lsb_exp, ch);
  const int top = warp_allreduce(ch.word, Max{});
  if (top < 0) return;
  const int bottom = warp_allreduce(ch.word < 0 ? top : ch.word, Min{});
  __syncwarp();  // the warp's earlier deposits before these
  if (top - bottom > 4) {  // magnitudes far apart: each lane its own
    if (ch.word >= 0)
      for (int k = 0; k < 3; ++k)
        if (ch.c[k])
          atomicAdd(reinterpret_cast<unsigned long long*>(&acc[ch.word + k]), static_cast<unsigned long long>(ch.c[k]));
    return;
  }
  const unsigned lane = threadIdx.x % warp_threads;
  std::int64_t own = 0;  // the sum of word bottom + lane
  for (int i = bottom; i <= top + 2; ++i) {
    const int k = i - ch.word;
    const std::int64_t c = ch.word < 0 ? 0 : k == 0 ? ch.c[0] : k == 1 ? ch.c[1] : k == 2 ? ch.c[2] : 0;
    const std::uint32_t m = std::uint32_t(c < 0 ? -c : c);  // a chunk is a sign and a 32-bit digit
    const int hi = int(m >> 16), lo = int(m & 0xffffu);
    const int sum_hi = warp_allreduce(c < 0 ? -hi : hi, Sum{}), sum_lo = warp_allreduce(c < 0 ? -lo : lo, Sum{});
    if (lane == unsigned(i - bottom)) own = std::int64_t(sum_hi) * 65536 + sum_lo;
  }
  if (own) acc[bottom + int(lane)] += own;
}

// The deposit of a thread's remainders into its warp's accumulator, held as a shared-memory
// address: the out-of-line slow path (expansion.hpp) takes it by value, and a generic pointer
// there cost a conversion of the shared window's address before every call.
template <class Terms>
struct SharedDeposit {
  unsigned words;  // the shared address of the warp's accumulator
  __device__ __forceinline__ void operator()(double v) const {
    exact::deposit(v, Terms::range.lsb_exp, [this](int i, std::int64_t c) {
      asm volatile("red.shared.add.u64 [%0], %1;" ::"r"(words + 8u * unsigned(i)), "l"(c) : "memory");
    });
  }
};

// The combiner block's combine: every reader's packets polled until full (warp-uniform, each
// lane's loads all in flight), emptied for the next launch and added into sums[0, Words) (shared,
// zero) and the special-value flags into *flags. Packet row p (readers' slots p * readers ...) is
// taken by `parts` warps, each lane adding every (32 x parts)th reader's packet. A warp with two
// rows (double: 23 rows on 16 warps) polls both at once, two packets per lane and row in flight:
// a reader stores all its packets at once, and the second row polled after the first cost one
// more round trip to L2 after the last reader (H100: float64 0.945-0.972x of the time at
// 2^14-2^18). Each word is then summed over the warp in three redux.sync (warp/redux_steps.hpp)
// rather than five 64-bit shuffle steps (0.99x, median).
template <unsigned BlockThreads, int Words>
__device__ __forceinline__ void combine_packets(FlaggedPartial* slots, unsigned readers, std::int64_t* sums,
                                                unsigned* flags) {
  constexpr unsigned rows = exact::packets(Words);
  constexpr unsigned warps = BlockThreads / warp_threads;
  constexpr unsigned parts = rows >= warps ? 1 : warps / rows;
  constexpr unsigned stride = warp_threads * parts;
  constexpr unsigned tasks = rows * parts;                      // (row, part) pairs
  constexpr unsigned per_warp = (tasks + warps - 1) / warps;    // the warp's tasks, polled together
  constexpr unsigned per_lane = per_warp >= 4 ? 1 : 4 / per_warp;  // a task's packets in flight per lane and poll
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const auto task_of = [&](unsigned j) { return warp + j * warps; };
  std::int64_t s[per_warp][exact::packet_words] = {};
  unsigned f = 0;
  for (unsigned done = 0; done < readers; done += stride * per_lane) {
    FlaggedPartial v[per_warp][per_lane] = {};
    const auto reader = [&](unsigned j, unsigned k) {
      return done + (task_of(j) % parts) * warp_threads + lane + k * stride;
    };
    const auto row = [&](unsigned j) { return slots + std::size_t(task_of(j) / parts) * readers; };
    bool waiting;
    do {  // every packet loaded in each poll, those past the row as its last: no load waits for another
      waiting = false;
#pragma unroll
      for (unsigned j = 0; j < per_warp; ++j)
        if (task_of(j) < tasks)
#pragma unroll
          for (unsigned k = 0; k < per_lane; ++k) v[j][k] = load_flagged(row(j) + min(reader(j, k), readers - 1));
#pragma unroll
      for (unsigned j = 0; j < per_warp; ++j)
#pragma unroll
        for (unsigned k = 0; k < per_lane; ++k)
          waiting |= task_of(j) < tasks && reader(j, k) < readers && !exact::packet_is_full(v[j][k]);
    } while (__any_sync(~0u, waiting));
#pragma unroll
    for (unsigned j = 0; j < per_warp; ++j)
#pragma unroll
      for (unsigned k = 0; k < per_lane; ++k)
        if (task_of(j) < tasks && reader(j, k) < readers) {  // no break: v[] must stay in registers
          store_flagged(row(j) + reader(j, k), {});
          exact::add_packet(v[j][k], int(task_of(j) / parts), s[j], f);
        }
  }
  f = warp_allreduce(f, BitOr{});
#pragma unroll
  for (unsigned j = 0; j < per_warp; ++j) {
    if (task_of(j) >= tasks) break;  // warp-uniform
    const int p = int(task_of(j) / parts);
#pragma unroll
    for (int w = 0; w < exact::packet_words; ++w) s[j][w] = warp_allreduce(s[j][w], Sum{});
    if (lane == 0) {
#pragma unroll
      for (int w = 0; w < exact::packet_words; ++w) {
        const int i = p * exact::packet_words + w;
        if (i >= Words) break;
        if constexpr (parts == 1) sums[i] = s[j][w];
        else atomicAdd(reinterpret_cast<unsigned long long*>(&sums[i]), static_cast<unsigned long long>(s[j][w]));
      }
      if (p == 0) atomicOr(flags, f);
    }
  }
}

// Warp 0's end of an exact sum: the grid's words sums[0, Words) rounded once into *out, or, into
// an exchange vector (exact/exchange.hpp, for nccl.cuh), carried one step and written with the
// flags and the count.
template <class Out, int Words>
__device__ __forceinline__ void finish_exact(const std::int64_t* sums, int lsb_exp, unsigned flags, std::uint64_t n,
                                             Out* out) {
  const unsigned lane = threadIdx.x % warp_threads;
  if constexpr (std::is_same_v<Out, exact::ExchangeWord>) {
    for (int i = int(lane); i < exact::exchange_words(Words); i += warp_threads)
      out[i].v = exact::exchange_word(sums, Words, i, flags, n);
  } else {
    const unsigned all_flags = flags | (n == 0 ? exact::flag_not_neg_zero : 0u);  // the empty sum is +0
    const Out r = warp_round_to<Out, Words>(sums, lsb_exp, all_flags);
    if (lane == 0) *out = r;
  }
}

// EvictFirst: the vectors loaded evict-first in L2, as the plain grids load inputs of up to 4x
// the L2 size (thread/vector_load.cuh, docs/design.md, "Loads").
template <unsigned BlockThreads, int Unroll, class Terms, class Out, class Source, bool EvictFirst = false>
__global__ void __launch_bounds__(BlockThreads)
    exact_sum_kernel(Source src, std::uint64_t n, Out* out, void* workspace) {
  wait_for_previous_grid();
  constexpr exact::TermRange range = Terms::range;
  constexpr int words = range.words();
  constexpr unsigned warps = BlockThreads / warp_threads;
  __shared__ long long acc[warps][words];
  __shared__ std::int64_t sums[words];  // the block's words; in the combiner, the grid's
  __shared__ unsigned block_flags;        // the combiner's
  __shared__ unsigned warp_flags[warps];  // a reader's, per warp
  const unsigned readers = gridDim.x > 1 ? gridDim.x - 1 : 1;
  auto* slots = reinterpret_cast<FlaggedPartial*>(static_cast<unsigned char*>(workspace) + grid_flagged_offset);

  if (blockIdx.x == readers) {  // the combiner of a grid
    for (unsigned i = threadIdx.x; i < unsigned(words); i += BlockThreads) sums[i] = 0;
    if (threadIdx.x == 0) block_flags = 0;
    __syncthreads();
    combine_packets<BlockThreads, words>(slots, readers, sums, &block_flags);
    __syncthreads();
    if (threadIdx.x < warp_threads) finish_exact<Out, words>(sums, range.lsb_exp, block_flags, n, out);
    return;
  }

  // Each warp zeroes its own accumulator and keeps its own flags: no block barrier before the
  // loads, so that no warp waits for the block's slowest prologue to issue them (H100: 0.99x of the
  // time at 2^10-2^20, median).
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  long long* mine = acc[warp];
  for (unsigned i = lane; i < unsigned(words); i += warp_threads) mine[i] = 0;
  __syncwarp();
  const SharedDeposit<Terms> put{unsigned(__cvta_generic_to_shared(mine))};
  exact::Expansion<Terms> e;
  for_each_thread_value<BlockThreads, Unroll, Batches::grid>(
      src, src.split(n), blockIdx.x, readers, VectorLoad<EvictFirst>{},
      [&](auto x, std::int64_t) { e.add(convert<double>(x), put); },
      [&](const auto& y, std::int64_t) { e.add_values(y, put); });
  const unsigned flags = warp_allreduce(e.final_flags(), BitOr{});
  deposit_warp(e.hi, range.lsb_exp, mine);
  deposit_warp(e.lo, range.lsb_exp, mine);
  if (lane == 0) warp_flags[warp] = flags;
  __syncthreads();

  // The block's sum: one carry step per warp accumulator first, so that adding warps cannot
  // overflow (each stepped word is below 2^33).
  for (unsigned i = threadIdx.x; i < unsigned(words); i += BlockThreads) {
    std::int64_t s = 0;
    for (unsigned w = 0; w < warps; ++w)
      s += exact::carry_step(reinterpret_cast<const std::int64_t*>(acc[w]), i, words);
    sums[i] = s;
  }
  __syncthreads();
  if (threadIdx.x >= warp_threads) return;
  const unsigned reader_flags = warp_allreduce(lane < warps ? warp_flags[lane] : 0u, BitOr{});
  if (gridDim.x == 1) {
    finish_exact<Out, words>(sums, range.lsb_exp, reader_flags, n, out);
    return;
  }
  // Publish: lane p of warp 0 stores packet p, the words as they are (the combiner carries).
  static_assert((std::int64_t(warps) << 33) <= exact::packet_word_bound, "a block's words must fit a packet's fields");
  if (threadIdx.x < unsigned(exact::packets(words)))
    store_flagged(slots + std::size_t(threadIdx.x) * readers + blockIdx.x,
                  exact::pack_words(sums, words, int(threadIdx.x), reader_flags));
}

}  // namespace gpureduce::detail
