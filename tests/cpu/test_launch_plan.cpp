// The production path's launch arithmetic, on the host.
#include <gpureduce/dispatch/exact_plan.hpp>
#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/dispatch/allocation_range.hpp>
#include <gpureduce/dispatch/pointer_reach.hpp>
#include <gpureduce/dispatch/tuning_sm90.hpp>
#include <gpureduce/dispatch/workspace.hpp>
#include <gpureduce/exact/format.hpp>
#include <gpureduce/grid/flagged_partial.hpp>
#include <gpureduce/thread/result_types.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

// The table's rows without the rules of particular inputs (number waves, records).
template <std::size_t E>
constexpr ReduceTuning fold = tuning_sm90_for(InputKind::transformed, OpClass::fold, E, 16, false);
template <std::size_t E>
constexpr ReduceTuning arg = tuning_sm90_for(InputKind::transformed, OpClass::arg_extreme, E, 16, false);
template <std::size_t E>
constexpr ReduceTuning dot = tuning_sm90_for(InputKind::dot, OpClass::fold, E, 16, false);
constexpr ReduceTuning t = fold<4>;
constexpr std::uint64_t resident = 132 * 8;  // H100, 8 blocks of 256 threads per SM

TEST(test_dispatch_launch_plan, kernel_by_size) {
  for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(31), t.single_block_max_bytes / 4}) {
    const LaunchPlan p = plan_launch(n, 0, 4, t, resident);
    EXPECT_EQ(p.kernel, Kernel::one_block) << n;
    EXPECT_EQ(p.blocks, 1u);
    EXPECT_EQ(p.threads, t.single_threads);
  }
  EXPECT_EQ(plan_launch(t.single_block_max_bytes / 4 + 1, 0, 4, t, resident).kernel, Kernel::grid);
  // 1-byte elements leave the one-block kernel after one batch (more work per byte).
  EXPECT_EQ(fold<1>.single_block_max_bytes, 32 * 1024u);
  EXPECT_EQ(plan_launch(32 * 1024 + 15, 0, 1, fold<1>, resident).kernel, Kernel::one_block);
  EXPECT_EQ(plan_launch(32 * 1024 + 16, 0, 1, fold<1>, resident).kernel, Kernel::grid);
  // Dot products: one block up to 32 KB per array, whatever the element size.
  const auto dot_kernel = []<std::size_t E>(std::uint64_t n) {
    return plan_launch(n, 0, E, dot<E>, resident).kernel;
  };
  EXPECT_EQ(dot_kernel.operator()<8>(4097), Kernel::one_block);
  EXPECT_EQ(dot_kernel.operator()<8>(4098), Kernel::grid);
  EXPECT_EQ(dot_kernel.operator()<2>(16391), Kernel::one_block);
  EXPECT_EQ(dot_kernel.operator()<2>(16392), Kernel::grid);
  EXPECT_EQ(dot_kernel.operator()<1>(32783), Kernel::one_block);
  EXPECT_EQ(dot_kernel.operator()<1>(32784), Kernel::grid);
}

// A one-block limit of one batch counts whole vectors: at the largest count it takes, from any
// address, the input holds no more vectors than the limit's bytes. Limits of more than a batch,
// 16-byte elements and those that do not tile a vector are exact.
TEST(test_dispatch_launch_plan, one_batch_limit_counts_whole_vectors) {
  const auto largest = [](unsigned e, const ReduceTuning& u) {
    std::uint64_t n = 0;
    while (takes_one_block(n + 1, e, u)) ++n;
    return n;
  };
  for (unsigned e : {1u, 2u, 4u, 8u}) {
    ReduceTuning u = t;
    u.single_block_max_bytes = 32 * 1024;  // 512 threads x 4 vectors
    const std::uint64_t n = largest(e, u);
    EXPECT_EQ(n, (32 * 1024 + 16 - e) / e) << e;
    for (std::uint64_t addr = 0; addr < 16; addr += e)
      EXPECT_LE(VectorSplit::make(addr, n, e).vectors * 16, 32 * 1024u) << e << " " << addr;
  }
  EXPECT_EQ(largest(1, fold<1>), 32 * 1024u + 15);
  EXPECT_EQ(largest(2, dot<2>), 16 * 1024u + 7);
  EXPECT_EQ(largest(4, t), t.single_block_max_bytes / 4);
  EXPECT_EQ(largest(8, arg<8>), arg<8>.single_block_max_bytes / 8);
  ReduceTuning r = t;
  r.single_block_max_bytes = 24 * 1024;
  EXPECT_EQ(largest(16, r), 1536u);
  EXPECT_EQ(largest(12, r), 2048u);
}

