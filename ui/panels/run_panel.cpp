#include "panels/run_panel.hpp"

#include "engine/backend_factory.hpp"
#include "model/gamma_categories.hpp"
#include "panels/eliding_combo_box.hpp"
#include "panels/number_text.hpp"
#include "session/undo_commands.hpp"
#include "views/species_quantities.hpp"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QList>
#include <QPair>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
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

// The mode menu's entries: AleRax's parametrisations, by their --model-parametrization names.
const char* const kGlobal = "GLOBAL";
const char* const kPerSpecies = "PER-SPECIES";
const char* const kPerFamily = "PER-FAMILY";
const char* const kOriginPerSpecies = "ORIGINATION-PER-SPECIES";

QString parametrizationOf(RateMode mode, bool originWeights) {
    switch (mode) {
    case RateMode::Specieswise:
        return kPerSpecies;
    case RateMode::Genewise:
        return kPerFamily;
    case RateMode::Global:
    case RateMode::Classes: // the workbench fits no class parametrisation
        break;
    }
    return originWeights ? kOriginPerSpecies : kGlobal;
}

// An entry of the Tables shown menu: "category 2 of 3", with its speciation weight once known.
QString categoryEntry(int category, int count, const QString& scaler = {}) {
    const QString entry = QObject::tr("category %1 of %2").arg(category + 1).arg(count);
    return scaler.isEmpty() ? entry : QObject::tr("%1 (s %2)").arg(entry, scaler);
}
} // namespace

