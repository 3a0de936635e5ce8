#pragma once
// Teaching: the controls that walk a sequence of steps (the clade waves, a sampled reconciliation's
// draws): first, back, play/pause, forward and last buttons, a slider and a status line, plus
// Space, Left, Right, Home and End inside a chosen widget. Steps are numbered from 0; -1 is "not
// stepping". What a step shows is the owner's business (stepChanged).
#include <QTimer>
#include <QWidget>
#include <utility>
#include <vector>

class QShortcut;
class QSlider;
class QToolButton;

namespace gpurec::ui {

class ElidingLabel;

// What the controls are called, for tooltips and screen readers ("clade", "the waves"). Object
// names are `prefix` + Play, StepForward, StepBack, StepSlider and StepStatus.
struct StepTexts {
    QString prefix;
    QString first, firstTip; // "First clade", "Back to the first clade computed (Home)"
    QString back, backTip;   // "Step back", …
    QString play, pause, playTip;
    QString forward, forwardTip;
    QString last, lastTip;
    QString slider, sliderTip;
    QString status; // accessible name of the status line
};

class StepControls : public QWidget {
    Q_OBJECT
  public:
    static constexpr int kPlayIntervalMs = 700;

    explicit StepControls(const StepTexts& texts, QWidget* parent = nullptr);
    // Space, arrows, Home and End work anywhere inside `scope` while there are steps (the scope
    // must outlive the controls' use of them).
    void installShortcuts(QWidget* scope);
    // (what, keys) of those shortcuts, for Help ▸ Keyboard shortcuts; `what` is "the waves" or the like.
    static std::vector<std::pair<QString, QString>> keyHelp(const QString& what, const QString& unit);

    // Turns stepping off (step −1) and sets how many steps there are; 0 disables the controls.
    void setStepCount(int count);
    int stepCount() const { return count_; }
    int step() const { return step_; }
    bool playing() const { return timer_.isActive(); }
    void setStatus(const QString& text);

    void setStep(int step); // clamped to the steps; -1 turns stepping off
    void stepBy(int delta);
    void togglePlay();

  signals:
    void stepChanged(int step); // -1 when stepping is turned off, also by setStepCount

  private:
    void showState();

    StepTexts texts_;
    QToolButton *first_, *back_, *play_, *forward_, *last_;
    QSlider* slider_;
    ElidingLabel* status_;
    QTimer timer_;
    std::vector<QShortcut*> shortcuts_; // owned by their scope
    int count_ = 0;
    int step_ = -1;
};

} // namespace gpurec::ui
