#include "panels/run_panel.hpp"

#include "engine/backend_factory.hpp"
#include "panels/eliding_combo_box.hpp"
#include "panels/number_text.hpp"
#include "session/undo_commands.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStyle>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gpurec::ui {

namespace {
QLineEdit* numberEdit(const QString& value, const QString& name, const QString& tip) {
    auto* edit = new QLineEdit(value);
    edit->setObjectName(name);
    edit->setToolTip(tip);
    return edit;
}

double parseNumber(const QLineEdit* edit, const QString& what) {
    bool ok = false;
    double v = edit->text().trimmed().toDouble(&ok);
    if (!ok || !std::isfinite(v))
        throw std::invalid_argument(
            QString("%1 is not a number: '%2'").arg(what, edit->text()).toStdString());
    return v;
}

QString fmt(double v) {
    return QString::number(v, 'g', 4);
}

// On a narrow dock (a small screen, or QT_SCALE_FACTOR 1.5) labels go above their fields and long
// combo items are elided (the full text stays in the popup), so the panel never scrolls sideways.
QFormLayout* narrowableForm(QWidget* box) {
    auto* form = new QFormLayout(box);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    return form;
}

void letShrink(QComboBox* combo) {
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
}
} // namespace

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    // Rates.
    mode_ = new ElidingComboBox;
    mode_->setObjectName("rateMode");
    mode_->addItem(tr("global (one D, L, T)"), "global");
    mode_->addItem(tr("per species"), "specieswise");
    mode_->addItem(tr("per family"), "genewise");
    mode_->setToolTip(
        tr("global: one set of rates for the whole dataset; per species: one set per species-tree "
           "branch; per family: one set per gene family"));
    rateD_ = numberEdit("0.1", "startD",
                        tr("Starting duplication rate (events per gene per branch, relative to speciation)"));
    rateL_ = numberEdit("0.1", "startL", tr("Starting loss rate"));
    rateT_ = numberEdit("0.1", "startT", tr("Starting transfer rate"));
    reset_ = new QPushButton(tr("Reset rates"));
    reset_->setObjectName("resetRates");
    reset_->setToolTip(tr("Set every rate back to the starting values, in the chosen mode"));
    current_ = new QLabel;
    current_->setObjectName("currentRates");
    current_->setWordWrap(true);
    auto* ratesBox = new QGroupBox(tr("Rates"));
    auto* ratesForm = narrowableForm(ratesBox);
    ratesForm->addRow(tr("Mode"), mode_);
    auto* start = new QHBoxLayout;
    for (auto [label, edit] : {std::pair{"D", rateD_}, {"L", rateL_}, {"T", rateT_}}) {
        start->addWidget(new QLabel(label));
        start->addWidget(edit);
        edit->setMaximumWidth(70);
    }
    ratesForm->addRow(tr("Start"), start);
    ratesForm->addRow(reset_);
    ratesForm->addRow(current_);

    // Optimiser.
    optimizer_ = new ElidingComboBox;
    optimizer_->setObjectName("optimizerKind");
    optimizer_->addItem(tr("L-BFGS-B"), "lbfgsb");
    optimizer_->addItem(tr("Adam"), "adam");
    optimizer_->setToolTip(
        tr("L-BFGS-B: quasi-Newton with bounds (AleRax's choice); Adam: first-order steps"));
    minRate_ = numberEdit("1e-10", "minRate", tr("Lower bound on every rate"));
    maxRate_ = numberEdit("2", "maxRate", tr("Upper bound on every rate"));
    gradTol_ = numberEdit("1e-5", "gradTol",
                          tr("Stop when the largest projected gradient component falls below this (bits)"));
    maxIterations_ = new QSpinBox;
    maxIterations_->setObjectName("maxIterations");
    maxIterations_->setRange(1, 1000000);
    maxIterations_->setValue(100);
    maxIterations_->setToolTip(tr("Stop after this many iterations"));
    auto* optBox = new QGroupBox(tr("Optimiser"));
    auto* optForm = narrowableForm(optBox);
    optForm->addRow(tr("Method"), optimizer_);
    auto* bounds = new QHBoxLayout;
    bounds->addWidget(minRate_);
    bounds->addWidget(new QLabel("–"));
    bounds->addWidget(maxRate_);
    optForm->addRow(tr("Rate bounds"), bounds);
    optForm->addRow(tr("Gradient tolerance"), gradTol_);
    optForm->addRow(tr("Max iterations"), maxIterations_);

    // Controls.
    evaluate_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaSeekForward), tr("Evaluate"));
    evaluate_->setObjectName("evaluateButton");
    evaluate_->setToolTip(tr("Compute the likelihood of every family once at the current rates"));
    optimise_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay), tr("Optimise"));
    optimise_->setObjectName("optimiseButton");
    optimise_->setToolTip(tr("Fit the rates by maximum likelihood, starting from the current rates"));
    pause_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaPause), tr("Pause"));
    pause_->setObjectName("pauseButton");
    pause_->setToolTip(tr("Pause after the current iteration (Resume continues)"));
    stop_ = new QPushButton(style()->standardIcon(QStyle::SP_MediaStop), tr("Stop"));
    stop_->setObjectName("stopButton");
    stop_->setToolTip(tr("Stop after the current iteration, keeping the best rates found"));
    auto* buttons = new QGridLayout;
    buttons->addWidget(evaluate_, 0, 0);
    buttons->addWidget(optimise_, 0, 1);
    buttons->addWidget(pause_, 1, 0);
    buttons->addWidget(stop_, 1, 1);

    // Device.
    device_ = new ElidingComboBox;
    device_->setObjectName("device");
    device_->addItem(tr("auto (a GPU when available)"), "auto");
    for (const std::string& d : availableDevices()) {
        QString text = QString::fromStdString(d);
        device_->addItem(text, text.section(' ', 0, 0));
    }
    device_->setToolTip(tr("Where the likelihood is computed"));
    memoryGiB_ = new QDoubleSpinBox;
    memoryGiB_->setObjectName("memoryLimit");
    memoryGiB_->setRange(0, 4096);
    memoryGiB_->setDecimals(1);
    memoryGiB_->setSuffix(tr(" GiB"));
    memoryGiB_->setSpecialValueText(tr("automatic"));
    memoryGiB_->setToolTip(
        tr("Device memory the engine may use (GPU batches are planned to fit); 0: automatic"));
    clearWarm_ = new QPushButton(tr("Clear warm starts"));
    clearWarm_->setObjectName("clearWarmStarts");
    clearWarm_->setToolTip(
        tr("Forget the cached E and Π the solvers start from; results do not depend on them "
           "beyond the tolerances, only the time to converge"));
    auto* deviceBox = new QGroupBox(tr("Device"));
    auto* deviceForm = narrowableForm(deviceBox);
    for (QComboBox* combo : {mode_, optimizer_, device_})
        letShrink(combo);
    deviceForm->addRow(tr("Device"), device_);
    deviceForm->addRow(tr("Memory limit"), memoryGiB_);
    deviceForm->addRow(clearWarm_);

    error_ = new QLabel;
    error_->setObjectName("runError");
    error_->setStyleSheet("color: #c0392b;");
    error_->setWordWrap(true);
    error_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(ratesBox);
    layout->addWidget(optBox);
    layout->addLayout(buttons);
    layout->addWidget(error_);
    layout->addWidget(deviceBox);
    layout->addStretch(1);

    // Names for screen readers and UI automation (scripts/gui_smoke.py finds widgets by them).
    for (auto [widget, name] :
         std::initializer_list<std::pair<QWidget*, QString>>{{mode_, tr("Rate mode")},
                                                             {rateD_, tr("Starting D")},
                                                             {rateL_, tr("Starting L")},
                                                             {rateT_, tr("Starting T")},
                                                             {optimizer_, tr("Optimiser")},
                                                             {minRate_, tr("Lower rate bound")},
                                                             {maxRate_, tr("Upper rate bound")},
                                                             {gradTol_, tr("Gradient tolerance")},
                                                             {maxIterations_, tr("Max iterations")},
                                                             {device_, tr("Device")},
                                                             {memoryGiB_, tr("Memory limit")},
                                                             {reset_, tr("Reset rates")}})
        widget->setAccessibleName(name);
    connect(evaluate_, &QPushButton::clicked, this, &RunPanel::evaluateRequested);
    connect(optimise_, &QPushButton::clicked, this, &RunPanel::optimiseRequested);
    connect(pause_, &QPushButton::clicked, this, [this] {
        if (pauseIsResume_)
            emit resumeRequested();
        else
            emit pauseRequested();
    });
    connect(stop_, &QPushButton::clicked, this, &RunPanel::stopRequested);
    connect(reset_, &QPushButton::clicked, this, &RunPanel::resetRatesRequested);
    connect(mode_, &QComboBox::currentIndexChanged, this, &RunPanel::resetRatesRequested);
    connect(device_, &QComboBox::currentIndexChanged, this, &RunPanel::emitDeviceIfChanged);
    connect(memoryGiB_, &QDoubleSpinBox::editingFinished, this, &RunPanel::emitDeviceIfChanged);
    connect(clearWarm_, &QPushButton::clicked, this, &RunPanel::clearWarmStartsRequested);
    connect(optimizer_, &QComboBox::currentIndexChanged, this, [this](int index) {
        const int before = std::exchange(appliedOptimizer_, index);
        if (!undo_ || before == index) return;
        StateChange<int>::Options how;
        how.needsIdleEngine = true; // locked during runs, like the combo
        how.alreadyApplied = true;
        undo_->push(new StateChange<int>(
            tr("Optimiser %1").arg(optimizer_->itemText(index)), before, index,
            [this](int i) {
                QSignalBlocker block(optimizer_);
                optimizer_->setCurrentIndex(i);
                appliedOptimizer_ = i;
            },
            how));
    });
    appliedDevice_ = device();
    appliedMemoryGiB_ = memoryLimitGiB();
    setState(false, false, false);
}

