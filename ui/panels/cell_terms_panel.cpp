#include "panels/cell_terms_panel.hpp"

#include "panels/clade_label.hpp"
#include "panels/number_text.hpp"
#include "views/species_quantities.hpp"
#include "worker/table_requests.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {

QString value(double v) {
    return QString::number(v, 'g', 6);
}

QString percent(double share) {
    return (share >= 0.01 ? QString::number(100.0 * share, 'f', 2) : QString::number(100.0 * share, 'g', 3)) +
           " %";
}

QTableWidget* termTable(const QString& name, const QStringList& headers) {
    auto* table = new QTableWidget(0, static_cast<int>(headers.size()));
    table->setObjectName(name);
    table->setAccessibleName(name);
    table->setHorizontalHeaderLabels(headers);
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->verticalHeader()->hide();
    table->verticalHeader()->setDefaultSectionSize(table->fontMetrics().height() + 6);
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setStretchLastSection(true);
    // A header and four compact rows at least: the bottom dock is short.
    table->setMinimumHeight(table->fontMetrics().height() * 6);
    return table;
}

void setRow(QTableWidget* table, int row, const QStringList& cells) {
    for (int c = 0; c < static_cast<int>(cells.size()); ++c)
        table->setItem(row, c, new QTableWidgetItem(cells[c]));
}

} // namespace

CellTermsResult computeCellTerms(std::shared_ptr<const Dataset> data, const FamilyTablesSource& source,
                                 const RateParameters& theta, const SolverOptions& options, int family,
                                 int clade, int species, int category) {
    CellTermsResult out{data, family, clade, species, category, {}, std::nullopt, std::nullopt, {}};
    try {
        if (!data || species < 0 || species >= data->species.size() || !fitsDataset(theta, *data)) return out;
        out.categoryNote = categoryNote(*data, theta, category);
        const SpeciesLayout layout(*data);
        // E does not depend on the family, except through genewise rates: the selected family's, else the
        // first.
        const int tablesFamily = family >= 0 && family < static_cast<int>(data->families.size()) ? family : 0;
        const FamilyTables tables = categoryTables(source, category)(theta, options, {tablesFamily}).front();
        out.extinction = decomposeExtinctionCell(layout, tables, species);
        if (family >= 0 && clade >= 0)
            out.cell = decomposeCladeCell(layout, data->families[family], tables, clade, species);
    } catch (const std::exception& e) {
        out.error = QString::fromStdString(e.what());
    }
    return out;
}

CellTermsPanel::CellTermsPanel(QWidget* parent) : QWidget(parent) {
    caption_ = new QLabel(tr("Select a clade in the clade-waves view and a branch of the species tree to "
                             "see how Π(clade, branch) is made of its terms."));
    caption_->setObjectName("cellCaption");
    caption_->setWordWrap(true);
    caption_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    cladeTable_ =
        termTable(tr("Terms of Π"), {tr("Event"), tr("Split"), tr("Value"), tr("Share"), tr("Term")});
    extinctionCaption_ = new QLabel;
    extinctionCaption_->setObjectName("extinctionCaption");
    extinctionCaption_->setWordWrap(true);
    extinctionTable_ = termTable(tr("Terms of E"), {tr("Term"), tr("Value"), tr("Share"), tr("Equation")});
    // Side by side: the bottom dock is wide and short.
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(caption_);
    auto* columns = new QHBoxLayout;
    columns->addWidget(cladeTable_, 3);
    auto* extinction = new QVBoxLayout;
    extinction->addWidget(extinctionCaption_);
    extinction->addWidget(extinctionTable_, 1);
    columns->addLayout(extinction, 2);
    layout->addLayout(columns, 1);
    debounce_.setSingleShot(true);
    debounce_.setInterval(200);
    connect(&debounce_, &QTimer::timeout, this, &CellTermsPanel::request);
    connect(&watcher_, &QFutureWatcher<CellTermsResult>::finished, this, [this] {
        const CellTermsResult result = watcher_.result();
        // A result for what is still selected is shown; anything else was overtaken by a newer request.
        if (result.data == data_ && result.family == family_ && result.clade == clade_ &&
            result.species == species_ && result.category == category_)
            display(result);
        if (again_) {
            again_ = false;
            request();
        }
    });
}

void CellTermsPanel::setDataset(std::shared_ptr<const Dataset> data, FamilyTablesSource tables) {
    data_ = std::move(data);
    tables_ = std::move(tables);
    family_ = clade_ = species_ = -1;
    category_ = 0; // the Run panel shows the first category of new data
    shown_.reset();
    cladeTable_->setRowCount(0);
    extinctionTable_->setRowCount(0);
    extinctionCaption_->clear();
}

