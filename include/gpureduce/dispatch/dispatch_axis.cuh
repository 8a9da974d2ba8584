// Dispatch of the axis and segmented reductions: checks the arguments, plans the shape
// (axis_plan.hpp) and launches the kernel the plan and the row length call for
// (kernel/axis_kernels.cuh). A reduction over every element of a contiguous run is the full
// reduction (dispatch_reduce.cuh).
#pragma once

#include <gpureduce/dispatch/axis_plan.hpp>
#include <gpureduce/dispatch/dispatch_reduce.cuh>
#include <gpureduce/dispatch/forced_launch.hpp>
#include <gpureduce/grid/arithmetic.hpp>
#include <gpureduce/grid/block_slices.hpp>
#include <gpureduce/kernel/axis_kernels.cuh>
#include <gpureduce/kernel/csr_segments_kernel.cuh>
#include <gpureduce/kernel/invariant_segments_kernel.cuh>
#include <gpureduce/kernel/staged_rows_kernel.cuh>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <cstdint>

namespace gpureduce::detail {

inline constexpr unsigned axis_threads = 256;

// Work enough to fill the device: two waves of full-occupancy blocks of axis_threads.
struct AxisDevice {
  std::uint64_t target_blocks;
  std::uint64_t target_warps;
  std::uint64_t max_grid;
};
inline Status axis_device(int device, AxisDevice* d) {
  int sms = 0;
  if (const cudaError_t e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device); e != cudaSuccess)
    return Status::from_cuda(e);
  const std::uint64_t resident = std::uint64_t(sms) * (2048 / axis_threads);
  *d = {2 * resident, 2 * resident * (axis_threads / warp_threads), 8 * resident};
  return Status::ok();
}

// Pieces per output so that `parallel` outputs x pieces reach `target`, each piece at least
// `min_piece` of the `length` elements (a multiple of `multiple`); returns the piece length.
inline std::uint64_t slice_length(std::uint64_t parallel, std::uint64_t target, std::uint64_t length,
                                  std::uint64_t min_piece, std::uint64_t multiple) {
  if (parallel >= target || length <= min_piece) return length;
  std::uint64_t piece = ceil_div(length, ceil_div(target, parallel));
  piece = piece < min_piece ? min_piece : piece;
  return ceil_div(piece, multiple) * multiple;
}

// Temporary partials (sliced rows or columns), from the library's partials pool
// (WorkspacePool::partials_pool) in stream order: capturable, freed in stream order after the
// combine.
template <class A>
struct Partials {
  A* p = nullptr;
  cudaStream_t stream;
  Status alloc(std::uint64_t count) {
    const RelaxedCaptureScope relaxed;  // the pool's creation, while the stream is captured
    WorkspacePool* workspace = nullptr;
    if (const Status s = WorkspacePool::current(&workspace); !s) return s;
    cudaMemPool_t pool = nullptr;
    if (const Status s = workspace->partials_pool(&pool); !s) return s;
    return Status::from_cuda(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&p), count * sizeof(A), pool, stream));
  }
  ~Partials() {
    if (p) cudaFreeAsync(p, stream);
  }
};

// Whether interleaved_rows_kernel takes elements T into accumulators A: a lane's V accumulators
// in at most 128 bytes of registers (int8 argmin would spill).
template <class T, class A>
inline constexpr bool interleaved_fits = Vector<T>::size * sizeof(A) <= 128;

// Lanes per row of `vectors` 16-byte vectors, `pieces` rows (or slices): row_lanes, more where the
// rows are too few for those to fill two waves of threads.
inline unsigned group_lanes(std::uint64_t vectors, bool arg_extreme, std::uint64_t pieces, const AxisDevice& dev) {
  unsigned lanes = row_lanes(vectors, arg_extreme);
  while (lanes < warp_threads && pieces * lanes < dev.target_warps * warp_threads) lanes = lanes == 4 ? 8 : 32;
  return lanes;
}

