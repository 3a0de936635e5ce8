#pragma once
// One family's Π and Π̄ tables as every backend hands them out (the CPU engine also solves into
// them): mantissa rows with a power-of-two scale per clade, Π(c, e) = pi[c*S + e] * 2^scale[c].
#include <cstddef>
#include <vector>

namespace gpurec {

struct CladeTables {
    int clades = 0, species = 0;
    std::vector<double> pi, pibar; // scaled rows, clade-major
    std::vector<int> scale;
    long selfIterations = 0;              // sum over clades
    std::vector<int> cladeSelfIterations; // per clade
    int maxSelfIterations = 0;            // largest per clade
    long earlyClades = 0;                 // clades whose self loop stopped at pi_iters short of pi_tol
    double earlyResidual = 0.0;           // largest relative change of Π̄ they reached
    const double* piRow(int c) const { return pi.data() + static_cast<std::size_t>(c) * species; }
    const double* pibarRow(int c) const { return pibar.data() + static_cast<std::size_t>(c) * species; }
};

} // namespace gpurec