void CellTermsPanel::setParameters(const RateParameters& theta) {
    theta_ = theta;
    debounce_.start();
}

void CellTermsPanel::setSolverOptions(const SolverOptions& options) {
    options_ = options;
    debounce_.start();
}

void CellTermsPanel::setClade(int family, int clade) {
    family_ = family;
    clade_ = clade;
    request();
}

void CellTermsPanel::setSpecies(int node) {
    species_ = node;
    request();
}

void CellTermsPanel::setCategory(int category) {
    category_ = category;
    request();
}

QString CellTermsPanel::caption() const {
    return caption_->text();
}

void CellTermsPanel::request() {
    if (watcher_.isRunning()) {
        again_ = true;
        return;
    }
    watcher_.setFuture(QtConcurrent::run(computeCellTerms, data_, tables_, theta_, options_, family_, clade_,
                                         species_, category_));
}

void CellTermsPanel::display(const CellTermsResult& r) {
    shown_ = r;
    cladeTable_->setRowCount(0);
    extinctionTable_->setRowCount(0);
    if (!r.error.isEmpty()) {
        caption_->setText(tr("Cannot take the cell apart: %1").arg(r.error));
        emit updated();
        return;
    }
    if (!r.data || r.species < 0) {
        caption_->setText(
            tr("Select a branch of the species tree (and a clade in the clade-waves view) to see "
               "how its probabilities are made of their terms."));
        emit updated();
        return;
    }
    const Dataset& d = *r.data;
    const QString species = QString::fromStdString(d.species.name(r.species));
    if (r.cell) {
        const CladeCellDecomposition& c = *r.cell;
        const CladeSet& cs = d.families[r.family].clades;
        const double stored = std::ldexp(c.storedScaled, c.scale);
        caption_->setText(
            tr("Π(γ, e) of clade %1 %2 of family %3 at %4%5 = %6 (row scale 2^%7); its %8 terms, "
               "largest first, add up to %9. Splits γ → γ′ γ″ with weight w; f, g: the children of e.")
                .arg(r.clade)
                .arg(cladeLabel(cs, r.clade), QString::fromStdString(d.families[r.family].name), species,
                     r.categoryNote, value(stored))
                .arg(c.scale)
                .arg(c.terms.size())
                .arg(value(std::ldexp(c.sumScaled(), c.scale))));
        std::vector<CellTerm> largestFirst = c.terms;
        std::stable_sort(largestFirst.begin(), largestFirst.end(),
                         [](const CellTerm& a, const CellTerm& b) { return a.scaled > b.scaled; });
        cladeTable_->setRowCount(static_cast<int>(largestFirst.size()));
        for (int i = 0; i < static_cast<int>(largestFirst.size()); ++i) {
            const CellTerm& t = largestFirst[i];
            QString split = "–";
            if (t.split >= 0) {
                const CladeSplit& sp = cs.splits[t.split];
                split = QString("%1 + %2 (w %3)").arg(sp.left).arg(sp.right).arg(value(sp.weight));
            }
            setRow(cladeTable_, i,
                   {QString::fromStdString(eventName(t.kind)), split, value(c.value(t)), percent(c.share(t)),
                    QString::fromStdString(termEquation(t.kind))});
        }
    } else {
        caption_->setText(
            tr("Select a clade in the clade-waves view to take Π(clade, %1) apart.").arg(species));
    }
    if (r.extinction) {
        const ExtinctionCellDecomposition& x = *r.extinction;
        extinctionCaption_->setText(
            tr("E(%1)%2 = %3 (no observed copy); Ē(%1) = %4, its mean over %5 recipients.")
                .arg(species, r.categoryNote, value(x.stored), value(x.barStored))
                .arg(x.recipients.size()));
        const std::pair<QString, std::pair<double, QString>> rows[] = {
            {tr("loss"), {x.loss, "pL(e)"}},
            x.leaf ? std::pair{tr("gene present but not sampled"),
                               std::pair{x.speciation, QString("pS(e) · fm(e)")}}
                   : std::pair{tr("speciation, both children lost"),
                               std::pair{x.speciation, QString("pS(e) · E(f) E(g)")}},
            {tr("duplication, both copies lost"), {x.duplication, "pD(e) · E(e)²"}},
            {tr("transfer, both copies lost"), {x.transferLoss, "pT(e) · E(e) Ē(e)"}}};
        extinctionTable_->setRowCount(4);
        int row = 0;
        for (const auto& [name, term] : rows)
            setRow(
                extinctionTable_, row++,
                {name, value(term.first), percent(x.stored > 0 ? term.first / x.stored : 0.0), term.second});
    }
    emit updated();
}

} // namespace gpurec::ui
