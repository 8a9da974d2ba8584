// Errors: every public call either throws gpureduce::error or, in its try_ form, returns a Status.
// Messages are string literals (or CUDA's own), so the non-throwing path never allocates.
#pragma once

#include <cuda_runtime_api.h>

#include <new>
#include <stdexcept>
#include <string>
#include <system_error>

namespace gpureduce {

enum class Errc {
  success = 0,
  null_pointer,       // an input or result pointer is null
  not_device_memory,  // a pointer the current device cannot access (host memory, another device's)
  empty_input,        // argmin/argmax of zero elements
  invalid_argument,   // a count or option out of range
  cuda_error,         // a CUDA call failed: see Status::cuda
  nccl_error,         // an NCCL call failed (gpureduce/nccl.cuh): the message is NCCL's
};

struct Status {
  Errc code = Errc::success;
  cudaError_t cuda = cudaSuccess;
  const char* message = "success";

  explicit operator bool() const { return code == Errc::success; }
  static Status ok() { return {}; }
  static Status fail(Errc c, const char* what) { return {c, cudaSuccess, what}; }
  static Status from_cuda(cudaError_t e) {
    return e == cudaSuccess ? Status{} : Status{Errc::cuda_error, e, cudaGetErrorString(e)};
  }
};

class error : public std::runtime_error {
 public:
  explicit error(const Status& s)
      : std::runtime_error(std::string("gpureduce: ") + s.message +
                           (s.code == Errc::cuda_error ? std::string(" (") + cudaGetErrorName(s.cuda) + ")" : "")),
        status_(s) {}
  const Status& status() const noexcept { return status_; }
  Errc code() const noexcept { return status_.code; }

 private:
  Status status_;
};

inline void throw_if_error(const Status& s) {
  if (!s) throw error(s);
}

namespace detail {
// Runs the host part of a call, f() -> Status, with its failures to allocate host memory or to
// lock a mutex returned as a Status: the try_ calls throw nothing.
template <class F>
Status host_guarded(F&& f) noexcept {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return Status::fail(Errc::cuda_error, "host allocation failed");
  } catch (const std::system_error&) {
    return Status::fail(Errc::cuda_error, "host mutex failed");
  }
}
}  // namespace detail

}  // namespace gpureduce
