// What the kernels read: one array with an optional element-wise transform (reduce,
// transform_reduce) or the element-wise product of two arrays (dot). A source loads one element by
// index, or one 16-byte vector of the aligned body through a vector load (thread/vector_load.cuh),
// and later hands each value with its index to a sink (load and use apart, so that several loads
// are in flight before any value is used). Arrays of records (structs) are read in vectors of
// whole records: aligned where their address reaches a 16-byte boundary, shifted into place from
// aligned words otherwise (ShiftedSource); records whose vector would span more than 64 bytes one
// per load (RecordSource).
#pragma once

#include <gpureduce/grid/vector_split.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/shifted_load.cuh>
#include <gpureduce/thread/vector_load.cuh>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace gpureduce {

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
  // The vector starting at element `first` (16-byte aligned).
  template <class Load>
  __device__ __forceinline__ Vector<T> load_vector(std::uint64_t first, const Load& load) const {
    return load(reinterpret_cast<const Vector<T>*>(data + first));
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

// Records are read as numbers are, in vectors with a scalar head and tail, where a vector spans at
// most 64 bytes (sizes 1-4, 6, 8, 12, 16, 24, 32, 48, 64) and the array's address reaches a 16-byte
// boundary within the first vector's records: an address that is a multiple of gcd(size, 16).
// Every address a T may have is, where its alignment is at least that (reads_as_vectors_v:
// cuda::std::complex<float>, float2, int4 in 16-byte vectors; float3, 3-byte pixels, three doubles
// in 48). A struct of two floats (8 bytes, 4-byte aligned) or of two doubles (16, 8) is read in
// aligned vectors from an address that is (a cudaMalloc'd array of them), in shifted ones otherwise
// (ShiftedSource). Sizes whose vector would span 80 bytes or more are read one record per load
// (RecordSource).
template <class T>
inline constexpr bool vector_fits_v = vector_span_bytes(sizeof(T)) <= 64;
template <class T>
inline constexpr bool reads_as_vectors_v =
    vector_fits_v<T> && vector_span_bytes(sizeof(T)) * alignof(T) >= vector_bytes * sizeof(T);
template <class T>
GPUREDUCE_HD bool reaches_vectors(const T* p) {
  constexpr std::uintptr_t gcd = vector_bytes * sizeof(T) / vector_span_bytes(sizeof(T));  // gcd(size, 16)
  return vector_fits_v<T> && reinterpret_cast<std::uintptr_t>(p) % gcd == 0;
}
// The alignment load_shifted may assume of the offset of T's elements from a 16-byte boundary.
template <class T>
inline constexpr unsigned shift_align_v = alignof(T) < 8 ? unsigned(alignof(T)) : 8u;

// Records of a vector_fits_v type whose address does not reach a 16-byte boundary: every vector
// (vector_span_bytes, a multiple of 16) starts the same d = address % 16 bytes past one, and is
// loaded as the aligned words around it, shifted into place (thread/shifted_load.cuh). The split
// has no head of its own; VectorSplit::shifted moves the first and last vectors to scalars.
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

// An array of records whose vector would span more than 64 bytes, with an optional transform: each record is loaded
// whole (as the compiler splits a load of its size and alignment) as one "vector" of one element,
// so the split has no scalar head or tail and the launch plan counts one vector per record
// (split_bytes). Loads have the default L2 priority, whatever the grid kernel's variant.
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
  __device__ __forceinline__ One load_vector(std::uint64_t first, const Load&) const {
    return {{data[first]}};
  }
  template <class Sink>
  __device__ __forceinline__ void consume_vector(const One& x, std::uint64_t first, Sink&& sink) const {
    using U = decltype(transform(x.v[0]));
    const U y[1] = {transform(x.v[0])};
    sink(y, std::int64_t(first));
  }
};

