#pragma once
// Commands from the GUI thread to a running optimisation, read by the worker between iterations:
// pause/resume, stop, solver options and warm-start clearing to apply before the next iteration,
// and nudges that let a paused run answer other requests (the panels' table requests) while it waits.
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
    // Any thread: a paused checkpoint wakes and calls its `whileWaiting` before waiting again.
    void nudge();

    // Worker thread, between iterations: blocks while a pause is requested (calling `onPause` once
    // before waiting, `whileWaiting` after each nudge and `onResume` after); returns false when the
    // run must stop.
    bool checkpoint(const std::function<void()>& onPause, const std::function<void()>& onResume,
                    const std::function<void()>& whileWaiting);
    std::optional<SolverOptions> takeOptions();
    bool takeClearWarmStarts();

  private:
    std::mutex mutex_;
    std::condition_variable wake_;
    bool pause_ = false;
    bool stop_ = false;
    bool clearWarmStarts_ = false;
    bool nudged_ = false;
    std::optional<SolverOptions> options_;
};

} // namespace gpurec::ui
