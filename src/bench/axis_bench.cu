#include "axis_bench.hpp"

#include "bench_data.cuh"
#include "cuda_check.hpp"

#include <gpureduce/axis.cuh>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace gpureduce {
namespace {

// Where output o's elements are: `count` of them from base(o) = (o / inner) * outer_stride +
// o % inner, `step` apart (axis cases), or offsets[o] .. offsets[o + 1] (segmented cases).
struct Walk {
  std::uint64_t outputs = 0, count = 0, inner = 1;
  std::int64_t outer_stride = 0, step = 1;
};

// One shape of the sweep: an array reduced over one axis, or ragged segments of a flat array.
struct Case {
  std::vector<std::int64_t> shape;
  int axis = 0;
  Walk walk;
  std::vector<std::int32_t> offsets;  // segmented cases (offsets.size() = outputs + 1)
  double mean_segment = 0;
  bool rows() const { return offsets.empty() && walk.step == 1; }  // CUB takes these as segments
};

Case axis_case(std::vector<std::int64_t> shape, int axis) {
  Case c;
  std::int64_t outer = 1, inner = 1;
  for (int d = 0; d < int(shape.size()); ++d) {
    if (d < axis) outer *= shape[std::size_t(d)];
    if (d > axis) inner *= shape[std::size_t(d)];
  }
  const std::int64_t extent = shape[std::size_t(axis)];
  c.shape = std::move(shape);
  c.axis = axis;
  c.walk = {std::uint64_t(outer * inner), std::uint64_t(extent), std::uint64_t(inner), extent * inner, inner};
  return c;
}

// Lengths log-uniform in [1, longest] until the elements run out (the last segment takes the rest).
Case ragged_case(std::uint64_t total, std::uint64_t longest, std::uint64_t seed) {
  Case c;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, std::log(double(longest) + 1));
  c.offsets.push_back(0);
  while (std::uint64_t(c.offsets.back()) < total) {
    const std::uint64_t l = std::max<std::uint64_t>(1, std::uint64_t(std::exp(u(rng))));
    c.offsets.push_back(std::int32_t(std::min<std::uint64_t>(total, std::uint64_t(c.offsets.back()) + l)));
  }
  c.shape = {std::int64_t(total)};
  c.walk.outputs = c.offsets.size() - 1;
  c.mean_segment = double(total) / double(c.walk.outputs);
  return c;
}

template <class V>
__device__ double as_double(V v) {
  return detail::convert<double>(v);
}
template <class R>
__device__ double value_of(const R& r) {
  if constexpr (requires { r.value; }) return as_double(r.value);
  else return as_double(r);
}
template <class R>
__device__ std::int64_t index_of(const R& r) {
  if constexpr (requires { r.index; }) return r.index;
  else if constexpr (requires { r.key; }) return std::int64_t(r.key);
  else return -1;
}

template <class T, class A>
struct ToSum {
  __host__ __device__ A operator()(T x) const { return detail::convert<A>(x); }
};

// Output o's reference: the sum and magnitude sum in double, and the first largest element.
struct Reference {
  double sum = 0, abs_sum = 0, best = 0;
  std::int64_t best_index = -1;
  __device__ void add(double x, std::int64_t k) {
    sum += x;
    abs_sum += fabs(x);
    if (best_index < 0 || x > best || (x == best && k < best_index)) best = x, best_index = k;
  }
  __device__ void add(const Reference& r) {
    sum += r.sum;
    abs_sum += r.abs_sum;
    if (r.best_index >= 0) add_best(r.best, r.best_index);
  }
  __device__ void add_best(double x, std::int64_t k) {
    if (best_index < 0 || x > best || (x == best && k < best_index)) best = x, best_index = k;
  }
};

