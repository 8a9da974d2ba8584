#include "variants.hpp"

#include <gpureduce/gpureduce.cuh>
#include <gpureduce/ladder/registry.hpp>

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

constexpr std::size_t slice_alignment = 256;

constexpr std::size_t aligned(std::size_t bytes) {
  return (bytes + slice_alignment - 1) / slice_alignment * slice_alignment;
}

cublasHandle_t handle(const VariantResources& res) { return static_cast<cublasHandle_t>(res.cublas()); }

cudaError_t cublas_status(cublasStatus_t s) { return s == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown; }

template <class T>
cudaError_t cublas_asum(cublasHandle_t h, const T* in, std::uint64_t n, T* out, cudaStream_t s) {
  if (const cublasStatus_t st = cublasSetStream(h, s); st != CUBLAS_STATUS_SUCCESS) return cublas_status(st);
  if constexpr (std::is_same_v<T, float>) return cublas_status(cublasSasum_64(h, std::int64_t(n), in, 1, out));
  else return cublas_status(cublasDasum_64(h, std::int64_t(n), in, 1, out));
}

}  // namespace

VariantResources::VariantResources(const DeviceInfo& device) : device_(device) {
  cublasHandle_t h = nullptr;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE);  // results stay on the device, no sync
  cublas_ = h;
}

VariantResources::~VariantResources() { cublasDestroy(handle(*this)); }

void* VariantResources::scratch(std::size_t bytes) {
  if (bytes > scratch_.size()) {
    scratch_ = DeviceBuffer<unsigned char>();
    scratch_ = DeviceBuffer<unsigned char>(bytes);
  }
  // Zero every time: the slices move with n and block, so r9's counter may land on bytes another
  // rung used as a partial-sum buffer.
  if (bytes) GPUREDUCE_CUDA(cudaMemset(scratch_.get(), 0, bytes));
  GPUREDUCE_CUDA(cudaDeviceSynchronize());
  return scratch_.get();
}

template <class T>
std::vector<Variant<T>> make_variants(VariantResources& res, unsigned block, std::uint64_t n) {
  const ladder::DeviceShape shape = res.device().shape();
  const auto rungs = ladder::rungs();

  // Slices: one per rung, then CUB's temporary storage.
  std::vector<std::size_t> offsets;
  std::size_t total = 0;
  for (const ladder::Rung& r : rungs) {
    offsets.push_back(total);
    total += aligned(r.workspace_bytes(n, sizeof(T), block, shape));
  }
  std::size_t cub_bytes = 0;
  GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, cub_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                        static_cast<std::int64_t>(n)));
  const std::size_t cub_offset = total;
  total += aligned(cub_bytes);
  auto* base = static_cast<unsigned char*>(res.scratch(total));

  std::vector<Variant<T>> v;
  for (std::size_t i = 0; i < rungs.size(); ++i) {
    const ladder::Rung& r = rungs[i];
    const ladder::LaunchContext ctx{block, shape, base + offsets[i], nullptr};
    v.push_back({r.name, r.adds, false, false,
                 [launch = r.launcher<T>(), ctx](const T* in, std::uint64_t m, T* out, T*, cudaStream_t s) {
                   ladder::LaunchContext c = ctx;
                   c.stream = s;
                   return launch(in, m, out, c);
                 }});
  }
  // The production path through its public API (accumulating in T, as the rungs do).
  v.push_back({"gpureduce", "production: gpureduce::sum", false, false,
               [](const T* in, std::uint64_t m, T* out, T*, cudaStream_t s) {
                 const Status st = try_reduce<T>(in, m, out, Sum{}, s);
                 return st ? cudaSuccess : (st.cuda != cudaSuccess ? st.cuda : cudaErrorInvalidValue);
               }});
  void* cub_temp = base + cub_offset;
  v.push_back({"cub", "cub::DeviceReduce::Sum", false, false,
               [cub_temp, cub_bytes](const T* in, std::uint64_t m, T* out, T*, cudaStream_t s) {
                 std::size_t bytes = cub_bytes;
                 return cub::DeviceReduce::Sum(cub_temp, bytes, in, out, static_cast<std::int64_t>(m), s);
               }});
  v.push_back({"thrust", "thrust::reduce (value to host)", false, true,
               [](const T* in, std::uint64_t m, T*, T* out_host, cudaStream_t s) {
                 *out_host = thrust::reduce(thrust::cuda::par.on(s), in, in + m, T(0));
                 return cudaGetLastError();
               }});
  if constexpr (!std::is_integral_v<T>) {
    cublasHandle_t h = handle(res);
    v.push_back(
        {"cublas_asum", "cuBLAS asum = sum|x| (= sum if x >= 0)", true, false,
         [h](const T* in, std::uint64_t m, T* out, T*, cudaStream_t s) { return cublas_asum(h, in, m, out, s); }});
  }
  return v;
}

template std::vector<Variant<std::int32_t>> make_variants(VariantResources&, unsigned, std::uint64_t);
template std::vector<Variant<float>> make_variants(VariantResources&, unsigned, std::uint64_t);
template std::vector<Variant<double>> make_variants(VariantResources&, unsigned, std::uint64_t);

}  // namespace gpureduce
