// Every partition the rungs load through covers each element of [0, n) exactly once: exhaustively
// for n = 0..5000, and at sizes past 2^31 and 2^32 where 32-bit index arithmetic would wrap.
#include <gpureduce/grid/block_tile.hpp>
#include <gpureduce/grid/grid_stride.hpp>
#include <gpureduce/grid/vector_split.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

// Runs visit(b, t, record) for every block and thread of a grid and checks that record() was
// called once per index in [0, n) and never outside it.
template <class Visit>
void expect_exact_cover(std::uint64_t n, std::uint64_t grid, unsigned block, Visit&& visit) {
  std::vector<std::uint8_t> hits(n, 0);
  std::uint64_t out_of_range = 0;
  for (std::uint64_t b = 0; b < grid; ++b)
    for (unsigned t = 0; t < block; ++t)
      visit(b, t, [&](std::uint64_t i) {
        if (i >= n) ++out_of_range;
        else ++hits[i];
      });
  ASSERT_EQ(out_of_range, 0u) << "n=" << n << " block=" << block << " grid=" << grid;
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_EQ(hits[i], 1) << "element " << i << " n=" << n << " block=" << block;
}

constexpr unsigned blocks[] = {64, 256, 1024};

TEST(test_grid_block_tile, covers_every_element_once_n_0_to_5000) {
  for (unsigned block : blocks)
    for (std::uint64_t n = 0; n <= 5000; ++n) {
      const BlockTile<1> one{n, block};
      const BlockTile<2> two{n, block};
      ASSERT_EQ(one.grid(), n == 0 ? 1 : (n + block - 1) / block);
      ASSERT_EQ(two.grid(), n == 0 ? 1 : (n + 2 * block - 1) / (2 * block));
      expect_exact_cover(n, one.grid(), block, [&](auto b, auto t, auto f) { one.for_each(b, t, f); });
      expect_exact_cover(n, two.grid(), block, [&](auto b, auto t, auto f) { two.for_each(b, t, f); });
    }
}

TEST(test_grid_grid_stride, covers_every_element_once_n_0_to_5000) {
  for (unsigned block : blocks)
    for (std::uint64_t max_blocks : {1, 3, 7})
      for (std::uint64_t n = 0; n <= 5000; ++n) {
        const GridStride<2> p{n, block, max_blocks};
        ASSERT_GE(p.grid(), 1u);
        ASSERT_LE(p.grid(), max_blocks);
        expect_exact_cover(n, p.grid(), block, [&](auto b, auto t, auto f) { p.for_each(b, t, f); });
      }
}

// The elements a vector-split reduction reads: scalar head and tail (to the grid's first threads,
// or with edges_from_end to its last ones) plus 16-byte vectors.
template <int Unroll>
void expect_vector_cover(std::uint64_t addr, std::uint64_t n, unsigned elem, unsigned block, std::uint64_t max_blocks,
                         bool edges_from_end = false) {
  const VectorSplit s = VectorSplit::make(addr, n, elem);
  const unsigned per_vec = vector_bytes / elem;
  ASSERT_EQ(s.head + s.vectors * per_vec + s.tail, n);
  ASSERT_LT(s.head, per_vec);
  ASSERT_LT(s.tail, per_vec);
  if (s.vectors) ASSERT_EQ((addr + s.head * elem) % vector_bytes, 0u) << "body must start 16-byte aligned";
  const VectorGrid<Unroll> g{s.vectors, block, max_blocks};
  expect_exact_cover(n, g.grid(), block, [&](std::uint64_t b, unsigned t, auto f) {
    if (edges_from_end) {
      const ScalarEdges e = ScalarEdges::from_end(s, per_vec, g.grid() * block, b * block + t);
      if (e.has_head) f(e.head_index);
      if (e.has_tail) f(e.tail_index);
    } else {
      for_each_scalar_edge(s, per_vec, b * block + t, f);
    }
    auto vec = [&](std::uint64_t v) {
      for (unsigned k = 0; k < per_vec; ++k) f(s.head + v * per_vec + k);
    };
    g.for_each(b, t, [&](std::uint64_t v) { for (int k = 0; k < Unroll; ++k) vec(v + std::uint64_t(k) * block); }, vec);
  });
}

