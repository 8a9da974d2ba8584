// The workspace the grid kernel needs (layout: launch_plan.hpp): a ticket counter that is zero
// between launches, one partial per block, and the atomic end's generation words. The library
// keeps one slot per (context, stream), the context being the stream's device's: work on one
// stream runs in order, so its reductions never overlap on their slot, and different streams
// (different host threads included) never share one. Slots are allocated in chunks, zero-filled
// once, and left ready by every launch (zero but for the two generation words, which it leaves
// equal), so a slot given back is ready for its next stream.
//
// Streams: a stream keeps its slot until release_workspace(stream), which waits for the stream and
// frees the slot for another stream; without it a program that creates and destroys streams holds
// one slot (128 KB) per stream it ever reduced on. A thread's per-thread default stream ends with
// the thread, so its slot goes back by itself once the stream's work has finished.
// trim_workspace() frees the chunks whose slots are all free.
// Graph capture: each capture gets its own slot per capturing stream, held by the graph (a CUDA
// user object) and given back when the graph and every executable graph instantiated from it are
// destroyed and their launches have finished. Graphs from different captures may therefore be
// replayed concurrently; two executable graphs instantiated from one graph share its slot and must
// not run at the same time (give one of them its own workspace: Options::workspace).
#pragma once

#include <gpureduce/dispatch/context_id.hpp>
#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/dispatch/slot_table.hpp>
#include <gpureduce/dispatch/stream_device.hpp>
#include <gpureduce/error.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace gpureduce {

// Bytes of workspace one reduction needs (the caller-provided kind: zero-fill it once before its
// first use; every completed reduction leaves it ready again, and zero-filling it between
// reductions is allowed too).
inline constexpr std::size_t workspace_bytes = detail::grid_workspace_bytes;
// Its alignment: blocks publish 16-byte partials (grid/flagged_partial.hpp).
inline constexpr std::size_t workspace_alignment = 16;

namespace detail {

// Slots hold a 32-byte result area for the *_sync calls, then the grid workspace.
inline constexpr std::size_t slot_result_bytes = 32;
inline constexpr std::size_t slot_bytes = (slot_result_bytes + workspace_bytes + 255) / 256 * 256;
inline constexpr std::size_t slots_per_chunk = 16;

class WorkspacePool {
 public:
  // The pool of the current context (context_id.hpp), the stream's device's (StreamDeviceScope):
  // after cudaDeviceReset a new context gets a new pool. Never destroyed: freeing device memory
  // from a static destructor can run after the CUDA runtime has shut down, and the pool of a reset
  // context holds nothing to free (its memory went with the context).
  static Status current(WorkspacePool** out) {
    unsigned long long context = 0;
    if (const Status s = current_context_id(&context); !s) return s;
    static std::mutex m;
    static std::unordered_map<unsigned long long, WorkspacePool*> pools;
    std::lock_guard lock(m);
    auto& p = pools[context];
    if (!p) p = new WorkspacePool();
    *out = p;
    return Status::ok();
  }

  // The slot of `stream`, whose device owns the pool and is current (StreamDeviceScope). Streams
  // are told apart by their unique ID (handles of destroyed streams are reused, and the per-thread
  // default stream has one handle for all threads); a capturing stream refuses that query and is
  // keyed by its capture.
  Status slot(cudaStream_t stream, unsigned char** out) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    unsigned long long capture_id = 0;
    cudaGraph_t graph = nullptr;
    if (const cudaError_t e = cudaStreamGetCaptureInfo(stream, &capture, &capture_id, &graph); e != cudaSuccess)
      return Status::from_cuda(e);
    if (capture == cudaStreamCaptureStatusInvalidated) return Status::from_cuda(cudaErrorStreamCaptureInvalidated);
    SlotKey key{capture == cudaStreamCaptureStatusActive, capture_id, reinterpret_cast<std::uintptr_t>(stream)};
    if (!key.captured) {
      unsigned long long id = 0;
      if (const cudaError_t e = cudaStreamGetId(stream, &id); e != cudaSuccess) return Status::from_cuda(e);
      key = SlotKey{false, id, 0};
    }
    std::lock_guard lock(m_);
    take_returned();
    if ((*out = table_.find(key))) return Status::ok();
    if (!table_.has_free())
      if (const Status s = grow(); !s) return s;
    *out = table_.assign(key);
    if (key.captured) {
      if (const Status s = hand_to_graph(graph, key); !s) {
        table_.release(key);
        return s;
      }
    } else if (is_per_thread_default_stream(stream)) {
      ThreadExit::give_back_at_exit(this, key.id);
    }
    return Status::ok();
  }

