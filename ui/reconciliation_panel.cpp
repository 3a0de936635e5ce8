#include "reconciliation_panel.hpp"

#include "save_file.hpp"

#include "io/input_error.hpp"
#include "recon/recon_tables.hpp"
#include "recon/recphyloxml.hpp"
#include "recon/sampling_run.hpp"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <mutex>
#include <stdexcept>

namespace gpurec::ui {

namespace {
constexpr int kThresholdSteps = 100; // slider positions for thresholds 0 … 1 per sample

SamplingOutcome sampleNow(std::shared_ptr<const Dataset> data, RateParameters theta,
                          std::vector<int> families, SamplingSettings settings) {
    SamplingOutcome out;
    try {
        validateSampling(*data, theta, settings);
        std::mutex mutex;
        std::vector<FamilySamples> done;
        sampleFamilies(*data, theta, families, settings, [&](FamilySamples&& f) {
            std::lock_guard lock(mutex);
            done.push_back(std::move(f));
        });
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

    oneSample_ = new QRadioButton(tr("One sample"));
    oneSample_->setObjectName("oneSampleMode");
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
    second->addWidget(oneSample_);
    second->addWidget(browse_);
    second->addStretch(1);
    second->addWidget(fitButton);
    auto* third = new QHBoxLayout;
    third->addWidget(aggregate_);
    third->addWidget(new QLabel(tr("threshold")));
    third->addWidget(threshold_, 1);
    third->addWidget(thresholdLabel_);
    threshold_->setMinimumWidth(120);
    info_ = new QLabel(tr("Select families in the Families table, then Sample."));
    info_->setObjectName("reconciliationInfo");
    info_->setWordWrap(true);

    auto* tables = new QTabWidget;
    tables->addTab(speciesTable_, tr("Events per species"));
    tables->addTab(transfers_, tr("Transfers"));
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(view_);
    split->addWidget(tables);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
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
    connect(openButton, &QPushButton::clicked, this, [this] {
        QString path = QFileDialog::getOpenFileName(this, tr("Open RecPhyloXML"), {},
                                                    tr("RecPhyloXML (*.xml *.recphyloxml);;All files (*)"));
        if (!path.isEmpty()) openRecPhyloXml(path);
    });
    connect(oneSample_, &QRadioButton::toggled, this, [this](bool one) { setAggregate(!one); });
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

void ReconciliationPanel::setDataset(std::shared_ptr<const Dataset> data) {
    data_ = std::move(data);
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

void ReconciliationPanel::setFamilies(const std::vector<int>& families) {
    families_ = families;
}

void ReconciliationPanel::sample() {
    if (!data_ || watcher_.isRunning()) return;
    if (families_.empty()) {
        info_->setText(tr("Select one or more families in the Families table first."));
        return;
    }
    std::vector<int> chosen = families_;
    if (chosen.size() > static_cast<std::size_t>(kMaxFamiliesDrawn)) {
        chosen.resize(kMaxFamiliesDrawn);
        emit logMessage(
            tr("Sampling the first %1 selected families (one colour each)").arg(kMaxFamiliesDrawn));
    }
    SamplingSettings settings;
    settings.samples = samples_->value();
    settings.seed = static_cast<std::uint64_t>(seed_->value());
    settings.minRate = minRate_;
    settings.maxRate = maxRate_;
    settings.solver = options_;
    info_->setText(
        tr("Sampling %1 reconciliation(s) of %2 family(ies)…").arg(settings.samples).arg(chosen.size()));
    watcher_.setFuture(QtConcurrent::run(sampleNow, data_, theta_, chosen, settings));
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
                groups.push_back({name, -1, {}, {}});
                it = groups.end() - 1;
            }
            it->samples.push_back(std::move(r));
        }
        if (groups.size() > static_cast<std::size_t>(kMaxFamiliesDrawn)) groups.resize(kMaxFamiliesDrawn);
        for (ReconciliationGroup& g : groups)
            g.summary = summarize(g.samples, *species);
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
    for (ReconciliationGroup& g : groups)
        g.summary = summarize(g.samples, data_->species);
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
    for (const ReconciliationGroup& g : groups_)
        most = std::max(most, static_cast<int>(g.samples.size()));
    QSignalBlocker block(index_);
    index_->setRange(1, most);
    index_->setSuffix(tr(" of %1").arg(most));
    browse_->setEnabled(!aggregate_->isChecked());
    threshold_->setEnabled(aggregate_->isChecked());
}

void ReconciliationPanel::setAggregate(bool aggregate) {
    QSignalBlocker a(aggregate_), b(oneSample_);
    aggregate_->setChecked(aggregate);
    oneSample_->setChecked(!aggregate);
    updateControls();
    redraw();
}

void ReconciliationPanel::showSample(int index) {
    index_->setValue(index + 1);
}

int ReconciliationPanel::currentSample() const {
    return index_->value() - 1;
}

void ReconciliationPanel::setThreshold(double threshold) {
    threshold_->setValue(static_cast<int>(std::lround(threshold * kThresholdSteps)));
}

void ReconciliationPanel::redraw() {
    QStringList names;
    for (const ReconciliationGroup& g : groups_)
        names << g.name;
    if (aggregate_->isChecked()) {
        std::vector<const ReconciliationSummary*> summaries;
        for (const ReconciliationGroup& g : groups_)
            summaries.push_back(&g.summary);
        view_->showAggregates(summaries, names);
        return;
    }
    std::vector<const Reconciliation*> shown;
    const int k = currentSample();
    for (const ReconciliationGroup& g : groups_)
        shown.push_back(&g.samples[std::min<std::size_t>(k, g.samples.size() - 1)]);
    view_->showReconciliations(shown, names);
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
    std::string text;
    for (const ReconciliationGroup& g : groups_) {
        std::string csv = eventCountsCsv(g.samples);
        std::size_t lineStart = 0;
        bool header = true;
        while (lineStart < csv.size()) {
            std::size_t end = csv.find('\n', lineStart);
            std::string line = csv.substr(lineStart, end - lineStart);
            if (header) {
                if (text.empty()) text += "family," + line + "\n";
            } else {
                text += g.name.toStdString() + "," + line + "\n";
            }
            header = false;
            lineStart = end == std::string::npos ? csv.size() : end + 1;
        }
    }
    return saveTextFile(path, text);
}

} // namespace gpurec::ui
