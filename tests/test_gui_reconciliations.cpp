// Workbench part two, driven like a user: sampled reconciliations drawn on the species tree,
// aggregated with a threshold, summaries and exports, and sessions (save mid-run, reopen,
// damaged files, vanished inputs).
#include "gui_test_support.hpp"
#include "panels/families_panel.hpp"
#include "panels/problems_panel.hpp"
#include "panels/reconciliation_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "plots/live_plots.hpp"
#include "recon/recon_summary.hpp"
#include "session/session_file.hpp"
#include "window/workbench_window.hpp"

#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTableView>
#include <QTreeWidget>
#include <filesystem>
#include <nlohmann/json.hpp>

using namespace gpurec;
using namespace gpurec::ui;
using test::kGuiTimeoutMs;
using test::loadInto;
using test::plotKeys;
using test::plotValues;
using test::teachingRequest;

namespace {
// Events of a reconciliation by type, as the view should draw them (one glyph per event).
std::map<EventType, int> eventsByType(const Reconciliation& r) {
    std::map<EventType, int> out;
    for (const ReconNode& n : r.nodes)
        for (const ReconEvent& e : n.events)
            ++out[e.type];
    return out;
}

const std::vector<EventType> kAllEvents = {
    EventType::Leaf,        EventType::Speciation, EventType::SpeciationLoss,
    EventType::Duplication, EventType::Transfer,   EventType::TransferLoss,
    EventType::Loss};

void copyTeachingSample(const std::string& to) {
    std::filesystem::copy(test::sourcePath("samples/teaching"), to, std::filesystem::copy_options::recursive);
}
} // namespace

