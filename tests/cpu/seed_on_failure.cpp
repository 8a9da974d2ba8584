// Fails on purpose: CTest passes it when the output names the seed that replays the failure
// (common/seeded_main.cpp).
#include <gtest/gtest.h>

TEST(seeded_main, a_failure_prints_the_seed) { ADD_FAILURE() << "the failure"; }