// Rows_kernel (interleaved_rows_kernel for rows of interleaved columns, `aligned`: every row's
// run 16-byte aligned and a whole number of vectors, a vector or more a lane); `block`: a block
// per row or slice (block_per_row).
template <class A, class Out, class T, class Rows, class Op>
cudaError_t launch_rows(const T* in, const Rows& rows, std::uint64_t num_rows, std::uint64_t row_length,
                        unsigned shift, bool aligned, bool block, std::uint64_t slice, Out* out, A* partials, Op op,
                        const AxisDevice& dev, cudaStream_t stream) {
  const std::uint64_t slices = slice >= row_length ? 1 : ceil_div(row_length, slice);
  const std::uint64_t pieces = num_rows * slices;
  if constexpr (interleaved_fits<T, A>)
    if (shift > 0 && aligned && (slices == 1 ? row_length : slice) >= warp_threads * Vector<T>::size) {
      const std::uint64_t blocks = ceil_div(pieces, axis_threads / warp_threads);
      interleaved_rows_kernel<axis_threads, 4, false, A><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid),
                                                           axis_threads, 0, stream>>>(
          in, rows, num_rows, shift, slices, slices == 1 ? row_length : slice, out, partials, op);
      return cudaGetLastError();
    }
  const auto launch = [&]<unsigned G, unsigned U, unsigned K, RowLoads L>() {
    constexpr unsigned per_block = axis_threads / G * U;
    const std::uint64_t blocks = ceil_div(pieces, per_block);
    const unsigned grid = unsigned(blocks < dev.max_grid ? blocks : dev.max_grid);
    rows_kernel<axis_threads, G, U, K, L, A><<<grid, axis_threads, 0, stream>>>(
        in, rows, num_rows, shift, slices, slices == 1 ? row_length : slice, out, partials, op);
    return cudaGetLastError();
  };
  const std::uint64_t piece = slices == 1 ? row_length : slice;
  // Rows of a block each (block_per_row); of more than one element per lane 4, 8 or 32 lanes in
  // 16-byte vectors, by their vectors (row_lanes), more where rows are too few for those to fill
  // two waves of threads; shorter ones the fewest lanes that hold them, four rows at a time.
  constexpr unsigned V = Vector<T>::size;
  constexpr RowLoads vectors = RowLoads::vectors, elements = RowLoads::elements;
  if (shift == 0 && block) return launch.template operator()<axis_threads, 1, 4, vectors>();
  if (shift == 0 && piece > warp_threads) {
    const unsigned lanes = group_lanes(ceil_div(piece, V), is_arg_extreme_v<Op>, pieces, dev);
    if (lanes == 4) return launch.template operator()<4, 1, 4, vectors>();
    if (lanes == 8) return launch.template operator()<8, 1, 4, vectors>();
    return launch.template operator()<32, 1, 4, vectors>();
  }
  if (piece > warp_threads) return launch.template operator()<32, 1, 4, elements>();
  const std::uint64_t lanes = piece > (1u << shift) ? piece : (1u << shift);
  if (lanes <= 4) return launch.template operator()<4, 4, 1, elements>();
  if (lanes <= 8) return launch.template operator()<8, 4, 1, elements>();
  return launch.template operator()<32, 4, 1, elements>();
}

// Folds the slices' partials into the outputs: a block per output where outputs are few and slices
// many (batch-invariant: where slices are many); 8 threads per output where outputs are too few for
// a thread each to keep enough loads in flight (up to a 32nd of two waves of threads: 4,096 outputs
// of 512 slices went from 64 dependent rounds to 8, 399 to 374 us, H100) and slices are many; a
// thread per output otherwise. Batch-invariant, more than invariant_combine_group slices: a block
// per output and group of that many slices first, then the groups' results the same way (a block
// per output alone kept a few outputs' folds to a few multiprocessors: float32 columns 2 wide of
// 2^27 rows took 561 us against 370 in the default mode, grouped 384 against 362; H100).
template <class A, class Out, class Op>
Status launch_combine(const A* partials, std::uint64_t slices, const Dims& outer, std::uint64_t outputs,
                      std::uint64_t inner, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream,
                      bool invariant = false) {
  constexpr unsigned ways = axis_threads / warp_threads;
  const std::uint64_t groups = ceil_div(slices, invariant_combine_group);
  if (invariant && groups > 1 && groups <= 65535) {
    Partials<A> grouped{nullptr, stream};
    if (const Status s = grouped.alloc(groups * outputs); !s) return s;
    combine_kernel<axis_threads, axis_threads, A><<<dim3(unsigned(outputs), unsigned(groups)), axis_threads, 0,
                                                    stream>>>(partials, slices, invariant_combine_group, outer,
                                                              outputs, inner, out, grouped.p, op);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return Status::from_cuda(e);
    return launch_combine<A>(grouped.p, groups, outer, outputs, inner, out, op, dev, stream, true);
  }
  // Batch-invariant: the tree depends on the slices alone, not on how many results there are.
  if ((invariant || outputs < dev.target_blocks) && slices >= 64)
    combine_kernel<axis_threads, axis_threads, A><<<unsigned(outputs), axis_threads, 0, stream>>>(
        partials, slices, slices, outer, outputs, inner, out, (A*)nullptr, op);
  else if (!invariant && slices >= 2 * ways && outputs * warp_threads <= dev.target_blocks * axis_threads)
    combine_kernel<axis_threads, ways, A><<<unsigned(ceil_div(outputs, warp_threads)), axis_threads, 0, stream>>>(
        partials, slices, slices, outer, outputs, inner, out, (A*)nullptr, op);
  else
    combine_kernel<axis_threads, 1, A><<<unsigned(ceil_div(outputs, axis_threads)), axis_threads, 0, stream>>>(
        partials, slices, slices, outer, outputs, inner, out, (A*)nullptr, op);
  return Status::from_cuda(cudaGetLastError());
}

// Rows of `length` elements back to back, results contiguous: no kept dimension, or one that steps
// a row in the input and one result in the output.
inline bool back_to_back(const Dims& outer, std::uint64_t length) {
  return outer.count == 0 || (outer.count == 1 && outer.in[0] == std::int64_t(length) && outer.out[0] == 1);
}

// Rows back to back (rows x 2^log_length elements from a 16-byte aligned origin, results
// contiguous, up to dense_rows_vectors vectors a row), read as one stream of vectors.
template <class Op, class T>
bool dense_rows(const T* in, const Dims& outer, std::uint64_t length, unsigned shift) {
  const unsigned most = is_arg_extreme_v<Op> ? dense_rows_vectors.arg : dense_rows_vectors.fold;
  return shift == 0 && std::has_single_bit(length) && length <= most * Vector<T>::size &&
         reinterpret_cast<std::uintptr_t>(in) % vector_bytes == 0 && back_to_back(outer, length);
}

