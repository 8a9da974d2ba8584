// The seed of a test process, from which every test draws its random inputs: $GPUREDUCE_SEED
// (decimal, or hexadecimal after 0x) replays a run, otherwise a fresh one. The tests' main
// (seeded_main.cpp) prints it when the tests start and after every failure.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>

namespace gpureduce::test {

inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    const char* e = std::getenv("GPUREDUCE_SEED");
    if (e == nullptr) {
      std::random_device rd;
      return std::uint64_t(rd()) << 32 | rd();
    }
    const bool hex = std::strncmp(e, "0x", 2) == 0 || std::strncmp(e, "0X", 2) == 0;
    char* end = nullptr;
    errno = 0;
    const std::uint64_t s = std::strtoull(e, &end, hex ? 16 : 10);
    if (*e == '\0' || *e == '-' || *end != '\0' || errno == ERANGE) {
      std::fprintf(stderr, "GPUREDUCE_SEED='%s' is not a seed: a decimal or 0x-hexadecimal number below 2^64\n", e);
      std::exit(2);
    }
    return s;
  }();
  return seed;
}

}  // namespace gpureduce::test
