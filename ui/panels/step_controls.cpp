#include "panels/step_controls.hpp"

#include "window/eliding_label.hpp"

#include <QHBoxLayout>
#include <QShortcut>
#include <QSlider>
#include <QToolButton>
#include <algorithm>
#include <functional>

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

StepControls::StepControls(const StepTexts& texts, QWidget* parent) : QWidget(parent), texts_(texts) {
    first_ = stepButton(tr("|◀"), texts.first, texts.firstTip);
    back_ = stepButton(tr("◀"), texts.back, texts.backTip);
    back_->setObjectName(texts.prefix + "StepBack");
    play_ = stepButton(tr("▶ Play"), texts.play, texts.playTip);
    play_->setObjectName(texts.prefix + "Play");
    play_->setToolButtonStyle(Qt::ToolButtonTextOnly);
    forward_ = stepButton(tr("▶"), texts.forward, texts.forwardTip);
    forward_->setObjectName(texts.prefix + "StepForward");
    last_ = stepButton(tr("▶|"), texts.last, texts.lastTip);
    slider_ = new QSlider(Qt::Horizontal);
    slider_->setObjectName(texts.prefix + "StepSlider");
    slider_->setAccessibleName(texts.slider);
    slider_->setToolTip(texts.sliderTip);
    slider_->setMinimumWidth(slider_->fontMetrics().horizontalAdvance("M") * 5);
    status_ = new ElidingLabel; // the panels must fit a small screen at scale 1.5
    status_->setObjectName(texts.prefix + "StepStatus");
    status_->setAccessibleDescription(texts.status); // its name is its text, as a screen reader reads it

    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    for (QToolButton* b : {first_, back_, play_, forward_, last_})
        row->addWidget(b);
    row->addWidget(slider_, 1);
    row->addWidget(status_, 2);

    timer_.setInterval(kPlayIntervalMs);
    connect(&timer_, &QTimer::timeout, this, [this] {
        if (step_ + 1 >= count_) {
            timer_.stop();
            showState();
            return;
        }
        setStep(step_ + 1);
    });
    connect(first_, &QToolButton::clicked, this, [this] { setStep(0); });
    connect(back_, &QToolButton::clicked, this, [this] { stepBy(-1); });
    connect(forward_, &QToolButton::clicked, this, [this] { stepBy(1); });
    connect(last_, &QToolButton::clicked, this, [this] { setStep(count_ - 1); });
    connect(play_, &QToolButton::clicked, this, &StepControls::togglePlay);
    connect(slider_, &QSlider::valueChanged, this, [this](int value) {
        if (value != step_) setStep(value);
    });
    showState();
}

void StepControls::installShortcuts(QWidget* scope) {
    const std::pair<QKeySequence, std::function<void()>> keys[] = {
        {Qt::Key_Space, [this] { togglePlay(); }},
        {Qt::Key_Right, [this] { stepBy(1); }},
        {Qt::Key_Left, [this] { stepBy(-1); }},
        {Qt::Key_Home, [this] { setStep(0); }},
        {Qt::Key_End, [this] { setStep(count_ - 1); }}};
    for (const auto& [key, action] : keys) {
        auto* shortcut = new QShortcut(key, scope);
        shortcut->setContext(Qt::WidgetWithChildrenShortcut);
        connect(shortcut, &QShortcut::activated, this, action);
        shortcuts_.push_back(shortcut);
    }
    showState();
}

std::vector<std::pair<QString, QString>> StepControls::keyHelp(const QString& what, const QString& unit) {
    return {{tr("Play or pause %1").arg(what), tr("Space")},
            {tr("Step forward or back"), tr("Right, Left")},
            {tr("First or last %1").arg(unit), tr("Home, End")}};
}

void StepControls::setStepCount(int count) {
    timer_.stop();
    count_ = std::max(0, count);
    const bool was = step_ >= 0;
    step_ = -1;
    showState();
    if (was) emit stepChanged(-1);
}

void StepControls::setStatus(const QString& text) {
    status_->setText(text);
}

void StepControls::setStep(int step) {
    if (count_ == 0) return;
    step = std::clamp(step, -1, count_ - 1);
    if (step == step_) return;
    step_ = step;
    if (step_ < 0) timer_.stop();
    showState();
    emit stepChanged(step_);
}

void StepControls::stepBy(int delta) {
    timer_.stop();
    const int target = step_ < 0 ? (delta > 0 ? 0 : -1) : std::max(0, step_ + delta);
    if (target >= 0) setStep(target);
    showState(); // the Play button, when only the timer stopped
}

void StepControls::togglePlay() {
    if (count_ == 0) return;
    if (timer_.isActive()) {
        timer_.stop();
    } else {
        if (step_ + 1 >= count_) setStep(0); // from the start again
        timer_.start();
    }
    showState();
}

void StepControls::showState() {
    const bool on = count_ > 0;
    for (QWidget* w : std::initializer_list<QWidget*>{first_, back_, play_, forward_, last_, slider_})
        w->setEnabled(on);
    for (QShortcut* s : shortcuts_) // without steps the keys keep their usual meaning (scrolling, …)
        s->setEnabled(on);
    play_->setText(timer_.isActive() ? tr("Pause") : tr("▶ Play"));
    play_->setAccessibleName(timer_.isActive() ? texts_.pause : texts_.play);
    const QSignalBlocker block(slider_);
    slider_->setRange(0, std::max(0, count_ - 1));
    slider_->setValue(std::max(step_, 0));
}

} // namespace gpurec::ui
