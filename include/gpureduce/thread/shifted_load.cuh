// A vector from an address that is not 16-byte aligned: the 16-byte words around it, loaded
// aligned (one more word than the vector spans), shifted into place in registers
// (thread/word_shift.hpp).
//
// Why: an array whose elements never start on a 16-byte boundary cannot be read in aligned
// vectors. These are the second array of a dot product at another offset mod 16 than the first
// (dot(x, x + 1, n - 1)), and records whose address never reaches a boundary (two doubles 8 bytes
// past one, a 4-byte pixel from an odd address). Read element by element, each warp load of 4
// bytes per lane touches the sectors of a 16-byte vector load: one instruction per element (16
// per vector of int8, and 4 per 4-byte pixel of 1-byte alignment).
//
// The word past a vector is the first word of the next vector. Where the warp's lanes load
// consecutive vectors (WarpContiguous), each lane takes it from the next lane by shuffles and only
// the last lane loads it; elsewhere (a last, partial batch) every lane loads it. Loaded by every
// lane each word is read twice through L1 and L2.
#pragma once

#include <gpureduce/thread/vector_load.cuh>
#include <gpureduce/thread/word_shift.hpp>

#include <cstdint>

namespace gpureduce::detail {

// One shifted vector's words as loaded, before the shift: Words words from the 16-byte boundary
// below the vector, and the word after them (FromNextLane: loaded by the warp's last lane only).
template <unsigned Words, bool FromNextLane>
struct ShiftedWords {
  uint4 w[Words];
  uint4 next;
};

// The words of the sizeof(V) bytes (a multiple of 16) at p, where p % 16 == d, 0 < d < 16: the
// 16-byte words from p - d to p + sizeof(V) + 16 - d, each loaded with `load` (a VectorLoad). The
// caller keeps all of them inside the array (VectorSplit::shifted).
template <class V, class Load>
__device__ __forceinline__ ShiftedWords<sizeof(V) / 16, is_warp_contiguous_v<Load>> load_shifted(const void* p,
                                                                                                 unsigned d,
                                                                                                 const Load& load) {
  static_assert(sizeof(V) % 16 == 0);
  constexpr unsigned words = sizeof(V) / 16, lanes = warp_threads;
  // Pointer arithmetic, not integer: the compiler then still knows the address is global memory
  // (ld.global rather than a generic ld, in the kernels whose loads are not asm).
  const auto* q = reinterpret_cast<const uint4*>(static_cast<const unsigned char*>(p) - d);
  ShiftedWords<words, is_warp_contiguous_v<Load>> r;
#pragma unroll
  for (unsigned k = 0; k < words; ++k) r.w[k] = load(q + k);
  if constexpr (is_warp_contiguous_v<Load>) r.next = threadIdx.x % lanes == lanes - 1 ? load(q + words) : uint4{};
  else r.next = load(q + words);
  return r;
}

// The vector those words hold, d (a multiple of Align) bytes past their start. Where the next word
// comes from the next lane, every lane of the warp calls this together.
template <class V, unsigned Align, unsigned Words, bool FromNextLane>
__device__ __forceinline__ V shift_into_place(const ShiftedWords<Words, FromNextLane>& x, unsigned d) {
  uint4 next = x.next;
  if constexpr (FromNextLane) {
    constexpr unsigned all = 0xffffffffu, lanes = warp_threads;
    const uint4 from_next{__shfl_down_sync(all, x.w[0].x, 1), __shfl_down_sync(all, x.w[0].y, 1),
                          __shfl_down_sync(all, x.w[0].z, 1), __shfl_down_sync(all, x.w[0].w, 1)};
    if (threadIdx.x % lanes != lanes - 1) next = from_next;
  }
  std::uint32_t w[4 * Words + 4], r[4 * Words];
  __builtin_memcpy(w, x.w, sizeof x.w);
  __builtin_memcpy(w + 4 * Words, &next, sizeof next);
  shift_words<Words, Align>(w, d, r);
  V out;
  __builtin_memcpy(&out, r, sizeof out);
  return out;
}

}  // namespace gpureduce::detail