void RunPanel::emitDeviceIfChanged() {
    if (device() == appliedDevice_ && memoryLimitGiB() == appliedMemoryGiB_) return;
    appliedDevice_ = device();
    appliedMemoryGiB_ = memoryLimitGiB();
    emit deviceChanged();
}

OptimizerSettings RunPanel::optimizerSettings() const {
    OptimizerSettings s;
    s.kind = parseOptimizerKind(optimizer_->currentData().toString().toStdString());
    s.max_iter = maxIterations_->value();
    s.min_rate = parseNumber(minRate_, tr("the lower rate bound"));
    s.max_rate = parseNumber(maxRate_, tr("the upper rate bound"));
    s.grad_tol = parseNumber(gradTol_, tr("the gradient tolerance"));
    s.validate();
    return s;
}

RateMode RunPanel::rateMode() const {
    return parseRateMode(mode_->currentData().toString().toStdString());
}

void RunPanel::setRateMode(RateMode mode) {
    QSignalBlocker block(mode_);
    mode_->setCurrentIndex(mode_->findData(QString::fromStdString(toString(mode))));
}

Rates RunPanel::startingRates() const {
    Rates r{parseNumber(rateD_, tr("the starting D")), parseNumber(rateL_, tr("the starting L")),
            parseNumber(rateT_, tr("the starting T"))};
    if (r.d <= 0 || r.l <= 0 || r.t <= 0) throw std::invalid_argument("starting rates must be positive");
    return r;
}

