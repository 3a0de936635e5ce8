#pragma once
// A process group whose ranks are threads of this process (core/distributed without MPI): the
// suites of the distributed engine run every rank in one process, under the sanitizers too. The
// collectives meet in shared memory; each rank ends as the CLI's main does (finishRun's agreement),
// so that a rank's failure reaches the others as it would across processes.
#include "distributed/process_group.hpp"

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace gpurec::test {

class ThreadRanks {
  public:
    explicit ThreadRanks(int size) : size_(size), slots_(size), numbers_(size), mail_(size * size) {}

    // Runs `body` on every rank at once; returns each rank's error ("" when none), as the CLI's
    // main would have reported it.
    std::vector<std::string> run(const std::function<void(ProcessGroup&)>& body) {
        std::vector<std::string> errors(size_);
        std::vector<std::thread> threads;
        for (int r = 0; r < size_; ++r)
            threads.emplace_back([this, r, &body, &errors] {
                Rank group(*this, r);
                std::exception_ptr failure;
                try {
                    body(group);
                } catch (const GroupFailure& e) {
                    errors[r] = e.what();
                    return; // agreed already
                } catch (...) {
                    failure = std::current_exception();
                }
                try {
                    group.agree(failure);
                } catch (const std::exception& e) {
                    errors[r] = e.what();
                }
            });
        for (std::thread& t : threads)
            t.join();
        return errors;
    }

  private:
    class Rank final : public ProcessGroup {
      public:
        Rank(ThreadRanks& all, int rank) : all_(all), rank_(rank) {}
        int rank() const override { return rank_; }
        int size() const override { return all_.size_; }
        int hostRank() const override { return rank_; }
        int hostSize() const override { return all_.size_; }

      protected:
        std::array<int, 2> maxOf(std::array<int, 2> values) override {
            all_.numbers_[rank_] = values;
            all_.barrier();
            std::array<int, 2> out = values;
            for (const std::array<int, 2>& v : all_.numbers_)
                out = {std::max(out[0], v[0]), std::max(out[1], v[1])};
            all_.barrier();
            return out;
        }
        std::vector<std::string> gatherBytes(const std::string& mine, int root, bool everywhere) override {
            all_.slots_[rank_] = mine;
            all_.barrier();
            std::vector<std::string> out;
            if (everywhere || rank_ == root) out = all_.slots_;
            all_.barrier();
            return out;
        }
        void broadcastBytes(std::string& bytes, int root) override {
            if (rank_ == root) all_.slots_[root] = bytes;
            all_.barrier();
            bytes = all_.slots_[root];
            all_.barrier();
        }
        void sendDoubles(const std::vector<double>& values, int to) override {
            const std::lock_guard lock(all_.mutex_);
            all_.mail_[rank_ * all_.size_ + to].push_back(values);
            all_.arrived_.notify_all();
        }
        void receiveDoubles(std::vector<double>& values, int from) override {
            std::unique_lock lock(all_.mutex_);
            std::deque<std::vector<double>>& box = all_.mail_[from * all_.size_ + rank_];
            all_.wait(lock, [&] { return !box.empty(); });
            values = std::move(box.front());
            box.pop_front();
        }

      private:
        ThreadRanks& all_;
        int rank_;
    };

    // Waits until every rank has arrived.
    void barrier() {
        std::unique_lock lock(mutex_);
        const long generation = generation_;
        if (++waiting_ == size_) {
            waiting_ = 0;
            ++generation_;
            arrived_.notify_all();
            return;
        }
        wait(lock, [&] { return generation_ != generation; });
    }

    // A rank that never comes is a bug of the code under test: stop instead of hanging the suite.
    template <class Ready> void wait(std::unique_lock<std::mutex>& lock, const Ready& ready) {
        if (!arrived_.wait_for(lock, std::chrono::minutes(2), ready)) {
            std::fprintf(stderr,
                         "ThreadRanks: a rank waited 2 minutes for the others (a collective they skipped)\n");
            std::abort();
        }
    }

    int size_;
    std::mutex mutex_;
    std::condition_variable arrived_;
    int waiting_ = 0;
    long generation_ = 0;
    std::vector<std::string> slots_;
    std::vector<std::array<int, 2>> numbers_;
    std::vector<std::deque<std::vector<double>>> mail_; // [from * size + to]
};

} // namespace gpurec::test
