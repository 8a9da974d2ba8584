// The one list of matrix-multiplication rungs (the second classic exercise): C = A x B, N x N
// int32, wrapping modulo 2^32 (tiles.hpp). The CLI, the tests and the benchmark iterate over it;
// adding a rung means adding its file and one entry in src/matmul/registry.cu.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace gpureduce::matmul {

struct Rung {
  const char* name;  // "m0" ...
  const char* adds;  // what this rung changes, in a few words (table column)
  bool one_block;    // launches a single block (the seed's small-data cases)
  cudaError_t (*launch)(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s);
};

std::span<const Rung> rungs();
const Rung* find_rung(std::string_view name);  // nullptr when no rung has that name

}  // namespace gpureduce::matmul