QString RunPanel::device() const {
    return device_->currentData().toString();
}

void RunPanel::setDevice(const QString& device) {
    int index = device_->findData(device);
    if (index < 0) {
        device_->addItem(device, device);
        index = device_->count() - 1;
    }
    device_->setCurrentIndex(index);
}

double RunPanel::memoryLimitGiB() const {
    return memoryGiB_->value();
}

void RunPanel::restore(RateMode mode, const Rates& starting, const OptimizerSettings& settings,
                       const QString& device, double memoryGiB) {
    const QSignalBlocker blocks[] = {QSignalBlocker(mode_), QSignalBlocker(device_),
                                     QSignalBlocker(memoryGiB_), QSignalBlocker(optimizer_)};
    setRateMode(mode);
    rateD_->setText(shortestNumber(starting.d));
    rateL_->setText(shortestNumber(starting.l));
    rateT_->setText(shortestNumber(starting.t));
    optimizer_->setCurrentIndex(optimizer_->findData(QString::fromStdString(toString(settings.kind))));
    appliedOptimizer_ = optimizer_->currentIndex();
    maxIterations_->setValue(settings.max_iter);
    minRate_->setText(shortestNumber(settings.min_rate));
    maxRate_->setText(shortestNumber(settings.max_rate));
    gradTol_->setText(shortestNumber(settings.grad_tol));
    setDevice(device);
    memoryGiB_->setValue(memoryGiB);
    appliedDevice_ = this->device();
    appliedMemoryGiB_ = memoryLimitGiB();
}