QString parametrizationName(const RateParameters& theta) {
    const QString mode = QString::fromStdString(toString(theta.mode()));
    return theta.optimizesOrigination() ? QObject::tr("%1 with origination weights").arg(mode) : mode;
}

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    // Rates.
    mode_ = new ElidingComboBox;
    mode_->setObjectName("rateMode");
    mode_->addItem(tr("global (one D, L, T)"), kGlobal);
    mode_->addItem(tr("per species"), kPerSpecies);
    mode_->addItem(tr("per family"), kPerFamily);
    mode_->addItem(tr("global, origination weights per species"), kOriginPerSpecies);
    mode_->setToolTip(
        tr("global: one set of rates for the whole dataset; per species: one set per species-tree "
           "branch (with --origination OPTIMIZE also one origination weight per node); per family: one "
           "set per gene family; global, origination weights per species: one set of rates and one "
           "origination weight per node (OPTIMIZE only)"));
    modeNote_ = new QLabel;
    modeNote_->setObjectName("rateModeNote");
    modeNote_->setWordWrap(true);
    modeNote_->hide();
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
    ratesForm->addRow(modeNote_);
    auto* start = new QHBoxLayout;
    for (auto [label, edit] : {std::pair{"D", rateD_}, {"L", rateL_}, {"T", rateT_}}) {
        start->addWidget(new QLabel(label));
        start->addWidget(edit);
        edit->setMaximumWidth(70);
    }
    ratesForm->addRow(tr("Start"), start);
    ratesForm->addRow(reset_);
    ratesForm->addRow(current_);

    // Speciation categories (shown when the data has several).
    startAlpha_ = numberEdit("1", "startAlpha",
                             tr("Starting shape α of the categories' Gamma(α, α) distribution, in [0.0201, "
                                "100] (AleRax's --gamma-alpha, default 1): Reset rates and a change of mode "
                                "start from it; Optimise fits it with the rates"));
    startAlpha_->setMaximumWidth(70);
    categoryRates_ = new QLabel;
    categoryRates_->setObjectName("categoryRates");
    categoryRates_->setWordWrap(true);
    categoryRates_->setToolTip(tr("Category c is the model with speciation weight s_c, the mean rate of the "
                                  "c-th of K equal-probability bins of Gamma(α, α); a family's likelihood "
                                  "is the mean over the categories"));
    shownCategory_ = new ElidingComboBox;
    shownCategory_->setObjectName("shownCategory");
    shownCategory_->setToolTip(
        tr("Each category has its own E and Π: the Cell equation, the clade heat map and the species "
           "tree's E and Π show this category's (the likelihood, the optimiser and the sampled "
           "reconciliations use them all)"));
    categoriesBox_ = new QGroupBox(tr("Speciation categories"));
    categoriesBox_->setObjectName("speciationCategoriesBox");
    auto* categoriesForm = narrowableForm(categoriesBox_);
    categoriesForm->addRow(tr("Start α"), startAlpha_);
    categoriesForm->addRow(categoryRates_);
    categoriesForm->addRow(tr("Tables shown"), shownCategory_);
    categoriesBox_->hide();

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
    for (QComboBox* combo : {mode_, optimizer_, device_, shownCategory_})
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
    layout->addWidget(categoriesBox_);
    layout->addWidget(optBox);
    layout->addLayout(buttons);
    layout->addWidget(error_);
    layout->addWidget(deviceBox);
    layout->addStretch(1);

    // Names for screen readers and UI automation (scripts/gui_smoke.py finds widgets by them).
    for (auto [widget, name] :
         std::initializer_list<std::pair<QWidget*, QString>>{{mode_, tr("Rate mode")},
                                                             {modeNote_, tr("Unavailable rate modes")},
                                                             {rateD_, tr("Starting D")},
                                                             {rateL_, tr("Starting L")},
                                                             {rateT_, tr("Starting T")},
                                                             {startAlpha_, tr("Starting α")},
                                                             {categoryRates_, tr("Speciation weights")},
                                                             {shownCategory_, tr("Category shown")},
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
    connect(shownCategory_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (index >= 0) emit shownCategoryChanged(index);
    });
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
    setModel(Origination::Uniform, 1);
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

std::string RunPanel::parametrization() const {
    return mode_->currentData().toString().toStdString();
}

void RunPanel::showParametrization(const RateParameters& theta) {
    QSignalBlocker block(mode_);
    mode_->setCurrentIndex(mode_->findData(parametrizationOf(theta.mode(), theta.optimizesOrigination())));
}

QString RunPanel::setModel(Origination origination, int speciationCategories) {
    categories_ = speciationCategories;
    const bool optimize = origination == Origination::Optimize;
    auto* items = static_cast<QStandardItemModel*>(mode_->model());
    QStringList reasons;
    // One line per reason, naming every mode it greys (two modes share the OPTIMIZE reason).
    QList<QPair<QString, QStringList>> greyed;
    for (int i = 0; i < mode_->count(); ++i) {
        const QString name = mode_->itemData(i).toString();
        QString why;
        if (optimize && (name == kGlobal || name == kPerFamily))
            why = tr("not with OPTIMIZE origination: one rate set for all or one per family cannot hold "
                     "the fitted origination weights (AleRax refuses it)");
        else if (!optimize && name == kOriginPerSpecies)
            why = tr("needs OPTIMIZE origination (File ▸ Open data, Families originate)");
        else if (speciationCategories > 1 && name == kPerFamily)
            why = tr("not with speciation categories (AleRax refuses it)");
        items->item(i)->setEnabled(why.isEmpty());
        items->item(i)->setToolTip(why);
        reasons << why;
        if (why.isEmpty()) continue;
        auto same = std::find_if(greyed.begin(), greyed.end(), [&](const auto& g) { return g.first == why; });
        if (same == greyed.end())
            greyed.append({why, {mode_->itemText(i)}});
        else
            same->second << mode_->itemText(i);
    }
    QStringList lines;
    for (const auto& [why, modes] : greyed)
        lines << tr("%1 — %2").arg(modes.join(tr(" and ")), why);
    modeNote_->setText(tr("Greyed: %1").arg(lines.join("; ")));
    modeNote_->setVisible(!greyed.isEmpty());
    categoriesBox_->setVisible(speciationCategories > 1);
    {
        QSignalBlocker block(shownCategory_);
        shownCategory_->clear();
        for (int c = 0; c < speciationCategories && speciationCategories > 1; ++c)
            shownCategory_->addItem(categoryEntry(c, speciationCategories));
    }
    const int before = mode_->currentIndex();
    if (reasons[before].isEmpty()) return {};
    // The nearest available: global rates, with the weights under OPTIMIZE.
    QSignalBlocker block(mode_);
    mode_->setCurrentIndex(mode_->findData(optimize ? kOriginPerSpecies : kGlobal));
    return tr("Rate mode %1 instead of %2, which is %3")
        .arg(mode_->currentText(), mode_->itemText(before), reasons[before]);
}

Rates RunPanel::startingRates() const {
    Rates r{parseNumber(rateD_, tr("the starting D")), parseNumber(rateL_, tr("the starting L")),
            parseNumber(rateT_, tr("the starting T"))};
    if (r.d <= 0 || r.l <= 0 || r.t <= 0) throw std::invalid_argument("starting rates must be positive");
    return r;
}

double RunPanel::startingAlpha() const {
    const double alpha = parseNumber(startAlpha_, tr("the starting α"));
    if (!(alpha >= kMinGammaAlpha && alpha <= kMaxGammaAlpha))
        throw std::invalid_argument("the starting α must be within [0.0201, 100]");
    return alpha;
}

int RunPanel::shownCategory() const {
    return std::max(0, shownCategory_->currentIndex());
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

void RunPanel::restore(RateMode mode, bool originWeights, const Rates& starting, double startingAlpha,
                       const OptimizerSettings& settings, const QString& device, double memoryGiB) {
    const QSignalBlocker blocks[] = {QSignalBlocker(mode_), QSignalBlocker(device_),
                                     QSignalBlocker(memoryGiB_), QSignalBlocker(optimizer_)};
    // Global rates under OPTIMIZE are ORIGINATION-PER-SPECIES (setModel greys what the data refuses).
    mode_->setCurrentIndex(mode_->findData(parametrizationOf(mode, originWeights)));
    rateD_->setText(shortestNumber(starting.d));
    rateL_->setText(shortestNumber(starting.l));
    rateT_->setText(shortestNumber(starting.t));
    startAlpha_->setText(shortestNumber(startingAlpha));
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
                                                           {startAlpha_, !running},
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
    const std::vector<double> weights = normalisedOriginWeights(theta);
    if (!weights.empty()) {
        const auto [low, high] = std::minmax_element(weights.begin(), weights.end());
        parts << tr("origination weights %1–%2").arg(fmt(*low), fmt(*high));
    }
    if (theta.shapeEntry() >= 0 && categories_ > 1) {
        const double alpha = theta.speciationShape();
        parts << QString("α %1").arg(fmt(alpha));
        QStringList scalers;
        const std::vector<double> rates = gammaCategoryRates(alpha, categories_);
        for (int c = 0; c < categories_; ++c) {
            scalers << fmt(rates[c]);
            shownCategory_->setItemText(c, categoryEntry(c, categories_, fmt(rates[c])));
        }
        categoryRates_->setText(
            tr("Speciation weights s_c at α %1: %2").arg(fmt(alpha), scalers.join(" · ")));
    }
    current_->setText(theta.rowCount() == 1
                          ? tr("Current: %1").arg(parts.join(" · "))
                          : tr("Current (%1 rows): %2").arg(theta.rowCount()).arg(parts.join(" · ")));
}

void RunPanel::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

} // namespace gpurec::ui
