#include "thread_pool.h"

#include <string>

#include <weft/error.h>

namespace weft::hypothesis_update {

ThreadPool::ThreadPool(unsigned threads) {
  // A thread per requested unit, so an absurd count (a negative number cast to unsigned, a typo)
  // must be refused before it tries to start billions of threads.
  if (threads > kMaxThreads)
    fail(ErrorCode::BadInput, "CPU backend: " + std::to_string(threads) + " threads requested, at most " + std::to_string(kMaxThreads));
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

// Claims items until none is left; called by workers and by the thread that posted the job.
void ThreadPool::drain() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (job_ && next_ < count_) {
    const size_t item = next_++;
    const auto* job = job_;
    lock.unlock();
    try {
      (*job)(item);
    } catch (...) {
      std::lock_guard<std::mutex> guard(mutex_);
      if (!error_) error_ = std::current_exception();
    }
    lock.lock();
    if (++finished_ == count_) done_.notify_all();
  }
}

void ThreadPool::worker_loop() {
  unsigned seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
    }
    drain();
  }
}

void ThreadPool::parallel_for(size_t count, const std::function<void(size_t)>& fn) {
  if (count == 0) return;
  if (count == 1 || workers_.empty()) {  // waking workers would cost more than the work
    for (size_t i = 0; i < count; ++i) fn(i);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &fn;
    count_ = count;
    next_ = finished_ = 0;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  drain();
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return finished_ == count_; });
    job_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace weft::hypothesis_update