double RunPanel::memoryLimitBytes() const {
    return memoryGiB_->value() * 1024.0 * 1024.0 * 1024.0;
}

void RunPanel::setState(bool haveData, bool running, bool pauseRequested) {
    running_ = running;
    pauseIsResume_ = running && pauseRequested;
    pause_->setText(pauseIsResume_ ? tr("Resume") : tr("Pause"));
    pause_->setIcon(style()->standardIcon(pauseIsResume_ ? QStyle::SP_MediaPlay : QStyle::SP_MediaPause));
    const std::vector<std::pair<QWidget*, bool>> states = {{evaluate_, haveData && !running},
                                                           {optimise_, haveData && !running},
                                                           {pause_, running},
                                                           {stop_, running},
                                                           {mode_, !running},
                                                           {rateD_, !running && present_.duplication},
                                                           {rateL_, !running},
                                                           {rateT_, !running && present_.transfer},
                                                           {reset_, !running},
                                                           {optimizer_, !running},
                                                           {minRate_, !running},
                                                           {maxRate_, !running},
                                                           {gradTol_, !running},
                                                           {maxIterations_, !running},
                                                           {device_, !running},
                                                           {memoryGiB_, !running}};
    // Disabling the focused widget makes Qt pass focus down the tab chain, through fields that are
    // about to be disabled too (each then "finishes editing"). Move it ourselves first: to Pause
    // when a run starts, to Optimise when it ends.
    QWidget* next = running ? pause_ : (haveData ? optimise_ : nullptr);
    for (auto [widget, enabled] : states)
        if (next && !enabled && widget->hasFocus()) {
            next->setEnabled(true);
            next->setFocus(Qt::OtherFocusReason);
        }
    for (auto [widget, enabled] : states)
        if (enabled) widget->setEnabled(true);
    for (auto [widget, enabled] : states)
        if (!enabled) widget->setEnabled(false);
}

void RunPanel::setPresentRates(PresentRates present) {
    present_ = present;
    rateD_->setEnabled(present.duplication && !running_);
    rateT_->setEnabled(present.transfer && !running_);
    rateD_->setToolTip(present.duplication ? QString() : tr("No duplications in this model (--no-dup)"));
    rateT_->setToolTip(present.transfer ? QString() : tr("No transfers in this model (UndatedDL)"));
}

void RunPanel::showCurrentRates(const RateParameters& theta) {
    if (theta.theta().empty()) {
        current_->clear();
        return;
    }
    Rates lo{INFINITY, INFINITY, INFINITY}, hi{0, 0, 0};
    for (int row = 0; row < theta.rowCount(); ++row) {
        Rates r = theta.rates(row);
        lo = {std::min(lo.d, r.d), std::min(lo.l, r.l), std::min(lo.t, r.t)};
        hi = {std::max(hi.d, r.d), std::max(hi.l, r.l), std::max(hi.t, r.t)};
    }
    // The rates the model has only (UndatedDL has no T, --no-dup no D).
    QStringList parts;
    auto add = [&](bool present, const char* name, double low, double high) {
        if (!present) return;
        parts << (theta.rowCount() == 1 ? QString("%1 %2").arg(name, fmt(low))
                                        : QString("%1 %2–%3").arg(name, fmt(low), fmt(high)));
    };
    add(present_.duplication, "D", lo.d, hi.d);
    add(true, "L", lo.l, hi.l);
    add(present_.transfer, "T", lo.t, hi.t);
    current_->setText(theta.rowCount() == 1
                          ? tr("Current: %1").arg(parts.join(" · "))
                          : tr("Current (%1 rows): %2").arg(theta.rowCount()).arg(parts.join(" · ")));
}

void RunPanel::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

} // namespace gpurec::ui
