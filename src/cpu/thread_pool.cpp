// A small persistent thread pool: one mutex-protected queue of jobs, each split into chunks that
// the workers and the calling thread claim one at a time. Chunks are large (>= 64K elements), so
// one lock per chunk costs nothing measurable and keeps the job's lifetime simple: nobody touches
// a job after its last chunk is counted done.
#include "jetfuse/cpu/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/thread_pool_testing.hpp"

namespace jf::cpu_eval {
namespace {

struct job {
  void (*fn)(void*, std::int64_t, std::int64_t);
  void* ctx;
  std::int64_t n;
  int chunks;
  int next = 0;  // next chunk to claim (under the pool mutex)
  int done = 0;  // chunks finished (under the pool mutex)
  std::int64_t begin(int c) const { return n * c / chunks; }
};

class pool {
public:
  pool() {
    const unsigned hc = std::thread::hardware_concurrency();
    const int workers = hc > 1 ? static_cast<int>(hc) - 1 : 0;
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }
  ~pool() {
    {
      std::lock_guard lk(m_);
      stop_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : threads_) t.join();
  }
  int size() const { return static_cast<int>(threads_.size()) + 1; }

  void run(job& j) {
    std::unique_lock lk(m_);
    queue_.push_back(&j);
    lk.unlock();
    work_cv_.notify_all();
    lk.lock();
    // The caller works on its own job until every chunk is claimed, then waits for the others.
    while (j.next < j.chunks) run_one(j, lk);
    done_cv_.wait(lk, [&] { return j.done == j.chunks; });
  }

private:
  // Claims and runs one chunk of j; called and returns with the lock held.
  void run_one(job& j, std::unique_lock<std::mutex>& lk) {
    const int c = j.next++;
    if (j.next == j.chunks) queue_.erase(std::find(queue_.begin(), queue_.end(), &j));
    lk.unlock();
    j.fn(j.ctx, j.begin(c), j.begin(c + 1));
    lk.lock();
    if (++j.done == j.chunks) done_cv_.notify_all();
  }
  void work() {
    std::unique_lock lk(m_);
    for (;;) {
      work_cv_.wait(lk, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      run_one(*queue_.front(), lk);
    }
  }

  std::mutex m_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<job*> queue_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
};

pool& the_pool() {
  static pool p;
  return p;
}

std::atomic<int> thread_limit{0};  // set_thread_limit: 0 = the pool's size

}  // namespace

int num_threads() { return the_pool().size(); }

void set_thread_limit(int n) { thread_limit.store(n < 0 ? 0 : n, std::memory_order_relaxed); }

void parallel_for(std::int64_t n, std::int64_t min_chunk, void (*fn)(void*, std::int64_t, std::int64_t), void* ctx) {
  if (n <= 0) return;
  const std::int64_t by_size = min_chunk > 0 ? n / min_chunk : n;
  if (by_size < 2) {
    fn(ctx, 0, n);
    return;
  }
  pool& p = the_pool();
  const int limit = thread_limit.load(std::memory_order_relaxed);
  const int threads = limit > 0 ? limit : p.size();
  // A few chunks per thread balance uneven progress; never below min_chunk elements each.
  const int chunks = static_cast<int>(std::min<std::int64_t>(by_size, 4 * static_cast<std::int64_t>(threads)));
  if (p.size() == 1 || threads == 1) {
    fn(ctx, 0, n);
    return;
  }
  job j{fn, ctx, n, chunks};
  p.run(j);
}

}  // namespace jf::cpu_eval