// argmin/argmax run the one-block kernel with 256 threads up to 16 KB, forced or not; other
// operators always with 512. 1-byte elements go to the grid above 32 KB, others above 56 KB.
TEST(test_dispatch_launch_plan, small_one_block_for_argmin_argmax) {
  constexpr ReduceTuning a8 = arg<8>, a1 = arg<1>;
  EXPECT_EQ(plan_launch(1, 0, 8, a8, resident).threads, 256u);
  EXPECT_EQ(plan_launch(2048, 0, 8, a8, resident).threads, 256u);
  EXPECT_EQ(plan_launch(2049, 0, 8, a8, resident).threads, 512u);
  EXPECT_EQ(plan_launch(2049, 0, 8, a8, resident).kernel, Kernel::one_block);
  EXPECT_EQ(plan_launch(16 * 1024, 0, 1, a1, resident).threads, 256u);
  EXPECT_EQ(plan_launch(16 * 1024 + 1, 0, 1, a1, resident).kernel, Kernel::one_block);
  EXPECT_EQ(plan_launch(16 * 1024 + 1, 0, 1, a1, resident).threads, 512u);
  EXPECT_EQ(plan_launch(32 * 1024 + 16, 0, 1, a1, resident).kernel, Kernel::grid);
  EXPECT_EQ(plan_launch(16 * 1024 + 1, 0, 1, a1, resident, Kernel::one_block).threads, 512u);
  EXPECT_EQ(plan_launch(33, 0, 8, a8, resident, Kernel::one_block).threads, 256u);
  EXPECT_EQ(plan_launch(1u << 20, 0, 8, a8, resident, Kernel::one_block).threads, 512u);
  // The grid from 64 KB (float32 2^14), one block still at 48 KB (12289 elements).
  constexpr ReduceTuning a4 = arg<4>;
  EXPECT_EQ(plan_launch(12289, 0, 4, a4, resident).kernel, Kernel::one_block);
  EXPECT_EQ(plan_launch(1u << 14, 0, 4, a4, resident).kernel, Kernel::grid);
  EXPECT_EQ(plan_launch(0, 0, 4, t, resident).threads, t.single_threads);
  EXPECT_EQ(plan_launch(1, 0, 4, t, resident).threads, t.single_threads);
}

// Inputs of up to 512 whole vectors take the one-block kernel with one vector per thread: 256
// threads up to 256 vectors, 512 up to 512; the batched kernel beyond, and where a tuning has none.
TEST(test_dispatch_launch_plan, one_vector_per_thread_up_to_512_vectors) {
  for (const ReduceTuning& u : {t, fold<1>, dot<2>, arg<8>}) {
    EXPECT_EQ(u.one_vector_max_threads, 512u);
    EXPECT_EQ(one_vector_threads(0, u), 256u);
    EXPECT_EQ(one_vector_threads(1, u), 256u);
    EXPECT_EQ(one_vector_threads(256, u), 256u);
    EXPECT_EQ(one_vector_threads(257, u), 512u);
    EXPECT_EQ(one_vector_threads(512, u), 512u);
    EXPECT_EQ(one_vector_threads(513, u), 0u);
  }
  ReduceTuning none = t;
  none.one_vector_max_threads = 0;
  EXPECT_EQ(one_vector_threads(1, none), 0u);
  EXPECT_EQ(tuning_sm90_for(InputKind::records_in_words, OpClass::fold, 16, 16, false).one_vector_max_threads, 0u);
}

TEST(test_dispatch_launch_plan, grid_covers_the_vectors_up_to_one_wave) {
  const std::uint64_t per_block = std::uint64_t(t.grid_unroll) * t.grid_threads * 4;  // int32 elements
  const auto grid = [](std::uint64_t n, std::uint64_t res) { return plan_launch(n, 0, 4, t, res, Kernel::grid); };
  EXPECT_EQ(grid(10 * per_block, resident).blocks, 10u);
  EXPECT_EQ(grid(10 * per_block + 4, resident).blocks, 11u);
  EXPECT_EQ(grid(std::uint64_t(1) << 32, resident).blocks, resident);
  EXPECT_EQ(grid(std::uint64_t(1) << 32, 100000).blocks, max_grid_blocks);
  // A misaligned start moves elements into the scalar head, never past the vector count.
  EXPECT_EQ(plan_launch(10 * per_block, 4, 4, t, resident, Kernel::grid).blocks, 10u);
}

