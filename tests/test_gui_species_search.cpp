// The Search tab driven as a user drives it: families simulated on a known species tree, loaded on
// a tree one SPR move away; the tab clicked, Start clicked; the search reported live (plot points,
// the tree redrawn), pause and stop answered between candidates, and the best tree saved and taken
// as the working tree. The numbers are checked against the CPU backend on fresh datasets.
#include "colours/colour_scale.hpp"
#include "gui_test_support.hpp"
#include "panels/search_panel.hpp"
#include "views/species_tree_view.hpp"
#include "views/tanglegram_view.hpp"
#include "window/workbench_window.hpp"

#include "sim/simulation.hpp"
#include "simulated_data.hpp"
#include "species_search/candidate_scorer.hpp"
#include "species_search/start_trees.hpp"
#include "tree/tanglegram.hpp"

#include <QAbstractItemView>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabBar>
#include <QTabWidget>
#include <QtTest>
#include <filesystem>
#include <qcustomplot.h>

using namespace gpurec;
using namespace gpurec::ui;

namespace {

constexpr int kSearchTimeoutMs = 120000;

struct SearchData {
    std::string folder, trueTree, startTree, families;
};

// 8 species, 30 families simulated on a birth-death tree; the start tree is one SPR from it.
const SearchData& searchData() {
    static const SearchData data = [] {
        SearchData d;
        d.folder = test::temporaryFolder("gui_search") + "/sim";
        SimulationOptions o;
        o.birthDeath = {8, 1.0, 0.2, 1000};
        o.families = 30;
        o.rates = {0.15, 0.15, 0.05};
        o.limits.minCoveredSpecies = 4;
        o.seed = 4;
        const SimulationSummary s = runSimulation(o, d.folder);
        // No guided tour: the tab under test stays in front.
        std::filesystem::remove_all(std::filesystem::path(truthReconciliationsPath(d.folder)).parent_path());
        d.trueTree = s.speciesTreeFile;
        d.families = s.familiesFile;
        const SpeciesTopology truth = SpeciesTopology::fromSpeciesTree(SpeciesTree::readFile(d.trueTree));
        SpeciesTopology start = truth;
        start.applySpr(0, start.sprRegrafts(0, 2).back());
        d.startTree = d.folder + "/start.nwk";
        test::writeFile(d.startTree, start.toSpeciesTree().toNewick(true) + "\n");
        return d;
    }();
    return data;
}

// 8 species, 30 families simulated under RELDATED on a dated birth-death tree; the start tree is
// the same dated tree with its root moved one edge (AleRax's dated root move).
const SearchData& relDatedData() {
    static const SearchData data = [] {
        SearchData d;
        d.folder = test::temporaryFolder("gui_search_reldated") + "/sim";
        SimulationOptions o;
        o.birthDeath = {8, 1.0, 0.2, 1000};
        o.families = 30;
        o.transferConstraint = TransferConstraint::RelDated;
        o.rates = {0.05, 0.05, 0.25};
        o.limits.minCoveredSpecies = 4;
        o.seed = 8;
        const SimulationSummary s = runSimulation(o, d.folder);
        std::filesystem::remove_all(std::filesystem::path(truthReconciliationsPath(d.folder)).parent_path());
        d.trueTree = s.speciesTreeFile;
        d.families = s.familiesFile;
        SpeciesTopology start = SpeciesTopology::fromSpeciesTree(SpeciesTree::readFile(d.trueTree), {}, true);
        int side = start.left(start.root());
        if (start.isLeaf(side)) side = start.sibling(side);
        start.rerootAbove(start.left(side));
        d.startTree = d.folder + "/start.nwk";
        test::writeFile(d.startTree, start.toSpeciesTree().toNewick(true) + "\n");
        return d;
    }();
    return data;
}

LoadRequest startRequest(const SearchData& data = searchData(),
                         TransferConstraint constraint = TransferConstraint::Parents) {
    LoadRequest r;
    r.paths.speciesTree = data.startTree;
    r.paths.familiesFile = data.families;
    r.constraint = constraint;
    return r;
}

// Total log-likelihood of the families of `request` on the tree `newick` (dated by its branch
// lengths under RELDATED) at global `rates`, from a fresh load on the CPU.
double freshLogLikelihood(const std::string& newick, Rates rates, LoadRequest r = startRequest()) {
    const std::string path = test::temporaryFolder("gui_search_fresh") + "/tree.nwk";
    test::writeFile(path, newick + "\n");
    r.paths.speciesTree = path;
    auto data = loadInput(r.paths, r.constraint, r.options).dataset;
    const RateParameters theta(RateMode::Global, data->species.size(), int(data->families.size()), rates);
    return makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false).totalLogLikelihood;
}

