// Records (structs) as elements of a caller's functor or transform: which source reads them
// (agent/sources.cuh), how the vector split and the launch plan count them, and the argument
// checks, all on the host.
#include <gpureduce/gpureduce.cuh>

#include <cuda/std/complex>
#include <cuda/std/functional>
#include <thrust/complex.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

struct Pair {  // 8 bytes, 4-byte aligned
  float a, b;
};
struct Pixel {
  std::uint8_t r, g, b;
};
struct Point {
  double x, y, z;
};
struct Doubles {  // 16 bytes, 8-byte aligned
  double a, b;
};
struct alignas(16) Ints8 {  // 32 bytes: vectors of two 16-byte words
  int v[8];
};
struct Five {  // 5 bytes, 1-byte aligned: vectors of 16 (80 bytes)
  std::uint8_t b[5];
};
struct Shorts5 {  // 10 bytes, 2-byte aligned: vectors of 8 (80 bytes)
  std::uint16_t v[5];
};
struct Chars20 {  // 20 bytes, 1-byte aligned: vectors of 4 (80 bytes) from a multiple of 4
  char c[20];
};
struct Floats5 {  // 20 bytes, 4-byte aligned: one per load (a vector of 80 bytes was slower)
  float v[5];
};
struct Bytes7 {  // 7 bytes: a vector would span 112 bytes
  std::uint8_t b[7];
};
struct Bytes9 {  // 9 bytes: vectors of 16 (144 bytes) from a size
  std::uint8_t b[9];
};
struct Shorts7 {  // 14 bytes, 2-byte aligned: vectors of 8 (112 bytes) from a size
  std::uint16_t v[7];
};
struct Shorts15 {  // 30 bytes, 2-byte aligned: vectors of 8 (240 bytes) from a size
  std::uint16_t v[15];
};
struct Bytes11 {  // 11 bytes: vectors of 16 (176 bytes) from a size
  std::uint8_t b[11];
};
struct Bytes13 {  // 13 bytes: vectors of 16 (208 bytes) from a size, in blocks of 128 threads
  std::uint8_t b[13];
};
struct Bytes15 {  // 15 bytes: vectors of 16 (240 bytes) from a size, in blocks of 128 threads
  std::uint8_t b[15];
};
struct Bytes17 {  // 17 bytes: vectors of 16 (272 bytes) from a size, in blocks of 128 threads
  std::uint8_t b[17];
};
struct Bytes31 {  // 31 bytes: vectors of 16 (496 bytes) from a size, in blocks of 64 threads
  std::uint8_t b[31];
};
struct Bytes33 {  // 33 bytes: vectors of 16 (528 bytes) from a size, in blocks of 64 threads
  std::uint8_t b[33];
};
struct Bytes45 {  // 45 bytes: a vector would span 720 bytes; one per load
  std::uint8_t b[45];
};
struct Shorts43 {  // 86 bytes, 2-byte aligned: vectors of 8 (688 bytes) from a size, in blocks of 64 threads
  std::uint16_t v[43];
};
struct Shorts23 {  // 46 bytes, 2-byte aligned: vectors of 8 (368 bytes) from a size, in blocks of 64 threads
  std::uint16_t v[23];
};
struct Chars14 {  // 14 bytes, 1-byte aligned: an odd address never reaches a vector
  char c[14];
};
struct Rgba {  // 4 bytes, 1-byte aligned
  std::uint8_t r, g, b, a;
};
struct Longs4 {  // 32 bytes, 8-byte aligned
  std::int64_t v[4];
};
struct NotCopyable {
  NotCopyable(const NotCopyable&) {}
  float x;
};

static_assert(is_record_v<Pair> && is_record_v<float3> && is_record_v<cuda::std::complex<double>>);
static_assert(!is_record_v<float> && !is_record_v<__half> && !is_record_v<NotCopyable>);

// Records are read in vectors, as the numbers are, where a vector spans at most 64 bytes: aligned
// where the address reaches a 16-byte boundary within one vector; otherwise shifted where a record
// takes narrow loads or its vector spans several words (shifts_records_v), one per load else; the
// rest one record per load.
enum class Read { aligned, shifted, one_per_load };
template <class T>
Read how_read(std::uintptr_t addr, std::uint64_t n = 1) {
  return with_array_source(reinterpret_cast<const T*>(addr), n, Identity{}, [](const auto& src) {
    using S = std::remove_cvref_t<decltype(src)>;
    return std::is_same_v<S, ArraySource<T>>     ? Read::aligned
           : std::is_same_v<S, ShiftedSource<T>> ? Read::shifted
                                                 : Read::one_per_load;
  });
}
// How every address a T may have, from 0x1000 to 0x1040, is read: in aligned vectors from the
// multiples of `vectors_from`, `otherwise` from the others; one per load where vectors_from is 0.
template <class T>
void expect_vectors_from(std::uintptr_t vectors_from, Read otherwise = Read::one_per_load) {
  for (std::uintptr_t addr = 0x1000; addr < 0x1040; addr += alignof(T))
    EXPECT_EQ(how_read<T>(addr), vectors_from == 0           ? Read::one_per_load
                                 : addr % vectors_from == 0 ? Read::aligned
                                                             : otherwise)
        << "address " << addr;
}
static_assert(reads_as_vectors_v<cuda::std::complex<float>> && reads_as_vectors_v<float3> &&
              reads_as_vectors_v<Pixel> && reads_as_vectors_v<Point>);
static_assert(!reads_as_vectors_v<Pair> && !reads_as_vectors_v<Doubles>);

TEST(test_record_sources, which_records_are_read_in_vectors) {
  expect_vectors_from<float>(4);
  expect_vectors_from<cuda::std::complex<float>>(8);
  expect_vectors_from<cuda::std::complex<double>>(16);
  expect_vectors_from<int2>(8);
  expect_vectors_from<float4>(16);
  expect_vectors_from<float3>(4);
  expect_vectors_from<Pixel>(1);
  expect_vectors_from<Point>(8);
  expect_vectors_from<Pair>(8);      // from 4 bytes into an 8-byte word, one per load
  expect_vectors_from<Doubles>(16);  // from 8 bytes into a 16-byte word, one per load
  expect_vectors_from<Rgba>(4, Read::shifted);    // from an odd address: byte loads one per load
  expect_vectors_from<Longs4>(16, Read::shifted);  // vectors of two words
  expect_vectors_from<short3>(2);    // 6 bytes: vectors of 8 (48 bytes)
  expect_vectors_from<Ints8>(16);
  expect_vectors_from<Five>(1);      // 80 bytes: narrow records only
  expect_vectors_from<Shorts5>(2);
  expect_vectors_from<Chars20>(4, Read::shifted);
  expect_vectors_from<Floats5>(0);
  expect_vectors_from<Bytes7>(0);
}