// Up to few_blocks_max_batches batches the grid stops at polled_grid_blocks (257), its blocks
// reading several batches each; above, one batch per block up to one wave.
TEST(test_dispatch_launch_plan, few_blocks_up_to_a_mid_size) {
  const std::uint64_t per_block = std::uint64_t(t.grid_unroll) * t.grid_threads * 4;  // int32 elements
  const auto grid = [](std::uint64_t n) { return plan_launch(n, 0, 4, t, resident, Kernel::grid).blocks; };
  EXPECT_EQ(polled_grid_blocks(t), 257u);
  EXPECT_EQ(grid(256 * per_block), 256u);
  EXPECT_EQ(grid(257 * per_block), 257u);
  EXPECT_EQ(grid(258 * per_block), 257u);
  EXPECT_EQ(grid(t.few_blocks_max_batches * per_block), 257u);
  EXPECT_EQ(grid(t.few_blocks_max_batches * per_block + 4), resident);
  EXPECT_EQ(plan_launch(258 * per_block, 0, 4, t, 100, Kernel::grid).blocks, 100u);  // a smaller wave
  for (const ReduceTuning& u : {fold<1>, dot<8>, arg<2>})
    EXPECT_EQ(u.few_blocks_max_batches, t.few_blocks_max_batches);
  // Forced grids keep their block count.
  EXPECT_EQ(plan_launch(258 * per_block, 0, 4, t, resident, Kernel::grid, 1000).blocks, 1000u);
}

// Where the call allows it, a grid of up to max_combiner_blocks gets one block more than it has
// readers, the last one combining; forced, the combiner is one of the forced blocks.
TEST(test_dispatch_launch_plan, combiner_block) {
  const std::uint64_t per_block = std::uint64_t(t.grid_unroll) * t.grid_threads * 4;  // int32 elements
  const auto plan = [](std::uint64_t n, std::uint64_t res, std::uint64_t forced = 0) {
    return plan_launch(n, 0, 4, t, res, Kernel::grid, forced, true);
  };
  EXPECT_TRUE(plan(16 * per_block, resident).combiner);
  EXPECT_EQ(plan(16 * per_block, resident).blocks, 17u);
  EXPECT_EQ(plan((max_combiner_blocks - 1) * per_block, resident).blocks, max_combiner_blocks);
  EXPECT_FALSE(plan((max_combiner_blocks - 1) * per_block + 4, resident).combiner);
  EXPECT_EQ(plan((max_combiner_blocks - 1) * per_block + 4, resident).blocks, max_combiner_blocks);
  EXPECT_FALSE(plan(16 * per_block, 16).combiner);  // no room for it in one wave
  EXPECT_FALSE(plan_launch(16 * per_block, 0, 4, t, resident, Kernel::grid).combiner);  // not allowed
  EXPECT_TRUE(plan(5, resident, 2).combiner);
  EXPECT_FALSE(plan(5, resident, 1).combiner);
  EXPECT_FALSE(plan(5, resident, max_combiner_blocks + 1).combiner);
  // An atomic end takes the extra block in every grid: a full wave with one reader fewer.
  const auto atomic = [](std::uint64_t n, std::uint64_t res, std::uint64_t forced = 0) {
    return plan_launch(n, 0, 4, t, res, Kernel::grid, forced, true, true);
  };
  EXPECT_EQ(atomic(16 * per_block, resident).blocks, 17u);
  EXPECT_EQ(atomic(polled_grid_blocks(t) * per_block, resident).blocks, polled_grid_blocks(t) + 1);
  EXPECT_TRUE(atomic(polled_grid_blocks(t) * per_block, resident).combiner);
  EXPECT_EQ(atomic(t.few_blocks_max_batches * per_block, resident).blocks, polled_grid_blocks(t) + 1);
  EXPECT_EQ(atomic((t.few_blocks_max_batches + 1) * per_block, resident).blocks, resident);  // a full wave
  EXPECT_TRUE(atomic((t.few_blocks_max_batches + 1) * per_block, resident).combiner);
  EXPECT_EQ(atomic(16 * per_block, 16).blocks, 16u);  // one wave of 16: 15 readers
  EXPECT_TRUE(atomic(16 * per_block, 16).combiner);
  EXPECT_FALSE(atomic(16 * per_block, 1).combiner);  // no room for a reader beside block 0
  EXPECT_TRUE(atomic(5, resident, max_grid_blocks).combiner);
  EXPECT_FALSE(atomic(5, resident, 1).combiner);
}

TEST(test_dispatch_launch_plan, forced_shapes) {
  EXPECT_EQ(plan_launch(1u << 28, 0, 4, t, resident, Kernel::one_block).kernel, Kernel::one_block);
  const LaunchPlan p = plan_launch(5, 0, 4, t, resident, Kernel::grid, 7);
  EXPECT_EQ(p.kernel, Kernel::grid);
  EXPECT_EQ(p.blocks, 7u);
  EXPECT_EQ(plan_launch(5, 0, 4, t, resident, Kernel::grid, 1u << 20).blocks, max_grid_blocks);
  // The kernel of grids of several waves at any size: a grid, sized as the grid kernel's.
  const LaunchPlan w = plan_launch(5, 0, 4, t, resident, Kernel::waves);
  EXPECT_EQ(w.kernel, Kernel::waves);
  EXPECT_EQ(w.blocks, 1u);
  EXPECT_EQ(plan_launch(1u << 28, 0, 4, t, resident, Kernel::waves).blocks, resident);
}

