#include "panels/species_tree_panel.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QStandardItemModel>
#include <QStringListModel>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

namespace gpurec::ui {

namespace {
QToolButton* toolButton(const QString& text, const QString& tip, const QString& name) {
    auto* b = new QToolButton;
    b->setText(text);
    b->setToolTip(tip);
    b->setAccessibleName(tip);
    b->setObjectName(name);
    b->setAutoRaise(true);
    return b;
}

QString formatNumber(double v) {
    return std::isnan(v) ? QString("–") : QString::number(v, 'g', 4);
}
} // namespace

SpeciesTreePanel::SpeciesTreePanel(QWidget* parent) : QWidget(parent) {
    view_ = new SpeciesTreeView;
    view_->setObjectName("speciesTreeView");
    colourBy_ = new ElidingComboBox;
    colourBy_->setObjectName("colourBy");
    for (SpeciesQuantity q : allQuantities())
        colourBy_->addItem(quantityName(q), static_cast<int>(q));
    colourBy_->setToolTip(tr("Colour the branches by this quantity; hover a branch for its values"));
    colourBy_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon); // long names elide
    colourBy_->setMinimumContentsLength(9);
    search_ = new QLineEdit;
    search_->setObjectName("speciesSearch");
    search_->setPlaceholderText(tr("Search species…"));
    search_->setClearButtonEnabled(true);
    search_->setMinimumWidth(80);
    search_->setAccessibleName(tr("Search species"));
    search_->setToolTip(tr(
        "Type part of a species or internal node name: matches are shown in red and the first is selected; "
        "Enter selects the next match"));
    names_ = new QStringListModel(this);
    auto* completer = new QCompleter(names_, this);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    search_->setCompleter(completer);
    searchResult_ = new QLabel;
    searchResult_->setObjectName("searchResult");
    internalNames_ = new QCheckBox(tr("Internal names"));
    internalNames_->setObjectName("internalNames");
    internalNames_->setAccessibleName(tr("Show internal node names"));
    internalNames_->setToolTip(tr("Show the names of the internal nodes"));
    circular_ = new QCheckBox(tr("Circular"));
    circular_->setObjectName("circularLayout");
    circular_->setAccessibleName(tr("Circular layout"));
    circular_->setToolTip(tr("Draw the tree around a circle instead of as a rectangular cladogram"));
    fitSelection_ = new QAction(tr("Fit selection"), this);
    fitSelection_->setObjectName("fitSelectionAction");
    fitSelection_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    fitSelection_->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    fitSelection_->setToolTip(tr("Zoom to the selected clade (%1)")
                                  .arg(fitSelection_->shortcut().toString(QKeySequence::NativeText)));
    addAction(fitSelection_);
    auto* fitSelection = new QToolButton;
    fitSelection->setDefaultAction(fitSelection_);
    fitSelection->setObjectName("fitSelection");
    fitSelection->setAccessibleName(tr("Fit to selection"));
    fitSelection->setAutoRaise(true);
    auto* fit = toolButton(tr("Fit"), tr("Zoom to fit the whole tree"), "fitTree");
    auto* zoomIn = toolButton(tr("+"), tr("Zoom in (or use the mouse wheel)"), "zoomIn");
    auto* zoomOut = toolButton(tr("−"), tr("Zoom out"), "zoomOut");
    auto* exportButton = toolButton(tr("Export…"), tr("Save the drawing as SVG or PNG"), "exportTree");

    // Rows rather than a toolbar, which hides what does not fit behind a chevron; short rows, so the
    // panel stays narrow at scale factor 1.5.
    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(search_, 1);
    searchRow->addWidget(searchResult_);
    auto* zoomRow = new QHBoxLayout;
    for (QWidget* w : std::initializer_list<QWidget*>{zoomIn, zoomOut, fit, fitSelection})
        zoomRow->addWidget(w);
    zoomRow->addStretch(1);
    info_ = new QLabel(tr("Click a branch to select a species; double-click to collapse a clade; drag to "
                          "pan, wheel to zoom."));
    info_->setObjectName("speciesInfo");
    info_->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    auto* colourRow = new QHBoxLayout; // Export beside the menu keeps the rows short (scale factor 1.5)
    colourRow->addWidget(colourBy_, 1);
    colourRow->addWidget(exportButton);
    layout->addLayout(colourRow);
    layout->addLayout(searchRow);
    auto* optionsRow = new QHBoxLayout;
    optionsRow->addWidget(internalNames_);
    optionsRow->addWidget(circular_);
    optionsRow->addStretch(1);
    layout->addLayout(optionsRow);
    layout->addLayout(zoomRow);
    layout->addWidget(view_, 1);
    layout->addWidget(info_);