class GuiReconciliations : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { test::isolateSettings("gui_reconciliations"); }

    void sampledReconciliationsAreDrawnEventByEvent() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(test::sampleInView(w, {0, 1, 2, 3, 4, 5, 6, 7}, 20));
        ReconciliationPanel* panel = w.reconciliationPanel();
        QCOMPARE(panel->groups().size(), std::size_t(8));
        for (const ReconciliationGroup& g : panel->groups())
            QCOMPARE(g.samples.size(), std::size_t(20));

        // Find a sample with transfers and show it: one glyph per event of each drawn family's
        // sample, one arc per transfer.
        int withTransfers = -1;
        for (int k = 0; k < 20 && withTransfers < 0; ++k)
            for (const ReconciliationGroup& g : panel->groups()) {
                std::map<EventType, int> events = eventsByType(g.samples[k]);
                if (events[EventType::Transfer] + events[EventType::TransferLoss] > 0) withTransfers = k;
            }
        QVERIFY2(withTransfers >= 0, "no sample with a transfer among 8 families × 20 samples");
        panel->showSample(withTransfers);
        QCOMPARE(panel->currentSample(), withTransfers);
        std::map<EventType, int> expected;
        for (const ReconciliationGroup& g : panel->groups())
            for (auto [type, count] : eventsByType(g.samples[withTransfers]))
                expected[type] += count;
        ReconciliationView* view = panel->view();
        int glyphs = 0;
        for (EventType type : kAllEvents) {
            QCOMPARE(view->glyphCount(type), expected[type]);
            glyphs += expected[type];
        }
        QCOMPARE(view->itemCount(ReconciliationView::Glyph), glyphs);
        QVERIFY(expected[EventType::Transfer] + expected[EventType::TransferLoss] > 0);
        QCOMPARE(view->itemCount(ReconciliationView::Arc),
                 expected[EventType::Transfer] + expected[EventType::TransferLoss]);
        QCOMPARE(expected[EventType::Leaf], [&] {
            int genes = 0;
            for (const ReconciliationGroup& g : panel->groups())
                genes += w.dataset()->families[g.family].clades.geneCount();
            return genes;
        }());

        // The table, the tree colouring and the families table take the per-sample means.
        ReconciliationSummary total;
        for (const ReconciliationGroup& g : panel->groups())
            addFamily(total, summarize(g.samples, w.dataset()->species));
        SpeciesTreePanel* tree = w.speciesTreePanel();
        QSignalSpy shown(tree, &SpeciesTreePanel::valuesShown);
        tree->setQuantity(SpeciesQuantity::SampledDuplications);
        QVERIFY(test::waitForShown(shown, SpeciesQuantity::SampledDuplications));
        for (int e = 0; e < w.dataset()->species.size(); ++e)
            QVERIFY(std::abs(tree->shownValues().values[e] - total.species[e][kDuplications]) < 1e-12);
        QAbstractItemModel* families = w.familiesPanel()->model();
        const ReconciliationGroup& first = panel->groups().front();
        QCOMPARE(families->index(first.family, FamiliesModel::SampledD).data(Qt::UserRole).toDouble(),
                 first.summary.events[2]);
        QVERIFY(!families->index(8, FamiliesModel::SampledD).data(Qt::UserRole).isValid());
        for (const auto& [pair, mean] : total.transfers)
            QVERIFY(std::abs(panel->transferMatrix()->count(
                                 QString::fromStdString(w.dataset()->species.name(pair.first)),
                                 QString::fromStdString(w.dataset()->species.name(pair.second))) -
                             mean) <= 1e-3 * mean);
    }

    void aggregateModeHidesRareEventsBelowTheThreshold() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(test::sampleInView(w, {3, 4}, 30));
        ReconciliationPanel* panel = w.reconciliationPanel();
        panel->findChild<QRadioButton*>("aggregateMode")->click();
        ReconciliationView* view = panel->view();
        int pairs = 0, duplicated = 0;
        for (const ReconciliationGroup& g : panel->groups()) {
            pairs += static_cast<int>(g.summary.transfers.size());
            for (const SpeciesCounts& c : g.summary.species)
                duplicated += c[kDuplications] > 0;
        }
        QVERIFY(pairs > 0);
        QCOMPARE(view->itemCount(ReconciliationView::FrequencyArcItem), pairs);
        QCOMPARE(view->itemCount(ReconciliationView::FrequencyMarkItem), duplicated);
        QCOMPARE(view->itemCount(ReconciliationView::Glyph), 0);
        for (int step : {0, 20, 50, 100}) {
            panel->findChild<QSlider*>("frequencyThreshold")->setValue(step);
            const double threshold = step / 100.0;
            int arcs = 0, marks = 0;
            for (const ReconciliationGroup& g : panel->groups()) {
                for (const auto& [pair, mean] : g.summary.transfers)
                    arcs += mean >= threshold;
                for (const SpeciesCounts& c : g.summary.species)
                    marks += c[kDuplications] > 0 && c[kDuplications] >= threshold;
            }
            QCOMPARE(view->itemCount(ReconciliationView::FrequencyArcItem, true), arcs);
            QCOMPARE(view->itemCount(ReconciliationView::FrequencyMarkItem, true), marks);
        }
        QVERIFY(view->itemCount(ReconciliationView::FrequencyArcItem, true) <
                pairs); // 1 per sample hides rare ones

        // Back to one sample at a time.
        panel->findChild<QRadioButton*>("oneSampleMode")->click();
        QVERIFY(view->itemCount(ReconciliationView::Glyph) > 0);
        QCOMPARE(view->itemCount(ReconciliationView::FrequencyArcItem), 0);
    }

    void exportsReadBack() {
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        QVERIFY(test::sampleInView(w, {5}, 10));
        ReconciliationPanel* panel = w.reconciliationPanel();
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_recon_export"));
        QVERIFY(panel->exportRecPhyloXml(dir + "/recs.xml"));
        QVERIFY(panel->exportSpeciesCsv(dir + "/species.csv"));
        QVERIFY(panel->exportTransfersCsv(dir + "/transfers.csv"));
        QVERIFY(panel->exportEventsCsv(dir + "/events.csv"));
        for (const char* drawing : {"/d.svg", "/d.pdf", "/d.png"})
            QVERIFY(panel->view()->exportDrawing(dir + drawing));
        QCOMPARE(QImage(dir + "/d.png").isNull(), false);
        QFile events(dir + "/events.csv");
        QVERIFY(events.open(QIODevice::ReadOnly));
        QCOMPARE(QString(events.readLine()).trimmed(), QString("family,sample,S,SL,D,T,TL,L,Leaf"));

        // Family results: every family, every column, in CSV, TSV and JSON.
        FamiliesModel* model = w.familiesPanel()->model();
        QVERIFY(exportFamilyResults(*model, dir + "/families.csv"));
        QVERIFY(exportFamilyResults(*model, dir + "/families.tsv"));
        QVERIFY(exportFamilyResults(*model, dir + "/families.json"));
        nlohmann::json json = test::readJson((dir + "/families.json").toStdString());
        QCOMPARE(json.at("families").size(), w.dataset()->families.size());
        QCOMPARE(json["families"][5]["family"].get<std::string>(), w.dataset()->families[5].name);
        QCOMPARE(json["families"][5]["sampled_duplications"].get<double>(),
                 panel->groups().front().summary.events[2]);
        QVERIFY(json["families"][6]["sampled_duplications"].is_null());
        QVERIFY(std::abs(json["families"][5]["rate_d"].get<double>() - 0.1) < 1e-12);
        QFile tsv(dir + "/families.tsv");
        QVERIFY(tsv.open(QIODevice::ReadOnly));
        QCOMPARE(QString(tsv.readLine()).trimmed().split('\t').size(),
                 static_cast<int>(FamiliesModel::ColumnCount));

        // The RecPhyloXML file opens in the same view and draws the same events.
        const Reconciliation sample3 = panel->groups().front().samples[3];
        QSignalSpy sampled(panel, &ReconciliationPanel::sampled);
        panel->openRecPhyloXml(dir + "/recs.xml");
        QVERIFY(sampled.count() == 1 && sampled.at(0).at(0).toBool());
        QCOMPARE(panel->groups().size(), std::size_t(1));
        QCOMPARE(panel->groups().front().samples.size(), std::size_t(10));
        panel->showSample(3);
        for (auto [type, count] : eventsByType(sample3))
            QCOMPARE(panel->view()->glyphCount(type), count);

        // A damaged file is refused with its location, and nothing crashes.
        test::writeFile((dir + "/broken.xml").toStdString(), "<recPhylo><spTree><phylogeny><clade><name>A");
        panel->openRecPhyloXml(dir + "/broken.xml");
        QCOMPARE(sampled.count(), 2);
        QCOMPARE(sampled.at(1).at(0).toBool(), false);
        QVERIFY(
            panel->findChild<QLabel*>("reconciliationInfo")->text().startsWith("Could not open broken.xml"));
    }

    void sessionSavedMidOptimisationReopensWithRatesAndHistory() {
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_session"));
        const QString path = dir + "/run.gpurec.json";
        std::vector<double> savedTheta;
        QVector<double> savedLoss, savedKeys, savedRate;
        {
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QVERIFY(loadInto(w, teachingRequest()));
            w.runPanel()
                ->findChild<QComboBox*>("rateMode")
                ->setCurrentIndex(1); // per species: many iterations
            w.runPanel()->maxIterations()->setValue(1000);
            QSignalSpy paused(&w.session(), &EngineSession::pausedChanged);
            QSignalSpy finished(&w.session(), &EngineSession::runFinished);
            QVERIFY(test::click(w.runPanel()->optimiseButton()));
            QTRY_VERIFY_WITH_TIMEOUT(w.livePlots()->pointCount() >= 3 || finished.count() > 0, kGuiTimeoutMs);
            QVERIFY(test::click(w.runPanel()->pauseButton()));
            QVERIFY(test::waitForCount(paused, 1));
            QCOMPARE(finished.count(), 0); // saved mid-optimisation
            QVERIFY(w.saveSession(path));
            savedTheta = w.session().parameters().theta();
            savedLoss = plotValues(w.livePlots()->lossPlot(), 0);
            savedKeys = plotKeys(w.livePlots()->lossPlot(), 0);
            savedRate = plotValues(w.livePlots()->ratesPlot(), 2);
            // The autosave holds every iteration so far too.
            QTRY_COMPARE_WITH_TIMEOUT(readSessionFile(WorkbenchWindow::autosavePath()).history.size(),
                                      static_cast<std::size_t>(savedLoss.size()), kGuiTimeoutMs);
            QVERIFY(test::click(w.runPanel()->stopButton()));
            QVERIFY(test::waitForCount(finished, 1));
        }
        WorkbenchWindow reopened;
        QVERIFY(test::showActive(reopened));
        QSignalSpy opened(&reopened, &WorkbenchWindow::sessionOpened);
        reopened.openSession(path);
        QVERIFY(opened.wait(kGuiTimeoutMs));
        QVERIFY(opened.at(0).at(0).toBool());
        QVERIFY(reopened.session().parameters().mode() == RateMode::Specieswise);
        QCOMPARE(reopened.session().parameters().theta(), savedTheta);
        QCOMPARE(plotValues(reopened.livePlots()->lossPlot(), 0), savedLoss);
        QCOMPARE(plotKeys(reopened.livePlots()->lossPlot(), 0), savedKeys);
        QCOMPARE(plotValues(reopened.livePlots()->ratesPlot(), 2), savedRate);
        QCOMPARE(reopened.runPanel()->maxIterations()->value(), 1000);
        // Restored fields read as typed, not in the file's 17-digit form (0.10000000000000001).
        QStringList restored;
        for (const char* field : {"startD", "startL", "startT", "minRate", "maxRate", "gradTol"})
            restored << reopened.runPanel()->findChild<QLineEdit*>(field)->text();
        QCOMPARE(restored, (QStringList{"0.1", "0.1", "0.1", "1e-10", "2", "1e-5"}));
        QCOMPARE(reopened.problemsPanel()->problemCount(), 0);
        // The restored rates are the engine's: evaluating reproduces the paused iteration's loss.
        QSignalSpy finished(&reopened.session(), &EngineSession::runFinished);
        QVERIFY(test::click(reopened.runPanel()->evaluateButton()));
        QVERIFY(test::waitForCount(finished, 1));
        QVERIFY(std::abs(finished.at(0).at(0).value<RunOutcome>().nllBits - savedLoss.back()) <
                1e-9 * savedLoss.back());
    }

    void damagedOrNewerSessionFilesAreRefusedClearly() {
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_session_bad"));
        {
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QVERIFY(loadInto(w, teachingRequest()));
            QVERIFY(w.saveSession(dir + "/good.json"));
        }
        QFile good(dir + "/good.json");
        QVERIFY(good.open(QIODevice::ReadOnly));
        const QByteArray text = good.readAll();
        test::writeFile((dir + "/truncated.json").toStdString(), text.left(text.size() / 2).toStdString());
        nlohmann::json newer = nlohmann::json::parse(text.toStdString());
        newer["version"] = 99;
        test::writeFile((dir + "/newer.json").toStdString(), newer.dump());

        WorkbenchWindow w;

        QVERIFY(test::showActive(w));
        auto* list = w.problemsPanel()->findChild<QTreeWidget*>("problemsList");
        QSignalSpy opened(&w, &WorkbenchWindow::sessionOpened);
        w.openSession(dir + "/truncated.json");
        QCOMPARE(opened.count(), 1);
        QCOMPARE(opened.at(0).at(0).toBool(), false);
        QCOMPARE(list->topLevelItemCount(), 1);
        QCOMPARE(list->topLevelItem(0)->text(2), QString("truncated.json"));
        // Where the file breaks off and why, in words, not the JSON library's tagged text.
        const QString damaged = list->topLevelItem(0)->text(4);
        QVERIFY2(QRegularExpression("truncated\\.json:\\d+:\\d+: not a valid session file \\(damaged or cut "
                                    "short\\): \\S")
                     .match(damaged)
                     .hasMatch(),
                 qPrintable(damaged));
        QVERIFY2(!damaged.contains("json.exception") && !damaged.contains("parse error at"),
                 qPrintable(damaged));
        w.openSession(dir + "/newer.json");
        QCOMPARE(opened.count(), 2);
        QVERIFY(list->topLevelItem(0)->text(4).endsWith(
            QString(": written by a newer gpurec (session format 99; this version reads format %1)")
                .arg(kSessionFormatVersion)));
        QVERIFY(!w.dataset());
    }

    void sessionWithAVanishedGeneTreeOpensWhatItCan() {
        const std::string dir = test::temporaryFolder("gui_session_vanished") + "/teaching";
        copyTeachingSample(dir);
        LoadRequest request;
        request.paths.speciesTree = dir + "/species.nwk";
        request.paths.familiesFile = dir + "/families.txt";
        const QString path = QString::fromStdString(dir + "/session.json");
        std::string removed;
        {
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QVERIFY(loadInto(w, request));
            w.familiesPanel()->selectFamily(4);
            QVERIFY(w.saveSession(path));
            removed = w.dataset()->families[2].geneTreePath;
        }
        QVERIFY(std::filesystem::remove(removed));

        WorkbenchWindow w;

        QVERIFY(test::showActive(w));
        QSignalSpy opened(&w, &WorkbenchWindow::sessionOpened);
        w.openSession(path);
        QVERIFY(opened.wait(kGuiTimeoutMs));
        QVERIFY(opened.at(0).at(0).toBool());
        QCOMPARE(w.dataset()->families.size(), std::size_t(29));
        auto* list = w.problemsPanel()->findChild<QTreeWidget*>("problemsList");
        QStringList reasons;
        for (int i = 0; i < list->topLevelItemCount(); ++i)
            if (list->topLevelItem(i)->toolTip(2) == QString::fromStdString(removed) ||
                list->topLevelItem(i)->text(2) == QFileInfo(QString::fromStdString(removed)).fileName())
                reasons << list->topLevelItem(i)->text(4);
        QCOMPARE(reasons, (QStringList{"missing: the file was there when the session was saved",
                                       "cannot open file: No such file or directory"}));
        QCOMPARE(w.familiesPanel()->selectedFamily() >= 0, true);
    }
};

QTEST_MAIN(GuiReconciliations)
#include "test_gui_reconciliations.moc"
