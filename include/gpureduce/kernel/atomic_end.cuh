// The device side of the atomic end (grid/atomic_end.hpp): the ticket, the published generation
// and the atomics on the result.
#pragma once

#include <gpureduce/grid/atomic_end.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// Draws the block's ticket. Its value is needed only at the end: issued first, the atomic's round
// trip overlaps the block's loads.
__device__ __forceinline__ GenerationTicket draw_generation_ticket(unsigned long long* word) {
  return {atomicAdd(word, 1ull)};
}

// The launch's last ticket starts the next generation (relaxed: the next launch draws only after
// this one has ended). Called after the loads, so that they do not wait for the ticket.
__device__ __forceinline__ void close_generation(unsigned long long* word, GenerationTicket t) {
  if (t.last(gridDim.x)) asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(word), "l"(t.next_word()) : "memory");
}

// After the result holds the identity: publishes the ticket's generation (release).
__device__ __forceinline__ void publish_generation(unsigned long long* published, GenerationTicket t) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(published), "l"(t.published()) : "memory");
}

// Waits until the ticket's generation is published (acquire), so the atomic after it follows the
// identity's store.
__device__ __forceinline__ void wait_for_generation(const unsigned long long* published, GenerationTicket t) {
  unsigned long long g;
  do asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(g) : "l"(published) : "memory");
  while (g != t.published());
}

// The step on the result's bits (no value returned: ptxas emits RED).
template <class U>
__device__ __forceinline__ void atomic_end_apply(void* result, AtomicStep<U> s) {
  using S = std::conditional_t<sizeof(U) == 4, int, long long>;
  using W = std::conditional_t<sizeof(U) == 4, unsigned, unsigned long long>;
  auto* w = static_cast<W*>(result);
  auto* sw = static_cast<S*>(result);
  switch (s.kind) {
    case AtomicKind::none: break;
    case AtomicKind::add: atomicAdd(w, W(s.bits)); break;
    case AtomicKind::bit_and: atomicAnd(w, W(s.bits)); break;
    case AtomicKind::bit_or: atomicOr(w, W(s.bits)); break;
    case AtomicKind::bit_xor: atomicXor(w, W(s.bits)); break;
    case AtomicKind::signed_min: atomicMin(sw, S(s.bits)); break;
    case AtomicKind::signed_max: atomicMax(sw, S(s.bits)); break;
    case AtomicKind::unsigned_min: atomicMin(w, W(s.bits)); break;
    case AtomicKind::unsigned_max: atomicMax(w, W(s.bits)); break;
  }
}

}  // namespace gpureduce::detail