// Rows of `length` elements (x 2^shift interleaved columns), outputs = rows x 2^shift.
template <class A, class Out, class T, class Op>
Status run_uniform_rows(const T* in, const Dims& outer, std::uint64_t rows, std::uint64_t length,
                        unsigned shift, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream) {
  if (length > 0 && dense_rows<Op>(in, outer, length, shift)) {
    constexpr unsigned U = 4;
    const std::uint64_t vectors = ceil_div(rows * length, Vector<T>::size);
    const std::uint64_t blocks = ceil_div(vectors, axis_threads * U);
    const unsigned grid = unsigned(blocks < dev.max_grid ? blocks : dev.max_grid);
    if (length < Vector<T>::size)
      dense_rows_kernel<axis_threads, U, true, A><<<grid, axis_threads, 0, stream>>>(
          in, rows, unsigned(std::countr_zero(length)), out, op);
    else
      dense_rows_kernel<axis_threads, U, false, A><<<grid, axis_threads, 0, stream>>>(
          in, rows, unsigned(std::countr_zero(length)), out, op);
    return Status::from_cuda(cudaGetLastError());
  }
  const std::uint64_t row_length = length << shift;
  const UniformRows r{outer, row_length};
  constexpr unsigned V = Vector<T>::size;
  bool aligned = V > 1 && row_length % V == 0 && reinterpret_cast<std::uintptr_t>(in) % vector_bytes == 0;
  for (int k = 0; k < outer.count; ++k) aligned = aligned && outer.in[k] % V == 0;
  // Few rows: slices of a row across groups, then their partials combined.
  const bool block_rows = shift == 0 && block_per_row(rows, row_length, V, dev.target_blocks);
  const std::uint64_t slice =
      block_rows ? slice_length(rows, dev.target_blocks, row_length, 16 * axis_threads * V, vector_bytes)
                 : slice_length(rows, dev.target_warps, row_length, warp_slice, std::uint64_t(warp_threads) << shift);
  if (slice >= row_length)
    return Status::from_cuda(launch_rows<A>(in, r, rows, row_length, shift, aligned, block_rows, row_length, out,
                                            (A*)nullptr, op, dev, stream));
  // A few short runs of interleaved columns: sliced within a block, one launch.
  if constexpr (interleaved_fits<T, A>)
    if (shift > 0 && aligned) {
      const std::uint64_t multiple = std::max<std::uint64_t>(std::uint64_t(warp_threads) << shift, warp_threads * V);
      if (const BlockSlices b =
              block_slices(row_length, multiple, axis_threads / warp_threads, ceil_div(row_length, slice));
          b.slices) {
        const unsigned blocks = unsigned(ceil_div(rows, b.runs));
        interleaved_rows_kernel<axis_threads, 4, true, A><<<blocks, axis_threads, 0, stream>>>(
            in, r, rows, shift, b.slices, b.slice, out, (A*)nullptr, op);
        return Status::from_cuda(cudaGetLastError());
      }
    }
  const std::uint64_t slices = ceil_div(row_length, slice), outputs = rows << shift;
  Partials<A> partials{nullptr, stream};
  if (const Status s = partials.alloc(slices * outputs); !s) return s;
  if (const cudaError_t e =
          launch_rows<A>(in, r, rows, row_length, shift, aligned, block_rows, slice, out, partials.p, op, dev, stream))
    return Status::from_cuda(e);
  return launch_combine<A>(partials.p, slices, outer, outputs, std::uint64_t(1) << shift, out, op, dev, stream);
}

// Whether a result's bits can depend on the order its elements are combined in: floating sums and
// products and callers' functors. Integer sums and products, min, max, argmin, argmax, bitwise and
// logical operators give the same bits in any order.
template <class A, class Op>
inline constexpr bool order_sensitive_v =
    is_user_op_v<Op> || ((std::is_same_v<Op, Sum> || std::is_same_v<Op, Product>) && !std::is_integral_v<A>);