// Narrow records whose vectors span 112-688 bytes from every address: in vectors from
// wide_vectors_min vectors of them, one per load below.
TEST(test_record_sources, narrow_records_in_vectors_of_112_to_688_bytes_from_a_size) {
  const auto expect = []<class T>(T, std::uint64_t per_vec) {
    static_assert(reads_wide_vectors_v<T>);
    EXPECT_EQ(Vector<T>::size, per_vec);
    for (std::uintptr_t addr = 0x1000; addr < 0x1040; addr += alignof(T)) {
      SCOPED_TRACE("size " + std::to_string(sizeof(T)) + " address " + std::to_string(addr));
      EXPECT_EQ(how_read<T>(addr, wide_vectors_min<T> * per_vec - 1), Read::one_per_load);
      EXPECT_EQ(how_read<T>(addr, wide_vectors_min<T> * per_vec), Read::aligned);
      EXPECT_EQ(how_read<T>(addr, std::uint64_t(1) << 33), Read::aligned);
    }
  };
  expect(Bytes7{}, 16);
  expect(Bytes9{}, 16);
  expect(Shorts7{}, 8);
  expect(Bytes11{}, 16);
  expect(Shorts15{}, 8);
  expect(Bytes13{}, 16);
  expect(Bytes15{}, 16);
  expect(Bytes17{}, 16);
  expect(Bytes31{}, 16);
  expect(Shorts23{}, 8);
  expect(Bytes33{}, 16);
  expect(Shorts43{}, 8);
  static_assert(wide_vectors_min<Bytes9> == 1u << 17 && wide_vectors_min<Bytes11> == 1u << 17 &&
                wide_vectors_min<Shorts15> == 1u << 18 && wide_vectors_min<Bytes13> == 1u << 18 &&
                wide_vectors_min<Bytes15> == 1u << 18 && wide_vectors_min<Bytes31> == 1u << 18 &&
                wide_vectors_min<Shorts23> == 1u << 18);
  // 33-43 fields from 2^20 records.
  static_assert(wide_vectors_min<Bytes33> == 1u << 16 && wide_vectors_min<Shorts43> == 1u << 17);
  static_assert(!reads_wide_vectors_v<Chars14> && !reads_wide_vectors_v<Floats5> && !reads_wide_vectors_v<Five> &&
                !reads_wide_vectors_v<Bytes45>);
  EXPECT_EQ(how_read<Bytes45>(0x1001, std::uint64_t(1) << 30), Read::one_per_load);
  EXPECT_EQ(how_read<Chars14>(0x1001, std::uint64_t(1) << 30), Read::one_per_load);
  EXPECT_EQ(how_read<Floats5>(0x1000, std::uint64_t(1) << 30), Read::one_per_load);
  for (const std::uint64_t n : {0ull, 123457ull, 1ull << 30}) {
    const VectorSplit s = VectorSplit::make(0x1003, n, sizeof(Bytes9));
    EXPECT_EQ(s.head + s.vectors * 16 + s.tail, n);
    if (s.vectors > 0) EXPECT_EQ((0x1003 + s.head * sizeof(Bytes9)) % 16, 0u);
  }
}

// Vectors of 5 words and more are staged in the grid kernels' whole batches (8 warps of 256
// threads), never in the one-block kernel's (warps 0) nor elsewhere; 48-byte vectors never.
static_assert(ArraySource<Five>::stages_v<WarpContiguous<PlainLoad, 8>> &&
              ArraySource<Bytes9>::stages_v<WarpContiguous<VectorLoad<true>, 8>> &&
              ArraySource<Shorts7>::stages_v<WarpContiguous<PlainLoad, 8>> &&
              ArraySource<Shorts15>::stages_v<WarpContiguous<PlainLoad, 8>>);
static_assert(!ArraySource<Five>::stages_v<WarpContiguous<PlainLoad, 0>> && !ArraySource<Five>::stages_v<PlainLoad> &&
              !ArraySource<float3>::stages_v<WarpContiguous<PlainLoad, 8>> &&
              !ArraySource<int>::stages_v<WarpContiguous<PlainLoad, 8>>);
static_assert(ArraySource<Bytes9>::vector_words == 9 && ArraySource<Shorts7>::vector_words == 7 &&
              ArraySource<Shorts15>::vector_words == 15);
// A block's stage within 44 KB: vectors of 15 words in two parts in blocks of 8 warps, 11 and 9 in
// one; 13-22 words in one in blocks of 4 warps, 23-43 in blocks of 2.
static_assert(ArraySource<Bytes9>::stage_parts<8> == 1 && ArraySource<Bytes11>::stage_parts<8> == 1 &&
              ArraySource<Shorts15>::stage_parts<8> == 2 && ArraySource<Bytes13>::stage_parts<4> == 1 &&
              ArraySource<Bytes15>::stage_parts<4> == 1);
static_assert(ArraySource<Bytes11>::one_part_threads == 256 && ArraySource<Bytes13>::one_part_threads == 128 &&
              ArraySource<Bytes17>::one_part_threads == 128 && ArraySource<Shorts23>::one_part_threads == 64 &&
              ArraySource<Bytes31>::one_part_threads == 64 && ArraySource<Shorts43>::one_part_threads == 64);
static_assert(ArraySource<Shorts43>::vector_words == 43 && ArraySource<Shorts43>::stage_parts<2> == 1);
static_assert(ArraySource<Bytes11>::stages_v<WarpContiguous<PlainLoad, 8>> &&
              ArraySource<Bytes15>::stages_v<WarpContiguous<VectorLoad<true>, 4>> &&
              ArraySource<Bytes31>::stages_v<WarpContiguous<VectorLoad<true>, 2>> &&
              !ArraySource<Bytes31>::stages_v<WarpContiguous<VectorLoad<true>, 8>>);

