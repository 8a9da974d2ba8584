// Every matrix-multiplication rung against the host checks (full product up to N = 512,
// Freivalds beyond), on full-range int32 values (products and sums wrap) and on A = B, at sizes
// with and without tails; the many-block rungs at N = 4096 too.
#include "../../src/common/matmul_reference.hpp"
#include "reduce_checks.cuh"

#include <gpureduce/matmul/registry.hpp>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

std::vector<std::int32_t> random_matrix(unsigned n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> m(std::size_t(n) * n);
  for (auto& x : m) x = std::int32_t(std::uint32_t(rng()));
  return m;
}

std::vector<std::int32_t> run_rung(const matmul::Rung& r, const std::vector<std::int32_t>& a,
                                   const std::vector<std::int32_t>& b, unsigned n) {
  DeviceInput<std::int32_t> da(a, 0), db(b, 0);
  const std::size_t count = std::size_t(n) * n;
  std::int32_t* dc = nullptr;
  EXPECT_EQ(cudaMalloc(&dc, count * sizeof(std::int32_t)), cudaSuccess);
  EXPECT_EQ(cudaMemset(dc, 0xA5, count * sizeof(std::int32_t)), cudaSuccess);  // poison
  EXPECT_EQ(r.launch(da.get(), db.get(), dc, n, nullptr), cudaSuccess) << r.name;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess) << r.name;
  std::vector<std::int32_t> c(count);
  EXPECT_EQ(cudaMemcpy(c.data(), dc, count * sizeof(std::int32_t), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dc);
  return c;
}

TEST(MatmulGpu, every_rung_every_size) {
  GPUREDUCE_REQUIRE_GPU();
  for (const matmul::Rung& r : matmul::rungs())
    for (unsigned n : {1u, 7u, 8u, 31u, 64u, 100u, 257u, 1024u}) {
      const auto a = random_matrix(n, test_seed() + n), b = random_matrix(n, test_seed() + n + 1);
      EXPECT_TRUE(matmul::verify_product(a, b, run_rung(r, a, b, n), n, test_seed()))
          << r.name << " N=" << n;
      EXPECT_TRUE(matmul::verify_product(a, a, run_rung(r, a, a, n), n, test_seed()))
          << r.name << " A = B, N=" << n;
    }
}

TEST(MatmulGpu, many_block_rungs_at_4096) {
  GPUREDUCE_REQUIRE_GPU();
  const unsigned n = 4096;
  const auto a = random_matrix(n, test_seed());
  for (const matmul::Rung& r : matmul::rungs()) {
    if (r.one_block) continue;
    EXPECT_TRUE(matmul::verify_product(a, a, run_rung(r, a, a, n), n, test_seed())) << r.name;
  }
}

// Small sizes for compute-sanitizer (tools/sanitize.sh): tails in both dimensions, several tiles.
TEST(MatmulGpu, sanitizer_sizes) {
  GPUREDUCE_REQUIRE_GPU();
  for (const matmul::Rung& r : matmul::rungs())
    for (unsigned n : {7u, 33u, 100u}) {
      const auto a = random_matrix(n, test_seed() + n);
      EXPECT_TRUE(matmul::verify_product(a, a, run_rung(r, a, a, n), n, test_seed())) << r.name << " N=" << n;
    }
}

TEST(MatmulGpu, registry_names_and_order) {
  const auto rs = matmul::rungs();
  ASSERT_EQ(rs.size(), 6u);
  for (std::size_t i = 0; i < rs.size(); ++i) EXPECT_EQ(std::string(rs[i].name), "m" + std::to_string(i));
  EXPECT_TRUE(rs[0].one_block && rs[1].one_block && !rs[2].one_block);
  EXPECT_EQ(matmul::find_rung("m3"), &rs[3]);
  EXPECT_EQ(matmul::find_rung("m9"), nullptr);
}

}  // namespace
}  // namespace gpureduce::test
