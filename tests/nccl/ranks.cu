// gpureduce::nccl over 1, 2, 4 and 8 GPUs (as many as there are), one thread and one
// communicator per rank: the same arrays, cut into uneven shards (some empty), reduced on every
// count of ranks. Checked here: exact sums bit-identical to exact_sum_host of the whole array on
// every rank and count; integer sums and maxima exact; argmax the first index of the maximum,
// planted in two shards; int32 sums of segments spread over ranks exact; a result to a root lands
// there only. Printed ("bits" lines): the fast float sums, column sums and segment sums, which
// run_ranks.sh compares across NCCL's algorithms and channels.
// Exit status 0 when every check holds, 1 otherwise; "SKIPPED" without a GPU.
#include <gpureduce/nccl.cuh>

#include "../../src/common/random_data.hpp"
#include "../common/exact_cases.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace exact_cases;
namespace nccl = gpureduce::nccl;

int failures = 0;
std::mutex report;
#define CHECK(cond, ...)                                \
  do {                                                  \
    if (!(cond)) {                                      \
      std::lock_guard lock(report);                     \
      std::printf("FAILED %s: ", #cond);                \
      std::printf(__VA_ARGS__);                         \
      std::printf("\n");                                \
      ++failures;                                       \
    }                                                   \
  } while (0)
#define CUDA(call) CHECK((call) == cudaSuccess, "%s", #call)
#define OK(call)                                                      \
  do {                                                                \
    const gpureduce::Status s_ = (call);                              \
    CHECK(bool(s_), "%s: %s", #call, s_.message);                     \
  } while (0)

constexpr std::size_t rows = 4099, cols = 1000;  // the float array, also a rows x cols matrix
constexpr std::size_t n = rows * cols;

// The one-value results, as the ranks' calls write them on the device.
struct Scalars {
  float exact, exact_root, fast, fast_root;
  double exact_double;
  std::int64_t int_sum;
  std::int32_t int_max;
  gpureduce::IndexedValue<float> best;
};

struct Results : Scalars {
  std::vector<float> column_sums;
  std::vector<std::int64_t> segment_sums;  // int32, exact
  std::vector<float> float_segment_sums;
};

// Rank r of k: its shard [cut[r], cut[r+1]) of each array (the matrix's rows for the columns).
// Segment s of the whole array, [offsets[s], offsets[s + 1]), as this rank's part of it: begin and
// end within the shard [first, first + count).
std::vector<std::int64_t> local_part(const std::vector<std::int64_t>& offsets, std::size_t first, std::size_t count,
                                     bool ends) {
  std::vector<std::int64_t> v(offsets.size() - 1);
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s) {
    const std::int64_t e = offsets[s + (ends ? 1 : 0)];
    v[s] = std::clamp<std::int64_t>(e - std::int64_t(first), 0, std::int64_t(count));
  }
  return v;
}

void run_rank(int r, int k, ncclUniqueId id, const std::vector<std::size_t>& row_cut, const std::vector<float>& x,
              const std::vector<double>& xd, const std::vector<std::int32_t>& xi,
              const std::vector<std::int64_t>& offsets, Results& out) {
  CUDA(cudaSetDevice(r));
  ncclComm_t comm = nullptr;
  CHECK(ncclCommInitRank(&comm, k, id, r) == ncclSuccess, "rank %d of %d", r, k);
  cudaStream_t stream = nullptr;
  CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::size_t first = row_cut[r] * cols, count = (row_cut[r + 1] - row_cut[r]) * cols;
  float* d_x = nullptr;
  double* d_xd = nullptr;
  std::int32_t* d_xi = nullptr;
  CUDA(cudaMalloc(&d_x, (count + 1) * sizeof(float)));
  CUDA(cudaMalloc(&d_xd, (count + 1) * sizeof(double)));
  CUDA(cudaMalloc(&d_xi, (count + 1) * sizeof(std::int32_t)));
  CUDA(cudaMemcpy(d_x, x.data() + first, count * sizeof(float), cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(d_xd, xd.data() + first, count * sizeof(double), cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(d_xi, xi.data() + first, count * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  Scalars* d = nullptr;
  float* d_cols = nullptr;
  CUDA(cudaMalloc(&d, sizeof(Scalars)));
  CUDA(cudaMalloc(&d_cols, cols * sizeof(float)));
  CUDA(cudaMemset(d, 0x5a, sizeof(Scalars)));  // poison
  CUDA(cudaMemset(d_cols, 0x5a, cols * sizeof(float)));
  OK(nccl::try_exact_sum(d_x, count, &d->exact, comm, stream));
  OK(nccl::try_exact_sum(d_x, count, &d->exact_root, comm, stream, nccl::Root{k - 1}));
  OK(nccl::try_sum(d_x, count, &d->fast, comm, stream));
  OK(nccl::try_sum(d_x, count, &d->fast_root, comm, stream, nccl::Root{k - 1}));
  OK(nccl::try_exact_sum(d_xd, count, &d->exact_double, comm, stream));
  OK(nccl::try_sum(d_xi, count, &d->int_sum, comm, stream));
  OK(nccl::try_max(d_xi, count, &d->int_max, comm, stream));
  OK(nccl::try_argmax(d_x, count, &d->best, comm, stream));
  const std::size_t segments = offsets.size() - 1;
  const std::vector<std::int64_t> begin = local_part(offsets, first, count, false),
                                  end = local_part(offsets, first, count, true);
  std::int64_t *d_begin = nullptr, *d_end = nullptr, *d_seg = nullptr;
  float* d_fseg = nullptr;
  CUDA(cudaMalloc(&d_begin, segments * sizeof(std::int64_t)));
  CUDA(cudaMalloc(&d_end, segments * sizeof(std::int64_t)));
  CUDA(cudaMalloc(&d_seg, segments * sizeof(std::int64_t)));
  CUDA(cudaMalloc(&d_fseg, segments * sizeof(float)));
  CUDA(cudaMemcpy(d_begin, begin.data(), segments * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  CUDA(cudaMemcpy(d_end, end.data(), segments * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  CUDA(cudaMemset(d_seg, 0x5a, segments * sizeof(std::int64_t)));
  CUDA(cudaMemset(d_fseg, 0x5a, segments * sizeof(float)));
  OK(nccl::try_segmented_reduce(d_xi, segments, d_begin, d_end, d_seg, gpureduce::Sum{}, comm, stream));
  OK(nccl::try_segmented_reduce(d_x, segments, d_begin, d_end, d_fseg, gpureduce::Sum{}, comm, stream));
  const gpureduce::Shape piece{std::int64_t(row_cut[r + 1] - row_cut[r]), std::int64_t(cols)};
  OK(nccl::try_reduce_axes(d_x, piece, gpureduce::Axes{0}, d_cols, gpureduce::Sum{}, comm, stream));
  CUDA(cudaStreamSynchronize(stream));
  Scalars& h = out;
  CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  out.column_sums.resize(cols);
  out.segment_sums.resize(segments);
  out.float_segment_sums.resize(segments);
  CUDA(cudaMemcpy(out.column_sums.data(), d_cols, cols * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(out.segment_sums.data(), d_seg, segments * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  CUDA(cudaMemcpy(out.float_segment_sums.data(), d_fseg, segments * sizeof(float), cudaMemcpyDeviceToHost));
  cudaFree(d_begin);
  cudaFree(d_end);
  cudaFree(d_seg);
  cudaFree(d_fseg);
  cudaFree(d);
  cudaFree(d_cols);
  cudaFree(d_x);
  cudaFree(d_xd);
  cudaFree(d_xi);
  cudaStreamDestroy(stream);
  OK(nccl::try_release(comm));
  ncclCommDestroy(comm);
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 0;
  }
  // Floats over the whole exponent range but the top (no overflow in the fast sum), a quarter of
  // them cancelled by their negations; the maximum, 2^100, planted twice.
  std::mt19937_64 rng(20261129);
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i) {
    float v = random_finite<float>(rng);
    while (std::abs(v) > 1e30f) v = random_finite<float>(rng);
    x[i] = i % 4 == 1 ? negate(x[i - 1]) : v;
  }
  std::shuffle(x.begin(), x.end(), rng);
  const std::size_t first_max = n / 3 + 17, second_max = n - 5;
  x[first_max] = x[second_max] = 0x1p100f;
  std::vector<double> xd(n);
  for (double& v : xd) v = random_finite<double>(rng);
  const std::vector<std::int32_t> xi = gpureduce::random_values<std::int32_t>(n, 7);
  const float want_exact = gpureduce::exact_sum_host(x.data(), n);
  const double want_double = gpureduce::exact_sum_host(xd.data(), n);
  std::int64_t want_int = 0;
  std::int32_t want_max = xi[0];
  for (std::int32_t v : xi) {
    want_int += v;
    want_max = std::max(want_max, v);
  }
  // Ragged segments over the whole array (some empty, some longer than a shard).
  std::vector<std::int64_t> offsets{0};
  while (offsets.back() < std::int64_t(n))
    offsets.push_back(std::min<std::int64_t>(offsets.back() + std::int64_t(rng() % (rng() % 8 ? 5000 : 3000000)), n));
  std::vector<std::int64_t> want_segments(offsets.size() - 1, 0);
  for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
    for (std::int64_t i = offsets[s]; i < offsets[s + 1]; ++i) want_segments[s] += xi[std::size_t(i)];
  for (int k = 1; k <= devices && k <= 8; k *= 2) {
    // Row cuts: uneven, and with 4 or more ranks one shard empty.
    std::vector<std::size_t> cut{0, rows};
    std::mt19937_64 cuts(k);
    for (int i = 1; i < k; ++i) cut.push_back(cuts() % rows);
    if (k >= 4) cut[2] = cut[3];
    std::sort(cut.begin(), cut.end());
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id) == ncclSuccess, "k=%d", k);
    std::vector<Results> res(static_cast<std::size_t>(k));
    std::vector<std::thread> threads;
    for (int r = 0; r < k; ++r)
      threads.emplace_back(run_rank, r, k, id, std::cref(cut), std::cref(x), std::cref(xd), std::cref(xi),
                           std::cref(offsets), std::ref(res[std::size_t(r)]));
    for (auto& t : threads) t.join();
    for (int r = 0; r < k; ++r) {
      const Results& g = res[std::size_t(r)];
      CHECK(bits_of(g.exact) == bits_of(want_exact), "k=%d rank %d exact 0x%llx want 0x%llx", k, r,
            (unsigned long long)bits_of(g.exact), (unsigned long long)bits_of(want_exact));
      CHECK(bits_of(g.exact_double) == bits_of(want_double), "k=%d rank %d exact double", k, r);
      CHECK((r == k - 1) == (bits_of(g.exact_root) == bits_of(want_exact)), "k=%d rank %d root result", k, r);
      CHECK((r == k - 1) == (bits_of(g.fast_root) == bits_of(res[0].fast)), "k=%d rank %d gathered root", k, r);
      CHECK(g.int_sum == want_int, "k=%d rank %d int sum %lld want %lld", k, r, (long long)g.int_sum,
            (long long)want_int);
      CHECK(g.int_max == want_max, "k=%d rank %d int max", k, r);
      CHECK(g.best.index == std::int64_t(first_max) && g.best.value == 0x1p100f, "k=%d rank %d argmax %lld", k, r,
            (long long)g.best.index);
      CHECK(bits_of(g.fast) == bits_of(res[0].fast), "k=%d rank %d fast sum differs from rank 0's", k, r);
      CHECK(g.column_sums == res[0].column_sums, "k=%d rank %d columns differ from rank 0's", k, r);
      CHECK(g.segment_sums == want_segments, "k=%d rank %d int32 segment sums", k, r);
      CHECK(std::memcmp(g.float_segment_sums.data(), res[0].float_segment_sums.data(),
                        g.float_segment_sums.size() * sizeof(float)) == 0,
            "k=%d rank %d float segment sums differ from rank 0's", k, r);
    }
    // The fast sums: within n ulp-sized errors of the largest partial, n * 2^-24 * sum |x|.
    double abs_sum = 0;
    for (float v : x) abs_sum += std::abs(double(v));
    CHECK(std::abs(double(res[0].fast) - double(want_exact)) <= double(n) * 0x1p-24 * abs_sum, "k=%d fast sum", k);
    std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the column sums' bits
    for (float v : res[0].column_sums) h = (h ^ bits_of(v)) * 1099511628211ull;
    std::uint64_t hs = 1469598103934665603ull;
    for (float v : res[0].float_segment_sums) hs = (hs ^ bits_of(v)) * 1099511628211ull;
    std::printf("bits k=%d fast_sum=0x%08llx column_sums=0x%016llx segment_sums=0x%016llx\n", k,
                (unsigned long long)bits_of(res[0].fast), (unsigned long long)h, (unsigned long long)hs);
    std::printf("k=%d exact=0x%08llx (%a) checked\n", k, (unsigned long long)bits_of(res[0].exact),
                double(res[0].exact));
  }
  std::printf(failures ? "%d checks FAILED\n" : "all checks passed\n", failures);
  return failures ? 1 : 0;
}
