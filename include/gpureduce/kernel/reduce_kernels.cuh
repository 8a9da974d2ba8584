// The two kernels of the production path; dispatch picks one per call, so every reduction is a
// single launch. MinBlocks: the __launch_bounds__ minimum blocks per SM, 0 for none.
//   single_block_kernel  small inputs: one block reads everything and writes the result. No
//                        workspace, no atomics: the shortest path from launch to result. It takes
//                        the input's split (grid/vector_split.hpp) from the host, which keeps that
//                        arithmetic off its path to the first load (passed to the grid kernel
//                        too, it cost the argmax kernels registers and 4-7%). Partials of up to 8 bytes
//                        that redux.sync cannot reduce (floating sums, products and dot products,
//                        user functors) are staged through shared memory for warp 0
//                        (block/block_reduce.cuh).
//   grid_kernel          a persistent grid (at most one wave of resident blocks). Each block
//                        publishes its partial; one block combines the partials in a fixed order
//                        (the same bits on every run) and writes the result. EvictFirst: its
//                        vector loads mark their lines evict-first in L2 (thread/vector_load.cuh).
//                        Combiner: the grid's last block reads nothing and combines the others'
//                        partials from the start (dispatch/launch_plan.hpp, max_combiner_blocks);
//                        where the result takes integer atomics, block 0 reads nothing instead
//                        and each other block adds its partial into the result
//                        (grid/atomic_end.hpp).
#pragma once

#include <gpureduce/agent/thread_partial.cuh>
#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/grid/flagged_partial.hpp>
#include <gpureduce/kernel/atomic_end.cuh>
#include <gpureduce/kernel/flagged_access.cuh>
#include <gpureduce/kernel/grid_dependency.cuh>
#include <gpureduce/kernel/ticket.cuh>
#include <gpureduce/thread/accumulator.hpp>
#include <gpureduce/thread/tree_key.hpp>

#include <cstdint>
#include <cstring>

