// Linked views of the workbench, driven like a user on the teaching sample after sampling: a click
// on a transfer-matrix cell highlights exactly those transfers in the drawing and lists the families
// carrying them (with the core's frequencies); a click on a species branch filters the families
// table to the families with events on that branch; several selected families are drawn in
// distinct colours, one family's gene lineages each in its own; selecting a family draws its
// consensus with the fraction of samples holding each event; the tables stay readable at 1600×1000.
#include "gui_test_support.hpp"
#include "panels/families_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "recon/consensus.hpp"
#include "recon/recon_summary.hpp"
#include "window/workbench_window.hpp"

#include <QComboBox>
#include <QGraphicsPathItem>
#include <QHeaderView>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSlider>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <cmath>
#include <set>

using namespace gpurec;
using namespace gpurec::ui;
using test::kGuiTimeoutMs;
using test::loadInto;
using test::teachingRequest;

namespace {

// Clicks the cell `index` of a visible item view where it is drawn, with `modifiers`.
bool clickCell(QAbstractItemView* view, const QModelIndex& index, Qt::KeyboardModifiers modifiers = {}) {
    QCoreApplication::processEvents(); // a tab just brought forward is laid out first
    view->scrollTo(index);
    QCoreApplication::processEvents();
    const QRect rect = view->visualRect(index);
    if (!view->isVisible() || !view->viewport()->visibleRegion().contains(rect.center())) {
        qWarning("cell %d,%d of %s is not on screen", index.row(), index.column(),
                 qPrintable(view->objectName()));
        return false;
    }
    QTest::mouseClick(view->viewport(), Qt::LeftButton, modifiers, rect.center());
    return true;
}

// Selects families (dataset indices) by clicking their rows (Ctrl+click for the next ones).
bool clickFamilies(WorkbenchWindow& w, const std::vector<int>& families) {
    QTableView* table = w.familiesPanel()->table();
    auto* proxy = static_cast<QSortFilterProxyModel*>(table->model());
    for (std::size_t k = 0; k < families.size(); ++k) {
        const QModelIndex index = proxy->mapFromSource(w.familiesPanel()->model()->index(families[k], 0));
        if (!index.isValid() || !clickCell(table, index, k == 0 ? Qt::NoModifier : Qt::ControlModifier))
            return false;
    }
    return w.familiesPanel()->selectedFamilies() == families;
}

// Selects the families by clicking their rows and samples them with the Sample button.
bool sampleByClicks(WorkbenchWindow& w, const std::vector<int>& families, int samples) {
    if (!clickFamilies(w, families)) return false;
    ReconciliationPanel* panel = w.reconciliationPanel();
    panel->findChild<QSpinBox*>("sampleCount")->setValue(samples);
    QSignalSpy sampled(panel, &ReconciliationPanel::sampled);
    if (!test::click(panel->findChild<QPushButton*>("sampleButton"))) return false;
    return test::waitForCount(sampled, 1) && sampled.at(0).at(0).toBool();
}

// T and TL events donor → recipient in a reconciliation.
int transfersBetween(const Reconciliation& r, int donor, int recipient) {
    int n = 0;
    for (const ReconNode& node : r.nodes)
        for (const ReconEvent& e : node.events)
            n += (e.type == EventType::Transfer || e.type == EventType::TransferLoss) && e.species == donor &&
                 e.recipient == recipient;
    return n;
}

// The genes below every gene node (a loss node: its parent's), by names: the test's own route to
// what identifies an event across samples.
std::vector<std::set<std::string>> genesBelow(const Reconciliation& r) {
    std::vector<std::set<std::string>> genes(r.nodes.size());
    std::vector<int> order{r.root};
    for (std::size_t k = 0; k < order.size(); ++k)
        for (int c : r.nodes[order[k]].children)
            order.push_back(c);
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        if (r.nodes[*it].children.empty() && !r.nodes[*it].name.empty()) genes[*it].insert(r.nodes[*it].name);
        for (int c : r.nodes[*it].children)
            genes[*it].insert(genes[c].begin(), genes[c].end());
    }
    for (std::size_t n = 0; n < r.nodes.size(); ++n)
        if (genes[n].empty() && r.nodes[n].parent >= 0) genes[n] = genes[r.nodes[n].parent];
    return genes;
}

using Event = std::tuple<std::set<std::string>, EventType, int, int>;
std::set<Event> eventsOf(const Reconciliation& r) {
    std::set<Event> out;
    const auto genes = genesBelow(r);
    for (std::size_t n = 0; n < r.nodes.size(); ++n)
        for (const ReconEvent& e : r.nodes[n].events)
            out.insert({genes[n], e.type, e.species, e.recipient});
    return out;
}

