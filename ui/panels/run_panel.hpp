#pragma once
// Run settings and controls: rate mode and starting rates, optimiser, bounds and iteration cap;
// Evaluate, Optimise, Pause/Resume and Stop; device, memory limit and clearing warm starts.
#include "optim/optimizer.hpp"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QUndoStack;

namespace gpurec::ui {

class RunPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunPanel(QWidget* parent = nullptr);

    // Throws std::invalid_argument (shown inline by the caller) on an unreadable field.
    OptimizerSettings optimizerSettings() const;
    RateMode rateMode() const;
    void setRateMode(RateMode mode); // without emitting (undo puts the mode back with the rates)
    // Changes of the optimiser's method become commands on `stack`.
    void setUndoStack(QUndoStack* stack) { undo_ = stack; }
    Rates startingRates() const;           // throws std::invalid_argument
    QString device() const;                // "auto", "cpu", "cuda:0", ...
    void setDevice(const QString& device); // an unlisted one (e.g. "cuda:3") is added
    double memoryLimitBytes() const;
    double memoryLimitGiB() const;
    // Shows saved settings without emitting (used when a session is opened).
    void restore(RateMode mode, const Rates& starting, const OptimizerSettings& settings,
                 const QString& device, double memoryGiB);

    // Idle / running / paused: enables the right buttons.
    void setState(bool haveData, bool running, bool pauseRequested);
    void showCurrentRates(const RateParameters& theta);
    // Greys the starting rates the loaded model lacks (UndatedDL: T, --no-dup: D) and leaves them
    // out of the current rates.
    void setPresentRates(PresentRates present);
    void showError(const QString& message); // "" hides

    QPushButton* evaluateButton() const { return evaluate_; }
    QPushButton* optimiseButton() const { return optimise_; }
    QPushButton* pauseButton() const { return pause_; }
    QPushButton* stopButton() const { return stop_; }
    QPushButton* resetButton() const { return reset_; }
    QSpinBox* maxIterations() const { return maxIterations_; }

  signals:
    void evaluateRequested();
    void optimiseRequested();
    void pauseRequested();
    void resumeRequested();
    void stopRequested();
    void resetRatesRequested(); // mode or starting rates changed, or the Reset button
    void deviceChanged();       // device or memory limit, only when it differs from the last one emitted
    void clearWarmStartsRequested();

  private:
    void emitDeviceIfChanged();

    QComboBox *mode_, *optimizer_, *device_;
    QLineEdit *rateD_, *rateL_, *rateT_, *minRate_, *maxRate_, *gradTol_;
    QSpinBox* maxIterations_;
    QDoubleSpinBox* memoryGiB_;
    QPushButton *evaluate_, *optimise_, *pause_, *stop_, *reset_, *clearWarm_;
    QLabel *current_, *error_;
    bool pauseIsResume_ = false;
    bool running_ = false;
    PresentRates present_;
    // What the engine was last asked to use: leaving the memory field without a change (as
    // happens when focus passes through it) must not rebuild the engine.
    QString appliedDevice_;
    double appliedMemoryGiB_ = 0.0;
    int appliedOptimizer_ = 0; // the method's index before the change being made
    QUndoStack* undo_ = nullptr;
};

} // namespace gpurec::ui