TEST(test_dispatch_launch_plan, loads_evict_first_up_to_four_times_l2) {
  constexpr std::uint64_t l2 = 50u << 20;  // H100
  constexpr L2Policy a = L2Policy::automatic;
  EXPECT_EQ(t.evict_first_max_l2, 4u);
  EXPECT_TRUE(evict_first_loads(a, std::uint64_t(1) << 24, 4, l2, t));  // 64 MB
  EXPECT_TRUE(evict_first_loads(a, 4 * l2 / 4, 4, l2, t));
  EXPECT_FALSE(evict_first_loads(a, 4 * l2 / 4 + 1, 4, l2, t));
  EXPECT_FALSE(evict_first_loads(a, 4 * l2 / 8 + 1, 8, l2, t));  // a dot product of int32 reads 8 bytes per element
  EXPECT_FALSE(evict_first_loads(a, std::uint64_t(INT64_MAX), 1, l2, t));
  EXPECT_TRUE(evict_first_loads(a, 1, 16, l2, t));
  EXPECT_FALSE(evict_first_loads(a, 1, 4, l2, ReduceTuning{}));  // 0: never
  EXPECT_EQ(fold<1>.evict_first_max_l2, 4u);
  EXPECT_EQ(arg<8>.evict_first_max_l2, 4u);
  // The caller's choice holds at any size.
  EXPECT_FALSE(evict_first_loads(L2Policy::normal, 1024, 4, l2, t));
  EXPECT_TRUE(evict_first_loads(L2Policy::evict_first, std::uint64_t(1) << 40, 4, l2, t));
}

// Grids of several waves: whole waves of resident blocks, as many as max_grid_blocks holds, from
// waves_min_l2 times the L2 size; one wave below, and where the tuning asks for none.
TEST(test_dispatch_launch_plan, large_inputs_may_take_several_waves) {
  constexpr std::uint64_t l2 = 50u << 20;
  ReduceTuning w = t;
  w.waves_min_l2 = 16;
  w.grid_waves = 6;
  const std::uint64_t from = 16 * l2 / 20;  // 20-byte records
  EXPECT_EQ(grid_block_limit(from - 1, 20, l2, 660, w), 660u);
  EXPECT_EQ(grid_block_limit(from, 20, l2, 660, w), 3960u);
  EXPECT_EQ(grid_block_limit(std::uint64_t(INT64_MAX), 1, l2, 660, w), 3960u);
  EXPECT_EQ(grid_block_limit(from, 20, l2, 1056, w), 3168u);  // 3 whole waves fit in 4096
  EXPECT_EQ(grid_block_limit(from, 20, l2, 4096, w), 4096u);
  EXPECT_EQ(grid_block_limit(from, 20, l2, 5000, w), 5000u);  // plan_launch caps it at max_grid_blocks
  EXPECT_EQ(grid_block_limit(std::uint64_t(1) << 40, 4, l2, 660, t), 660u);  // 0: never
  EXPECT_FALSE(several_waves(from - 1, 20, l2, w));
  EXPECT_TRUE(several_waves(from, 20, l2, w));
  EXPECT_FALSE(several_waves(std::uint64_t(1) << 40, 4, l2, t));
  // The plan then reads with that many blocks.
  EXPECT_EQ(plan_launch(from, 0, 16, w, grid_block_limit(from, 20, l2, 660, w)).blocks, 3960u);
  EXPECT_EQ(plan_launch(from, 0, 16, w, grid_block_limit(from, 20, l2, 5000, w)).blocks, max_grid_blocks);
}

// A tuning that asks for a DRAM bandwidth takes several waves only on devices that have it. The
// attributes of an H100 80GB HBM3 and an H200 give the bench's theoretical_gbps of each.
TEST(test_dispatch_launch_plan, several_waves_may_need_a_fast_memory) {
  EXPECT_DOUBLE_EQ(dram_gbps(2'619'000, 5120), 3352.32);   // H100 80GB HBM3
  EXPECT_DOUBLE_EQ(dram_gbps(3'201'000, 6016), 4814.304);  // H200
  ReduceTuning w = t;
  w.waves_min_l2 = 16;
  w.grid_waves = 6;
  w.waves_min_dram_gbps = 4500;
  constexpr std::uint64_t l2 = 60u << 20, n = std::uint64_t(1) << 30;
  EXPECT_EQ(grid_block_limit(n, 4, l2, 1056, on_device(w, 4814.304)), 3168u);
  EXPECT_EQ(grid_block_limit(n, 4, l2, 1056, on_device(w, 4500)), 3168u);
  EXPECT_EQ(grid_block_limit(n, 4, l2, 1056, on_device(w, 4499.9)), 1056u);
  EXPECT_EQ(grid_block_limit(n, 4, l2, 1056, on_device(w, 3352.3)), 1056u);
  EXPECT_EQ(on_device(w, 3352.3).grid_unroll, w.grid_unroll);  // nothing else changes
  w.waves_min_dram_gbps = 0;  // any device
  EXPECT_EQ(grid_block_limit(n, 4, l2, 1056, on_device(w, 0)), 3168u);
}

