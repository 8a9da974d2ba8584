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
  // Vectors of many 16-byte words (records: 80 bytes and more) are staged in the grid kernels'
  // whole batches: the warp's 32 vectors are loaded as its lanes' consecutive words, each warp load
  // 512 contiguous bytes, and consume_vector hands them round through shared memory. Loaded by
  // their own lanes, word k of 32 vectors 80-240 bytes apart, each warp load touched every
  // sector of the span, 16 bytes of each, which the next word's load covered again through L1.
  // H100, tools/probes/record_probe.cu, two rounds alternating against 1eccd93 (bench/results/
  // *_records_staged_experiment_1eccd93_round*.txt against *_records_1eccd93_beside_staged_staged2_
  // round*.txt), time staged over not: 5 int8 fields (80-byte vectors) 0.85 at 2^24, 0.88-0.96 at
  // 2^26, 0.97 at 2^28; 5 int16 0.93-0.95 from 2^24 up; 0.97-1.03 below (*_records_staged_mid_
  // experiment_*). Vectors of 48 bytes (float3, 3-byte pixels, 24-byte points) stay as they are:
  // staged, 0.99-1.03 of the time at every size.
  static constexpr unsigned vector_words = sizeof(Vector<T>) / vector_bytes;
  // The parts a warp's stage takes its vectors in (warp/warp_stage.hpp), so that a block's stage
  // fits in 44 KB: one for vectors of up to 176 bytes (11 words) in blocks of 8 warps, two above
  // (13 and 15 int16 fields); one in smaller blocks (the others of 208 bytes and more: dispatch/
  // tuning_sm90.hpp, with_narrow_staged_blocks).
  // The grid kernel's other static shared memory is its warp partials, 512 bytes at most
  // (accumulators of up to 16 bytes: reduce.cuh), so a block stays within 48 KB. Vectors of 176
  // bytes in two parts (a 22 KB stage) took 1.02-1.13x the time of one record per load for 11
  // int8 fields (ptxas: 242-246 registers against 80 in one part; bench/results/*_records_parts_
  // experiment_6091338_round*.txt), and 1.00-1.01x that of one part for 11 int16.
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
// (dispatch/tuning_sm90.hpp, with_element_work).
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
// Why 80 bytes only for narrow records: one record per load takes a load per field there, each of
// a warp's covering a few sectors, and a thread keeps 4 records of 5 or 10 bytes in flight, not
// the 64 bytes of numbers. H100, tools/probes/record_probe.cu, vectors of up to 128 bytes for
// alignments below 4 against one per load, two rounds alternating (bench/results/
// *_records_narrow_vectors_experiment_74583e1_round*.txt against *_records_74583e1_beside_narrow_
// vectors_round*.txt), time in vectors over one per load: 5 int8 fields 2^12 0.94-0.96 (one block),
// 2^16-2^19 1.02-1.06, 2^21 0.90-0.92, 2^22 0.85, 2^24 0.96-0.97, 2^26 0.81, 2^28 0.76 (CUB's time
// over ours 0.97 -> 1.28); 5 int16 fields 2^12 0.94-0.95, 2^16-2^19 0.98-1.02, 2^22 0.93, 2^26
// 0.95, 2^28 0.94 (0.97 -> 1.03). Vectors of 112 bytes (7 int8 fields) took 1.39-1.41x the time at
// 2^24 (117 MB), and 28-byte records of floats 1.43x at 2^22, with evict-first loads (with plain
// loads 0.99x there, but 1.04-1.15x the evict-first vectors' time elsewhere below 4x L2: *_records_
// narrow_vectors_plain_words_experiment_74583e1_round*.txt; with detail::load_record_word's loads
// still 1.35x at 2^24 and 1.03-1.22x from 2^10 to 2^22, 0.84-0.86x from 2^26 up: *_records_
// narrow_vectors_112_experiment_d31f91e_round*.txt); records of 4-byte alignment in vectors
// of 80 bytes 1.03-1.06x from 2^18 up (5 floats; 2^28 1858 against 1778 us, *_records_vectors_to_
// 128_experiment_74583e1_round*.txt), so those keep one record per load. (Those vectors were
// loaded by their own lanes; staged, 112-240 bytes are ahead from a size: below.)
template <class T>
inline constexpr bool vector_fits_v =
    vector_span_bytes(sizeof(T)) <= 64 || (vector_span_bytes(sizeof(T)) == 80 && alignof(T) < 4);
