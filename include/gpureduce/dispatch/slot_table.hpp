// Which workspace slot each stream holds, and which slots are free: the host bookkeeping of
// WorkspacePool (workspace.hpp), kept apart from CUDA so that the CPU tests cover it.
#pragma once

#include <algorithm>
#include <atomic>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace gpureduce::detail {

// A stream outside capture is keyed by its unique ID. A capturing stream is keyed by the capture's
// ID and the stream's handle: one slot per stream of each capture (the streams of a fork-join
// capture may run their reductions concurrently), and graphs captured one after another on one
// stream never share a slot.
struct SlotKey {
  bool captured = false;
  std::uint64_t id = 0;      // stream ID, or capture ID
  std::uint64_t stream = 0;  // captured keys: the capturing stream's handle
  friend auto operator<=>(const SlotKey&, const SlotKey&) = default;
};

class SlotTable {
 public:
  unsigned char* find(const SlotKey& k) const {
    const auto it = held_.find(k);
    return it == held_.end() ? nullptr : it->second;
  }
  bool has_free() const { return !free_.empty(); }

  // `count` slots of `stride` bytes from `base`; the lowest address is handed out first.
  void add_chunk(unsigned char* base, std::size_t count, std::size_t stride) {
    for (std::size_t i = count; i-- > 0;) free_.push_back(base + i * stride);
    slots_ += count;
    chunks_.push_back({base, count * stride, count});
  }

  // Removes every chunk whose slots are all free and returns their bases, for the caller to free.
  std::vector<unsigned char*> take_free_chunks() {
    std::vector<unsigned char*> taken;
    std::erase_if(chunks_, [&](const Chunk& c) {
      const auto inside = [&](const unsigned char* p) { return p >= c.base && p < c.base + c.bytes; };
      if (std::size_t(std::count_if(free_.begin(), free_.end(), inside)) != c.slots) return false;
      std::erase_if(free_, inside);
      slots_ -= c.slots;
      taken.push_back(c.base);
      return true;
    });
    return taken;
  }

  // Gives `k` a free slot (has_free() must hold).
  unsigned char* assign(const SlotKey& k) {
    unsigned char* s = free_.back();
    free_.pop_back();
    held_.emplace(k, s);
    return s;
  }

  // Returns `k`'s slot to the free list; false if `k` held none.
  bool release(const SlotKey& k) {
    const auto it = held_.find(k);
    if (it == held_.end()) return false;
    free_.push_back(it->second);
    held_.erase(it);
    return true;
  }

  std::size_t slots() const { return slots_; }
  std::size_t free_slots() const { return free_.size(); }

 private:
  struct Chunk {
    unsigned char* base;
    std::size_t bytes, slots;
  };
  std::map<SlotKey, unsigned char*> held_;
  std::vector<unsigned char*> free_;
  std::vector<Chunk> chunks_;
  std::size_t slots_ = 0;
};

// Keys whose graphs are gone, or whose per-thread default streams have ended. CUDA runs a user
// object's destructor, and a host function, on its own thread and asks them not to block (nor to
// call CUDA), so they push here without a lock, and the pool drains the list under its lock at its
// next call.
class ReturnedKeys {
 public:
  struct Node {
    SlotKey key;
    void* owner = nullptr;  // the pool the key belongs to
    Node* next = nullptr;
  };

  void push(Node* n) noexcept {
    n->next = head_.load(std::memory_order_relaxed);
    while (!head_.compare_exchange_weak(n->next, n, std::memory_order_release, std::memory_order_relaxed)) {
    }
  }

  // Calls f(key) for each returned key, oldest first, and frees the nodes.
  template <class F>
  void drain(F&& f) {
    Node* n = head_.exchange(nullptr, std::memory_order_acquire);
    Node* oldest_first = nullptr;
    while (n) {
      Node* next = n->next;
      n->next = oldest_first;
      oldest_first = n;
      n = next;
    }
    while (oldest_first) {
      Node* next = oldest_first->next;
      f(oldest_first->key);
      delete oldest_first;
      oldest_first = next;
    }
  }

 private:
  std::atomic<Node*> head_{nullptr};
};

}  // namespace gpureduce::detail