namespace gpureduce::detail {

// Runs a kernel's body f(op) with op's NaN policy a constant (with_constant_nan) where the source's
// values are floating, so the body is compiled once per policy and holds no test of it; for other
// values the policy changes nothing and a second copy would only lengthen the kernel. A test of
// the policy between a partial batch's loads kept them from overlapping (H100: float32 dot of 2^12
// 4.85 -> 4.37 us with it fixed; float32 max of 2^18 5.97 -> 5.55 with the whole body so).
template <class Source, class Op, class F>
__device__ __forceinline__ void with_kernel_nan(Op op, F&& f) {
  if constexpr (is_floating_v<typename source_value<Source>::type>) with_constant_nan(op, f);
  else f(op);
}

// The element at an index, as accumulator A's value type, bit for bit (TreeForm::from's reload for
// argmin/argmax; generic, so that it is compiled only where called).
template <class A>
struct value_of {
  using type = A;
};
template <class T>
struct value_of<IndexedValue<T>> {
  using type = T;
};
template <class A, class Source>
__device__ __forceinline__ auto element_reader(const Source& src) {
  return [&src](auto i) {
    typename value_of<A>::type v{};
    src.consume(src.load(std::uint64_t(i)), std::uint64_t(i),
                [&](auto x, std::int64_t) { v = convert_bits<decltype(v)>(x); });
    return v;
  };
}

// Load: how the vectors are loaded (thread/vector_load.cuh; tools/probes/one_block_probe.cu tries
// others). B: Batches::at_most_one where the input is at most one batch (dispatch_reduce.cuh,
// launch_one_block: one vector per thread).
template <unsigned BlockThreads, unsigned MinBlocks, int Unroll, class A, class Out, class Source, class Op,
          class Load = PlainLoad, Batches B = Batches::one_block>
__global__ void __launch_bounds__(BlockThreads, MinBlocks)
    single_block_kernel(Source src, VectorSplit split, Out* out, Op runtime_op) {
  wait_for_previous_grid();
  using T = tree_t<A, Op>;
  __shared__ alignas(16) T warp_partials[block_reduce_scratch<BlockThreads, true, T, tree_op_t<A, Op>>];
  with_kernel_nan<Source>(runtime_op, [&](auto op) {
    const auto tree = tree_form<A>(op);
    const A acc = thread_partial<BlockThreads, Unroll, B>(src, split, 0, 1, Load{}, op, op.template identity<A>());
    const T total = block_reduce<BlockThreads, true, true>(tree.to(acc), tree.op(), tree.identity(), warp_partials);
    if (threadIdx.x == 0) *out = convert_result<Out>(tree.from(total, element_reader<A>(src)));
  });
}

// The grid workspace layout: see launch_plan.hpp. Its flagged slots' accesses: flagged_access.cuh.

// The combiner block's combine, run by its warp 0 alone: lane l polls slots l, l + 32, ... (up to
// SlotsPerLane, all loaded at once) until every lane holds full slots, folds them in that order
// into the identity, and empties each for the next launch. The warp polls as one (see below);
// the caller reduces the warp by shuffles, with no block barrier after the poll.
template <unsigned SlotsPerLane, class A, class Op>
__device__ __forceinline__ A warp_fold_flagged(FlaggedPartial* slots, unsigned count, Op op, A acc) {
  const unsigned lane = threadIdx.x % warp_threads;
  FlaggedPartial p[SlotsPerLane] = {};
  const auto waiting = [&](unsigned k) { return lane + k * warp_threads < count && !is_full<A, Op>(p[k]); };
  bool any_waiting;
  do {
    any_waiting = false;
    // Every slot, full, empty or past count (all in the workspace). Loaded only where waiting, the
    // loads got registers of their own and ptxas issued the last ones only once the first had
    // returned, two L2 round trips per poll (H100: 2 MB of 4-byte values 0.94-0.98x of the time).
#pragma unroll
    for (unsigned k = 0; k < SlotsPerLane; ++k) p[k] = load_flagged(slots + lane + k * warp_threads);
#pragma unroll
    for (unsigned k = 0; k < SlotsPerLane; ++k) any_waiting |= waiting(k);
  } while (__any_sync(~0u, any_waiting));
#pragma unroll
  for (unsigned k = 0; k < SlotsPerLane; ++k) {
    if (lane + k * warp_threads < count) {  // no break: p[] must stay in registers
      store_flagged(slots + lane + k * warp_threads, {});
      acc = op(acc, flagged_value<A, Op>(p[k]));
    }
  }
  return acc;
}

// The last block's share of the flagged partials: slots threadIdx.x, + BlockThreads, ... (one per
// earlier block) folded into acc in that order, each emptied for the next launch once read. The
// loads of a chunk are all in flight at once (polled one after another, each would cost a round
// trip to L2: +1 us at 2^24). A warp polls until all its lanes hold a full slot: lanes that left a
// spin loop one by one made the reduction after it 0.4-0.5 us slower (H100, 2^14-2^18 int32:
// tools/probes/handoff_steps.cu, fold against warp_uniform). Only up to BlockThreads slots (grids
// of up to 257 blocks, where the hand-off is a large part of the time): polled in warp-uniform
// loops beyond that too, ptxas gave the float32 sum kernel 48 registers instead of 32 (5
// resident blocks per SM instead of 8, 2^28-2^30 1.5% slower) or the int32 max kernel 46-50.
template <unsigned BlockThreads, class A, class Op>
__device__ __forceinline__ A fold_flagged(FlaggedPartial* slots, unsigned count, Op op, A acc) {
  if (count <= BlockThreads) {
    if ((threadIdx.x & ~(unsigned(warp_threads) - 1)) < count) {  // the warp's first lane has a slot
      const bool mine = threadIdx.x < count;
      FlaggedPartial p{};
      do
        if (mine && !is_full<A, Op>(p)) p = load_flagged(slots + threadIdx.x);
      while (__any_sync(~0u, mine && !is_full<A, Op>(p)));
      if (mine) {
        store_flagged(slots + threadIdx.x, {});
        acc = op(acc, flagged_value<A, Op>(p));
      }
    }
    return acc;
  }
  constexpr unsigned chunk = 4;
  for (unsigned first = threadIdx.x; first < count; first += chunk * BlockThreads) {
    FlaggedPartial p[chunk] = {};
    for (bool done = false; !done;) {
#pragma unroll
      for (unsigned k = 0; k < chunk; ++k) {
        const unsigned i = first + k * BlockThreads;
        if (i < count && !is_full<A, Op>(p[k])) p[k] = load_flagged(slots + i);
      }
      done = true;
#pragma unroll
      for (unsigned k = 0; k < chunk; ++k) done &= first + k * BlockThreads >= count || is_full<A, Op>(p[k]);
    }
#pragma unroll
    for (unsigned k = 0; k < chunk; ++k) {
      const unsigned i = first + k * BlockThreads;
      if (i < count) {  // no break: p[] must stay in registers
        store_flagged(slots + i, {});
        acc = op(acc, flagged_value<A, Op>(p[k]));
      }
    }
  }
  return acc;
}

// A Combiner grid whose result takes atomics (grid/atomic_end.hpp): block 0 reads nothing, stores
// the identity in the result and publishes the launch's generation; every other block reads its
// share, reduces it, waits for the generation and adds its partial into the result. No block
// waits for another's partial, and nothing is left to do once the last one's atomic is done.
// H100: int32 sum 2^16 5.02 -> 4.77 us, int64 sum 2^18 6.05 -> 5.82 against the combiner block
// and polling last block; 0.95-0.99x of the time from 64 KB to 32 MB. Waiting for the generation
// before the block's reduction instead of after it: 1.02x.
template <unsigned BlockThreads, int Unroll, class A, class Out, class Source, class Op, class Load, class T>
__device__ __forceinline__ void atomic_end_reduce(const Source& src, const VectorSplit& split, Out* out,
                                                  unsigned char* ws, const Load& load, Op op,
                                                  T (&warp_partials)[warp_threads]) {
  auto* ticket_word = reinterpret_cast<unsigned long long*>(ws + grid_generation_offset);
  auto* published = reinterpret_cast<unsigned long long*>(ws + grid_published_offset);
  GenerationTicket ticket{};
  if (threadIdx.x == 0) ticket = draw_generation_ticket(ticket_word);
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      close_generation(ticket_word, ticket);
      *reinterpret_cast<detail::atomic_bits_t<A>*>(out) = atomic_end_identity<A>(op);
      publish_generation(published, ticket);
    }
    return;
  }
  const auto tree = tree_form<A>(op);
  const T acc = tree.to(thread_partial<BlockThreads, Unroll, Batches::grid>(src, split, blockIdx.x - 1, gridDim.x - 1,
                                                                            load, op, op.template identity<A>()));
  const T total = block_reduce<BlockThreads, true>(acc, tree.op(), tree.identity(), warp_partials);
  if (threadIdx.x == 0) {
    close_generation(ticket_word, ticket);
    wait_for_generation(published, ticket);
    atomic_end_apply(out, atomic_end_step(op, tree.from(total, element_reader<A>(src))));
  }
}

