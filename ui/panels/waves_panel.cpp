#include "panels/waves_panel.hpp"

#include "worker/table_requests.hpp"

#include <QComboBox>
#include <QLabel>
#include <QSplitter>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <utility>

namespace gpurec::ui {

namespace {
// The heat map's one call into the engine, on a worker thread.
WavesPanel::HeatMapResult solveHeatMap(std::shared_ptr<const Dataset> data, const FamilyTablesSource& tables,
                                       const RateParameters& theta, const SolverOptions& options, int family,
                                       int category) {
    WavesPanel::HeatMapResult result{data, family, category, std::nullopt, {}};
    try {
        result.stats =
            computeCladeStatistics(categoryTables(tables, category), *data, theta, options, family);
    } catch (const std::exception& e) {
        result.error = QString::fromStdString(e.what());
    }
    return result;
}
} // namespace

WavesPanel::WavesPanel(QWidget* parent) : QWidget(parent) {
    plot_ = new WavePlot;
    plot_->setMinimumHeight(160);
    dag_ = new CladeDagView;
    dag_->setObjectName("cladeDag");
    caption_ = new QLabel(tr("Select a family in the Families table to see its clades by wave."));
    caption_->setWordWrap(true);
    caption_->setToolTip(tr("Columns are waves: single genes on the left, the whole family on the right; a "
                            "clade's wave is one more than its children's latest. Circle size grows with the "
                            "genes in the clade."));
    colouring_ = new QComboBox;
    colouring_->setObjectName("cladeColouring");
    colouring_->setAccessibleName(tr("Colour clades by"));
    colouring_->addItem(tr("wave phase"));
    colouring_->addItem(tr("self-loop iterations"));
    colouring_->addItem(tr("posterior probability"));
    colouring_->addItem(tr("log10 Π (clade probability)"));
    colouring_->setToolTip(
        tr("Colour the clades by a per-clade quantity of the selected family, from the engine's solve "
           "at the current rates:\nself-loop iterations: fixed-point iterations of the clade's Π̄ loop;\n"
           "posterior probability: the probability that the reconciled gene tree contains the clade;\n"
           "log10 Π: log10 of the clade's probability summed over species nodes"));
    heatNote_ = new QLabel;
    heatNote_->setObjectName("heatMapNote");
    heatNote_->setWordWrap(true);
    heatNote_->hide();
    auto* fit = new QToolButton;
    fit->setText(tr("Fit"));
    fit->setAutoRaise(true);
    fit->setToolTip(tr("Zoom to fit the family's clades"));
    auto* dagBox = new QWidget;
    auto* dagLayout = new QVBoxLayout(dagBox);
    dagLayout->setContentsMargins(0, 0, 0, 0);
    auto* captionRow = new QHBoxLayout;
    captionRow->addWidget(caption_, 1);
    captionRow->addWidget(colouring_);
    captionRow->addWidget(fit);
    dagLayout->addLayout(captionRow);
    dagLayout->addWidget(heatNote_);
    stepper_ = new WaveStepper;
    stepper_->setObjectName("waveStepper");
    stepper_->installShortcuts(this);
    dagLayout->addWidget(stepper_);
    dagLayout->addWidget(dag_, 1);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(plot_);
    split->addWidget(dagBox);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
    connect(fit, &QToolButton::clicked, dag_, &CladeDagView::fitAll);
    connect(dag_, &CladeDagView::cladeSelected, this, [this](int clade) {
        if (clade >= 0 && family_ >= 0) emit cladeSelected(family_, clade);
    });
    // Each step selects its clade, so the species tree shows the Π row just computed.
    connect(stepper_, &WaveStepper::stepChanged, this, [this](int step, int clade) {
        if (step < 0) {
            dag_->setStepState({}, -1);
            return;
        }
        dag_->setStepState(stepper_->computedAt(step), stepper_->waveAt(step));
        dag_->selectClade(clade);
    });
    connect(colouring_, &QComboBox::currentIndexChanged, this, [this] {
        // The statistics hold every quantity: the shown family's colour by another one at once.
        if (stats_ && colouring() != CladeColouring::WavePhase)
            showHeatMap();
        else
            updateHeatMap();
    });
    connect(&heatWatcher_, &QFutureWatcher<HeatMapResult>::finished, this,
            [this] { finishHeatMap(heatWatcher_.result()); });
    // Rates change every iteration of a run: one solve of the family per pause in the changes.
    heatTimer_.setSingleShot(true);
    heatTimer_.setInterval(300);
    connect(&heatTimer_, &QTimer::timeout, this, &WavesPanel::updateHeatMap);
}

void WavesPanel::setColouring(CladeColouring colouring) {
    colouring_->setCurrentIndex(static_cast<int>(colouring)); // updates through the signal
}

void WavesPanel::setParameters(const RateParameters& theta) {
    theta_ = theta;
    if (colouring_->currentIndex() != 0) heatTimer_.start();
}

void WavesPanel::setSolverOptions(const SolverOptions& options) {
    options_ = options;
    if (colouring_->currentIndex() != 0) heatTimer_.start();
}

void WavesPanel::setCategory(int category) {
    category_ = category;
    stats_.reset(); // the other category's
    updateHeatMap();
}

std::vector<double> WavesPanel::valuesOf(const CladeStatistics& stats, CladeColouring colouring) {
    switch (colouring) {
    case CladeColouring::SelfLoopIterations:
        return {stats.selfLoopIterations.begin(), stats.selfLoopIterations.end()};
    case CladeColouring::Posterior:
        return stats.posterior;
    case CladeColouring::Log10Probability:
        return stats.log10Probability;
    case CladeColouring::WavePhase:
        break;
    }
    return {};
}

WavesPanel::CladeColouring WavesPanel::colouring() const {
    return static_cast<CladeColouring>(colouring_->currentIndex());
}

void WavesPanel::updateHeatMap() {
    heatTimer_.stop();
    if (colouring() == CladeColouring::WavePhase || !data_ || family_ < 0 || theta_.theta().empty()) {
        stats_.reset(); // a computation still running is dropped when it ends
        heatNote_->hide();
        dag_->setCladeValues({}, {}, {});
        return;
    }
    const QString family = QString::fromStdString(data_->families[family_].name);
    heatNote_->setText(tr("Computing the %1 of family %2…").arg(colouring_->currentText(), family));
    heatNote_->show();
    if (heatComputing_) {
        heatPending_ = true; // started with the newest family, rates and options once this one ends
        return;
    }
    heatComputing_ = true;
    heatWatcher_.setFuture(
        QtConcurrent::run(solveHeatMap, data_, tables_, theta_, options_, family_, category_));
}

void WavesPanel::finishHeatMap(HeatMapResult result) {
    heatComputing_ = false;
    const bool pending = std::exchange(heatPending_, false);
    // Another family's (or data's) statistics are stale: dropped. Older rates of this family are
    // shown until the pending computation replaces them.
    if (result.data == data_ && result.family == family_ && result.category == category_ &&
        colouring() != CladeColouring::WavePhase) {
        stats_ = std::move(result.stats);
        if (stats_) {
            showHeatMap();
        } else {
            dag_->setCladeValues({}, {}, {});
            heatNote_->setText(tr("Heat map not available: %1").arg(result.error));
            heatNote_->show();
        }
    }
    if (pending) updateHeatMap();
}

void WavesPanel::showHeatMap() {
    const CladeColouring chosen = colouring();
    const std::vector<double> values = valuesOf(*stats_, chosen);
    // Posterior probabilities on their whole range, so that colours compare between families.
    const ColourScale scale =
        chosen == CladeColouring::Posterior ? ColourScale(0, 1, false) : ColourScale::fit(values, false);
    dag_->setCladeValues(values, scale, colouring_->currentText());
    heatNote_->setText(tr("Colours: %1 of each clade from the engine's solve of this family at the "
                          "current rates%2 (on a GPU, a self loop solved directly counts one iteration). "
                          "Hover a clade for its value.")
                           .arg(colouring_->currentText(), categoryNote(*data_, theta_, category_)));
    heatNote_->show();
    emit heatMapShown();
}

void WavesPanel::setDataset(std::shared_ptr<const Dataset> data, std::shared_ptr<const WaveSchedule> waves,
                            FamilyTablesSource tables) {
    dag_->setFamily(nullptr);
    data_ = std::move(data);
    // The engine's clade posteriors weigh every origination node equally: not OPTIMIZE's fitted weights.
    const bool posterior = !data_ || data_->origination != Origination::Optimize;
    auto* item = static_cast<QStandardItemModel*>(colouring_->model())->item(int(CladeColouring::Posterior));
    item->setEnabled(posterior);
    item->setToolTip(posterior ? QString()
                               : tr("Not with OPTIMIZE origination: the clade posteriors are computed with "
                                    "equal origination weights"));
    if (!posterior && colouring() == CladeColouring::Posterior) setColouring(CladeColouring::WavePhase);
    tables_ = std::move(tables);
    waves_ = std::move(waves);
    stepper_->setFamily(nullptr);
    family_ = -1;
    category_ = 0; // the Run panel shows the first category of new data
    stats_.reset();
    plot_->setSchedule(waves_.get());
}

void WavesPanel::setSelectedFamily(int family) {
    if (!data_ || family == family_) return;
    family_ = family;
    plot_->setSelectedFamily(family);
    if (family < 0) {
        stepper_->setFamily(nullptr);
        dag_->setFamily(nullptr);
        updateHeatMap();
        caption_->setText(tr("Select a family in the Families table to see its clades by wave."));
        return;
    }
    const GeneFamily& f = data_->families[family];
    stepper_->setFamily(nullptr); // its steps belong to the DAG about to be replaced
    dag_->setFamily(&f);
    stepper_->setFamily(&f);
    stats_.reset(); // the previous family's
    updateHeatMap();
    caption_->setText(
        tr("Family %1: %2 clades, %3 splits, by wave (genes left, the family right). Click a clade, "
           "or step through the waves, to see its Π on the species tree.")
            .arg(QString::fromStdString(f.name))
            .arg(f.clades.cladeCount())
            .arg(f.clades.splitCount()));
}

} // namespace gpurec::ui
