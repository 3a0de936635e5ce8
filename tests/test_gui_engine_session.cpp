// The workbench's engine thread answers the panels' table requests with its own backend: when
// idle, between a run's iterations and while a run is paused, and for data still being opened; a
// request for replaced data, for a session whose device failed or for a closed session fails with
// a message instead of waiting forever.
#include "simulated_data.hpp"
#include "support.hpp"
#include "worker/engine_session.hpp"

#include <QSignalSpy>
#include <QtConcurrent/QtConcurrentRun>
#include <QtTest>
#include <stdexcept>

using namespace gpurec;
using namespace gpurec::ui;

namespace {
constexpr int kTimeoutMs = 60000;

std::shared_ptr<const Dataset> smallDataset(std::uint64_t seed) {
    const SpeciesTree species = test::simulatedSpeciesTree(8, seed);
    return test::simulatedDataset(
        species, 6,
        [](int) {
            return Rates{0.2, 0.3, 0.1};
        },
        seed);
}

RateParameters startingRates(const Dataset& data) {
    return RateParameters(RateMode::Global, data.species.size(), static_cast<int>(data.families.size()),
                          Rates{0.05, 0.05, 0.05});
}

// Asks from a pool thread, as the panels do.
QFuture<std::vector<FamilyTables>> askFromAnotherThread(const FamilyTablesSource& source,
                                                        const RateParameters& theta,
                                                        const std::vector<int>& families) {
    return QtConcurrent::run([source, theta, families] { return source(theta, SolverOptions{}, families); });
}

// Waits for `future` while the GUI thread's event loop runs (the session posts to it).
bool finishes(QFuture<std::vector<FamilyTables>>& future) {
    QElapsedTimer clock;
    clock.start();
    while (!future.isFinished() && clock.elapsed() < kTimeoutMs)
        QTest::qWait(5);
    return future.isFinished();
}

// The message of what the request threw (QtConcurrent wraps it in QUnhandledException).
QString failureOf(QFuture<std::vector<FamilyTables>>& future) {
    try {
        try {
            future.result();
        } catch (const QUnhandledException& wrapped) {
            if (wrapped.exception()) std::rethrow_exception(wrapped.exception());
            throw;
        }
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

// The reference: the CPU backend's own tables of `families` at θ.
void compareWithCpu(const std::shared_ptr<const Dataset>& data, const RateParameters& theta,
                    const std::vector<int>& families, const std::vector<FamilyTables>& got) {
    const std::vector<FamilyTables> want =
        makeCpuBackend(data)->familyTables(theta, SolverOptions{}, families);
    QCOMPARE(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        QCOMPARE(got[i].E, want[i].E);
        QCOMPARE(got[i].Ebar, want[i].Ebar);
        QCOMPARE(got[i].clades.scale, want[i].clades.scale);
        QVERIFY(got[i].clades.clades == want[i].clades.clades && got[i].clades.clades > 0);
        for (int c = 0; c < got[i].clades.clades; ++c)
            for (int e = 0; e < got[i].clades.species; ++e)
                QCOMPARE(got[i].clades.piRow(c)[e], want[i].clades.piRow(c)[e]);
    }
}
} // namespace

class TestEngineSessionTables : public QObject {
    Q_OBJECT
  private slots:
    void requestsBeforeTheEngineIsBuiltWaitForIt() {
        EngineSession session;
        auto data = smallDataset(11);
        const RateParameters theta = startingRates(*data);
        session.open(data, "cpu", {}, theta, {});
        // Asked at once: the backend is still being built on the engine thread.
        auto future = askFromAnotherThread(sessionTables(session.tableRequests(), data), theta, {2, 0});
        QVERIFY(finishes(future));
        QCOMPARE(failureOf(future), QString());
        compareWithCpu(data, theta, {2, 0}, future.result());
    }

    void aPausedRunAnswersAndKeepsRunning() {
        EngineSession session;
        auto data = smallDataset(12);
        QSignalSpy ready(&session, &EngineSession::modelReady);
        session.open(data, "cpu", {}, startingRates(*data), {});
        QVERIFY(ready.wait(kTimeoutMs));
        QSignalSpy iterations(&session, &EngineSession::iterationFinished);
        QSignalSpy paused(&session, &EngineSession::pausedChanged);
        QSignalSpy finished(&session, &EngineSession::runFinished);
        OptimizerSettings settings;
        settings.max_iter = 50;
        settings.grad_tol = 1e-12;
        settings.rel_tol = 1e-15;
        session.pause(); // before the run: ignored
        session.optimise(settings);
        session.pause(); // holds the run at its first checkpoint
        QVERIFY(paused.wait(kTimeoutMs));
        QVERIFY(paused.last().at(0).toBool());
        QVERIFY(session.paused() && session.running());
        const int seen = static_cast<int>(iterations.size());
        QVERIFY(seen >= 1);

        const RateParameters theta = session.parameters(); // the run's current point
        auto future = askFromAnotherThread(sessionTables(session.tableRequests(), data), theta, {1, 3, 5});
        QVERIFY(finishes(future));
        QCOMPARE(failureOf(future), QString());
        compareWithCpu(data, theta, {1, 3, 5}, future.result());
        QVERIFY(session.paused());
        QCOMPARE(static_cast<int>(iterations.size()), seen); // answered without stepping the run

        session.resume();
        QVERIFY(iterations.wait(kTimeoutMs)); // the run goes on after answering
        session.stop();
        QVERIFY(finished.wait(kTimeoutMs) || !finished.isEmpty());
        QVERIFY(finished.last().at(0).value<RunOutcome>().error.isEmpty());
    }

    void replacedDataFailedDevicesAndClosedSessionsSayWhy() {
        auto first = smallDataset(13), second = smallDataset(14);
        const RateParameters theta = startingRates(*first);
        FamilyTablesSource stale, closed;
        {
            EngineSession session;
            QSignalSpy ready(&session, &EngineSession::modelReady);
            session.open(first, "cpu", {}, theta, {});
            QVERIFY(ready.wait(kTimeoutMs));
            stale = sessionTables(session.tableRequests(), first);
            session.open(second, "cpu", {}, startingRates(*second), {});
            QVERIFY(ready.wait(kTimeoutMs));
            auto future = askFromAnotherThread(stale, theta, {0});
            QVERIFY(finishes(future));
            QVERIFY2(failureOf(future).contains("other data was loaded"), qPrintable(failureOf(future)));

            QSignalSpy failed(&session, &EngineSession::modelFailed);
            QVERIFY(session.changeDevice("cuda:7", {})); // no build or machine has that device
            QVERIFY(failed.wait(kTimeoutMs));
            auto none = askFromAnotherThread(sessionTables(session.tableRequests(), second), theta, {0});
            QVERIFY(finishes(none));
            QVERIFY2(failureOf(none).contains("no engine"), qPrintable(failureOf(none)));
            closed = sessionTables(session.tableRequests(), second);
        }
        auto future = askFromAnotherThread(closed, theta, {0});
        QVERIFY(finishes(future));
        QVERIFY2(failureOf(future).contains("engine was closed"), qPrintable(failureOf(future)));
    }
};

QTEST_MAIN(TestEngineSessionTables)
#include "test_gui_engine_session.moc"
