// From a validated call to one kernel launch: checks the arguments, picks the kernel and grid
// (launch_plan.hpp, tuning_sm90.hpp), finds the workspace and launches on the caller's stream.
// Nothing here synchronises.
#pragma once

#include <gpureduce/dispatch/allocation_range.hpp>
#include <gpureduce/dispatch/forced_launch.hpp>
#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/dispatch/pointer_reach.hpp>
#include <gpureduce/dispatch/stream_device.hpp>
#include <gpureduce/dispatch/tuning_sm90.hpp>
#include <gpureduce/dispatch/workspace.hpp>
#include <gpureduce/error.hpp>
#include <gpureduce/kernel/reduce_kernels.cuh>
#include <gpureduce/options.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

namespace gpureduce::detail {

// Whether `device`, the stream's and current (StreamDeviceScope), can dereference p (reach_of in
// pointer_reach.hpp), and whether `count` objects of `bytes` each from p fit in p's allocation
// (allocation_range.hpp): where either fails, a kernel would fault with an illegal address, which
// ends the context, or read or write another allocation's memory, so the call fails instead.
// Whether the device reads pageable memory is asked only for memory without a device address,
// which a call that succeeds rarely passes.
struct PointerMessages {
  const char* host;          // p is host memory the device cannot read
  const char* other_device;  // p is another device's memory, out of the device's reach
  const char* elsewhere;     // p is registered host memory the device reads at another address
  const char* past_end;      // the objects from p run past the end of its allocation
};
inline Status check_memory(const void* p, std::uint64_t count, std::uint64_t bytes, PointerMessages m, int device,
                           bool is_workspace = false) {
  cudaPointerAttributes a{};
  // Since CUDA 11 the query succeeds for any pointer (unregistered memory included): a failure is
  // the context's (a device reset, an earlier fault), which the caller must hear about as such.
  if (const cudaError_t e = cudaPointerGetAttributes(&a, p); e != cudaSuccess) {
    cudaGetLastError();  // a non-sticky failure also sets the last error: the Status carries it
    return Status::from_cuda(e);
  }
  const DeviceAddress address = a.devicePointer == nullptr ? DeviceAddress::none
                                : a.devicePointer == p      ? DeviceAddress::same
                                                            : DeviceAddress::other;
  int pageable = 0;
  if (!is_workspace && address != DeviceAddress::same && a.type != cudaMemoryTypeDevice &&
      cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) {
    cudaGetLastError();
    pageable = 0;
  }
  switch (is_workspace ? workspace_reach_of(a.type, address) : reach_of(a.type, address, pageable != 0)) {
    case Reach::yes: break;
    case Reach::host: return Status::fail(Errc::not_device_memory, m.host);
    case Reach::other_device: return Status::fail(Errc::not_device_memory, m.other_device);
    case Reach::elsewhere: return Status::fail(Errc::not_device_memory, m.elsewhere);
  }
  if (!fits_in(allocation_range(p), reinterpret_cast<std::uintptr_t>(p), count, bytes))
    return Status::fail(Errc::invalid_argument, m.past_end);
  return Status::ok();
}
inline constexpr PointerMessages input_messages{
    "input is host memory, which the stream's device cannot read: copy it to device memory, or pin and map it "
    "(cudaMallocHost, cudaHostRegister)",
    "input is on another device, which the stream's device cannot access: reduce on a stream of that device "
    "or enable peer access",
    "input is registered host memory, which the stream's device reads at another address: pass the pointer "
    "cudaHostGetDevicePointer gives",
    "count runs past the end of the input's allocation: n elements from the input pointer do not fit in it "
    "(a count of bytes?)"};
inline constexpr PointerMessages result_messages{
    "result pointer is host memory, which the stream's device cannot write: pass device memory, or pin and map it "
    "(cudaMallocHost, cudaHostRegister)",
    "result pointer is on another device, which the stream's device cannot access: reduce on a stream of that "
    "device or enable peer access",
    "result pointer is registered host memory, which the stream's device writes at another address: pass the "
    "pointer cudaHostGetDevicePointer gives",
    "result pointer runs past the end of its allocation: the result type does not fit in it"};
inline constexpr PointerMessages workspace_messages{
    "workspace is host memory: allocate it with cudaMalloc on the stream's device",
    "workspace is on another device, which the stream's device cannot access", "",
    "workspace runs past the end of its allocation: gpureduce::workspace_bytes from the pointer do not fit in it"};

// How a kernel is launched: its grid, block, stream, and whether as a programmatic dependent of
// the stream's previous kernel (Options::dependent_launch; kernel/grid_dependency.cuh).
struct Launch {
  unsigned blocks;
  unsigned threads;
  cudaStream_t stream;
  bool dependent;
};

// Launches `kernel` and returns the launch's own error. cudaGetLastError after <<<>>> would also
// report an earlier, unrelated failure of the caller's as this call's, and clear it from the
// caller's view (seen in test_device_reset_gpu: a cudaFree refused after a reset failed the next
// reduction, which had launched and was exact).
template <class... Params, class... Args>
cudaError_t launch_kernel(void (*kernel)(Params...), const Launch& launch, Args&&... args) {
  cudaLaunchAttribute dependent{};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(launch.blocks);
  config.blockDim = dim3(launch.threads);
  config.stream = launch.stream;
  config.attrs = &dependent;
  config.numAttrs = launch.dependent ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

// While a reduction is being captured into a graph in the global capture mode, the first call's
// set-up (occupancy query, which loads the kernel; workspace allocation) would be refused as
// unsafe. These calls do not touch the capturing stream, so relax the mode for the call's duration.
class RelaxedCaptureScope {
 public:
  RelaxedCaptureScope() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~RelaxedCaptureScope() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  RelaxedCaptureScope(const RelaxedCaptureScope&) = delete;
  RelaxedCaptureScope& operator=(const RelaxedCaptureScope&) = delete;

 private:
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;
};

// What a launch needs to know of the current device: the resident blocks of each of up to two
// kernels (the grid kernel with plain and with evict-first loads), cached per kernel set and
// device, so a call makes one lookup.
struct DeviceLimits {
  std::uint64_t resident_blocks[2];  // on all SMs, in the order of the kernels
  std::uint64_t sm_count;
  std::uint64_t l2_bytes;
  double dram_gbps;
};
template <unsigned Threads, auto... Kernels>
  requires(sizeof...(Kernels) >= 1 && sizeof...(Kernels) <= 2)
Status device_limits(int device, DeviceLimits* out) {
  static std::mutex m;
  static std::unordered_map<int, DeviceLimits> cache;
  std::lock_guard lock(m);
  if (const auto it = cache.find(device); it != cache.end()) {
    *out = it->second;
    return Status::ok();
  }
  int sms = 0, l2 = 0, clock_khz = 0, bus_bits = 0;
  for (const auto& [value, attribute] : {std::pair{&sms, cudaDevAttrMultiProcessorCount},
                                         std::pair{&l2, cudaDevAttrL2CacheSize},
                                         std::pair{&clock_khz, cudaDevAttrMemoryClockRate},
                                         std::pair{&bus_bits, cudaDevAttrGlobalMemoryBusWidth}})
    if (const cudaError_t e = cudaDeviceGetAttribute(value, attribute, device); e != cudaSuccess)
      return Status::from_cuda(e);
  DeviceLimits d{{0, 0}, std::uint64_t(sms), std::uint64_t(l2),
                 dram_gbps(std::uint64_t(clock_khz), std::uint64_t(bus_bits))};
  int k = 0;
  cudaError_t e = cudaSuccess;
  for (const void* kernel : {reinterpret_cast<const void*>(Kernels)...}) {
    int per_sm = 0;
    if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Threads, 0);
    d.resident_blocks[k++] = std::uint64_t(per_sm > 0 ? per_sm : 1) * std::uint64_t(sms);
  }
  if (e != cudaSuccess) return Status::from_cuda(e);
  *out = cache[device] = d;
  return Status::ok();
}

inline bool misaligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment != 0;
}

