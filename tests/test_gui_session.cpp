// Nothing lost: sampled reconciliations kept in sessions (format 3, format 2 still read), the kept
// runs, the species tree's layout and the sampling settings (format 4), the input's highways,
// pairwise transfers and pruning (format 6, format 5 still read), and the autosave offered back
// after a workbench was killed (a real gpurec-workbench process, SIGKILL).
#include "gui_test_support.hpp"
#include "panels/problems_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "panels/species_tree_panel.hpp"
#include "plots/live_plots.hpp"
#include "recon/recphyloxml.hpp"
#include "session/crash_recovery.hpp"
#include "session/save_file.hpp"
#include "session/session_file.hpp"
#include "window/workbench_window.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QProcess>
#include <QSpinBox>
#include <algorithm>
#include <nlohmann/json.hpp>

using namespace gpurec;
using namespace gpurec::ui;
using test::kGuiTimeoutMs;
using test::loadInto;
using test::teachingRequest;

namespace {
// What the Reconciliations view shows, in full: per family its name, dataset index and every
// sample as RecPhyloXML (each event, species and gene), and the summed means per event type.
struct Shown {
    std::vector<QString> names;
    std::vector<int> families;
    std::vector<std::string> samples;
    std::array<double, 7> events{};
    bool operator==(const Shown&) const = default;
};

Shown shown(const WorkbenchWindow& w) {
    Shown s;
    for (const ReconciliationGroup& g : w.reconciliationPanel()->groups()) {
        s.names.push_back(g.name);
        s.families.push_back(g.family);
        s.samples.push_back(toRecPhyloXml(w.dataset()->species, g.samples));
    }
    s.events = w.reconciliationPanel()->total().events;
    return s;
}

// A run worth keeping: per-species rates fitted for a few iterations, two options changed, the
// Adam method, and 6 reconciliations of families 2 and 5 sampled.
bool makeRun(WorkbenchWindow& w) {
    if (!test::showActive(w) || !loadInto(w, teachingRequest())) return false;
    w.runPanel()->findChild<QComboBox*>("rateMode")->setCurrentIndex(1);
    w.runPanel()->findChild<QComboBox*>("optimizerKind")->setCurrentIndex(1);
    test::typeInto(qobject_cast<QLineEdit*>(w.knobsPanel()->editor("pi_tol")), "1e-12");
    test::typeInto(qobject_cast<QLineEdit*>(w.knobsPanel()->editor("neumann_terms")), "5");
    w.runPanel()->maxIterations()->setValue(4);
    QSignalSpy finished(&w.session(), &EngineSession::runFinished);
    if (!test::click(w.runPanel()->optimiseButton()) || !test::waitForCount(finished, 1)) return false;
    return test::sampleInView(w, {2, 5}, 6);
}

bool openAndWait(WorkbenchWindow& w, const QString& path) {
    QSignalSpy opened(&w, &WorkbenchWindow::sessionOpened);
    w.openSession(path);
    return opened.wait(kGuiTimeoutMs) && opened.at(0).at(0).toBool();
}

IterationSample iterationSample(int iteration, int evaluations, double nllBits) {
    IterationSample s;
    s.iteration = iteration;
    s.evaluations = evaluations;
    s.nllBits = nllBits;
    s.gradNorm = nllBits / 100;
    s.theta = {-1.5, -2.25, -3};
    s.seconds = 0.125 * iteration;
    s.stats.eIterations = iteration + 2;
    return s;
}

// Compares what sessions keep of an iteration (not its per-family searches).
bool sameSamples(const std::vector<IterationSample>& a, const std::vector<IterationSample>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
        return x.iteration == y.iteration && x.evaluations == y.evaluations && x.nllBits == y.nllBits &&
               x.gradNorm == y.gradNorm && x.theta == y.theta && x.seconds == y.seconds &&
               x.stats.eIterations == y.stats.eIterations;
    });
}