// A point of the species-tree branch of `node` where a click hits that branch, in viewport pixels.
std::optional<QPoint> branchPoint(SpeciesTreeView* view, int node) {
    const QString tip = view->toolTipOf(node);
    for (QGraphicsItem* item : view->scene()->items()) {
        if (!(item->flags() & QGraphicsItem::ItemIsSelectable) || item->toolTip() != tip) continue;
        const QRectF box = item->sceneBoundingRect();
        for (int i = 1; i < 40; ++i)
            for (int j = 1; j < 8; ++j) {
                const QPointF p(box.left() + box.width() * i / 40.0, box.top() + box.height() * j / 8.0);
                const QPoint at = view->mapFromScene(p);
                if (!view->viewport()->rect().contains(at)) continue;
                const QList<QGraphicsItem*> hit = view->items(at);
                if (!hit.isEmpty() && hit.front() == item) return at;
            }
    }
    return std::nullopt;
}

} // namespace

class GuiLinkedViews : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::isolateSettings("gui_linked_views"); }

    void transferMatrixCellHighlightsArcsAndListsCarriers() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const std::vector<int> families = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
        QVERIFY(sampleByClicks(w, families, 20));
        ReconciliationPanel* panel = w.reconciliationPanel();
        QCOMPARE(panel->groups().size(), families.size()); // all sampled, the first eight drawn
        QCOMPARE(panel->shownGroups().size(), std::size_t(ReconciliationPanel::kMaxFamiliesDrawn));
        const SpeciesTree& species = w.dataset()->species;

        // One sample at a time: the sample with the most transfers over the drawn families.
        int best = 0, most = -1;
        for (int k = 0; k < 20; ++k) {
            int n = 0;
            for (int g : panel->shownGroups()) {
                const EventCounts c = countEvents(panel->groups()[g].samples[k]);
                n += static_cast<int>(c.T + c.TL);
            }
            if (n > most) std::tie(best, most) = std::tuple(k, n);
        }
        QVERIFY(most > 0);
        panel->showSample(best);
        // The drawn pair carried by the most families.
        std::map<std::pair<int, int>, int> drawnPairs;
        for (int g : panel->shownGroups())
            for (const auto& [pair, count] : transferCounts(panel->groups()[g].samples[best]))
                drawnPairs[pair] += static_cast<int>(count);
        const auto [donor, recipient] = drawnPairs.begin()->first;

        TransferMatrix* matrix = panel->transferMatrix();
        w.viewTabs()->setCurrentWidget(panel);
        panel->findChild<QTabWidget*>("reconciliationTables")->setCurrentIndex(1);
        const QModelIndex cell = matrix->cellOf(donor, recipient);
        QVERIFY(cell.isValid());
        QVERIFY(clickCell(matrix, cell));
        QCOMPARE(panel->view()->highlightedDonor(), donor);
        QCOMPARE(panel->view()->highlightedRecipient(), recipient);
        // Exactly the arcs of that pair are highlighted, and they are the drawn transfers donor → recipient.
        int expectedArcs = 0;
        for (int g : panel->shownGroups())
            expectedArcs += transfersBetween(panel->groups()[g].samples[best], donor, recipient);
        const auto highlighted = panel->view()->highlightedArcs();
        QCOMPARE(static_cast<int>(highlighted.size()), expectedArcs);
        for (const QGraphicsItem* arc : highlighted) {
            QCOMPARE(arc->data(ReconciliationView::kDonorRole).toInt(), donor);
            QCOMPARE(arc->data(ReconciliationView::kRecipientRole).toInt(), recipient);
            QCOMPARE(arc->opacity(), 1.0);
        }
        for (const QGraphicsItem* arc : panel->view()->items(ReconciliationView::Arc))
            if (!arc->data(ReconciliationView::kHighlightRole).toBool()) QVERIFY(arc->opacity() < 0.5);

        // The carriers: every sampled family whose samples hold the transfer, with the core's mean
        // per sample and the fraction of samples holding it.
        std::map<QString, std::pair<double, double>> expected;
        for (const ReconciliationGroup& g : panel->groups()) {
            const ReconciliationSummary s = summarize(g.samples, species);
            auto it = s.transfers.find({donor, recipient});
            if (it == s.transfers.end()) continue;
            int holding = 0;
            for (const Reconciliation& r : g.samples)
                holding += transfersBetween(r, donor, recipient) > 0;
            expected[g.name] = {it->second, holding / 20.0};
        }
        QListWidget* carriers = panel->transferCarriers();
        QCOMPARE(carriers->count(), static_cast<int>(expected.size()));
        double previous = INFINITY;
        for (int i = 0; i < carriers->count(); ++i) {
            QListWidgetItem* item = carriers->item(i);
            const ReconciliationGroup& g = panel->groups()[item->data(Qt::UserRole).toInt()];
            QVERIFY(expected.count(g.name));
            QCOMPARE(item->data(Qt::UserRole + 1).toDouble(), expected[g.name].first);
            QCOMPARE(item->data(Qt::UserRole + 2).toDouble(), expected[g.name].second);
            QVERIFY(item->text().startsWith(g.name + ": "));
            QVERIFY(item->text().contains(
                QString("in %1% of samples").arg(100 * expected[g.name].second, 0, 'f', 0)));
            QVERIFY(item->data(Qt::UserRole + 1).toDouble() <= previous); // most frequent first
            previous = item->data(Qt::UserRole + 1).toDouble();
        }
        QVERIFY(panel->findChild<QLabel*>("transferFamiliesTitle")
                    ->text()
                    .contains(QString::fromStdString(species.name(donor) + " → " + species.name(recipient))));

        // Clicking a carrier selects its family in the table and draws its consensus, arcs still highlighted.
        QListWidgetItem* last = carriers->item(carriers->count() - 1);
        const int group = last->data(Qt::UserRole).toInt();
        QVERIFY(clickCell(carriers, carriers->indexFromItem(last)));
        QCOMPARE(w.familiesPanel()->selectedFamilies(), std::vector<int>{panel->groups()[group].family});
        QCOMPARE(panel->shownGroups(), std::vector<int>{group});
        QVERIFY(panel->mode() == ReconciliationPanel::Mode::Consensus);
        const Reconciliation& consensus =
            panel->groups()[group].samples[panel->groups()[group].consensus.sample];
        QCOMPARE(static_cast<int>(panel->view()->highlightedArcs().size()),
                 transfersBetween(consensus, donor, recipient));

        // All samples: the one aggregated arc of each family carrying the pair is highlighted.
        panel->setMode(ReconciliationPanel::Mode::Aggregate);
        panel->setThreshold(0);
        QCOMPARE(static_cast<int>(panel->view()->highlightedArcs().size()), 1);
    }

    void branchClickFiltersTheFamilies() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        const std::vector<int> families = {0, 1, 2, 3, 4, 5, 6, 7};
        QVERIFY(sampleByClicks(w, families, 20));
        ReconciliationPanel* panel = w.reconciliationPanel();
        const SpeciesTree& species = w.dataset()->species;
        std::vector<ReconciliationSummary> summaries;
        for (const ReconciliationGroup& g : panel->groups())
            summaries.push_back(summarize(g.samples, species));
        // The branch that splits the sampled families most evenly by duplications.
        int node = -1, bestBalance = -1;
        for (int e = 0; e < species.size(); ++e) {
            int with = 0;
            for (const ReconciliationSummary& s : summaries)
                with += s.species[e][kDuplications] > 0;
            const int balance = std::min(with, static_cast<int>(families.size()) - with);
            if (balance > bestBalance) std::tie(node, bestBalance) = std::tuple(e, balance);
        }
        QVERIFY(bestBalance > 0);

        FamiliesPanel* familiesPanel = w.familiesPanel();
        SpeciesTreePanel* tree = w.speciesTreePanel();
        { // Before any sampling a branch click filters nothing.
            WorkbenchWindow fresh;
            QVERIFY(test::showActive(fresh));
            QVERIFY(loadInto(fresh, teachingRequest()));
            QSignalSpy clicked(fresh.speciesTreePanel(), &SpeciesTreePanel::speciesSelected);
            fresh.speciesTreePanel()->view()->selectSpecies(node);
            QCOMPARE(clicked.count(), 1);
            QCOMPARE(fresh.familiesPanel()->branchFilter(), -1);
            QVERIFY(!fresh.familiesPanel()->branchChip()->isVisible());
            QCOMPARE(fresh.familiesPanel()->visibleRows(),
                     static_cast<int>(fresh.dataset()->families.size()));
        }
        QVERIFY(test::showActive(w));
        tree->view()->fitAll();
        const std::optional<QPoint> at = branchPoint(tree->view(), node);
        QVERIFY(at);
        QSignalSpy selected(tree, &SpeciesTreePanel::speciesSelected);
        QTest::mouseClick(tree->view()->viewport(), Qt::LeftButton, {}, *at);
        QVERIFY(test::waitForCount(selected, 1));
        QCOMPARE(selected.last().at(0).toInt(), node);
        QCOMPARE(familiesPanel->branchFilter(), node);
        QToolButton* chip = familiesPanel->branchChip();
        QVERIFY(chip->isVisible());
        QVERIFY(chip->text().contains(QString::fromStdString(species.name(node))));

        auto shownFamilies = [&] {
            std::set<int> out;
            QAbstractItemModel* proxy = familiesPanel->table()->model();
            for (int r = 0; r < proxy->rowCount(); ++r)
                out.insert(static_cast<QSortFilterProxyModel*>(proxy)->mapToSource(proxy->index(r, 0)).row());
            return out;
        };
        const std::pair<int, std::vector<int>> kinds[] = {
            {1, {kDuplications}},
            {2, {kTransfers, kTransfersTo}},
            {3, {kLosses}},
            {4, {kSpeciations}},
            {0, {kDuplications, kTransfers, kTransfersTo, kLosses, kSpeciations}}};
        QComboBox* box = familiesPanel->branchEventBox();
        for (const auto& [index, columns] : kinds) {
            box->setCurrentIndex(index);
            std::set<int> expected;
            for (std::size_t g = 0; g < summaries.size(); ++g)
                for (int c : columns)
                    if (summaries[g].species[node][c] > 0) expected.insert(panel->groups()[g].family);
            QCOMPARE(shownFamilies(), expected);
            QVERIFY(chip->text().contains(box->currentText()));
        }
        box->setCurrentIndex(1);
        QVERIFY(shownFamilies().size() < families.size());

        QVERIFY(test::click(chip));
        QCOMPARE(familiesPanel->branchFilter(), -1);
        QVERIFY(!chip->isVisible());
        QCOMPARE(familiesPanel->visibleRows(), static_cast<int>(w.dataset()->families.size()));
    }

    void severalFamiliesInDistinctColoursAndOneFamilysLineages() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(sampleByClicks(w, {3, 4}, 30));
        ReconciliationPanel* panel = w.reconciliationPanel();
        ReconciliationView* view = panel->view();
        QCOMPARE(panel->shownGroups(), (std::vector<int>{0, 1}));
        panel->setMode(ReconciliationPanel::Mode::OneSample);
        QVERIFY(!view->colouredByLineage());
        // Every lineage, arc and aggregated arc in its family's colour; the two colours differ.
        std::map<int, std::set<QRgb>> colours;
        for (const QGraphicsItem* item : view->scene()->items()) {
            const auto* path = dynamic_cast<const QGraphicsPathItem*>(item);
            if (!path || !item->data(ReconciliationView::kDrawnRole).isValid() ||
                item->data(ReconciliationView::kKindRole).toInt() == ReconciliationView::Glyph)
                continue;
            colours[item->data(ReconciliationView::kDrawnRole).toInt()].insert(path->pen().color().rgb());
        }
        QCOMPARE(colours.size(), std::size_t(2));
        QCOMPARE(colours[0], std::set<QRgb>{ReconciliationView::familyColour(0).rgb()});
        QCOMPARE(colours[1], std::set<QRgb>{ReconciliationView::familyColour(1).rgb()});
        QVERIFY(ReconciliationView::familyColour(0) != ReconciliationView::familyColour(1));
        panel->setMode(ReconciliationPanel::Mode::Aggregate);
        panel->setThreshold(0);
        int arcs[2] = {0, 0};
        for (const QGraphicsItem* item : view->items(ReconciliationView::FrequencyArcItem)) {
            const int d = item->data(ReconciliationView::kDrawnRole).toInt();
            ++arcs[d];
            QColor c = static_cast<const QGraphicsPathItem*>(item)->pen().color();
            c.setAlpha(255);
            QCOMPARE(c, ReconciliationView::familyColour(d));
        }
        for (int d = 0; d < 2; ++d)
            QCOMPARE(arcs[d], static_cast<int>(panel->groups()[d].summary.transfers.size()));
        QVERIFY(arcs[0] > 0 && arcs[1] > 0);

        // One family: each gene copy in its own colour. The second child of a duplication starts a
        // new colour, a speciation's children keep their parent's.
        QVERIFY(clickFamilies(w, {4}));
        QCOMPARE(panel->shownGroups(), std::vector<int>{1});
        const ReconciliationGroup& g = panel->groups()[1];
        int withDuplication = -1;
        for (int k = 0; k < 30 && withDuplication < 0; ++k)
            if (countEvents(g.samples[k]).D > 0) withDuplication = k;
        QVERIFY(withDuplication >= 0);
        panel->showSample(withDuplication);
        QVERIFY(view->colouredByLineage());
        const Reconciliation& r = g.samples[withDuplication];
        int duplications = 0, speciations = 0;
        std::set<QRgb> lineageColours;
        for (std::size_t n = 0; n < r.nodes.size(); ++n) {
            const ReconNode& node = r.nodes[n];
            if (const auto pen = view->lineagePen(0, static_cast<int>(n)))
                lineageColours.insert(pen->color().rgb());
            if (node.children.size() != 2 || node.events.empty()) continue;
            const auto left = view->lineagePen(0, node.children[0]),
                       right = view->lineagePen(0, node.children[1]),
                       own = view->lineagePen(0, static_cast<int>(n));
            QVERIFY(left && right && own);
            if (node.events.back().type == EventType::Duplication) {
                ++duplications;
                QCOMPARE(left->color(), own->color());
                QVERIFY(right->color() != own->color() || right->style() != own->style());
            } else if (node.events.back().type == EventType::Speciation) {
                ++speciations;
                QCOMPARE(left->color(), own->color());
                QCOMPARE(right->color(), own->color());
            }
        }
        QVERIFY(duplications > 0 && speciations > 0);
        QVERIFY(lineageColours.size() >= 2);
        // The lines name the genes of their copy.
        for (std::size_t n = 0; n < r.nodes.size(); ++n)
            if (!r.nodes[n].name.empty())
                for (const QGraphicsItem* item : view->scene()->items())
                    if (item->data(ReconciliationView::kKindRole).isNull() &&
                        item->data(ReconciliationView::kDrawnRole).isValid() &&
                        item->toolTip().contains(QString::fromStdString(r.nodes[n].name)))
                        QVERIFY(item->toolTip().contains("copy "));
    }

    void selectedFamilyShowsItsConsensusWithSupports() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(sampleByClicks(w, {2, 5}, 40));
        QVERIFY(clickFamilies(w, {5}));
        ReconciliationPanel* panel = w.reconciliationPanel();
        QVERIFY(panel->mode() == ReconciliationPanel::Mode::Consensus);
        QCOMPARE(panel->shownGroups(), std::vector<int>{1});
        const ReconciliationGroup& g = panel->groups()[1];

        // The test's own supports: the fraction of samples holding each event, by gene names.
        std::map<Event, int> holding;
        std::vector<std::set<Event>> perSample;
        for (const Reconciliation& r : g.samples) {
            perSample.push_back(eventsOf(r));
            for (const Event& e : perSample.back())
                ++holding[e];
        }
        const double n = static_cast<double>(g.samples.size());
        // The consensus is the sample with the largest product of supports (the first among equals).
        int best = -1;
        double bestScore = -INFINITY;
        for (std::size_t s = 0; s < g.samples.size(); ++s) {
            double score = 0;
            const auto genes = genesBelow(g.samples[s]);
            for (std::size_t v = 0; v < g.samples[s].nodes.size(); ++v)
                for (const ReconEvent& e : g.samples[s].nodes[v].events)
                    score += std::log(holding[{genes[v], e.type, e.species, e.recipient}] / n);
            if (score > bestScore + 1e-12) std::tie(best, bestScore) = std::tuple(static_cast<int>(s), score);
        }
        QCOMPARE(g.consensus.sample, best);

        const Reconciliation& consensus = g.samples[best];
        const auto genes = genesBelow(consensus);
        int glyphs = 0, labelled = 0;
        for (const QGraphicsItem* item : panel->view()->items(ReconciliationView::Glyph)) {
            const int v = item->data(ReconciliationView::kNodeRole).toInt();
            const int i = item->data(ReconciliationView::kEventIndexRole).toInt();
            const ReconEvent& e = consensus.nodes[v].events[i];
            const double expected = holding[{genes[v], e.type, e.species, e.recipient}] / n;
            QCOMPARE(item->data(ReconciliationView::kSupportRole).toDouble(), expected);
            QVERIFY(
                item->toolTip().contains(QString("in %1% of the samples").arg(100 * expected, 0, 'f', 0)));
            if (expected < 1) {
                QCOMPARE(item->data(ReconciliationView::kLabelRole).toString(),
                         QString::number(expected, 'f', 2));
                ++labelled;
            } else { // in every sample: unlabelled
                QVERIFY(item->data(ReconciliationView::kLabelRole).isNull());
            }
            ++glyphs;
        }
        int events = 0;
        for (const ReconNode& node : consensus.nodes)
            events += static_cast<int>(node.events.size());
        QCOMPARE(glyphs, events);
        QVERIFY2(labelled > 0, "every event of the consensus in every sample: nothing to check");

        // Another mode and back: the selection of a sampled family brings the consensus back.
        QVERIFY(test::click(panel->findChild<QRadioButton*>("oneSampleMode")));
        QVERIFY(panel->mode() == ReconciliationPanel::Mode::OneSample);
        QVERIFY(clickFamilies(w, {2}));
        QVERIFY(panel->mode() == ReconciliationPanel::Mode::Consensus);
        QCOMPARE(panel->shownGroups(), std::vector<int>{0});
    }

    void tablesAreReadableAt1600x1000() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QCOMPARE(w.screen()->size(), QSize(1600, 1000));
        QVERIFY(loadInto(w, teachingRequest()));
        QSignalSpy finished(&w.session(), &EngineSession::runFinished);
        QVERIFY(test::click(w.runPanel()->evaluateButton()));
        QVERIFY(test::waitForCount(finished, 1));
        QVERIFY(sampleByClicks(w, {0, 1, 2, 3, 4, 5, 6, 7}, 10));
        ReconciliationPanel* panel = w.reconciliationPanel();
        w.viewTabs()->setCurrentWidget(panel);
        QCoreApplication::processEvents();
        auto* tabs = panel->findChild<QTabWidget*>("reconciliationTables");
        for (QTableWidget* table : {static_cast<QTableWidget*>(panel->speciesTable()),
                                    static_cast<QTableWidget*>(panel->transferMatrix())}) {
            tabs->setCurrentIndex(table == panel->speciesTable() ? 0 : 1);
            QCoreApplication::processEvents();
            QVERIFY(table->rowCount() >= ReconciliationPanel::kTableRows);
            int visible = 0;
            for (int r = 0; r < table->rowCount(); ++r) {
                const QRect rect = table->visualRect(table->model()->index(r, 0));
                visible += table->viewport()->rect().contains(rect);
            }
            QVERIFY2(visible >= ReconciliationPanel::kTableRows,
                     qPrintable(QString("%1: %2 rows visible").arg(table->objectName()).arg(visible)));
        }
        panel->setMode(ReconciliationPanel::Mode::Aggregate);
        QCoreApplication::processEvents();
        auto* slider = panel->findChild<QSlider*>("frequencyThreshold");
        QVERIFY(slider->isVisible() && slider->isEnabled());
        QVERIFY2(slider->width() >= 150, qPrintable(QString::number(slider->width())));

        // The families table: name, log L and the three rates without scrolling sideways.
        QTableView* families = w.familiesPanel()->table();
        QHeaderView* header = families->horizontalHeader();
        QCOMPARE(families->horizontalScrollBar()->value(), 0);
        for (int column : {int(FamiliesModel::Name), int(FamiliesModel::LogLikelihood),
                           int(FamiliesModel::RateD), int(FamiliesModel::RateL), int(FamiliesModel::RateT)}) {
            const int left = header->sectionViewportPosition(column);
            const int right = left + header->sectionSize(column);
            QVERIFY2(left >= 0 && right <= families->viewport()->width(),
                     qPrintable(QString("column %1 spans %2–%3 of %4")
                                    .arg(FamiliesModel::key(column))
                                    .arg(left)
                                    .arg(right)
                                    .arg(families->viewport()->width())));
            // Numbers are not cut: the column is at least as wide as its widest text.
            if (column == FamiliesModel::Name) continue;
            int widest = 0;
            for (int r = 0; r < families->model()->rowCount(); ++r)
                widest = std::max(widest, families->fontMetrics().horizontalAdvance(
                                              families->model()->index(r, column).data().toString()));
            QVERIFY(widest > 0);
            QVERIFY(header->sectionSize(column) >= widest);
        }
        const QModelIndex name = families->model()->index(0, FamiliesModel::Name);
        QVERIFY(name.data(Qt::ToolTipRole).toString().startsWith(name.data().toString()));
    }
};

QTEST_MAIN(GuiLinkedViews)
#include "test_gui_linked_views.moc"
