#include "engine/remembered_indices.hpp"

#include <algorithm>
#include <mutex>
#include <vector>

namespace jf::detail::remembered_indices {
namespace {

struct entry {
  std::weak_ptr<buffer> buf;
  const buffer* key = nullptr;  // the buffer's address (the weak pointer says whether it still lives)
  std::uint64_t writes = 0;
  std::int64_t offset = 0, count = 0, target = 0;
  dtype type = dtype::int64;
  std::uint8_t facts = 0;
  std::uint64_t used = 0;  // the clock of the last lookup or learning (the oldest goes first)
  buffer_ptr winner_bits;  // with facts & winners (device memory, a bit a position)
  std::weak_ptr<buffer> finding;  // the bitmap a scatter is filling, until its lesson is learned or dropped
};

// A few index arrays (a program scatters through a handful): a short list searched under a lock.
constexpr std::size_t capacity = 32;

// The entry of these elements (a view of buffer b) as indices into `target` elements.
bool names(const entry& e, const buffer* b, std::int64_t offset, std::int64_t count, dtype type, std::int64_t target) {
  return e.key == b && e.offset == offset && e.count == count && e.type == type && e.target == target;
}

struct table {
  std::mutex mutex;
  std::vector<entry> entries;
  std::uint64_t clock = 0;
};
table& kept() {
  static table* t = new table;  // never destroyed: threads may scatter after main's statics are gone
  return *t;
}

// (Out of line: GCC 12 inlined it after a null test and warned of a write into 0 bytes.)
[[gnu::noinline]] bool unchanged(const buffer& b, std::uint64_t writes) {
  return !b.external.load(std::memory_order_relaxed) && b.writes.load(std::memory_order_relaxed) == writes;
}

// Entries whose index buffer is gone (their winners' memory goes with them), at each learning: a
// scatter's lookup need not pay for it. Under the table's lock.
void drop_expired(std::vector<entry>& v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](const entry& e) { return e.buf.expired(); }), v.end());
}

}  // namespace

bool lesson_for(const array_base& indices, std::int64_t target, bool marked, lesson& out) {
  const buffer_ptr& b = indices.buffer();
  if (!b || b->source != buffer_source::memory || b->external.load(std::memory_order_relaxed) ||
      !indices.is_contiguous() || indices.size() == 0)
    return false;
  out.buf = b;
  out.writes = b->writes.load(std::memory_order_relaxed);
  out.offset = indices.offset();
  out.count = indices.size();
  out.target = target;
  out.type = indices.dtype();
  out.marked = marked;
  return true;
}

known lookup_for_store(const array_base& indices, std::int64_t target, bool may_find_winners) {
  known k;
  const buffer_ptr& b = indices.buffer();
  if (!b || b->external.load(std::memory_order_relaxed) || !indices.is_contiguous()) return k;
  table& t = kept();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (entry& e : t.entries)
    if (names(e, b.get(), indices.offset(), indices.size(), indices.dtype(), target)) {
      // The same address may be a later buffer: the weak pointer's owner must be this one.
      if (e.buf.lock() != b || !unchanged(*b, e.writes)) return k;
      e.used = ++t.clock;
      k.facts = e.facts;
      if (e.facts & winners)
        k.winners = e.winner_bits;
      else
        k.find_winners = may_find_winners && (e.facts & repeats) && e.finding.expired();
      return k;
    }
  return k;
}

std::uint8_t lookup(const array_base& indices, std::int64_t target) {
  return lookup_for_store(indices, target, false).facts;
}

void finding_winners(const array_base& indices, std::int64_t target, const buffer_ptr& bits) {
  table& t = kept();
  std::lock_guard<std::mutex> lock(t.mutex);
  for (entry& e : t.entries)
    if (names(e, indices.buffer().get(), indices.offset(), indices.size(), indices.dtype(), target)) e.finding = bits;
}

void learn(const lesson& l, bool repeated) {
  const buffer_ptr b = l.buf.lock();
  if (!b || !unchanged(*b, l.writes)) return;  // gone, or written since the scatter read it
  table& t = kept();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto& v = t.entries;
  drop_expired(v);
  auto it = std::find_if(v.begin(), v.end(),
                         [&](const entry& e) { return names(e, b.get(), l.offset, l.count, l.type, l.target); });
  const bool same = it != v.end() && it->writes == l.writes;  // what the entry knows is still true
  std::uint8_t facts = in_bounds;
  if (l.marked)
    facts |= repeated ? repeats : distinct;
  else if (same)
    facts |= it->facts & (distinct | repeats);
  // The winners belong with repeats: the lesson's (its kernel found them), else the entry's.
  buffer_ptr bits;
  if (facts & repeats) bits = l.winners ? l.winners : same && (it->facts & winners) ? it->winner_bits : nullptr;
  if (bits) facts |= winners;
  std::weak_ptr<buffer> finding = same ? it->finding : std::weak_ptr<buffer>();
  if (it == v.end()) {
    if (v.size() == capacity)
      v.erase(std::min_element(v.begin(), v.end(), [](const entry& x, const entry& y) { return x.used < y.used; }));
    v.emplace_back();
    it = v.end() - 1;
  }
  it->buf = b;
  it->key = b.get();
  it->writes = l.writes;
  it->offset = l.offset;
  it->count = l.count;
  it->target = l.target;
  it->type = l.type;
  it->facts = facts;
  it->used = ++t.clock;
  it->winner_bits = std::move(bits);
  it->finding = std::move(finding);
}

void forget(const lesson& l) {
  const buffer_ptr b = l.buf.lock();
  if (!b) return;
  table& t = kept();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto& v = t.entries;
  v.erase(std::remove_if(v.begin(), v.end(), [&](const entry& e) { return e.key == b.get(); }), v.end());
}

void forget_all() {
  table& t = kept();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.entries.clear();
}

}  // namespace jf::detail::remembered_indices
