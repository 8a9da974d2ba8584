// What the kernels read: one array with an optional element-wise transform (reduce,
// transform_reduce) or the element-wise product of two arrays (dot). A source loads one element by
// index, or one 16-byte vector of the aligned body through a vector load (thread/vector_load.cuh),
// and later hands each value with its index to a sink (load and use apart, so that several loads
// are in flight before any value is used). Arrays of records (structs) are read in vectors of whole
// records where their address reaches a 16-byte boundary; otherwise in vectors shifted into place
// from aligned words (ShiftedSource) or one per load (RecordSource), as shifts_records_v says;
// records whose vector would span more than 64 bytes (80 for narrow ones) one per load, but for
// narrow ones of 112-688 bytes, in vectors from a size (reads_wide_vectors_v). Vectors of 80 bytes
// and more are staged through shared memory in the grid kernels' whole batches.
#pragma once

#include <gpureduce/grid/vector_split.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/shifted_load.cuh>
#include <gpureduce/thread/vector_load.cuh>
#include <gpureduce/warp/warp_stage.hpp>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace gpureduce::detail {

// One vector: 16 bytes of elements, or for records of other sizes whole records spanning whole
// 16-byte words (grid/vector_split.hpp).
template <class T>
struct alignas(vector_bytes) Vector {
  static constexpr unsigned size = vector_span_bytes(sizeof(T)) / sizeof(T);
  T v[size];
};

struct Identity {
  template <class T>
  GPUREDUCE_HD constexpr T operator()(T x) const {
    return x;
  }
};

template <class T, class Transform = Identity>
struct ArraySource {
  using element_type = T;
  static constexpr unsigned arrays = 1;  // arrays read, each of n elements
  static constexpr unsigned per_vector = Vector<T>::size;  // elements handed to the vector sink at once
  static constexpr unsigned split_bytes = sizeof(T);       // the element size the split counts in
  static constexpr bool shifted = false;                   // vectors loaded shifted (thread/shifted_load.cuh)
  const T* data;
  Transform transform;

