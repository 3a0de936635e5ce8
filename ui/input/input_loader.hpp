#pragma once
// Loads a species tree and gene families off the GUI thread (data/load.hpp) and reports every
// per-family problem located by file and line, so the valid families still load.
#include "data/load.hpp"
#include "engine/wave_schedule.hpp"
#include "recon/recphyloxml.hpp"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <memory>
#include <vector>

namespace gpurec::ui {

struct LoadRequest {
    InputPaths paths;
    LoadOptions options;
    TransferConstraint constraint = TransferConstraint::Parents;
};

struct LoadProblem {
    enum class Kind {
        Error,
        Excluded,
        Changed
    }; // Changed: an input file differs from when a session was saved
    Kind kind = Kind::Error;
    QString family; // empty when the whole input failed (species tree, families file)
    QString file;
    int line = 0;   // 0: unknown
    int column = 0; // 0: unknown
    QString reason;
};

// The true reconciliations a simulated dataset keeps beside the input, "" when there are none.
QString truthFileFor(const InputPaths& paths);

// Splits "file:line:column: problem" (the InputError layout) into its parts.
LoadProblem parseProblem(LoadProblem::Kind kind, const QString& family, const QString& message);

struct LoadOutcome {
    LoadRequest request;
    std::shared_ptr<const Dataset> dataset; // null when the input could not be read at all
    std::shared_ptr<const WaveSchedule> waves;
    // A simulated dataset's true reconciliations (truth/reconciliations.xml beside its families
    // file, species tree or gene-tree folder), when there are any; teaching shows them.
    std::shared_ptr<const RecPhyloDocument> truth;
    QString truthFile;
    std::vector<LoadProblem> problems;
    double seconds = 0.0;
};

class InputLoader : public QObject {
    Q_OBJECT
  public:
    explicit InputLoader(QObject* parent = nullptr);
    ~InputLoader() override;
    // Starts loading; the result of a load still in progress is dropped.
    void load(const LoadRequest& request);
    bool loading() const { return active_ != 0; }

  signals:
    void progress(int done, int total);
    void finished(const gpurec::ui::LoadOutcome& outcome);

  private:
    QThreadPool pool_;
    int generation_ = 0;
    int active_ = 0; // generation being loaded, 0 when idle
};

} // namespace gpurec::ui
