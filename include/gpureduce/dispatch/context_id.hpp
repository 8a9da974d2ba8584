// The unique ID of the calling thread's current CUDA context, which owns whatever memory the
// library keeps (the workspace pool). cudaDeviceReset destroys a device's primary context with
// every allocation in it, and the next runtime call creates a new one: on an H100 (driver 580) with
// the same handle and a new ID. A pool kept per device outlived the reset, and the next grid-sized
// reduction wrote its partials into freed memory (an illegal address; after a reallocation it would
// have been the caller's data). Keyed by this ID, a new context gets a new pool.
#pragma once

#include <gpureduce/dispatch/driver_entry.hpp>
#include <gpureduce/error.hpp>

#include <cuda.h>  // types only
#include <cuda_runtime_api.h>

namespace gpureduce::detail {

struct ContextEntryPoints {
  CUresult (*get_current)(CUcontext*) = nullptr;
  CUresult (*get_id)(CUcontext, unsigned long long*) = nullptr;  // drivers of CUDA 12.0 and later
};

inline const ContextEntryPoints& context_entry_points() {
  static const ContextEntryPoints entries = [] {
    ContextEntryPoints e;
    find_driver_entry_point("cuCtxGetCurrent", &e.get_current);
    find_driver_entry_point("cuCtxGetId", &e.get_id);
    return e;
  }();
  return entries;
}

// The current context's ID. A thread with none current (its first call, or the first after a
// reset) gets the runtime's primary context, as any runtime call that needs one would make current.
inline Status current_context_id(unsigned long long* id) {
  const ContextEntryPoints& e = context_entry_points();
  if (!e.get_current || !e.get_id)
    return Status::fail(Errc::cuda_error, "the CUDA driver has no cuCtxGetCurrent or cuCtxGetId (CUDA 12.0 or later)");
  CUcontext ctx = nullptr;
  if (e.get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr) {
    if (const cudaError_t r = cudaFree(nullptr); r != cudaSuccess) return Status::from_cuda(r);
    if (e.get_current(&ctx) != CUDA_SUCCESS || ctx == nullptr)
      return Status::fail(Errc::cuda_error, "no current CUDA context");
  }
  if (e.get_id(ctx, id) != CUDA_SUCCESS) return Status::fail(Errc::cuda_error, "cuCtxGetId failed");
  return Status::ok();
}

}  // namespace gpureduce::detail
