// The public API's argument checks that come before any CUDA call, so they run without a GPU.
#include <gpureduce/gpureduce.cuh>

#include <gtest/gtest.h>

#include <string>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

// Which overload a call takes. An operator with an identity of its own takes no second one, so a
// 0 after it is the null stream (reduce(in, n, out, Max{}, 0), as CUB's calls take a 0 stream)
// rather than a max whose identity is 0; a caller's functor takes its identity there.
template <class Op, class Init>
concept takes_an_identity = requires(const int* in, int* out, Op op, Init init) {
  try_reduce(in, 1, out, op, init);
  reduce_sync(in, 1, op, init);
};
struct Larger {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
static_assert(!takes_an_identity<Max, int> && !takes_an_identity<Sum, long>);
static_assert(takes_an_identity<Larger, int>);

// The same for transform_reduce.
struct Negate {
  __host__ __device__ int operator()(int x) const { return -x; }
};
template <class Op, class Init>
concept transform_takes_an_identity = requires(const int* in, int* out, Op op, Init init) {
  try_transform_reduce(in, 1, out, Negate{}, op, init);
  transform_reduce_sync(in, 1, Negate{}, op, init);
};
static_assert(!transform_takes_an_identity<Max, int> && !transform_takes_an_identity<Sum, long>);
static_assert(transform_takes_an_identity<Larger, int>);

TEST(test_api_errors, null_result_pointer) {
  const float* in = reinterpret_cast<const float*>(16);
  const Status s = try_reduce(in, 10, static_cast<float*>(nullptr), Sum{});
  EXPECT_EQ(s.code, Errc::null_pointer);
  EXPECT_EQ(std::string(s.message), "result pointer is null");
}

TEST(test_api_errors, null_input_with_elements) {
  float* out = reinterpret_cast<float*>(16);
  EXPECT_EQ(try_reduce(static_cast<const float*>(nullptr), 1, out, Max{}).code, Errc::null_pointer);
  EXPECT_EQ(try_dot(static_cast<const float*>(nullptr), static_cast<const float*>(nullptr), 5, out).code,
            Errc::null_pointer);
}

TEST(test_api_errors, argmin_argmax_of_empty_input) {
  const int* in = reinterpret_cast<const int*>(16);
  auto* out = reinterpret_cast<IndexedValue<int>*>(16);
  EXPECT_EQ(try_reduce(in, 0, out, ArgMin{}).code, Errc::empty_input);
  EXPECT_EQ(try_reduce(in, 0, out, ArgMax{}).code, Errc::empty_input);
  try {
    argmax(in, 0, out);
    FAIL() << "no exception";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), Errc::empty_input);
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos);
  }
}

TEST(test_api_errors, count_beyond_int64) {
  const int* in = reinterpret_cast<const int*>(16);
  long long* out = reinterpret_cast<long long*>(16);
  EXPECT_EQ(try_reduce(in, ~0ull, out, Sum{}).code, Errc::invalid_argument);
  const int negative = -1;  // converted to 2^64 - 1
  const Status s = try_reduce(in, std::uint64_t(negative), out, Sum{});
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_EQ(std::string(s.message), "count exceeds 2^63 - 1 (a negative count?)");
}

// A pointer misaligned for its type would fault with a misaligned address, which ends the context.
TEST(test_api_errors, pointers_misaligned_for_their_types) {
  const auto* in = reinterpret_cast<const int*>(18);
  auto* out = reinterpret_cast<long long*>(16);
  Status s = try_reduce(in, 10, out, Sum{});
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_EQ(std::string(s.message), "input pointer is not aligned to its element type");
  EXPECT_EQ(try_dot(reinterpret_cast<const float*>(16), reinterpret_cast<const float*>(21), 5,
                    reinterpret_cast<double*>(16)).code,
            Errc::invalid_argument);
  EXPECT_EQ(try_reduce(reinterpret_cast<const __half*>(17), 3, reinterpret_cast<float*>(16), Sum{}).code,
            Errc::invalid_argument);
  s = try_reduce(reinterpret_cast<const int*>(16), 10, reinterpret_cast<long long*>(20), Sum{});
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_EQ(std::string(s.message), "result pointer is not aligned to its type");
  EXPECT_EQ(try_reduce(reinterpret_cast<const double*>(16), 10, reinterpret_cast<IndexedValue<double>*>(20), ArgMax{})
                .code,
            Errc::invalid_argument);
  Options opt;
  opt.workspace = reinterpret_cast<void*>(24);
  opt.workspace_size = workspace_bytes;
  s = try_reduce(reinterpret_cast<const int*>(16), 10, out, Sum{}, nullptr, opt);
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_NE(std::string(s.message).find("16-byte aligned"), std::string::npos) << s.message;
  // Bytes have no alignment to miss, and an empty input is never read.
  EXPECT_NE(try_reduce(reinterpret_cast<const std::int8_t*>(17), 10, out, Sum{}).code, Errc::invalid_argument);
  EXPECT_NE(try_reduce(in, 0, out, Sum{}).code, Errc::invalid_argument);
}

// A caller's workspace over the input or the result: the grid would write its partials into
// elements still to be read, or into the result it ends in. Refused before any CUDA call.
TEST(test_api_errors, workspace_over_the_input_or_the_result) {
  constexpr std::uintptr_t in_at = 0x1000000, b_at = 0x2000000, out_at = 0x4000000, wb = workspace_bytes;
  const auto* in = reinterpret_cast<const float*>(in_at);  // 1000 of them: 4000 bytes
  auto* out = reinterpret_cast<float*>(out_at);
  Options opt;
  opt.workspace_size = workspace_bytes;
  const auto message = [&](std::uintptr_t ws, std::uint64_t n = 1000) {
    opt.workspace = reinterpret_cast<void*>(ws);
    return std::string(try_reduce(in, n, out, Sum{}, nullptr, opt).message);
  };
  EXPECT_EQ(message(in_at), "workspace overlaps the input");
  EXPECT_EQ(message(in_at + 3984), "workspace overlaps the input");    // over the last elements
  EXPECT_EQ(message(in_at - wb + 16), "workspace overlaps the input");  // its last bytes over the first
  EXPECT_EQ(message(out_at), "workspace overlaps the result");
  EXPECT_EQ(message(out_at - wb + 16), "workspace overlaps the result");
  EXPECT_EQ(try_reduce(in, 1000, out, Sum{}, nullptr, opt).code, Errc::invalid_argument);
  // Just clear of both, or an empty input, which nothing reads: on to the checks that ask CUDA.
  for (const std::uintptr_t ws : {in_at + 4000, in_at - wb, out_at + 16, out_at - wb})
    EXPECT_EQ(message(ws).find("overlaps"), std::string::npos) << std::hex << ws;
  EXPECT_EQ(message(in_at, 0).find("overlaps"), std::string::npos);
  // Either array of a dot product.
  opt.workspace = reinterpret_cast<void*>(b_at);
  const Status s = try_dot(in, reinterpret_cast<const float*>(b_at + 64), 1000, out, nullptr, opt);
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_EQ(std::string(s.message), "workspace overlaps the input");
}

}  // namespace
}  // namespace gpureduce
