#include "panels/reconciliation_panel.hpp"

#include "panels/step_controls.hpp"
#include "session/save_file.hpp"
#include "window/eliding_label.hpp"

#include "io/csv_field.hpp"
#include "io/input_error.hpp"
#include "recon/recon_tables.hpp"
#include "recon/recphyloxml.hpp"
#include "recon/sampling_run.hpp"

#include <QCheckBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabBar>
#include <QTabWidget>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace gpurec::ui {

namespace {
constexpr int kThresholdSteps = 100; // slider positions for thresholds 0 … 1 per sample

SamplingOutcome sampleNow(std::shared_ptr<const Dataset> data, FamilyTablesSource tables,
                          RateParameters theta, std::vector<int> families, SamplingSettings settings) {
    SamplingOutcome out;
    try {
        validateSampling(*data, theta, settings);
        std::mutex mutex;
        std::vector<FamilySamples> done;
        sampleFamilies(
            *data, theta, families, settings,
            [&](FamilySamples&& f) {
                std::lock_guard lock(mutex);
                done.push_back(std::move(f));
            },
            [&](const std::vector<int>& group) { return tables(theta, settings.solver, group); });
        for (int family : families) { // in the order of the selection
            auto it = std::find_if(done.begin(), done.end(),
                                   [&](const FamilySamples& f) { return f.family == family; });
            if (it == done.end())
                throw std::runtime_error("no samples came back for family " + data->families[family].name);
            ReconciliationGroup group;
            group.name = QString::fromStdString(data->families[family].name);
            group.family = family;
            group.samples = std::move(it->reconciliations);
            group.summary = summarize(group.samples, data->species);
            group.consensus = consensusReconciliation(group.samples);
            group.source = SamplingSource{theta, settings};
            out.groups.push_back(std::move(group));
        }
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

} // namespace

ReconciliationPanel::ReconciliationPanel(QWidget* parent) : QWidget(parent) {
    view_ = new ReconciliationView;
    view_->setObjectName("reconciliationView");
    truth_ = new TruthPane;
    truth_->setObjectName("truthPane");
    truth_->hide();
    showTruth_ = new QCheckBox(tr("Truth"));
    showTruth_->setObjectName("showTruth");
    showTruth_->setAccessibleName(tr("Show the true reconciliation beside the sampled ones"));
    showTruth_->setToolTip(tr("Simulated datasets: draw the true reconciliation of the selected families "
                              "(truth/reconciliations.xml) beside the sampled ones"));
    showTruth_->setEnabled(false);
    speciesTable_ = new SpeciesEventTable;
    transfers_ = new TransferMatrix;

    samples_ = new QSpinBox;
    samples_->setObjectName("sampleCount");
    samples_->setRange(1, 100000);
    samples_->setValue(100);
    samples_->setToolTip(tr("Reconciliations drawn per family from their posterior at the current rates"));
    seed_ = new QSpinBox;
    seed_->setObjectName("sampleSeed");
    seed_->setRange(0, 1000000);
    seed_->setValue(123);
    seed_->setToolTip(tr("Random seed: the same seed, rates and family give the same samples"));
    auto* sampleButton = new QPushButton(tr("Sample"));
    sampleButton->setObjectName("sampleButton");
    sampleButton->setToolTip(tr("Sample reconciliations of the families selected in the Families table"));
    auto* openButton = new QPushButton(tr("Open…")); // short: the panel must fit narrow windows
    openButton->setObjectName("openRecPhyloXml");
    openButton->setAccessibleName(tr("Open RecPhyloXML"));
    openButton->setToolTip(
        tr("Open a RecPhyloXML file: reconciliations written by gpurec, AleRax or other tools"));
    auto* exportButton = new QToolButton;
    exportButton->setObjectName("exportReconciliations");
    exportButton->setText(tr("Export"));
    exportButton->setAccessibleName(tr("Export reconciliations"));
    exportButton->setPopupMode(QToolButton::InstantPopup);

    consensus_ = new QRadioButton(tr("Consensus"));
    consensus_->setObjectName("consensusMode");
    consensus_->setAccessibleName(tr("Consensus reconciliation"));
    consensus_->setToolTip(
        tr("Each family's best-supported sample (largest product of event supports), with the "
           "fraction of samples holding each event written beside it"));
    oneSample_ = new QRadioButton(tr("One sample"));
    oneSample_->setObjectName("oneSampleMode");
    oneSample_->setToolTip(tr("One sampled reconciliation at a time"));
    oneSample_->setChecked(true);
    aggregate_ = new QRadioButton(tr("All samples"));
    aggregate_->setObjectName("aggregateMode");
    aggregate_->setToolTip(tr("Transfers and duplications drawn by their mean number per sample"));
    index_ = new QSpinBox;
    index_->setObjectName("sampleIndex");
    index_->setRange(1, 1);
    auto* previous = new QToolButton;
    previous->setText("◀");
    auto* next = new QToolButton;
    next->setText("▶");
    browse_ = new QWidget;
    auto* browseLayout = new QHBoxLayout(browse_);
    browseLayout->setContentsMargins(0, 0, 0, 0);
    browseLayout->addWidget(new QLabel(tr("sample")));
    browseLayout->addWidget(previous);
    browseLayout->addWidget(index_);
    browseLayout->addWidget(next);
    threshold_ = new QSlider(Qt::Horizontal);
    threshold_->setObjectName("frequencyThreshold");
    threshold_->setRange(0, kThresholdSteps);
    threshold_->setValue(10);
    threshold_->setToolTip(tr("Hide transfers and duplications seen less often than this per sample"));
    thresholdLabel_ = new QLabel;
    thresholdLabel_->setMinimumWidth(60);

    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Samples")));
    top->addWidget(samples_);
    top->addWidget(new QLabel(tr("seed")));
    top->addWidget(seed_);
    top->addWidget(sampleButton);
    top->addWidget(openButton);
    top->addStretch(1);
    auto* fitButton = new QToolButton;
    fitButton->setText(tr("Fit"));
    fitButton->setObjectName("fitReconciliations");
    fitButton->setAccessibleName(tr("Fit the reconciliation drawing"));
    fitButton->setToolTip(tr("Fit the drawing to the view; it then follows the view's size until you zoom"));
    connect(fitButton, &QToolButton::clicked, view_, &ReconciliationView::fitAll);
    top->addWidget(exportButton);
    // One row per mode, so the panel fits a narrow window (1600×1000 at scale factor 1.5).
    auto* second = new QHBoxLayout;
    second->addWidget(consensus_);
    second->addWidget(oneSample_);
    second->addWidget(browse_);
    second->addStretch(1);
    second->addWidget(fitButton);
    auto* third = new QHBoxLayout;
    third->addWidget(aggregate_);
    third->addWidget(new QLabel(tr("threshold")));
    third->addWidget(threshold_, 1);
    third->addWidget(thresholdLabel_);
    third->addWidget(showTruth_);
    threshold_->setMinimumWidth(160); // keeps its width when the panel is narrow
    threshold_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    threshold_->setAccessibleName(tr("Frequency threshold"));
    info_ = new QLabel(tr("Select families in the Families table, then Sample."));
    info_->setObjectName("reconciliationInfo");
    info_->setWordWrap(true);

    carriers_ = new QListWidget;
    carriers_->setObjectName("transferFamilies");
    carriers_->setAccessibleName(tr("Families carrying the selected transfer"));
    carriers_->setToolTip(tr("Families whose samples hold the transfer clicked in the matrix, by mean number "
                             "per sample; click one to select and draw it"));
    carriersTitle_ = new QLabel(tr("Click a cell of the matrix: the families carrying that transfer are "
                                   "listed here"));
    carriersTitle_->setObjectName("transferFamiliesTitle");
    carriersTitle_->setWordWrap(true);
    auto* carriersBox = new QWidget;
    auto* carriersLayout = new QVBoxLayout(carriersBox);
    carriersLayout->setContentsMargins(0, 0, 0, 0);
    carriersLayout->addWidget(carriersTitle_);
    carriersLayout->addWidget(carriers_, 1);
    auto* transfersTab = new QSplitter(Qt::Horizontal);
    transfersTab->addWidget(transfers_);
    transfersTab->addWidget(carriersBox);
    transfersTab->setStretchFactor(0, 3);
    transfersTab->setStretchFactor(1, 2);
    tables_ = new QTabWidget;
    tables_->setObjectName("reconciliationTables");
    tables_->addTab(speciesTable_, tr("Events per species"));
    tables_->addTab(transfersTab, tr("Transfers"));
    backtrack_ = new BacktrackPanel;
    backtrack_->setObjectName("backtrackPanel");
    tables_->addTab(backtrack_, tr("Backtracking"));
    backtrack_->controls()->installShortcuts(this); // the drawing's focus steps the story too
    connect(backtrack_, &BacktrackPanel::progressChanged, view_, &ReconciliationView::setStoryProgress);
    connect(backtrack_, &BacktrackPanel::logMessage, this, &ReconciliationPanel::logMessage);
    connect(backtrack_, &BacktrackPanel::cellShown, this, &ReconciliationPanel::storyCellShown);
    split_ = new QSplitter(Qt::Vertical);
    auto* split = split_;
    auto* drawings = new QSplitter(Qt::Horizontal);
    drawings->setObjectName("reconciliationDrawings");
    sampledCaption_ = new ElidingLabel;
    sampledCaption_->setObjectName("sampledCaption");
    sampledCaption_->setAccessibleName(tr("Sampled reconciliation caption"));
    sampledCaption_->hide(); // only beside the truth's caption
    auto* sampledSide = new QWidget;
    auto* sampledLayout = new QVBoxLayout(sampledSide);
    sampledLayout->setContentsMargins(0, 0, 0, 0);
    sampledLayout->addWidget(sampledCaption_);
    sampledLayout->addWidget(view_, 1);
    drawings->addWidget(truth_);
    drawings->addWidget(sampledSide);
    drawings->setChildrenCollapsible(false);
    split->addWidget(drawings);
    split->addWidget(tables_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setChildrenCollapsible(false);
    connect(split, &QSplitter::splitterMoved, this, [this] { userSplit_ = true; });
    split->installEventFilter(this);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addLayout(second);
    layout->addLayout(third);
    layout->addWidget(split, 1);
    layout->addWidget(info_);

    auto* menu = new QMenu(exportButton);
    menu->addAction(tr("Drawing (SVG, PDF or PNG)…"), this, [this] {
        QString path =
            QFileDialog::getSaveFileName(this, tr("Export drawing"), "reconciliation.svg",
                                         tr("SVG drawing (*.svg);;PDF document (*.pdf);;PNG image (*.png)"));
        if (!path.isEmpty() && !view_->exportDrawing(path))
            QMessageBox::warning(this, tr("Export failed"), path);
    });
    auto fileAction = [this, menu](const QString& title, const QString& name, const QString& filter,
                                   bool (ReconciliationPanel::*write)(const QString&) const) {
        menu->addAction(title, this, [=, this] {
            QString path = QFileDialog::getSaveFileName(this, title, name, filter);
            if (!path.isEmpty() && !(this->*write)(path))
                QMessageBox::warning(this, tr("Export failed"), path);
        });
    };
    fileAction(tr("Reconciliations (RecPhyloXML)…"), "reconciliations.xml",
               tr("RecPhyloXML (*.xml *.recphyloxml)"), &ReconciliationPanel::exportRecPhyloXml);
    fileAction(tr("Events per species (CSV)…"), "species_events.csv", tr("CSV (*.csv)"),
               &ReconciliationPanel::exportSpeciesCsv);
    fileAction(tr("Transfers (CSV)…"), "transfers.csv", tr("CSV (*.csv)"),
               &ReconciliationPanel::exportTransfersCsv);
    fileAction(tr("Events per sample (CSV)…"), "events.csv", tr("CSV (*.csv)"),
               &ReconciliationPanel::exportEventsCsv);
    exportButton->setMenu(menu);

    connect(sampleButton, &QPushButton::clicked, this, &ReconciliationPanel::sample);
    connect(showTruth_, &QCheckBox::toggled, this, &ReconciliationPanel::setTruthShown);
    connect(openButton, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getOpenFileName(this, tr("Open RecPhyloXML"), {},
                                                    tr("RecPhyloXML (*.xml *.recphyloxml);;All files (*)"));
        if (!path.isEmpty()) openRecPhyloXml(path);
    });
    for (QRadioButton* radio : {consensus_, oneSample_, aggregate_})
        connect(radio, &QRadioButton::toggled, this, [this](bool on) {
            if (!on) return;
            updateControls();
            redraw();
        });
    connect(transfers_, &TransferMatrix::transferSelected, this, &ReconciliationPanel::showTransferCarriers);
    connect(carriers_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        const int group = item->data(Qt::UserRole).toInt();
        if (group < 0 || group >= static_cast<int>(groups_.size())) return;
        shown_ = {group};
        setMode(Mode::Consensus);
        if (groups_[group].family >= 0) emit familyRequested(groups_[group].family);
    });
    connect(index_, &QSpinBox::valueChanged, this, [this] { redraw(); });
    connect(previous, &QToolButton::clicked, index_, &QSpinBox::stepDown);
    connect(next, &QToolButton::clicked, index_, &QSpinBox::stepUp);
    connect(threshold_, &QSlider::valueChanged, this, [this](int value) {
        const double t = static_cast<double>(value) / kThresholdSteps;
        thresholdLabel_->setText(QString("≥ %1").arg(t, 0, 'f', 2));
        view_->setThreshold(t);
    });
    thresholdLabel_->setText(
        QString("≥ %1").arg(static_cast<double>(threshold_->value()) / kThresholdSteps, 0, 'f', 2));
    view_->setThreshold(static_cast<double>(threshold_->value()) / kThresholdSteps);
    connect(&watcher_, &QFutureWatcher<SamplingOutcome>::finished, this, [this] {
        SamplingOutcome outcome = watcher_.result();
        if (!outcome.error.isEmpty()) {
            info_->setText(tr("Sampling failed: %1").arg(outcome.error));
            emit logMessage(tr("Sampling failed: %1").arg(outcome.error));
            emit sampled(false);
            return;
        }
        display(std::move(outcome.groups), nullptr);
    });
    updateControls();
}

void ReconciliationPanel::setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables) {
    data_ = std::move(data);
    familyTables_ = std::move(tables);
    backtrack_->setDataset(data_, familyTables_);
    theta_ = {};
    families_.clear();
    display({}, nullptr);
    info_->setText(tr("Select families in the Families table, then Sample."));
}