  GPUREDUCE_HD std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(data); }
  GPUREDUCE_HD VectorSplit split(std::uint64_t n) const { return VectorSplit::make(address(), n, sizeof(T)); }
  __device__ __forceinline__ T load(std::uint64_t i) const { return data[i]; }
  // Hands the loaded element i, transformed, to sink(value, i).
  template <class Sink>
  __device__ __forceinline__ void consume(T x, std::uint64_t i, Sink&& sink) const {
    sink(transform(x), std::int64_t(i));
  }
  // Vectors of many 16-byte words (records: 80 bytes and more) are staged in the grid kernels'
  // whole batches: the warp's 32 vectors are loaded as its lanes' consecutive words, each warp load
  // 512 contiguous bytes, and consume_vector hands them round through shared memory. Loaded by their
  // own lanes, each warp load touched every sector of the span, 16 bytes of each (H100, record_probe:
  // 5 int8 fields at 2^24 0.85x of the time staged). Vectors of 48 bytes gain nothing and are not.
  static constexpr unsigned vector_words = sizeof(Vector<T>) / vector_bytes;
  // The parts a warp's stage takes its vectors in (warp/warp_stage.hpp), so that a block's stage
  // fits in 44 KB and the block, with its warp partials (512 bytes at most), in 48 KB: one for vectors
  // of up to 176 bytes in blocks of 8 warps, two above (13 and 15 int16 fields); one in smaller blocks
  // for the others of 208 bytes and more (tuning_sm90.hpp, tuning_sm90_for). 176 bytes in
  // two parts spilled (242-246 registers against 80).
  static constexpr unsigned stage_bytes_max = 44 * 1024;
  template <unsigned Warps>
  static constexpr unsigned stage_parts =
      Warps * vector_words * sizeof(uint4) * warp_threads <= stage_bytes_max ? 1 : 2;
  // The most threads per block, a power of 2 up to 256, whose warps' vectors the stage holds in one
  // part: 256 up to 11 words, 128 up to 22, 64 above (up to 44; wide vectors have at most 43).
  static constexpr unsigned one_part_threads = stage_parts<8> == 1 ? 256 : stage_parts<4> == 1 ? 128 : 64;
  template <class Load>
  static constexpr bool stages_v =
      vector_words >= 5 && staging_warps_v<Load> != 0 &&
      staging_warps_v<Load> * vector_words * sizeof(uint4) * warp_threads / stage_parts<staging_warps_v<Load>> <=
          stage_bytes_max;
  template <unsigned Warps>  // of the block, each with its own stage
  struct Staged {
    uint4 w[vector_words];
  };
  // The vector starting at element `first` (16-byte aligned).
  template <class Load>
  __device__ __forceinline__ auto load_vector(std::uint64_t first, const Load& load) const {
    if constexpr (stages_v<Load>) {
      const unsigned lane = threadIdx.x % warp_threads;
      const auto* warp_first = reinterpret_cast<const uint4*>(data + first) - lane * vector_words;
      Staged<staging_warps_v<Load>> r;
#pragma unroll
      for (unsigned k = 0; k < vector_words; ++k) r.w[k] = load(warp_first + k * warp_threads + lane);
      return r;
    } else {
      return load(reinterpret_cast<const Vector<T>*>(data + first));
    }
  }
  // The calling warp's stage: one per block size, not per sink, so that a kernel whose sinks differ
  // (argmin/argmax: one per NaN policy, agent/thread_partial.cuh) does not hold two.
  template <unsigned Warps>
  __device__ __forceinline__ static uint4* warp_stage() {
    __shared__ uint4 stage[Warps][WarpStage{vector_words, stage_parts<Warps>}.part_words()];
    return stage[threadIdx.x / warp_threads];
  }
  // Every lane of the warp together: its words in, its vector's out (warp/warp_stage.hpp; 5-15
  // words apart per lane, an odd number, so no two lanes of a quarter-warp read the same bank).
  template <unsigned Warps, class Sink>
  __device__ __forceinline__ void consume_vector(const Staged<Warps>& x, std::uint64_t first, Sink&& sink) const {
    constexpr WarpStage layout{vector_words, stage_parts<Warps>};
    const unsigned lane = threadIdx.x % warp_threads;
    uint4* s = warp_stage<Warps>();
    uint4 w[vector_words];
#pragma unroll
    for (unsigned p = 0; p < layout.parts; ++p) {
#pragma unroll
      for (unsigned k = layout.first_round(p); k < layout.end_round(p); ++k) {
        const unsigned i = layout.slot(k, lane, p);
        if (layout.whole_round(k, p) || i < layout.part_words()) s[i] = x.w[k];
      }
      __syncwarp();
      if (layout.parts == 1 || layout.part_of(lane) == p) {
#pragma unroll
        for (unsigned j = 0; j < vector_words; ++j) w[j] = s[layout.own_slot(lane, j)];
      }
      __syncwarp();  // before the next part's or vector's words go in
    }
    Vector<T> v;
    __builtin_memcpy(&v, w, sizeof v);
    consume_vector(v, first, sink);
  }
  // Hands the vector's transformed values, indices first.., to sink(values, first).
  template <class Sink>
  __device__ __forceinline__ void consume_vector(const Vector<T>& x, std::uint64_t first, Sink&& sink) const {
    using U = decltype(transform(x.v[0]));
    U y[Vector<T>::size];
#pragma unroll
    for (unsigned k = 0; k < Vector<T>::size; ++k) y[k] = transform(x.v[k]);
    sink(y, std::int64_t(first));
  }
};

// Whether a source hands the kernels its elements as loaded: numbers (complex ones included) with
// no transform, each costing one operator. A transform or a record's fields cost more per element
// (dispatch/tuning_sm90.hpp, tuning_sm90_for).
template <class Source>
inline constexpr bool plain_values_v = false;
template <class T>
inline constexpr bool plain_values_v<ArraySource<T, Identity>> = is_element_v<T> || is_complex_v<T>;