template <unsigned BlockThreads, int Unroll, bool EvictFirst, bool Combiner, class A, class Out, class Source, class Op>
__device__ __forceinline__ void grid_reduce(const Source& src, std::uint64_t n, Out* out, void* workspace, Op op) {
  const VectorSplit split = src.split(n);
  // From the block's reduction on, partials are in the tree's form (thread/tree_key.hpp).
  const auto tree = tree_form<A>(op);
  using T = tree_t<A, Op>;
  using TreeOp = tree_op_t<A, Op>;
  __shared__ T warp_partials[warp_threads];
  const VectorLoad<EvictFirst> load;
  auto* ws = static_cast<unsigned char*>(workspace);
  const A identity = op.template identity<A>();
  const T tree_identity = tree.identity();
  const bool is_last_block = blockIdx.x == gridDim.x - 1;
  const auto write = [&](const T& total) { *out = convert_result<Out>(tree.from(total, element_reader<A>(src))); };

  if constexpr (tree_flaggable<A, Op>) {
    // Every block but the last publishes its partial in a flagged slot; the last block (dispatched
    // last, so every block it waits for is already resident) folds the slots into its threads'
    // partials in a fixed order, empties them, and reduces once. No fence, no atomic, no launch
    // counter, and one block reduction on the critical path. In a Combiner grid (at most
    // max_combiner_blocks) the last block reads nothing: its warp 0 polls and reduces by shuffles.
    if constexpr (Combiner && atomic_end_v<A, Out, Op>) {
      atomic_end_reduce<BlockThreads, Unroll, A>(src, split, out, ws, load, op, warp_partials);
      return;
    }
    auto* slots = reinterpret_cast<FlaggedPartial*>(ws + grid_flagged_offset);
    if constexpr (Combiner) {
      if (is_last_block) {
        if (threadIdx.x >= warp_threads) return;
        const T total = warp_reduce_redux(
            warp_fold_flagged<combiner_slots_per_lane>(slots, gridDim.x - 1, tree.op(), tree_identity), tree.op());
        if (threadIdx.x == 0) write(total);
        return;
      }
    }
    const unsigned readers = Combiner ? gridDim.x - 1 : gridDim.x;
    T acc = tree.to(
        thread_partial<BlockThreads, Unroll, Batches::grid>(src, split, blockIdx.x, readers, load, op, identity));
    if (!is_last_block) {
      const T block_total = block_reduce<BlockThreads, true>(acc, tree.op(), tree_identity, warp_partials);
      if (threadIdx.x == 0) store_flagged(slots + blockIdx.x, flag_partial<T, TreeOp>(block_total));
      return;
    }
    acc = fold_flagged<BlockThreads>(slots, gridDim.x - 1, tree.op(), acc);
    acc = block_reduce<BlockThreads, true>(acc, tree.op(), tree_identity, warp_partials);
    if (threadIdx.x == 0) write(acc);
  } else {
    static_assert(!Combiner, "a combiner block reads flagged partials only");
    // Accumulators that do not fit beside a flag: each block writes its partial and draws a
    // ticket; the block that draws the last one combines the partials in block order.
    __shared__ bool is_last;
    unsigned* counter = reinterpret_cast<unsigned*>(ws);
    T* partials = reinterpret_cast<T*>(ws + grid_ticketed_offset);
    const T acc = tree.to(
        thread_partial<BlockThreads, Unroll, Batches::grid>(src, split, blockIdx.x, gridDim.x, load, op, identity));
    const T block_total = block_reduce<BlockThreads, true>(acc, tree.op(), tree_identity, warp_partials);
    if (threadIdx.x == 0) {
      partials[blockIdx.x] = block_total;
      is_last = draw_ticket(counter) == gridDim.x - 1;  // releases this partial; the last acquires all
    }
    __syncthreads();
    if (!is_last) return;
    T v = tree_identity;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BlockThreads)
      v = tree.op()(v, partials[i]);  // ordered by the acquire
    v = block_reduce<BlockThreads, true>(v, tree.op(), tree_identity, warp_partials);
    if (threadIdx.x == 0) {
      write(v);
      reset_tickets(counter);
    }
  }
}

template <unsigned BlockThreads, unsigned MinBlocks, int Unroll, bool EvictFirst, bool Combiner, class A, class Out,
          class Source, class Op>
__global__ void __launch_bounds__(BlockThreads, MinBlocks)
    grid_kernel(Source src, std::uint64_t n, Out* out, void* workspace, Op op) {
  wait_for_previous_grid();
  with_kernel_nan<Source>(op, [&](auto fixed) {
    grid_reduce<BlockThreads, Unroll, EvictFirst, Combiner, A>(src, n, out, workspace, fixed);
  });
}

// The grid kernel whose last block is a combiner, with evict-first loads; for accumulators that
// cannot be flagged, the plain evict-first kernel (dispatch never asks them for a combiner).
template <unsigned BlockThreads, unsigned MinBlocks, int Unroll, class A, class Out, class Source, class Op>
constexpr auto grid_combiner_kernel() {
  return grid_kernel<BlockThreads, MinBlocks, Unroll, true, tree_flaggable<A, Op>, A, Out, Source, Op>;
}

}  // namespace gpureduce::detail