// Batch-invariant rows: each row's elements folded by one thread in order (rows of up to 32); longer,
// elements of 4 bytes or more by invariant_fold (its 32 logical lanes over the row's 16-byte
// vectors counted from its first element) on 4, 8 or 32 lanes as the rows' count and length call
// for (the bits are the same on any), smaller ones in a segment's tree: on 32 / V lanes a row from
// its vectors (element_tree_fold, 2 vectors a lane in flight: 4 spilled), a warp a row through its
// stage from invariant_staged_from elements (H100, bench --axis at 2^28, against the default mode:
// bfloat16 rows of 100 0.63x, of 256 0.81x; a warp a row, scalar loads, 0.38x and 0.74x); in
// slices of invariant_row_slice elements folded in order.
// Nothing depends on the row's address; the tree depends on the row's length alone.
template <class A, class Out, class T, class Rows, class Op>
Status run_invariant_rows(const T* in, const Rows& rows, std::uint64_t num_rows, std::uint64_t length,
                          const Dims& outer, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream) {
  const std::uint64_t slices = length > invariant_row_slice ? ceil_div(length, invariant_row_slice) : 1;
  Partials<A> partials{nullptr, stream};
  if (slices > 1)
    if (const Status s = partials.alloc(slices * num_rows); !s) return s;
  const auto launch = [&]<unsigned G, unsigned U, unsigned K, RowLoads L>() {
    const std::uint64_t blocks = ceil_div(num_rows * slices, axis_threads / G * U);
    rows_kernel<axis_threads, G, U, K, L, A><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid),
                                                axis_threads, 0, stream>>>(
        in, rows, num_rows, 0, slices, slices == 1 ? length : invariant_row_slice, out, partials.p, op);
    return cudaGetLastError();
  };
  const auto fold = [&]() {
    constexpr RowLoads invariant = RowLoads::invariant;
    if (length <= warp_threads) return launch.template operator()<1, 4, 8, RowLoads::elements>();
    if constexpr (sizeof(T) < 4) {
      if ((slices == 1 ? length : invariant_row_slice) >= invariant_staged_from)
        return launch.template operator()<warp_threads, 1, staged_warp_loads, RowLoads::staged>();
      return launch.template operator()<warp_threads / Vector<T>::size, 1, 2, RowLoads::element_tree>();
    } else {
      const std::uint64_t piece = slices == 1 ? length : invariant_row_slice;
      const unsigned lanes = group_lanes(ceil_div(piece, Vector<T>::size), false, num_rows * slices, dev);
      if (lanes == 4) return launch.template operator()<4, 1, 8, invariant>();
      if (lanes == 8) return launch.template operator()<8, 1, 4, invariant>();
      return launch.template operator()<warp_threads, 1, 4, invariant>();
    }
  };
  if (const cudaError_t e = fold(); e != cudaSuccess || slices == 1)
    return Status::from_cuda(e);
  return launch_combine<A>(partials.p, slices, outer, num_rows, 1, out, op, dev, stream, true);
}

// After the columns kernel: its launch error, or the combine of its slices' partials.
template <class A, class Out, class Op>
Status finish_columns(const A* partials, std::uint64_t slices, const Dims& outer, std::uint64_t outputs,
                      std::uint64_t inner, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream,
                      bool invariant) {
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess || slices == 1) return Status::from_cuda(e);
  return launch_combine<A>(partials, slices, outer, outputs, inner, out, op, dev, stream, invariant);
}

// Rows of 3 to 31 interleaved columns, not a power of two, with a vector or more a lane
// (narrow_columns_kernel): elements of 1, 2, 4 or 8 bytes at an address they divide, so that a
// run's first 16-byte boundary is a whole number of elements before it.
template <class T>
bool narrow_columns(const T* in, std::uint64_t inner, std::uint64_t length) {
  return vector_bytes % sizeof(T) == 0 && Vector<T>::size > 1 &&
         reinterpret_cast<std::uintptr_t>(in) % sizeof(T) == 0 && inner < warp_threads &&
         !std::has_single_bit(inner) && length * inner >= narrow_lanes(unsigned(inner)) * Vector<T>::size;
}

// Narrow_columns_kernel's block: a 16 KB stage, the lanes' V accumulators each; 64 threads at the
// least (V x sizeof(A) of up to 256 bytes: 8-bit elements' argmin/argmax).
template <class T, class A>
inline constexpr unsigned narrow_threads = std::min<unsigned>(axis_threads, 16384 / (Vector<T>::size * sizeof(A)));

// Narrow_columns_kernel over `rows` runs of `length` rows of `inner` columns.
template <class A, class Out, class T, class Op>
Status run_narrow_columns(const T* in, const Dims& outer, std::uint64_t rows, std::uint64_t length, unsigned inner,
                          Out* out, Op op, const AxisDevice& dev, cudaStream_t stream) {
  constexpr unsigned V = Vector<T>::size;
  // Positions count from the 16-byte boundary at or before each run: up to V - 1 more.
  const std::uint64_t run = length * inner, reach = run + V - 1, multiple = std::uint64_t(narrow_lanes(inner)) * V;
  const std::uint64_t slice = slice_length(rows, dev.target_warps, reach, warp_slice, multiple);
  const std::uint64_t slices = slice >= reach ? 1 : ceil_div(reach, slice);
  constexpr unsigned threads = narrow_threads<T, A>;
  // A few short runs: sliced within a block, one launch.
  if (const BlockSlices b = slices > 1 ? block_slices(reach, multiple, threads / warp_threads, slices) : BlockSlices{};
      b.slices) {
    narrow_columns_kernel<threads, 4, true, A><<<unsigned(ceil_div(rows, b.runs)), threads, 0, stream>>>(
        in, UniformRows{outer, run}, rows, inner, b.slices, b.slice, out, (A*)nullptr, op);
    return Status::from_cuda(cudaGetLastError());
  }
  Partials<A> partials{nullptr, stream};
  if (slices > 1)
    if (const Status s = partials.alloc(slices * rows * inner); !s) return s;
  const std::uint64_t blocks = ceil_div(rows * slices, threads / warp_threads);
  narrow_columns_kernel<threads, 4, false, A><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid), threads, 0,
                                                stream>>>(in, UniformRows{outer, run}, rows, inner, slices, slice,
                                                          out, partials.p, op);
  return finish_columns<A>(partials.p, slices, outer, rows * inner, inner, out, op, dev, stream, false);
}

