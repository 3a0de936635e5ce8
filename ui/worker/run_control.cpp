#include "worker/run_control.hpp"

namespace gpurec::ui {

void RunControl::reset() {
    std::lock_guard lock(mutex_);
    pause_ = stop_ = clearWarmStarts_ = nudged_ = false;
    options_.reset();
}

void RunControl::requestPause() {
    std::lock_guard lock(mutex_);
    pause_ = true;
}

void RunControl::resume() {
    {
        std::lock_guard lock(mutex_);
        pause_ = false;
    }
    wake_.notify_all();
}

void RunControl::requestStop() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
}

void RunControl::submitOptions(const SolverOptions& options) {
    std::lock_guard lock(mutex_);
    options_ = options;
}

void RunControl::requestClearWarmStarts() {
    std::lock_guard lock(mutex_);
    clearWarmStarts_ = true;
}

void RunControl::nudge() {
    {
        std::lock_guard lock(mutex_);
        nudged_ = true;
    }
    wake_.notify_all();
}

bool RunControl::checkpoint(const std::function<void()>& onPause, const std::function<void()>& onResume,
                            const std::function<void()>& whileWaiting) {
    std::unique_lock lock(mutex_);
    if (pause_ && !stop_) {
        onPause();
        for (;;) {
            wake_.wait(lock, [this] { return !pause_ || stop_ || nudged_; });
            if (!pause_ || stop_) break;
            nudged_ = false;
            lock.unlock(); // the nudger may be waiting for what whileWaiting does
            whileWaiting();
            lock.lock();
        }
        onResume();
    }
    return !stop_;
}

std::optional<SolverOptions> RunControl::takeOptions() {
    std::lock_guard lock(mutex_);
    std::optional<SolverOptions> out;
    out.swap(options_);
    return out;
}

bool RunControl::takeClearWarmStarts() {
    std::lock_guard lock(mutex_);
    bool out = clearWarmStarts_;
    clearWarmStarts_ = false;
    return out;
}

} // namespace gpurec::ui