// Every lane's words of the warp's 32 vectors go into the stage exactly once, in the part that
// holds the vector they belong to, where the lane that owns it reads them back in order.
TEST(test_record_sources, warp_stage_hands_every_lane_its_own_vector) {
  for (const unsigned words : {5u, 7u, 9u, 11u, 13u, 15u, 16u}) {
    for (const unsigned parts : {1u, 2u, 4u}) {
      SCOPED_TRACE(std::to_string(words) + " words in " + std::to_string(parts) + " parts");
      const WarpStage layout{words, parts};
      std::vector<int> written(words * warp_threads, 0);
      for (unsigned p = 0; p < parts; ++p) {
        std::vector<int> stage(layout.part_words(), -1);
        for (unsigned k = layout.first_round(p); k < layout.end_round(p); ++k) {
          for (unsigned lane = 0; lane < warp_threads; ++lane) {
            const unsigned word = k * warp_threads + lane, i = layout.slot(k, lane, p);
            const bool in_part = word / layout.part_words() == p;
            EXPECT_EQ(i < layout.part_words(), in_part) << "round " << k << " lane " << lane;
            if (layout.whole_round(k, p)) EXPECT_TRUE(in_part) << "round " << k << " lane " << lane;
            if (!in_part) continue;
            ++written[word];
            stage[i] = int(word);
          }
        }
        for (unsigned lane = 0; lane < warp_threads; ++lane) {
          if (layout.part_of(lane) != p) continue;
          for (unsigned j = 0; j < words; ++j) EXPECT_EQ(stage[layout.own_slot(lane, j)], int(lane * words + j));
        }
      }
      EXPECT_TRUE(std::all_of(written.begin(), written.end(), [](int c) { return c == 1; }));
    }
  }
}

static_assert(Vector<Pixel>::size == 16 && sizeof(Vector<Pixel>) == 48);
static_assert(Vector<float3>::size == 4 && sizeof(Vector<float3>) == 48);
static_assert(Vector<Point>::size == 2 && sizeof(Vector<Point>) == 48);
static_assert(Vector<short3>::size == 8 && Vector<Ints8>::size == 1 && sizeof(Vector<Ints8>) == 32);
static_assert(Vector<cuda::std::complex<float>>::size == 2 && sizeof(Vector<float>) == 16);
static_assert(Vector<Five>::size == 16 && Vector<Shorts5>::size == 8 && Vector<Chars20>::size == 4 &&
              sizeof(Vector<Chars20>) == 80);
static_assert(vector_span_bytes(1) == 16 && vector_span_bytes(8) == 16 && vector_span_bytes(16) == 16 &&
              vector_span_bytes(3) == 48 && vector_span_bytes(12) == 48 && vector_span_bytes(24) == 48 &&
              vector_span_bytes(32) == 32 && vector_span_bytes(20) == 80);

// Which calls compile: records under a caller's functor or a transform (a built-in operator on
// records is a static_assert: tests/compile_fail/element_type.cu).
template <class T, class F, class Init>
concept reduces_with = requires(const T* in, Init* out, F f, Init init) { try_reduce(in, 1, out, f, init); };
struct PairMax {
  __host__ __device__ Pair operator()(Pair x, Pair y) const { return {x.a > y.a ? x.a : y.a, x.b > y.b ? x.b : y.b}; }
};
struct Norm2 {
  __host__ __device__ float operator()(float3 p) const { return p.x * p.x + p.y * p.y + p.z * p.z; }
};
static_assert(reduces_with<Pair, PairMax, Pair>);
static_assert(reduces_with<cuda::std::complex<float>, cuda::std::plus<>, cuda::std::complex<float>>);
static_assert(requires(const float3* in, IndexedValue<float>* out) {
  try_transform_reduce(in, 1, out, Norm2{}, ArgMax{});
});

// Whose last batch, loaded under tests, holds its vectors as 32-bit words (HeldWords in
// agent/thread_partial.cuh): arrays of numbers and dot products; not records (5 bytes are no whole
// number of words), transformed values, shifted loads or the 8- and 16-bit sums' words, which keep
// theirs as loaded.
static_assert(held_as_words_v<ArraySource<__nv_bfloat16>> && held_as_words_v<ArraySource<double>> &&
              held_as_words_v<ProductSource<__half, float>> &&
              held_as_words_v<PackedProductSource<std::int8_t, std::int64_t, false>>);
static_assert(!held_as_words_v<ArraySource<Five>> && !held_as_words_v<RecordSource<Pair>> &&
              !held_as_words_v<ArraySource<float3, Norm2>> && !held_as_words_v<ShiftedSource<Pixel>> &&
              !held_as_words_v<ProductSource<__half, float, true>> &&
              !held_as_words_v<PackedWordSource<std::int8_t>>);

// Vectors of records that span 48 or 80 bytes, from every address a record may have (of the
// records' gcd with 16): the head is the fewest records that reach a 16-byte boundary, then whole
// vectors, then a tail shorter than one.
TEST(test_record_sources, wide_vectors_start_at_the_first_aligned_record) {
  for (const unsigned elem : {3u, 12u, 24u, 5u, 10u, 20u}) {
    const unsigned align = elem == 3 || elem == 5 ? 1 : elem == 10 ? 2 : elem == 24 ? 8 : 4;
    const std::uint64_t per_vec = vector_span_bytes(elem) / elem;
    for (std::uint64_t addr = 0x1000; addr < 0x1000 + 64; addr += align)
      for (const std::uint64_t n : {0ull, 1ull, 5ull, 15ull, 16ull, 47ull, 1000ull, 1001ull}) {
        SCOPED_TRACE("elem " + std::to_string(elem) + " addr " + std::to_string(addr) + " n " + std::to_string(n));
        const VectorSplit s = VectorSplit::make(addr, n, elem);
        EXPECT_EQ(s.head + s.vectors * per_vec + s.tail, n);
        EXPECT_LT(s.tail, per_vec);
        std::uint64_t first = 0;  // the first record that starts 16-byte aligned
        while ((addr + first * elem) % 16 != 0) ++first;
        EXPECT_LT(first, per_vec);
        EXPECT_EQ(s.head, std::min<std::uint64_t>(first, n));
        if (s.vectors > 0) EXPECT_EQ((addr + s.head * elem) % 16, 0u);
      }
  }
}

TEST(test_record_sources, a_record_source_has_no_scalar_edges) {
  alignas(16) static const Floats5 fives[8]{};
  for (const std::uint64_t n : {0ull, 1ull, 7ull}) {
    const VectorSplit s = RecordSource<Floats5>{fives + 1, {}}.split(n);
    EXPECT_EQ(s.head, 0u);
    EXPECT_EQ(s.vectors, n);
    EXPECT_EQ(s.tail, 0u);
  }
}

