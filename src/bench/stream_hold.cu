#include "stream_hold.hpp"

#include "cuda_check.hpp"

namespace gpureduce {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void wait_for_release(const volatile int* released, int* timed_out, std::uint64_t timeout_ns) {
  const std::uint64_t start = global_ns();
  while (!*released)
    if (global_ns() - start > timeout_ns) {
      *timed_out = 1;
      return;
    }
}

__global__ void stamp_sm0(std::uint64_t* out) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  if (sm == 0) {
    out[0] = global_ns();
    out[1] = clock64();
  }
}

template <class T>
T* mapped(std::size_t count, T** device) {
  void* p = nullptr;
  GPUREDUCE_CUDA(cudaHostAlloc(&p, count * sizeof(T), cudaHostAllocMapped));
  GPUREDUCE_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void**>(device), p, 0));
  return static_cast<T*>(p);
}

}  // namespace

StreamHold::StreamHold(std::uint64_t timeout_ns) : timeout_ns_(timeout_ns) {
  flags_ = mapped<int>(2, &device_flags_);
}

StreamHold::~StreamHold() { cudaFreeHost(const_cast<int*>(flags_)); }

void StreamHold::hold(cudaStream_t s) {
  flags_[0] = 0;
  flags_[1] = 0;
  wait_for_release<<<1, 1, 0, s>>>(device_flags_, device_flags_ + 1, timeout_ns_);
  GPUREDUCE_CUDA(cudaGetLastError());
}

void StreamHold::release() { flags_[0] = 1; }

bool StreamHold::timed_out() const { return flags_[1] != 0; }

SmClock::SmClock() {
  int device = 0, khz = 0;
  GPUREDUCE_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  GPUREDUCE_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  max_mhz_ = khz / 1e3;
  stamps_ = mapped<std::uint64_t>(4, &device_stamps_);
}

SmClock::~SmClock() { cudaFreeHost(const_cast<std::uint64_t*>(stamps_)); }

void SmClock::start(cudaStream_t s) {
  for (int i = 0; i < 4; ++i) stamps_[i] = 0;
  stamp_sm0<<<sms_, 1, 0, s>>>(device_stamps_);
  GPUREDUCE_CUDA(cudaGetLastError());
}

void SmClock::stop(cudaStream_t s) {
  stamp_sm0<<<sms_, 1, 0, s>>>(device_stamps_ + 2);
  GPUREDUCE_CUDA(cudaGetLastError());
}

double SmClock::mhz() const {
  if (!stamps_[0] || !stamps_[2] || stamps_[2] <= stamps_[0]) return 0;
  return double(stamps_[3] - stamps_[1]) / double(stamps_[2] - stamps_[0]) * 1e3;
}

}  // namespace gpureduce
