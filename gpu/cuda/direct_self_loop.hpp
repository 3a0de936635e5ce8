#pragma once
// The converged self loop of one clade solved directly under the PARENTS constraint, and its
// transpose for the adjoint (docs/performance.md, "The direct self-loop solve").
#include "team_sweeps.hpp"

namespace gpurec::gpu {

// The direct self-loop solve (PARENTS constraint). Write o_e for the sum of Π over the nodes outside
// e's subtree that are not e's ancestors, so Π̄_e = (o_e + Σ of Π strictly below e) / |R(e)|. Inside
// e's subtree every Π and subtree sum is then affine in o_e alone (a child's o is o_e plus its
// sibling's subtree sum), with non-negative coefficients that depend on the rates only. Per node:
// β_e = ∂Π_e/∂o_e and τ_e = ∂(subtree sum)/∂o_e, folded up from the children; the children's
// subtree sums are coupled through each other's o, solved with 1 / (1 − τ_left τ_right), whose
// denominator is close to 1 (τ is of the order of pT·E). Needs the set's up coefficients; beta
// and tau are scratch vectors of n. Returns, per team member, n − e for the smallest node e it saw
// whose children's coupling has no positive solution (rates beyond the model's range), else 0.
template <class Team>
GPUREC_HD double fillOutsideCoefficients(const Team& t, const SpeciesView& s, const SetView& sv, int set,
                                         double* beta, double* tau) {
    const std::size_t o = static_cast<std::size_t>(set) * s.stride;
    double divergent = 0.0;
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Ascending, [](int i) { return i; },
        [&](int i) {
            const NodeRecord& r = s.upRecords[i];
            UpCoefficients& u = sv.up[o + i];
            OutsideCoefficients& c = sv.outside[o + i];
            const double barInv = sv.upBarInv[o + i];
            c = OutsideCoefficients{};
            c.invRecipients = s.upInvRecipients[i];
            u.sigmaLeft = u.sigmaRight = u.subtreeLeft = u.subtreeRight = 0.0;
            double slope = barInv; // ∂(Π_e · denominator)/∂o_e
            if (r.left >= 0) {
                const double tl = tau[r.left], tr = tau[r.right], bl = beta[r.left], br = beta[r.right];
                const double coupling = 1.0 - tl * tr;
                if (!(coupling > 0)) divergent = maxOf(divergent, static_cast<double>(s.n - r.node));
                const double inv = 1.0 / coupling;
                c.invCoupling = inv;
                c.crossLeft = tl * inv;
                c.crossRight = tr * inv;
                c.gainLeft = tl * (1.0 + tr) * inv;
                c.gainRight = tr * (1.0 + tl) * inv;
                const double viaLeft = u.childLeft * bl + barInv, viaRight = u.childRight * br + barInv;
                u.sigmaLeft = (viaRight + viaLeft * tr) * inv;
                u.sigmaRight = (viaLeft + viaRight * tl) * inv;
                u.subtreeLeft = (1.0 + tr) * inv;
                u.subtreeRight = (1.0 + tl) * inv;
                slope = u.childLeft * bl * (1.0 + c.gainRight) + u.childRight * br * (1.0 + c.gainLeft) +
                        barInv * (1.0 + c.gainLeft + c.gainRight);
            }
            c.beta = slope * u.invDenom;
            beta[r.node] = c.beta;
            tau[r.node] = c.beta + c.gainLeft + c.gainRight;
        });
    return divergent;
}

