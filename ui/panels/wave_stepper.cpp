#include "panels/wave_stepper.hpp"

#include "engine/wave_schedule.hpp"
#include "window/eliding_label.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QShortcut>
#include <QSlider>
#include <QToolButton>
#include <algorithm>

namespace gpurec::ui {

namespace {
QToolButton* stepButton(const QString& text, const QString& name, const QString& tip) {
    auto* b = new QToolButton;
    b->setText(text);
    b->setAccessibleName(name);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
}
} // namespace

WaveStepper::WaveStepper(QWidget* parent) : QWidget(parent) {
    first_ = stepButton(tr("|◀"), tr("First clade"), tr("Back to the first clade computed (Home)"));
    back_ = stepButton(tr("◀"), tr("Step back"), tr("One clade back (Left arrow)"));
    play_ = stepButton(tr("▶ Play"), tr("Play the waves"),
                       tr("Walk through the clades in the order the waves compute them (Space)"));
    play_->setObjectName("wavePlay");
    play_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    forward_ = stepButton(tr("▶"), tr("Step forward"), tr("One clade forward (Right arrow)"));
    forward_->setObjectName("waveStepForward");
    last_ = stepButton(tr("▶|"), tr("Last clade"), tr("To the whole family, computed last (End)"));
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName("waveStepSlider");
    slider_->setAccessibleName(tr("Wave step"));
    slider_->setToolTip(tr("Drag to any step of the computation"));
    slider_->setMinimumWidth(slider_->fontMetrics().horizontalAdvance("M") * 5);
    status_ = new ElidingLabel; // the panel must fit a small screen at scale 1.5
    status_->setObjectName("waveStepStatus");
    status_->setAccessibleName(tr("Wave step status"));

    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    for (QToolButton* b : {first_, back_, play_, forward_, last_})
        row->addWidget(b);
    row->addWidget(slider_, 1);
    row->addWidget(status_, 2);

    timer_.setInterval(kPlayIntervalMs);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (step_ + 1 >= stepCount()) {
            timer_.stop();
            showState();
            return;
        }
        setStep(step_ + 1);
    });
    connect(first_, &QToolButton::clicked, this, [this] { setStep(0); });
    connect(back_, &QToolButton::clicked, this, [this] { stepBy(-1); });
    connect(forward_, &QToolButton::clicked, this, [this] { stepBy(1); });
    connect(last_, &QToolButton::clicked, this, [this] { setStep(stepCount() - 1); });
    connect(play_, &QToolButton::clicked, this, &WaveStepper::togglePlay);
    connect(slider_, &QSlider::valueChanged, this, [this](int value) {
        if (value != step_) setStep(value);
    });
    showState();
}

void WaveStepper::installShortcuts(QWidget* scope) {
    const std::pair<QKeySequence, std::function<void()>> keys[] = {
        {Qt::Key_Space, [this] { togglePlay(); }},
        {Qt::Key_Right, [this] { stepBy(1); }},
        {Qt::Key_Left, [this] { stepBy(-1); }},
        {Qt::Key_Home, [this] { setStep(0); }},
        {Qt::Key_End, [this] { setStep(stepCount() - 1); }}};
    for (const auto& [key, action] : keys) {
        auto* shortcut = new QShortcut(key, scope);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, [this, action] {
            if (family_) action();
        });
    }
}

std::vector<std::pair<QString, QString>> WaveStepper::keyHelp() {
    return {{tr("Play or pause the waves"), tr("Space")},
            {tr("Step forward or back"), tr("Right, Left")},
            {tr("First or last clade"), tr("Home, End")}};
}

void WaveStepper::setFamily(const GeneFamily* family) {
    timer_.stop();
    family_ = family;
    cladeWave_.clear();
    orderIndex_.clear();
    steps_.clear();
    waveCount_ = 0;
    if (family_) {
        const FamilyWaves waves = computeFamilyWaves(family_->clades);
        const std::vector<int> order = cladesInWaveOrder(waves);
        cladeWave_ = waves.cladeWave;
        waveCount_ = waves.waveCount;
        orderIndex_.resize(order.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            orderIndex_[order[i]] = static_cast<int>(i);
        steps_ = spreadSteps(order, kMaxSteps);
    }
    const bool was = step_ >= 0;
    step_ = -1;
    showState();
    if (was) emit stepChanged(-1, -1);
}

int WaveStepper::waveAt(int step) const {
    return cladeWave_.at(steps_.at(step));
}

std::vector<char> WaveStepper::computedAt(int step) const {
    const int upTo = orderIndex_.at(steps_.at(step));
    std::vector<char> done(orderIndex_.size());
    for (std::size_t c = 0; c < done.size(); ++c)
        done[c] = orderIndex_[c] <= upTo;
    return done;
}

void WaveStepper::setStep(int step) {
    if (!family_ || steps_.empty()) return;
    step = std::clamp(step, -1, stepCount() - 1);
    if (step == step_) return;
    step_ = step;
    if (step_ < 0) timer_.stop();
    showState();
    emit stepChanged(step_, step_ >= 0 ? steps_[step_] : -1);
}

void WaveStepper::stepBy(int delta) {
    timer_.stop();
    const int target = step_ < 0 ? (delta > 0 ? 0 : -1) : std::max(0, step_ + delta);
    if (target >= 0) setStep(target);
    showState(); // the Play button, when only the timer stopped
}

void WaveStepper::togglePlay() {
    if (!family_) return;
    if (timer_.isActive()) {
        timer_.stop();
    } else {
        if (step_ + 1 >= stepCount()) setStep(0); // from the start again
        timer_.start();
    }
    showState();
}

void WaveStepper::showState() {
    const bool on = family_ != nullptr && !steps_.empty();
    for (QWidget* w : std::initializer_list<QWidget*>{first_, back_, play_, forward_, last_, slider_})
        w->setEnabled(on);
    play_->setText(timer_.isActive() ? tr("Pause") : tr("▶ Play"));
    play_->setAccessibleName(timer_.isActive() ? tr("Pause the waves") : tr("Play the waves"));
    {
        const QSignalBlocker block(slider_);
        slider_->setRange(0, std::max(0, stepCount() - 1));
        slider_->setValue(std::max(step_, 0));
    }
    if (!on) {
        status_->setText(tr("Select a family to step through its waves"));
        return;
    }
    if (step_ < 0) {
        const bool sampled = stepCount() < static_cast<int>(orderIndex_.size());
        status_->setText(sampled
                             ? tr("%1 of %2 clades, in wave order").arg(stepCount()).arg(orderIndex_.size())
                             : tr("%1 clades, in wave order").arg(stepCount()));
        return;
    }
    const int clade = steps_[step_];
    const int genes = family_->clades.cladeSize[clade];
    status_->setText(tr("Wave %1 of %2 · clade %3 · %4")
                         .arg(cladeWave_[clade] + 1)
                         .arg(waveCount_)
                         .arg(clade)
                         .arg(genes == 1 ? tr("1 gene") : tr("%1 genes").arg(genes)));
}

} // namespace gpurec::ui