// Batch-invariant columns of a dense run from a 16-byte boundary (kept x length rows of `inner`
// adjacent columns, the kept indices' runs back to back), of elements whose size divides 16 bytes:
// invariant_columns_kernel, a block's slices staged together, so that a few columns read as fast
// as many (a thread per column and slice read them 2-16 columns apart). Its pieces start
// slice x inner elements apart: one kept index, or whole slices.
template <class T>
bool invariant_columns(const T* in, const AxisPlan& plan, std::uint64_t kept) {
  const Dims& outer = plan.kept;
  return reinterpret_cast<std::uintptr_t>(in) % vector_bytes == 0 && plan.row_stride == plan.inner &&
         plan.length > 0 && plan.inner >= 2 &&
         std::uint64_t(plan.inner) <= invariant_column_lanes<axis_threads, T> / 8 &&
         (kept == 1 || (plan.length % invariant_column_slice == 0 && outer.count == 1 &&
                        outer.in[0] == std::int64_t(plan.length) * plan.inner));
}

template <class A, class Out, class T, class Op>
Status run_invariant_columns(const T* in, const Dims& outer, std::uint64_t kept, unsigned inner,
                             std::uint64_t length, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream) {
  static_assert(invariant_column_slice % column_stage_rows == 0);
  const std::uint64_t slices = ceil_div(length, invariant_column_slice);
  const unsigned per_block = invariant_column_lanes<axis_threads, T> / inner;
  Partials<A> partials{nullptr, stream};
  if (slices > 1)
    if (const Status s = partials.alloc(slices * kept * inner); !s) return s;
  const std::uint64_t blocks = ceil_div(kept * slices, per_block);
  invariant_columns_kernel<axis_threads, A><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid), axis_threads,
                                              0, stream>>>(in, outer, kept, inner, kept * length * inner,
                                                           unsigned(invariant_column_slice), slices, per_block, out,
                                                           partials.p, op);
  return finish_columns<A>(partials.p, slices, outer, kept * inner, inner, out, op, dev, stream, true);
}

// Columns: batch-invariant, each column folds its elements in order, in slices whose length
// depends on its length alone (up to 32 columns of a dense run, run_invariant_columns).
template <class A, class Out, class T, class Op>
Status run_columns(const T* in, const AxisPlan& plan, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream,
                   bool invariant) {
  const Dims& outer = plan.kept;
  const std::uint64_t rows = plan.outputs / std::uint64_t(plan.inner);
  const std::uint64_t inner = std::uint64_t(plan.inner);
  if constexpr (order_sensitive_v<A, Op> && staged_load_size<T> > 1)
    if (invariant && invariant_columns(in, plan, rows))
      return run_invariant_columns<A>(in, outer, rows, unsigned(inner), plan.length, out, op, dev, stream);
  // A few adjacent columns over a dense run: rows of interleaved columns, read contiguously.
  if (!invariant && inner <= warp_threads && std::has_single_bit(inner) && plan.row_stride == plan.inner)
    return run_uniform_rows<A>(in, outer, rows, plan.length, unsigned(std::countr_zero(inner)), out, op, dev, stream);
  // Other narrow ones over a dense run likewise, whatever their alignment.
  if constexpr (narrow_threads<T, A> >= 64)
    if (!invariant && plan.row_stride == plan.inner && narrow_columns(in, inner, plan.length))
      return run_narrow_columns<A>(in, outer, rows, plan.length, unsigned(inner), out, op, dev, stream);
  // A 16-byte vector of adjacent columns per thread where every row's columns are so aligned, and
  // its accumulators take at most 64 bytes of registers.
  constexpr unsigned V = Vector<T>::size;
  bool vectors = V > 1 && V * sizeof(A) <= 64 && inner % V == 0 && plan.row_stride % V == 0 &&
                 reinterpret_cast<std::uintptr_t>(in) % vector_bytes == 0;
  for (int k = 0; k < outer.count; ++k) vectors = vectors && outer.in[k] % V == 0;
  const std::uint64_t groups = vectors ? plan.outputs / V : plan.outputs;
  const std::uint64_t slice = invariant ? invariant_column_slice
                                        : slice_length(ceil_div(groups, axis_threads), dev.target_blocks, plan.length,
                                                       64, 4);
  const std::uint64_t slices = ceil_div(plan.length, slice);
  const std::uint64_t blocks = ceil_div(groups * slices, axis_threads);
  if (blocks > 0x7fffffffu) return Status::fail(Errc::invalid_argument, "axis reduction: too many outputs");
  Partials<A> partials{nullptr, stream};
  if (slices > 1)
    if (const Status s = partials.alloc(slices * plan.outputs); !s) return s;
  const unsigned grid = unsigned(blocks);
  if constexpr (V * sizeof(A) <= 64)
    if (vectors) {
      columns_kernel<axis_threads, V, A><<<grid, axis_threads, 0, stream>>>(
          in, outer, plan.outputs, inner, plan.length, plan.row_stride, slice, slices, out, partials.p, op);
      return finish_columns<A>(partials.p, slices, outer, plan.outputs, inner, out, op, dev, stream, invariant);
    }
  columns_kernel<axis_threads, 1, A><<<grid, axis_threads, 0, stream>>>(
      in, outer, plan.outputs, inner, plan.length, plan.row_stride, slice, slices, out, partials.p, op);
  return finish_columns<A>(partials.p, slices, outer, plan.outputs, inner, out, op, dev, stream, invariant);
}

