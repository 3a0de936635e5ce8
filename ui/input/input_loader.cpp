#include "input/input_loader.hpp"

#include "io/input_error.hpp"
#include "sim/simulation.hpp"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMetaObject>
#include <QRegularExpression>
#include <atomic>

namespace gpurec::ui {

LoadProblem parseProblem(LoadProblem::Kind kind, const QString& family, const QString& message) {
    static const QRegularExpression located(R"(^(.+?):(\d+)(?::(\d+))?: (.+)$)",
                                            QRegularExpression::DotMatchesEverythingOption);
    static const QRegularExpression fileOnly(R"(^(.+?): (.+)$)",
                                             QRegularExpression::DotMatchesEverythingOption);
    LoadProblem p;
    p.kind = kind;
    p.family = family;
    p.reason = message;
    if (kind == LoadProblem::Kind::Excluded) return p;
    if (auto m = located.match(message); m.hasMatch()) {
        p.file = m.captured(1);
        p.line = m.captured(2).toInt();
        p.column = m.captured(3).toInt();
        p.reason = m.captured(4);
    } else if (auto f = fileOnly.match(message); f.hasMatch()) {
        p.file = f.captured(1);
        p.reason = f.captured(2);
    }
    if (p.file == "<input>") p.file.clear();
    return p;
}

QString truthFileFor(const InputPaths& paths) {
    QStringList folders;
    for (const std::string& file : {paths.familiesFile, paths.speciesTree})
        if (!file.empty()) folders << QFileInfo(QString::fromStdString(file)).absolutePath();
    if (!paths.geneTrees.empty()) {
        QDir geneTrees = QFileInfo(QString::fromStdString(paths.geneTrees.front())).absoluteDir();
        folders << geneTrees.absolutePath();
        if (geneTrees.cdUp()) folders << geneTrees.absolutePath();
    }
    for (const QString& folder : folders) {
        const QString path = QString::fromStdString(truthReconciliationsPath(folder.toStdString()));
        if (QFileInfo(path).isFile()) return path;
    }
    return {};
}

namespace {
// Not fatal: the dataset is usable without its truth.
void loadTruth(LoadOutcome& out) {
    out.truthFile = truthFileFor(out.request.paths);
    if (out.truthFile.isEmpty()) return;
    try {
        out.truth = std::make_shared<RecPhyloDocument>(readRecPhyloXml(out.truthFile.toStdString()));
    } catch (const InputError& e) {
        out.problems.push_back({LoadProblem::Kind::Error,
                                {},
                                QString::fromStdString(e.file()),
                                e.line(),
                                e.column(),
                                "true reconciliations not shown: " + QString::fromStdString(e.problem())});
    } catch (const std::exception& e) {
        out.problems.push_back({LoadProblem::Kind::Error,
                                {},
                                out.truthFile,
                                0,
                                0,
                                "true reconciliations not shown: " + QString::fromStdString(e.what())});
    }
}

LoadOutcome loadNow(const LoadRequest& request, const std::function<void(int, int)>& progress) {
    QElapsedTimer timer;
    timer.start();
    LoadOutcome out;
    out.request = request;
    try {
        LoadedInput loaded = loadInput(request.paths, request.constraint, request.options, progress);
        for (const FamilyProblem& e : loaded.errors)
            out.problems.push_back(parseProblem(LoadProblem::Kind::Error, QString::fromStdString(e.family),
                                                QString::fromStdString(e.message)));
        for (const FamilyProblem& e : loaded.excluded)
            out.problems.push_back(parseProblem(LoadProblem::Kind::Excluded, QString::fromStdString(e.family),
                                                QString::fromStdString(e.message)));
        if (loaded.dataset->families.empty()) {
            out.problems.push_back({LoadProblem::Kind::Error, {}, {}, 0, 0, "no family could be loaded"});
        } else {
            out.waves = std::make_shared<WaveSchedule>(computeWaveSchedule(*loaded.dataset));
            out.dataset = std::move(loaded.dataset);
            loadTruth(out);
        }
    } catch (const InputError& e) {
        out.problems.push_back({LoadProblem::Kind::Error,
                                {},
                                QString::fromStdString(e.file()),
                                e.line(),
                                e.column(),
                                QString::fromStdString(e.problem())});
    } catch (const std::exception& e) {
        out.problems.push_back({LoadProblem::Kind::Error, {}, {}, 0, 0, QString::fromStdString(e.what())});
    }
    out.seconds = timer.elapsed() / 1000.0;
    return out;
}
} // namespace

InputLoader::InputLoader(QObject* parent) : QObject(parent) {
    pool_.setMaxThreadCount(1);
}

InputLoader::~InputLoader() {
    generation_ = -1;
    pool_.clear();
    pool_.waitForDone();
}

void InputLoader::load(const LoadRequest& request) {
    const int generation = ++generation_;
    active_ = generation;
    pool_.clear(); // a superseded load that has not started yet never runs
    pool_.start([this, request, generation] {
        std::atomic<int> lastPercent{-1};
        auto report = [this, generation, &lastPercent](int done, int total) {
            int percent = total > 0 ? done * 100 / total : 100;
            if (lastPercent.exchange(percent) == percent) return;
            QMetaObject::invokeMethod(
                this,
                [this, generation, done, total] {
                    if (generation == active_) emit progress(done, total);
                },
                Qt::QueuedConnection);
        };
        LoadOutcome outcome = loadNow(request, report);
        QMetaObject::invokeMethod(
            this,
            [this, generation, outcome] {
                if (generation != active_) return;
                active_ = 0;
                emit finished(outcome);
            },
            Qt::QueuedConnection);
    });
}

} // namespace gpurec::ui
