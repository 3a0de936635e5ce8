// Teaching, driven like a user: the teaching and tiny samples open with a guided tour; its Back and
// Next buttons walk a duplication, a transfer and a loss, each ringed in a family's true history
// (truth/reconciliations.xml) beside the reconciliations sampled from its gene trees. Datasets
// without a truth get no tour; a damaged truth is reported and the data still loads.
#include "gui_test_support.hpp"
#include "panels/families_panel.hpp"
#include "panels/guided_tour_panel.hpp"
#include "panels/problems_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "recon/recphyloxml.hpp"
#include "sim/simulation.hpp"
#include "window/workbench_window.hpp"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QPushButton>
#include <QTreeWidget>
#include <filesystem>

using namespace gpurec;
using namespace gpurec::ui;
using test::loadInto;
using test::teachingRequest;

namespace {
QDockWidget* tourDock(WorkbenchWindow& w) {
    return w.findChild<QDockWidget*>("tourDock");
}

// The glyph the view draws for event `event` of gene node `node`.
const QGraphicsItem* glyphOf(ReconciliationView* view, int node, int event) {
    for (const QGraphicsItem* item : view->items(ReconciliationView::Glyph))
        if (item->data(ReconciliationView::kNodeRole).toInt() == node &&
            item->data(ReconciliationView::kEventIndexRole).toInt() == event)
            return item;
    return nullptr;
}
} // namespace

