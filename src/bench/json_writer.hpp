// A minimal JSON emitter for the results files (objects, arrays, strings, numbers, booleans).
#pragma once

#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gpureduce {

class JsonWriter {
 public:
  explicit JsonWriter(std::ostream& os) : os_(os) {}

  JsonWriter& begin_object() { value_prefix(); os_ << '{'; stack_.push_back(true); return *this; }
  JsonWriter& end_object() { close('}'); return *this; }
  JsonWriter& begin_array() { value_prefix(); os_ << '['; stack_.push_back(true); return *this; }
  JsonWriter& end_array() { close(']'); return *this; }

  JsonWriter& key(std::string_view k) {
    separator();
    indent();
    write_string(k);
    os_ << ": ";
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(std::string_view s) { value_prefix(); write_string(s); return *this; }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) { value_prefix(); os_ << (b ? "true" : "false"); return *this; }
  JsonWriter& value(std::uint64_t v) { value_prefix(); os_ << v; return *this; }
  JsonWriter& value(int v) { value_prefix(); os_ << v; return *this; }
  JsonWriter& value(double v) {
    value_prefix();
    if (std::isfinite(v)) {
      os_.precision(17);  // round-trips every double
      os_ << v;
    } else {
      os_ << "null";
    }
    return *this;
  }
  template <class V>
  JsonWriter& field(std::string_view k, V v) { return key(k).value(v); }

 private:
  void separator() {
    if (!stack_.empty()) {
      if (!stack_.back()) os_ << ',';
      stack_.back() = false;
    }
  }
  void indent() { os_ << '\n' << std::string(2 * stack_.size(), ' '); }
  void value_prefix() {
    if (after_key_) { after_key_ = false; return; }
    if (!stack_.empty()) { separator(); indent(); }
  }
  void close(char c) {
    const bool empty = stack_.back();
    stack_.pop_back();
    if (!empty) indent();
    os_ << c;
  }
  void write_string(std::string_view s) {
    os_ << '"';
    for (char c : s) {
      if (c == '"' || c == '\\') os_ << '\\' << c;
      else if (static_cast<unsigned char>(c) < 0x20) os_ << ' ';
      else os_ << c;
    }
    os_ << '"';
  }

  std::ostream& os_;
  std::vector<bool> stack_;  // per open container: still empty?
  bool after_key_ = false;
};

}  // namespace gpureduce