// Whether q_bytes at q share a byte with an array the source reads: a result inside the input (an
// in-place reduction) or a caller's workspace over the input.
template <class Source>
bool overlaps_input(const Source& src, std::uint64_t n, const void* q, std::uint64_t q_bytes) {
  const auto inside = [&](const auto* p) {
    return overlaps_elements(reinterpret_cast<std::uintptr_t>(p), n, sizeof(*p), reinterpret_cast<std::uintptr_t>(q),
                             q_bytes);
  };
  if constexpr (requires { src.data; }) return inside(src.data);
  else return inside(src.a) || inside(src.b);
}

// A caller's workspace: large enough and aligned for the partials published in it.
inline Status check_workspace(const Options& opt) {
  if (opt.workspace && opt.workspace_size < workspace_bytes)
    return Status::fail(Errc::invalid_argument, "workspace smaller than gpureduce::workspace_bytes");
  if (opt.workspace && misaligned(opt.workspace, workspace_alignment))
    return Status::fail(Errc::invalid_argument, "workspace is not 16-byte aligned (cudaMalloc's memory is)");
  return Status::ok();
}

// The grid workspace of a reduction on `stream`: the caller's (Options::workspace), or the stream's
// slot's (workspace.hpp).
inline Status grid_workspace(const Options& opt, cudaStream_t stream, unsigned char** ws) {
  *ws = static_cast<unsigned char*>(opt.workspace);
  if (*ws) return Status::ok();
  unsigned char* slot = nullptr;
  if (const Status s = workspace_slot(stream, &slot); !s) return s;
  *ws = slot + slot_result_bytes;
  return Status::ok();
}

