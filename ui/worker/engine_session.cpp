#include "worker/engine_session.hpp"

#include "engine/backend_factory.hpp"

#include <QMetaObject>
#include <stdexcept>

namespace gpurec::ui {

namespace {
// "pi_iters 200 → 2, e_tol 1e-15 → 1e-12" for the fields that differ.
QString describeChanges(const SolverOptions& before, const SolverOptions& after) {
    QStringList parts;
    for (const SolverOptionInfo& info : solverOptionInfo()) {
        std::string a = getSolverOption(before, info.name), b = getSolverOption(after, info.name);
        if (a != b)
            parts << QString("%1 %2 → %3")
                         .arg(QString::fromStdString(info.name), QString::fromStdString(a),
                              QString::fromStdString(b));
    }
    return parts.join(", ");
}
} // namespace

EngineSession::EngineSession(QObject* parent) : QObject(parent) {
    worker_.setMaxThreadCount(1);
    worker_.setExpiryTimeout(-1); // keep one thread: OpenMP keeps its team per calling thread
    // Idle, the queued job answers; during a run the next checkpoint does, paused or not.
    tables_ = std::make_shared<TableRequests>([this] {
        submit([this] { serveTables(); });
        control_.nudge();
    });
}

EngineSession::~EngineSession() {
    tables_->close("the workbench's engine was closed");
    worker_.clear();
    control_.requestStop();
    worker_.waitForDone();
}

void EngineSession::submit(std::function<void()> job) {
    worker_.start([this, job = std::move(job)] {
        try {
            job();
        } catch (const std::exception& e) { // an exception must not leave the pool thread
            post([this, m = QString::fromStdString(e.what())] { emit logMessage("Engine error: " + m); });
        }
    });
}

void EngineSession::post(std::function<void()> fn) {
    QMetaObject::invokeMethod(this, std::move(fn), Qt::QueuedConnection);
}

void EngineSession::serveTables() {
    std::shared_ptr<const Dataset> opened;
    {
        std::lock_guard lock(openedMutex_);
        opened = opened_;
    }
    tables_->serve(
        [this](const TableRequest& r) {
            if (!model_) throw std::runtime_error("no engine: the device could not be opened");
            if (&model_->dataset() != r.data.get())
                throw std::runtime_error("other data was loaded: these tables are no longer available");
            return model_->backend().familyTables(r.theta, r.options, r.families);
        },
        [this, &opened](const TableRequest& r) {
            // Data opened but its backend not built yet: the open job answers them when done.
            return r.data == opened && builtFor_ != opened;
        });
}

void EngineSession::open(const std::shared_ptr<const Dataset>& data, const QString& device,
                         const BatchLimits& limits, const RateParameters& theta,
                         const SolverOptions& options) {
    stop(QStringLiteral("stopped: other data was loaded"));
    ++generation_;
    {
        std::lock_guard lock(openedMutex_);
        opened_ = data;
    }
    data_ = data;
    theta_ = theta;
    options_ = options;
    emit parametersChanged(theta_);
    submit([this, data, device, limits, theta, options] {
        try {
            BackendChoice choice = selectBackend(device.toStdString(), data, limits);
            QString plan = QString::fromStdString(choice.backend->planSummary());
            model_ = std::make_unique<ReconModel>(data, std::move(choice.backend), theta, options);
            post([this, d = QString::fromStdString(choice.description),
                  n = QString::fromStdString(choice.note), plan] { emit modelReady(d, n, plan); });
        } catch (const std::exception& e) {
            model_.reset();
            post([this, m = QString::fromStdString(e.what())] { emit modelFailed(m); });
        }
        builtFor_ = data;
        serveTables();
    });
}

bool EngineSession::changeDevice(const QString& device, const BatchLimits& limits) {
    if (!data_) return false;
    if (running_) {
        emit logMessage(
            QString("The device stays as it is during a run: stop the run to change it to %1").arg(device));
        return false;
    }
    submit([this, data = data_, device, limits, theta = theta_, options = options_] {
        try {
            BackendChoice choice = selectBackend(device.toStdString(), data, limits);
            QString plan = QString::fromStdString(choice.backend->planSummary());
            RateParameters current = model_ ? model_->parameters() : theta;
            SolverOptions currentOptions = model_ ? model_->solverOptions() : options;
            model_ = std::make_unique<ReconModel>(data, std::move(choice.backend), current, currentOptions);
            post([this, d = QString::fromStdString(choice.description),
                  n = QString::fromStdString(choice.note), plan] { emit modelReady(d, n, plan); });
        } catch (const std::exception& e) {
            model_.reset();
            post([this, m = QString::fromStdString(e.what())] { emit modelFailed(m); });
        }
        serveTables();
    });
    return true;
}

RunOutcome EngineSession::finishWith(RunKind kind) {
    RunOutcome out;
    out.kind = kind;
    out.theta = model_->parameters();
    const Evaluation& ev = model_->lastEvaluation();
    out.nllBits = ev.totalNllBits;
    out.familyLogLikelihood = ev.logLikelihood;
    out.stats = ev.stats;
    return out;
}

void EngineSession::startRun(RunKind kind, std::function<RunOutcome()> work) {
    if (!data_ || running_) return;
    running_ = true;
    paused_ = false;
    stopReason_.clear();
    control_.reset();
    emit runStarted(kind);
    submit([this, kind, work = std::move(work), generation = generation_] {
        RunOutcome outcome;
        try {
            if (!model_) throw std::runtime_error("no engine: the device could not be opened");
            outcome = work();
        } catch (const std::exception& e) {
            outcome.kind = kind;
            outcome.error = QString::fromStdString(e.what());
            if (model_) outcome.theta = model_->parameters();
        }
        post([this, outcome, generation]() mutable {
            running_ = false;
            paused_ = false;
            if (generation != generation_) {
                RunOutcome stale;
                stale.kind = outcome.kind;
                stale.error = "the run was stopped: other data was loaded";
                emit runFinished(stale);
                return;
            }
            if (!outcome.theta.theta().empty()) theta_ = outcome.theta;
            if (outcome.stopped) outcome.stopReason = stopReason_;
            // Requests that arrived after the worker's last checkpoint still apply.
            if (auto late = control_.takeOptions()) setSolverOptions(*late);
            if (control_.takeClearWarmStarts()) clearWarmStarts();
            emit parametersChanged(theta_);
            emit runFinished(outcome);
        });
    });
}

void EngineSession::evaluate() {
    startRun(RunKind::Evaluation, [this] {
        model_->evaluate();
        return finishWith(RunKind::Evaluation);
    });
}

void EngineSession::applyPendingControl(int iteration) {
    if (auto options = control_.takeOptions()) {
        QString changes = describeChanges(model_->solverOptions(), *options);
        model_->setSolverOptions(*options);
        if (!changes.isEmpty())
            post([this, changes, iteration] {
                emit logMessage(QString("After iteration %1: solver options %2 (used from iteration %3 on)")
                                    .arg(iteration)
                                    .arg(changes)
                                    .arg(iteration + 1));
            });
    }
    if (control_.takeClearWarmStarts()) {
        model_->clearWarmStarts();
        post([this, iteration] {
            emit logMessage(QString("After iteration %1: warm starts cleared").arg(iteration));
        });
    }
}

void EngineSession::optimise(const OptimizerSettings& settings) {
    startRun(RunKind::Optimisation, [this, settings, generation = generation_] {
        bool stopped = false;
        ProgressCallback progress = [this, generation, &stopped](const IterationReport& report) {
            IterationSample sample{report.iteration,
                                   report.evaluations,
                                   report.nllBits,
                                   report.gradNorm,
                                   report.theta ? report.theta->theta() : std::vector<double>{},
                                   report.stats,
                                   report.seconds,
                                   report.families ? *report.families : std::vector<FamilyProgress>{}};
            post([this, sample, generation] {
                if (generation != generation_) return;
                if (sample.theta.size() == theta_.theta().size()) {
                    theta_.theta() = sample.theta;
                    emit parametersChanged(theta_);
                }
                emit iterationFinished(sample);
            });
            serveTables();
            bool go = control_.checkpoint(
                [this] {
                    post([this] {
                        paused_ = true;
                        emit pausedChanged(true);
                    });
                },
                [this] {
                    post([this] {
                        paused_ = false;
                        emit pausedChanged(false);
                    });
                },
                [this] { serveTables(); });
            if (go) applyPendingControl(report.iteration);
            stopped = !go;
            return go;
        };
        OptimizationResult result = optimizeRates(*model_, settings, progress);
        applyPendingControl(result.iterations);
        RunOutcome out = finishWith(RunKind::Optimisation); // the model holds the best θ and its evaluation
        out.iterations = result.iterations;
        out.converged = result.converged;
        out.stopped = stopped;
        out.stopReason = QString::fromStdString(result.stopReason);
        return out;
    });
}

void EngineSession::setParameters(const RateParameters& theta) {
    if (!data_ || running_) return;
    theta_ = theta;
    emit parametersChanged(theta_);
    submit([this, theta] {
        if (model_) model_->setParameters(theta);
    });
}

void EngineSession::setSolverOptions(const SolverOptions& options) {
    QString changes = describeChanges(options_, options);
    options_ = options;
    if (running_) {
        control_.submitOptions(options);
        emit logMessage(QString("Solver options %1: will apply from the next iteration").arg(changes));
        return;
    }
    submit([this, options] {
        if (model_) model_->setSolverOptions(options);
    });
    if (data_ && !changes.isEmpty()) emit logMessage(QString("Solver options %1").arg(changes));
}

void EngineSession::clearWarmStarts() {
    if (running_) {
        control_.requestClearWarmStarts();
        emit logMessage("Warm starts will be cleared before the next iteration");
        return;
    }
    submit([this] {
        if (model_) model_->clearWarmStarts();
    });
    emit logMessage("Warm starts cleared");
}

void EngineSession::pause() {
    if (running_) control_.requestPause();
}

void EngineSession::resume() {
    control_.resume();
}

void EngineSession::stop(const QString& reason) {
    if (!running_) return;
    stopReason_ = reason;
    control_.requestStop();
}

} // namespace gpurec::ui
