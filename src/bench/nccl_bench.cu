// gpureduce_nccl_bench: the sum of a float32 array sharded over 1, 2, 4 or 8 GPUs of this host
// (one thread and one NCCL communicator per GPU), against NCCL's all-reduce of one float and the
// local sum followed by it, in the same run. Each sample: every rank's L2 flushed, the ranks
// started together (a host barrier), CUDA events around the call on every rank; the sample is the
// slowest rank's time; the median of --reps samples after 3 warm-up calls.
//   gpureduce_nccl_bench [--json FILE] [--max-log2 32] [--reps 30] [--ranks 1,2]
// Exit status: 0, or 1 with the reason on stderr.
#include <gpureduce/nccl.cuh>

#include "cuda_check.hpp"
#include "device_info.hpp"
#include "json_writer.hpp"

#include <algorithm>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace gpureduce;

__global__ void fill(float* x, std::uint64_t n, std::uint64_t seed) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n; i += stride) {
    std::uint64_t h = (i + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    x[i] = float(std::int64_t(h >> 40) - (std::int64_t(1) << 23)) * 0x1p-23f;  // [-1, 1)
  }
}

void nccl_check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(r));
}

struct Row {
  int ranks;
  std::uint64_t elements;
  std::string variant;
  double median_us;
};

const char* const variants[] = {"nccl_allreduce_1_float", "local_sum", "local_sum+nccl_allreduce",
                                "gpureduce_nccl_sum", "local_exact_sum", "gpureduce_nccl_exact_sum"};
constexpr int variant_count = 6;

// The ranks of one communicator, each a thread, timing every variant at every size.
std::vector<Row> run_ranks(int k, int max_log2, int reps, std::uint64_t l2_bytes) {
  ncclUniqueId id;
  nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  std::vector<std::vector<double>> ms(static_cast<std::size_t>(k));  // per rank, the current variant's samples
  std::barrier sync(k);
  std::vector<Row> rows;
  auto rank_main = [&](int r) {
    try {
      cuda_check(cudaSetDevice(r), "cudaSetDevice");
      ncclComm_t comm = nullptr;
      nccl_check(ncclCommInitRank(&comm, k, id, r), "ncclCommInitRank");
      cudaStream_t s = nullptr;
      cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "stream");
      const std::uint64_t most = ((std::uint64_t(1) << max_log2) + k - 1) / k;
      float *x = nullptr, *out = nullptr;
      unsigned char* flush = nullptr;
      cuda_check(cudaMalloc(&x, most * sizeof(float)), "cudaMalloc input");
      cuda_check(cudaMalloc(&out, 16 * sizeof(float)), "cudaMalloc result");
      cuda_check(cudaMalloc(&flush, 2 * l2_bytes), "cudaMalloc flush");
      cudaEvent_t a, b;
      cuda_check(cudaEventCreate(&a), "event");
      cuda_check(cudaEventCreate(&b), "event");
      for (int lg = 20; lg <= max_log2; lg += 2) {
        const std::uint64_t total = std::uint64_t(1) << lg, n = total / k + (std::uint64_t(r) < total % k);
        fill<<<1024, 256, 0, s>>>(x, n, std::uint64_t(r) << 40);
        cuda_check(cudaStreamSynchronize(s), "fill");
        for (int v = 0; v < variant_count; ++v) {
          const std::function<void()> call[variant_count] = {
              [&] { nccl_check(ncclAllReduce(out, out + 1, 1, ncclFloat, ncclSum, comm, s), "ncclAllReduce"); },
              [&] { sum(x, n, out, s); },
              [&] {
                sum(x, n, out, s);
                nccl_check(ncclAllReduce(out, out + 1, 1, ncclFloat, ncclSum, comm, s), "ncclAllReduce");
              },
              [&] { nccl::sum(x, n, out, comm, s); },
              [&] { exact_sum(x, n, out, s); },
              [&] { nccl::exact_sum(x, n, out, comm, s); }};
          ms[std::size_t(r)].clear();
          for (int i = -3; i < reps; ++i) {
            cuda_check(cudaMemsetAsync(flush, i & 0xff, 2 * l2_bytes, s), "flush");
            cuda_check(cudaStreamSynchronize(s), "flush");
            sync.arrive_and_wait();
            cuda_check(cudaEventRecord(a, s), "record");
            call[v]();
            cuda_check(cudaEventRecord(b, s), "record");
            cuda_check(cudaEventSynchronize(b), "sync");
            float t = 0;
            cuda_check(cudaEventElapsedTime(&t, a, b), "elapsed");
            if (i >= 0) ms[std::size_t(r)].push_back(t);
          }
          sync.arrive_and_wait();
          if (r == 0) {  // the slowest rank of each sample, then the median
            std::vector<double> slowest(std::size_t(reps), 0);
            for (const auto& m : ms)
              for (std::size_t i = 0; i < slowest.size(); ++i) slowest[i] = std::max(slowest[i], m[i]);
            std::nth_element(slowest.begin(), slowest.begin() + reps / 2, slowest.end());
            rows.push_back({k, total, variants[v], slowest[std::size_t(reps / 2)] * 1e3});
          }
          sync.arrive_and_wait();
        }
      }
      cudaFree(x);
      cudaFree(out);
      cudaFree(flush);
      cudaStreamDestroy(s);
      nccl::release(comm);
      ncclCommDestroy(comm);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "rank %d: %s\n", r, e.what());
      std::exit(1);  // the other ranks wait in a barrier or a collective
    }
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < k; ++r) threads.emplace_back(rank_main, r);
  for (auto& t : threads) t.join();
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  std::string json;
  int max_log2 = 32, reps = 30;
  std::vector<int> ranks;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--help" || a == "-h") {
      std::cout << "usage: gpureduce_nccl_bench [--json FILE] [--max-log2 20..34] [--reps N] [--ranks 1,2,...]\n";
      return 0;
    } else if (a == "--json" && has_value) {
      json = argv[++i];
    } else if (a == "--max-log2" && has_value) {
      max_log2 = std::atoi(argv[++i]);
    } else if (a == "--reps" && has_value) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--ranks" && has_value) {
      std::stringstream ss(argv[++i]);
      for (std::string t; std::getline(ss, t, ',');) ranks.push_back(std::atoi(t.c_str()));
    } else {
      std::cerr << "gpureduce_nccl_bench: unknown or incomplete option '" << a << "' (see --help)\n";
      return 1;
    }
  }
  if (max_log2 < 20 || max_log2 > 34 || reps < 1) {
    std::cerr << "gpureduce_nccl_bench: --max-log2 takes 20..34 and --reps at least 1\n";
    return 1;
  }
