#include "panels/search_panel.hpp"

#include "colours/colour_scale.hpp"
#include "io/newick.hpp"
#include "views/species_tree_view.hpp"
#include "views/tanglegram_view.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>
#include <stdexcept>

namespace gpurec::ui {

namespace {

constexpr int kCandidates = 0, kCurrent = 1, kScreened = 2; // the plot's graphs

QString nats(double v) {
    return QLocale().toString(v, 'f', 2);
}

// gpurec search --infer-speciation-order's help, in the tab's words.
const char* const kSpeciationOrderTip =
    "Infer the order of the speciations (as --infer-speciation-order; RELDATED only): REROOT re-dates "
    "every root candidate, then runs the dating step";

// A factor (the SPR cutoff's and the SPR memory's of the mean drop, the pre-screen's confirming
// stage's of its families): 0 to 10 by halves, 0 "off".
QDoubleSpinBox* factorBox(const char* objectName, const QString& accessibleName, double value,
                          const QString& toolTip) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(objectName);
    box->setAccessibleName(accessibleName);
    box->setRange(0, 10);
    box->setDecimals(1);
    box->setSingleStep(0.5);
    box->setSpecialValueText(QObject::tr("off"));
    box->setValue(value);
    box->setToolTip(toolTip);
    return box;
}

} // namespace

