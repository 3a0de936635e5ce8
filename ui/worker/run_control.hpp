#pragma once
// Commands from the GUI thread to a running optimisation, read by the worker between iterations:
// pause/resume, stop, solver options and warm-start clearing to apply before the next iteration.
#include "model/solver_options.hpp"

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>

namespace gpurec::ui {

class RunControl {
  public:
    // Forgets every request (called before a run starts).
    void reset();

    // GUI thread.
    void requestPause();
    void resume();
    void requestStop();
    void submitOptions(const SolverOptions& options);
    void requestClearWarmStarts();

    // Worker thread, between iterations: blocks while a pause is requested (calling `onPause` once
    // before waiting and `onResume` after); returns false when the run must stop.
    bool checkpoint(const std::function<void()>& onPause, const std::function<void()>& onResume);
    std::optional<SolverOptions> takeOptions();
    bool takeClearWarmStarts();

  private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool pause_ = false;
    bool stop_ = false;
    bool clearWarmStarts_ = false;
    std::optional<SolverOptions> options_;
};

} // namespace gpurec::ui
