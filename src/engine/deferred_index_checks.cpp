#include "engine/deferred_index_checks.hpp"

#include <cstddef>
#include <mutex>
#include <vector>

#include "core/index_errors.hpp"
#include "cuda/runtime.hpp"
#include "jetfuse/errors.hpp"

namespace jf::detail::deferred_index_checks {
namespace {

constexpr std::size_t record_bytes = sizeof(index_error_record);

// The calling thread's records (its stream's): claimed in order, zero until a kernel fails.
struct ring {
  unsigned char* records = nullptr;
  int claimed = 0;  // records [0, claimed) belong to evaluations not yet checked
  std::vector<std::pair<int, remembered_indices::lesson>> lessons;  // of claimed records
  ring() = default;
  ring(const ring&) = delete;
  ring& operator=(const ring&) = delete;
  ~ring() {
    if (records) cuda_rt::deallocate(records);  // ignores a driver already shut down
  }
  unsigned char* base() {
    if (records == nullptr) {
      records = static_cast<unsigned char*>(cuda_rt::allocate(capacity * record_bytes));
      cuda_rt::memset_d8(records, 0, capacity * record_bytes);
    }
    return records;
  }
};
thread_local ring tls;

// The wait hook: the stream is idle, so the claimed records are final.
void raise_recorded() {
  if (tls.claimed == 0) return;
  std::vector<index_error_record> r(static_cast<std::size_t>(tls.claimed));
  cuda_rt::copy_dtoh(r.data(), tls.records, r.size() * record_bytes);  // the hook is not re-entered
  cuda_rt::memset_d8(tls.records, 0, r.size() * record_bytes);         // stream-ordered before reuse
  tls.claimed = 0;
  std::vector<std::pair<int, remembered_indices::lesson>> lessons;
  lessons.swap(tls.lessons);
  for (const auto& [k, l] : lessons) {
    const index_error_record& e = r[static_cast<std::size_t>(k)];
    if (e.rank == 0)
      remembered_indices::learn(l, e.repeats != 0);
    else
      remembered_indices::forget(l);
  }
  for (const index_error_record& e : r)  // claimed in evaluation order: the earliest failure
    if (e.rank != 0) throw index_error(index_error_message(e));
}

void install_hook() {
  static std::once_flag once;
  std::call_once(once, [] { cuda_rt::set_wait_hook(&raise_recorded); });
}

}  // namespace

void* claim() {
  install_hook();
  unsigned char* base = tls.base();
  if (tls.claimed == capacity) cuda_rt::synchronize();  // checks them all (claimed = 0) or throws
  return base + static_cast<std::size_t>(tls.claimed++) * record_bytes;
}

void learn_when_clean(const void* record, remembered_indices::lesson l) {
  const std::ptrdiff_t k =
      (static_cast<const unsigned char*>(record) - tls.records) / static_cast<std::ptrdiff_t>(record_bytes);
  if (tls.records && k >= 0 && k < tls.claimed) tls.lessons.emplace_back(static_cast<int>(k), std::move(l));
}

void* unchecked() {
  // The last record: a claim's slot only once every other is taken, and such kernels never write it.
  return tls.base() + (capacity - 1) * record_bytes;
}

void wait_and_raise() {
  install_hook();
  cuda_rt::synchronize();
}

}  // namespace jf::detail::deferred_index_checks