  // The lock of a slot's result area. Threads that share a stream (the null stream, most often)
  // share its slot, and a _sync call fills the area and copies it back in two steps, between which
  // another thread's call on the stream would overwrite it: _sync calls on one stream take turns.
  std::mutex& result_lock(unsigned char* slot) {
    std::lock_guard lock(m_);
    auto& l = result_locks_[slot];
    if (!l) l = std::make_unique<std::mutex>();
    return *l;
  }

  // Waits for `stream`, then frees its slot for other streams (nothing to do if it holds none).
  // The caller has checked that `stream` is not being captured.
  Status release(cudaStream_t stream) {
    unsigned long long id = 0;
    if (const cudaError_t e = cudaStreamGetId(stream, &id); e != cudaSuccess) return Status::from_cuda(e);
    {
      std::lock_guard lock(m_);
      if (!table_.find(SlotKey{false, id, 0})) return Status::ok();
    }
    // The slot is clean once the stream's last reduction has finished.
    if (const cudaError_t e = cudaStreamSynchronize(stream); e != cudaSuccess) return Status::from_cuda(e);
    std::lock_guard lock(m_);
    table_.release(SlotKey{false, id, 0});
    return Status::ok();
  }

  // The stream-ordered pool the axis reductions take their sliced partials from (capturable: a
  // captured allocation becomes the graph's). It keeps the memory it has mapped: the device's
  // default pool releases its memory at every synchronisation, and each call after one would map
  // it anew. trim() gives it back. Made on first use, on the current (the stream's) device.
  Status partials_pool(cudaMemPool_t* out) {
    std::lock_guard lock(m_);
    if (!partials_) {
      int device = 0;
      if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return Status::from_cuda(e);
      cudaMemPoolProps props{};
      props.allocType = cudaMemAllocationTypePinned;
      props.location.type = cudaMemLocationTypeDevice;
      props.location.id = device;
      cudaMemPool_t pool = nullptr;
      if (const cudaError_t e = cudaMemPoolCreate(&pool, &props); e != cudaSuccess) return Status::from_cuda(e);
      std::uint64_t keep_all = UINT64_MAX;
      if (const cudaError_t e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all);
          e != cudaSuccess) {
        cudaMemPoolDestroy(pool);
        return Status::from_cuda(e);
      }
      partials_ = pool;
    }
    *out = partials_;
    return Status::ok();
  }

  // Frees every chunk no stream or graph holds a slot of, and the partials pool's unused memory
  // (trim_workspace).
  Status trim() {
    std::lock_guard lock(m_);
    take_returned();
    cudaError_t first = partials_ ? cudaMemPoolTrimTo(partials_, 0) : cudaSuccess;
    for (unsigned char* chunk : table_.take_free_chunks())
      if (const cudaError_t e = cudaFree(chunk); e != cudaSuccess && first == cudaSuccess) first = e;
    return Status::from_cuda(first);
  }

  struct Counts {
    std::size_t slots, free;
  };
  // Slots allocated and free (graphs destroyed since the last call counted as free): for tests.
  Counts counts() {
    std::lock_guard lock(m_);
    take_returned();
    return {table_.slots(), table_.free_slots()};
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
    table_.add_chunk(chunk, slots_per_chunk, slot_bytes);
    return Status::ok();
  }

  // The graph being captured owns the slot: CUDA calls key_returned once the graph and its
  // executable graphs are destroyed and no launch of them is pending.
  Status hand_to_graph(cudaGraph_t graph, const SlotKey& key) {
    auto* node = new ReturnedKeys::Node{key, this};
    cudaUserObject_t object = nullptr;
    cudaError_t e = cudaUserObjectCreate(&object, node, &key_returned, 1, cudaUserObjectNoDestructorSync);
    if (e != cudaSuccess) {
      delete node;
      return Status::from_cuda(e);
    }
    e = cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove);
    if (e != cudaSuccess) {
      node->owner = nullptr;  // the caller frees the slot; key_returned only deletes the node
      cudaUserObjectRelease(object, 1);
    }
    return Status::from_cuda(e);
  }

  // cudaStreamPerThread, and the null stream in code built with --default-stream per-thread.
  static bool is_per_thread_default_stream(cudaStream_t stream) {
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    if (stream == nullptr) return true;
#endif
    return stream == cudaStreamPerThread;
  }

  // A thread's per-thread default stream ends with the thread, and no later stream has its ID. At
  // the thread's exit its slots are handed back by a host function enqueued on the stream, so that
  // they return once the stream's reductions have finished, without the thread waiting for them.
  class ThreadExit {
   public:
    static void give_back_at_exit(WorkspacePool* pool, unsigned long long stream_id) {
      int device = 0;
      if (cudaGetDevice(&device) != cudaSuccess) return;
      static thread_local ThreadExit exit;
      exit.held_.push_back({pool, device, stream_id});
    }

    ~ThreadExit() {
      int current = 0;
      if (cudaGetDevice(&current) != cudaSuccess) return;  // the runtime has shut down
      for (const Held& h : held_) {
        unsigned long long id = 0;
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        // Capture first: a capturing stream refuses the ID query. A stream of another ID is a new
        // context's (a reset ended the pool's): nothing to return.
        if (cudaSetDevice(h.device) != cudaSuccess ||
            cudaStreamIsCapturing(cudaStreamPerThread, &capture) != cudaSuccess ||
            capture != cudaStreamCaptureStatusNone || cudaStreamGetId(cudaStreamPerThread, &id) != cudaSuccess ||
            id != h.stream_id)
          continue;
        auto* node = new (std::nothrow) ReturnedKeys::Node{SlotKey{false, id, 0}, h.pool};
        if (node && cudaLaunchHostFunc(cudaStreamPerThread, &key_returned, node) != cudaSuccess) delete node;
      }
      cudaSetDevice(current);
    }

   private:
    struct Held {
      WorkspacePool* pool;
      int device;
      unsigned long long stream_id;
    };
    std::vector<Held> held_;
  };

  static void CUDART_CB key_returned(void* p) {
    auto* node = static_cast<ReturnedKeys::Node*>(p);
    if (node->owner)
      static_cast<WorkspacePool*>(node->owner)->returned_.push(node);
    else
      delete node;
  }

  void take_returned() {
    returned_.drain([this](const SlotKey& k) { table_.release(k); });
  }

  std::mutex m_;
  SlotTable table_;
  std::unordered_map<unsigned char*, std::unique_ptr<std::mutex>> result_locks_;
  ReturnedKeys returned_;
  cudaStream_t zero_stream_ = nullptr;
  cudaMemPool_t partials_ = nullptr;
};

