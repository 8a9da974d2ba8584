// The kernels that end a reduction over the ranks of an NCCL communicator (nccl.cuh), after its
// one collective: the ranks' partials combined in rank order, and an exact sum's summed exchange
// vector rounded once. Each is one small block; neither reads the input.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/exact/exchange.hpp>
#include <gpureduce/thread/accumulator.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/warp/warp_exact_round.cuh>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// A rank's block of the gathered partials: its `outputs` accumulators, then at the block's last
// 16 bytes its count of elements (argmin and argmax turn a rank's index into the global one with
// the counts of the ranks before it).
GPUREDUCE_HD constexpr std::size_t rank_block_bytes(std::uint64_t outputs, std::size_t acc_bytes) {
  return (outputs * acc_bytes + 15) / 16 * 16 + 16;
}
template <class Block>
GPUREDUCE_HD auto* rank_count(Block* block, std::size_t block_bytes) {
  using Count = std::conditional_t<std::is_const_v<Block>, const std::uint64_t, std::uint64_t>;
  return reinterpret_cast<Count*>(block + block_bytes - 16);
}

// Stamps a rank's count onto its block, and where the rank has no element (the local argmin and
// argmax refuse an empty input) its one accumulator with the identity.
template <class A>
__global__ void stamp_rank_block(unsigned char* block, std::size_t block_bytes, std::uint64_t n, A identity) {
  if (n == 0) *reinterpret_cast<A*>(block) = identity;
  *rank_count(block, block_bytes) = n;
}

// Output j: the partials of ranks 0, 1, ... combined in that order, so the result does not depend
// on how the collective moved them. argmin/argmax (one output): a rank's local index plus the
// counts before it, the earlier rank on ties (the operator's lower index); index -1 where no rank
// has an element.
template <class A, class Op, class Out>
__global__ void combine_rank_blocks(const unsigned char* blocks, std::size_t block_bytes, int ranks,
                                    std::uint64_t outputs, Op op, Out* out) {
  const std::uint64_t j = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= outputs) return;
  const auto part = [&](int r) { return reinterpret_cast<const A*>(blocks + std::size_t(r) * block_bytes)[j]; };
  A acc = part(0);
  std::uint64_t offset = *rank_count(blocks, block_bytes);
  for (int r = 1; r < ranks; ++r) {
    A a = part(r);
    if constexpr (is_arg_extreme_v<Op>) {
      if (a.index != highest<std::int64_t>()) a.index += std::int64_t(offset);
      offset += *rank_count(blocks + std::size_t(r) * block_bytes, block_bytes);
    }
    acc = op(acc, a);
  }
  if constexpr (is_arg_extreme_v<Op>)
    if (acc.index == highest<std::int64_t>()) acc.index = -1;
  out[j] = convert_result<Out>(acc);
}

// One warp: the ranks' summed exchange vector x (exact/exchange.hpp) rounded once into *out.
template <class Terms, class Out>
__global__ void __launch_bounds__(warp_threads) round_exchange_kernel(const std::int64_t* x, Out* out) {
  constexpr int words = Terms::range.words();
  const Out r = warp_round_to<Out, words>(x, Terms::range.lsb_exp, exact::exchange_flags(x, words));
  if (threadIdx.x == 0) *out = r;
}

}  // namespace gpureduce::detail