SearchPanel::SearchPanel(QWidget* parent) : QWidget(parent) {
    strategy_ = new QComboBox;
    strategy_->setObjectName("searchStrategy");
    strategy_->setAccessibleName(tr("Search moves"));
    strategy_->addItem(tr("SPR moves and re-rooting (HYBRID)"), "HYBRID");
    strategy_->addItem(tr("root position only (REROOT)"), "REROOT");
    strategy_->setToolTip(tr("HYBRID: SPR rounds with a growing radius, root searches and rate "
                             "re-optimisation until no move improves the likelihood. REROOT: only where "
                             "the root is (AleRax's --species-tree-search)"));
    radius_ = new QSpinBox;
    radius_->setObjectName("searchRadius");
    radius_->setAccessibleName(tr("Largest SPR radius"));
    radius_->setRange(1, 10);
    radius_->setValue(SpeciesSearchSettings{}.maxRadius);
    radius_->setToolTip(tr("SPR rounds start at radius 1 and grow to this while no move pays"));
    sprCutoff_ = factorBox(
        "searchSprCutoff", tr("SPR cutoff: regrafts past a drop of this many mean drops are not tried"),
        SpeciesSearchSettings{}.sprCutoff,
        tr("A regraft further out is tried only when the one a step nearer on its way lies at most this "
           "many times the mean drop of the candidates scored so far below the current tree (as "
           "--spr-cutoff; off: every regraft within the radius)"));
    sprMemory_ = factorBox(
        "searchSprMemory",
        tr("SPR memory: moves that fell this many mean drops below an earlier tree are not tried again"),
        SpeciesSearchSettings{}.sprMemory,
        tr("An SPR move is not tried again when the same local move (the same pruned and target clades, "
           "the same clades between them) fell more than this many times the mean drop below an earlier "
           "tree (as --spr-memory; off: every move on every tree)"));
    startFrom_ = new QComboBox;
    startFrom_->setObjectName("searchStartFrom");
    startFrom_->setAccessibleName(tr("Start the search from"));
    startFrom_->addItem(tr("the working tree"), int(SearchStart::WorkingTree));
    startFrom_->addItem(tr("MiniNJ (from the gene trees)"), int(SearchStart::MiniNj));
    startFrom_->addItem(tr("a random tree"), int(SearchStart::Random));
    startFrom_->setToolTip(tr("As gpurec search -s: the loaded species tree, a distance tree built "
                              "from the gene trees, or a random tree drawn from the seed"));
    seed_ = new QSpinBox;
    seed_->setObjectName("searchSeed");
    seed_->setAccessibleName(tr("Seed of the search"));
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setValue(static_cast<int>(SpeciesSearchSettings{}.seed));
    seed_->setToolTip(tr("Draws the random start tree, the reconciliations that propose transfer moves "
                         "and the RELL bootstrap replicates (as --seed)"));
    prescreen_ = new QSpinBox;
    prescreen_->setObjectName("searchPrescreen");
    prescreen_->setAccessibleName(tr("Pre-screen candidate moves on this percentage of the families"));
    prescreen_->setRange(0, 90);
    prescreen_->setSingleStep(5);
    prescreen_->setSuffix(tr(" %"));
    prescreen_->setSpecialValueText(tr("off"));
    prescreen_->setToolTip(tr("Scores each candidate move on this share of the families first, and on "
                              "every family only when that estimate could be an improvement (as "
                              "--prescreen). Worth it with many families: the estimate's error shrinks "
                              "with the number of families sampled"));
    prescreenConfirm_ = factorBox(
        "searchPrescreenConfirm",
        tr("Confirming stage: candidates the pre-screen cannot rule out are scored on this many times its "
           "families first"),
        SpeciesSearchSettings{}.prescreenConfirm,
        tr("A candidate the pre-screen cannot rule out is next scored on this many times the pre-screen's "
           "families (those included), and on every family only when these could not rule it out either "
           "(as --prescreen-confirm; off: straight to every family)"));
    speciationOrder_ = new QCheckBox(tr("Infer speciation order"));
    speciationOrder_->setObjectName("searchInferSpeciationOrder");
    speciationOrder_->setAccessibleName(tr("Infer the order of the speciations"));
    start_ = new QPushButton(tr("Start search"));
    start_->setObjectName("startSearch");
    start_->setAccessibleName(tr("Start the species-tree search"));
    pause_ = new QPushButton(tr("Pause"));
    pause_->setObjectName("pauseSearch");
    pause_->setAccessibleName(tr("Pause or resume the species-tree search"));
    stop_ = new QPushButton(tr("Stop"));
    stop_->setObjectName("stopSearch");
    stop_->setAccessibleName(tr("Stop the species-tree search, keeping the best tree"));
    save_ = new QPushButton(tr("Save best tree…"));
    save_->setObjectName("saveSearchedTree");
    save_->setAccessibleName(tr("Save the best species tree as Newick"));
    adopt_ = new QPushButton(tr("Use as working tree…"));
    adopt_->setObjectName("adoptSearchedTree");
    adopt_->setAccessibleName(tr("Save the best species tree and reload the families on it"));
    status_ = new QLabel(introduction());
    status_->setObjectName("searchStatus");
    status_->setToolTip(tr("Species-tree search status"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    plot_ = new QCustomPlot;
    plot_->setObjectName("searchPlot");
    plot_->setAccessibleName(tr("Log-likelihood of the scored candidates"));
    plot_->setMinimumSize(160, 160);
    plot_->xAxis->setLabel(tr("candidates scored"));
    // Whole candidates, few ticks: fractional ticks ran into each other on a narrow plot.
    auto ticker = QSharedPointer<QCPAxisTickerFixed>::create();
    ticker->setTickStep(1);
    ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    ticker->setTickCount(4);
    plot_->xAxis->setTicker(ticker);
    // LL of all families: a longer label ran off the plot at QT_SCALE_FACTOR=1.5.
    plot_->yAxis->setLabel(tr("LL (nats)"));
    plot_->addGraph()->setName(tr("candidate"));
    plot_->graph(kCandidates)->setLineStyle(QCPGraph::lsNone);
    plot_->graph(kCandidates)
        ->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150), 3));
    plot_->addGraph()->setName(tr("current tree"));
    plot_->graph(kCurrent)->setLineStyle(QCPGraph::lsStepLeft);
    plot_->graph(kCurrent)->setPen(QPen(QColor(0, 90, 180), 2));
    plot_->addGraph()->setName(tr("estimate"));
    plot_->graph(kScreened)->setLineStyle(QCPGraph::lsNone);
    plot_->graph(kScreened)->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(220, 140, 40), 3));
    plot_->graph(kScreened)->removeFromLegend(); // listed only in pre-screened searches
    // The legend in a row of its own under the axes, where it hides no point.
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    legendRow->setMargins(QMargins(0, 0, 0, 4));
    legendRow->addElement(0, 0, plot_->legend);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setWrap(2); // a third entry in the row was clipped in a narrow plot
    plot_->legend->setVisible(true);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->setToolTip(tr("Wheel: zoom · drag: pan · double-click: follow the search again"));
    view_ = new SpeciesTreeView;
    view_->setObjectName("searchTreeView");
    view_->setAccessibleName(tr("Current species tree of the search"));

    // Two short rows: the tab must fit beside the species tree on a small screen.
    strategy_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    strategy_->setMinimumContentsLength(14);
    auto* settingsRow = new QHBoxLayout;
    settingsRow->addWidget(new QLabel(tr("Moves")));
    settingsRow->addWidget(strategy_, 1);
    settingsRow->addWidget(new QLabel(tr("Largest SPR radius")));
    settingsRow->addWidget(radius_);
    startFrom_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    startFrom_->setMinimumContentsLength(14);
    auto* startRow = new QHBoxLayout;
    startRow->addWidget(new QLabel(tr("Start from")));
    startRow->addWidget(startFrom_, 1);
    startRow->addWidget(new QLabel(tr("Seed")));
    startRow->addWidget(seed_);
    // The buttons on a row of their own: beside the start choice they widened the window past a
    // 1067-pixel screen (1600 pixels at scale 1.5).
    auto* buttonsRow = new QHBoxLayout;
    buttonsRow->addWidget(start_);
    buttonsRow->addWidget(pause_);
    buttonsRow->addWidget(stop_);
    buttonsRow->addStretch(1);
    // The pre-screen and its confirming stage on a row of their own too, for the same reason.
    auto* screenRow = new QHBoxLayout;
    screenRow->addWidget(new QLabel(tr("Pre-screen")));
    screenRow->addWidget(prescreen_);
    screenRow->addWidget(new QLabel(tr("Confirm ×")));
    screenRow->addWidget(prescreenConfirm_);
    screenRow->addStretch(1);
    auto* controls = new QVBoxLayout;
    controls->addLayout(settingsRow);
    // On a row of its own: beside the other settings it widened the window past a 1067-pixel
    // screen. Left-aligned: stretched over the row, a click in its empty part would not tick it.
    auto* orderRow = new QHBoxLayout;
    orderRow->addWidget(speciationOrder_);
    orderRow->addStretch(1);
    orderRow->addWidget(new QLabel(tr("SPR cutoff")));
    orderRow->addWidget(sprCutoff_);
    orderRow->addWidget(new QLabel(tr("SPR memory")));
    orderRow->addWidget(sprMemory_);
    controls->addLayout(orderRow);
    controls->addLayout(startRow);
    controls->addLayout(screenRow);
    controls->addLayout(buttonsRow);
    colourBy_ = new QComboBox;
    colourBy_->setObjectName("searchColouring");
    colourBy_->setAccessibleName(tr("Colour the best tree's branches by"));
    colourBy_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* results = new QHBoxLayout;
    results->addWidget(new QLabel(tr("Colour by")));
    results->addWidget(colourBy_, 1);
    results->addStretch(1);
    results->addWidget(save_);
    results->addWidget(adopt_);
    auto* split = new QSplitter(Qt::Horizontal);
    split->setObjectName("searchSplit");
    tanglegram_ = new TanglegramView;
    compareWith_ = new QComboBox;
    compareWith_->setObjectName("compareWith");
    compareWith_->setAccessibleName(tr("Compare the search's tree with"));
    compareWith_->addItem(tr("the start tree"));
    compareWith_->addItem(tr("a tree from a file…"));
    compareWith_->setToolTip(tr("The tree set face to face with the search's current (or best) tree"));
    compareSummary_ = new QLabel;
    compareSummary_->setObjectName("compareSummary");
    compareSummary_->setToolTip(tr("How the compared trees differ"));
    compareSummary_->setWordWrap(true);
    compareSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* compare = new QWidget;
    auto* compareLayout = new QVBoxLayout(compare);
    compareLayout->setContentsMargins(0, 0, 0, 0);
    everyName_ = new QCheckBox(tr("Every name"));
    everyName_->setObjectName("tanglegramEveryName");
    everyName_->setAccessibleName(tr("Name every species in the comparison"));
    everyName_->setToolTip(tr("One line of text per species, scrolled, instead of fitting the trees to "
                              "the panel (where large trees leave no room for names)"));
    auto* compareRow = new QHBoxLayout;
    compareRow->addWidget(new QLabel(tr("Compare with")));
    compareRow->addWidget(compareWith_, 1);
    compareLayout->addLayout(compareRow);
    tanglegramScroll_ = new QScrollArea;
    tanglegramScroll_->setObjectName("tanglegramScroll");
    tanglegramScroll_->setAccessibleName(tr("Two species trees compared, scrolled"));
    tanglegramScroll_->setWidgetResizable(true);
    tanglegramScroll_->setFrameShape(QFrame::NoFrame);
    tanglegramScroll_->setWidget(tanglegram_);
    compareLayout->addWidget(tanglegramScroll_, 1);
    connect(everyName_, &QCheckBox::toggled, tanglegram_, &TanglegramView::setEveryNameShown);
    // Below the drawing, the summary has the tab's whole width and sits in the column itself, where
    // its height follows its width.
    compareLayout->addWidget(compareSummary_);
    treeTabs_ = new QTabWidget;
    treeTabs_->setObjectName("searchTrees");
    treeTabs_->setAccessibleName(tr("The search's tree"));
    treeTabs_->addTab(view_, tr("Tree"));
    treeTabs_->addTab(compare, tr("Compare"));
    // The comparison's box beside its tab, shown with it: below the drawing it took a line of the
    // drawing's height, and beside the tree choice it widened the tab past half a 1067-pixel screen.
    treeTabs_->setCornerWidget(everyName_, Qt::TopRightCorner);
    everyName_->hide();
    compareTab_ = compare;
    split->addWidget(plot_);
    split->addWidget(treeTabs_);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({1000, 1000}); // half each, whatever the widgets' size hints
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(status_);
    layout->addWidget(split, 1);
    layout->addLayout(results);

    redraw_ = new QTimer(this);
    redraw_->setSingleShot(true);
    redraw_->setInterval(150); // accepted moves can come faster than a large tree redraws
    connect(redraw_, &QTimer::timeout, this, [this] {
        if (!pendingNewick_.isEmpty()) showTree(std::exchange(pendingNewick_, QString()));
        replot();
    });
    connect(strategy_, &QComboBox::currentIndexChanged, this, [this] {
        updateRefusal();
        emit settingsChanged();
    });
    connect(speciationOrder_, &QCheckBox::toggled, this, [this] {
        updateRefusal();
        emit settingsChanged();
    });
    connect(startFrom_, &QComboBox::currentIndexChanged, this, &SearchPanel::settingsChanged);
    for (QSpinBox* box : {radius_, seed_, prescreen_})
        connect(box, &QSpinBox::valueChanged, this, &SearchPanel::settingsChanged);
    for (QDoubleSpinBox* box : {sprCutoff_, sprMemory_, prescreenConfirm_})
        connect(box, &QDoubleSpinBox::valueChanged, this, &SearchPanel::settingsChanged);
    connect(start_, &QPushButton::clicked, this, &SearchPanel::startRequested);
    connect(pause_, &QPushButton::clicked, this, [this] {
        if (run_.paused())
            run_.resume();
        else
            run_.pause();
    });
    connect(stop_, &QPushButton::clicked, this, [this] { run_.stop(); });
    connect(save_, &QPushButton::clicked, this, [this] { emit saveRequested(best_.bestNewick); });
    connect(adopt_, &QPushButton::clicked, this, [this] { emit adoptRequested(best_.bestNewick); });
    connect(colourBy_, &QComboBox::currentIndexChanged, this, [this] { applyColouring(); });
    connect(compareWith_, &QComboBox::activated, this, [this](int index) {
        if (index == 0) return compareWithStartTree();
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Compare with a species tree"), {},
                                         tr("Newick trees (*.nwk *.newick *.tree *.tre);;All files (*)"));
        if (path.isEmpty() || !compareWithFile(path)) // the drawing stays: so does its choice
            compareWith_->setCurrentIndex(comparedWith_);
    });
    connect(treeTabs_, &QTabWidget::currentChanged, this, [this] {
        everyName_->setVisible(treeTabs_->currentWidget() == compareTab_);
        updateComparison();
    });
    connect(plot_, &QCustomPlot::mousePress, this, [this] { userView_ = true; });
    connect(plot_, &QCustomPlot::mouseWheel, this, [this] { userView_ = true; });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] {
        userView_ = false;
        replot();
    });
    connect(&run_, &SearchRun::started, this, [this] {
        steps_ = 0;
        best_ = {};
        userView_ = false;
        for (int g : {kCandidates, kCurrent, kScreened})
            plot_->graph(g)->data()->clear();
        if (prescreen_->value() > 0)
            plot_->graph(kScreened)->addToLegend();
        else
            plot_->graph(kScreened)->removeFromLegend();
        status_->setText(tr("Scoring the loaded tree…"));
        const QSignalBlocker block(colourBy_);
        colourBy_->clear();
        updateButtons();
    });
    connect(&run_, &SearchRun::stepFinished, this, &SearchPanel::onStep);
    connect(&run_, &SearchRun::pausedChanged, this, [this](bool paused) {
        pause_->setText(paused ? tr("Resume") : tr("Pause"));
        if (paused) status_->setText(tr("Paused after %1 candidates. %2").arg(steps_).arg(status_->text()));
        updateButtons();
    });
    connect(&run_, &SearchRun::finished, this, &SearchPanel::onFinished);
    updateRefusal();
}