// The slot of `stream` in the current context's pool: the stream's device is current
// (StreamDeviceScope).
inline Status workspace_slot(cudaStream_t stream, unsigned char** out) {
  WorkspacePool* pool = nullptr;
  if (const Status s = WorkspacePool::current(&pool); !s) return s;
  return pool->slot(stream, out);
}

// The slot of `stream` and the lock of its result area (the _sync calls).
inline Status workspace_result(cudaStream_t stream, unsigned char** out, std::mutex** lock) {
  WorkspacePool* pool = nullptr;
  if (const Status s = WorkspacePool::current(&pool); !s) return s;
  if (const Status s = pool->slot(stream, out); !s) return s;
  *lock = &pool->result_lock(*out);
  return Status::ok();
}

}  // namespace detail

// Frees the library's workspace slot of `stream` for other streams, after waiting for the stream's
// work. Call it before destroying a stream that reduced without Options::workspace, in programs
// that create and destroy streams: a slot is otherwise kept for the life of the process.
inline Status try_release_workspace(cudaStream_t stream) noexcept {
  return detail::host_guarded([&]() -> Status {
    // First: the other queries are refused during capture, and refusing them ends the capture.
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (const cudaError_t e = cudaStreamIsCapturing(stream, &capture); e != cudaSuccess) return Status::from_cuda(e);
    if (capture != cudaStreamCaptureStatusNone)
      return Status::fail(Errc::invalid_argument, "release_workspace: the stream is being captured");
    detail::StreamDeviceScope on_stream_device;  // the slot is in the pool of the stream's device
    if (const Status s = on_stream_device.enter(stream); !s) return s;
    detail::WorkspacePool* pool = nullptr;
    if (const Status s = detail::WorkspacePool::current(&pool); !s) return s;
    return pool->release(stream);
  });
}

inline void release_workspace(cudaStream_t stream) { throw_if_error(try_release_workspace(stream)); }

// Returns the library's workspace memory on the current device that no stream or graph holds (as
// torch.cuda.empty_cache() does for PyTorch's cache): slots are allocated 16 at a time, and a chunk
// whose slots have all been released (release_workspace, destroyed graphs) is freed, as is the
// memory the axis reductions' partials pool keeps between calls. cudaFree
// synchronises the device; do not call it while a thread captures a graph in the global mode. The
// next reduction that needs a slot allocates again.
inline Status try_trim_workspace() noexcept {
  return detail::host_guarded([&]() -> Status {
    detail::WorkspacePool* pool = nullptr;
    if (const Status s = detail::WorkspacePool::current(&pool); !s) return s;
    return pool->trim();
  });
}

inline void trim_workspace() { throw_if_error(try_trim_workspace()); }

}  // namespace gpureduce
