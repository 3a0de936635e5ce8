// Nothing lost: sampled reconciliations kept in sessions (format 3, format 2 still read), and the
// autosave offered back after a workbench was killed (a real gpurec-workbench process, SIGKILL).
#include "gui_test_support.hpp"
#include "panels/problems_panel.hpp"
#include "panels/run_panel.hpp"
#include "panels/solver_knobs_panel.hpp"
#include "plots/live_plots.hpp"
#include "recon/recphyloxml.hpp"
#include "session/crash_recovery.hpp"
#include "session/save_file.hpp"
#include "session/session_file.hpp"
#include "window/workbench_window.hpp"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QProcess>
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
        QCOMPARE(file.at("version").get<int>(), 3);
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
        // Format 2 is format 3 without the reconciliations.
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
            QVERIFY(w.runPanel()->rateMode() == RateMode::Specieswise);
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