// The launch plan counts a record read one per load as one 16-byte vector, from any address: no
// head, and one block up to the one-block limit in vectors (dispatch tunes it as 16-byte elements:
// 2048 records, one batch of the one-block kernel).
TEST(test_record_sources, the_plan_counts_one_vector_per_record) {
  using Source = RecordSource<Floats5>;
  constexpr ReduceTuning t = detail::reduce_tuning<int, Source, UserOp<cuda::std::plus<int>, int>>();
  const std::uint64_t one_block_records = t.single_block_max_bytes / Source::split_bytes;
  EXPECT_EQ(one_block_records, 2048u);
  for (const std::uint64_t addr : {256ull, 260ull, 268ull}) {
    EXPECT_EQ(VectorSplit::make(addr, 1000, Source::split_bytes).head, 0u);
    EXPECT_EQ(plan_launch(one_block_records, addr, Source::split_bytes, t, 1056).kernel, Kernel::one_block);
    const LaunchPlan grid = plan_launch(one_block_records + 1, addr, Source::split_bytes, t, 1056);
    EXPECT_EQ(grid.kernel, Kernel::grid);
    EXPECT_EQ(grid.blocks, 3u);  // batches of 256 threads x 4 records
  }
}

// Records read one per load of more than 8 bytes or of 1- and 2-byte alignment stay on the
// few-blocks grid (257 blocks) up to 4096 batches of 256 threads x 4 records, and take 6 waves
// from 4x L2; pairs of floats, records in vectors and numbers keep 2048 batches (and 16x L2 or one
// wave).
TEST(test_record_sources, records_one_per_load_keep_few_blocks_longer) {
  using Op = UserOp<cuda::std::plus<int>, int>;
  constexpr ReduceTuning t = detail::reduce_tuning<int, RecordSource<Floats5>, Op>();
  EXPECT_EQ(t.few_blocks_max_batches, 4096u);
  EXPECT_EQ(t.waves_min_l2, 4u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<Doubles>, Op>().few_blocks_max_batches), 4096u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<Bytes7>, Op>().few_blocks_max_batches), 4096u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<Bytes7>, Op>().waves_min_l2), 4u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<Pair>, Op>().few_blocks_max_batches), 2048u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<Pair>, Op>().waves_min_l2), 16u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<float3>, Op>().few_blocks_max_batches), 2048u);
  EXPECT_EQ((detail::reduce_tuning<std::int64_t, ArraySource<int>, Sum>().few_blocks_max_batches), 2048u);
  // Records in vectors of 112 and 144 bytes take the same; those of 80 bytes do not.
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<Bytes9>, Op>().few_blocks_max_batches), 4096u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<Shorts7>, Op>().waves_min_l2), 4u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<Five>, Op>().few_blocks_max_batches), 2048u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<Five>, Op>().waves_min_l2), 16u);
  // Vectors of 208 bytes and more run blocks of 128 threads, of 64 above 352 bytes, on a full grid
  // from the start; 13 and 15 int16 fields (208 and 240 bytes) keep 256 threads and the few-blocks
  // grid.
  const auto expect_small_blocks = []<class T>(T, unsigned threads) {
    constexpr ReduceTuning w = detail::reduce_tuning<int, ArraySource<T>, Op>();
    EXPECT_EQ(w.grid_threads, threads);
    EXPECT_EQ(w.few_blocks_max_batches, 0u);
    EXPECT_EQ(w.waves_min_l2, 4u);
    EXPECT_EQ(plan_launch(wide_vectors_min<T> * Vector<T>::size, 0x1000, sizeof(T), w, 660).blocks, 660u);
  };
  expect_small_blocks(Bytes13{}, 128);
  expect_small_blocks(Bytes15{}, 128);
  expect_small_blocks(Bytes17{}, 128);
  expect_small_blocks(Bytes31{}, 64);
  expect_small_blocks(Shorts23{}, 64);
  expect_small_blocks(Bytes33{}, 64);
  expect_small_blocks(Shorts43{}, 64);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<Shorts15>, Op>().grid_threads), 256u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<Shorts15>, Op>().few_blocks_max_batches), 4096u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<Bytes13>, Op>().grid_threads), 256u);
  const auto blocks = [&](std::uint64_t n) {
    return plan_launch(n, 0x1000, RecordSource<Floats5>::split_bytes, t, 1056).blocks;
  };
  EXPECT_EQ(blocks(std::uint64_t(4096) * 1024), 257u);
  EXPECT_EQ(blocks(std::uint64_t(4096) * 1024 + 1), 1056u);
}

// Of those, records of more than 16 int8 or int16 fields keep one record in flight per thread
// (batches of 256 records) and take one block of 256 threads up to 256 records; 16-field records,
// 13 int8 and 17 fields of 4 bytes keep 4 per thread and one block of 512 up to 2048.
struct Bytes16 {
  std::uint8_t b[16];
};
struct Floats17 {
  float v[17];
};
TEST(test_record_sources, records_of_many_narrow_fields_one_per_thread) {
  using Op = UserOp<cuda::std::plus<int>, int>;
  const auto expect_one_per_thread = []<class T>(T) {
    SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte records");
    constexpr ReduceTuning t = detail::reduce_tuning<int, RecordSource<T>, Op>();
    EXPECT_EQ(t.grid_unroll, 1);
    EXPECT_EQ(t.grid_threads, 256u);
    EXPECT_EQ(t.few_blocks_max_batches, 4096u);
    const auto plan = [&](std::uint64_t n) { return plan_launch(n, 0x1001, RecordSource<T>::split_bytes, t, 1056); };
    EXPECT_EQ(plan(256).kernel, Kernel::one_block);
    EXPECT_EQ(plan(256).threads, 256u);
    EXPECT_EQ(plan(257).kernel, Kernel::grid);
    EXPECT_EQ(plan(257).blocks, 2u);
    EXPECT_EQ(plan(4096).blocks, 16u);
    EXPECT_EQ(plan(std::uint64_t(4096) * 256).blocks, 257u);
    EXPECT_EQ(plan(std::uint64_t(4096) * 256 + 1).blocks, 1056u);
  };
  expect_one_per_thread(Bytes17{});
  expect_one_per_thread(Bytes33{});
  expect_one_per_thread(Bytes45{});
  expect_one_per_thread(Shorts23{});
  expect_one_per_thread(Shorts43{});
  const auto expect_four_per_thread = []<class T>(T) {
    SCOPED_TRACE(std::to_string(sizeof(T)) + "-byte records");
    constexpr ReduceTuning t = detail::reduce_tuning<int, RecordSource<T>, Op>();
    EXPECT_EQ(t.grid_unroll, 4);
    EXPECT_EQ(t.single_threads, 512u);
    EXPECT_EQ(plan_launch(2048, 0x1001, RecordSource<T>::split_bytes, t, 1056).kernel, Kernel::one_block);
  };
  expect_four_per_thread(Bytes13{});
  expect_four_per_thread(Bytes16{});
  expect_four_per_thread(Floats17{});
}