TEST(test_grid_vector_split, covers_every_element_once_any_alignment_n_0_to_5000) {
  for (unsigned elem : {4u, 8u})
    for (std::uint64_t offset = 0; offset < 16 / elem; ++offset)
      for (std::uint64_t n = 0; n <= 5000; ++n) {
        expect_vector_cover<4>(0x1000 + offset * elem, n, elem, 64, 3);
        expect_vector_cover<1>(0x1000 + offset * elem, n, elem, 256, 1);
        expect_vector_cover<4>(0x1000 + offset * elem, n, elem, 512, 1, true);
      }
}

// The one-block kernel of argmin/argmax hands the edges of elements over 4 bytes, which it uses
// before its vectors, to its last threads: none of them has more vectors than any other thread.
TEST(test_grid_vector_split, one_block_edges_from_end_go_to_threads_with_fewest_vectors) {
  constexpr unsigned elem = 8, per_vec = vector_bytes / elem;  // 16-byte elements have no edges
  for (unsigned block : {256u, 512u})
    for (std::uint64_t offset : {0u, 8u})
      for (std::uint64_t n = 0; n <= 5000; ++n) {
        const VectorSplit s = VectorSplit::make(0x1000 + offset, n, elem);
        const VectorGrid<4> g{s.vectors, block, 1};
        std::vector<std::uint64_t> count(block, 0);
        for (unsigned t = 0; t < block; ++t)
          g.for_each(0, t, [&](std::uint64_t) { count[t] += 4; }, [&](std::uint64_t) { ++count[t]; });
        const std::uint64_t fewest = *std::min_element(count.begin(), count.end());
        for (unsigned t = 0; t < block; ++t) {
          const ScalarEdges e = ScalarEdges::from_end(s, per_vec, block, t);
          if (e.has_head || e.has_tail)
            ASSERT_EQ(count[t], fewest) << "n=" << n << " block " << block << " thread " << t;
        }
      }
}

// argmin/argmax's traversal: full batches, then the last one padded by repeating its first vector.
// Every vector is read, the padding repeats only that first vector, and no batch starts out of
// range.
TEST(test_grid_vector_split, padded_last_batch_reads_every_vector_and_repeats_only_its_first) {
  for (std::uint64_t vectors = 0; vectors <= 3000; vectors += 7)
    for (const std::uint64_t max_blocks : {1u, 2u, 5u}) {
      const VectorGrid<4> g{vectors, 32, max_blocks};
      std::vector<int> seen(vectors, 0);
      for (std::uint64_t b = 0; b < g.grid(); ++b)
        for (unsigned t = 0; t < 32; ++t) {
          const auto full = [&](std::uint64_t v) {
            for (int k = 0; k < 4; ++k) ++seen.at(v + std::uint64_t(k) * 32);
          };
          g.for_each_batch(b, t, full, [&](std::uint64_t v) {
            if (v >= vectors) return;
            for (int k = 0; k < 4; ++k) {
              const std::uint64_t w = g.padded(v, k);
              ASSERT_TRUE(w == v + std::uint64_t(k) * 32 || (k > 0 && w == v)) << vectors << " " << v << " " << k;
              if (k == 0 || w != v) ++seen.at(w);
            }
          });
        }
      for (std::uint64_t v = 0; v < vectors; ++v) ASSERT_EQ(seen[v], 1) << "vectors " << vectors << " v " << v;
    }
}