// Records are read as numbers are, in vectors with a scalar head and tail, where a vector spans at
// most 64 bytes (sizes 1-4, 6, 8, 12, 16, 24, 32, 48, 64), or 80 for records of 1- and 2-byte
// alignment (5, 10, 20, ...), and the array's address reaches a 16-byte boundary within the first
// vector's records: an address that is a multiple of gcd(size, 16). Every address a T may have is,
// where its alignment is at least that (reads_as_vectors_v: cuda::std::complex<float>, float2,
// int4 in 16-byte vectors; float3, 3-byte pixels, three doubles in 48). A struct of two floats (8
// bytes, 4-byte aligned) or of two doubles (16, 8) is read in aligned vectors from an address
// that is (a cudaMalloc'd array of them), one record per load otherwise (RecordSource); a 4-byte
// pixel of 1-byte alignment from an odd address, in shifted vectors (ShiftedSource, below). Other
// sizes are read one record per load.
//
// 80 bytes only for narrow records: one record per load takes a load per field there, and a thread
// keeps 4 records of 5 or 10 bytes in flight, not 64 bytes (H100, record_probe: 5 int8 fields in
// vectors at 2^28 0.76x of one per load's time). Vectors of 112 bytes loaded by their own lanes lost
// (1.39x at 2^24), and records of 4-byte alignment in vectors of 80 bytes 1.03-1.06x, so those keep
// one record per load; staged, 112-240 bytes win from a size (below).
template <class T>
inline constexpr bool vector_fits_v =
    vector_span_bytes(sizeof(T)) <= 64 || (vector_span_bytes(sizeof(T)) == 80 && alignof(T) < 4);
template <class T>
inline constexpr bool reads_as_vectors_v =
    vector_fits_v<T> && vector_span_bytes(sizeof(T)) * alignof(T) >= vector_bytes * sizeof(T);

// Narrow records whose vectors span 112-688 bytes from every address they may have (7-43 int8
// fields, 7-43 int16, odd counts) are read in staged vectors (ArraySource::load_vector) from
// wide_vectors_min<T> vectors up, one per load below, where a thread's 8-16 records of one vector
// left too few threads to spread their fields' work over (H100, record_probe, staged over one per
// load: 9 int8 fields 2^16 1.29x, 2^21 0.95x, 2^28 0.79x; 43 int8 fields at 2^27 0.41x). 16 records
// of 13 and 15 int8 fields to a vector spilled in two parts and take smaller blocks in one.
template <class T>
inline constexpr bool reads_wide_vectors_v =
    !vector_fits_v<T> && alignof(T) < 4 && vector_span_bytes(sizeof(T)) <= 704 &&
    vector_span_bytes(sizeof(T)) * alignof(T) >= vector_bytes * sizeof(T);
template <class T>
inline constexpr std::uint64_t wide_vectors_min = [] {
  constexpr unsigned span = vector_span_bytes(sizeof(T));
  const unsigned log2 = span <= 176 ? 17 : span > 496 ? (alignof(T) == 1 ? 16 : 17) : 18;
  return std::uint64_t(1) << log2;
}();
template <class T>
GPUREDUCE_HD bool reaches_vectors(const T* p) {
  constexpr std::uintptr_t gcd = vector_bytes * sizeof(T) / vector_span_bytes(sizeof(T));  // gcd(size, 16)
  return vector_fits_v<T> && reinterpret_cast<std::uintptr_t>(p) % gcd == 0;
}
// The alignment load_shifted may assume of the offset of T's elements from a 16-byte boundary.
template <class T>
inline constexpr unsigned shift_align_v = alignof(T) < 8 ? unsigned(alignof(T)) : 8u;

// Records of a vector_fits_v type whose address does not reach a 16-byte boundary are read in
// shifted vectors where a record loaded whole takes narrow loads (alignment below 4 bytes: a
// 4-byte pixel of 1-byte alignment is four byte loads) or its vector spans several words; the
// others (a pair of floats 4 bytes past an 8-byte boundary, a pair of doubles 8 bytes past a
// 16-byte one) one record per load (H100: 4-byte pixels from an odd address, 256 MB
// 138.98 -> 104.22 us, CUB 128.35; but pairs of floats of 1 MB 5.46 -> 6.77).
template <class T>
inline constexpr bool shifts_records_v = alignof(T) < 4 || vector_span_bytes(sizeof(T)) > vector_bytes;