// The checks that need no CUDA call, made first: null pointers, the count, the workspace's size,
// and pointers misaligned for their types (an element pointer at an odd address, say), where a
// kernel would fault with a misaligned address, which ends the context.
template <class Source, class Out>
Status check_arguments(const Source& src, std::uint64_t n, const Out* out, const Options& opt) {
  if (out == nullptr) return Status::fail(Errc::null_pointer, "result pointer is null");
  if (n > std::uint64_t(INT64_MAX))
    return Status::fail(Errc::invalid_argument, "count exceeds 2^63 - 1 (a negative count?)");
  bool null_input = false, misaligned_input = false;
  if constexpr (requires { src.data; }) {
    null_input = src.data == nullptr;
    misaligned_input = misaligned(src.data, alignof(std::remove_cvref_t<decltype(*src.data)>));
  } else {
    null_input = src.a == nullptr || src.b == nullptr;
    misaligned_input = misaligned(src.a, alignof(std::remove_cvref_t<decltype(*src.a)>)) ||
                       misaligned(src.b, alignof(std::remove_cvref_t<decltype(*src.b)>));
  }
  if (n > 0 && null_input) return Status::fail(Errc::null_pointer, "input pointer is null");
  if (n > 0 && misaligned_input)
    return Status::fail(Errc::invalid_argument, "input pointer is not aligned to its element type");
  if (misaligned(out, alignof(Out)))
    return Status::fail(Errc::invalid_argument, "result pointer is not aligned to its type");
  if (opt.batch_invariant)
    return Status::fail(Errc::invalid_argument,
                        "Options::batch_invariant is for the axis and segmented reductions (axis.cuh)");
  if (const Status s = check_workspace(opt); !s) return s;
  // A grid writes its partials there while blocks still read the input, and ends in the result.
  if (opt.workspace && overlaps_input(src, n, opt.workspace, workspace_bytes))
    return Status::fail(Errc::invalid_argument, "workspace overlaps the input");
  if (opt.workspace && overlaps_elements(reinterpret_cast<std::uintptr_t>(out), 1, sizeof(Out),
                                         reinterpret_cast<std::uintptr_t>(opt.workspace), workspace_bytes))
    return Status::fail(Errc::invalid_argument, "workspace overlaps the result");
  return Status::ok();
}