// Calls f with the source of one array: ArraySource for numbers and records read in aligned
// vectors from `in`, ShiftedSource for records whose address does not reach a 16-byte boundary
// (two kernels where alignment alone does not decide), RecordSource for the largest records.
template <class T, class Transform, class F>
decltype(auto) with_array_source(const T* in, Transform transform, F&& f) {
  if constexpr (is_element_v<T> || reads_as_vectors_v<T>) {
    return f(ArraySource<T, Transform>{in, transform});
  } else if constexpr (vector_fits_v<T>) {
    if (reaches_vectors(in)) return f(ArraySource<T, Transform>{in, transform});
    return f(ShiftedSource<T, Transform>{{in, transform}});
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

// a[i] * b[i] in the accumulator type A. The split follows a. Where b lies at another offset from a
// 16-byte boundary (dot(x, x + 1, n - 1)), b's vectors are loaded shifted (ShiftedB, a kernel of
// its own: thread/shifted_load.cuh; with_product_source picks it).
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
  // b's vector at `first` as loaded (ShiftedB: its words, shifted by vector_b).
  template <class V, class Load>
  __device__ __forceinline__ auto load_b(std::uint64_t first, const Load& load) const {
    if constexpr (ShiftedB) return load_shifted<V>(b + first, b_offset(), load);
    else return load(reinterpret_cast<const V*>(b + first));
  }
  template <class V, class B>
  __device__ __forceinline__ V vector_b(const B& x) const {
    if constexpr (ShiftedB) return shift_into_place<V, shift_align_v<T>>(x, b_offset());
    else return x;
  }
  struct Scalars {
    T a, b;
  };
  __device__ __forceinline__ Scalars load(std::uint64_t i) const { return {a[i], b[i]}; }
  template <class Sink>
  __device__ __forceinline__ void consume(Scalars x, std::uint64_t i, Sink&& sink) const {
    sink(detail::wrap_mul(convert<A>(x.a), convert<A>(x.b)), std::int64_t(i));
  }
  template <class B>
  struct PairOf {
    Vector<T> a;
    B b;
  };
  using Pair = PairOf<Vector<T>>;
  template <class Load>
  __device__ __forceinline__ auto load_vector(std::uint64_t first, const Load& load) const {
    using B = decltype(load_b<Vector<T>>(first, load));
    return PairOf<B>{load(reinterpret_cast<const Vector<T>*>(a + first)), load_b<Vector<T>>(first, load)};
  }
  template <class B, class Sink>
  __device__ __forceinline__ void consume_vector(const PairOf<B>& x, std::uint64_t first, Sink&& sink) const {
    const Vector<T> vb = vector_b<Vector<T>>(x.b);
    A y[Vector<T>::size];
#pragma unroll
    for (unsigned k = 0; k < Vector<T>::size; ++k) y[k] = detail::wrap_mul(convert<A>(x.a.v[k]), convert<A>(vb.v[k]));
    sink(y, std::int64_t(first));
  }
};

// Calls f with the ProductSource of a and b: b loaded shifted where it lies at another offset from
// a 16-byte boundary than a (two kernels; types aligned to 16 bytes are never off one).
template <class T, class A, class F>
decltype(auto) with_product_source(const T* a, const T* b, F&& f) {
  if constexpr (alignof(T) < vector_bytes)
    if (ProductSource<T, A>{a, b}.b_offset() != 0) return f(ProductSource<T, A, true>{a, b});
  return f(ProductSource<T, A>{a, b});
}

// A ProductSource of 8-bit integers whose vector pairs reach the sink as loaded (32-bit words
// then, for packed_dot: thread/packed_sum.hpp), as PackedWordSource does for sums.
template <class T, class A, bool ShiftedB>
struct PackedProductSource : ProductSource<T, A, ShiftedB> {
  using Base = ProductSource<T, A, ShiftedB>;
  template <class B>
  struct Words {
    uint4 a;
    B b;
  };
  template <class Load>
  __device__ __forceinline__ auto load_vector(std::uint64_t first, const Load& load) const {
    using B = decltype(this->template load_b<uint4>(first, load));
    return Words<B>{load(reinterpret_cast<const uint4*>(this->a + first)), this->template load_b<uint4>(first, load)};
  }
  template <class B, class Sink>
  __device__ __forceinline__ void consume_vector(const Words<B>& x, std::uint64_t first, Sink&& sink) const {
    typename Base::Pair p;
    const uint4 wb = this->template vector_b<uint4>(x.b);
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

}  // namespace gpureduce