nlohmann::json readJson(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    const QByteArray bytes = file.readAll();
    return nlohmann::json::parse(bytes.begin(), bytes.end());
}
} // namespace

class GuiSession : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() {
        test::isolateSettings("gui_session");
        // The names of the workbench itself: a gpurec-workbench process started with its data
        // folder under this test's (Qt's test mode) autosaves where this suite looks.
        QCoreApplication::setOrganizationName("gpurec");
        QCoreApplication::setApplicationName("gpurec-workbench");
        QFile::remove(WorkbenchWindow::autosavePath());
        QFile::remove(RunMarker::defaultPath());
    }

    void sampledReconciliationsComeBackWithTheSession() {
        const QString path = QString::fromStdString(test::temporaryFolder("gui_session_samples")) + "/s.json";
        Shown before;
        std::vector<double> theta;
        {
            WorkbenchWindow w;
            QVERIFY(makeRun(w));
            before = shown(w);
            theta = w.session().parameters().theta();
            QVERIFY(w.saveSession(path));
        }
        QCOMPARE(before.families, (std::vector<int>{2, 5}));
        QCOMPARE(before.samples.size(), std::size_t{2});
        const nlohmann::json file = readJson(path);
        QCOMPARE(file.at("version").get<int>(), kSessionFormatVersion);
        QCOMPARE(file.at("reconciliations").at("families").size(), std::size_t{2});
        QCOMPARE(file.at("reconciliations").at("families")[0].at("samples").size(), std::size_t{6});

        WorkbenchWindow reopened;
        QVERIFY(test::showActive(reopened));
        QSignalSpy sampled(reopened.reconciliationPanel(), &ReconciliationPanel::sampled);
        QVERIFY(openAndWait(reopened, path));
        QCOMPARE(sampled.count(), 1); // shown once, from the file
        QVERIFY(shown(reopened) == before);
        QCOMPARE(reopened.session().parameters().theta(), theta);
        // Not sampled again: the view says what it shows, not "Sampling …".
        const QString info = reopened.reconciliationPanel()->findChild<QLabel*>("reconciliationInfo")->text();
        QVERIFY2(info.startsWith(before.names[0] + ": 6 sample(s), per sample D "), qPrintable(info));
        QVERIFY(reopened.logView()->toPlainText().contains("Showing 12 reconciliation(s) of 2 family(ies)"));
    }

    void formatTwoSessionsStillOpen() {
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_session_format2"));
        std::vector<double> theta;
        {
            WorkbenchWindow w;
            QVERIFY(makeRun(w));
            theta = w.session().parameters().theta();
            QVERIFY(w.saveSession(dir + "/three.json"));
        }
        // Format 2 is this without the reconciliations (a format 2 reader skips format 4's fields).
        nlohmann::json two = readJson(dir + "/three.json");
        two["version"] = 2;
        two.erase("reconciliations");
        QVERIFY(saveTextFile(dir + "/two.json", two.dump(1)));
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(openAndWait(w, dir + "/two.json"));
        QCOMPARE(w.session().parameters().theta(), theta);
        QVERIFY(w.session().parameters().mode() == RateMode::Specieswise);
        QCOMPARE(w.knobsPanel()->options().pi_tol, 1e-12);
        QVERIFY(w.reconciliationPanel()->groups().empty());
        QCOMPARE(w.problemsPanel()->problemCount(), 0);

        // A sample naming a species the file does not list is refused with where and why.
        nlohmann::json bad = readJson(dir + "/three.json");
        const std::size_t species = bad["reconciliations"]["species"].size();
        bad["reconciliations"]["families"][1]["samples"][2]["nodes"][0][5][0][1] = 999;
        QVERIFY(saveTextFile(dir + "/bad.json", bad.dump(1)));
        try {
            readSessionFile(dir + "/bad.json");
            QFAIL("a bad species index was accepted");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString(e.what()),
                     QString("%1/bad.json: reconciliation 3 of family %2: species 999 is not one "
                             "of the %3 species listed")
                         .arg(dir, QString::fromStdString(w.dataset()->families[5].name))
                         .arg(species));
        }

        // A number too large for its field (the fuzzer's find) is refused by name, not cast.
        nlohmann::json huge = readJson(dir + "/three.json");
        huge["selection"]["view_tab"] = 2.66667e37;
        QVERIFY(saveTextFile(dir + "/huge.json", huge.dump(1)));
        try {
            readSessionFile(dir + "/huge.json");
            QFAIL("a view tab of 2.7e37 was accepted");
        } catch (const std::runtime_error& e) {
            QCOMPARE(QString(e.what()), QString("%1/huge.json: \"view_tab\": expected a whole number from "
                                                "-2147483648 to 2147483647, found 2.66667e+37")
                                            .arg(dir));
        }
    }

    // Format 4's additions, each through the JSON and back; format 3 files read them as defaults.
    void formatFourFieldsRoundTrip() {
        SessionState s;
        s.rowNames = {"global"};
        s.theta = {-1.5, -2.25, -3};
        s.history = {iterationSample(0, 1, 900), iterationSample(1, 4, 850.5)};
        s.keptRuns = {
            {"run 1: converged schedule, L-BFGS-B", {iterationSample(0, 1, 910)}},
            {"run 2: AleRax schedule, Adam", {iterationSample(0, 1, 905), iterationSample(1, 2, 880)}}};
        for (KeptRun& run : s.keptRuns)
            for (IterationSample& sample : run.samples)
                sample.theta.clear(); // as the plots keep them
        s.runNumber = 3;
        s.currentRunKept = true;
        s.circularTree = true;
        s.collapsedClades = {"n3", "leaf name"};
        s.sampleCount = 37;
        s.sampleSeed = 424242;
        s.input.options.origination = Origination::Lca;
        const nlohmann::json json = sessionToJson(s);
        QCOMPARE(json.at("version").get<int>(), kSessionFormatVersion);
        const SessionState back = sessionFromJson(json);
        QVERIFY(sameSamples(back.history, s.history));
        QCOMPARE(back.history[1].evaluations, 4);
        QCOMPARE(back.keptRuns.size(), s.keptRuns.size());
        for (std::size_t r = 0; r < s.keptRuns.size(); ++r) {
            QCOMPARE(back.keptRuns[r].name, s.keptRuns[r].name);
            QVERIFY(sameSamples(back.keptRuns[r].samples, s.keptRuns[r].samples));
        }
        QCOMPARE(back.keptRuns[1].samples[1].evaluations, 2);
        QCOMPARE(back.runNumber, 3);
        QCOMPARE(back.currentRunKept, true);
        QCOMPARE(back.circularTree, true);
        QCOMPARE(back.collapsedClades, s.collapsedClades);
        QCOMPARE(back.sampleCount, 37);
        QCOMPARE(back.sampleSeed, std::uint64_t{424242});
        QVERIFY(back.input.options.origination == Origination::Lca);
        QVERIFY(sessionToJson(back) == json);

        // Format 3: none of these fields; evaluations read as 0, the rest as a new window has them.
        nlohmann::json three = json;
        three["version"] = 3;
        three.erase("plots");
        three.erase("species_tree");
        three["reconciliations"].erase("sample_count");
        three["reconciliations"].erase("seed");
        three["input"].erase("origination");
        for (nlohmann::json& h : three["history"])
            h.erase("evaluations");
        const SessionState old = sessionFromJson(three);
        QVERIFY(sameSamples({old.history[1]}, {iterationSample(1, 0, 850.5)}));
        QVERIFY(old.keptRuns.empty());
        QCOMPARE(old.runNumber, 0);
        QCOMPARE(old.currentRunKept, false);
        QCOMPARE(old.circularTree, false);
        QVERIFY(old.collapsedClades.empty());
        QCOMPARE(old.sampleCount, SamplingSettings{}.samples);
        QCOMPARE(old.sampleSeed, SamplingSettings{}.seed);
        QVERIFY(old.input.options.origination == Origination::Uniform);

        // Format 4 without them, or with impossible values, is refused with the field named.
        auto refused = [](const nlohmann::json& j, const std::string& says) {
            try {
                sessionFromJson(j);
            } catch (const std::exception& e) {
                return std::string(e.what()).find(says) != std::string::npos;
            }
            return false;
        };
        nlohmann::json noPlots = json;
        noPlots.erase("plots");
        QVERIFY(refused(noPlots, "plots"));
        nlohmann::json zeroCount = json;
        zeroCount["reconciliations"]["sample_count"] = 0;
        QVERIFY(refused(zeroCount, "\"sample_count\" must be at least 1"));
        nlohmann::json badSeed = json;
        badSeed["reconciliations"]["seed"] = -5;
        QVERIFY(refused(badSeed, "\"seed\" must be a whole number ≥ 0"));
        nlohmann::json badRun = json;
        badRun["plots"]["run_number"] = -1;
        QVERIFY(refused(badRun, "\"run_number\" is negative"));
        nlohmann::json badOrigination = json;
        badOrigination["input"]["origination"] = "SOMEWHERE";
        QVERIFY(refused(badOrigination, "unknown origination 'SOMEWHERE'"));
        nlohmann::json noEvaluations = json;
        noEvaluations["history"][0].erase("evaluations");
        QVERIFY(refused(noEvaluations, "evaluations"));
    }

    // Format 6's input switches through the JSON and back; format 5 files read them as off, or as
    // given where the file has them (written before the version said so); format 6 needs them.
    void formatSixInputSwitchesRoundTrip() {
        SessionState s;
        s.rowNames = {"global"};
        s.theta = {-1.5, -2.25, -3};
        s.input.paths.highwaysFile = "/data/accepted_highways.txt";
        s.input.options.events.pairwiseTransfers = true;
        s.input.options.pruneSpeciesTree = true;
        const nlohmann::json json = sessionToJson(s);
        QCOMPARE(json.at("version").get<int>(), kSessionFormatVersion);
        const SessionState back = sessionFromJson(json);
        QCOMPARE(back.input.paths.highwaysFile, s.input.paths.highwaysFile);
        QVERIFY(back.input.options.events.pairwiseTransfers);
        QVERIFY(back.input.options.pruneSpeciesTree);
        QVERIFY(sessionToJson(back) == json);

        nlohmann::json five = json;
        five["version"] = 5;
        const SessionState early = sessionFromJson(five);
        QCOMPARE(early.input.paths.highwaysFile, s.input.paths.highwaysFile);
        QVERIFY(early.input.options.events.pairwiseTransfers && early.input.options.pruneSpeciesTree);
        for (const char* key : {"highways_file", "pairwise_transfers", "prune_species_tree"})
            five["input"].erase(key);
        const SessionState old = sessionFromJson(five);
        QVERIFY(old.input.paths.highwaysFile.empty());
        QVERIFY(!old.input.options.events.pairwiseTransfers);
        QVERIFY(!old.input.options.pruneSpeciesTree);

        for (const char* key : {"highways_file", "pairwise_transfers", "prune_species_tree"}) {
            nlohmann::json without = json;
            without["input"].erase(key);
            try {
                sessionFromJson(without);
                QFAIL(qPrintable(QString("a format 6 session without \"%1\" was accepted").arg(key)));
            } catch (const std::exception& e) {
                QVERIFY2(std::string(e.what()).find(key) != std::string::npos, e.what());
            }
        }
    }

    // A format 5 session without the switches opens into a window that has pairwise transfers
    // loaded: the session's data comes back without them, with its rates.
    void aFormatFiveSessionOpensWithoutTransferPairs() {
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_session_format5"));
        std::vector<double> theta;
        {
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QVERIFY(loadInto(w, teachingRequest()));
            QVERIFY(test::click(w.runPanel()->evaluateButton()));
            QTRY_VERIFY(!w.session().running());
            theta = w.session().parameters().theta();
            QVERIFY(w.saveSession(dir + "/six.json"));
        }
        nlohmann::json five = readJson(dir + "/six.json");
        five["version"] = 5;
        for (const char* key : {"highways_file", "pairwise_transfers", "prune_species_tree"})
            five["input"].erase(key);
        QVERIFY(saveTextFile(dir + "/five.json", five.dump(1)));

        LoadRequest pairwise = teachingRequest();
        pairwise.options.events.pairwiseTransfers = true;
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, pairwise));
        QVERIFY(!w.dataset()->highways.empty());
        QVERIFY(openAndWait(w, dir + "/five.json"));
        QVERIFY(!w.dataset()->events.pairwiseTransfers);
        QVERIFY(w.dataset()->highways.empty());
        QVERIFY(!w.lastRequest().options.pruneSpeciesTree);
        QCOMPARE(w.session().parameters().theta(), theta);
        QCOMPARE(w.problemsPanel()->problemCount(), 0);
    }

    // The species tree's layout and collapsed clades, the kept run and the sampling settings come
    // back into a shown window: the view draws them, the plots overlay the kept run.
    void viewsKeptRunsAndSamplingComeBackIntoAVisibleWindow() {
        const QString path = QString::fromStdString(test::temporaryFolder("gui_session_views")) + "/s.json";
        std::vector<IterationSample> history;
        QString keptName;
        std::vector<int> collapsed;
        {
            WorkbenchWindow w;
            QVERIFY(makeRun(w)); // 6 samples per family: not the default count
            QVERIFY(w.livePlots()->keepAsOverlay());
            keptName = w.livePlots()->overlays().front().name;
            history = w.livePlots()->samples();
            QVERIFY(history.size() >= 2);
            QVERIFY(history.back().evaluations > history.front().evaluations);
            w.speciesTreePanel()->findChild<QCheckBox*>("circularLayout")->setChecked(true);
            const SpeciesTree& tree = w.dataset()->species;
            collapsed = {tree.left(tree.root()), tree.right(tree.right(tree.root()))};
            for (int node : collapsed) {
                QVERIFY(!tree.isLeaf(node));
                w.speciesTreePanel()->view()->setCollapsed(node, true);
            }
            w.reconciliationPanel()->findChild<QSpinBox*>("sampleSeed")->setValue(777);
            QVERIFY(w.saveSession(path));
        }
        QCOMPARE(readJson(path).at("version").get<int>(), kSessionFormatVersion);

        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(openAndWait(w, path));
        SpeciesTreeView* view = w.speciesTreePanel()->view();
        QVERIFY(view->isVisible());
        QVERIFY(view->circular());
        QVERIFY(w.speciesTreePanel()->findChild<QCheckBox*>("circularLayout")->isChecked());
        for (int node = 0; node < w.dataset()->species.size(); ++node)
            QCOMPARE(view->isCollapsed(node),
                     std::find(collapsed.begin(), collapsed.end(), node) != collapsed.end());

        LivePlots* plots = w.livePlots();
        QVERIFY(sameSamples(plots->samples(), history));
        QCOMPARE(plots->overlays().size(), std::size_t{1});
        QCOMPARE(plots->overlays().front().name, keptName);
        std::vector<IterationSample> withoutRates = history;
        for (IterationSample& sample : withoutRates)
            sample.theta.clear();
        QVERIFY(sameSamples(plots->overlays().front().samples, withoutRates));
        // Drawn: the loss plot has the kept run's line with a point per iteration.
        plots->replotNow();
        bool drawn = false;
        for (int g = 0; g < plots->lossPlot()->graphCount(); ++g)
            drawn = drawn || (plots->lossPlot()->graph(g)->name() == keptName &&
                              plots->lossPlot()->graph(g)->dataCount() == static_cast<int>(history.size()));
        QVERIFY(drawn);
        // The current run is that kept run: not offered again, but its overlay can be cleared.
        QVERIFY(plots->currentRunKept());
        QVERIFY(!plots->keepOverlayButton()->isEnabled());
        QVERIFY(plots->clearOverlaysButton()->isEnabled());
        // Plotted against evaluations, the points stand where the run put them.
        plots->setXAxis(LivePlots::XAxis::Evaluations);
        QCOMPARE(test::plotKeys(plots->lossPlot(), 0).back(), double(history.back().evaluations));

        QCOMPARE(w.reconciliationPanel()->sampleCount(), 6);
        QCOMPARE(w.reconciliationPanel()->findChild<QSpinBox*>("sampleCount")->value(), 6);
        QCOMPARE(w.reconciliationPanel()->sampleSeed(), std::uint64_t{777});
    }

    // Collapsing a clade is a change worth keeping on its own: nothing else happening, a double
    // click on the clade's branch writes an autosave that holds exactly that clade.
    void collapsingACladeAutosaves() {
        const QString autosave = WorkbenchWindow::autosavePath();
        QFile::remove(autosave);
        WorkbenchWindow w;
        QVERIFY(test::showActive(w));
        QVERIFY(loadInto(w, teachingRequest()));
        // Loading autosaves shortly after; wait for that write and then for quiet (no rewrite
        // for a second), so the only write left to come is the one the collapse asks for.
        QVERIFY(QTest::qWaitFor([&] { return QFileInfo::exists(autosave); }, kGuiTimeoutMs));
        QDateTime written = QFileInfo(autosave).lastModified();
        for (int quiet = 0; quiet < 10;) {
            QTest::qWait(100);
            const QDateTime now = QFileInfo(autosave).lastModified();
            quiet = now == written ? quiet + 1 : 0;
            written = now;
        }
        QVERIFY(readSessionFile(autosave).collapsedClades.empty());
        QVERIFY(QFile::remove(autosave));

        SpeciesTreeView* view = w.speciesTreePanel()->view();
        QVERIFY(view->isVisible());
        const int node = w.dataset()->species.find("Enterobacterales");
        QVERIFY(node >= 0 && !w.dataset()->species.isLeaf(node));
        view->centerOn(view->nodePosition(node));
        const QPoint at = view->mapFromScene(view->nodePosition(node));
        QVERIFY(view->viewport()->visibleRegion().contains(at));
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
        QVERIFY(view->isCollapsed(node));

        QVERIFY(QTest::qWaitFor([&] { return QFileInfo::exists(autosave); }, 5000));
        QCOMPARE(readSessionFile(autosave).collapsedClades, std::vector<std::string>{"Enterobacterales"});
    }

    void killedWorkbenchIsOfferedBackOnTheNextStart() {
        const QString dir = QString::fromStdString(test::temporaryFolder("gui_session_crash"));
        const QString path = dir + "/run.json";
        Shown samples;
        std::vector<double> theta;
        std::vector<IterationSample> history;
        {
            WorkbenchWindow w;
            QVERIFY(makeRun(w));
            samples = shown(w);
            theta = w.session().parameters().theta();
            history = w.livePlots()->samples();
            QVERIFY(w.saveSession(path));
        }
        QFile::remove(WorkbenchWindow::autosavePath());
        // A real workbench opens the session, autosaves it, and is killed.
        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("XDG_DATA_HOME", QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation));
        env.insert("XDG_CONFIG_HOME", dir + "/config");
        child.setProcessEnvironment(env);
        child.start(QString::fromStdString(test::pathOr("GPUREC_TEST_WORKBENCH", GPUREC_WORKBENCH_PATH)),
                    {"--open-session", path, "--device", "cpu", "--restore-autosave", "no"});
        QVERIFY(child.waitForStarted());
        auto autosaved = [&] {
            try {
                const SessionState s = readSessionFile(WorkbenchWindow::autosavePath());
                return s.theta == theta && s.sampled.size() == 2;
            } catch (const std::exception&) {
                return false; // not written yet
            }
        };
        QVERIFY2(QTest::qWaitFor(autosaved, 2 * kGuiTimeoutMs), qPrintable(child.readAllStandardError()));
        QVERIFY(QFileInfo::exists(RunMarker::defaultPath()));
        child.kill();
        QVERIFY(child.waitForFinished());
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        QVERIFY(QFileInfo::exists(RunMarker::defaultPath())); // left behind

        {
            const RunMarker marker;
            QVERIFY(marker.uncleanExitFound());
            QVERIFY(!marker.otherInstanceRunning());
            WorkbenchWindow w;
            QVERIFY(test::showActive(w));
            QSignalSpy opened(&w, &WorkbenchWindow::sessionOpened);
            {
                // Discard: the window stays empty.
                auto discard = test::answerMessageBox("restoreAutosavePrompt", QMessageBox::Discard);
                QVERIFY(!offerAutosaveRestore(w, marker, RestoreAnswer::Ask));
                QVERIFY(!w.dataset());
                QCOMPARE(opened.count(), 0);
            }
            QString question;
            auto answer = test::answerMessageBox("restoreAutosavePrompt", QMessageBox::Yes, &question);
            QVERIFY(offerAutosaveRestore(w, marker, RestoreAnswer::Ask));
            QVERIFY(
                question.startsWith("The workbench did not exit cleanly last time. Restore the session it "
                                    "autosaved at "));
            QVERIFY(opened.wait(kGuiTimeoutMs));
            QVERIFY(opened.at(0).at(0).toBool());
            QCOMPARE(w.session().parameters().theta(), theta);
            QVERIFY(w.session().parameters().mode() == RateMode::Specieswise);
            QCOMPARE(w.runPanel()->parametrization(), std::string("PER-SPECIES"));
            QCOMPARE(w.knobsPanel()->options().pi_tol, 1e-12);
            QCOMPARE(w.knobsPanel()->options().neumann_terms, 5);
            const OptimizerSettings settings = w.runPanel()->optimizerSettings();
            QVERIFY(settings.kind == OptimizerKind::Adam);
            QCOMPARE(settings.max_iter, 4);
            QCOMPARE(w.livePlots()->pointCount(), static_cast<int>(history.size()));
            QCOMPARE(w.livePlots()->samples().back().theta, history.back().theta);
            QVERIFY(shown(w) == samples);
            // While this "workbench" runs, the marker is held: a second start finds it taken.
            const RunMarker second;
            QVERIFY(second.otherInstanceRunning());
            QVERIFY(!second.uncleanExitFound());
            QVERIFY(!offerAutosaveRestore(w, second, RestoreAnswer::Ask));
        }
        // A clean exit removed the marker: nothing is offered on the next start.
        QVERIFY(!QFileInfo::exists(RunMarker::defaultPath()));
        const RunMarker next;
        QVERIFY(!next.uncleanExitFound());
        WorkbenchWindow w;
        QVERIFY(!offerAutosaveRestore(w, next, RestoreAnswer::Restore));
        QVERIFY(QFileInfo::exists(WorkbenchWindow::autosavePath())); // still there for File ▸ Open autosaved
    }

    void restoreAnswerOptionIsParsed() {
        QCOMPARE(parseRestoreAnswer("no"), RestoreAnswer::Discard);
        QCOMPARE(parseRestoreAnswer("yes"), RestoreAnswer::Restore);
        QCOMPARE(parseRestoreAnswer("ask"), RestoreAnswer::Ask);
        try {
            parseRestoreAnswer("maybe");
            QFAIL("accepted");
        } catch (const std::invalid_argument& e) {
            QCOMPARE(QString(e.what()), QString("--restore-autosave must be ask, yes or no, not 'maybe'"));
        }
    }
};

QTEST_MAIN(GuiSession)
#include "test_gui_session.moc"
