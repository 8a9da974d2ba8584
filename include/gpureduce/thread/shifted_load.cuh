// A vector from an address that is not 16-byte aligned: the 16-byte words around it, loaded
// aligned (one more word than the vector spans), shifted into place in registers
// (thread/word_shift.hpp).
//
// Why: an array whose elements never start on a 16-byte boundary cannot be read in aligned
// vectors. These are the second array of a dot product at another offset mod 16 than the first
// (dot(x, x + 1, n - 1)), and records whose address never reaches a boundary (two doubles 8 bytes
// past one). Read element by element, each warp load of 4 bytes per lane touches the sectors of a
// 16-byte vector load: one instruction per element (16 per vector of int8) instead of two per
// vector here. Each word is loaded twice, by the two lanes whose vectors share it (the second an L1
// or L2 hit); DRAM reads it once.
#pragma once

#include <gpureduce/thread/word_shift.hpp>

#include <cstdint>

namespace gpureduce {

// The sizeof(V) bytes (a multiple of 16) at p, where p % 16 == d, 0 < d < 16, d a multiple of Align:
// the 16-byte words from p - d to p + sizeof(V) + 16 - d, each loaded with `load` (a VectorLoad).
// The caller keeps all of them inside the array (VectorSplit::shifted).
template <class V, unsigned Align, class Load>
__device__ __forceinline__ V load_shifted(const void* p, unsigned d, const Load& load) {
  static_assert(sizeof(V) % 16 == 0);
  constexpr unsigned words = sizeof(V) / 16;
  // Pointer arithmetic, not integer: the compiler then still knows the address is global memory
  // (ld.global rather than a generic ld, in the kernels whose loads are not asm).
  const auto* q = reinterpret_cast<const uint4*>(static_cast<const unsigned char*>(p) - d);
  std::uint32_t w[4 * words + 4], r[4 * words];
#pragma unroll
  for (unsigned k = 0; k <= words; ++k) {
    const uint4 x = load(q + k);
    w[4 * k] = x.x;
    w[4 * k + 1] = x.y;
    w[4 * k + 2] = x.z;
    w[4 * k + 3] = x.w;
  }
  shift_words<words, Align>(w, d, r);
  V out;
  __builtin_memcpy(&out, r, sizeof out);
  return out;
}

}  // namespace gpureduce