template <class T>
inline constexpr bool reads_as_vectors_v =
    vector_fits_v<T> && vector_span_bytes(sizeof(T)) * alignof(T) >= vector_bytes * sizeof(T);

// Narrow records whose vectors span 112-688 bytes from every address they may have (7-43 int8
// fields, 7-43 int16, odd counts) are read in vectors, staged (ArraySource::load_vector), from
// wide_vectors_min<T> vectors up (2^21 records of 7, 9 or 11 bytes, 2^22 of 13-31, 2^20 of 14, 18
// or 22, 2^21 of 26-62, 2^20 of 33-43 and 66-86), one per load below, where a
// thread's 8-16 records of one vector left too few threads to spread their fields' work over.
// H100, record_probe against 1eccd93, two rounds alternating (bench/results/*_records_staged_
// experiment_1eccd93_round*.txt, *_records_staged_mid_experiment_1eccd93_round*.txt), time in
// staged vectors over one per load (CUB's time over ours, before -> after):
// - 7 int8 fields: 2^18 1.08, 2^19-2^20 1.03-1.05, 2^21 0.95, 2^22 0.89, 2^24 0.79-0.80, 2^26
//   0.78-0.85, 2^28 0.76 (1.02 -> 1.34);
// - 9 int8 fields: 2^16 1.29, 2^18 1.13, 2^19-2^20 1.04-1.07, 2^21 0.95-0.96, 2^22 0.91, 2^24-2^26
//   0.81-0.82, 2^28 0.79 (0.98 -> 1.24);
// - 7 int16 fields: 2^16 1.07, 2^18-2^19 1.00-1.03, 2^20 0.96-0.98, 2^22 0.95, 2^24 0.95, 2^26
//   0.92, 2^28 0.90 (0.98 -> 1.09).
// Against 6091338, two rounds (*_records_{shorts,p44}_experiment_6091338_round*.txt against
// *_records_6091338_beside_{shorts_u4,56813bd_p44}_round*.txt), 208 and 240 bytes staged in two
// parts, 176 in one (ArraySource::stage_parts):
// - 11 int8 fields: 2^21 0.96-0.98, 2^22 0.92-0.95, 2^23 0.86-0.87, 2^24 0.82-0.83, 2^26-2^28
//   0.76-0.77 (0.880 -> 1.155);
// - 11 int16: 2^20 0.99, 2^22 0.96-0.98, 2^24 0.93, 2^26-2^28 0.91-0.93 (0.964 -> 1.058-1.060);
// - 13 and 15 int16: 2^20 1.01-1.04, 2^21 0.97-0.99, 2^22 0.95-0.98, 2^24 0.91-0.92, 2^28 0.87
//   (0.929 -> 1.063, 0.938 -> 1.074).
// 16 records of 13 and 15 int8 fields to a vector, in two parts, took 1.09-1.70x the time from
// 2^21 up (ptxas: 255 registers and spills; *_records_parts_experiment_6091338_round*.txt); in one
// part, in blocks of 128 threads, 0.78-0.96 from 2^22 up (0.89 -> 1.12-1.15x CUB at 2^28;
// dispatch/tuning_sm90.hpp, with_narrow_staged_blocks, as for the vectors of 272-688 bytes there).
// Of those, 2-byte fields took 1.00-1.02 (17 int16) and 1.02-1.04 (23 int16) of the time from 2^18
// vectors (2^21 records), hence 2^19 vectors for them
// (*_records_wide2_experiment_f1a499e_round*.txt) until one per load of them kept one record per
// thread (dispatch/tuning_sm90.hpp, with_many_narrow_fields): against 39dd44a
// (*_records_t21_experiment_39dd44a_round*.txt), from 2^18 vectors 17, 23 and 31 int16 took
// 0.94-0.95, 0.98 and 0.88 of the time at 2^21 records and 0.92, 0.95 and 0.86 at 3M (2^21: 1.17,
// 1.16 and 1.08x CUB -> 1.24, 1.19 and 1.23x); 17 and 31 int8 0.95 at 2^21 but 23 int8 1.07, so
// those keep 2^18 vectors (2^22 records).
// Unstaged, vectors of 112 and 144 bytes took 0.84-1.00 of the time from 2^25 up but 1.05-1.17 at
// 2^22-2^24 (*_records_wide1_experiment_1eccd93_round*.txt). Records of 4-byte alignment in staged
// vectors of 80 bytes (5 floats) gained 1% at most from 2^24 up, so they keep one record per load.
// Vectors of 528-688 bytes (33-43 fields), in blocks of 64 threads, whose stage of 2 warps holds
// up to 704 bytes a vector in one part: against 57f9223's one per load, two rounds (*_records_
// w704_experiment_57f9223_round*.txt, *_records_wlower_experiment_w704_round*.txt with 2^13
// vectors), time at 2^19 / 2^20 / 2^21 / 2^22 / 2^24 / 2^27 records:
// - 33 int8 fields: 1.09-1.10 / 0.99 / 0.87-0.88 / 0.82 / 0.76 / 0.72 (0.86 -> 1.19x CUB at 2^27);
//   37: 1.07-1.08 / 0.93-0.94 / 0.81; 41: 1.07 / 1.01 / 0.89-0.90; 43: 0.83-0.85 / 0.73-0.74 /
//   0.62 / 0.54 / 0.46 / 0.41 (0.78 -> 1.90x). At 2^17-2^18 1.16-1.32 (43: 1.17, 1.00).
// - 33 int16: 1.05 / 0.92 / 0.85 / 0.93 / 0.86-0.87 / 0.85 (1.07 -> 1.26x); 37: 0.88-0.89 /
//   0.83-0.84 / 0.80-0.81; 41: 0.86-0.87 / 0.80-0.81 / 0.78; 43: 0.83 / 0.76 / 0.73 / 0.68-0.69 /
//   0.65 / 0.64 at 2^26 (0.94 -> 1.46x). At 2^17 0.99-1.07.
// Hence from 2^20 records for both (2^16 vectors of int8, 2^17 of int16). A wider vector would
// need blocks of one warp, and 43 fields already take 254-255 registers (ptxas).
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
// 16-byte one) one record per load. H100, tools/probes/shifted_probe.cu, shifted against one per
// load (bench/results/*_shifted_ec164cb_round*.txt against *_shifted_8d6f03c_beside_ec164cb_
// round*.txt, medians of 3 runs alternating), us: 4-byte pixels from an odd address, 2^28 bytes
// 138.98 -> 104.22 (CUB 128.35), 2^31 1012.56 -> 746.83; four int64 8 bytes past a boundary,
// 2^20 bytes 6.14 -> 5.50, 2^31 738.56 -> 716.45; but pairs of floats, 2^20 bytes 5.46 -> 6.77,
// 2^31 735.38 -> 745.34, and pairs of doubles, 2^20 bytes 5.34 -> 5.76.
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
// shifts_records_v leaves), with an optional transform: each record is loaded
// whole (as the compiler splits a load of its size and alignment) as one "vector" of one element,
// so the split has no scalar head or tail and the launch plan counts one vector per record
// (split_bytes). Loaded evict-first in the grid kernel that loads its vectors so
// (thread/vector_load.cuh, load_record). Loaded plainly, as until 9e6cc5c, they took up to 15%
// longer after the bench's flush (a memset of 2x L2) from 80 KB to 128 MB. H100, tools/probes/
// record_probe.cu, two rounds alternating (bench/results/*_records_9e6cc5c_round*.txt against
// *_records_5abd7cb_beside_9e6cc5c_round*.txt), us: two doubles 8 bytes past a 16-byte boundary,
// 64 MB 35.21 -> 30.52 (CUB 36.82); two floats 4 bytes past an 8-byte one, 32 MB 21.34 -> 19.03;
// 20-byte records 80 KB 5.79 -> 5.39, 80 MB 42.34 -> 38.08.
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
// vectors shifted into place (thread/shifted_load.cuh), so that for them the element branch below
// is never taken. Wider elements keep the element loads, which are as wide as the words a shifted
// vector is made of (and their kernels the same code as before ShiftedB). H100,
// tools/probes/shifted_probe.cu, b one element past a's offset, shifted against element by element
// (bench/results/*_shifted_ ec164cb_round*.txt against *_shifted_8d6f03c_beside_ec164cb_round*.txt,
// medians of 3 runs alternating), us: int8 2^16 6.27 -> 5.31, 2^24 20.66 -> 18.27, 2^27 104.98 ->
// 101.81 (b at a's offset: 100.18); but int32 2^12 4.38 -> 5.01, 2^16 5.41 -> 6.56, and float64
// 2^27 707.9 -> 727.8.
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
// TuningSm90::shifted_dot_b); two kernels for those types, one for the others.
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
  // batch (agent/thread_partial.cuh, HeldWords) was taken apart byte by byte in PTX: the grid
  // kernel 1.06-1.09x of the time at 2^16-2^20 (H200, *_H200_ab_held_words_tested_batch_vs_
  // 54c9f24.txt).
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

}  // namespace gpureduce
