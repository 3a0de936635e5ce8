#pragma once
// Per-clade numbers of one family, for the workbench's clade heat map: the family's tables from a
// backend (its familyTables, through a FamilyTablesSource) and the posterior from the CPU engine's
// adjoint of them.
// The CUDA backend solves self loops directly: its iteration counts are 1 (NONE constraint: its own).
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "model/rate_parameters.hpp"
#include "model/solver_options.hpp"

#include <vector>

namespace gpurec {

struct CladeStatistics {
    // Self-loop (Π̄ fixed-point) iterations of each clade; the alerax schedule's 4 sweeps everywhere.
    std::vector<int> selfLoopIterations;
    // log10 Σ_e Π(c, e): how probable the clade's genes are as the whole subtree of one gene.
    std::vector<double> log10Probability;
    // Posterior probability that the reconciled gene tree contains the clade (1 for single genes and
    // the whole family), from the adjoint of the converged equations.
    std::vector<double> posterior;
    double logLikelihood = 0.0; // the family's, natural log (as LikelihoodBackend::evaluate gives it)
};

// Throws std::out_of_range for a family index outside the dataset, std::invalid_argument when θ
// does not match the dataset's shape.
// `source` must give the tables of a backend made from `data`.
CladeStatistics computeCladeStatistics(const FamilyTablesSource& source, const Dataset& data,
                                       const RateParameters& theta, const SolverOptions& options, int family);

} // namespace gpurec