TEST(test_dispatch_launch_plan, workspace_holds_a_partial_per_block) {
  EXPECT_GE(workspace_bytes, grid_ticketed_offset + max_grid_blocks * 16);
  EXPECT_GE(grid_ticketed_offset, grid_flagged_offset + max_grid_blocks * 16);  // the regions never overlap
  // The atomic end's two words: after the ticketed partials, 128 bytes apart (never on one line).
  EXPECT_GE(grid_generation_offset, grid_ticketed_offset + max_grid_blocks * 16);
  EXPECT_EQ(grid_published_offset, grid_generation_offset + 128);
  EXPECT_GE(workspace_bytes, grid_published_offset + 128);
  EXPECT_EQ(detail::slot_bytes % 256, 0u);
  EXPECT_GE(detail::slot_bytes, detail::slot_result_bytes + workspace_bytes);
}

// The exact sum's grid: readers and a combiner block, at most as many readers as the workspace's
// flagged slots hold packets for (double: 23 packets, 178 readers), whole waves over the SMs (a
// full wave: the combiner takes one reader's place), one batch of 512 x 4 vectors per reader at
// most; one block for small inputs.
TEST(test_dispatch_exact_plan, grid_fits_the_workspace_in_whole_waves) {
  constexpr int double_words = exact::SumOf<double>::range.words();
  constexpr int float_words = exact::SumOf<float>::range.words();
  EXPECT_EQ(double_words, 69);
  EXPECT_EQ(float_words, 13);
  EXPECT_EQ(exact::max_readers(double_words), 178u);
  EXPECT_EQ(exact::max_blocks(double_words), 179u);
  const std::uint64_t big = std::uint64_t(1) << 30;
  const auto blocks = [](std::uint64_t vectors, std::uint64_t resident, int words) {
    return exact::plan_blocks(vectors, 512, resident, 132, words);
  };
  const std::uint64_t wave = 2048 * 1000;  // vectors: 1000 batches
  EXPECT_EQ(blocks(wave, 132 * 4, double_words), 132u);
  EXPECT_EQ(blocks(wave, 132 * 4, float_words), 132u * 4);
  // Readers of 64 batches or more filling every resident slot: the combiner comes after them.
  const std::uint64_t long_run = 64 * 132 * 2 * 2048;  // vectors
  EXPECT_EQ(blocks(long_run, 132 * 2, float_words), 132u * 2 + 1);
  EXPECT_EQ(blocks(long_run - 2048, 132 * 2, float_words), 132u * 2);
  EXPECT_EQ(blocks(big, 132 * 4, float_words), 132u * 4 + 1);
  EXPECT_EQ(blocks(big, 132 * 4, double_words), 132u);
  EXPECT_EQ(blocks(long_run * 4, 132 * 2, double_words), 132u);  // 132 < 264 resident: no
  EXPECT_EQ(blocks(long_run * 4, 132 * 2 + 5, float_words), 132u * 2);  // rounded below resident: no
  EXPECT_EQ(blocks(0, 132 * 4, float_words), 1u);
  // One block up to 40 KB of float and the half types, 72 KB of double.
  EXPECT_EQ(blocks(40960 / 16, 132 * 4, float_words), 1u);
  EXPECT_EQ(blocks(40960 / 16 + 1, 132 * 4, float_words), 3u);  // 2 readers
  EXPECT_EQ(blocks(40960 / 16, 132 * 4, 12), 1u);
  EXPECT_EQ(blocks(40960 / 16 + 1, 132 * 4, 12), 3u);
  EXPECT_EQ(blocks(73728 / 16, 132 * 4, double_words), 1u);
  EXPECT_EQ(blocks(73728 / 16 + 1, 132 * 4, double_words), 4u);
  EXPECT_EQ(blocks(512 * 4 * 10 + 1, 132 * 4, float_words), 12u);
  EXPECT_EQ(blocks(wave, 100, float_words), 100u);  // fewer resident than SMs
  EXPECT_EQ(blocks(wave, 1, float_words), 2u);      // the combiner waits for a slot
  // A grid forced (Kernel::grid): readers of one batch each and the combiner, at any size.
  EXPECT_EQ(exact::grid_blocks(0, 512, 132 * 4, 132, float_words), 2u);
  EXPECT_EQ(exact::grid_blocks(131072 / 16, 512, 132 * 4, 132, double_words), 5u);
  EXPECT_EQ(exact::readers(1), 1u);
  EXPECT_EQ(exact::readers(132), 131u);
}

