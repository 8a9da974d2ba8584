// The rung table: one entry per rung, in ladder order.
#include <gpureduce/ladder/r0_neighbored_global.cuh>
#include <gpureduce/ladder/r1_interleaved_divergent.cuh>
#include <gpureduce/ladder/r2_interleaved_strided.cuh>
#include <gpureduce/ladder/r3_sequential_addressing.cuh>
#include <gpureduce/ladder/r4_first_add_during_load.cuh>
#include <gpureduce/ladder/r5_unrolled_last_warp.cuh>
#include <gpureduce/ladder/r6_complete_unroll.cuh>
#include <gpureduce/ladder/r7_grid_stride.cuh>
#include <gpureduce/ladder/r8_warp_shuffle.cuh>
#include <gpureduce/ladder/r9_vector_single_pass.cuh>
#include <gpureduce/ladder/registry.hpp>

#include "../common/find_by_name.hpp"

#include <array>

namespace gpureduce::ladder {
using namespace gpureduce::detail;
namespace {

#define GPUREDUCE_RUNG(ns, adds, single) \
  Rung { #ns, adds, single, ns::workspace_bytes, ns::launch<std::int32_t>, ns::launch<float>, ns::launch<double> }

const std::array table{
    GPUREDUCE_RUNG(r0, "neighbored pairs in global memory", false),
    GPUREDUCE_RUNG(r1, "shared memory, tid % 2s (divergent)", false),
    GPUREDUCE_RUNG(r2, "strided index: no divergence", false),
    GPUREDUCE_RUNG(r3, "sequential addressing: no bank conflicts", false),
    GPUREDUCE_RUNG(r4, "first add during load", false),
    GPUREDUCE_RUNG(r5, "last warp unrolled (__syncwarp)", false),
    GPUREDUCE_RUNG(r6, "completely unrolled (template block)", false),
    GPUREDUCE_RUNG(r7, "many elements per thread (grid stride)", false),
    GPUREDUCE_RUNG(r8, "warp shuffle + warp partials", false),
    GPUREDUCE_RUNG(r9, "16-byte loads, one launch (last block)", true),
};

#undef GPUREDUCE_RUNG

}  // namespace

std::span<const Rung> rungs() { return table; }

const Rung* find_rung(std::string_view name) { return find_by_name(table, name); }

}  // namespace gpureduce::ladder