// argmin/argmax of records read in vectors (staged or not) and of records of many narrow fields
// have no register floor (dispatch/tuning_sm90.hpp, arg_in_vectors, narrow_fields); other records
// read one per load, and numbers, keep the argmin/argmax rows'; sums never had one.
struct Key {  // a record's key
  template <class R>
  __host__ __device__ double operator()(const R&) const {
    return 0;
  }
};
TEST(test_record_sources, record_keys_have_no_register_floor) {
  const auto floors = []<class Source>(Source) {
    constexpr ReduceTuning t = detail::reduce_tuning<IndexedValue<double>, Source, ArgMax>();
    return std::pair{t.grid_min_blocks, t.single_min_blocks};
  };
  using None = std::pair<unsigned, unsigned>;
  EXPECT_EQ(floors(ArraySource<Five, Key>{}), None(0, 0));
  EXPECT_EQ(floors(ArraySource<Bytes9, Key>{}), None(0, 0));
  EXPECT_EQ(floors(ArraySource<Shorts15, Key>{}), None(0, 0));
  EXPECT_EQ(floors(ArraySource<Bytes33, Key>{}), None(0, 0));
  EXPECT_EQ(floors(ArraySource<float3, Key>{}), None(0, 0));
  EXPECT_EQ(floors(RecordSource<Bytes17, Key>{}), None(0, 0));
  EXPECT_EQ(floors(RecordSource<Bytes45, Key>{}), None(0, 0));
  EXPECT_EQ(floors(RecordSource<Bytes9, Key>{}), None(4, 2));
  EXPECT_EQ(floors(RecordSource<Floats5, Key>{}), None(4, 2));
  EXPECT_EQ(floors(RecordSource<Floats17, Key>{}), None(4, 2));
  EXPECT_EQ(floors(RecordSource<Doubles, Key>{}), None(4, 2));
  EXPECT_EQ(floors(ArraySource<float>{}), None(5, 2));
  EXPECT_EQ((detail::reduce_tuning<double, ArraySource<Bytes9, Key>, Sum>().grid_min_blocks), 0u);
}

// Records read one per load, for every operator: up to 256 records (4 KB of 16-byte vectors) the
// one-block kernel of 256 threads with one record per thread; argmin/argmax of records of more than
// 8 loads, whose partial batch is loaded with repeats, up to 512, on 512 threads from 257 (records
// of many narrow fields: 256, the most their one block takes). Records in vectors and numbers
// never.
TEST(test_record_sources, records_one_per_thread_in_one_block) {
  const auto most = []<class Source, class Op = ArgMax>(Source, Op = {}) {
    using A = std::conditional_t<std::is_same_v<Op, Sum>, double, IndexedValue<double>>;
    return detail::reduce_tuning<A, Source, Op>().one_per_thread_max_bytes;
  };
  static_assert(record_loads_v<Bytes9> == 9 && record_loads_v<Floats5> == 5 && record_loads_v<Doubles> == 2);
  static_assert(!keys_last_batch_by_record_v<RecordSource<Bytes9, Key>>);
  static_assert(keys_last_batch_by_record_v<RecordSource<Bytes7, Key>>);
  static_assert(!keys_last_batch_by_record_v<ArraySource<Five, Key>>);
  EXPECT_EQ(most(RecordSource<Bytes9, Key>{}), 8192u);
  EXPECT_EQ(most(RecordSource<Shorts15, Key>{}, ArgMin{}), 8192u);
  EXPECT_EQ(most(RecordSource<Floats17, Key>{}), 8192u);
  EXPECT_EQ(most(RecordSource<Floats5, Key>{}), 4096u);
  EXPECT_EQ(most(RecordSource<Five, Key>{}, ArgMin{}), 4096u);
  EXPECT_EQ(most(RecordSource<Bytes7, Key>{}), 4096u);
  EXPECT_EQ(most(RecordSource<Bytes45, Key>{}), 4096u);
  EXPECT_EQ(most(RecordSource<Bytes9, Key>{}, Sum{}), 4096u);
  EXPECT_EQ(most(RecordSource<Doubles, Key>{}, Sum{}), 4096u);
  EXPECT_EQ(most(RecordSource<Bytes45, Key>{}, Sum{}), 4096u);
  EXPECT_EQ(most(ArraySource<Five, Key>{}), 0u);
  EXPECT_EQ(most(ArraySource<Five, Key>{}, Sum{}), 0u);
  EXPECT_EQ(most(ArraySource<float>{}), 0u);
  EXPECT_EQ(most(ArraySource<float>{}, Sum{}), 0u);

  const ReduceTuning keys = detail::reduce_tuning<IndexedValue<double>, RecordSource<Bytes9, Key>, ArgMax>();
  EXPECT_EQ(one_per_thread_threads(0, 16, keys), 256u);
  EXPECT_EQ(one_per_thread_threads(256, 16, keys), 256u);
  EXPECT_EQ(one_per_thread_threads(257, 16, keys), 512u);
  EXPECT_EQ(one_per_thread_threads(512, 16, keys), 512u);
  EXPECT_EQ(one_per_thread_threads(513, 16, keys), 0u);
  EXPECT_EQ(plan_launch(256, 0, 16, keys, 1).threads, keys.small_single_threads);
  const ReduceTuning sums = detail::reduce_tuning<double, RecordSource<Bytes9, Key>, Sum>();
  EXPECT_EQ(sums.small_single_threads, 256u);
  EXPECT_EQ(sums.single_threads, 512u);
  EXPECT_EQ(one_per_thread_threads(1, 16, sums), 256u);
  EXPECT_EQ(one_per_thread_threads(256, 16, sums), 256u);
  EXPECT_EQ(one_per_thread_threads(257, 16, sums), 0u);
  EXPECT_EQ(plan_launch(257, 0, 16, sums, 1).threads, 512u);
  const ReduceTuning numbers = detail::reduce_tuning<float, ArraySource<float>, Sum>();
  EXPECT_EQ(one_per_thread_threads(1, 4, numbers), 0u);
  // Records keep these kernels; numbers, complex numbers and dot products take one vector per
  // thread up to 512 vectors (launch_plan.hpp, one_vector_threads).
  EXPECT_EQ(keys.one_vector_max_threads, 0u);
  EXPECT_EQ(sums.one_vector_max_threads, 0u);
  EXPECT_EQ((detail::reduce_tuning<double, ArraySource<Five, Key>, Sum>().one_vector_max_threads), 0u);
  EXPECT_EQ(numbers.one_vector_max_threads, 512u);
  EXPECT_EQ((detail::reduce_tuning<IndexedValue<float>, ArraySource<float>, ArgMax>().one_vector_max_threads), 512u);
  EXPECT_EQ((detail::reduce_tuning<float, ProductSource<__half, float>, Sum>().one_vector_max_threads), 512u);
  EXPECT_EQ((detail::reduce_tuning<cuda::std::complex<float>, ArraySource<cuda::std::complex<float>>, Sum>()
                 .one_vector_max_threads),
            512u);
}