// The one-block kernel's traversal (Batches::one_block): every thread runs full() once per whole
// batch of the input, so that no warp splits between full and partial batches, and the rest goes
// to the last batch, vector by vector or padded (repeats counting once): every vector is read
// once. (The grid's traversal, the same rule per block: whole_batches_alike_in_every_block below.)
TEST(test_grid_vector_split, rolled_traversal_takes_whole_batches_alike_and_reads_every_vector_once) {
  for (const unsigned block : {64u, 512u}) {
    const std::uint64_t batch = 4 * std::uint64_t(block);
    std::vector<std::uint64_t> sizes = {batch - 1, batch, batch + 1, 2 * batch - 1, 2 * batch, 2 * batch + 1};
    for (std::uint64_t v = 0; v <= 3 * batch; v += v < 300 ? 1 : 37) sizes.push_back(v);
    for (const std::uint64_t vectors : sizes) {
      const VectorGrid<4> g{vectors, block, 1};
      std::vector<int> seen(vectors, 0), padded_seen(vectors, 0);
      for (unsigned t = 0; t < block; ++t) {
        std::uint64_t full_calls = 0;
        const auto full = [&](std::vector<int>& to) {
          return [&](std::uint64_t v) {
            ++full_calls;
            for (int k = 0; k < 4; ++k) ++to.at(v + std::uint64_t(k) * block);
          };
        };
        g.template for_each<Batches::one_block>(0, t, full(seen), [&](std::uint64_t w) { ++seen.at(w); });
        g.template for_each_batch<Batches::one_block>(0, t, full(padded_seen), [&](std::uint64_t v) {
          if (v >= vectors) return;
          for (int k = 0; k < 4; ++k)
            if (k == 0 || g.padded(v, k) != v) ++padded_seen.at(g.padded(v, k));
        });
        ASSERT_EQ(full_calls, 2 * (vectors / batch)) << "block " << block << " vectors " << vectors << " thread " << t;
      }
      for (std::uint64_t v = 0; v < vectors; ++v) {
        ASSERT_EQ(seen[v], 1) << "block " << block << " vectors " << vectors << " v " << v;
        ASSERT_EQ(padded_seen[v], 1) << "block " << block << " vectors " << vectors << " v " << v;
      }
    }
  }
}

// The one-block kernel's traversal of an input of at most one batch (Batches::at_most_one): no
// full() call, thread t's last batch at vector t, and every vector read once, vector by vector or
// padded.
TEST(test_grid_vector_split, at_most_one_batch_reads_every_vector_once_in_the_last_batch) {
  for (const unsigned block : {256u, 512u})
    for (std::uint64_t vectors = 0; vectors <= block; ++vectors) {
      const VectorGrid<1> g{vectors, block, 1};
      std::vector<int> seen(vectors, 0), padded_seen(vectors, 0);
      for (unsigned t = 0; t < block; ++t) {
        const auto no_full = [&](std::uint64_t) { FAIL() << "a full batch at " << vectors << " vectors"; };
        g.template for_each<Batches::at_most_one>(0, t, no_full, [&](std::uint64_t w) { ++seen.at(w); });
        g.template for_each_batch<Batches::at_most_one>(0, t, no_full, [&](std::uint64_t v) {
          ASSERT_EQ(v, t);
          if (v < vectors) ++padded_seen.at(g.padded(v, 0));
        });
      }
      for (std::uint64_t v = 0; v < vectors; ++v) {
        ASSERT_EQ(seen[v], 1) << "block " << block << " vectors " << vectors << " v " << v;
        ASSERT_EQ(padded_seen[v], 1) << "block " << block << " vectors " << vectors << " v " << v;
      }
    }
}

// Grid traversal: within each block every thread runs full() as often (the block's share of the
// input's whole batches), whatever the input's last batch.
TEST(test_grid_vector_split, whole_batches_alike_in_every_block) {
  for (const std::uint64_t max_blocks : {1u, 3u, 7u})
    for (std::uint64_t vectors = 0; vectors <= 4000; vectors += 13) {
      const VectorGrid<4> g{vectors, 64, max_blocks};
      std::uint64_t whole = 0;
      for (std::uint64_t b = 0; b < g.grid(); ++b) {
        std::uint64_t first = 0;
        for (unsigned t = 0; t < 64; ++t) {
          std::uint64_t calls = 0;
          g.for_each_batch(b, t, [&](std::uint64_t) { ++calls; }, [](std::uint64_t) {});
          if (t == 0) first = calls;
          ASSERT_EQ(calls, first) << "vectors " << vectors << " grid " << g.grid() << " block " << b << " thread " << t;
        }
        whole += first;
      }
      ASSERT_EQ(whole, vectors / 256) << "vectors " << vectors << " grid " << g.grid();
    }
}

