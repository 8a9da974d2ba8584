#include "reduce_typed_tests.cuh"

namespace gpureduce::test {
using IntTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t,
                                  std::int64_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(ints, test_reduce_types, IntTypes);
}  // namespace gpureduce::test
