#include "engine/store/write_buffer.h"

#include <cstring>

namespace statecheck::internal {

std::optional<int64_t> WriteBuffer::Put(std::string_view key,
                                        std::optional<std::string_view> value) {
  auto it = index_.lower_bound(key);
  std::optional<int64_t> replaced;
  if (it != index_.end() && it->first == key) {
    const Slot& old = it->second;
    replaced = static_cast<int64_t>(key.size() + (old.deleted_ ? 0 : old.size_));
  } else {
    it = index_.emplace_hint(it, std::string_view(Copy(key), key.size()), Slot{});
  }
  Slot& slot = it->second;
  slot.deleted_ = !value;
  if (!value) return replaced;
  if (value->size() > slot.capacity_) {
    slot.bytes_ = Allocate(value->size());
    slot.capacity_ = static_cast<uint32_t>(value->size());
  }
  if (!value->empty()) std::memcpy(slot.bytes_, value->data(), value->size());
  slot.size_ = static_cast<uint32_t>(value->size());
  return replaced;
}

char* WriteBuffer::Allocate(size_t n) {
  arena_bytes_ += n;
  if (n > kBlockSize / 4) {
    auto own = std::make_unique_for_overwrite<char[]>(n);
    char* bytes = own.get();
    // Before the current block, which goes on filling.
    blocks_.insert(blocks_.empty() ? blocks_.end() : blocks_.end() - 1, std::move(own));
    return bytes;
  }
  if (kBlockSize - used_ < n) {
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockSize));
    used_ = 0;
  }
  char* bytes = blocks_.back().get() + used_;
  used_ += n;
  return bytes;
}

char* WriteBuffer::Copy(std::string_view bytes) {
  if (bytes.empty()) return nullptr;
  char* to = Allocate(bytes.size());
  std::memcpy(to, bytes.data(), bytes.size());
  return to;
}

}  // namespace statecheck::internal