TEST(test_grid_vector_split, head_and_tail_at_every_misalignment) {
  // int32 at byte offset 4: 3 head elements reach the next 16-byte boundary.
  const VectorSplit s = VectorSplit::make(0x1004, 100, 4);
  EXPECT_EQ(s.head, 3u);
  EXPECT_EQ(s.vectors, 24u);
  EXPECT_EQ(s.tail, 1u);
  const VectorSplit tiny = VectorSplit::make(0x1004, 2, 4);  // shorter than the head
  EXPECT_EQ(tiny.head, 2u);
  EXPECT_EQ(tiny.vectors, 0u);
  EXPECT_EQ(tiny.tail, 0u);
}

// Elements of one per vector (16 bytes and more) never have a scalar head or tail, whatever their
// address: agent/thread_partial.cuh loads no edges for them.
TEST(test_grid_vector_split, one_element_per_vector_has_no_edges) {
  int sizes = 0;
  for (unsigned elem = 1; elem <= 256; ++elem) {
    if (vector_span_bytes(elem) != elem) continue;
    ++sizes;
    for (std::uint64_t offset = 0; offset < vector_bytes; ++offset)
      for (std::uint64_t n : {0u, 1u, 2u, 33u, 1000u}) {
        const VectorSplit s = VectorSplit::make(0x1000 + offset, n, elem);
        ASSERT_EQ(s.head, 0u) << "elem " << elem << " offset " << offset << " n " << n;
        ASSERT_EQ(s.tail, 0u) << "elem " << elem << " offset " << offset << " n " << n;
        ASSERT_EQ(s.vectors, n);
      }
  }
  EXPECT_GE(sizes, 3);  // 16, 32, 48, ...
}

// Sizes past 2^31 and 2^32 elements: every index is 64-bit. Covering 2^32 elements one by one is
// too slow for CI, so this checks the partitions' structure at the far end: the last block's
// indices, the grid size and that the grid-stride loops reach n - 1 and never beyond.
TEST(test_grid_large_n, last_elements_reached_beyond_2_pow_32) {
  for (std::uint64_t n :
       {(std::uint64_t(1) << 31) + 1, (std::uint64_t(1) << 32) + 12345, (std::uint64_t(1) << 36) - 1}) {
    const BlockTile<2> tile{n, 256};
    EXPECT_EQ(tile.grid(), (n + 511) / 512);
    std::uint64_t max_index = 0, count = 0;
    for (unsigned t = 0; t < 256; ++t)
      tile.for_each(tile.grid() - 1, t, [&](std::uint64_t i) { max_index = std::max(max_index, i); ++count; });
    EXPECT_EQ(max_index, n - 1);
    EXPECT_EQ(count, n - (tile.grid() - 1) * 512);

    const GridStride<2> stride{n, 1024, 264};
    const std::uint64_t b = stride.grid() - 1;
    std::uint64_t last = 0, seen = 0;
    for (unsigned t = 0; t < 1024; ++t)
      stride.for_each(b, t, [&](std::uint64_t i) { ASSERT_LT(i, n); last = std::max(last, i); ++seen; });
    std::uint64_t expected = 0, expected_last = 0;  // tiles b, b + grid, ... clipped to n
    for (std::uint64_t base = b * 2048; base < n; base += stride.grid() * 2048) {
      expected += std::min<std::uint64_t>(2048, n - base);
      expected_last = std::min(base + 2048, n) - 1;
    }
    EXPECT_EQ(seen, expected);
    EXPECT_EQ(last, expected_last);

    const VectorSplit s = VectorSplit::make(0x1008, n, 4);
    EXPECT_EQ(s.head + s.vectors * 4 + s.tail, n);
    EXPECT_EQ(s.head, 2u);
  }
}

// A capped grid at a size whose elements fit in memory as a bitmap: exhaustive, 2^27 + 3.
TEST(test_grid_large_n, grid_stride_exact_cover_2_pow_27_plus_3) {
  const std::uint64_t n = (std::uint64_t(1) << 27) + 3;
  const GridStride<2> p{n, 256, 132 * 8};
  expect_exact_cover(n, p.grid(), 256, [&](auto b, auto t, auto f) { p.for_each(b, t, f); });
  const VectorSplit s = VectorSplit::make(0x1004, n, 4);
  expect_vector_cover<4>(0x1004, n, 4, 256, 132 * 8);
  EXPECT_EQ(s.head, 3u);
}

}  // namespace
}  // namespace gpureduce