SpeciesTopology topologyOf(const std::string& newick) {
    const SpeciesTree truth = SpeciesTree::readFile(searchData().trueTree);
    return SpeciesTopology::fromSpeciesTree(SpeciesTree::fromNewick(parseNewick(newick, "test").front()),
                                            SpeciesTopology::fromSpeciesTree(truth).leafNames());
}

bool clickSearchTab(WorkbenchWindow& w) {
    QTabWidget* tabs = w.viewTabs();
    const int index = tabs->indexOf(w.searchPanel());
    if (index < 0 || tabs->tabText(index) != "Species-tree search") return false;
    QTest::mouseClick(tabs->tabBar(), Qt::LeftButton, {}, tabs->tabBar()->tabRect(index).center());
    return tabs->currentWidget() == w.searchPanel();
}

// Opens `box`'s list with a click and clicks the entry holding `data`.
bool pickEntry(QComboBox* box, const QVariant& data) {
    if (!test::click(box)) return false;
    QAbstractItemView* list = box->view();
    if (!QTest::qWaitFor([&] { return list->isVisible(); })) return false;
    const QModelIndex item = list->model()->index(box->findData(data), 0);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(item).center());
    return QTest::qWaitFor([&] { return !list->isVisible(); }) && box->currentData() == data;
}

} // namespace