// Records read in vectors are read one per load in one block up to the records it reads in one
// batch so (2048: 512 threads x 4), for every operator; numbers, complex numbers and records
// read shifted or one per load anyway are not switched.
TEST(test_record_sources, records_in_vectors_one_per_load_in_one_block) {
  using detail::one_block_one_per_load_max;
  EXPECT_EQ((one_block_one_per_load_max<double, ArraySource<Five, Key>, Sum>()), 2048u);
  EXPECT_EQ((one_block_one_per_load_max<IndexedValue<double>, ArraySource<Five, Key>, ArgMax>()), 2048u);
  EXPECT_EQ((one_block_one_per_load_max<int, ArraySource<Pixel>, UserOp<cuda::std::plus<int>, int>>()), 2048u);
  EXPECT_EQ((one_block_one_per_load_max<double, ArraySource<Point, Key>, Sum>()), 2048u);
  EXPECT_EQ((one_block_one_per_load_max<IndexedValue<double>, ArraySource<Shorts5, Key>, ArgMin>()), 2048u);
  static_assert(std::is_same_v<detail::one_per_load_of<ArraySource<Five, Key>>::type, RecordSource<Five, Key>>);
  EXPECT_EQ((one_block_one_per_load_max<float, ArraySource<float>, Sum>()), 0u);
  EXPECT_EQ((one_block_one_per_load_max<double, ArraySource<float, Key>, Sum>()), 0u);
  using C = cuda::std::complex<float>;
  EXPECT_EQ((one_block_one_per_load_max<C, ArraySource<C>, Sum>()), 0u);
  EXPECT_EQ((one_block_one_per_load_max<double, ShiftedSource<Five, Key>, Sum>()), 0u);
  EXPECT_EQ((one_block_one_per_load_max<double, RecordSource<Five, Key>, Sum>()), 0u);
}

// Arrays of records, read one per load or in vectors, take 6 waves of blocks from 16x L2 (those
// above from 4x) on any device; 4- and 8-byte numbers too, on devices of 4.5 TB/s and more only;
// other numbers, complex ones, transforms and dot products one.
TEST(test_record_sources, records_take_several_waves) {
  using Op = UserOp<cuda::std::plus<int>, int>;
  constexpr ReduceTuning per_load = detail::reduce_tuning<int, RecordSource<Pair>, Op>();
  EXPECT_EQ(per_load.waves_min_l2, 16u);
  EXPECT_EQ(per_load.grid_waves, 6u);
  EXPECT_EQ(per_load.waves_min_dram_gbps, 0u);
  EXPECT_EQ((detail::reduce_tuning<int, RecordSource<double>, Op>().waves_min_dram_gbps), 0u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<float3>, Op>().waves_min_l2), 16u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<float3>, Op>().grid_waves), 6u);
  EXPECT_EQ((detail::reduce_tuning<int, ShiftedSource<Rgba>, Op>().grid_waves), 6u);
  EXPECT_EQ((detail::reduce_tuning<int, ArraySource<float, cuda::std::negate<float>>, Op>().waves_min_l2), 0u);
  using Complex = cuda::std::complex<float>;
  EXPECT_EQ((detail::reduce_tuning<Complex, ArraySource<Complex>, UserOp<cuda::std::plus<>, Complex>>().waves_min_l2),
            0u);
  for (const ReduceTuning numbers :
       {detail::reduce_tuning<std::int64_t, ArraySource<int>, Sum>(),
        detail::reduce_tuning<float, ArraySource<float>, Max>(), detail::reduce_tuning<double, ArraySource<double>, Sum>(),
        detail::reduce_tuning<IndexedValue<std::int64_t>, ArraySource<std::int64_t>, ArgMax>()}) {
    EXPECT_EQ(numbers.waves_min_l2, 16u);
    EXPECT_EQ(numbers.grid_waves, 6u);
    EXPECT_EQ(numbers.waves_min_dram_gbps, 4500u);
  }
  EXPECT_EQ((detail::reduce_tuning<std::int64_t, ArraySource<std::int8_t>, Sum>().waves_min_l2), 0u);
  EXPECT_EQ((detail::reduce_tuning<float, ArraySource<__half>, Sum>().waves_min_l2), 0u);
  EXPECT_EQ((detail::reduce_tuning<float, ProductSource<float, float>, Sum>().waves_min_l2), 0u);
}

