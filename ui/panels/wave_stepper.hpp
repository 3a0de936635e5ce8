#pragma once
// Teaching: walks one family's clades in the order the waves compute them, one clade per step
// (an even selection of kMaxSteps for a larger family), by buttons, a slider or the keyboard
// (space plays and pauses, the arrows step, Home and End jump).
#include "data/dataset.hpp"
#include "panels/step_controls.hpp"

#include <QWidget>
#include <utility>
#include <vector>

namespace gpurec::ui {

class WaveStepper : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kMaxSteps = 400;
    static constexpr int kPlayIntervalMs = StepControls::kPlayIntervalMs;

    explicit WaveStepper(QWidget* parent = nullptr);
    // nullptr turns stepping off; the family must outlive its use here.
    void setFamily(const GeneFamily* family);
    // Space, arrows, Home and End work anywhere inside `scope`.
    void installShortcuts(QWidget* scope);
    // (what, keys) of those shortcuts, for Help ▸ Keyboard shortcuts.
    static std::vector<std::pair<QString, QString>> keyHelp();

    int step() const { return controls_->step(); } // -1: not stepping
    int stepCount() const { return static_cast<int>(steps_.size()); }
    int cladeAt(int step) const { return steps_.at(step); }
    int waveAt(int step) const;
    // Per clade: finished once step `step` is shown (its clade and every clade computed before it).
    std::vector<char> computedAt(int step) const;
    bool playing() const { return controls_->playing(); }

    void setStep(int step) { controls_->setStep(step); } // clamped to the steps; -1 turns stepping off
    void stepBy(int delta) { controls_->stepBy(delta); }
    void togglePlay() { controls_->togglePlay(); }

  signals:
    void stepChanged(int step, int clade); // (-1, -1) when stepping is turned off

  private:
    void showStatus();

    StepControls* controls_;
    const GeneFamily* family_ = nullptr;
    std::vector<int> cladeWave_, orderIndex_; // per clade: its wave, its place in the wave order
    std::vector<int> steps_;                  // clades shown, in wave order
    int waveCount_ = 0;
};

} // namespace gpurec::ui