// Then, with the stream's device current (StreamDeviceScope): can it reach every pointer, and do
// the counts fit?
template <class Source, class Out>
Status check_pointers(const Source& src, std::uint64_t n, const Out* out, const Options& opt, int device) {
  if (n > 0) {
    if constexpr (requires { src.data; }) {
      if (const Status s = check_memory(src.data, n, sizeof(*src.data), input_messages, device); !s) return s;
    } else {
      if (const Status s = check_memory(src.a, n, sizeof(*src.a), input_messages, device); !s) return s;
      if (const Status s = check_memory(src.b, n, sizeof(*src.b), input_messages, device); !s) return s;
    }
  }
  if (const Status s = check_memory(out, 1, sizeof(Out), result_messages, device); !s) return s;
  if (opt.workspace) return check_memory(opt.workspace, 1, workspace_bytes, workspace_messages, device, true);
  return Status::ok();
}

// The checks every call makes before it launches anything, on the stream's device, which the
// scope makes current for the rest of the call.
template <class Source, class Out>
Status check_call(const Source& src, std::uint64_t n, const Out* out, cudaStream_t stream, const Options& opt,
                  StreamDeviceScope& on_stream_device) {
  if (const Status s = check_arguments(src, n, out, opt); !s) return s;
  if (const Status s = on_stream_device.enter(stream); !s) return s;
  return check_pointers(src, n, out, opt, on_stream_device.device());
}

// The kind of input a Source reads, as the tuning table keys it (tuning_sm90.hpp).
template <class Source>
constexpr InputKind input_kind() {
  using T = typename Source::element_type;
  if constexpr (Source::arrays == 2) return InputKind::dot;
  else if constexpr (is_element_v<T>) return plain_values_v<Source> ? InputKind::numbers : InputKind::transformed;
  else if constexpr (is_complex_v<T>) return plain_values_v<Source> ? InputKind::complex : InputKind::transformed;
  else if constexpr (!reads_one_per_load_v<Source>)
    return vector_span_bytes(sizeof(T)) > 80 ? InputKind::records_in_staged_vectors : InputKind::records_in_vectors;
  else if constexpr (sizeof(T) <= 8 && alignof(T) >= 4) return InputKind::records_in_words;
  else if constexpr (alignof(T) < 4 && sizeof(T) / alignof(T) > 16) return InputKind::records_of_narrow_fields;
  else return record_loads_v<T> <= 8 ? InputKind::records_in_loads : InputKind::records_in_more_loads;
}

// The grid block of staged vectors of 208 bytes and more (tuning_sm90_for): the most threads whose
// vectors the stage holds in one part, where that is under 256 (13 and 15 int16 fields take two
// parts of the stage instead); 0 for other sources.
template <class Source>
constexpr unsigned staged_threads() {
  if constexpr (input_kind<Source>() == InputKind::records_in_staged_vectors) {
    using T = typename Source::element_type;
    if constexpr (Source::one_part_threads < 256 && !(alignof(T) == 2 && vector_span_bytes(sizeof(T)) <= 240)) {
      static_assert(Source::template stage_parts<Source::one_part_threads / warp_threads> == 1,
                    "a staged vector wider than a block of 2 warps' stage holds");
      return Source::one_part_threads;
    }
  }
  return 0;
}