// Output o's elements walked by `Lanes` threads (1: a thread per output; a block: one output per
// block, for few long ones); counts the outputs that `got` has wrong: integers and max/argmax
// exactly, floating sums beyond (count + 64) u sum|x|, u of the float accumulator.
template <unsigned Lanes, class T, class R>
__global__ void verify_kernel(const T* in, Walk c, const std::int32_t* offsets, BenchOp op, const R* got,
                              unsigned long long* bad) {
  const std::uint64_t o = Lanes == 1 ? blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x : blockIdx.x;
  if (o >= c.outputs) return;
  std::int64_t base = 0, step = 1;
  std::uint64_t count = 0;
  if (offsets) {
    base = offsets[o];
    count = std::uint64_t(offsets[o + 1] - offsets[o]);
  } else {
    base = std::int64_t(o / c.inner) * c.outer_stride + std::int64_t(o % c.inner);
    step = c.step;
    count = c.count;
  }
  Reference ref;
  for (std::uint64_t k = Lanes == 1 ? 0 : threadIdx.x; k < count; k += Lanes)
    ref.add(as_double(in[base + std::int64_t(k) * step]), std::int64_t(k));
  if constexpr (Lanes > 1) {
    __shared__ Reference part[Lanes];
    part[threadIdx.x] = ref;
    __syncthreads();
    if (threadIdx.x != 0) return;
    for (unsigned t = 1; t < Lanes; ++t) ref.add(part[t]);
  }
  bool ok;
  if (op == BenchOp::sum) {
    const double bound = std::is_integral_v<T> ? 0 : double(count + 64) * 0x1.0p-24 * ref.abs_sum;
    ok = fabs(value_of(got[o]) - ref.sum) <= bound;
  } else if (op == BenchOp::max) {
    ok = value_of(got[o]) == ref.best;
  } else {
    ok = value_of(got[o]) == ref.best && index_of(got[o]) == ref.best_index;
  }
  if (!ok) atomicAdd(bad, 1ull);
}

template <class T, class R>
bool verify(const T* in, const Walk& c, const std::int32_t* offsets, BenchOp op, const R* got) {
  DeviceBuffer<unsigned long long> bad(1);
  GPUREDUCE_CUDA(cudaMemset(bad.get(), 0, sizeof(unsigned long long)));
  if (c.outputs < 65536)
    verify_kernel<256><<<unsigned(c.outputs), 256>>>(in, c, offsets, op, got, bad.get());
  else
    verify_kernel<1><<<unsigned((c.outputs + 255) / 256), 256>>>(in, c, offsets, op, got, bad.get());
  GPUREDUCE_CUDA(cudaGetLastError());
  unsigned long long n = 0;
  GPUREDUCE_CUDA(cudaMemcpy(&n, bad.get(), sizeof n, cudaMemcpyDeviceToHost));
  return n == 0;
}

