#pragma once
// The model object the CLI and the GUI drive: θ, the prepared families, a backend (with its warm
// starts) and the solver options. Not thread-safe: use it from one thread at a time (the GUI's
// worker applies knob changes between iterations).
#include "engine/backend.hpp"

#include <memory>
#include <vector>

namespace gpurec {

class ReconModel {
  public:
    ReconModel(std::shared_ptr<const Dataset> data, std::shared_ptr<LikelihoodBackend> backend,
               RateParameters theta, SolverOptions options = {});

    const Dataset& dataset() const { return *data_; }
    std::shared_ptr<const Dataset> sharedDataset() const { return data_; }
    const RateParameters& parameters() const { return theta_; }
    void setParameters(const RateParameters& theta);
    LikelihoodBackend& backend() { return *backend_; }

    // Total NLL in bits at the current θ.
    double evaluate();
    // Total NLL in bits; `gradient` receives d NLL / dθ (bits per log2-rate unit).
    double evaluateWithGradient(std::vector<double>& gradient);
    // The full result of the last evaluation (per-family LL, statistics).
    const Evaluation& lastEvaluation() const { return last_; }

    // Validated; throws std::invalid_argument and keeps the old options on a bad value.
    void setSolverOptions(const SolverOptions& options);
    const SolverOptions& solverOptions() const { return options_; }
    void clearWarmStarts();

  private:
    std::shared_ptr<const Dataset> data_;
    std::shared_ptr<LikelihoodBackend> backend_; // shared: CandidateScorer lends its one backend
    RateParameters theta_;
    SolverOptions options_;
    Evaluation last_;
};

} // namespace gpurec
