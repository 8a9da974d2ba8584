#include "matmul_bench.hpp"

#include "cuda_check.hpp"

#include "../common/matmul_reference.hpp"

#include <gpureduce/matmul/registry.hpp>

#include <cublas_v2.h>

#include <random>
#include <string>

namespace gpureduce {

namespace {

// Values in [-8, 7]: they fit int8, and every product and sum (|sum| <= 64 N <= 2^18 for N <= 4096)
// is exact in float and double, so cuBLAS's SGEMM, DGEMM and int8 GEMM compute the same product.
std::vector<std::int32_t> random_matrix(unsigned n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> m(std::size_t(n) * n);
  for (auto& x : m) x = std::int32_t(rng() % 16) - 8;
  return m;
}

template <class To>
__global__ void convert_kernel(const std::int32_t* in, To* out, std::uint64_t count) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    out[i] = To(in[i]);
}

template <class From>
__global__ void back_kernel(const From* in, std::int32_t* out, std::uint64_t count) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    out[i] = std::int32_t(in[i]);
}

std::vector<std::int32_t> to_host(const std::int32_t* d, std::uint64_t count) {
  std::vector<std::int32_t> h(count);
  GPUREDUCE_CUDA(cudaMemcpy(h.data(), d, count * sizeof(std::int32_t), cudaMemcpyDeviceToHost));
  return h;
}

double gops(unsigned n, const TimingStats& t) {
  return t.median_ms > 0 ? 2.0 * n * n * double(n) / (t.median_ms * 1e6) : 0;
}

// cuBLAS on the same values: row-major C = A B is column-major C^T = B^T A^T, so B goes first.
struct Cublas {
  cublasHandle_t h{};
  explicit Cublas(cudaStream_t s) {
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
    cublasSetStream(h, s);
  }
  ~Cublas() { cublasDestroy(h); }
};

void run_cublas(GpuTimer& timer, const MatmulRun& run, unsigned n, const std::int32_t* d_a,
                const std::vector<std::int32_t>& want, std::vector<MatmulRow>& rows) {
  Cublas cb(timer.stream());
  const std::uint64_t count = std::uint64_t(n) * n;
  DeviceBuffer<std::int32_t> back(count);
  auto check = [&](auto* d_c) {
    back_kernel<<<1024, 256>>>(d_c, back.get(), count);
    GPUREDUCE_CUDA(cudaDeviceSynchronize());
    return to_host(back.get(), count) == want;
  };
  auto row = [&](const char* variant, const char* note, const TimingStats& t, bool ok) {
    rows.push_back({variant, "reference", n, t, gops(n, t), ok, note});
  };
  // The floating-point GEMMs on the values converted to T (exact on these values).
  auto fp_gemm = [&](auto tag, auto gemm, const char* variant, const char* note) {
    using T = decltype(tag);
    DeviceBuffer<T> a(count), c(count);
    convert_kernel<<<1024, 256>>>(d_a, a.get(), count);
    const T one = 1, zero = 0;
    auto go = [&](cudaStream_t) {
      if (gemm(cb.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.get(), n, a.get(), n, &zero, c.get(), n) !=
          CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(variant) + " failed");
    };
    go(timer.stream());
    GPUREDUCE_CUDA(cudaStreamSynchronize(timer.stream()));
    const bool ok = check(c.get());
    row(variant, note, timer.measure(go, run.reps), ok);
  };
  fp_gemm(float{}, cublasSgemm, "cublas-sgemm", "float32: exact, every sum below 2^24");
  fp_gemm(double{}, cublasDgemm, "cublas-dgemm", "float64: exact, every sum below 2^53");
  {
    DeviceBuffer<std::int8_t> a(count);
    DeviceBuffer<std::int32_t> c(count);
    convert_kernel<<<1024, 256>>>(d_a, a.get(), count);
    const std::int32_t one = 1, zero = 0;
    auto gemm = [&] {
      return cublasGemmEx(cb.h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.get(), CUDA_R_8I, n, a.get(), CUDA_R_8I, n,
                          &zero, c.get(), CUDA_R_32I, n, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    };
    if (gemm() != CUBLAS_STATUS_SUCCESS) {
      row("cublas-int8", "int8 GemmEx returned an error for this N", {}, false);
      return;
    }
    GPUREDUCE_CUDA(cudaStreamSynchronize(timer.stream()));
    const bool ok = check(c.get());
    row("cublas-int8", "int8 in, int32 accumulate: values fit int8",
        timer.measure([&](cudaStream_t) { gemm(); }, run.reps), ok);
  }
}

}  // namespace

std::vector<MatmulRow> run_matmul(GpuTimer& timer, const MatmulRun& run) {
  std::vector<MatmulRow> rows;
  for (const unsigned n : run.sizes) {
    const std::uint64_t count = std::uint64_t(n) * n;
    const auto a = random_matrix(n, run.seed + n);
    DeviceBuffer<std::int32_t> d_a(std::max<std::uint64_t>(count, 1)), d_c(std::max<std::uint64_t>(count, 1));
    if (count) GPUREDUCE_CUDA(cudaMemcpy(d_a.get(), a.data(), count * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    GPUREDUCE_CUDA(cudaDeviceSynchronize());  // landed before the timer's (non-blocking) stream reads it
    std::vector<std::int32_t> last_product;
    for (const matmul::Rung& r : matmul::rungs()) {
      if (run.rung != "all" && run.rung != r.name) continue;
      if (r.one_block && n > max_one_block_n) {
        rows.push_back({r.name, r.adds, n, {}, 0, false, "one block: run up to N = 1024 only"});
        continue;
      }
      GPUREDUCE_CUDA(
          cudaMemsetAsync(d_c.get(), 0xA5, std::max<std::uint64_t>(count, 1) * sizeof(std::int32_t), timer.stream()));
      auto go = [&](cudaStream_t s) { GPUREDUCE_CUDA(r.launch(d_a.get(), d_a.get(), d_c.get(), n, s)); };
      go(timer.stream());
      GPUREDUCE_CUDA(cudaStreamSynchronize(timer.stream()));
      last_product = to_host(d_c.get(), count);
      const bool ok = matmul::verify_product(a, a, last_product, n, run.seed);
      const TimingStats t = timer.measure(go, run.reps, 1);
      rows.push_back({r.name, r.adds, n, t, gops(n, t), ok, ""});
    }
    if (n > 0 && !last_product.empty() && rows.back().verified)
      run_cublas(timer, run, n, d_a.get(), last_product, rows);
  }
  return rows;
}

}  // namespace gpureduce