template <class T>
void run_type(GpuTimer& timer, const AxisRun& run, ElemType type, std::uint64_t total,
              const std::function<void(const std::string&)>& progress, std::vector<AxisRow>& rows) {
  DeviceBuffer<T> in(total);
  fill_kernel<<<1024, 256>>>(in.get(), total, run.seed);
  GPUREDUCE_CUDA(cudaGetLastError());
  std::vector<Case> cases;
  const std::int64_t n = std::int64_t(total);
  const auto wants = [&](const char* kind) {
    return std::find(run.cases.begin(), run.cases.end(), kind) != run.cases.end();
  };
  if (wants("rows"))
    for (std::int64_t cols : {std::int64_t(1), std::int64_t(2), std::int64_t(3), std::int64_t(4), std::int64_t(8),
                              std::int64_t(16), std::int64_t(32), std::int64_t(100), std::int64_t(256),
                              std::int64_t(1024), std::int64_t(4096), std::int64_t(1) << 16, std::int64_t(1) << 20, n})
      cases.push_back(axis_case({n / cols, cols}, 1));
  if (wants("columns"))
    for (std::int64_t cols : {std::int64_t(2), std::int64_t(3), std::int64_t(4), std::int64_t(8), std::int64_t(16),
                              std::int64_t(32), std::int64_t(256), std::int64_t(4096), std::int64_t(1) << 16})
      cases.push_back(axis_case({n / cols, cols}, 0));
  if (wants("middle")) cases.push_back(axis_case({n / (4096 * 4), 4096, 4}, 1));
  if (wants("ragged"))
    for (std::uint64_t longest : {8u, 64u, 1024u, 16384u, 1u << 20})
      cases.push_back(ragged_case(total, longest, run.seed + longest));

  using Sum_t = result_t<T, Sum>;
  using Arg_t = IndexedValue<T>;
  using CubArg_t = cub::KeyValuePair<int, T>;
  std::uint64_t most_outputs = 0;
  for (const Case& c : cases) most_outputs = std::max(most_outputs, c.walk.outputs);
  DeviceBuffer<unsigned char> out(most_outputs * sizeof(Arg_t));
  DeviceBuffer<std::int32_t> offsets(most_outputs + 1);
  for (const Case& c : cases) {
    const std::uint64_t outputs = c.walk.outputs;
    const std::uint64_t elements = c.offsets.empty() ? outputs * c.walk.count : total;
    if (c.offsets.empty() && (c.shape[0] == 0 || elements == 0)) continue;
    // CUB's segments: the rows as begin/end offsets, or the ragged offsets.
    const bool cub = c.rows() || !c.offsets.empty();
    if (!c.offsets.empty()) {
      GPUREDUCE_CUDA(cudaMemcpy(offsets.get(), c.offsets.data(), c.offsets.size() * sizeof(std::int32_t),
                                cudaMemcpyHostToDevice));
    } else if (cub) {
      std::vector<std::int32_t> h(outputs + 1);
      for (std::uint64_t r = 0; r <= outputs; ++r) h[r] = std::int32_t(r * c.walk.count);
      GPUREDUCE_CUDA(cudaMemcpy(offsets.get(), h.data(), h.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
    }
    const std::int32_t* d_off = offsets.get();
    const std::int64_t segs = std::int64_t(outputs);
    for (BenchOp op : run.ops) {
      if (op == BenchOp::dot) continue;
      const std::size_t out_bytes = op == BenchOp::sum ? sizeof(Sum_t) : op == BenchOp::max ? sizeof(T) : sizeof(Arg_t);
      const std::size_t cub_out_bytes = op == BenchOp::argmax ? sizeof(CubArg_t) : out_bytes;
      // The case in the progress line, so that a run cut short shows where it stopped.
      std::string what = std::string(elem_type_name(type)) + " " + bench_op_name(op) + " ";
      if (!c.offsets.empty()) {
        what += "ragged, mean " + std::to_string(std::llround(c.mean_segment));
      } else {
        for (std::size_t d = 0; d < c.shape.size(); ++d) what += (d ? " x " : "") + std::to_string(c.shape[d]);
        what += ", axis " + std::to_string(c.axis);
      }
      progress(what);
      const auto ours = [&](cudaStream_t s) {
        void* o = out.get();
        if (!c.offsets.empty()) {
          if (op == BenchOp::sum) segmented_sum(in.get(), outputs, d_off, static_cast<Sum_t*>(o), s);
          else if (op == BenchOp::max) segmented_max(in.get(), outputs, d_off, static_cast<T*>(o), s);
          else segmented_argmax(in.get(), outputs, d_off, static_cast<Arg_t*>(o), s);
          return;
        }
        const Shape dense(std::span<const std::int64_t>(c.shape.data(), c.shape.size()));
        if (op == BenchOp::sum) sum_axes(in.get(), dense, {c.axis}, static_cast<Sum_t*>(o), s);
        else if (op == BenchOp::max) max_axes(in.get(), dense, {c.axis}, static_cast<T*>(o), s);
        else argmax_axes(in.get(), dense, {c.axis}, static_cast<Arg_t*>(o), s);
      };
      const auto add = [&](const char* variant, const TimingStats& t, bool ok, std::size_t result_bytes) {
        AxisRow r;
        r.variant = variant;
        r.type = type;
        r.op = op;
        r.shape = c.shape;
        r.mean_segment = c.mean_segment;
        if (c.offsets.empty()) r.axes = {c.axis};
        else r.segments = outputs;
        // The input: the elements, and a segmented case's offsets.
        const std::uint64_t offset_bytes = c.offsets.size() * sizeof(std::int32_t);
        const std::uint64_t in_bytes = elements * sizeof(T) + offset_bytes, written = outputs * result_bytes;
        r.bytes = in_bytes + written;
        r.time = t;
        r.gbps = double(r.bytes) / (t.median_ms * 1e6);
        r.floor_ms = double(in_bytes) / (run.read_gbps * 1e6) + double(written) / (run.write_gbps * 1e6);
        r.verified = ok;
        rows.push_back(r);
      };
      const TimingStats t = timer.measure(ours, run.reps);
      const std::int32_t* ref_off = c.offsets.empty() ? nullptr : d_off;
      bool ok = op == BenchOp::sum    ? verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const Sum_t*>(out.get()))
                : op == BenchOp::max ? verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const T*>(out.get()))
                                     : verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const Arg_t*>(out.get()));
      add("gpureduce", t, ok, out_bytes);
      if constexpr (!std::is_integral_v<T>)
        if (op == BenchOp::sum) {  // batch-invariant: each result's bits independent of the batch
          const auto invariant = [&](cudaStream_t s) {
            auto* o = reinterpret_cast<Sum_t*>(out.get());
            Options opt;
            opt.batch_invariant = true;
            if (!c.offsets.empty()) return segmented_sum(in.get(), outputs, d_off, o, s, opt);
            sum_axes(in.get(), Shape(std::span<const std::int64_t>(c.shape.data(), c.shape.size())), {c.axis}, o, s,
                     opt);
          };
          const TimingStats it = timer.measure(invariant, run.reps);
          add("gpureduce-invariant", it,
              verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const Sum_t*>(out.get())), out_bytes);
        }
      if constexpr (!std::is_integral_v<T>)
        if (op == BenchOp::sum) {  // the exact sum per result, into the same type
          const auto exact = [&](cudaStream_t s) {
            auto* o = reinterpret_cast<Sum_t*>(out.get());
            if (!c.offsets.empty()) return exact_segmented_sum(in.get(), outputs, d_off, o, s);
            exact_sum_axes(in.get(), Shape(std::span<const std::int64_t>(c.shape.data(), c.shape.size())), {c.axis}, o,
                           s);
          };
          const TimingStats et = timer.measure(exact, run.reps);
          add("gpureduce-exact", et, verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const Sum_t*>(out.get())),
              out_bytes);
        }
      if (!cub) continue;
      const auto cub_call = [&](void* tmp, std::size_t& bytes, cudaStream_t s) {
        void* o = out.get();
        if (op == BenchOp::sum) {
          // 16-bit floats summed in float, as gpureduce's accumulator: CUB adds what it reads.
          const auto widened = thrust::make_transform_iterator(in.get(), ToSum<T, Sum_t>{});
          return cub::DeviceSegmentedReduce::Sum(tmp, bytes, widened, static_cast<Sum_t*>(o), segs, d_off,
                                                 d_off + 1, s);
        }
        if (op == BenchOp::max)
          return cub::DeviceSegmentedReduce::Max(tmp, bytes, in.get(), static_cast<T*>(o), segs, d_off, d_off + 1, s);
        return cub::DeviceSegmentedReduce::ArgMax(tmp, bytes, in.get(), static_cast<CubArg_t*>(o), segs, d_off,
                                                  d_off + 1, s);
      };
      std::size_t temp_bytes = 0;
      GPUREDUCE_CUDA(cub_call(nullptr, temp_bytes, timer.stream()));
      DeviceBuffer<unsigned char> temp(std::max<std::size_t>(temp_bytes, 1));
      const TimingStats ct = timer.measure([&](cudaStream_t s) { cub_call(temp.get(), temp_bytes, s); }, run.reps);
      GPUREDUCE_CUDA(cudaDeviceSynchronize());
      // CUB reads the rows as segments, so the reference walks them through the same offsets.
      ok = op == BenchOp::sum    ? verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const Sum_t*>(out.get()))
           : op == BenchOp::max ? verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const T*>(out.get()))
                                : verify(in.get(), c.walk, ref_off, op, reinterpret_cast<const CubArg_t*>(out.get()));
      add("cub", ct, ok, cub_out_bytes);
    }
  }
}

}  // namespace

std::vector<AxisRow> run_axis(GpuTimer& timer, const AxisRun& run,
                              const std::function<void(const std::string&)>& progress) {
  using detail::CsrPath;
  const CsrPath path = run.csr_path == "staged"   ? CsrPath::staged
                       : run.csr_path == "tiles"  ? CsrPath::tiles
                       : run.csr_path == "warps"  ? CsrPath::warps
                       : run.csr_path == "shares" ? CsrPath::shares
                                                  : CsrPath::automatic;
  // The CSR path the run forces (--csr-path), for every gpureduce call below.
  const detail::testing::ForceLaunch forced({.csr = path});
  std::vector<AxisRow> rows;
  for (ElemType type : run.types)
    for (std::uint64_t total : run.totals) {
      if (type == ElemType::float32) run_type<float>(timer, run, type, total, progress, rows);
      else if (type == ElemType::bfloat16) run_type<__nv_bfloat16>(timer, run, type, total, progress, rows);
      else if (type == ElemType::int32) run_type<std::int32_t>(timer, run, type, total, progress, rows);
    }
  return rows;
}

}  // namespace gpureduce
