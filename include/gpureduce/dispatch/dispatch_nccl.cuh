// From a reduction over the ranks of an NCCL communicator (nccl.cuh) to the local reduction, one
// NCCL collective and, but for the direct path, one small kernel (kernel/rank_kernels.cuh), all
// enqueued on the caller's stream. Three paths:
// - direct: integer sums, minima and maxima, which are exact in any order, all-reduce (or reduce)
//   the local results as they are;
// - gathered: every other operator all-gathers (or gathers) the ranks' partials and combines them
//   in rank order, so the bits do not depend on NCCL's algorithm, channels or message size;
// - exact: the ranks' exact sums as exchange vectors (exact/exchange.hpp), added by an int64
//   all-reduce (integer addition in any order) and rounded once: the bits of the whole array's
//   exact sum, whatever the number of ranks.
// Scratch memory: one buffer per (communicator, stream), kept until release(comm).
#pragma once

#include <gpureduce/axis.cuh>
#include <gpureduce/kernel/rank_kernels.cuh>
#include <gpureduce/reduce.cuh>

#include <nccl.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

namespace gpureduce::detail {

// NCCL's type for T, where it has one.
template <class T>
constexpr bool nccl_type(ncclDataType_t* t) {
  if constexpr (std::is_same_v<T, std::int8_t>) *t = ncclInt8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) *t = ncclUint8;
  else if constexpr (std::is_same_v<T, std::int32_t>) *t = ncclInt32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) *t = ncclUint32;
  else if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, long long>) *t = ncclInt64;
  else if constexpr (std::is_same_v<T, std::uint64_t> || std::is_same_v<T, unsigned long long>) *t = ncclUint64;
  else return false;
  return true;
}

// The direct path: Out is the accumulator, an integer NCCL adds and compares itself.
template <class A, class Out, class Op>
constexpr bool direct_v = std::is_same_v<A, Out> && std::is_integral_v<A> && !std::is_same_v<A, bool> &&
                          (std::is_same_v<Op, Sum> || std::is_same_v<Op, Min> || std::is_same_v<Op, Max>) &&
                          [] {
                            ncclDataType_t t{};
                            return nccl_type<A>(&t);
                          }();

template <class Op>
constexpr ncclRedOp_t nccl_op() {
  if constexpr (std::is_same_v<Op, Min>) return ncclMin;
  else if constexpr (std::is_same_v<Op, Max>) return ncclMax;
  else return ncclSum;
}

inline Status from_nccl(ncclResult_t r) {
  return r == ncclSuccess ? Status::ok() : Status::fail(Errc::nccl_error, ncclGetErrorString(r));
}

// The communicator's rank and size, checked against the stream's device and the root.
struct RankInfo {
  int rank = 0, ranks = 1;
  bool lands = true;  // whether the result lands on this rank
};
inline Status check_comm(ncclComm_t comm, int root, int device, RankInfo* info) {
  if (comm == nullptr) return Status::fail(Errc::null_pointer, "communicator is null");
  int comm_device = -1;
  if (const Status s = from_nccl(ncclCommCount(comm, &info->ranks)); !s) return s;
  if (const Status s = from_nccl(ncclCommUserRank(comm, &info->rank)); !s) return s;
  if (const Status s = from_nccl(ncclCommCuDevice(comm, &comm_device)); !s) return s;
  if (comm_device != device)
    return Status::fail(Errc::invalid_argument, "the stream is not on the communicator's device");
  if (root < -1 || root >= info->ranks)
    return Status::fail(Errc::invalid_argument, "root is not a rank of the communicator");
  info->lands = root < 0 || root == info->rank;
  return Status::ok();
}

// Scratch memory for the calls on one (communicator, stream): allocated once (cudaMalloc), grown
// by doubling, and kept until release(comm), so that a call allocates nothing (a cudaMallocAsync
// per call cost more than a small reduction and its collective together, and its memory is not
// mapped yet while a stream is captured). A buffer outgrown may still be read by work in flight:
// it too is kept until release(comm). Calls on one stream run in order, and calls on other
// streams have other buffers.
class RankScratchPool {
 public:
  static RankScratchPool& instance() {
    static auto* pool = new RankScratchPool();  // never destroyed: no cudaFree after the runtime's end
    return *pool;
  }
  Status take(ncclComm_t comm, cudaStream_t stream, std::size_t bytes, void** out) {
    std::lock_guard lock(m_);
    Entry& e = entries_[{comm, stream}];
    if (e.bytes < bytes) {
      std::size_t size = 4096;
      while (size < bytes) size *= 2;
      const RelaxedCaptureScope relaxed;  // cudaMalloc while the stream is captured
      void* p = nullptr;
      if (const cudaError_t err = cudaMalloc(&p, size); err != cudaSuccess) return Status::from_cuda(err);
      if (e.p) retired_[comm].push_back(e.p);
      e = {p, size};
    }
    *out = e.p;
    return Status::ok();
  }
  // Frees the communicator's buffers, once the device has finished with them.
  Status release(ncclComm_t comm) {
    std::lock_guard lock(m_);
    std::vector<void*> buffers = std::move(retired_[comm]);
    retired_.erase(comm);
    for (auto it = entries_.begin(); it != entries_.end();)
      if (it->first.first == comm) {
        buffers.push_back(it->second.p);
        it = entries_.erase(it);
      } else {
        ++it;
      }
    cudaError_t first = cudaSuccess;
    for (void* p : buffers)  // cudaFree waits for the device
      if (const cudaError_t e = cudaFree(p); e != cudaSuccess && first == cudaSuccess) first = e;
    return Status::from_cuda(first);
  }

