#pragma once
// The species-tree search (core/species_search) on a worker thread of its own, for the workbench's
// Search panel: each scored candidate is reported on the GUI thread, pause and stop take effect
// before the next candidate, and the outcome carries the best tree, its rates and its supports.
// The search starts from the working tree, MiniNJ or a seeded random tree and scores its candidates
// on one backend for the device it was given, like `gpurec search`.
#include "engine/backend.hpp"
#include "species_search/species_search.hpp"
#include "worker/run_control.hpp"

#include <QObject>
#include <QString>
#include <QThreadPool>
#include <map>
#include <memory>

namespace gpurec::ui {

// Where the search starts, as `gpurec search -s FILE|MiniNJ|Random`: the families' own species
// tree, the MiniNJ distance tree of their gene trees, or a random tree drawn from the seed of the
// search's settings.
enum class SearchStart { WorkingTree, MiniNj, Random };

struct SearchStepSample {
    int index = 0;
    QString move; // as in search_trace.csv: "start", "SPR a -> b (radius r)", "root above n", "rates"
    bool accepted = false;
    bool screened = false;          // left at the pre-screen: logLikelihood is its estimate
    double logLikelihood = 0.0;     // of this candidate
    double bestLogLikelihood = 0.0; // of the current tree after this step
    double seconds = 0.0;
    QString bestNewick; // the current tree after this step (AleRax's node names)
};

struct SearchOutcome {
    QString error; // empty on success
    bool stopped = false;
    QString startNewick, bestNewick;
    double startLogLikelihood = 0.0, bestLogLikelihood = 0.0;
    Rates rates; // the global rates at the end
    int evaluations = 0;
    int screenedOut = 0; // candidates the pre-screen left out
    int skipped = 0;     // SPR candidates not scored: repeats, past the SPR cutoff, by the SPR memory
    int steps = 0;
    double seconds = 0.0;
    // Per node of the best tree, by its name in bestNewick: the RELL bootstrap fraction of an internal
    // node's split (HYBRID); the log-likelihood ratio of the root on the node's branch against the
    // best root (<= 0; the branches the last root search evaluated); 1 where the node's clade is not
    // in the start tree, else 0 (internal nodes).
    std::map<QString, double> bootstrap, rootLlr, newClade;
    int replicates = 0;
};

class SearchRun : public QObject {
    Q_OBJECT
  public:
    explicit SearchRun(QObject* parent = nullptr);
    ~SearchRun() override; // stops a running search and waits for it

    // Starts a search from `from` with the global rates `start` (and the speciation categories' shape
    // α when the data has several), scoring on `device`; MiniNJ and random
    // start trees are built on the worker thread (MiniNJ reads the families' gene-tree files) and
    // cover the species of the families' tree, or the search fails naming the species missing.
    // Ignored while a search runs.
    void start(std::shared_ptr<const Dataset> data, const QString& device, const BatchLimits& limits,
               const SolverOptions& options, RateParameters start, SpeciesSearchSettings settings,
               SearchStart from = SearchStart::WorkingTree);
    void pause();
    void resume();
    void stop();
    bool running() const { return running_; }
    bool paused() const { return paused_; }

  signals:
    void started();
    void stepFinished(const gpurec::ui::SearchStepSample& step);
    void pausedChanged(bool paused);
    void finished(const gpurec::ui::SearchOutcome& outcome);

  private:
    void post(std::function<void()> fn);

    QThreadPool worker_;
    RunControl control_;
    bool running_ = false;
    bool paused_ = false;
};

} // namespace gpurec::ui

Q_DECLARE_METATYPE(gpurec::ui::SearchStepSample)
Q_DECLARE_METATYPE(gpurec::ui::SearchOutcome)