void ReconciliationPanel::setParameters(const RateParameters& theta) {
    theta_ = theta;
}
void ReconciliationPanel::setSolverOptions(const SolverOptions& options) {
    options_ = options;
}

void ReconciliationPanel::setRateBounds(double minRate, double maxRate) {
    minRate_ = minRate;
    maxRate_ = maxRate;
}

void ReconciliationPanel::setTruth(std::shared_ptr<const RecPhyloDocument> truth, const QString& file) {
    truth_->setTruth(std::move(truth), file);
    showTruth_->setEnabled(truth_->hasTruth());
    setTruthShown(showTruth_->isChecked()); // the user's choice carries over to the next dataset
}

void ReconciliationPanel::setTruthShown(bool shown) {
    showTruth_->setChecked(shown);
    truth_->setVisible(shown && truth_->hasTruth());
    sampledCaption_->setVisible(truthShown());
    fitTableHeight();
}

bool ReconciliationPanel::truthShown() const {
    return !truth_->isHidden();
}

void ReconciliationPanel::setFamilies(const std::vector<int>& families) {
    families_ = families;
    if (data_) {
        QStringList names;
        for (int f : families_)
            names << QString::fromStdString(data_->families[f].name);
        truth_->showFamilies(names, kMaxFamiliesDrawn);
    }
    const std::vector<int> before = shown_;
    chooseShown();
    bool selectedSampled = false;
    for (int g : shown_)
        selectedSampled = selectedSampled ||
                          std::find(families_.begin(), families_.end(), groups_[g].family) != families_.end();
    if (selectedSampled && (shown_ != before || mode() != Mode::Consensus)) {
        setMode(Mode::Consensus);
    } else if (shown_ != before) {
        updateControls();
        redraw();
    }
}

