#pragma once
// The engine on a worker thread: owns the ReconModel, runs evaluations and optimisations one at a
// time, and reports back on the GUI thread. Control of a running optimisation (pause, stop, solver
// options, warm starts) goes through RunControl and takes effect between iterations; the panels'
// table requests are answered by the session's backend when idle and between iterations.
#include "engine/backend.hpp"
#include "optim/optimizer.hpp"
#include "optim/recon_model.hpp"
#include "worker/run_control.hpp"
#include "worker/table_requests.hpp"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <mutex>

namespace gpurec::ui {

struct IterationSample {
    int iteration = 0;
    int evaluations = 0; // likelihood evaluations since the start of the run (line-search trials included)
    double nllBits = 0.0;
    double gradNorm = 0.0;
    std::vector<double> theta;
    SolverStats stats; // of the iteration's last evaluation
    double seconds = 0.0;
    // Genewise L-BFGS-B only: each family's own search (empty otherwise; not kept in sessions).
    std::vector<FamilyProgress> families;
};

enum class RunKind { Evaluation, Optimisation };

struct RunOutcome {
    RunKind kind = RunKind::Evaluation;
    QString error; // empty on success
    RateParameters theta;
    double nllBits = 0.0;
    std::vector<double> familyLogLikelihood; // natural log, at `theta`
    SolverStats stats;                       // of the final evaluation
    int iterations = 0;
    bool converged = false;
    bool stopped = false; // ended by stop(): stopReason is the reason given to it
    QString stopReason;
};

class EngineSession : public QObject {
    Q_OBJECT
  public:
    explicit EngineSession(QObject* parent = nullptr);
    ~EngineSession() override;

    // Replaces the model (stopping any run): the backend for `device` is built on the worker.
    void open(const std::shared_ptr<const Dataset>& data, const QString& device, const BatchLimits& limits,
              const RateParameters& theta, const SolverOptions& options);
    // Rebuilds the backend of the current dataset, keeping rates and options. Between runs only:
    // during a run it changes nothing, logs why and returns false (stop the run first).
    bool changeDevice(const QString& device, const BatchLimits& limits);
    void evaluate();
    void optimise(const OptimizerSettings& settings);
    // While idle only (the Run panel disables rate edits during runs).
    void setParameters(const RateParameters& theta);
    // Idle: applied now; running: applied before the next iteration.
    void setSolverOptions(const SolverOptions& options);
    void clearWarmStarts();
    void pause();
    void resume();
    // Ends a run after its current iteration; `reason` becomes its stop reason.
    void stop(const QString& reason = QStringLiteral("stopped by you"));

    // Where the panels ask for tables (see TableRequests): shared, so a panel's task that outlives
    // the session gets an error instead of a dangling session.
    std::shared_ptr<TableRequests> tableRequests() const { return tables_; }

    bool running() const { return running_; }
    bool paused() const { return paused_; }
    const RateParameters& parameters() const { return theta_; }

  signals:
    void modelReady(const QString& device, const QString& note, const QString& plan);
    void modelFailed(const QString& message);
    void runStarted(gpurec::ui::RunKind kind);
    void iterationFinished(const gpurec::ui::IterationSample& sample);
    void pausedChanged(bool paused);
    void runFinished(const gpurec::ui::RunOutcome& outcome);
    void parametersChanged(const gpurec::RateParameters& theta);
    void logMessage(const QString& text);

  private:
    // Runs `job` on the worker thread after the jobs already queued.
    void submit(std::function<void()> job);
    // Runs `fn` on the GUI thread (from the worker).
    void post(std::function<void()> fn);
    void startRun(RunKind kind, std::function<RunOutcome()> work);
    void applyPendingControl(int iteration);
    RunOutcome finishWith(RunKind kind);
    void serveTables(); // worker thread

    QThreadPool worker_; // one thread: the model is used by one job at a time
    RunControl control_;
    std::unique_ptr<ReconModel> model_; // touched on the worker thread only
    std::shared_ptr<TableRequests> tables_;
    std::mutex openedMutex_;
    std::shared_ptr<const Dataset> opened_;   // the data of the last open(): its requests wait for it
    std::shared_ptr<const Dataset> builtFor_; // worker thread: the data of the last open job run
    // GUI-thread view of the model.
    std::shared_ptr<const Dataset> data_;
    RateParameters theta_;
    SolverOptions options_;
    bool running_ = false;
    bool paused_ = false;
    QString stopReason_;
    int generation_ = 0; // bumped by open(): reports of a run on replaced data are dropped
};

} // namespace gpurec::ui

Q_DECLARE_METATYPE(gpurec::ui::IterationSample)
Q_DECLARE_METATYPE(gpurec::ui::RunOutcome)
Q_DECLARE_METATYPE(gpurec::ui::RunKind)