class GuiGuidedTour : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase() { test::isolateSettings("gui_guided_tour"); }

    void teachingSampleOpensWithATourOfDuplicationTransferAndLoss() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        GuidedTourPanel* tour = w.guidedTour();
        ReconciliationPanel* recon = w.reconciliationPanel();
        QVERIFY(tourDock(w)->isVisible());
        QVERIFY(w.runPanel()->isVisible()); // beside the run controls, not over them
        QCOMPARE(tour->stopCount(), 5);
        QCOMPARE(tour->currentStop(), 0);
        QVERIFY(tour->text().contains("30 gene families") && tour->text().contains("12 species"));
        QVERIFY(!tour->backButton()->isEnabled());
        QVERIFY(w.findChild<QAction*>("guidedTourAction")->isEnabled());

        // The examples, independently: the truth file read here.
        const RecPhyloDocument truth =
            readRecPhyloXml(truthReconciliationsPath(test::sourcePath("samples/teaching")));
        const std::vector<TourExample>& examples = w.tourExamples();
        QCOMPARE(examples.size(), std::size_t(3));
        const EventType expected[] = {EventType::Duplication, EventType::Transfer, EventType::SpeciationLoss};
        for (int k = 0; k < 3; ++k) {
            const TourExample& e = examples[k];
            const Reconciliation& r = truth.reconciliations[e.reconciliation];
            QVERIFY(r.nodes[e.node].events[e.event].type == expected[k]);
            QSignalSpy sampled(recon, &ReconciliationPanel::sampled);
            QVERIFY(test::click(tour->nextButton()));
            QCOMPARE(tour->currentStop(), k + 1);
            QVERIFY(tour->text().contains(QString::fromStdString(r.family)));
            QVERIFY(tour->text().contains(QString::fromStdString(truth.species.name(e.what.species))));
            if (e.what.type == EventType::Transfer)
                QVERIFY(tour->text().contains(QString::fromStdString(truth.species.name(e.what.recipient))));
            // The family is selected, the Reconciliations view shows its truth beside its samples.
            const int family = w.dataset()->familyIndex(r.family);
            QCOMPARE(w.familiesPanel()->selectedFamily(), family);
            QCOMPARE(w.viewTabs()->currentWidget(), recon);
            QVERIFY(recon->truthShown() && recon->truthPane()->isVisible());
            QCOMPARE(recon->truthPane()->shownFamilies(), QStringList{QString::fromStdString(r.family)});
            ReconciliationView* truthView = recon->truthPane()->view();
            QCOMPARE(truthView->glyphCount(expected[k]), [&] {
                int n = 0;
                for (const ReconNode& node : r.nodes)
                    for (const ReconEvent& ev : node.events)
                        n += ev.type == expected[k];
                return n;
            }());
            // The ring sits on the example's glyph.
            const QGraphicsItem* glyph = glyphOf(truthView, e.node, e.event);
            QVERIFY(glyph);
            QCOMPARE(glyph->data(ReconciliationView::kEventRole).toInt(), static_cast<int>(expected[k]));
            QVERIFY(truthView->storyRingAt().has_value());
            QCOMPARE(*truthView->storyRingAt(), glyph->pos());
            // Sampled at the current rates, drawn as the consensus.
            QVERIFY(test::waitForCount(sampled, 1));
            QVERIFY(sampled.at(0).at(0).toBool());
            QCOMPARE(recon->shownGroups().size(), std::size_t(1));
            QCOMPARE(recon->groups()[recon->shownGroups().front()].family, family);
            QVERIFY(recon->mode() == ReconciliationPanel::Mode::Consensus);
            QVERIFY(recon->view()->itemCount(ReconciliationView::Glyph) > 0);
            QVERIFY(
                recon->findChild<QLabel*>("sampledCaption")->text().startsWith("Sampled: consensus of 100"));
        }
        // Back returns to the transfer; its family's samples are kept, so nothing is resampled. (A
        // sampling still finishing from the last stop, which a loaded machine can leave, ends first.)
        QTRY_VERIFY_WITH_TIMEOUT(!recon->sampling(), test::kGuiTimeoutMs);
        const std::size_t groups = recon->groups().size();
        QVERIFY(test::click(tour->backButton()));
        QCOMPARE(tour->currentStop(), 2);
        QCOMPARE(w.familiesPanel()->selectedFamily(),
                 w.dataset()->familyIndex(truth.reconciliations[examples[1].reconciliation].family));
        QVERIFY(!recon->sampling());
        QCOMPARE(recon->groups().size(), groups);
        QVERIFY(recon->truthPane()->view()->storyRingAt().has_value());
        // On to the last stop (no ring), then Finish closes the tour.
        QVERIFY(test::click(tour->nextButton()));
        QVERIFY(test::click(tour->nextButton()));
        QCOMPARE(tour->currentStop(), 4);
        QCOMPARE(tour->nextButton()->text().remove('&'), QString("Finish"));
        QVERIFY(!recon->truthPane()->view()->storyRingAt().has_value());
        QVERIFY(test::click(tour->nextButton()));
        QVERIFY(!tourDock(w)->isVisible());

        // Help ▸ Guided tour starts it again; True history unchecked hides the truth.
        w.findChild<QAction*>("guidedTourAction")->trigger();
        QVERIFY(tourDock(w)->isVisible());
        QCOMPARE(tour->currentStop(), 0);
        auto* showTruth = recon->findChild<QCheckBox*>("showTruth");
        QVERIFY(test::click(showTruth));
        QVERIFY(!recon->truthShown() && !recon->truthPane()->isVisible());
        QVERIFY(!recon->findChild<QLabel*>("sampledCaption")->isVisible());
    }

    void tinySampleHasATourAndDataWithoutTruthHasNone() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        LoadRequest tiny;
        tiny.paths.speciesTree = test::sourcePath("samples/tiny/species.nwk");
        tiny.paths.familiesFile = test::sourcePath("samples/tiny/families.txt");
        QVERIFY(loadInto(w, tiny));
        QVERIFY(tourDock(w)->isVisible());
        QCOMPARE(w.guidedTour()->stopCount(), 2 + static_cast<int>(w.tourExamples().size()));
        QVERIFY(!w.tourExamples().empty());

        // The shared tiny dataset has no truth/: no tour, nothing to check.
        LoadRequest shared;
        shared.paths.speciesTree = test::sharedData("tiny/species.nwk");
        shared.paths.familiesFile = test::sharedData("tiny/families.txt");
        shared.options.minCoveredSpecies = 1; // its one family covers 3 species
        QVERIFY(loadInto(w, shared));
        QVERIFY(!tourDock(w)->isVisible());
        QVERIFY(!w.findChild<QAction*>("guidedTourAction")->isEnabled());
        QVERIFY(!w.reconciliationPanel()->findChild<QCheckBox*>("showTruth")->isEnabled());
        QVERIFY(!w.reconciliationPanel()->truthShown());
        QVERIFY(w.tourExamples().empty());
    }

    void damagedTruthIsReportedAndTheDataStillLoads() {
        namespace fs = std::filesystem;
        const fs::path copy = test::temporaryFolder("damaged_truth");
        fs::copy(test::sourcePath("samples/teaching"), copy, fs::copy_options::recursive);
        const std::string truthFile = truthReconciliationsPath(copy.string());
        const std::string text = test::fileText(truthFile);
        test::writeFile(truthFile, text.substr(0, text.size() / 2)); // cut off mid-document
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        LoadRequest request;
        request.paths.speciesTree = (copy / "species.nwk").string();
        request.paths.familiesFile = (copy / "families.txt").string();
        QVERIFY(loadInto(w, request));
        QCOMPARE(static_cast<int>(w.dataset()->families.size()), 30);
        QVERIFY(!tourDock(w)->isVisible());
        QVERIFY(!w.reconciliationPanel()->truthShown());
        auto* list = w.problemsPanel()->findChild<QTreeWidget*>();
        QVERIFY(list);
        QCOMPARE(list->topLevelItemCount(), 1);
        QTreeWidgetItem* problem = list->topLevelItem(0); // kind, family, file, line, reason
        QCOMPARE(problem->text(2), QString("reconciliations.xml"));
        QVERIFY(problem->text(3).section(':', 0, 0).toInt() > 0);
        QVERIFY2(problem->text(4).startsWith("true reconciliations not shown"), qPrintable(problem->text(4)));
    }
};

QTEST_MAIN(GuiGuidedTour)
#include "test_gui_guided_tour.moc"