// Such records: every vector (vector_span_bytes, a multiple of 16) starts the same
// d = address % 16 bytes past a boundary, and is loaded as the aligned words around it, shifted
// into place (thread/shifted_load.cuh). The split has no head of its own; VectorSplit::shifted
// moves the first and last vectors to scalars.
template <class T, class Transform = Identity>
struct ShiftedSource : ArraySource<T, Transform> {
  static constexpr bool shifted = true;
  GPUREDUCE_HD unsigned offset() const { return unsigned(this->address() % vector_bytes); }
  GPUREDUCE_HD VectorSplit split(std::uint64_t n) const {
    constexpr unsigned per_vec = Vector<T>::size;
    return VectorSplit{0, n / per_vec, n % per_vec}.shifted(offset(), sizeof(T), per_vec);
  }
  // The words as loaded; consume_vector shifts them (after the batch's loads are all issued).
  template <class Load>
  __device__ __forceinline__ auto load_vector(std::uint64_t first, const Load& load) const {
    return load_shifted<Vector<T>>(this->data + first, offset(), load);
  }
  template <class Words, class Sink>
  __device__ __forceinline__ void consume_vector(const Words& x, std::uint64_t first, Sink&& sink) const {
    ArraySource<T, Transform>::consume_vector(shift_into_place<Vector<T>, shift_align_v<T>>(x, offset()), first, sink);
  }
};

// An array of records read one per load (the largest, and the misaligned ones that
// shifts_records_v leaves), with an optional transform: each record is loaded whole (as the
// compiler splits a load of its size and alignment) as one "vector" of one element, so the split
// has no scalar head or tail and the launch plan counts one vector per record (split_bytes).
// Loaded evict-first in the grid kernel that loads its vectors so (thread/vector_load.cuh,
// load_record): plainly, they took up to 15% longer after the bench's flush (H100: two doubles 8
// bytes past a boundary, 64 MB 35.21 -> 30.52 us, CUB 36.82).
template <class T, class Transform = Identity>
struct RecordSource {
  using element_type = T;
  static constexpr unsigned arrays = 1;
  static constexpr unsigned per_vector = 1;
  static constexpr unsigned split_bytes = vector_bytes;
  static constexpr bool shifted = false;
  const T* data;
  Transform transform;

  struct One {
    T v[1];
  };

  GPUREDUCE_HD std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(data); }
  GPUREDUCE_HD VectorSplit split(std::uint64_t n) const { return {0, n, 0}; }
  __device__ __forceinline__ T load(std::uint64_t i) const { return data[i]; }
  template <class Sink>
  __device__ __forceinline__ void consume(T x, std::uint64_t i, Sink&& sink) const {
    sink(transform(x), std::int64_t(i));
  }
  template <class Load>
  __device__ __forceinline__ One load_vector(std::uint64_t first, const Load& load) const {
    return {{load_record(load, data + first)}};
  }
  template <class Sink>
  __device__ __forceinline__ void consume_vector(const One& x, std::uint64_t first, Sink&& sink) const {
    using U = decltype(transform(x.v[0]));
    const U y[1] = {transform(x.v[0])};
    sink(y, std::int64_t(first));
  }
};

// Whether a source reads its records one per load (the launch plan's tuning differs).
template <class Source>
inline constexpr bool reads_one_per_load_v = false;
template <class T, class Transform>
inline constexpr bool reads_one_per_load_v<RecordSource<T, Transform>> = true;

// Calls f with the source of n elements from `in`: ArraySource for numbers and records read in
// aligned vectors; for records whose address does not reach a 16-byte boundary ShiftedSource or
// RecordSource (two kernels where alignment alone does not decide); for records read in wide
// vectors ArraySource or RecordSource by n; RecordSource for the largest.
template <class T, class Transform, class F>
decltype(auto) with_array_source(const T* in, std::uint64_t n, Transform transform, F&& f) {
  if constexpr (is_element_v<T> || reads_as_vectors_v<T>) {
    return f(ArraySource<T, Transform>{in, transform});
  } else if constexpr (vector_fits_v<T>) {
    if (reaches_vectors(in)) return f(ArraySource<T, Transform>{in, transform});
    if constexpr (shifts_records_v<T>) return f(ShiftedSource<T, Transform>{{in, transform}});
    else return f(RecordSource<T, Transform>{in, transform});
  } else if constexpr (reads_wide_vectors_v<T>) {
    if (n / Vector<T>::size >= wide_vectors_min<T>) return f(ArraySource<T, Transform>{in, transform});
    return f(RecordSource<T, Transform>{in, transform});
  } else {
    return f(RecordSource<T, Transform>{in, transform});
  }
}

