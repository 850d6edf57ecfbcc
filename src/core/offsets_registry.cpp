// The registry of offsets facts (offsets_registry.hpp): small, process-wide, under a mutex; an
// entry dies with its buffer (weak pointers), so a freed buffer's address reused by new offsets
// never inherits a stale fact.
#include "core/offsets_registry.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "jetfuse/detail/jagged_layout.hpp"

namespace jf::detail {
namespace {

// One offsets view: its buffer (kept weakly) and where it lies in it.
struct view_key {
  std::weak_ptr<buffer> buf;
  const buffer* raw = nullptr;
  std::int64_t offset = 0, size = 0, stride = 0;
  bool is(const array_base& a) const {
    return raw == a.buffer().get() && offset == a.offset() && size == a.size() &&
           stride == (a.ndim() == 1 ? a.strides()[0] : 0) && !buf.expired();
  }
  static view_key of(const array_base& a) {
    return view_key{a.buffer(), a.buffer().get(), a.offset(), a.size(), a.ndim() == 1 ? a.strides()[0] : 0};
  }
};
struct bounds_entry {
  view_key view;
  std::int64_t first = 0, last = 0;
  bool bounded = false;       // first and last known
  std::int64_t longest = -1;  // the longest list's length, or a bound of it (-1: not known)
};
struct pair_entry {
  view_key a, b;
};

constexpr std::size_t capacity = 256;  // the oldest facts are forgotten (and recomputed if needed)

struct registry {
  std::mutex mutex;
  std::deque<bounds_entry> bounds;
  std::deque<pair_entry> pairs;
};
registry& the_registry() {
  static registry r;
  return r;
}
template <class Q> void trim(Q& q) {
  q.erase(std::remove_if(q.begin(), q.end(), [](const auto& e) {
            if constexpr (requires { e.view; }) return e.view.buf.expired();
            else return e.a.buf.expired() || e.b.buf.expired();
          }),
          q.end());
  while (q.size() > capacity) q.pop_front();
}
// Two bounds of the longest list (-1: none): the tighter one holds.
void tighten(std::int64_t& known, std::int64_t bound) {
  if (bound >= 0) known = known < 0 ? bound : std::min(known, bound);
}
bool same_view(const array_base& a, const array_base& b) {
  return a.buffer() == b.buffer() && a.offset() == b.offset() && a.size() == b.size() &&
         (a.size() <= 1 || a.strides()[0] == b.strides()[0]);
}

// The view's entry (the registry's mutex held), or null.
bounds_entry* entry_of(registry& r, const array_base& offsets) {
  for (auto& e : r.bounds)
    if (e.view.is(offsets)) return &e;
  return nullptr;
}
// The view's entry, a new one (nothing known yet) if it has none.
bounds_entry& entry_for(registry& r, const array_base& offsets) {
  if (bounds_entry* e = entry_of(r, offsets)) return *e;
  r.bounds.push_back(bounds_entry{view_key::of(offsets)});
  trim(r.bounds);
  return r.bounds.back();
}

}  // namespace

void remember_offsets_bounds(const array_base& offsets, std::int64_t first, std::int64_t last, std::int64_t longest) {
  registry& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  bounds_entry& e = entry_for(r, offsets);
  if (!e.bounded) e.first = first, e.last = last, e.bounded = true;
  tighten(e.longest, longest);
}

offsets_facts offsets_facts_of(const array_base& offsets) {
  std::int64_t longest = -1;
  {
    registry& r = the_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (const bounds_entry* e = entry_of(r, offsets)) {
      if (e->bounded) return {e->first, e->last, e->longest};
      longest = e->longest;
    }
  }
  std::int64_t first = 0, last = 0;
  const std::int64_t n = offsets.size();
  if (n > 0) {
    first = read_offset(offsets, 0);  // (int64 or int32)
    last = read_offset(offsets, n - 1);
  }
  remember_offsets_bounds(offsets, first, last);
  return {first, last, longest};
}

std::pair<std::int64_t, std::int64_t> offsets_bounds(const array_base& offsets) {
  const offsets_facts f = offsets_facts_of(offsets);
  return {f.first, f.last};
}

void remember_offsets_longest(const array_base& offsets, std::int64_t longest) {
  if (longest < 0) return;
  registry& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  tighten(entry_for(r, offsets).longest, longest);
}

std::int64_t offsets_longest(const array_base& offsets) {
  registry& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const bounds_entry* e = entry_of(r, offsets);
  return e ? e->longest : -1;
}

void remember_same_list_lengths(const array_base& a, const array_base& b) {
  registry& r = the_registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.pairs.push_back(pair_entry{view_key::of(a), view_key::of(b)});
  trim(r.pairs);
}

bool same_list_lengths(const array_base& a, const array_base& b) {
  if (same_view(a, b)) return true;
  if (a.size() != b.size()) return false;
  {
    registry& r = the_registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (const auto& e : r.pairs)
      if ((e.a.is(a) && e.b.is(b)) || (e.a.is(b) && e.b.is(a))) return true;
  }
  const std::vector<std::int64_t> x = host_offsets(a), y = host_offsets(b);  // (int64 or int32)
  for (std::size_t i = 0; i < x.size(); ++i)
    if (x[i] - x[0] != y[i] - y[0]) return false;
  remember_same_list_lengths(a, b);
  return true;
}

}  // namespace jf::detail