SearchPanel::~SearchPanel() {
    view_->setTree(nullptr); // before the tree it draws goes
}

QString SearchPanel::introduction() {
    return tr("Searches the species tree that makes the families most likely, from the tree chosen in "
              "Start from, at the rates of the Run panel.");
}

void SearchPanel::setDataAvailable(bool available, const QString& refusal, TransferConstraint constraint) {
    dataAvailable_ = available;
    refusal_ = refusal;
    constraint_ = constraint;
    updateRefusal();
}

QString SearchPanel::engineRefusal(bool inferSpeciationOrder) const {
    try {
        requireSearchAllowed(parseSearchStrategy(strategy_->currentData().toString().toStdString()),
                             constraint_, inferSpeciationOrder);
    } catch (const std::invalid_argument& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QString SearchPanel::refusal() const {
    return refusal_.isEmpty() ? engineRefusal(speciationOrder_->isChecked()) : refusal_;
}

void SearchPanel::updateRefusal() {
    // Greyed and off where the engine refuses it (as the Open data dialog's options), with its message.
    const QString noOrder = engineRefusal(true);
    if (!noOrder.isEmpty() && speciationOrder_->isChecked()) {
        const QSignalBlocker block(speciationOrder_);
        speciationOrder_->setChecked(false);
    }
    speciationOrder_->setToolTip(noOrder.isEmpty() ? tr(kSpeciationOrderTip)
                                                   : tr("Unavailable: %1").arg(noOrder));
    const QString now = refusal();
    if (now != shownRefusal_) status_->setText(now.isEmpty() ? introduction() : now);
    shownRefusal_ = now;
    updateButtons();
}

SearchStart SearchPanel::startFrom() const {
    return static_cast<SearchStart>(startFrom_->currentData().toInt());
}

void SearchPanel::restoreSettings(const SpeciesSearchSettings& settings, SearchStart from) {
    if (const int index = strategy_->findData(QString::fromStdString(toString(settings.strategy)));
        index >= 0)
        strategy_->setCurrentIndex(index);
    radius_->setValue(settings.maxRadius);
    sprCutoff_->setValue(settings.sprCutoff);
    sprMemory_->setValue(settings.sprMemory);
    seed_->setValue(
        static_cast<int>(std::min<std::uint64_t>(settings.seed, std::numeric_limits<int>::max())));
    prescreen_->setValue(static_cast<int>(std::lround(100 * settings.prescreen)));
    prescreenConfirm_->setValue(settings.prescreenConfirm);
    if (const int index = startFrom_->findData(int(from)); index >= 0) startFrom_->setCurrentIndex(index);
    speciationOrder_->setChecked(settings.inferSpeciationOrder && engineRefusal(true).isEmpty());
    updateRefusal();
}

QString SearchPanel::startDescription() const {
    switch (startFrom()) {
    case SearchStart::MiniNj:
        return tr("from MiniNJ");
    case SearchStart::Random:
        return tr("from a random tree, seed %1").arg(seed_->value());
    case SearchStart::WorkingTree:
        break;
    }
    return tr("from the working tree");
}

SpeciesSearchSettings SearchPanel::settings() const {
    SpeciesSearchSettings s;
    s.strategy = parseSearchStrategy(strategy_->currentData().toString().toStdString());
    s.maxRadius = radius_->value();
    s.sprCutoff = sprCutoff_->value();
    s.sprMemory = sprMemory_->value();
    s.seed = static_cast<std::uint64_t>(seed_->value());
    s.prescreen = prescreen_->value() / 100.0;
    s.prescreenConfirm = prescreenConfirm_->value();
    s.inferSpeciationOrder = speciationOrder_->isChecked();
    return s;
}

void SearchPanel::start(std::shared_ptr<const Dataset> data, const QString& device, const BatchLimits& limits,
                        const SolverOptions& options, RateParameters start) {
    const SearchStart from = startFrom();
    startTree_.reset(); // a built start tree arrives with the first step
    if (data && from == SearchStart::WorkingTree) {
        startTree_ = data->species;
        showTree(QString::fromStdString(data->species.toNewick(true)));
    }
    run_.start(std::move(data), device, limits, options, std::move(start), settings(), from);
    if (from == SearchStart::MiniNj)
        status_->setText(tr("Building the MiniNJ start tree from the gene trees…"));
}

QString SearchPanel::statusText() const {
    return status_->text();
}

void SearchPanel::onStep(const SearchStepSample& step) {
    ++steps_;
    if (step.index == 0) {
        startLogLikelihood_ = step.logLikelihood;
        if (!startTree_ && !step.bestNewick.isEmpty()) { // MiniNJ or random: drawn as soon as built
            startTree_ =
                SpeciesTree::fromNewick(parseNewick(step.bestNewick.toStdString(), "start tree").at(0));
            showTree(step.bestNewick);
            updateComparison();
        }
    }
    plot_->graph(step.screened ? kScreened : kCandidates)->addData(step.index, step.logLikelihood);
    plot_->graph(kCurrent)->addData(step.index, step.bestLogLikelihood);
    if (!step.bestNewick.isEmpty() && step.index > 0) pendingNewick_ = step.bestNewick;
    status_->setText((step.screened ? tr("Candidate %1 (%2): estimated log-likelihood %3 (pre-screen) · "
                                         "current tree %4 (start %5) · %6 s")
                                    : tr("Candidate %1 (%2): log-likelihood %3 · current tree %4 (start %5) "
                                         "· %6 s"))
                         .arg(step.index)
                         .arg(step.move, nats(step.logLikelihood), nats(step.bestLogLikelihood),
                              nats(startLogLikelihood_), QLocale().toString(step.seconds, 'f', 1)));
    if (!redraw_->isActive()) redraw_->start();
}

void SearchPanel::onFinished(const SearchOutcome& outcome) {
    redraw_->stop();
    pendingNewick_.clear();
    pause_->setText(tr("Pause"));
    if (!outcome.error.isEmpty()) {
        status_->setText(tr("The search failed: %1").arg(outcome.error));
        updateButtons();
        return;
    }
    best_ = outcome;
    showTree(outcome.bestNewick);
    replot();
    QString text =
        tr("%1 after %2 candidates (%3 evaluations%4%5) in %6 s: log-likelihood %7, start %8 "
           "(D %9, L %10, T %11).")
            .arg(outcome.stopped ? tr("Stopped") : tr("Done: no move improves the likelihood"))
            .arg(outcome.steps)
            .arg(outcome.evaluations)
            .arg(outcome.screenedOut > 0 ? tr(", %1 left at the pre-screen").arg(outcome.screenedOut)
                                         : QString())
            .arg(outcome.skipped > 0 ? tr(", %1 skipped as repeats, past the SPR cutoff or by the SPR memory")
                                           .arg(outcome.skipped)
                                     : QString())
            .arg(QLocale().toString(outcome.seconds, 'f', 1), nats(outcome.bestLogLikelihood),
                 nats(outcome.startLogLikelihood), QString::number(outcome.rates.d, 'g', 4),
                 QString::number(outcome.rates.l, 'g', 4), QString::number(outcome.rates.t, 'g', 4));
    status_->setText(text);
    {
        const QSignalBlocker block(colourBy_);
        colourBy_->clear();
        if (!outcome.bootstrap.empty())
            colourBy_->addItem(tr("bootstrap support"), int(Colouring::Bootstrap));
        if (!outcome.rootLlr.empty()) colourBy_->addItem(tr("root position (LLR)"), int(Colouring::RootLlr));
        colourBy_->addItem(tr("clades not in the start tree"), int(Colouring::NewClades));
    }
    applyColouring();
    updateButtons();
}

void SearchPanel::setColouring(Colouring colouring) {
    const int index = colourBy_->findData(int(colouring));
    if (index >= 0) colourBy_->setCurrentIndex(index);
}

void SearchPanel::applyColouring() {
    if (!shown_ || best_.bestNewick.isEmpty() || colourBy_->count() == 0) return;
    const auto colouring = static_cast<Colouring>(colourBy_->currentData().toInt());
    const std::map<QString, double>& byName = colouring == Colouring::Bootstrap ? best_.bootstrap
                                              : colouring == Colouring::RootLlr ? best_.rootLlr
                                                                                : best_.newClade;
    std::vector<double> values(shown_->size(), std::nan(""));
    QStringList tips;
    for (int e = 0; e < shown_->size(); ++e) {
        const QString name = QString::fromStdString(shown_->name(e));
        auto it = byName.find(name);
        if (it != byName.end()) values[e] = it->second;
        if (it == byName.end())
            tips << name;
        else if (colouring == Colouring::Bootstrap)
            tips << tr("%1: bootstrap support %2 %").arg(name).arg(std::round(100 * it->second));
        else if (colouring == Colouring::RootLlr)
            tips << tr("%1: the root on this branch is %2 nats less likely than the best root")
                        .arg(name, nats(-it->second));
        else
            tips << (it->second > 0 ? tr("%1: a clade the start tree does not have").arg(name)
                                    : tr("%1: also in the start tree").arg(name));
    }
    if (colouring == Colouring::RootLlr)
        view_->setValues(values, ColourScale::fit(values, false), tr("root here: log-likelihood ratio"));
    else
        view_->setValues(values, ColourScale(0.0, 1.0, false),
                         colouring == Colouring::Bootstrap ? tr("bootstrap support")
                                                           : tr("clade not in the start tree (1)"));
    view_->setToolTips(tips);
    if (!view_->userZoomed()) view_->fitAll(); // with its legend now: no branch under it
}

void SearchPanel::showTree(const QString& newick) {
    auto tree = std::make_unique<SpeciesTree>(
        SpeciesTree::fromNewick(parseNewick(newick.toStdString(), "search").front()));
    view_->setTree(tree.get());
    shown_ = std::move(tree);
    if (!view_->userZoomed()) view_->fitAll();
    updateComparison();
}

bool SearchPanel::compareWithFile(const QString& path) {
    try {
        SpeciesTree tree = SpeciesTree::readFile(path.toStdString());
        if (shown_)
            (void)layoutTanglegram(tree, *shown_); // other species: refused before it replaces anything
        fileTree_ = std::move(tree);
        fileTreeName_ = QFileInfo(path).fileName();
    } catch (const std::exception& e) {
        compareSummary_->setText(tr("Cannot compare with %1: %2").arg(QFileInfo(path).fileName(), e.what()));
        return false;
    }
    if (compareWith_->count() < 3) compareWith_->addItem(QString());
    compareWith_->setItemText(2, fileTreeName_);
    compareWith_->setCurrentIndex(2);
    updateComparison();
    return true;
}

void SearchPanel::compareWithStartTree() {
    compareWith_->setCurrentIndex(0);
    updateComparison();
}

void SearchPanel::updateComparison() {
    const bool withFile = compareWith_->currentIndex() == 2 && fileTree_;
    comparedWith_ = withFile ? 2 : 0;
    if (treeTabs_->currentWidget() != compareTab_) return; // laid out when shown
    const std::optional<SpeciesTree>& other = withFile ? fileTree_ : startTree_;
    if (!shown_ || !other) {
        tanglegram_->clear();
        compareSummary_->clear();
        return;
    }
    const QString mine = run_.running() || best_.bestNewick.isEmpty() ? tr("Current tree") : tr("Best tree");
    try {
        tanglegram_->setTrees(*other, withFile ? fileTreeName_ : tr("Start tree"), *shown_, mine);
        compareSummary_->setText(tanglegram_->summary());
    } catch (const std::exception& e) {
        tanglegram_->clear();
        compareSummary_->setText(tr("Cannot compare: %1").arg(e.what()));
    }
}

void SearchPanel::replot() {
    if (!userView_) {
        plot_->rescaleAxes();
        plot_->yAxis->scaleRange(1.1); // the current tree's line off the frame
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void SearchPanel::updateButtons() {
    const bool running = run_.running();
    // Pause and Stop first: a click on Start disables it, and focus moves on to Pause.
    pause_->setEnabled(running);
    stop_->setEnabled(running);
    start_->setEnabled(dataAvailable_ && refusal().isEmpty() && !running);
    strategy_->setEnabled(!running);
    speciationOrder_->setEnabled(!running && engineRefusal(true).isEmpty());
    radius_->setEnabled(!running);
    sprCutoff_->setEnabled(!running);
    sprMemory_->setEnabled(!running);
    startFrom_->setEnabled(!running);
    seed_->setEnabled(!running);
    prescreen_->setEnabled(!running);
    prescreenConfirm_->setEnabled(!running);
    const bool haveBest = !running && !best_.bestNewick.isEmpty();
    save_->setEnabled(haveBest);
    colourBy_->setEnabled(haveBest && colourBy_->count() > 0);
    adopt_->setEnabled(haveBest && dataAvailable_);
}

} // namespace gpurec::ui