    connect(colourBy_, &QComboBox::currentIndexChanged, this, [this] { requestValues(); });
    connect(search_, &QLineEdit::textChanged, this, [this](const QString& text) {
        std::vector<int> found = view_->search(text);
        searchResult_->setText(text.isEmpty() ? QString()
                                              : tr("%n match(es)", nullptr, static_cast<int>(found.size())));
    });
    connect(search_, &QLineEdit::returnPressed, this, &SpeciesTreePanel::searchNext);
    connect(completer, qOverload<const QString&>(&QCompleter::activated), this,
            [this](const QString& name) { view_->search(name); }); // the exact name comes first
    connect(internalNames_, &QCheckBox::toggled, view_, &SpeciesTreeView::setInternalNamesVisible);
    connect(circular_, &QCheckBox::toggled, view_, &SpeciesTreeView::setCircular);
    connect(fitSelection_, &QAction::triggered, view_, &SpeciesTreeView::fitToSelection);
    connect(fit, &QToolButton::clicked, view_, &SpeciesTreeView::fitAll);
    connect(zoomIn, &QToolButton::clicked, this, [this] { view_->zoomBy(1.25); });
    connect(zoomOut, &QToolButton::clicked, this, [this] { view_->zoomBy(0.8); });
    connect(exportButton, &QToolButton::clicked, this, &SpeciesTreePanel::exportTree);
    connect(view_, &SpeciesTreeView::speciesSelected, this, [this](int node) {
        updateSelectionInfo(node);
        emit speciesSelected(node);
    });
    connect(&watcher_, &QFutureWatcher<SpeciesValues>::finished, this, [this] {
        showResult(watcher_.result());
        if (pending_) requestValues();
    });
}

void SpeciesTreePanel::setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables) {
    data_ = std::move(data);
    tables_ = std::move(tables);
    theta_ = {}; // the session sends the new dataset's rates
    events_.reset();
    family_ = cladeFamily_ = clade_ = -1;
    category_ = 0; // the Run panel shows the first category of new data
    shown_ = {};
    view_->setTree(data_ ? &data_->species : nullptr);
    QStringList names;
    if (data_)
        for (const std::string& name : data_->species.names())
            names << QString::fromStdString(name);
    names.sort(Qt::CaseInsensitive);
    names_->setStringList(names);
    search_->clear();
    requestValues();
}

void SpeciesTreePanel::setCircular(bool circular) {
    circular_->setChecked(circular); // the view follows through toggled
}

void SpeciesTreePanel::searchNext() {
    const QString text = search_->text();
    if (text.isEmpty()) return;
    const int exact = data_ ? data_->species.find(text.toStdString()) : -1;
    if (exact >= 0 && view_->selectedSpecies() != exact) { // the named node, whatever was selected
        view_->selectSpecies(exact);
        return;
    }
    if (exact >= 0) return; // stays on the named node
    const int index = view_->selectNextMatch();
    if (index < 0) {
        const QString message = tr("No species or node named “%1”").arg(text);
        searchResult_->setText(tr("no match")); // short: a long name must not widen the panel
        info_->setText(message);
        QToolTip::showText(search_->mapToGlobal(QPoint(0, search_->height())), message, search_);
        return;
    }
    searchResult_->setText(tr("%1 of %2").arg(index + 1).arg(view_->matchCount()));
}

void SpeciesTreePanel::setParameters(const RateParameters& theta) {
    theta_ = theta;
    // Origination weights are there to colour by under --origination OPTIMIZE only.
    auto* weights = static_cast<QStandardItemModel*>(colourBy_->model())
                        ->item(colourBy_->findData(static_cast<int>(SpeciesQuantity::OriginationWeight)));
    weights->setEnabled(theta.optimizesOrigination());
    weights->setToolTip(theta.optimizesOrigination()
                            ? tr("The fitted weight of each species node as a family's origin, normalised "
                                 "to sum to 1 (model_parameters.txt's O column)")
                            : tr("Only with OPTIMIZE origination (File ▸ Open data, Families originate)"));
    if (quantity() != SpeciesQuantity::None && quantity() != SpeciesQuantity::GeneCount)
        requestValues();
    else
        updateToolTips();
}

void SpeciesTreePanel::setSolverOptions(const SolverOptions& options) {
    options_ = options;
}