void ReconciliationPanel::chooseShown() {
    shown_.clear();
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g)
        if (groups_[g].family >= 0 &&
            std::find(families_.begin(), families_.end(), groups_[g].family) != families_.end())
            shown_.push_back(g);
    if (shown_.empty()) // nothing selected was sampled: the sampled families themselves
        for (int g = 0; g < static_cast<int>(groups_.size()); ++g)
            shown_.push_back(g);
    if (shown_.size() > static_cast<std::size_t>(kMaxFamiliesDrawn)) shown_.resize(kMaxFamiliesDrawn);
}

void ReconciliationPanel::sample() {
    if (!data_ || watcher_.isRunning()) return;
    if (families_.empty()) {
        info_->setText(tr("Select one or more families in the Families table first."));
        return;
    }
    const std::vector<int> chosen = families_;
    if (chosen.size() > static_cast<std::size_t>(kMaxFamiliesDrawn))
        emit logMessage(tr("Sampling %1 families; the first %2 are drawn (one colour each), the tables "
                           "sum over all of them")
                            .arg(chosen.size())
                            .arg(kMaxFamiliesDrawn));
    SamplingSettings settings;
    settings.samples = samples_->value();
    settings.seed = static_cast<std::uint64_t>(seed_->value());
    settings.minRate = minRate_;
    settings.maxRate = maxRate_;
    settings.solver = options_;
    info_->setText(
        tr("Sampling %1 reconciliation(s) of %2 family(ies)…").arg(settings.samples).arg(chosen.size()));
    watcher_.setFuture(QtConcurrent::run(sampleNow, data_, familyTables_, theta_, chosen, settings));
}

