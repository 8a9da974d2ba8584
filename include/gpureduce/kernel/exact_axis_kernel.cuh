// The exact sums of the axis and segmented reductions (docs/exact.md): one warp per result, or per
// slice of one where results are few and long. Each lane runs an expansion (exact/expansion.hpp)
// over its elements. Where no remainder went to the warp's superaccumulator and the lanes' pairs
// add up exactly as pairs (group_pair_sum), the pair is rounded at once (exact/pair_round.hpp);
// otherwise the pairs go into the superaccumulator, which is rounded once. A slice instead stores
// its words, carried one step, and exact_combine_kernel adds a result's slices and rounds. Either
// way the result is the exact sum rounded once, so its bits depend on its elements' values alone:
// not on the layout, the slicing, the batch, the position or the GPU.
#pragma once

#include <gpureduce/exact/pair_round.hpp>
#include <gpureduce/kernel/axis_kernels.cuh>
#include <gpureduce/kernel/exact_kernel.cuh>

#include <cstdint>

namespace gpureduce::detail {

// element(load(j), j) for j = first, first + step, ... below end, four loads in flight.
template <class Load, class Element>
__device__ __forceinline__ void visit_strided(std::uint64_t first, std::uint64_t end, unsigned step, Load&& load,
                                              Element&& element) {
  constexpr unsigned K = 4;
  for (std::uint64_t j0 = first; j0 < end; j0 += K * step) {
    decltype(load(j0)) x[K];
#pragma unroll
    for (unsigned k = 0; k < K; ++k)
      if (j0 + k * step < end) x[k] = load(j0 + k * step);
#pragma unroll
    for (unsigned k = 0; k < K; ++k)
      if (j0 + k * step < end) element(x[k], j0 + k * step);
  }
}

// Results that each read one contiguous run (Rows: UniformRows or OffsetRows): elements [lo, hi)
// of result r by lane k of G, every G-th 16-byte vector (G >= 8: visit_vectors' head and tail take
// a lane per element), or all of them (G = 1).
template <class Rows>
struct ExactRuns {
  Rows rows;
  template <unsigned G, class T, class Element, class VectorFn>
  __device__ RowSpan visit(const T* in, std::uint64_t r, std::uint64_t lo, std::uint64_t hi, unsigned k,
                           Element&& element, VectorFn&& vector) const {
    static_assert(G == 1 || G >= 8);
    const RowSpan s = rows.row(r);
    const std::uint64_t end = hi < s.length ? hi : s.length;
    lo = lo < end ? lo : end;
    if constexpr (G == 1)
      visit_strided(lo, end, 1, [&](std::uint64_t j) { return in[s.in + std::int64_t(j)]; }, element);
    else
      visit_vectors<G, 4>(in + s.in, lo, end, k, element, vector);
    return s;
  }
  __device__ std::int64_t out_offset(std::uint64_t r) const { return rows.row(r).out; }
};

// Any strides: result r's kept offset from `outer`, its `length` elements walked by row-major index
// over `reduced`, lane k of G taking elements k, k + G, ...
struct ExactWalk {
  Dims outer;
  Dims reduced;
  std::uint64_t length;
  template <unsigned G, class T, class Element, class VectorFn>
  __device__ RowSpan visit(const T* in, std::uint64_t r, std::uint64_t lo, std::uint64_t hi, unsigned k,
                           Element&& element, VectorFn&&) const {
    RowSpan s{0, length, 0};
    outer.offsets(r, &s.in, &s.out);
    const auto load = [&](std::uint64_t p) {
      std::int64_t off, unused;
      reduced.offsets(p, &off, &unused);
      return in[s.in + off];
    };
    visit_strided(lo + k, hi < length ? hi : length, G, load, element);
    return s;
  }
  __device__ std::int64_t out_offset(std::uint64_t r) const {
    std::int64_t in_off, out_off;
    outer.offsets(r, &in_off, &out_off);
    return out_off;
  }
};

// Words of one sliced piece in `partials`: the piece's carried words, then its flags.
template <class Terms>
inline constexpr int piece_words = Terms::range.words() + 1;

// The exactly rounded result of an exact sum whose terms all went into (h, l): nothing deposited,
// no special value. Zero takes its sign from the flags. False where round_pair declines.
template <class Out>
__device__ __forceinline__ bool round_clean(double h, double l, unsigned flags, Out* result) {
  const exact::TwoSum x = exact::two_sum(h, l);
  if (x.s == 0) *result = convert<Out>((flags & exact::flag_not_neg_zero) ? 0.0 : -0.0);
  return x.s == 0 || exact::round_pair(x.s, x.e, result);
}

// Exact_axis_kernel: piece p (of results x slices) is slice p % slices of result p / slices,
// elements [slice x (p % slices), + slice) of it. Pieces: ExactRuns or ExactWalk. G = 32: a warp
// per piece. G < 32 (one slice): each group of G lanes takes a result; where its pair cannot be
// rounded at once, or any lane of the warp deposited a remainder into the warp's words, the warp
// takes the group's result again by itself.
template <unsigned Threads, unsigned G, class Terms, class Out, class T, class Pieces>
__global__ void __launch_bounds__(Threads)
    exact_axis_kernel(const T* in, Pieces pieces, std::uint64_t results, std::uint64_t slices, std::uint64_t slice,
                      Out* out, std::int64_t* partials) {
  constexpr exact::TermRange range = Terms::range;
  constexpr int words = range.words();
  constexpr unsigned warps = Threads / warp_threads;
  __shared__ long long acc[warps][words];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  long long* mine = acc[warp];
  const auto* w = reinterpret_cast<const std::int64_t*>(mine);
  const SharedDeposit<Terms> put{unsigned(__cvta_generic_to_shared(mine))};
  const auto clear = [&] {
    for (unsigned i = lane; i < unsigned(words); i += warp_threads) mine[i] = 0;
    __syncwarp();
  };
  const auto deposited = [&] {  // whether the warp's words hold anything
    __syncwarp();
    bool any = false;
    for (unsigned i = lane; i < unsigned(words); i += warp_threads) any |= w[i] != 0;
    return __any_sync(~0u, any);
  };
  const auto element = [&](exact::Expansion<Terms>& e) {
    return [&](T x, std::uint64_t) { e.add(convert<double>(x), put); };
  };
  const auto vector = [&](exact::Expansion<Terms>& e) {
    return [&](const Vector<T>& x, std::uint64_t) { e.add_values(x.v, put); };
  };
  // Piece p by the whole warp.
  const auto warp_piece = [&](std::uint64_t p) {
    clear();
    const std::uint64_t r = p / slices, lo = (p - r * slices) * slice;
    exact::Expansion<Terms> e;
    const RowSpan s = pieces.template visit<warp_threads>(in, r, lo, slices == 1 ? ~std::uint64_t(0) : lo + slice,
                                                          lane, element(e), vector(e));
    const unsigned flags = warp_allreduce(e.final_flags(), BitOr{}) | (s.length == 0 ? exact::flag_not_neg_zero : 0u);
    if (slices == 1) {
      Out result{};
      double h = e.hi, l = e.lo;
      bool done = false;
      if (!deposited() && !(flags & exact::flags_special) && group_pair_sum<warp_threads>(h, l))
        done = __shfl_sync(~0u, lane == 0 && round_clean(h, l, flags, &result), 0);
      if (!done) {
        deposit_warp(e.hi, range.lsb_exp, mine);
        deposit_warp(e.lo, range.lsb_exp, mine);
        __syncwarp();
        result = warp_round_to<Out, words>(w, range.lsb_exp, flags);
      }
      if (lane == 0) out[s.out] = result;
    } else {
      deposit_warp(e.hi, range.lsb_exp, mine);
      deposit_warp(e.lo, range.lsb_exp, mine);
      __syncwarp();
      std::int64_t* to = partials + p * piece_words<Terms>;
      for (unsigned i = lane; i < unsigned(words); i += warp_threads) to[i] = exact::carry_step(w, int(i), words);
      if (lane == 0) to[words] = std::int64_t(flags);
    }
    __syncwarp();  // the words read before the next piece clears them
  };
  if constexpr (G < warp_threads) {
    constexpr unsigned groups = warp_threads / G;
    const unsigned k = lane % G;
    for (std::uint64_t first = (std::uint64_t(blockIdx.x) * warps + warp) * groups; first < results;
         first += std::uint64_t(gridDim.x) * warps * groups) {
      clear();
      const std::uint64_t r = first + lane / G;
      exact::Expansion<Terms> e;
      RowSpan s{};
      if (r < results) s = pieces.template visit<G>(in, r, 0, ~std::uint64_t(0), k, element(e), vector(e));
      unsigned flags = e.final_flags();
#pragma unroll
      for (unsigned o = G / 2; o >= 1; o /= 2) flags |= __shfl_xor_sync(~0u, flags, o);
      flags |= s.length == 0 ? exact::flag_not_neg_zero : 0u;
      double h = e.hi, l = e.lo;
      const bool summed = group_pair_sum<G>(h, l);  // warp-wide calls, in every lane
      const bool clean = !deposited() && summed && !(flags & exact::flags_special);
      Out result{};
      const bool done = group_all<G>(clean && (k != 0 || round_clean(h, l, flags, &result)));
      if (r < results && done && k == 0) out[s.out] = result;
      for (unsigned redo = __ballot_sync(~0u, r < results && !done && k == 0); redo; redo &= redo - 1)
        warp_piece(first + unsigned(__ffs(int(redo)) - 1) / G);
    }
  } else {
    for (std::uint64_t p = std::uint64_t(blockIdx.x) * warps + warp; p < results * slices;
         p += std::uint64_t(gridDim.x) * warps)
      warp_piece(p);
  }
}

// Exact_combine_kernel: a warp per result adds its slices' words (each below 2^33 after its carry
// step) and flags, and rounds once.
template <unsigned Threads, class Terms, class Out, class Pieces>
__global__ void __launch_bounds__(Threads)
    exact_combine_kernel(const std::int64_t* partials, Pieces pieces, std::uint64_t results, std::uint64_t slices,
                         Out* out) {
  constexpr int words = Terms::range.words();
  constexpr unsigned warps = Threads / warp_threads;
  __shared__ std::int64_t sums[warps][words];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const std::uint64_t r = std::uint64_t(blockIdx.x) * warps + warp;
  if (r >= results) return;
  const std::int64_t* from = partials + r * slices * piece_words<Terms>;
  for (unsigned i = lane; i < unsigned(words); i += warp_threads) {
    std::int64_t s = 0;
    for (std::uint64_t k = 0; k < slices; ++k) s += from[k * piece_words<Terms> + i];
    sums[warp][i] = s;
  }
  unsigned flags = 0;
  for (std::uint64_t k = lane; k < slices; k += warp_threads) flags |= unsigned(from[k * piece_words<Terms> + words]);
  flags = warp_allreduce(flags, BitOr{});
  __syncwarp();
  const Out result = warp_round_to<Out, words>(sums[warp], Terms::range.lsb_exp, flags);
  if (lane == 0) out[pieces.out_offset(r)] = result;
}

}  // namespace gpureduce::detail
