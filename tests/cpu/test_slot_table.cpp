// The workspace pool's bookkeeping (dispatch/slot_table.hpp), on the host: which stream holds which
// slot, reuse of released slots, and the lock-free list a graph's destructor returns keys through.
#include <gpureduce/dispatch/slot_table.hpp>

#include <gtest/gtest.h>

#include <set>
#include <thread>
#include <vector>

namespace gpureduce::detail {
namespace {

constexpr std::size_t stride = 256;

TEST(test_slot_table, streams_keep_their_slot_until_released) {
  std::vector<unsigned char> memory(4 * stride);
  SlotTable t;
  EXPECT_FALSE(t.has_free());
  t.add_chunk(memory.data(), 4, stride);
  EXPECT_EQ(t.slots(), 4u);
  const SlotKey a{false, 7, 0}, b{false, 8, 0};
  unsigned char* sa = t.assign(a);
  EXPECT_EQ(sa, memory.data());  // lowest address first
  unsigned char* sb = t.assign(b);
  EXPECT_EQ(sb, memory.data() + stride);
  EXPECT_EQ(t.find(a), sa);
  EXPECT_EQ(t.find(b), sb);
  EXPECT_EQ(t.free_slots(), 2u);
  EXPECT_TRUE(t.release(a));
  EXPECT_FALSE(t.release(a));  // held none any more
  EXPECT_EQ(t.find(a), nullptr);
  EXPECT_EQ(t.find(b), sb);  // others keep theirs
  EXPECT_EQ(t.assign(SlotKey{false, 9, 0}), sa);  // the released slot is the next one handed out
  EXPECT_EQ(t.slots(), 4u);
}

TEST(test_slot_table, captures_are_keyed_apart_from_streams_and_per_stream) {
  std::vector<unsigned char> memory(8 * stride);
  SlotTable t;
  t.add_chunk(memory.data(), 8, stride);
  // A stream ID, a capture with the same number, and two streams of one capture: four slots.
  const SlotKey keys[] = {{false, 5, 0}, {true, 5, 0x1000}, {true, 5, 0x2000}, {true, 6, 0x1000}};
  std::set<unsigned char*> distinct;
  for (const SlotKey& k : keys) distinct.insert(t.assign(k));
  EXPECT_EQ(distinct.size(), 4u);
  for (const SlotKey& k : keys) EXPECT_NE(t.find(k), nullptr);
  EXPECT_EQ(t.find(SlotKey{true, 7, 0x1000}), nullptr);
}

// Create-and-destroy loops stay at the peak number of live streams.
TEST(test_slot_table, released_slots_bound_the_pool) {
  std::vector<unsigned char> memory(16 * stride);
  SlotTable t;
  std::size_t chunks = 0;
  for (std::uint64_t id = 1; id <= 1000; ++id) {
    if (!t.has_free()) t.add_chunk(memory.data(), 16, stride), ++chunks;
    t.assign(SlotKey{false, id, 0});
    if (id > 3) EXPECT_TRUE(t.release(SlotKey{false, id - 3, 0}));  // 4 live streams at most
  }
  EXPECT_EQ(chunks, 1u);
  EXPECT_EQ(t.free_slots(), 16u - 3u);
}

// trim_workspace: only chunks no stream holds a slot of go back, and the rest keep working.
TEST(test_slot_table, only_wholly_free_chunks_are_taken) {
  std::vector<unsigned char> memory(3 * 4 * stride);
  unsigned char* chunk[3] = {memory.data(), memory.data() + 4 * stride, memory.data() + 8 * stride};
  SlotTable t;
  std::size_t added = 0;
  for (std::uint64_t id = 1; id <= 9; ++id) {  // chunks 0, 1 full; 2 has one (a chunk is added when needed)
    if (!t.has_free()) t.add_chunk(chunk[added++], 4, stride);
    t.assign(SlotKey{false, id, 0});
  }
  for (std::uint64_t id = 1; id <= 4; ++id) t.release(SlotKey{false, id, 0});  // chunk 0 free again
  EXPECT_EQ(t.take_free_chunks(), std::vector<unsigned char*>{chunk[0]});
  EXPECT_EQ(t.slots(), 8u);
  EXPECT_EQ(t.free_slots(), 3u);
  EXPECT_TRUE(t.take_free_chunks().empty());
  for (std::uint64_t id = 10; id <= 12; ++id) {  // the free slots left are chunk 2's
    unsigned char* s = t.assign(SlotKey{false, id, 0});
    EXPECT_TRUE(s >= chunk[2] && s < chunk[2] + 4 * stride);
  }
  for (std::uint64_t id = 5; id <= 12; ++id) t.release(SlotKey{false, id, 0});
  const auto rest = t.take_free_chunks();
  EXPECT_EQ(std::set<unsigned char*>(rest.begin(), rest.end()), (std::set<unsigned char*>{chunk[1], chunk[2]}));
  EXPECT_EQ(t.slots(), 0u);
  EXPECT_FALSE(t.has_free());
}

TEST(test_slot_table, returned_keys_from_many_threads_drain_once_each) {
  ReturnedKeys r;
  constexpr int threads = 4, per_thread = 1000;
  std::vector<std::thread> pushers;
  for (int th = 0; th < threads; ++th)
    pushers.emplace_back([&r, th] {
      for (int i = 0; i < per_thread; ++i)
        r.push(new ReturnedKeys::Node{SlotKey{true, std::uint64_t(th), std::uint64_t(i)}, nullptr});
    });
  std::multiset<SlotKey> seen;
  std::vector<int> last(threads, -1);
  bool in_order = true;
  const auto take = [&](const SlotKey& k) {
    seen.insert(k);
    in_order &= int(k.stream) > last[k.id];  // each thread's keys come back oldest first
    last[k.id] = int(k.stream);
  };
  while (seen.size() < std::size_t(threads * per_thread)) r.drain(take);  // drains while others push
  for (auto& p : pushers) p.join();
  r.drain(take);
  EXPECT_EQ(seen.size(), std::size_t(threads * per_thread));
  for (int th = 0; th < threads; ++th)
    for (int i = 0; i < per_thread; i += 97)
      EXPECT_EQ(seen.count(SlotKey{true, std::uint64_t(th), std::uint64_t(i)}), 1u);
  EXPECT_TRUE(in_order);
}

}  // namespace
}  // namespace gpureduce::detail