void ReconciliationPanel::setSampling(int count, std::uint64_t seed) {
    samples_->setValue(count);
    seed_->setValue(static_cast<int>(std::min(seed, static_cast<std::uint64_t>(seed_->maximum()))));
}

int ReconciliationPanel::sampleCount() const {
    return samples_->value();
}

std::uint64_t ReconciliationPanel::sampleSeed() const {
    return static_cast<std::uint64_t>(seed_->value());
}

void ReconciliationPanel::openRecPhyloXml(const QString& path) {
    try {
        RecPhyloDocument doc = readRecPhyloXml(path.toStdString());
        auto species = std::make_shared<const SpeciesTree>(doc.species);
        std::vector<ReconciliationGroup> groups;
        for (Reconciliation& r : doc.reconciliations) {
            const QString name =
                r.family.empty() ? QFileInfo(path).completeBaseName() : QString::fromStdString(r.family);
            auto it = std::find_if(groups.begin(), groups.end(),
                                   [&](const ReconciliationGroup& g) { return g.name == name; });
            if (it == groups.end()) {
                groups.push_back({name, -1, {}, {}, {}, std::nullopt});
                it = groups.end() - 1;
            }
            it->samples.push_back(std::move(r));
        }
        for (ReconciliationGroup& g : groups) {
            g.summary = summarize(g.samples, *species);
            g.consensus = consensusReconciliation(g.samples);
        }
        emit logMessage(tr("Opened %1: %2 reconciliation(s)").arg(path).arg(doc.reconciliations.size()));
        display(std::move(groups), species);
    } catch (const std::exception& e) {
        info_->setText(
            tr("Could not open %1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what())));
        emit logMessage(tr("Could not open RecPhyloXML: %1").arg(QString::fromUtf8(e.what())));
        emit sampled(false);
    }
}

void ReconciliationPanel::showSampled(std::vector<ReconciliationGroup> groups) {
    for (ReconciliationGroup& g : groups) {
        g.summary = summarize(g.samples, data_->species);
        g.consensus = consensusReconciliation(g.samples);
    }
    display(std::move(groups), nullptr);
}

const SpeciesTree* ReconciliationPanel::species() const {
    if (fileSpecies_) return fileSpecies_.get();
    return data_ ? &data_->species : nullptr;
}

void ReconciliationPanel::display(std::vector<ReconciliationGroup> groups,
                                  std::shared_ptr<const SpeciesTree> ownSpecies) {
    groups_ = std::move(groups);
    fileSpecies_ = std::move(ownSpecies);
    total_ = {};
    for (const ReconciliationGroup& g : groups_)
        addFamily(total_, g.summary);
    chooseShown();
    carriers_->clear();
    carriersTitle_->setText(
        tr("Click a cell of the matrix: the families carrying that transfer are listed here"));
    view_->highlightTransfer(-1, -1);
    const SpeciesTree* tree = species();
    view_->setSpecies(tree);
    if (tree && !groups_.empty()) {
        speciesTable_->showSummary(total_, *tree);
        transfers_->showSummary(total_, *tree);
    } else {
        speciesTable_->showSummary({}, SpeciesTree{});
        transfers_->showSummary({}, SpeciesTree{});
    }
    updateControls();
    redraw();
    QTimer::singleShot(0, this, &ReconciliationPanel::fitTableHeight); // once the headers have their height
    if (!groups_.empty()) {
        view_->fitAll();
        QStringList parts;
        for (const ReconciliationGroup& g : groups_)
            parts << tr("%1: %2 sample(s), per sample D %3, T %4, L %5")
                         .arg(g.name)
                         .arg(g.samples.size())
                         .arg(g.summary.events[2], 0, 'g', 3)
                         .arg(g.summary.events[3] + g.summary.events[4], 0, 'g', 3)
                         .arg(g.summary.events[5], 0, 'g', 3);
        info_->setText(parts.join("; "));
        emit sampled(true);
    }
}

void ReconciliationPanel::updateControls() {
    int most = 1;
    for (int g : shown_)
        most = std::max(most, static_cast<int>(groups_[g].samples.size()));
    QSignalBlocker block(index_);
    index_->setRange(1, most);
    index_->setSuffix(tr(" of %1").arg(most));
    browse_->setEnabled(oneSample_->isChecked());
    threshold_->setEnabled(aggregate_->isChecked());
}

void ReconciliationPanel::setMode(Mode mode) {
    {
        QSignalBlocker a(aggregate_), b(oneSample_), c(consensus_);
        consensus_->setChecked(mode == Mode::Consensus);
        oneSample_->setChecked(mode == Mode::OneSample);
        aggregate_->setChecked(mode == Mode::Aggregate);
    }
    updateControls();
    redraw();
}

ReconciliationPanel::Mode ReconciliationPanel::mode() const {
    return consensus_->isChecked()   ? Mode::Consensus
           : aggregate_->isChecked() ? Mode::Aggregate
                                     : Mode::OneSample;
}

void ReconciliationPanel::setAggregate(bool aggregate) {
    setMode(aggregate ? Mode::Aggregate : Mode::OneSample);
}

void ReconciliationPanel::showSample(int index) {
    if (mode() != Mode::OneSample) setMode(Mode::OneSample);
    index_->setValue(index + 1);
}

void ReconciliationPanel::showTransferCarriers(int donor, int recipient) {
    view_->highlightTransfer(donor, recipient);
    carriers_->clear();
    const SpeciesTree* tree = species();
    if (!tree || donor < 0 || recipient < 0) return;
    struct Carrier {
        int group;
        double mean, fraction;
    };
    std::vector<Carrier> found;
    for (int g = 0; g < static_cast<int>(groups_.size()); ++g) {
        auto it = groups_[g].summary.transfers.find({donor, recipient});
        if (it != groups_[g].summary.transfers.end() && it->second > 0)
            found.push_back({g, it->second, transferSampleFrequency(groups_[g].samples, donor, recipient)});
    }
    std::stable_sort(found.begin(), found.end(),
                     [](const Carrier& a, const Carrier& b) { return a.mean > b.mean; });
    const QString pair = tr("%1 → %2").arg(QString::fromStdString(tree->name(donor)),
                                           QString::fromStdString(tree->name(recipient)));
    carriersTitle_->setText(tr("%1 family(ies) carry %2:").arg(found.size()).arg(pair));
    for (const Carrier& c : found) {
        auto* item = new QListWidgetItem(tr("%1: %2 per sample, in %3% of samples")
                                             .arg(groups_[c.group].name)
                                             .arg(c.mean, 0, 'g', 3)
                                             .arg(100 * c.fraction, 0, 'f', 0));
        item->setData(Qt::UserRole, c.group);
        item->setData(Qt::UserRole + 1, c.mean);
        item->setData(Qt::UserRole + 2, c.fraction);
        item->setToolTip(tr("Click to draw %1 (its consensus) and select it in the Families table")
                             .arg(groups_[c.group].name));
        carriers_->addItem(item);
    }
    emit logMessage(tr("Transfers %1: %2 family(ies)").arg(pair).arg(found.size()));
}

bool ReconciliationPanel::eventFilter(QObject* watched, QEvent* event) {
    // The splitter, not the panel: the info line below it may take more lines and squeeze it.
    if (watched == split_ && (event->type() == QEvent::Resize || event->type() == QEvent::Show))
        fitTableHeight();
    return QWidget::eventFilter(watched, event);
}

void ReconciliationPanel::fitTableHeight() {
    if (userSplit_ || split_->height() <= 0) return;
    // Header, kTableRows rows and a horizontal scroll bar, plus the tab bar; the drawing keeps at
    // least half the height.
    const int row = speciesTable_->verticalHeader()->defaultSectionSize();
    const int chrome = tables_->tabBar()->sizeHint().height() +
                       std::max(speciesTable_->horizontalHeader()->sizeHint().height(), row) +
                       2 * speciesTable_->frameWidth() + style()->pixelMetric(QStyle::PM_ScrollBarExtent) + 8;
    const int rows = row * kTableRows + row / 2;
    const int total = split_->height() - split_->handleWidth();
    // Two drawings side by side (the truth shown) need the height more than the tables do.
    const int tables =
        truthShown() ? std::min(rows + chrome, total / 4) : std::clamp(rows + chrome, total / 4, total / 2);
    split_->setSizes({total - tables, tables});
}

int ReconciliationPanel::currentSample() const {
    return index_->value() - 1;
}

void ReconciliationPanel::setThreshold(double threshold) {
    threshold_->setValue(static_cast<int>(std::lround(threshold * kThresholdSteps)));
}

void ReconciliationPanel::redraw() {
    QStringList names;
    for (int g : shown_)
        names << groups_[g].name;
    const int count = shown_.empty() ? 0 : static_cast<int>(groups_[shown_.front()].samples.size());
    sampledCaption_->setText(shown_.empty()              ? tr("Sampled: none yet (Sample)")
                             : mode() == Mode::Consensus ? tr("Sampled: consensus of %1").arg(count)
                             : mode() == Mode::OneSample
                                 ? tr("Sampled: sample %1 of %2").arg(currentSample() + 1).arg(count)
                                 : tr("Sampled: all %1 samples").arg(count));
    if (mode() == Mode::Aggregate) {
        std::vector<const ReconciliationSummary*> summaries;
        for (int g : shown_)
            summaries.push_back(&groups_[g].summary);
        view_->showAggregates(summaries, names);
        offerStory();
        return;
    }
    std::vector<const Reconciliation*> drawn;
    std::vector<const ReconciliationView::EventSupports*> supports;
    for (int g : shown_) {
        const ReconciliationGroup& group = groups_[g];
        drawn.push_back(&group.samples[drawnSample(group)]);
        if (mode() == Mode::Consensus) supports.push_back(&group.consensus.support);
    }
    view_->showReconciliations(drawn, names, supports);
    offerStory();
}

int ReconciliationPanel::drawnSample(const ReconciliationGroup& group) const {
    if (mode() == Mode::Consensus) return group.consensus.sample;
    return std::min(currentSample(), static_cast<int>(group.samples.size()) - 1);
}

void ReconciliationPanel::offerStory() {
    if (shown_.size() != 1 || mode() == Mode::Aggregate || groups_[shown_.front()].family < 0) {
        const QString why =
            mode() == Mode::Aggregate
                ? tr("All samples are drawn together: choose One sample or Consensus to "
                     "tell how one of them was drawn.")
            : shown_.size() > 1
                ? tr("Several families are drawn: select one to tell how its sample was drawn.")
            : !shown_.empty() ? tr("These reconciliations come from a file: only samples drawn here can be "
                                   "retold.")
                              : QString();
        backtrack_->setSample(-1, -1, nullptr, {}, why);
        return;
    }
    const ReconciliationGroup& group = groups_[shown_.front()];
    const int k = drawnSample(group);
    SamplingSource current;
    current.theta = theta_;
    current.settings.seed = sampleSeed();
    current.settings.minRate = minRate_;
    current.settings.maxRate = maxRate_;
    current.settings.solver = options_;
    backtrack_->setSample(group.family, k, &group.samples[k], group.source.value_or(current));
}

bool ReconciliationPanel::exportRecPhyloXml(const QString& path) const {
    if (!species() || groups_.empty()) return false;
    std::vector<Reconciliation> all;
    for (const ReconciliationGroup& g : groups_)
        all.insert(all.end(), g.samples.begin(), g.samples.end());
    return saveTextFile(path, toRecPhyloXml(*species(), all));
}

bool ReconciliationPanel::exportSpeciesCsv(const QString& path) const {
    if (!species() || groups_.empty()) return false;
    return saveTextFile(path, meanSpeciesEventCountsCsv(total_, *species()));
}

bool ReconciliationPanel::exportTransfersCsv(const QString& path) const {
    if (!species() || groups_.empty()) return false;
    std::string text = "source,destination,count\n";
    for (const TransferFrequency& t : sortedTransfers(total_.transfers, *species()))
        text += species()->name(t.source) + "," + species()->name(t.destination) + "," +
                formatCount(t.count) + "\n";
    return saveTextFile(path, text);
}

bool ReconciliationPanel::exportEventsCsv(const QString& path) const {
    if (groups_.empty()) return false;
    std::string text = "family," + eventCountsHeader() + "\n";
    for (const ReconciliationGroup& g : groups_) {
        const std::string family = csvField(g.name.toStdString());
        for (std::size_t i = 0; i < g.samples.size(); ++i)
            text += family + "," + eventCountsRow(i, g.samples[i]) + "\n";
    }
    return saveTextFile(path, text);
}

} // namespace gpurec::ui