// One block reads at most one of its batches where each value costs more than an operator (a
// transform, a record's fields): 32 KB, 24 KB in vectors of 48 bytes, 40 KB in vectors of 80,
// 16 KB of 1-byte elements. Plain numbers keep their operator's limit, and so do accumulators the
// grid hands over with a ticket (its hand-off costs more).
TEST(test_record_sources, values_with_work_leave_one_block_after_a_batch) {
  using Add = UserOp<cuda::std::plus<std::int64_t>, std::int64_t>;
  // Any transform but Identity counts; which one does not matter to the plan.
  using Negate = cuda::std::negate<float>;
  using Widen = cuda::std::negate<int>;
  const auto one_block_bytes = []<class A, class Source, class Op>(A, Source, Op) {
    return detail::reduce_tuning<A, Source, Op>().single_block_max_bytes;
  };
  constexpr std::uint64_t kb = 1024;
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ArraySource<int>{}, Sum{}), 64 * kb);
  EXPECT_EQ(one_block_bytes(float{}, ArraySource<float>{}, Add{}), 64 * kb);
  // Sums of 1-byte integers as every operator of them; 2-byte ones as other 2-byte numbers.
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ArraySource<std::int8_t>{}, Sum{}), 32 * kb);
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ArraySource<std::int16_t>{}, Sum{}), 64 * kb);
  EXPECT_EQ(one_block_bytes(cuda::std::complex<float>{}, ArraySource<cuda::std::complex<float>>{}, Sum{}), 64 * kb);
  EXPECT_EQ(one_block_bytes(float{}, ArraySource<float, Negate>{}, Sum{}), 32 * kb);
  EXPECT_EQ(one_block_bytes(int{}, ArraySource<std::int8_t, Widen>{}, Sum{}), 16 * kb);
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ArraySource<Rgba>{}, Add{}), 32 * kb);
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ShiftedSource<Rgba>{}, Add{}), 32 * kb);
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ArraySource<Pixel>{}, Add{}), 24 * kb);
  EXPECT_EQ(one_block_bytes(std::int64_t{}, ArraySource<Shorts5>{}, Add{}), 40 * kb);
  // argmax of transformed values: the batch, below the operator's own 56 KB.
  EXPECT_EQ(one_block_bytes(IndexedValue<float>{}, ArraySource<float, Negate>{}, ArgMax{}), 32 * kb);
  // Accumulators handed over with the ticket (float3) keep theirs: the grid costs more.
  EXPECT_EQ(one_block_bytes(float3{}, ArraySource<float3>{}, UserOp<cuda::std::plus<float3>, float3>{}), 64 * kb);
  // Dot products keep theirs.
  EXPECT_EQ(one_block_bytes(float{}, ProductSource<float, float>{}, Sum{}), 32 * kb);
}

// A split for shifted vectors (thread/shifted_load.cuh) keeps every word they load inside the
// array: from d bytes before a vector's first element to 16 - d bytes past its last (d == 0: an
// aligned vector, its own bytes).
void expect_loads_inside(const VectorSplit& s, std::uint64_t addr, std::uint64_t n, unsigned elem, unsigned per_vec,
                         unsigned d) {
  EXPECT_EQ(s.head + s.vectors * per_vec + s.tail, n);
  EXPECT_LT(s.head, 2 * per_vec);
  EXPECT_LT(s.tail, 2 * per_vec);
  for (std::uint64_t j = 0; j < s.vectors; ++j) {
    const std::uint64_t start = addr + (s.head + j * per_vec) * elem;
    ASSERT_EQ(start % 16, d) << "vector " << j;
    ASSERT_GE(start - d, addr) << "vector " << j;
    ASSERT_LE(start + per_vec * elem + (d == 0 ? 0 : 16 - d), addr + n * elem) << "vector " << j;
  }
}

TEST(test_record_sources, shifted_vectors_load_only_the_array) {
  for (const unsigned elem : {1u, 2u, 4u, 8u, 16u, 3u, 6u, 12u, 24u, 32u, 5u, 10u, 20u}) {
    const unsigned per_vec = vector_span_bytes(elem) / elem;
    for (std::uint64_t addr = 0x1001; addr < 0x1010; ++addr)
      for (const std::uint64_t n : {0ull, 1ull, 2ull, 15ull, 16ull, 17ull, 47ull, 48ull, 49ull, 100ull, 1001ull}) {
        SCOPED_TRACE("elem " + std::to_string(elem) + " addr " + std::to_string(addr) + " n " + std::to_string(n));
        const unsigned d = unsigned(addr % 16);
        const VectorSplit s = VectorSplit{0, n / per_vec, n % per_vec}.shifted(d, elem, per_vec);
        expect_loads_inside(s, addr, n, elem, per_vec, d);
        // Only the first and last vectors go to scalars.
        EXPECT_GE(s.vectors + 2, n / per_vec);
      }
  }
  // ShiftedSource's own split, for a pair of doubles 8 bytes past a 16-byte boundary.
  alignas(16) static const Doubles doubles[64]{};
  const ShiftedSource<Doubles> src{{doubles + 0, {}}};
  EXPECT_EQ(src.offset(), 0u);
  for (const std::uint64_t n : {0ull, 1ull, 2ull, 3ull, 40ull}) {
    const ShiftedSource<Doubles> shifted{
        {reinterpret_cast<const Doubles*>(reinterpret_cast<const char*>(doubles) + 8), {}}};
    const VectorSplit s = shifted.split(n);
    expect_loads_inside(s, shifted.address(), n, 16, 1, 8);
    EXPECT_EQ(s.vectors, n >= 2 ? n - 2 : 0);
  }
}

// A dot product's second array at another offset from a 16-byte boundary than the first: for 1-
// and 2-byte elements loaded shifted (a kernel of its own; the split follows a, and b's shifted
// loads stay inside b) at the sizes shifted_dot_b gives, for the others element by
// element in the kernel of the aligned ones.
template <class T, class A>
VectorSplit dot_split(const T* a, const T* b, std::uint64_t n, bool* shifted) {
  return with_product_source<T, A>(
      a, b, shifted_dot_b<sizeof(T)>(n, is_floating_v<T>), [&](const auto& src) {
        *shifted = std::is_same_v<std::remove_cvref_t<decltype(src)>, ProductSource<T, A, true>>;
        return src.split(n);
      });
}

TEST(test_record_sources, a_dot_products_second_array_is_loaded_inside_it) {
  alignas(16) static const float f[256]{};
  alignas(16) static const std::int8_t c[256]{};
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned j = 0; j < 8; ++j)
      for (const std::uint64_t n : {0ull, 1ull, 4ull, 7ull, 8ull, 9ull, 100ull, 200ull}) {
        SCOPED_TRACE("a + " + std::to_string(i) + " b + " + std::to_string(j) + " n " + std::to_string(n));
        bool shifted = true;
        const VectorSplit sf = dot_split<float, float>(f + i, f + j, n, &shifted);
        EXPECT_FALSE(shifted);
        const VectorSplit own = VectorSplit::make(reinterpret_cast<std::uintptr_t>(f + i), n, 4);
        EXPECT_EQ(sf.head, own.head);
        EXPECT_EQ(sf.vectors, own.vectors);
        const VectorSplit sc = dot_split<std::int8_t, std::int64_t>(c + 3 * i, c + 5 * j, n, &shifted);
        const unsigned dc = (5 * j - 3 * i) % 16;
        EXPECT_EQ(shifted, dc != 0);
        expect_loads_inside(sc, reinterpret_cast<std::uintptr_t>(c + 5 * j), n, 1, 16, dc);
        if (sc.vectors > 0) EXPECT_EQ(reinterpret_cast<std::uintptr_t>(c + 3 * i + sc.head) % 16, 0u);
      }
}