void SpeciesTreePanel::setCategory(int category) {
    category_ = category;
    if (quantity() == SpeciesQuantity::Extinction || quantity() == SpeciesQuantity::CladeProbability)
        requestValues();
}

void SpeciesTreePanel::setSelectedFamily(int family) {
    family_ = family;
    requestValues();
}

void SpeciesTreePanel::showClade(int family, int clade) {
    cladeFamily_ = family;
    clade_ = clade;
    if (quantity() == SpeciesQuantity::CladeProbability)
        requestValues();
    else
        setQuantity(SpeciesQuantity::CladeProbability);
}

void SpeciesTreePanel::setEventSummary(std::shared_ptr<const ReconciliationSummary> events) {
    events_ = std::move(events);
    if (quantity() >= SpeciesQuantity::SampledDuplications) requestValues();
}

void SpeciesTreePanel::setQuantity(SpeciesQuantity quantity) {
    colourBy_->setCurrentIndex(colourBy_->findData(static_cast<int>(quantity)));
}

SpeciesQuantity SpeciesTreePanel::quantity() const {
    return static_cast<SpeciesQuantity>(colourBy_->currentData().toInt());
}

void SpeciesTreePanel::requestValues() {
    if (watcher_.isRunning()) {
        pending_ = true; // restarted with the newest request once the running one is shown
        return;
    }
    pending_ = false;
    QuantityRequest request;
    request.quantity = quantity();
    request.data = data_;
    request.tables = tables_;
    request.theta = theta_;
    request.options = options_;
    const bool clade = request.quantity == SpeciesQuantity::CladeProbability;
    request.family = clade ? cladeFamily_ : family_;
    request.clade = clade ? clade_ : -1;
    request.category = category_;
    request.events = events_;
    watcher_.setFuture(QtConcurrent::run(computeSpeciesValues, request));
}

void SpeciesTreePanel::showResult(const SpeciesValues& values) {
    shown_ = values;
    if (values.quantity == SpeciesQuantity::None || !values.error.isEmpty() || values.values.empty()) {
        view_->setValues({}, {}, {});
        if (!values.error.isEmpty()) info_->setText(quantityName(values.quantity) + ": " + values.error);
    } else {
        view_->setValues(values.values, ColourScale::fit(values.values, values.logarithmic), values.title);
    }
    updateToolTips();
    emit valuesShown(values.quantity);
}

void SpeciesTreePanel::updateToolTips() {
    if (!data_) return;
    const SpeciesTree& tree = data_->species;
    const bool haveValues = shown_.values.size() == static_cast<std::size_t>(tree.size()) &&
                            shown_.quantity != SpeciesQuantity::None && shown_.error.isEmpty();
    const int rateFamily = family_ >= 0 ? family_ : 0;
    const std::vector<double> origin = normalisedOriginWeights(theta_);
    QStringList tips;
    for (int e = 0; e < tree.size(); ++e) {
        QString tip = QString("<b>%1</b><br>%2 (node %3)")
                          .arg(QString::fromStdString(tree.name(e)).toHtmlEscaped(),
                               tree.isLeaf(e) ? tr("leaf") : tr("internal node"))
                          .arg(e);
        if (haveValues)
            tip += QString("<br>%1: %2").arg(shown_.title.toHtmlEscaped(), formatNumber(shown_.values[e]));
        if (fitsDataset(theta_, *data_)) {
            Rates r = theta_.rates(theta_.row(rateFamily, e));
            tip += QString("<br>rates D %1, L %2, T %3")
                       .arg(formatNumber(r.d), formatNumber(r.l), formatNumber(r.t));
            if (!origin.empty()) tip += tr("<br>origination weight O_e %1").arg(formatNumber(origin[e]));
        }
        tips << tip;
    }
    view_->setToolTips(tips);
    updateSelectionInfo(view_->selectedSpecies());
}

void SpeciesTreePanel::updateSelectionInfo(int node) {
    if (!data_ || node < 0) return;
    QString text = view_->toolTipOf(node);
    text.replace("<br>", " · ");
    info_->setText(text);
}

void SpeciesTreePanel::exportTree() {
    QString path =
        QFileDialog::getSaveFileName(this, tr("Export species tree"), "species_tree.svg",
                                     tr("SVG drawing (*.svg);;PDF document (*.pdf);;PNG image (*.png)"));
    if (path.isEmpty()) return;
    if (!view_->exportDrawing(path))
        QMessageBox::warning(this, tr("Export failed"), tr("Could not write %1").arg(path));
}

} // namespace gpurec::ui
