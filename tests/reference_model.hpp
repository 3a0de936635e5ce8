#pragma once
// Independent implementations of the model for the suites to check the engine against: the RELDATED
// ranks and every constraint's recipient sets by brute force, and the spec's equations for one family
// solved by plain fixed-point iteration (no postorder solves, no scaling, no running sums).
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"

#include <vector>

namespace gpurec::test {

// Ranks as the notes state AleRax computes them, pairwise: dates summed root first from lengths
// <= 0 taken as 1 and rounded by "%f" (std::to_string), internal nodes by date then name, then
// leaves by name.
std::vector<int> referenceRanks(const SpeciesTree& tree);
// R(e) for every node e, in postorder, from the definitions of spec 4.1.
std::vector<std::vector<int>> referenceRecipients(const SpeciesTree& tree, TransferConstraint constraint);
// x̄_e = Σ_{h∈R(e)} x_h / |R(e)|.
double averageOver(const std::vector<int>& recipients, const std::vector<double>& x);

// E (spec 4.2) by plain iteration: Jacobi from 0 to the fixed point, or AleRax's 4 Gauss–Seidel
// sweeps from 0 (`alerax`); fm per node (empty: none); with the terms q_h E_e E_d of `highways`
// (probabilities p.pH).
std::vector<double> referenceExtinction(const SpeciesTree& tree,
                                        const std::vector<std::vector<int>>& recipients,
                                        const EventProbabilities& p, const std::vector<double>& fm,
                                        bool alerax, const std::vector<Highway>& highways = {});
// The log-likelihood (natural log, UNIFORM origination) of one family at global rates r under the
// model m and the dataset's constraint and highways (their rates `highwayRates`, spec 3.1: in each
// source's normaliser): E as referenceExtinction, each clade's Π by Jacobi sweeps of its whole
// right-hand side to the fixed point.
double referenceLogLikelihood(const Dataset& data, const GeneFamily& family, Rates r, const EventModel& m,
                              bool aleraxExtinction, const std::vector<double>& highwayRates = {});

} // namespace gpurec::test