 private:
  struct Entry {
    void* p = nullptr;
    std::size_t bytes = 0;
  };
  std::mutex m_;
  std::map<std::pair<ncclComm_t, cudaStream_t>, Entry> entries_;
  std::map<ncclComm_t, std::vector<void*>> retired_;
};

// The checks of every rank's call, before anything is enqueued: the stream's device (made current
// for the call), the communicator, and the result pointer where the result lands.
template <class Out>
Status enter_rank_call(ncclComm_t comm, int root, cudaStream_t stream, const Out* out, std::uint64_t outputs,
                       StreamDeviceScope& scope, RankInfo* info) {
  if (const Status s = scope.enter(stream); !s) return s;
  if (const Status s = check_comm(comm, root, scope.device(), info); !s) return s;
  if (!info->lands) return Status::ok();
  if (out == nullptr) return Status::fail(Errc::null_pointer, "result pointer is null");
  if (misaligned(out, alignof(Out)))
    return Status::fail(Errc::invalid_argument, "result pointer is not aligned to its type");
  return check_memory(out, outputs, sizeof(Out), result_messages, scope.device());
}

// One reduction over the ranks: local(partial) writes this rank's A partials (`outputs` of them)
// to device memory; the rest follows the path.
template <class A, class Out, class Op, class Local>
Status dispatch_ranks(std::uint64_t n, std::uint64_t outputs, Out* out, Op op, ncclComm_t comm, int root,
                      cudaStream_t stream, Local&& local) noexcept {
  return host_guarded([&]() -> Status {
    StreamDeviceScope scope;
    RankInfo info;
    if (const Status s = enter_rank_call(comm, root, stream, out, outputs, scope, &info); !s) return s;
    if (outputs == 0) return Status::ok();  // every rank has the same outputs: none of them
    auto& pool = RankScratchPool::instance();
    void* scratch = nullptr;
    if constexpr (direct_v<A, Out, Op>) {
      ncclDataType_t type{};
      nccl_type<A>(&type);
      if (const Status s = pool.take(comm, stream, outputs * sizeof(A), &scratch); !s) return s;
      A* mine = static_cast<A*>(scratch);
      if (const Status s = local(mine); !s) return s;
      return from_nccl(root < 0 ? ncclAllReduce(mine, out, outputs, type, nccl_op<Op>(), comm, stream)
                                : ncclReduce(mine, out, outputs, type, nccl_op<Op>(), root, comm, stream));
    } else {
      // The all-gather runs in place (this rank's block at its offset, as NCCL documents it); the
      // gather sends from a block of its own past the ranks' blocks.
      const std::size_t block = rank_block_bytes(outputs, sizeof(A));
      const std::size_t blocks_count = std::size_t(info.ranks) + (root < 0 ? 0 : 1);
      if (const Status s = pool.take(comm, stream, blocks_count * block, &scratch); !s) return s;
      auto* blocks = static_cast<unsigned char*>(scratch);
      unsigned char* mine = blocks + (root < 0 ? std::size_t(info.rank) : std::size_t(info.ranks)) * block;
      if constexpr (is_arg_extreme_v<Op>) {  // its count, or where it has none, the identity
        if (n > 0)
          if (const Status s = local(reinterpret_cast<A*>(mine)); !s) return s;
        stamp_rank_block<A><<<1, 1, 0, stream>>>(mine, block, n, op.template identity<A>());
        if (const Status s = Status::from_cuda(cudaGetLastError()); !s) return s;
      } else if (const Status s = local(reinterpret_cast<A*>(mine)); !s) {
        return s;
      }
      const ncclResult_t r = root < 0 ? ncclAllGather(mine, blocks, block, ncclUint8, comm, stream)
                                      : ncclGather(mine, blocks, block, ncclUint8, root, comm, stream);
      if (const Status s = from_nccl(r); !s) return s;
      if (!info.lands) return Status::ok();
      constexpr unsigned threads = 256;
      combine_rank_blocks<A, Op, Out><<<unsigned(ceil_div(outputs, threads)), threads, 0, stream>>>(
          blocks, block, info.ranks, outputs, op, out);
      return Status::from_cuda(cudaGetLastError());
    }
  });
}

// The exact sum over the ranks: local(x) writes this rank's exchange vector.
template <class Terms, class Out, class Local>
Status dispatch_exact_ranks(Out* out, ncclComm_t comm, int root, cudaStream_t stream, Local&& local) noexcept {
  return host_guarded([&]() -> Status {
    StreamDeviceScope scope;
    RankInfo info;
    if (const Status s = enter_rank_call(comm, root, stream, out, 1, scope, &info); !s) return s;
    constexpr int words = exact::exchange_words(Terms::range.words());
    void* scratch = nullptr;
    auto& pool = RankScratchPool::instance();
    if (const Status s = pool.take(comm, stream, words * sizeof(std::int64_t), &scratch); !s) return s;
    auto* x = static_cast<std::int64_t*>(scratch);
    if (const Status s = local(reinterpret_cast<exact::ExchangeWord*>(x)); !s) return s;
    const ncclResult_t r = root < 0 ? ncclAllReduce(x, x, words, ncclInt64, ncclSum, comm, stream)
                                    : ncclReduce(x, x, words, ncclInt64, ncclSum, root, comm, stream);
    if (const Status s = from_nccl(r); !s) return s;
    if (!info.lands) return Status::ok();
    round_exchange_kernel<Terms, Out><<<1, warp_threads, 0, stream>>>(x, out);
    return Status::from_cuda(cudaGetLastError());
  });
}

}  // namespace gpureduce::detail
