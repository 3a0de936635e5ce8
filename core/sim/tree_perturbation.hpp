#pragma once
// Gene-tree uncertainty: copies of a rooted binary tree changed by random NNI and SPR moves, so
// that a sample of such trees has conditional clade probabilities with realistic numbers of
// clades and splits.
#include "io/newick.hpp"
#include "sim/random_source.hpp"

namespace gpurec {

struct PerturbationOptions {
    double rate = 0.0; // expected moves per internal branch (each branch: one move with this probability)
    double sprFraction = 0.3; // share of the moves that are SPR (the others are NNI)
    int sprRadius = 3;        // an SPR regrafts within this many branches of where the subtree was

    // Throws std::invalid_argument naming the parameter and its valid range.
    void validate() const;
};

// A perturbed copy (labels, lengths and the leaf set kept; the root may move). The number of
// moves is binomial(internal branches, rate); each move is an NNI around a random internal
// branch or an SPR of a random subtree.
NewickTree perturbTree(const NewickTree& tree, const PerturbationOptions& options, RandomSource& rng);

} // namespace gpurec
