// The matrix-multiplication rung table: one entry per rung, in ladder order.
#include <gpureduce/matmul/m0_one_block_global.cuh>
#include <gpureduce/matmul/m1_one_block_shared.cuh>
#include <gpureduce/matmul/m2_global_2d.cuh>
#include <gpureduce/matmul/m3_shared_tiles.cuh>
#include <gpureduce/matmul/m4_register_tiles.cuh>
#include <gpureduce/matmul/m5_vector_double_buffer.cuh>
#include <gpureduce/matmul/registry.hpp>

#include "../common/find_by_name.hpp"

#include <array>

namespace gpureduce::matmul {
using namespace gpureduce::detail;
namespace {

const std::array table{
    Rung{"m0", "one block, global memory", true, m0::launch},
    Rung{"m1", "one block, shared-memory tiles", true, m1::launch},
    Rung{"m2", "many blocks, one thread per output", false, m2::launch},
    Rung{"m3", "many blocks, 32 x 32 shared tiles", false, m3::launch},
    Rung{"m4", "register tiles: 4 x 4 outputs per thread", false, m4::launch},
    Rung{"m5", "16-byte loads, double-buffered stages", false, m5::launch},
};

}  // namespace

std::span<const Rung> rungs() { return table; }

const Rung* find_rung(std::string_view name) { return find_by_name(table, name); }

}  // namespace gpureduce::matmul