// Segments along the merge path (csr_segments_kernel): as many blocks as are resident and the
// workspace's ticketed area holds carries for, in one launch on the workspace (Options::workspace,
// or the stream's slot) for the ticket and the carries.
template <class A, class Out, class T, class Segments, class Op>
Status launch_merge_path(const T* in, Segments where, std::uint64_t segments, Out* out, Op op, cudaStream_t stream,
                         const Options& opt) {
  constexpr unsigned threads = csr_tuning.threads;
  constexpr unsigned items = csr_items<T>(threads, csr_tuning.stage_bytes);
  constexpr auto kernel =
      csr_segments_kernel<threads, items, csr_tuning.min_blocks, csr_staged_tuning.fill_percent, A, Out, T, Segments,
                          Op>;
  if (const Status s = check_workspace(opt); !s) return s;
  const RelaxedCaptureScope relaxed;  // the occupancy query and the slot, while the stream is captured
  unsigned char* ws = nullptr;
  if (const Status s = grid_workspace(opt, stream, &ws); !s) return s;
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return Status::from_cuda(e);
  DeviceLimits limits{};
  if (const Status s = device_limits<threads, kernel>(device, &limits); !s) return s;
  constexpr std::uint64_t most = grid_ticketed_bytes / sizeof(PathCarry<A>);
  const std::uint64_t blocks = limits.resident_blocks[0] < most ? limits.resident_blocks[0] : most;
  const CsrMeans means = forced_means(forced_launch().csr, csr_means);
  kernel<<<unsigned(blocks), threads, 0, stream>>>(in, where, segments, means, out,
                                                    reinterpret_cast<PathCarry<A>*>(ws + grid_ticketed_offset),
                                                    reinterpret_cast<unsigned*>(ws), op);
  return Status::from_cuda(cudaGetLastError());
}

// Rows back to back that staged_rows_kernel takes: short ones (in the default mode those that are
// not dense_rows, which the dense kernel reads as fast without a stage), whose results are many
// and whose loads a group of lanes per row would leave partly idle.
template <class Op, class T>
bool staged_rows(const T* in, const Dims& outer, std::uint64_t length, bool invariant) {
  return sizeof(StagedLoad<T>) * staged_rows_tuning.threads <= staged_rows_tuning.stage_bytes && length > 0 &&
         length <= staged_rows_tuning.most && (invariant || !dense_rows<Op>(in, outer, length, 0)) &&
         back_to_back(outer, length);
}

// Staged_rows_kernel: a thread per row; tiles of as many whole rows as the stage holds, fewer where
// that leaves blocks short of filling the device; the stage padded where that gives reads of rows
// of this length fewer bank conflicts.
template <class A, class Out, class T, class Op>
Status run_staged_rows(const T* in, std::uint64_t rows, std::uint64_t length, Out* out, Op op, const AxisDevice& dev,
                       cudaStream_t stream) {
  constexpr unsigned threads = staged_rows_tuning.threads;
  constexpr unsigned loads = staged_rows_tuning.stage_bytes / unsigned(sizeof(StagedLoad<T>) * threads);
  const std::uint64_t per_tile = staged_per_tile(rows, length, staged_capacity(threads, loads, staged_load_size<T>),
                                                 threads, dev.target_blocks);
  const std::uint64_t blocks = ceil_div(rows, per_tile);
  const unsigned shift = staged_rows_shifts<sizeof(T), staged_rows_tuning.most>.shift[length];
  const unsigned grid = unsigned(blocks < dev.max_grid ? blocks : dev.max_grid);
  staged_rows_kernel<threads, loads, staged_rows_tuning.min_blocks, A><<<grid, threads, 0, stream>>>(
      in, rows, length, per_tile, shift, out, op);
  return Status::from_cuda(cudaGetLastError());
}

// Pointer checks of an axis or segmented reduction: null, alignment, reach, size.
template <class T, class Out>
Status check_axis_pointers(const T* in, std::int64_t in_lo, std::int64_t in_hi, bool reads, const Out* out,
                           std::int64_t out_lo, std::int64_t out_hi, int device) {
  if (out == nullptr) return Status::fail(Errc::null_pointer, "result pointer is null");
  if (misaligned(out, alignof(Out)))
    return Status::fail(Errc::invalid_argument, "result pointer is not aligned to its type");
  if (const Status s = check_memory(out + out_lo, std::uint64_t(out_hi - out_lo + 1), sizeof(Out), result_messages,
                                    device);
      !s)
    return s;
  if (!reads) return Status::ok();
  if (in == nullptr) return Status::fail(Errc::null_pointer, "input pointer is null");
  if (misaligned(in, alignof(T)))
    return Status::fail(Errc::invalid_argument, "input pointer is not aligned to its element type");
  if (const Status s =
          check_memory(in + in_lo, std::uint64_t(in_hi - in_lo + 1), sizeof(T), input_messages, device);
      !s)
    return s;
  if (overlaps_elements(reinterpret_cast<std::uintptr_t>(out + out_lo), std::uint64_t(out_hi - out_lo + 1),
                        sizeof(Out), reinterpret_cast<std::uintptr_t>(in + in_lo),
                        std::uint64_t(in_hi - in_lo + 1) * sizeof(T)))
    return Status::fail(Errc::invalid_argument, "result overlaps the input");
  return Status::ok();
}