// Which sizes read such a second array shifted: 1-byte elements always; 2-byte ones from 16 MB per
// array and, floating, where one block reads them (32 KB per array and a tail of less than a
// vector); element by element between.
TEST(test_record_sources, a_dot_products_second_array_is_shifted_by_size) {
  for (const std::uint64_t n :
       {0ull, 1ull, 1ull << 14, (1ull << 14) + 1, 1ull << 20, (1ull << 23) - 1, 1ull << 23, 1ull << 30})
    for (const bool floating : {false, true}) EXPECT_TRUE(shifted_dot_b<1>(n, floating)) << n;
  for (const std::uint64_t n : {0ull, 1ull, 1ull << 14, (1ull << 14) + 7, 1ull << 23, (1ull << 23) + 1, 1ull << 30})
    EXPECT_TRUE(shifted_dot_b<2>(n, true)) << n;
  for (const std::uint64_t n : {1ull << 23, 1ull << 30}) EXPECT_TRUE(shifted_dot_b<2>(n, false)) << n;
  for (const std::uint64_t n : {0ull, 1ull << 14, (1ull << 14) + 1, 1ull << 20, (1ull << 23) - 1})
    EXPECT_FALSE(shifted_dot_b<2>(n, false)) << n;
  for (const std::uint64_t n : {(1ull << 14) + 8, 1ull << 16, 1ull << 20, (1ull << 23) - 1})
    EXPECT_FALSE(shifted_dot_b<2>(n, true)) << n;
  alignas(16) static const __half h[256]{};
  alignas(16) static const std::int16_t s16[256]{};
  bool shifted = false;
  dot_split<__half, float>(h, h + 1, 1ull << 20, &shifted);
  EXPECT_FALSE(shifted);
  dot_split<__half, float>(h, h + 1, 1ull << 14, &shifted);
  EXPECT_TRUE(shifted);
  dot_split<__half, float>(h, h + 8, 1ull << 20, &shifted);  // b at a's offset
  EXPECT_FALSE(shifted);
  dot_split<std::int16_t, std::int64_t>(s16, s16 + 1, 1ull << 14, &shifted);
  EXPECT_FALSE(shifted);
  dot_split<std::int16_t, std::int64_t>(s16, s16 + 1, 1ull << 23, &shifted);
  EXPECT_TRUE(shifted);
}

// shift_words, the register shift of load_shifted: words of random bytes shifted by every offset
// an element of each alignment may have.
template <unsigned Words, unsigned Align>
void expect_shifts() {
  std::uint32_t w[4 * Words + 4], r[4 * Words];
  unsigned char bytes[sizeof w];
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  for (unsigned char& b : bytes) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<unsigned char>(x >> 56);
  }
  std::memcpy(w, bytes, sizeof w);
  for (unsigned d = Align; d < 16; d += Align) {
    shift_words<Words, Align>(w, d, r);
    EXPECT_EQ(std::memcmp(r, bytes + d, sizeof r), 0) << "words " << Words << " align " << Align << " d " << d;
  }
}

TEST(test_record_sources, shift_words_moves_every_offset_into_place) {
  expect_shifts<1, 1>();
  expect_shifts<1, 2>();
  expect_shifts<1, 4>();
  expect_shifts<1, 8>();
  expect_shifts<3, 1>();
  expect_shifts<2, 4>();
  expect_shifts<4, 8>();
}

TEST(test_record_sources, records_misaligned_for_their_type_are_refused) {
  EXPECT_EQ(Norm2{}(float3{1, 2, 2}), 9.0f);
  auto* out = reinterpret_cast<Pair*>(16);
  EXPECT_EQ(try_reduce(reinterpret_cast<const Pair*>(18), 10, out, PairMax{}, Pair{}).code, Errc::invalid_argument);
  // 4 bytes into an 8-byte word is a Pair's own alignment: no argument error (the call then fails
  // on the host for want of a device, or runs).
  EXPECT_NE(try_reduce(reinterpret_cast<const Pair*>(20), 10, out, PairMax{}, Pair{}).code, Errc::invalid_argument);
}

// Complex numbers sum and multiply in their own type, as NumPy and PyTorch.
static_assert(is_complex_v<cuda::std::complex<float>> && is_complex_v<cuda::std::complex<double>>);
static_assert(!is_complex_v<float2> && !is_complex_v<cuda::std::complex<__half>>);
static_assert(is_complex_v<thrust::complex<float>> && is_complex_v<thrust::complex<double>>);
static_assert(std::is_same_v<accumulator_t<thrust::complex<double>, Sum>, thrust::complex<double>>);
static_assert(std::is_same_v<accumulator_t<cuda::std::complex<float>, Sum>, cuda::std::complex<float>>);
static_assert(std::is_same_v<accumulator_t<cuda::std::complex<double>, Product>, cuda::std::complex<double>>);

// A complex number is a NaN where either part is (numpy.isnan): the policy propagates or skips it.
TEST(test_record_sources, complex_sums_products_and_nan) {
  using C = cuda::std::complex<float>;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(is_nan(C(nan, 0)));
  EXPECT_TRUE(is_nan(C(1, nan)));
  EXPECT_FALSE(is_nan(C(1, 2)));
  EXPECT_EQ(Sum{}.identity<C>(), C(0, 0));
  EXPECT_EQ(Product{}.identity<C>(), C(1, 0));
  EXPECT_EQ(Sum{}(C(1, 2), C(3, -5)), C(4, -3));
  EXPECT_EQ(Product{}(C(1, 2), C(3, -5)), C(13, 1));
  const Sum skip{NanPolicy::ignore};
  EXPECT_EQ(skip(C(1, 2), skip.lift<C>(C(1, nan), 0)), C(1, 2));
  EXPECT_TRUE(is_nan(Sum{}(C(1, 2), Sum{}.lift<C>(C(nan, 1), 0))));
  const Product skip_product{NanPolicy::ignore};
  EXPECT_EQ(skip_product(C(0, 1), skip_product.lift<C>(C(nan, nan), 0)), C(0, 1));
}

}  // namespace
}  // namespace gpureduce
