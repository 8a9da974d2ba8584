// The tests' main: Google Test's, and the process's seed (test_seed.hpp) printed when the tests
// start and after every failure, so that each failure names the GPUREDUCE_SEED that replays it.
#include "test_seed.hpp"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>

namespace {

void print_seed(const char* what) {
  std::printf("[ seed     ] GPUREDUCE_SEED=%" PRIu64 "%s\n", gpureduce::test::test_seed(), what);
  std::fflush(stdout);
}

class SeedPrinter : public ::testing::EmptyTestEventListener {
  void OnTestProgramStart(const ::testing::UnitTest&) override { print_seed(""); }
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.failed()) print_seed(" replays this failure");
  }
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new SeedPrinter);  // gtest owns it
  return RUN_ALL_TESTS();
}