// Π and Π̄ of one clade exactly (PARENTS), given its split terms in alpha (overwritten). The up
// sweep folds the children into α_e (Π_e at o_e = 0) and σ_e (the subtree sum at o_e = 0); the down
// sweep starts from o = 0 at the root and hands each child its o (stored over its σ). Only
// non-negative terms are added. Ends with a barrier.
template <class Team>
GPUREC_HD void solveLoopDirect(const Team& t, const SpeciesView& s, const SetRef& p, double* alpha,
                               double* sigma, double* row, double* bar) {
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Ascending,
        [&](int i) {
            return UpNode{s.upRecords[i], p.up[i]};
        },
        [&](const UpNode& u) {
            const NodeRecord& r = u.r;
            double v = alpha[r.node], below = 0.0;
            if (r.left >= 0) {
                const double sl = sigma[r.left], sr = sigma[r.right];
                v += u.c.childLeft * alpha[r.left] + u.c.childRight * alpha[r.right] + u.c.sigmaLeft * sl +
                     u.c.sigmaRight * sr;
                below = u.c.subtreeLeft * sl + u.c.subtreeRight * sr;
            }
            v *= u.c.invDenom;
            alpha[r.node] = v;
            sigma[r.node] = v + below;
        });
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Descending,
        [&](int i) {
            return OutsideNode{s.upRecords[i], p.outside[i]};
        },
        [&](const OutsideNode& d) {
            const NodeRecord& r = d.r;
            const double o = r.parent < 0 ? 0.0 : sigma[r.node];
            row[r.node] = alpha[r.node] + d.c.beta * o;
            double below = 0.0;
            if (r.left >= 0) {
                const double sl = sigma[r.left], sr = sigma[r.right];
                const double subLeft = d.c.invCoupling * sl + d.c.crossLeft * sr + d.c.gainLeft * o;
                const double subRight = d.c.invCoupling * sr + d.c.crossRight * sl + d.c.gainRight * o;
                sigma[r.left] = o + subRight;
                sigma[r.right] = o + subLeft;
                below = subLeft + subRight;
            }
            bar[r.node] = (o + below) * d.c.invRecipients;
        });
}

// The adjoint of solveLoopDirect (PARENTS), its sweeps run backwards: given b = ∂/∂Π and u = ∂/∂Π̄
// of one clade, w = ∂/∂(split terms), i.e. the solution of (I − Aᵀ) w = b + Rᵀu with R the
// recipient average (Π̄ = R Π). b is overwritten; u is overwritten by the adjoint of the subtree
// parts σ. Ends with a barrier.
template <class Team>
GPUREC_HD void solveLoopTransposeDirect(const Team& t, const SpeciesView& s, const SetRef& p, double* b,
                                        double* u, double* w) {
    double* sigmaBar = u; // a node's u is read at its own visit, before its parent writes sigmaBar
    // The down sweep's adjoint, children first: w holds the adjoint of o.
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Ascending,
        [&](int i) {
            return OutsideNode{s.upRecords[i], p.outside[i]};
        },
        [&](const OutsideNode& d) {
            const NodeRecord& r = d.r;
            const double ub = u[r.node] * d.c.invRecipients; // Π̄_e = (o_e + below) / |R(e)|
            double v = d.c.beta * b[r.node] + ub;
            if (r.left >= 0) {
                const double ol = w[r.left], orr = w[r.right];
                // Adjoints of the two subtree sums (each feeds the sibling's o and Π̄_e).
                const double subLeft = orr + ub, subRight = ol + ub;
                v += ol + orr + d.c.gainLeft * subLeft + d.c.gainRight * subRight;
                sigmaBar[r.left] = d.c.invCoupling * subLeft + d.c.crossRight * subRight;
                sigmaBar[r.right] = d.c.crossLeft * subLeft + d.c.invCoupling * subRight;
            }
            w[r.node] = v;
        });
    // The up sweep's adjoint, parents first: b accumulates the adjoint of α, sigmaBar that of σ.
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Descending,
        [&](int i) {
            return UpNode{s.upRecords[i], p.up[i]};
        },
        [&](const UpNode& up) {
            const NodeRecord& r = up.r;
            const double sb = r.parent < 0 ? 0.0 : sigmaBar[r.node];
            const double z = (b[r.node] + sb) * up.c.invDenom;
            w[r.node] = z;
            if (r.left >= 0) {
                b[r.left] += up.c.childLeft * z;
                b[r.right] += up.c.childRight * z;
                sigmaBar[r.left] += up.c.sigmaLeft * z + up.c.subtreeLeft * sb;
                sigmaBar[r.right] += up.c.sigmaRight * z + up.c.subtreeRight * sb;
            }
        });
}

} // namespace gpurec::gpu