// The exact sum's loads: evict-first from 16 MB to 4x the L2 size (H100: 50 MB), or as the caller
// asks.
TEST(test_dispatch_exact_plan, evict_first_from_16_mb_to_4x_l2) {
  constexpr std::uint64_t l2 = 50 << 20, mb = 1 << 20;
  EXPECT_FALSE(exact::evict_first(L2Policy::automatic, 16 * mb - 1, l2));
  EXPECT_TRUE(exact::evict_first(L2Policy::automatic, 16 * mb, l2));
  EXPECT_TRUE(exact::evict_first(L2Policy::automatic, 4 * l2, l2));
  EXPECT_FALSE(exact::evict_first(L2Policy::automatic, 4 * l2 + 1, l2));
  EXPECT_TRUE(exact::evict_first(L2Policy::evict_first, 1024, l2));
  EXPECT_FALSE(exact::evict_first(L2Policy::normal, 64 * mb, l2));
}

// The flagged slots of the grid kernel: a published partial reads back bit for bit and is full;
// the empty (all-zero) slot is not, whatever the accumulator, including a partial of all zero bits.
// Op: the operator, which decides only whether an 8-byte argmin/argmax may flag its index's sign.
template <class Op = Sum, class A>
void expect_round_trip(const A& a) {
  const FlaggedPartial p = flag_partial<A, Op>(a);
  EXPECT_TRUE((is_full<A, Op>(p)));
  EXPECT_FALSE((is_full<A, Op>(FlaggedPartial{})));
  const A back = flagged_value<A, Op>(p);
  if constexpr (requires { a.index; }) {  // the padding may carry the flag
    EXPECT_EQ(std::memcmp(&back.value, &a.value, sizeof(a.value)), 0);
    EXPECT_EQ(back.index, a.index);
  } else {
    EXPECT_EQ(std::memcmp(&back, &a, sizeof(A)), 0);
  }
}

TEST(test_dispatch_launch_plan, flagged_partials) {
  static_assert(flaggable<float, Sum> && flaggable<double, Sum> && flaggable<std::int64_t, Sum> &&
                flaggable<MinMax<float>, MinMaxOp>);
  static_assert(flag_at<IndexedValue<float>, ArgMax> == FlagAt::padding &&
                flag_at<IndexedValue<std::int8_t>, ArgMin> == FlagAt::padding);
  static_assert(flag_at<IndexedValue<double>, ArgMax> == FlagAt::index_sign &&
                flag_at<IndexedValue<std::int64_t>, ArgMin> == FlagAt::index_sign);
  // Another operator's indices may be negative; minmax of 8-byte values fills the slot.
  static_assert(!flaggable<IndexedValue<double>, Sum> && !flaggable<MinMax<double>, MinMaxOp>);
  for (float x : {0.0f, -0.0f, 1.5f, -3.25e30f, std::numeric_limits<float>::quiet_NaN()}) expect_round_trip(x);
  for (std::int64_t x : {std::int64_t(0), std::int64_t(-1), INT64_MIN, INT64_MAX}) expect_round_trip(x);
  expect_round_trip(std::uint8_t(0));
  expect_round_trip(-1.0e300);
  expect_round_trip<MinMaxOp>(MinMax<float>{-2.0f, 7.0f});
  expect_round_trip<MinMaxOp>(MinMax<std::int32_t>{0, 0});
  // Argmin/argmax indices: element positions, and the identity's INT64_MAX.
  for (std::int64_t i : {std::int64_t(0), std::int64_t(1) << 40, INT64_MAX}) {
    expect_round_trip<ArgMax>(IndexedValue<float>{-0.0f, i});
    expect_round_trip<ArgMax>(IndexedValue<float>{std::numeric_limits<float>::quiet_NaN(), i});
    expect_round_trip<ArgMin>(IndexedValue<std::int32_t>{-1, i});
    expect_round_trip<ArgMin>(IndexedValue<std::int32_t>{0, i});
    expect_round_trip<ArgMax>(IndexedValue<std::int8_t>{-128, i});
    expect_round_trip<ArgMax>(IndexedValue<std::uint16_t>{65535, i});
    expect_round_trip<ArgMax>(IndexedValue<double>{0.0, i});
    expect_round_trip<ArgMax>(IndexedValue<double>{-std::numeric_limits<double>::quiet_NaN(), i});
    expect_round_trip<ArgMin>(IndexedValue<std::int64_t>{INT64_MIN, i});
    expect_round_trip<ArgMin>(IndexedValue<std::uint64_t>{0, i});
  }
}

