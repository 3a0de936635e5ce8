#pragma once
// The transfer highways' terms (model/highways.hpp, spec 4.2 and 5.1) as the GPU solver's steps take
// them, node by node: a team member visiting node e walks the highways leaving or arriving at e, so
// no two members write the same entry.
#include "team_sweeps.hpp"

namespace gpurec::gpu {

// body(h, destination) for each highway leaving e. Without highways no list is read: the hot loops
// that call these (split terms, the adjoint's right-hand side) stay as they were.
template <class Body> GPUREC_HD void forEachHighwayFrom(const SpeciesView& s, int e, Body&& body) {
    if (s.highways == 0) return;
    for (int i = s.fromOffset[e]; i < s.fromOffset[e + 1]; ++i) {
        const int h = s.highwaysFrom[i];
        body(h, s.highwayDestination[h]);
    }
}

// body(h, source) for each highway arriving at e.
template <class Body> GPUREC_HD void forEachHighwayInto(const SpeciesView& s, int e, Body&& body) {
    if (s.highways == 0) return;
    for (int i = s.intoOffset[e]; i < s.intoOffset[e + 1]; ++i) {
        const int h = s.highwaysInto[i];
        body(h, s.highwaySource[h]);
    }
}

// Σ_{h from e} q_h x[d]: with x = E what multiplies E_e in E_e's highway terms (and Π(γ, e)'s
// transfer-loss term); with x a clade's row the coupling of e to the highways' destinations.
GPUREC_HD inline double highwaySum(const SpeciesView& s, const double* rate, const double* pS, int e,
                                   const double* x) {
    double sum = 0.0;
    forEachHighwayFrom(s, e, [&](int h, int d) { sum += rate[h] * pS[e] * x[d]; });
    return sum;
}

// Σ_{h into d} q_h E_source x[source]: the transposed coupling of the highways arriving at d.
GPUREC_HD inline double highwaySumInto(const SpeciesView& s, const SetRef& p, int d, const double* x) {
    double sum = 0.0;
    forEachHighwayInto(s, d, [&](int h, int source) { sum += p.q(h, source) * p.E[source] * x[source]; });
    return sum;
}

} // namespace gpurec::gpu
