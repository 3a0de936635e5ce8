#pragma once
// Random species trees: a forward birth–death process run until the wanted number of species
// coexist, then reduced to the lineages alive at the end (the reconstructed tree).
#include "io/newick.hpp"
#include "sim/random_source.hpp"

namespace gpurec {

struct BirthDeathOptions {
    int leaves = 0;         // extant species wanted (>= 2)
    double birthRate = 1.0; // speciations per lineage per time unit (> 0)
    double deathRate = 0.0; // extinctions per lineage per time unit (>= 0, < birthRate)
    int maxRestarts = 1000; // runs that died out before reaching `leaves`, at most

    // Throws std::invalid_argument naming the parameter, its value and the valid range.
    void validate() const;
};

// A rooted binary tree with branch lengths in time units, ultrametric: every leaf ends at the
// same time, the waiting time to the next event after the count reached `leaves`. Leaves are
// named S1..Sn (zero padded, left to right), internal nodes are unnamed. The root's length is the
// stem from the start of the process to the first speciation that left descendants.
// Throws std::runtime_error when every run died out.
NewickTree simulateBirthDeathTree(const BirthDeathOptions& options, RandomSource& rng);

} // namespace gpurec
