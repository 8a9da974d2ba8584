// The slots of interleaved_rows_kernel (thread/interleaved_slots.hpp), a warp run on the host: each
// lane's slots hold one column each, and after fold_slots and the butterfly the writer lanes hold
// every element of their columns exactly once, for every vector width and column count.
#include <gpureduce/thread/interleaved_slots.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpureduce::detail {
namespace {

using Elements = std::vector<std::uint64_t>;  // positions in the row's run

// The column slot j of lane `lane` holds, of `inner` columns (the header's opening comment).
unsigned slot_column(unsigned lane, unsigned j, unsigned inner, unsigned V) { return (lane * V + j) & (inner - 1); }

Elements join(Elements a, const Elements& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

template <unsigned V>
void expect_columns(unsigned inner, std::uint64_t vectors) {
  constexpr unsigned lanes = 32;
  const std::string what = "V " + std::to_string(V) + ", " + std::to_string(inner) + " columns, " +
                           std::to_string(vectors) + " vectors";
  std::vector<std::vector<Elements>> acc(lanes, std::vector<Elements>(V));
  for (unsigned lane = 0; lane < lanes; ++lane)
    for (std::uint64_t k = lane; k < vectors; k += lanes)
      for (unsigned j = 0; j < V; ++j) {
        const std::uint64_t position = k * V + j;
        ASSERT_EQ(position % inner, slot_column(lane, j, inner, V)) << what;
        acc[lane][j].push_back(position);
      }
  for (unsigned lane = 0; lane < lanes; ++lane) {
    Elements slots[V];
    for (unsigned j = 0; j < V; ++j) slots[j] = acc[lane][j];
    fold_slots(slots, inner, join);
    for (unsigned j = 0; j < V; ++j) acc[lane][j] = slots[j];
  }
  // The butterfly down to the writers: lanes i and i ^ offset combine, the lower lane's first.
  const unsigned writers = column_writers(inner, V), columns = column_slots(inner, V);
  for (unsigned offset = lanes / 2; offset >= writers && offset >= 1; offset /= 2) {
    auto next = acc;
    for (unsigned lane = 0; lane < lanes; ++lane)
      for (unsigned j = 0; j < columns; ++j) {
        const unsigned low = lane & ~offset, high = lane | offset;
        next[lane][j] = join(acc[low][j], acc[high][j]);
      }
    acc = next;
  }
  std::vector<Elements> want(inner);
  for (std::uint64_t p = 0; p < vectors * V; ++p) want[p % inner].push_back(p);
  std::vector<bool> written(inner, false);
  for (unsigned lane = 0; lane < writers; ++lane)
    for (unsigned j = 0; j < columns; ++j) {
      const unsigned c = lane * V + j;
      ASSERT_LT(c, inner) << what;
      ASSERT_EQ(slot_column(lane, j, inner, V), c) << what;
      Elements got = acc[lane][j];
      std::sort(got.begin(), got.end());
      EXPECT_EQ(got, want[c]) << what << ", column " << c;
      written[c] = true;
    }
  EXPECT_EQ(std::count(written.begin(), written.end(), true), std::ptrdiff_t(inner)) << what;
}

TEST(InterleavedSlots, WritersHoldEveryColumnOnce) {
  for (unsigned inner : {2u, 4u, 8u, 16u, 32u})
    for (std::uint64_t rows : {1u, 7u, 64u, 1000u}) {
      // Whole vectors of `rows` rows of `inner` columns (the kernel's rows are whole vectors).
      const auto vectors = [&](unsigned V) { return (rows * inner + V - 1) / V; };
      expect_columns<2>(inner, vectors(2));
      expect_columns<4>(inner, vectors(4));
      expect_columns<8>(inner, vectors(8));
      expect_columns<16>(inner, vectors(16));
    }
}

TEST(InterleavedSlots, FoldIsAFixedTree) {
  const auto bracket = [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; };
  std::string x[8] = {"0", "1", "2", "3", "4", "5", "6", "7"};
  fold_slots(x, 2, bracket);
  EXPECT_EQ(x[0], "((0 4) (2 6))");
  EXPECT_EQ(x[1], "((1 5) (3 7))");
  std::string y[4] = {"0", "1", "2", "3"};
  fold_slots(y, 8, bracket);  // as many columns as slots, or more: nothing to fold
  EXPECT_EQ(y[0], "0");
}

}  // namespace
}  // namespace gpureduce::detail
