#pragma once
// Run settings and controls: rate mode (AleRax's parametrisation) and starting rates, the
// speciation categories' starting shape and fitted weights, optimiser, bounds and iteration cap;
// Evaluate, Optimise, Pause/Resume and Stop; device, memory limit and clearing warm starts.
#include "data/dataset.hpp"
#include "optim/optimizer.hpp"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QUndoStack;

namespace gpurec::ui {

// θ's parametrisation in the Log and the undo history: gpurec's name of its rate mode ("global",
// "specieswise", "genewise"), followed by "with origination weights" when θ holds them.
QString parametrizationName(const RateParameters& theta);

class RunPanel : public QWidget {
    Q_OBJECT
  public:
    explicit RunPanel(QWidget* parent = nullptr);

    // Throws std::invalid_argument (shown inline by the caller) on an unreadable field.
    OptimizerSettings optimizerSettings() const;
    // AleRax's name of the chosen parametrisation (--model-parametrization): GLOBAL, PER-SPECIES,
    // PER-FAMILY or ORIGINATION-PER-SPECIES (core's parseParametrization reads it).
    std::string parametrization() const;
    // Shows θ's parametrisation without emitting (undo puts it back with the rates).
    void showParametrization(const RateParameters& theta);
    // The loaded model's options: greys the parametrisations it refuses, as AleRax does (GLOBAL and
    // PER-FAMILY cannot hold the origination weights of OPTIMIZE, ORIGINATION-PER-SPECIES needs
    // them, PER-FAMILY does not go with speciation categories), saying why below the menu and in
    // their tooltips; shows the speciation categories' settings when there are several. A choice
    // made unavailable moves, without emitting, to the nearest available one, and the sentence
    // returned says so ("" when the choice stays).
    QString setModel(Origination origination, int speciationCategories);
    // Changes of the optimiser's method become commands on `stack`.
    void setUndoStack(QUndoStack* stack) { undo_ = stack; }
    Rates startingRates() const;  // throws std::invalid_argument
    double startingAlpha() const; // the categories' shape α; throws std::invalid_argument
    // Which speciation category the panels that show one set of tables show (0-based).
    int shownCategory() const;
    QString device() const;                // "auto", "cpu", "cuda:0", ...
    void setDevice(const QString& device); // an unlisted one (e.g. "cuda:3") is added
    double memoryLimitBytes() const;
    double memoryLimitGiB() const;
    // Shows saved settings without emitting (used when a session is opened); `originWeights`: the
    // session's data has --origination OPTIMIZE (global rates are then ORIGINATION-PER-SPECIES).
    void restore(RateMode mode, bool originWeights, const Rates& starting, double startingAlpha,
                 const OptimizerSettings& settings, const QString& device, double memoryGiB);

    // Idle / running / paused: enables the right buttons.
    void setState(bool haveData, bool running, bool pauseRequested);
    // The current rates' range, α and the origination weights' range (normalised, O_e = o_e / Σ o);
    // the categories' weights s_c at that α.
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
    void shownCategoryChanged(int category);

  private:
    void emitDeviceIfChanged();

    QComboBox *mode_, *optimizer_, *device_, *shownCategory_;
    QLineEdit *rateD_, *rateL_, *rateT_, *startAlpha_, *minRate_, *maxRate_, *gradTol_;
    QGroupBox* categoriesBox_;
    QSpinBox* maxIterations_;
    QDoubleSpinBox* memoryGiB_;
    QPushButton *evaluate_, *optimise_, *pause_, *stop_, *reset_, *clearWarm_;
    QLabel *current_, *error_, *modeNote_, *categoryRates_;
    int categories_ = 1;
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
