// What jetfuse remembers about an index array between scatters. numpy checks every index of put,
// x[indices] = v and ufunc.at before the first write, and x[indices] = v leaves the last write: on
// a GPU each is a pass over the indices before the writes (a checking launch; the marks of each
// element named, 0.44 ms at 2^26 on an H200) that CuPy and PyTorch skip, guaranteeing neither. An
// index array used again unchanged (a mesh's connectivity, a permutation applied every step) needs
// neither pass again: the thread's next wait reads each scatter's record (deferred_index_checks.hpp),
// and a clean one says that the indices were all in bounds and, for a store that marked them,
// whether an element was named twice. Those facts are kept for the buffer's elements with the
// buffer's write count, and used while nothing has written the buffer since (buffer::writes, every
// jetfuse write into existing memory; buffer::external, memory handed out or adopted: never).
// A scatter that uses them has no checking launch: it checks each index as it writes it, so a fact
// wrong through a write jetfuse missed still raises numpy's IndexError and never writes outside
// the target (though elements before the bad index may then have been written).
// A store through indices remembered with repeats also learns which positions win (a bit each,
// found once from the claims): later stores write only those positions, one launch with no claims.
#pragma once

#include <cstdint>
#include <memory>

#include "jetfuse/array.hpp"

namespace jf::detail::remembered_indices {

enum : std::uint8_t {
  in_bounds = 1,      // every index names an element (numpy's checks would pass)
  distinct = 2,       // and no element is named twice (any order of the stores leaves the last write)
  repeats = 4,        // and some element is named twice (the claims are needed)
  winners = 8,        // and the positions whose value wins are kept (known::winners)
  find_winners = 16,  // (a scatter's, not a fact) the scatter finds the winners for the next calls
};

// What lookup() found.
struct known {
  std::uint8_t facts = 0;
  // With facts & winners: a bit a position, set where its value wins. A scatter that reads it keeps
  // this handle in its lesson until its thread's next wait, so that the memory outlives its kernel
  // whichever thread drops the facts.
  buffer_ptr winners;
  bool find_winners = false;          // repeats without winners, and no scatter finding them yet
};

// A scatter's indices as the facts are kept: contiguous elements of one buffer, as indices into an
// axis of `target` elements.
struct lesson {
  std::weak_ptr<buffer> buf;
  std::uint64_t writes = 0;  // the buffer's write count when the scatter was called
  std::int64_t offset = 0, count = 0, target = 0;
  dtype type = dtype::int64;
  bool marked = false;  // the scatter's kernel marked each element named (it reports repeats)
  // The winners' bitmap (a bit a position) the scatter's kernel fills, or reads (held here until
  // the thread's next wait, after the kernel), or null.
  buffer_ptr winners;
};

// Whether facts about `indices` as indices into `target` elements could be kept (contiguous memory
// that jetfuse alone writes), and what the scatter's clean record would teach.
bool lesson_for(const array_base& indices, std::int64_t target, bool marked, lesson& out);

// The facts kept for `indices` into `target` elements, 0 when none (or the buffer changed since).
std::uint8_t lookup(const array_base& indices, std::int64_t target);
// The same, with the winners' bitmap when kept. With `may_find_winners`, known::find_winners says
// that the caller should find them (repeats known, no winners kept, none being found): the caller
// then hands its zeroed bitmap to finding_winners() and to its lesson.
known lookup_for_store(const array_base& indices, std::int64_t target, bool may_find_winners);
void finding_winners(const array_base& indices, std::int64_t target, const buffer_ptr& bits);

// The scatter's record came back clean (repeated: its kernel found an element named twice). A
// lesson with winners, about indices known to repeat, keeps them.
void learn(const lesson& l, bool repeated);

// The scatter's record holds a failure: what was kept about its indices is forgotten (it was used
// and wrong, or the next call must check first anyway).
void forget(const lesson& l);

// Forgets everything (tests).
void forget_all();

}  // namespace jf::detail::remembered_indices