// A result inside the input (an in-place reduction) is told from one beside it, at either end, for
// results wider or narrower than the elements and counts whose bytes would wrap.
TEST(test_dispatch_allocation_range, results_inside_the_input) {
  using detail::overlaps_elements;
  constexpr std::uintptr_t p = 0x10000;
  EXPECT_TRUE(overlaps_elements(p, 1000, 4, p, 8));  // the first element
  EXPECT_TRUE(overlaps_elements(p, 1000, 4, p + 3996, 4));  // the last
  EXPECT_TRUE(overlaps_elements(p, 1000, 4, p + 3998, 8));  // the last's upper half and beyond
  EXPECT_FALSE(overlaps_elements(p, 1000, 4, p + 4000, 8));  // just past the end
  EXPECT_TRUE(overlaps_elements(p, 1000, 4, p - 4, 8));  // reaches the first element
  EXPECT_FALSE(overlaps_elements(p, 1000, 4, p - 8, 8));  // just before it
  EXPECT_TRUE(overlaps_elements(p, 1000, 16, p + 5 * 16 + 3, 1));  // inside a record
  EXPECT_FALSE(overlaps_elements(p, 0, 4, p, 8));  // nothing read
  EXPECT_TRUE(overlaps_elements(p, ~std::uint64_t(0) / 4 + 2, 4, p + 64, 8));  // n * 4 would wrap
  EXPECT_FALSE(overlaps_elements(p, ~std::uint64_t(0) / 4 + 2, 4, p - 16, 8));
}

// n elements from p inside the allocation the driver reports (range_probe, H100): the count is
// checked against what is left from p, in whole elements, without overflow at counts up to 2^63.
TEST(test_dispatch_allocation_range, counts_that_fit_and_counts_that_run_past_the_end) {
  using detail::AllocationRange;
  using detail::fits_in;
  const AllocationRange r{0x10000, 4000};  // cudaMalloc(4000)
  EXPECT_TRUE(fits_in(r, 0x10000, 1000, 4));
  EXPECT_FALSE(fits_in(r, 0x10000, 1001, 4));
  EXPECT_FALSE(fits_in(r, 0x10000, 4000, 4));  // bytes passed for elements
  EXPECT_TRUE(fits_in(r, 0x10000 + 4, 999, 4));  // an interior pointer
  EXPECT_FALSE(fits_in(r, 0x10000 + 4, 1000, 4));
  EXPECT_TRUE(fits_in(r, 0x10000 + 3999, 1, 1));
  EXPECT_FALSE(fits_in(r, 0x10000 + 3999, 2, 1));
  EXPECT_TRUE(fits_in(r, 0x10000 + 3997, 0, 4));  // nothing read
  EXPECT_FALSE(fits_in(r, 0x10000 + 3997, 1, 4));  // a partial element at the end
  EXPECT_FALSE(fits_in(r, 0x10000, std::uint64_t(INT64_MAX), 8));
  EXPECT_FALSE(fits_in(r, 0x10000, ~std::uint64_t(0) / 4 + 2, 4));  // n * 4 would wrap to a small number
  // Nothing known of p: not refused.
  EXPECT_TRUE(fits_in(AllocationRange{}, 0x10000, std::uint64_t(INT64_MAX), 8));  // pageable memory
  EXPECT_TRUE(fits_in(r, 0x8000, 1u << 30, 4));
  EXPECT_TRUE(fits_in(r, 0x10000 + 4000, 1u << 30, 4));
}