// What an axis reduction does after planning, unless the plan has nothing to launch: enters the
// stream's device and checks the pointers against the plan's reach.
template <class T, class Out>
Status prepare_axes(const T* in, const Out* out, const AxisPlan& plan, StreamDeviceScope& on_stream_device,
                    cudaStream_t stream) {
  if (plan.kernel == AxisKernel::none) return Status::ok();
  if (const Status s = on_stream_device.enter(stream); !s) return s;
  return check_axis_pointers(in, plan.in_lo, plan.in_hi, plan.length > 0, out, plan.out_lo, plan.out_hi,
                             on_stream_device.device());
}

template <class A, class Out, class T, class Op>
Status dispatch_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, const Shape* out_shape, Op op,
                     cudaStream_t stream, const Options& opt) noexcept {
  return host_guarded([&]() -> Status {
    const bool invariant = opt.batch_invariant && order_sensitive_v<A, Op>;
    AxisPlan plan;
    if (const Status s = plan_axes(shape, axes, out_shape, is_arg_extreme_v<Op>, &plan); !s) return s;
    // One contiguous run: the full reduction, whose own checks cover the run and the result.
    if (!invariant && plan.kernel == AxisKernel::rows && plan.outputs == 1 && plan.length > 0) {
      const T* origin = in + plan.base;
      if (in != nullptr && overlaps_elements(reinterpret_cast<std::uintptr_t>(out), 1, sizeof(Out),
                                             reinterpret_cast<std::uintptr_t>(origin), plan.length * sizeof(T)))
        return Status::fail(Errc::invalid_argument, "result overlaps the input");
      Options full = opt;
      full.batch_invariant = false;
      return dispatch_reduce<A>(ArraySource<T>{origin, {}}, plan.length, out, op, stream, full);
    }
    StreamDeviceScope on_stream_device;
    if (const Status s = prepare_axes(in, out, plan, on_stream_device, stream); !s || plan.kernel == AxisKernel::none)
      return s;
    const T* origin = in + plan.base;
    AxisDevice dev{};
    if (const Status s = axis_device(on_stream_device.device(), &dev); !s) return s;
    switch (plan.kernel) {
      case AxisKernel::rows:
        if (staged_rows<Op>(origin, plan.kept, plan.length, invariant))
          return run_staged_rows<A>(origin, plan.outputs, plan.length, out, op, dev, stream);
        if constexpr (order_sensitive_v<A, Op>)
          if (invariant)
            return run_invariant_rows<A>(origin, UniformRows{plan.kept, plan.length}, plan.outputs, plan.length,
                                         plan.kept, out, op, dev, stream);
        return run_uniform_rows<A>(origin, plan.kept, plan.outputs, plan.length, 0, out, op, dev, stream);
      case AxisKernel::columns: return run_columns<A>(origin, plan, out, op, dev, stream, invariant);
      default: {
        const std::uint64_t warps_per_block = axis_threads / warp_threads;
        const std::uint64_t blocks = ceil_div(plan.outputs, warps_per_block);
        general_kernel<axis_threads, A><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid), axis_threads, 0,
                                          stream>>>(origin, plan.kept, plan.reduced, plan.outputs,
                                                    plan.length, out, op);
        return Status::from_cuda(cudaGetLastError());
      }
    }
  });
}

// A segmented reduction: the counts and pointers checked, the stream's device entered, then
// launch(dev) with the device's size; no segments, nothing launched.
template <class T, class Out, class Offset, class Launch>
Status run_segments(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, const Out* out,
                    cudaStream_t stream, Launch&& launch) noexcept {
  return host_guarded([&]() -> Status {
    if (segments == 0) return Status::ok();
    if (segments > std::uint64_t(INT64_MAX))
      return Status::fail(Errc::invalid_argument, "segment count exceeds 2^63 - 1");
    if (begin == nullptr || end == nullptr) return Status::fail(Errc::null_pointer, "offsets pointer is null");
    if (in == nullptr) return Status::fail(Errc::null_pointer, "input pointer is null");
    StreamDeviceScope on_stream_device;
    if (const Status s = on_stream_device.enter(stream); !s) return s;
    const int device = on_stream_device.device();
    // The result as an axis reduction's (segments results); the input's extent is in device memory.
    if (const Status s = check_axis_pointers(in, 0, 0, false, out, 0, std::int64_t(segments) - 1, device); !s)
      return s;
    if (misaligned(in, alignof(T)) || misaligned(begin, alignof(Offset)) || misaligned(end, alignof(Offset)))
      return Status::fail(Errc::invalid_argument, "input or offsets pointer is not aligned to its type");
    if (const Status s = check_memory(begin, segments, sizeof(Offset), input_messages, device); !s) return s;
    if (const Status s = check_memory(end, segments, sizeof(Offset), input_messages, device); !s) return s;
    AxisDevice dev{};
    if (const Status s = axis_device(device, &dev); !s) return s;
    return launch(dev);
  });
}