#if defined(GPUREDUCE_COMPILE_CHECK)
  std::cerr << "gpureduce_nccl_bench: built as a compile check (GPUREDUCE_SASS=OFF): it does not measure\n";
  return 1;
#endif
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::cerr << "gpureduce_nccl_bench: no CUDA device\n";
    return 1;
  }
  if (ranks.empty())
    for (int k = 1; k <= devices && k <= 8; k *= 2) ranks.push_back(k);
  for (int k : ranks)
    if (k < 1 || k > devices) {
      std::cerr << "gpureduce_nccl_bench: --ranks " << k << ": this host has " << devices << " GPUs\n";
      return 1;
    }
  std::string why;
  const auto info = query_device(why);
  if (!info) {
    std::cerr << "gpureduce_nccl_bench: " << why << "\n";
    return 1;
  }
  int nccl_version = 0;
  ncclGetVersion(&nccl_version);
  const char* commit = std::getenv("GPUREDUCE_COMMIT");
  std::vector<Row> rows;
  try {
    for (int k : ranks) {
      const auto r = run_ranks(k, max_log2, reps, info->l2_bytes);
      rows.insert(rows.end(), r.begin(), r.end());
    }
  } catch (const std::exception& e) {
    std::cerr << "gpureduce_nccl_bench: " << e.what() << "\n";
    return 1;
  }
  const auto time_of = [&](int k, std::uint64_t n, const char* v) {
    for (const Row& r : rows)
      if (r.ranks == k && r.elements == n && r.variant == v) return r.median_us;
    return 0.0;
  };
  std::printf("%s x %d, driver %s, NCCL %d, commit %s\n", info->name.c_str(), devices, info->driver.c_str(),
              nccl_version, commit ? commit : "unknown");
  std::printf("%5s %12s %10s %10s %10s %10s %10s %10s %8s %8s\n", "ranks", "elements", "ar_1(us)", "local", "local+ar",
              "nccl_sum", "loc_exact", "nccl_exact", "sum/bas", "exa/sum");
  for (const Row& r : rows) {
    if (r.variant != variants[0]) continue;
    double t[variant_count];
    for (int v = 0; v < variant_count; ++v) t[v] = time_of(r.ranks, r.elements, variants[v]);
    std::printf("%5d %12llu %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %8.3f %8.3f\n", r.ranks,
                (unsigned long long)r.elements, t[0], t[1], t[2], t[3], t[4], t[5], t[3] / (t[1] + t[0]), t[5] / t[3]);
  }
  if (!json.empty()) {
    std::ofstream f(json);
    JsonWriter w(f);
    w.begin_object()
        .field("benchmark", "nccl")
        .field("gpu", info->name.c_str())
        .field("gpus", devices)
        .field("driver", info->driver.c_str())
        .field("nccl_version", nccl_version)
        .field("commit", commit ? commit : "unknown")
        .field("date", utc_now_iso8601().c_str())
        .field("type", "float32")
        .field("reps", reps);
    w.key("rows").begin_array();
    for (const Row& r : rows) {
      const double bytes = double(r.elements) * sizeof(float);
      w.begin_object()
          .field("ranks", r.ranks)
          .field("elements", std::uint64_t(r.elements))
          .field("bytes", std::uint64_t(r.elements * sizeof(float)))
          .field("variant", r.variant.c_str())
          .field("median_us", r.median_us)
          .field("gbps", r.variant == variants[0] ? 0.0 : bytes / (r.median_us * 1e3))
          .end_object();
    }
    w.end_array().end_object();
    f << "\n";
    if (!f) {
      std::cerr << "gpureduce_nccl_bench: cannot write " << json << "\n";
      return 1;
    }
  }
  return 0;
}