// An array of 8- or 16-bit integers whose vectors reach the sink as the loaded 32-bit words, for
// packed_sum (thread/packed_sum.hpp). Loaded as elements, a vector is split into its elements,
// which packed_sum would have to reassemble (int8 sum: 1230 lines of PTX against 375).
template <class T>
struct PackedWordSource : ArraySource<T> {
  template <class Load>
  __device__ __forceinline__ Vector<T> load_vector(std::uint64_t first, const Load& load) const {
    const uint4 w = load(reinterpret_cast<const uint4*>(this->data + first));
    Vector<T> r;
    __builtin_memcpy(&r, &w, sizeof r);
    return r;
  }
  template <class Sink>
  __device__ __forceinline__ void consume_vector(const Vector<T>& x, std::uint64_t first, Sink&& sink) const {
    sink(x.v, std::int64_t(first));
  }
};

// a[i] * b[i] in the accumulator type A. The split follows a. Where b lies at a's offset from a
// 16-byte boundary it is loaded in aligned vectors too; elsewhere element by element, or, for
// elements of 1 and 2 bytes (ShiftedB, a kernel of their own: with_product_source picks it), in
// vectors shifted into place (thread/shifted_load.cuh). Wider elements keep the element loads,
// as wide as the words a shifted vector is made of (H100, b one element past a's
// offset: int8 2^16 6.27 -> 5.31 us shifted; int32 2^16 5.41 -> 6.56).
template <class T, class A, bool ShiftedB = false>
struct ProductSource {
  using element_type = T;
  static constexpr unsigned arrays = 2;
  static constexpr unsigned per_vector = Vector<T>::size;
  static constexpr unsigned split_bytes = sizeof(T);
  static constexpr bool shifted = ShiftedB;
  const T* a;
  const T* b;

  GPUREDUCE_HD std::uintptr_t address() const { return reinterpret_cast<std::uintptr_t>(a); }
  // How far b's vectors lie past a 16-byte boundary: (b - a) mod 16 bytes.
  GPUREDUCE_HD unsigned b_offset() const {
    return unsigned((reinterpret_cast<std::uintptr_t>(b) - reinterpret_cast<std::uintptr_t>(a)) % vector_bytes);
  }
  GPUREDUCE_HD VectorSplit split(std::uint64_t n) const {
    const VectorSplit s = VectorSplit::make(address(), n, sizeof(T));
    if constexpr (ShiftedB) return s.shifted(b_offset(), sizeof(T), per_vector);
    else return s;
  }
  GPUREDUCE_HD bool b_aligned_with_a() const {
    return reinterpret_cast<std::uintptr_t>(a) % vector_bytes == reinterpret_cast<std::uintptr_t>(b) % vector_bytes;
  }
  struct Scalars {
    T a, b;
  };
  __device__ __forceinline__ Scalars load(std::uint64_t i) const { return {a[i], b[i]}; }
  template <class Sink>
  __device__ __forceinline__ void consume(Scalars x, std::uint64_t i, Sink&& sink) const {
    sink(detail::wrap_mul(convert<A>(x.a), convert<A>(x.b)), std::int64_t(i));
  }
  struct Pair {
    Vector<T> a, b;
  };
  // ShiftedB: a's vector and b's words as loaded, which consume_vector shifts into place.
  template <class Words>
  struct ShiftedPair {
    Vector<T> a;
    Words b;
  };
  template <class Load>
  __device__ __forceinline__ auto load_vector(std::uint64_t first, const Load& load) const {
    if constexpr (ShiftedB) {
      const auto* pa = reinterpret_cast<const Vector<T>*>(a + first);
      using Words = decltype(load_shifted<Vector<T>>(b + first, b_offset(), load));
      return ShiftedPair<Words>{load(pa), load_shifted<Vector<T>>(b + first, b_offset(), load)};
    } else {
      Pair p;
      p.a = load(reinterpret_cast<const Vector<T>*>(a + first));
      if (b_aligned_with_a()) {
        p.b = load(reinterpret_cast<const Vector<T>*>(b + first));
      } else {
#pragma unroll
        for (unsigned k = 0; k < Vector<T>::size; ++k) p.b.v[k] = b[first + k];
      }
      return p;
    }
  }
  template <class Sink>
  __device__ __forceinline__ void consume_vector(const Pair& x, std::uint64_t first, Sink&& sink) const {
    A y[Vector<T>::size];
#pragma unroll
    for (unsigned k = 0; k < Vector<T>::size; ++k) y[k] = detail::wrap_mul(convert<A>(x.a.v[k]), convert<A>(x.b.v[k]));
    sink(y, std::int64_t(first));
  }
  template <class Words, class Sink>
  __device__ __forceinline__ void consume_vector(const ShiftedPair<Words>& x, std::uint64_t first, Sink&& sink) const {
    consume_vector(Pair{x.a, shift_into_place<Vector<T>, shift_align_v<T>>(x.b, b_offset())}, first, sink);
  }
};