// The launch constants of a reduction: the table's row for its input, operator class and element
// size; values that cost more than one operator each (element_work) take a lower one-block limit,
// where the grid hands its partials over in flagged slots.
template <class A, class Source, class Op>
constexpr ReduceTuning reduce_tuning() {
  constexpr bool element_work = Source::arrays == 1 && !plain_values_v<Source> && tree_flaggable<A, Op>;
  constexpr OpClass op_class = is_arg_extreme_v<Op> ? OpClass::arg_extreme : OpClass::fold;
  constexpr ReduceTuning t = tuning_sm90_for(input_kind<Source>(), op_class, Source::split_bytes,
                                             vector_span_bytes(Source::split_bytes), element_work,
                                             staged_threads<Source>());
  static_assert(t.grid_threads != 0, "the tuning table has no row for this input and operator");
  return t;
}

// The one-block kernel on `threads` threads (plan_launch's), the input's split worked out here.
template <class A, class Out, class Source, class Op>
cudaError_t launch_one_block(const Source& src, std::uint64_t n, unsigned threads, Out* out, Op op,
                             cudaStream_t stream, bool dependent) {
  constexpr ReduceTuning tuning = reduce_tuning<A, Source, Op>();
  const VectorSplit split = src.split(n);
  const auto one_block = [&]<unsigned Threads, int Unroll, Batches B = Batches::one_block>() {
    constexpr auto kernel =
        single_block_kernel<Threads, tuning.single_min_blocks, Unroll, A, Out, Source, Op, PlainLoad, B>;
    return launch_kernel(kernel, Launch{1, Threads, stream, dependent}, src, split, out, op);
  };
  // At most one vector per thread (tuning_sm90.hpp, sm90::fold).
  if constexpr (tuning.one_vector_max_threads != 0) {
    constexpr unsigned most = tuning.one_vector_max_threads;
    const unsigned one_vector = one_vector_threads(split.vectors, tuning);
    if (one_vector == 256) return one_block.template operator()<256, 1, Batches::at_most_one>();
    if constexpr (most > 256)
      if (one_vector == most) return one_block.template operator()<most, 1, Batches::at_most_one>();
  }
  // One record per thread (tuning_sm90.hpp, one_per_load).
  if constexpr (tuning.one_per_thread_max_bytes != 0) {
    const unsigned one_per_thread = one_per_thread_threads(n, Source::split_bytes, tuning);
    if (one_per_thread == tuning.small_single_threads)
      return one_block.template operator()<tuning.small_single_threads, 1>();
    if constexpr (tuning.one_per_thread_max_bytes > tuning.small_single_threads * Source::split_bytes)
      if (one_per_thread == tuning.single_threads) return one_block.template operator()<tuning.single_threads, 1>();
  }
  if constexpr (tuning.small_single_max_bytes != 0)
    if (threads == tuning.small_single_threads)
      return one_block.template operator()<tuning.small_single_threads, tuning.single_unroll>();
  return one_block.template operator()<tuning.single_threads, tuning.single_unroll>();
}

// Records read in vectors (ArraySource) as one block reads them where it reads them all in one
// batch one per load (RecordSource: 2048 records), rather than in vectors. A vector holds 2-16
// records, so in vectors a few thousand of them keep a few threads of the block busy, each working
// through its vectors' records in turn; one per load, every thread takes one to four. Only the
// one-block kernel of one per load is compiled for them (H100, record_probe: sum of 1000 records of
// 5 int8 fields 5.06 -> 4.48 us, CUB 5.31).
template <class Source>
struct one_per_load_of {};
template <class T, class Transform>
  requires(!is_element_v<T> && !is_complex_v<T>)
struct one_per_load_of<ArraySource<T, Transform>> {
  using type = RecordSource<T, Transform>;
};
// Up to how many records of Source one block reads one per load (0: Source reads no records in
// vectors).
template <class A, class Source, class Op>
constexpr std::uint64_t one_block_one_per_load_max() {
  if constexpr (requires { typename one_per_load_of<Source>::type; }) {
    using R = typename one_per_load_of<Source>::type;
    return reduce_tuning<A, R, Op>().single_block_max_bytes / R::split_bytes;
  } else {
    return 0;
  }
}