// What cudaPointerGetAttributes gives for each kind of memory (device_access_probe, two H200s;
// the pageable probe on one H100), and whether the stream's device can use it.
TEST(test_dispatch_pointer_reach, every_kind_of_memory) {
  using detail::Reach;
  using detail::reach_of;
  using detail::workspace_reach_of;
  using A = detail::DeviceAddress;
  for (const bool pageable : {false, true}) {
    SCOPED_TRACE(pageable ? "device reads pageable memory" : "no pageable memory access");
    EXPECT_EQ(reach_of(cudaMemoryTypeDevice, A::same, pageable), Reach::yes);            // own, or peer access on
    EXPECT_EQ(reach_of(cudaMemoryTypeDevice, A::none, pageable), Reach::other_device);  // another device's, no access
    EXPECT_EQ(reach_of(cudaMemoryTypeManaged, A::same, pageable), Reach::yes);
    EXPECT_EQ(reach_of(cudaMemoryTypeHost, A::same, pageable), Reach::yes);  // cudaMallocHost, cudaHostRegister
    // cudaHostRegister'd where the device cannot use the host's address: only its own address works
    EXPECT_EQ(reach_of(cudaMemoryTypeHost, A::other, pageable), pageable ? Reach::yes : Reach::elsewhere);
    // malloc, the stack: readable only by a device with pageable memory access (HMM, ATS)
    EXPECT_EQ(reach_of(cudaMemoryTypeUnregistered, A::none, pageable), pageable ? Reach::yes : Reach::host);
  }
  EXPECT_EQ(workspace_reach_of(cudaMemoryTypeDevice, A::same), Reach::yes);
  EXPECT_EQ(workspace_reach_of(cudaMemoryTypeManaged, A::same), Reach::yes);
  EXPECT_EQ(workspace_reach_of(cudaMemoryTypeDevice, A::none), Reach::other_device);
  EXPECT_EQ(workspace_reach_of(cudaMemoryTypeHost, A::same), Reach::host);  // pinned: mapped, but never a workspace
  EXPECT_EQ(workspace_reach_of(cudaMemoryTypeHost, A::other), Reach::host);
  EXPECT_EQ(workspace_reach_of(cudaMemoryTypeUnregistered, A::none), Reach::host);
}

// Lanes per row of the rows kernel (tuning_sm90.hpp, row_lanes): 4, 8 or 32, never fewer for a
// longer row, and for argmin/argmax never more than for a fold of the same row.
TEST(test_launch_plan, row_lanes_grow_with_the_row) {
  using detail::row_lanes;
  for (const bool arg : {false, true}) {
    unsigned last = 0;
    for (std::uint64_t vectors = 1; vectors <= 600; ++vectors) {
      const unsigned lanes = row_lanes(vectors, arg);
      EXPECT_TRUE(lanes == 4 || lanes == 8 || lanes == 32) << vectors << " vectors";
      EXPECT_GE(lanes, last) << vectors << " vectors";
      if (arg) EXPECT_LE(lanes, row_lanes(vectors, false)) << vectors << " vectors";
      last = lanes;
    }
  }
  // float32 rows (4 a vector), as measured: 33 and 65 elements on 4 lanes, 100 and 256 on 8, 1024 a
  // warp; argmax of 100 and 256 on 4.
  EXPECT_EQ(row_lanes(9, false), 4u);
  EXPECT_EQ(row_lanes(17, false), 4u);
  EXPECT_EQ(row_lanes(25, false), 8u);
  EXPECT_EQ(row_lanes(64, false), 8u);
  EXPECT_EQ(row_lanes(256, false), 32u);
  EXPECT_EQ(row_lanes(25, true), 4u);
  EXPECT_EQ(row_lanes(64, true), 4u);
}

// Rows a block each (tuning_sm90.hpp, block_per_row): beyond 16 vectors a lane of a warp always;
// past warp_slice elements where rows are fewer than the target blocks, which warps would slice.
TEST(test_launch_plan, block_per_row_where_warps_would_slice) {
  using detail::block_per_row;
  using detail::warp_slice;
  constexpr std::uint64_t target = 2112;  // two waves of 256-thread blocks on 132 SMs
  // bfloat16 (8 a vector): rows of 4096 a block each when few, not when they fill the device.
  EXPECT_TRUE(block_per_row(4, 4096, 8, target));
  EXPECT_TRUE(block_per_row(target - 1, 4096, 8, target));
  EXPECT_FALSE(block_per_row(target, 4096, 8, target));
  // float32 rows of 4096 are past 16 vectors a lane (2048 elements): a block each at any count.
  EXPECT_TRUE(block_per_row(1 << 20, 4096, 4, target));
  EXPECT_FALSE(block_per_row(1 << 20, 2048, 4, target));
  // Rows that warps would not slice never take a block.
  EXPECT_FALSE(block_per_row(1, warp_slice, 4, target));
  EXPECT_TRUE(block_per_row(1, warp_slice + 1, 4, target));
  // Longer rows, or fewer, never leave a block for warps; rows up to warp_slice, within 16 vectors
  // a lane, never take one.
  for (const unsigned v : {1u, 2u, 4u, 8u, 16u})
    for (std::uint64_t rows = 1; rows <= 4 * target; rows = rows * 3 + 1)
      for (std::uint64_t length = 1; length <= (std::uint64_t(1) << 20); length = length * 2 + 1) {
        const bool block = block_per_row(rows, length, v, target);
        if (block) EXPECT_TRUE(block_per_row(rows, length * 2, v, target)) << rows << " x " << length;
        if (block && rows > 1) EXPECT_TRUE(block_per_row(rows / 2, length, v, target)) << rows << " x " << length;
        if (length <= warp_slice && length <= 512u * v) EXPECT_FALSE(block) << rows << " x " << length;
      }
}

}  // namespace
}  // namespace gpureduce