// Calls f with the ProductSource of a and b: ShiftedB for elements of 1 and 2 bytes where b lies at
// another offset from a 16-byte boundary than a and `shift_b` (dispatch's choice by size,
// tuning_sm90.hpp, shifted_dot_b); two kernels for those types, one for the others.
template <class T, class A, class F>
decltype(auto) with_product_source(const T* a, const T* b, bool shift_b, F&& f) {
  if constexpr (sizeof(T) < 4)
    if (shift_b && ProductSource<T, A>{a, b}.b_offset() != 0) return f(ProductSource<T, A, true>{a, b});
  return f(ProductSource<T, A>{a, b});
}

// A ProductSource of 8-bit integers whose vector pairs reach the sink as loaded (32-bit words
// then, for packed_dot: thread/packed_sum.hpp), as PackedWordSource does for sums.
template <class T, class A, bool ShiftedB>
struct PackedProductSource : ProductSource<T, A, ShiftedB> {
  using Base = ProductSource<T, A, ShiftedB>;
  using Pair = typename Base::Pair;
  // The loaded words, which reach dp4a as they are. A Pair of bytes held as words by a tested
  // batch (agent/thread_partial.cuh, HeldWords) was taken apart byte by byte in PTX (H200: the grid
  // kernel 1.06-1.09x of the time at 2^16-2^20).
  struct WordPair {
    uint4 a, b;
  };
  template <class Words>
  struct ShiftedWordPair {
    uint4 a;
    Words b;
  };
  template <class Load>
  __device__ __forceinline__ auto load_vector(std::uint64_t first, const Load& load) const {
    const uint4 wa = load(reinterpret_cast<const uint4*>(this->a + first));
    if constexpr (ShiftedB) {
      using Words = decltype(load_shifted<uint4>(this->b + first, this->b_offset(), load));
      return ShiftedWordPair<Words>{wa, load_shifted<uint4>(this->b + first, this->b_offset(), load)};
    } else {
      WordPair p{wa, {}};
      if (this->b_aligned_with_a()) {
        p.b = load(reinterpret_cast<const uint4*>(this->b + first));
      } else {
        Vector<T> vb;
#pragma unroll
        for (unsigned k = 0; k < Vector<T>::size; ++k) vb.v[k] = this->b[first + k];
        __builtin_memcpy(&p.b, &vb, sizeof vb);
      }
      return p;
    }
  }
  template <class Sink>
  __device__ __forceinline__ void consume_vector(const WordPair& x, std::uint64_t first, Sink&& sink) const {
    Pair p;
    __builtin_memcpy(&p.a, &x.a, sizeof x.a);
    __builtin_memcpy(&p.b, &x.b, sizeof x.b);
    sink(p, std::int64_t(first));
  }
  template <class Words, class Sink>
  __device__ __forceinline__ void consume_vector(const ShiftedWordPair<Words>& x, std::uint64_t first,
                                                 Sink&& sink) const {
    Pair p;
    const uint4 wb = shift_into_place<uint4, shift_align_v<T>>(x.b, this->b_offset());
    __builtin_memcpy(&p.a, &x.a, sizeof x.a);
    __builtin_memcpy(&p.b, &wb, sizeof wb);
    sink(p, std::int64_t(first));
  }
};

// The type a source hands its sinks. Query it in device code only: in host code the return type of
// a caller's extended __device__ lambda is not reliable.
template <class Source>
struct source_value;
template <class T, class Transform>
struct source_value<ArraySource<T, Transform>> {
  using type = std::remove_cvref_t<decltype(std::declval<const Transform&>()(std::declval<T>()))>;
};
template <class T, class Transform>
struct source_value<ShiftedSource<T, Transform>> : source_value<ArraySource<T, Transform>> {};
template <class T, class Transform>
struct source_value<RecordSource<T, Transform>> : source_value<ArraySource<T, Transform>> {};
template <class T, class A, bool ShiftedB>
struct source_value<ProductSource<T, A, ShiftedB>> {
  using type = A;
};

}  // namespace gpureduce::detail