template <class A, class Out, class Source, class Op>
Status dispatch_reduce(const Source& src, std::uint64_t n, Out* out, Op op, cudaStream_t stream,
                       const Options& opt) noexcept {
  using T = typename Source::element_type;
  constexpr ReduceTuning tuning = reduce_tuning<A, Source, Op>();
  constexpr auto grid =
      grid_kernel<tuning.grid_threads, tuning.grid_min_blocks, tuning.grid_unroll, false, false, A, Out, Source, Op>;
  constexpr auto grid_evict_first =
      grid_kernel<tuning.grid_threads, tuning.grid_min_blocks, tuning.grid_unroll, true, false, A, Out, Source, Op>;
  constexpr auto grid_combiner =
      grid_combiner_kernel<tuning.grid_threads, tuning.grid_min_blocks, tuning.grid_unroll, A, Out, Source, Op>();

  return host_guarded([&]() -> Status {
    const RelaxedCaptureScope relaxed;
    StreamDeviceScope on_stream_device;
    if (const Status s = check_call(src, n, out, stream, opt, on_stream_device); !s) return s;
    const ForcedLaunch force = forced_launch();
    if constexpr (one_block_one_per_load_max<A, Source, Op>() != 0) {
      using R = typename one_per_load_of<Source>::type;
      if ((force.kernel == Kernel::automatic || force.kernel == Kernel::one_block) &&
          n <= one_block_one_per_load_max<A, Source, Op>()) {
        const LaunchPlan plan = plan_launch(n, 0, R::split_bytes, reduce_tuning<A, R, Op>(), 1, Kernel::one_block);
        return Status::from_cuda(
            launch_one_block<A>(R{src.data, src.transform}, n, plan.threads, out, op, stream, opt.dependent_launch));
      }
    }
    const int device = on_stream_device.device();
    DeviceLimits limits{};
    if (const Status s = device_limits<tuning.grid_threads, grid, grid_evict_first>(device, &limits); !s) return s;
    constexpr unsigned bytes = sizeof(T) * Source::arrays;
    const ReduceTuning here = on_device(tuning, limits.dram_gbps);
    const bool evict_first = evict_first_loads(opt.l2, n, bytes, limits.l2_bytes, here);
    // Forced, grids of several waves at any size, with plain loads.
    const bool waves = force.kernel == Kernel::waves;
    const std::uint64_t max_blocks =
        grid_block_limit(n, bytes, limits.l2_bytes, limits.resident_blocks[!waves && evict_first], here);
    // The combiner kernel loads evict-first, as every grid of up to max_combiner_blocks does unless
    // the caller asks for plain loads; for an atomic end, every grid that loads evict-first. A
    // result inside the input takes the last block's poll instead: the atomic end's identity store
    // and atomics would land in elements that blocks have still to read (the combiner kernel of
    // such a result type has no other end).
    const bool in_place = atomic_end_v<A, Out, Op> && overlaps_input(src, n, out, sizeof(Out));
    const LaunchPlan plan = plan_launch(n, src.address(), Source::split_bytes, here, max_blocks, force.kernel,
                                        force.blocks,
                                        tree_flaggable<A, Op> && evict_first && !waves && !in_place,
                                        atomic_end_v<A, Out, Op> && !in_place);
    if (plan.kernel == Kernel::one_block)
      return Status::from_cuda(launch_one_block<A>(src, n, plan.threads, out, op, stream, opt.dependent_launch));
    unsigned char* ws = nullptr;
    if (const Status s = grid_workspace(opt, stream, &ws); !s) return s;
    const auto kernel = plan.combiner ? grid_combiner : !waves && evict_first ? grid_evict_first : grid;
    return Status::from_cuda(
        launch_kernel(kernel, Launch{unsigned(plan.blocks), tuning.grid_threads, stream, opt.dependent_launch}, src,
                      n, out, ws, op));
  });
}

}  // namespace gpureduce::detail
