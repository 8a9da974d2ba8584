// The workspace the grid kernel needs: a ticket counter that is zero between launches, then one
// partial per block. The library keeps one slot per (device, stream): work on one stream runs in
// order, so its reductions never overlap on their slot, and different streams (different host
// threads included) never share one. Slots are allocated on a stream's first reduction, zero-filled
// once, and kept (and reset to zero by each launch's last block) for the life of the process.
//
// Graph capture: a captured reduction keeps the slot it was given at capture (one per capturing
// stream handle). Replays of graphs captured on one stream must not overlap one another; graphs
// replayed concurrently need their own workspace (Options::workspace).
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace gpureduce {

// Bytes of workspace one reduction needs (the caller-provided kind: zero-fill it once before its
// first use; every completed reduction leaves it zero again).
inline constexpr std::size_t workspace_bytes = grid_workspace_bytes;

namespace detail {

// Slots hold a 32-byte result area for the *_sync calls, then the grid workspace.
inline constexpr std::size_t slot_result_bytes = 32;
inline constexpr std::size_t slot_bytes = (slot_result_bytes + workspace_bytes + 255) / 256 * 256;
inline constexpr std::size_t slots_per_chunk = 16;

class WorkspacePool {
 public:
  // Never destroyed: freeing device memory from a static destructor can run after the CUDA
  // runtime has shut down.
  static WorkspacePool& for_device(int device) {
    static std::mutex m;
    static std::unordered_map<int, WorkspacePool*> pools;
    std::lock_guard lock(m);
    auto& p = pools[device];
    if (!p) p = new WorkspacePool();
    return *p;
  }

  // The slot of `stream` on the current device (which owns the pool). Streams are told apart by
  // their unique ID (handles of destroyed streams are reused, and the per-thread default stream has
  // one handle for all threads); a stream being captured refuses that query, so captures are keyed
  // by handle in a map of their own.
  Status slot(cudaStream_t stream, unsigned char** out) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (const cudaError_t e = cudaStreamIsCapturing(stream, &capture); e != cudaSuccess) return Status::from_cuda(e);
    unsigned long long key = reinterpret_cast<std::uintptr_t>(stream);
    if (capture == cudaStreamCaptureStatusNone)
      if (const cudaError_t e = cudaStreamGetId(stream, &key); e != cudaSuccess) return Status::from_cuda(e);
    auto& slots = capture == cudaStreamCaptureStatusNone ? by_id_ : by_captured_handle_;
    std::lock_guard lock(m_);
    if (const auto it = slots.find(key); it != slots.end()) {
      *out = it->second;
      return Status::ok();
    }
    if (free_.empty())
      if (const Status s = grow(); !s) return s;
    *out = free_.back();
    free_.pop_back();
    slots.emplace(key, *out);
    return Status::ok();
  }

 private:
  // Allocating and zeroing must not join a graph the calling thread may be capturing: the zero-fill
  // runs on a private stream (callers hold a RelaxedCaptureScope, which permits the allocation).
  Status grow() {
    unsigned char* chunk = nullptr;
    cudaError_t e = cudaSuccess;
    if (!zero_stream_) e = cudaStreamCreateWithFlags(&zero_stream_, cudaStreamNonBlocking);
    if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&chunk), slot_bytes * slots_per_chunk);
    if (e == cudaSuccess) e = cudaMemsetAsync(chunk, 0, slot_bytes * slots_per_chunk, zero_stream_);
    if (e == cudaSuccess) e = cudaStreamSynchronize(zero_stream_);
    if (e != cudaSuccess) return Status::from_cuda(e);
    for (std::size_t i = slots_per_chunk; i-- > 0;) free_.push_back(chunk + i * slot_bytes);
    return Status::ok();
  }

  std::mutex m_;
  std::unordered_map<unsigned long long, unsigned char*> by_id_, by_captured_handle_;
  std::vector<unsigned char*> free_;
  cudaStream_t zero_stream_ = nullptr;
};

}  // namespace detail
}  // namespace gpureduce
