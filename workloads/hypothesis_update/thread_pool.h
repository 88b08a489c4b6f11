// A small fixed pool for the CPU backend's data-parallel phases. Work items are claimed from an
// atomic counter, so which thread runs an item never changes what the item computes: every
// output element belongs to exactly one item, and reductions happen after the phase, in order.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace weft::hypothesis_update {

class ThreadPool {
 public:
  static constexpr unsigned kMaxThreads = 1024;
  explicit ThreadPool(unsigned threads);  // 0: hardware concurrency; above kMaxThreads: BadInput
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned size() const { return unsigned(workers_.size()) + 1; }
  // Runs fn(0..count-1) on the pool and the calling thread; rethrows the first exception.
  void parallel_for(size_t count, const std::function<void(size_t)>& fn);

 private:
  void worker_loop();
  void drain();

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(size_t)>* job_ = nullptr;
  size_t count_ = 0, next_ = 0, finished_ = 0;
  unsigned generation_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

}  // namespace weft::hypothesis_update