// Batch-invariant segments: launch(list) runs the kernel that meets them, which lists those of
// several slices in `list` (grid/long_segments.hpp: its arrays from the partials pool, its cursor
// at grid_long_cursor_offset of the workspace); long_segments_kernel, a wave of blocks (4 a
// multiprocessor at its 64 registers), then folds those, drawing the workspace's ticket.
template <class A, class Out, class T, class Op, class Launch>
Status run_invariant_segments(const T* in, Out* out, Op op, const AxisDevice& dev, cudaStream_t stream,
                              const Options& opt, Launch&& launch) {
  if (const Status s = check_workspace(opt); !s) return s;
  unsigned char* ws = nullptr;
  {
    const RelaxedCaptureScope relaxed;  // the slot, while the stream is captured
    if (const Status s = grid_workspace(opt, stream, &ws); !s) return s;
  }
  Partials<unsigned char> bytes{nullptr, stream};
  if (const Status s = bytes.alloc(long_segments_bytes<A>); !s) return s;
  const LongSegments<A> list = long_segments_at<A>(reinterpret_cast<unsigned long long*>(ws + grid_long_cursor_offset),
                                                   bytes.p, forced_launch().unlisted ? 0 : long_slices);
  launch(list);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return Status::from_cuda(e);
  long_segments_kernel<axis_threads, invariant_staged_from, A><<<unsigned(dev.target_blocks / 4), axis_threads, 0,
                                                                 stream>>>(in, list, out,
                                                                           reinterpret_cast<unsigned*>(ws), op);
  return Status::from_cuda(cudaGetLastError());
}

// Segment r of `segments` is [begin[r], end[r]) of `in`, its result out[r]. One warp per segment;
// batch-invariant, invariant_segments_kernel.
template <class A, class Out, class T, class Offset, class Op>
Status dispatch_segments(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out, Op op,
                         cudaStream_t stream, const Options& opt) noexcept {
  return run_segments(in, segments, begin, end, out, stream, [&](const AxisDevice& dev) {
    const OffsetRows<Offset> rows{begin, end};
    const std::uint64_t blocks = ceil_div(segments, axis_threads / warp_threads);
    const unsigned grid = unsigned(blocks < dev.max_grid ? blocks : dev.max_grid);
    if constexpr (order_sensitive_v<A, Op>)
      if (opt.batch_invariant)
        return run_invariant_segments<A>(in, out, op, dev, stream, opt, [&](const LongSegments<A>& list) {
          invariant_segments_kernel<axis_threads, invariant_staged_from, A><<<grid, axis_threads, 0, stream>>>(
              in, rows, segments, list, out, op);
        });
    rows_kernel<axis_threads, warp_threads, 1, 4, RowLoads::vectors, A><<<grid, axis_threads, 0, stream>>>(
        in, rows, segments, 0, 1, 0, out, (A*)nullptr, op);
    return Status::from_cuda(cudaGetLastError());
  });
}

// Batch-invariant CSR segments (invariant_csr_kernel): staged where they are short, a warp each
// otherwise; as begin/end segments where a thread's load outgrows the stage.
template <class A, class Out, class T, class Offset, class Op>
Status run_invariant_csr(const T* in, std::uint64_t segments, const Offset* offsets, Out* out, Op op,
                         const AxisDevice& dev, cudaStream_t stream, const Options& opt) {
  constexpr unsigned threads = staged_rows_tuning.threads;
  constexpr unsigned loads = csr_staged_tuning.invariant_stage_bytes / unsigned(sizeof(StagedLoad<T>) * threads);
  const std::uint64_t blocks = ceil_div(segments, threads / warp_threads);
  const unsigned grid = unsigned(blocks < dev.target_blocks ? blocks : dev.target_blocks);
  return run_invariant_segments<A>(in, out, op, dev, stream, opt, [&](const LongSegments<A>& list) {
    if constexpr (loads > 0)
      invariant_csr_kernel<threads, loads, csr_staged_tuning.tile_segments, csr_staged_tuning.invariant_below,
                           csr_staged_tuning.fill_percent, csr_staged_tuning.invariant_groups_below,
                           csr_staged_tuning.invariant_group_most, invariant_staged_from, A>
          <<<grid, threads, 0, stream>>>(in, offsets, segments, list, out, op);
    else
      invariant_segments_kernel<axis_threads, invariant_staged_from, A><<<grid, axis_threads, 0, stream>>>(
          in, OffsetRows<Offset>{offsets, offsets + 1}, segments, list, out, op);
  });
}

// CSR offsets: segment r is [offsets[r], offsets[r + 1]).
template <class A, class Out, class T, class Offset, class Op>
Status dispatch_csr_segments(const T* in, std::uint64_t segments, const Offset* offsets, Out* out, Op op,
                             cudaStream_t stream, const Options& opt) noexcept {
  return run_segments(in, segments, offsets, offsets ? offsets + 1 : nullptr, out, stream, [&](const AxisDevice& dev) {
    if constexpr (order_sensitive_v<A, Op>)
      if (opt.batch_invariant) return run_invariant_csr<A>(in, segments, offsets, out, op, dev, stream, opt);
    return launch_merge_path<A>(in, CsrOffsets<Offset>{{offsets}}, segments, out, op, stream, opt);
  });
}

}  // namespace gpureduce::detail