class GuiSpeciesSearch : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        test::isolateSettings("gui_search"); // the autosaves of its windows
        QVERIFY(std::filesystem::exists(searchData().startTree));
    }

    // HYBRID from one SPR away: every candidate is plotted as it is scored, the tree redrawn as
    // moves are accepted; the search ends on a tree at least as likely as the true one (at the same
    // rates), coloured by bootstrap support; saved and taken as the working tree, it scores as the
    // search said.
    void hybridSearchRunsLiveAndItsTreeBecomesTheWorkingTree() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, startRequest()));
        SearchPanel* panel = w.searchPanel();
        QVERIFY(clickSearchTab(w));
        QCOMPARE(panel->startButton()->accessibleName(), QString("Start the species-tree search"));
        QVERIFY(!panel->saveButton()->isEnabled());
        QSignalSpy steps(&panel->run(), &SearchRun::stepFinished);
        QSignalSpy finished(&panel->run(), &SearchRun::finished);
        QVERIFY(test::click(panel->startButton()));
        QCOMPARE(QApplication::focusWidget(), panel->pauseButton()); // not a disabled field
        QVERIFY(!panel->startButton()->isEnabled());
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, kSearchTimeoutMs));
        const auto outcome = finished.at(0).at(0).value<SearchOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(!outcome.stopped);
        QCOMPARE(steps.count(), outcome.steps);
        QVERIFY(outcome.steps > 10);
        QCOMPARE(panel->plot()->graph(0)->dataCount(), outcome.steps);
        QCOMPARE(panel->plot()->graph(1)->dataCount(), outcome.steps);
        bool accepted = false;
        for (const QList<QVariant>& s : steps)
            accepted = accepted || (s.at(0).value<SearchStepSample>().accepted &&
                                    s.at(0).value<SearchStepSample>().index > 0);
        QVERIFY(accepted);
        QVERIFY(panel->statusText().startsWith("Done: no move improves the likelihood"));

        // The search's numbers are the engine's on a fresh load of its tree, and beat the truth's.
        const std::string best = outcome.bestNewick.toStdString();
        QVERIFY(std::abs(freshLogLikelihood(best, outcome.rates) - outcome.bestLogLikelihood) <
                1e-9 * std::abs(outcome.bestLogLikelihood));
        const std::string truth = SpeciesTree::readFile(searchData().trueTree).toNewick(true);
        QVERIFY(outcome.bestLogLikelihood >= freshLogLikelihood(truth, outcome.rates) - 1e-6);
        QVERIFY(rootedRobinsonFoulds(topologyOf(best), topologyOf(truth)) <= 2);
        QVERIFY(outcome.bestLogLikelihood > outcome.startLogLikelihood);

        // The view draws the best tree with its supports.
        SpeciesTreeView* view = panel->treeView();
        QVERIFY(!outcome.bootstrap.empty());
        const SpeciesTree shown = SpeciesTree::fromNewick(parseNewick(best, "test").front());
        const ColourScale scale(0.0, 1.0, false);
        for (int e = 0; e < shown.size(); ++e) {
            const auto support = outcome.bootstrap.find(QString::fromStdString(shown.name(e)));
            QCOMPARE(support != outcome.bootstrap.end(), !shown.isLeaf(e));
            if (support == outcome.bootstrap.end()) continue;
            QVERIFY(support->second >= 0 && support->second <= 1);
            QCOMPARE(view->branchColour(e), scale.colour(support->second));
        }

        // Root positions, then the clades the start tree lacks, picked from the list with the mouse.
        QComboBox* colouring = panel->colouringBox();
        QCOMPARE(colouring->count(), 3);
        auto pick = [&](SearchPanel::Colouring c) { return pickEntry(colouring, int(c)); };
        QVERIFY(pick(SearchPanel::Colouring::RootLlr));
        std::vector<double> llr(shown.size(), std::nan(""));
        int bestRoots = 0;
        for (int e = 0; e < shown.size(); ++e)
            if (auto it = outcome.rootLlr.find(QString::fromStdString(shown.name(e)));
                it != outcome.rootLlr.end()) {
                QVERIFY(it->second <= 0);
                bestRoots += it->second == 0;
                llr[e] = it->second;
            }
        QCOMPARE(bestRoots, 2); // the best root's two child branches
        const ColourScale llrScale = ColourScale::fit(llr, false);
        for (int e = 0; e < shown.size(); ++e)
            QCOMPARE(view->branchColour(e), llrScale.colour(llr[e]));
        QVERIFY(pick(SearchPanel::Colouring::NewClades));
        int changed = 0;
        for (int e = 0; e < shown.size(); ++e) {
            const auto it = outcome.newClade.find(QString::fromStdString(shown.name(e)));
            QCOMPARE(it != outcome.newClade.end(), !shown.isLeaf(e));
            if (it == outcome.newClade.end()) continue;
            changed += it->second > 0;
            QCOMPARE(view->branchColour(e), scale.colour(it->second));
        }
        QVERIFY(changed >= 1); // the search undid the start tree's SPR

        // Compare: the start tree and the best tree face to face, the same clades marked as by the
        // colouring, and the distance the search's own topology code gives.
        QTabWidget* trees = panel->treeTabs();
        QTest::mouseClick(trees->tabBar(), Qt::LeftButton, {}, trees->tabBar()->tabRect(1).center());
        QCOMPARE(trees->tabText(trees->currentIndex()), QString("Compare"));
        TanglegramView* tangle = panel->tanglegram();
        QVERIFY(tangle->isVisible() && tangle->hasTrees());
        const SpeciesTree startTree = SpeciesTree::readFile(searchData().startTree);
        const int fromStart = rootedRobinsonFoulds(topologyOf(startTree.toNewick(true)), topologyOf(best));
        QCOMPARE(tangle->layout().robinsonFoulds, fromStart);
        QCOMPARE(tangle->layout().right.unsharedCount, changed);
        for (int e = 0; e < shown.size(); ++e) {
            if (shown.isLeaf(e)) continue;
            const bool unshared = outcome.newClade.at(QString::fromStdString(shown.name(e))) > 0;
            QCOMPARE(bool(tangle->layout().right.unshared[e]), unshared);
            QCOMPARE(tangle->branchColour(false, e) == QColor(213, 94, 0), unshared);
        }
        QVERIFY(panel->compareSummary()->text().startsWith(
            QString("Robinson–Foulds distance %1: %2 of 6 clades").arg(fromStart).arg(changed)));
        QCOMPARE(tangle->accessibleDescription(), panel->compareSummary()->text());
        // Hovering a row names the species drawn there on that side.
        const SpeciesTree& startShown = startTree;
        const int firstLeaf = startShown.leaves().front();
        const QPointF at = tangle->nodePosition(true, startShown.find(startShown.name(firstLeaf)));
        QCOMPARE(tangle->speciesAt(at.toPoint()), QString::fromStdString(startShown.name(firstLeaf)));

        // Against the true tree from its file, then a tree of other species (refused, drawing kept).
        QVERIFY(panel->compareWithFile(QString::fromStdString(searchData().trueTree)));
        QCOMPARE(tangle->layout().robinsonFoulds, rootedRobinsonFoulds(topologyOf(best), topologyOf(truth)));
        QCOMPARE(panel->compareBox()->currentText(),
                 QFileInfo(QString::fromStdString(searchData().trueTree)).fileName());
        const std::string other = test::temporaryFolder("gui_search_other") + "/other.nwk";
        test::writeFile(other, "((A,B),(C,D));\n");
        const int kept = tangle->layout().robinsonFoulds;
        QVERIFY(!panel->compareWithFile(QString::fromStdString(other)));
        QVERIFY2(panel->compareSummary()->text().startsWith("Cannot compare with other.nwk: leaf '"),
                 qPrintable(panel->compareSummary()->text()));
        QCOMPARE(tangle->layout().robinsonFoulds, kept);
        QCOMPARE(panel->compareBox()->currentIndex(), 2);
        // Back to the start tree, picked from the list with the mouse.
        QComboBox* compareBox = panel->compareBox();
        QVERIFY(test::click(compareBox));
        QAbstractItemView* list = compareBox->view();
        QVERIFY(QTest::qWaitFor([&] { return list->isVisible(); }));
        QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                          list->visualRect(list->model()->index(0, 0)).center());
        QVERIFY(QTest::qWaitFor([&] { return !list->isVisible(); }));
        QCOMPARE(tangle->layout().robinsonFoulds, fromStart);
        // "Every name": one line of text per species, the view taller than the panel needs.
        QVERIFY(!tangle->everyNameShown());
        QVERIFY(test::click(panel->everyNameBox()));
        QVERIFY(tangle->everyNameShown() && tangle->namesDrawn());
        QVERIFY(tangle->minimumHeight() >= shown.leafCount() * QFontMetrics(tangle->font()).height());
        QVERIFY(test::click(panel->everyNameBox()));
        QVERIFY(!tangle->everyNameShown());
        QTest::mouseClick(trees->tabBar(), Qt::LeftButton, {}, trees->tabBar()->tabRect(0).center());

        QVERIFY(panel->saveButton()->isEnabled() && panel->adoptButton()->isEnabled());
        const std::string dir = test::temporaryFolder("gui_search_out");
        QVERIFY(w.saveSearchedTree(QString::fromStdString(dir + "/best.newick")));
        QCOMPARE(test::fileText(dir + "/best.newick"), best + "\n");
        QSignalSpy loaded(&w, &WorkbenchWindow::inputLoaded);
        QVERIFY(w.useSearchedTree(QString::fromStdString(dir + "/adopted.newick")));
        QVERIFY(QTest::qWaitFor([&] { return !loaded.isEmpty(); }, test::kGuiTimeoutMs));
        QVERIFY(loaded.at(0).at(0).toBool());
        QCOMPARE(w.lastRequest().paths.speciesTree, dir + "/adopted.newick");
        const auto data = w.dataset();
        const RateParameters theta(RateMode::Global, data->species.size(), int(data->families.size()),
                                   outcome.rates);
        QVERIFY(std::abs(makeCpuBackend(data)->evaluate(theta, SolverOptions{}, false).totalLogLikelihood -
                         outcome.bestLogLikelihood) < 1e-9 * std::abs(outcome.bestLogLikelihood));
    }

    // The start tree picked from the list (and a seed typed in): MiniNJ's tree or the seeded random
    // tree of `gpurec search`, drawn as the first step arrives and compared with the best tree.
    void searchFromABuiltStartTree_data() {
        QTest::addColumn<int>("from");
        QTest::addColumn<QString>("prescreen"); // typed into the Pre-screen box; empty: left off
        QTest::newRow("MiniNJ") << int(SearchStart::MiniNj) << QString();
        QTest::newRow("random") << int(SearchStart::Random) << QString();
        QTest::newRow("random, pre-screened") << int(SearchStart::Random) << QString("50");
    }
    void searchFromABuiltStartTree() {
        QFETCH(int, from);
        QFETCH(QString, prescreen);
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, startRequest()));
        SearchPanel* panel = w.searchPanel();
        QVERIFY(clickSearchTab(w));
        QCOMPARE(panel->startFromBox()->accessibleName(), QString("Start the search from"));
        QVERIFY(pickEntry(panel->startFromBox(), from));
        QSpinBox* seed = panel->seedBox();
        QVERIFY(test::click(seed));
        QCOMPARE(QApplication::focusWidget(), seed);
        QTest::keyClick(seed, Qt::Key_A, Qt::ControlModifier);
        QTest::keyClicks(seed, "7");
        QTest::keyClick(seed, Qt::Key_Tab);
        QCOMPARE(panel->settings().seed, std::uint64_t(7));
        QCOMPARE(panel->settings().prescreen, 0.0);
        if (!prescreen.isEmpty()) {
            QSpinBox* box = panel->prescreenBox();
            QCOMPARE(box->text(), QString("off"));
            QVERIFY(test::click(box));
            QCOMPARE(QApplication::focusWidget(), box);
            QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClicks(box, prescreen);
            QTest::keyClick(box, Qt::Key_Tab);
            QCOMPARE(panel->settings().prescreen, prescreen.toDouble() / 100);
            // The SPR cutoff, the SPR memory and the confirming stage, typed as a person would: off,
            // then another factor.
            auto typeFactor = [&](QDoubleSpinBox* box, double setting, double byDefault, double value) {
                QCOMPARE(setting, byDefault);
                for (double typed : {0.0, value}) {
                    QVERIFY(test::click(box));
                    QCOMPARE(QApplication::focusWidget(), box);
                    QTest::keyClick(box, Qt::Key_A, Qt::ControlModifier);
                    QTest::keyClicks(box, typed == 0 ? QString("0") : QLocale().toString(typed, 'f', 1));
                    QTest::keyClick(box, Qt::Key_Tab);
                    if (typed == 0) QCOMPARE(box->text(), QString("off"));
                }
            };
            SpeciesSearchSettings shown = panel->settings();
            typeFactor(panel->sprCutoffBox(), shown.sprCutoff, 1.0, 1.5);
            typeFactor(panel->sprMemoryBox(), shown.sprMemory, 1.0, 2.0);
            typeFactor(panel->prescreenConfirmBox(), shown.prescreenConfirm, 2.5, 1.5);
            shown = panel->settings();
            QCOMPARE(shown.sprCutoff, 1.5);
            QCOMPARE(shown.sprMemory, 2.0);
            QCOMPARE(shown.prescreenConfirm, 1.5);
        }
        const SpeciesTree loaded = SpeciesTree::readFile(searchData().startTree);
        const SpeciesTree expected = [&] {
            if (from == int(SearchStart::MiniNj))
                return miniNjSpeciesTree(readFamiliesFile(searchData().families));
            std::vector<std::string> names;
            for (int e : loaded.leaves())
                names.push_back(loaded.name(e));
            RandomSource rng(7);
            return randomSpeciesTree(names, rng);
        }();
        const Rates startRates = w.session().parameters().rates(0);
        QSignalSpy steps(&panel->run(), &SearchRun::stepFinished);
        QSignalSpy finished(&panel->run(), &SearchRun::finished);
        QVERIFY(test::click(panel->startButton()));
        QVERIFY(!panel->startFromBox()->isEnabled() && !seed->isEnabled());
        QVERIFY(test::waitForCount(steps, 1));
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, kSearchTimeoutMs));
        const auto outcome = finished.at(0).at(0).value<SearchOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        // Candidates left at the pre-screen are plotted apart, as estimates, and never accepted.
        int screened = 0;
        for (const QList<QVariant>& signal : steps) {
            const auto step = signal.at(0).value<SearchStepSample>();
            if (step.screened) QVERIFY(!step.accepted);
            screened += step.screened;
        }
        QCOMPARE(screened, outcome.screenedOut);
        QCOMPARE(panel->plot()->graph(2)->dataCount(), screened);
        // SPR candidates not scored (repeats, regrafts past the SPR cutoff) are counted in the status.
        QVERIFY(outcome.skipped > 0);
        QVERIFY2(panel->statusText().contains(
                     QString("%1 skipped as repeats, past the SPR cutoff or by the SPR memory")
                         .arg(outcome.skipped)),
                 qPrintable(panel->statusText()));
        if (!prescreen.isEmpty()) {
            QVERIFY(w.logView()->toPlainText().contains(
                QString(
                    "(HYBRID from a random tree, seed 7, pre-screened on %1 % of the families) started on")
                    .arg(prescreen)));
            QVERIFY(screened > 0);
            QVERIFY(panel->statusText().contains(QString("%1 left at the pre-screen").arg(screened)));
        }
        const SpeciesTopology start = topologyOf(outcome.startNewick.toStdString());
        QCOMPARE(start.canonicalNewick(), topologyOf(expected.toNewick(true)).canonicalNewick());
        // The first step scored the built tree at the rates the search started from.
        QVERIFY(std::abs(freshLogLikelihood(outcome.startNewick.toStdString(), startRates) -
                         outcome.startLogLikelihood) < 1e-9 * std::abs(outcome.startLogLikelihood));
        QVERIFY(outcome.bestLogLikelihood >= outcome.startLogLikelihood);
        const SpeciesTopology best = topologyOf(outcome.bestNewick.toStdString());
        QTabWidget* trees = panel->treeTabs();
        QTest::mouseClick(trees->tabBar(), Qt::LeftButton, {}, trees->tabBar()->tabRect(1).center());
        QCOMPARE(panel->tanglegram()->layout().robinsonFoulds, rootedRobinsonFoulds(start, best));
        if (from == int(SearchStart::Random)) QVERIFY(rootedRobinsonFoulds(start, best) > 0);
    }

    // A genome-scale comparison (150 species, 20 SPR moves apart): fitted to the panel the rows are
    // too short for names; with every name shown each species is named on a scrolled row of one line
    // of text, and the rows at the bottom are reached by scrolling; hovering names them either way.
    void everyNameIsReadableOnLargeTrees() {
        const SpeciesTree truth = test::simulatedSpeciesTree(150, 9);
        SpeciesTopology moved = SpeciesTopology::fromSpeciesTree(truth, [&] {
            std::vector<std::string> names;
            for (int e : truth.leaves())
                names.push_back(truth.name(e));
            return names;
        }());
        for (int k = 0; k < 20; ++k) {
            const int pruned = (k * 37) % moved.nodeCount();
            if (pruned == moved.root()) continue;
            const auto regrafts = moved.sprRegrafts(pruned, 3);
            if (!regrafts.empty()) moved.applySpr(pruned, regrafts.front());
        }
        const SpeciesTree other = moved.toSpeciesTree();
        QScrollArea scroll;
        scroll.setWidgetResizable(true);
        auto* view = new TanglegramView;
        scroll.setWidget(view);
        scroll.resize(700, 500);
        QVERIFY(test::showActive(scroll));
        view->setTrees(truth, "true", other, "moved");
        QVERIFY(view->layout().robinsonFoulds > 0);
        QVERIFY(!view->namesDrawn());
        QCOMPARE(scroll.verticalScrollBar()->maximum(), 0);
        view->setEveryNameShown(true);
        QTRY_VERIFY(scroll.verticalScrollBar()->maximum() > 0);
        QVERIFY(view->namesDrawn());
        QVERIFY(view->height() >= 150 * QFontMetrics(view->font()).height());
        // The last row: scrolled to, hovered, named.
        const TanglegramSide& left = view->layout().left;
        const int last = left.leafAtRow.back();
        const QPointF at = view->nodePosition(true, last);
        scroll.ensureVisible(int(at.x()), int(at.y()));
        QVERIFY(scroll.verticalScrollBar()->value() > 0);
        QCOMPARE(view->speciesAt(at.toPoint()), QString::fromStdString(truth.name(last)));
        const QImage shot = scroll.grab().toImage();
        QVERIFY(!shot.isNull());
    }

    // RELDATED: HYBRID refused and the option greyed with the engine's message; REROOT refused until
    // "Infer speciation order" is ticked, then run: every root candidate re-dated (its row says so),
    // the tree redrawn when a move is accepted, the dating step last, and the best tree's
    // log-likelihood a fresh CPU evaluation's of that dated tree. The option is kept by a session
    // (and comes back ticked), and greyed for data without RELDATED.
    void datedRerootSearchWithTheSpeciationOrderInferred() {
        const LoadRequest dated = startRequest(relDatedData(), TransferConstraint::RelDated);
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, dated));
        SearchPanel* panel = w.searchPanel();
        QVERIFY(clickSearchTab(w));
        QCheckBox* order = panel->speciationOrderBox();
        QCOMPARE(order->text(), QString("Infer speciation order"));
        QCOMPARE(order->accessibleName(), QString("Infer the order of the speciations"));
        const QString noSearch = "species tree search is not compatible with --transfer-constraint RELDATED";
        QCOMPARE(panel->strategyBox()->currentData().toString(), QString("HYBRID"));
        QVERIFY(!order->isEnabled() && !order->isChecked());
        QCOMPARE(order->toolTip(), "Unavailable: " + noSearch);
        QVERIFY(!panel->startButton()->isEnabled());
        QCOMPARE(panel->statusText(), noSearch);
        QVERIFY(pickEntry(panel->strategyBox(), QString("REROOT")));
        QVERIFY(order->isEnabled());
        QVERIFY(
            order->toolTip().startsWith("Infer the order of the speciations (as --infer-speciation-order"));
        QVERIFY(!panel->startButton()->isEnabled());
        QCOMPARE(panel->statusText(), QString("species tree root inference is not compatible with "
                                              "--transfer-constraint RELDATED unless using "
                                              "--infer-speciation-order"));
        QVERIFY(test::click(order));
        QVERIFY(order->isChecked() && panel->settings().inferSpeciationOrder);
        QVERIFY(panel->startButton()->isEnabled());

        QSignalSpy steps(&panel->run(), &SearchRun::stepFinished);
        QSignalSpy finished(&panel->run(), &SearchRun::finished);
        QVERIFY(test::click(panel->startButton()));
        QVERIFY(!order->isEnabled()); // while it runs
        // An accepted root move is drawn while the search goes on: paused there, the view shows the
        // latest accepted tree (the rows after it re-date other candidates).
        auto lastAccepted = [&](bool rootMovesOnly) {
            QString newick;
            for (const QList<QVariant>& signal : steps) {
                const auto step = signal.at(0).value<SearchStepSample>();
                if (step.accepted && step.index > 0 && (!rootMovesOnly || step.move.startsWith("root above")))
                    newick = step.bestNewick;
            }
            return newick;
        };
        QVERIFY(QTest::qWaitFor([&] { return !lastAccepted(true).isEmpty() || !finished.isEmpty(); },
                                kSearchTimeoutMs));
        QVERIFY2(finished.isEmpty(), "no root move accepted before the end");
        QSignalSpy paused(&panel->run(), &SearchRun::pausedChanged);
        QVERIFY(test::click(panel->pauseButton()));
        QVERIFY(test::waitForCount(paused, 1));
        auto drawnNewick = [&] {
            const SpeciesTree* drawn = panel->treeView()->tree();
            return drawn ? QString::fromStdString(drawn->toNewick(true)) : QString();
        };
        const QString accepted = QString::fromStdString(
            SpeciesTree::fromNewick(parseNewick(lastAccepted(false).toStdString(), "accepted").front())
                .toNewick(true));
        QTRY_COMPARE(drawnNewick(), accepted);
        QVERIFY(test::click(panel->pauseButton()));
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, kSearchTimeoutMs));
        const auto outcome = finished.at(0).at(0).value<SearchOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(!outcome.stopped);
        QVERIFY(w.logView()->toPlainText().contains(
            "(REROOT from the working tree, inferring the speciation order) started on"));
        QCOMPARE(steps.count(), outcome.steps);
        QCOMPARE(panel->plot()->graph(0)->dataCount(), outcome.steps);
        const QRegularExpression datedMove(R"(^root above \S+, dated \(\d+ datings scored\)$)");
        int rootMoves = 0;
        for (const QList<QVariant>& signal : steps) {
            const QString move = signal.at(0).value<SearchStepSample>().move;
            if (!move.startsWith("root above")) continue;
            ++rootMoves;
            QVERIFY2(datedMove.match(move).hasMatch(), qPrintable(move));
        }
        QVERIFY(rootMoves > 0);
        QVERIFY(steps.last().at(0).value<SearchStepSample>().move.startsWith("speciation order: ") ||
                steps.last().at(0).value<SearchStepSample>().move == "rates");
        QVERIFY(outcome.bestLogLikelihood > outcome.startLogLikelihood);
        // The best tree with its dating (its rank-derived lengths), as the CPU scores it afresh.
        QVERIFY(std::abs(freshLogLikelihood(outcome.bestNewick.toStdString(), outcome.rates, dated) -
                         outcome.bestLogLikelihood) < 1e-9 * std::abs(outcome.bestLogLikelihood));

        // Kept by the session and restored, ticked, by another window on the same data.
        const QString session =
            QString::fromStdString(test::temporaryFolder("gui_search_session") + "/s.json");
        panel->sprCutoffBox()->setValue(2.5);
        panel->sprMemoryBox()->setValue(0.5);
        panel->prescreenConfirmBox()->setValue(3.0);
        QVERIFY(w.saveSession(session));
        const nlohmann::json kept = test::readJson(session.toStdString()).at("search");
        QCOMPARE(kept.at("strategy").get<std::string>(), std::string("REROOT"));
        QCOMPARE(kept.at("spr_cutoff").get<double>(), 2.5);
        QCOMPARE(kept.at("spr_memory").get<double>(), 0.5);
        QCOMPARE(kept.at("prescreen_confirm").get<double>(), 3.0);
        QVERIFY(kept.at("infer_speciation_order").get<bool>());

        // Without RELDATED: greyed, off, with the engine's message; REROOT runs without it.
        QVERIFY(test::loadInto(w, startRequest(relDatedData())));
        QVERIFY(!order->isEnabled() && !order->isChecked());
        QCOMPARE(order->toolTip(), QString("Unavailable: --infer-speciation-order can only be used with "
                                           "--transfer-constraint RELDATED"));
        QVERIFY(panel->startButton()->isEnabled());

        WorkbenchWindow restored;
        QVERIFY(test::showActive(restored));
        QSignalSpy opened(&restored, &WorkbenchWindow::sessionOpened);
        restored.openSession(session);
        QVERIFY(opened.wait(test::kGuiTimeoutMs) && opened.at(0).at(0).toBool());
        SearchPanel* again = restored.searchPanel();
        QCOMPARE(again->strategyBox()->currentData().toString(), QString("REROOT"));
        QVERIFY(again->speciationOrderBox()->isEnabled() && again->speciationOrderBox()->isChecked());
        QVERIFY(again->settings().inferSpeciationOrder);
        QCOMPARE(again->settings().sprCutoff, 2.5);
        QCOMPARE(again->settings().sprMemory, 0.5);
        QCOMPARE(again->settings().prescreenConfirm, 3.0);
        QVERIFY(again->startButton()->isEnabled());
    }

    // Pause holds the search between candidates; Resume lets it go on; Stop ends it with the best
    // tree so far, which can be saved.
    void pauseResumeAndStopKeepTheBestTree() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(test::loadInto(w, startRequest()));
        SearchPanel* panel = w.searchPanel();
        QVERIFY(clickSearchTab(w));
        QSignalSpy steps(&panel->run(), &SearchRun::stepFinished);
        QSignalSpy paused(&panel->run(), &SearchRun::pausedChanged);
        QSignalSpy finished(&panel->run(), &SearchRun::finished);
        QVERIFY(test::click(panel->startButton()));
        QVERIFY(test::waitForCount(steps, 1));
        QVERIFY(test::click(panel->pauseButton()));
        QVERIFY(test::waitForCount(paused, 1));
        QCOMPARE(paused.at(0).at(0).toBool(), true);
        QCOMPARE(panel->pauseButton()->text(), QString("Resume"));
        const int held = steps.count();
        QTest::qWait(300);
        QCOMPARE(steps.count(), held);
        QVERIFY(finished.isEmpty());
        QVERIFY(test::click(panel->pauseButton()));
        QVERIFY(test::waitForCount(paused, 2));
        QCOMPARE(paused.at(1).at(0).toBool(), false);
        QVERIFY(test::waitForCount(steps, held + 1));
        QVERIFY(test::click(panel->stopButton()));
        QVERIFY(QTest::qWaitFor([&] { return !finished.isEmpty(); }, kSearchTimeoutMs));
        const auto outcome = finished.at(0).at(0).value<SearchOutcome>();
        QVERIFY2(outcome.error.isEmpty(), qPrintable(outcome.error));
        QVERIFY(outcome.stopped);
        QVERIFY(!outcome.bestNewick.isEmpty());
        QVERIFY(panel->statusText().startsWith("Stopped after"));
        QVERIFY(panel->startButton()->isEnabled());
        QVERIFY(panel->saveButton()->isEnabled());
        QVERIFY(outcome.bestLogLikelihood >= outcome.startLogLikelihood);
    }
};

QTEST_MAIN(GuiSpeciesSearch)
#include "test_gui_species_search.moc"
