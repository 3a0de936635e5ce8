#pragma once
// What every GPU solver step is built from: a team of threads working on one clade (or one
// parameter set), whose vectors over the species nodes live in the team's scratch (shared memory on
// the GPU), indexed by node; tree recurrences run level by level, upward by height (children before
// parents: the same Gauss–Seidel recurrences as the CPU's postorder loops) and downward by depth, one
// team barrier per level; and the recipient averages Π̄ (spec 5.4) and their transposes (under
// RELDATED from pairwise sums over the rank order, tree/ranked_recipients.hpp, which the team builds
// level by level in the n doubles of `sub`).
//
// The same code runs with SerialTeam (one thread) on the host, which is how the CI checks it
// against the CPU reference without a GPU (tests/test_gpu_solver_steps.cpp).
#include "device_views.hpp"
#include "tree/ranked_recipients.hpp"

#include <cmath>

namespace gpurec::gpu {

GPUREC_HD inline double maxOf(double a, double b) {
    return a < b ? b : a;
}
GPUREC_HD inline bool isFiniteValue(double x) {
    return x - x == 0.0;
}

// Host team: one thread doing every node. Reductions are identities, barriers no-ops.
struct SerialTeam {
    int rank = 0;
    int size = 1;
    void sync() const {}
    double max(double v) const { return v; }
    double sum(double v) const { return v; }
    void max2(double&, double&) const {}
    void sum3(double&, double&, double&) const {}
    // Raises a maximum shared with other teams (non-negative values).
    void raiseMax(double* address, double v) const {
        if (v > *address) *address = v;
    }
};

// One parameter set's arrays: per species node, and the sweeps' level-ordered coefficients.
struct SetRef {
    const double *pS, *pD, *pL, *pT, *E, *Ebar;
    const double *diag, *bar; // per node (the sweeps read the level-ordered copies)
    const UpCoefficients* up;
    const double *upDiag, *upBarInv;
    const DownCoefficients* down;
    const OutsideCoefficients* outside;
    const double* highwayRate;
    bool highwayCoupling;
    GPUREC_HD SetRef(const SetView& v, int set, int n)
        : highwayRate(v.highwayRate), highwayCoupling(v.highwayCoupling) {
        const std::size_t o = static_cast<std::size_t>(set) * n;
        up = v.up + o;
        outside = v.outside + o;
        upDiag = v.upDiag + o;
        upBarInv = v.upBarInv + o;
        down = v.down + o;
        pS = v.pS + o;
        pD = v.pD + o;
        pL = v.pL + o;
        pT = v.pT + o;
        E = v.E + o;
        Ebar = v.Ebar + o;
        diag = v.diag + o;
        bar = v.bar + o;
    }
    // Probability of highway h, leaving node `source`.
    GPUREC_HD double q(int h, int source) const { return highwayRate[h] * pS[source]; }
};

enum class LevelOrder { Ascending, Descending };

// Visits the levels in the given order, one barrier after each. load(i) fetches everything a visit
// of level position i needs; the first position of the next level is fetched before the current
// level is visited, so its memory latency overlaps the current level's work.
template <class Team, class Load, class Visit>
GPUREC_HD void sweepLevels(const Team& t, const int* offset, int levels, LevelOrder order, Load&& load,
                           Visit&& visit) {
    const bool ascending = order == LevelOrder::Ascending;
    auto levelAt = [&](int k) { return ascending ? k : levels - 1 - k; };
    int first = offset[levelAt(0)] + t.rank;
    bool have = first < offset[levelAt(0) + 1];
    auto next = have ? load(first) : decltype(load(0)){};
    for (int k = 0; k < levels; ++k) {
        const int end = offset[levelAt(k) + 1];
        const auto current = next;
        const bool visitCurrent = have;
        int nextFirst = 0;
        if (k + 1 < levels) {
            nextFirst = offset[levelAt(k + 1)] + t.rank;
            have = nextFirst < offset[levelAt(k + 1) + 1];
            if (have) next = load(nextFirst);
        }
        if (visitCurrent) visit(current);
        for (int i = first + t.size; i < end; i += t.size)
            visit(load(i));
        first = nextFirst;
        t.sync();
    }
}

// A node record with one value that the visit needs from a level-ordered array.
struct NodeValue {
    NodeRecord r;
    double value;
};
struct UpNode {
    NodeRecord r;
    UpCoefficients c;
};
struct DownNode {
    NodeRecord r;
    DownCoefficients c;
};
struct DiagNode {
    NodeRecord r;
    UpCoefficients c;
    double diag;
};
struct OutsideNode {
    NodeRecord r;
    OutsideCoefficients c;
};

// Children before parents; visit(const NodeValue&) with value the level-ordered entry of `values`
// (1/|R| by default).
template <class Team, class Visit>
GPUREC_HD void sweepUp(const Team& t, const SpeciesView& s, Visit&& visit, const double* values = nullptr) {
    const double* v = values ? values : s.upInvRecipients;
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Ascending,
        [&](int i) {
            return NodeValue{s.upRecords[i], v[i]};
        },
        visit);
}

// Parents before children; visit(const NodeValue&) with value 1/|R|.
template <class Team, class Visit>
GPUREC_HD void sweepDown(const Team& t, const SpeciesView& s, Visit&& visit) {
    sweepLevels(
        t, s.downOffset, s.maxDepth + 1, LevelOrder::Ascending,
        [&](int i) {
            return NodeValue{s.downRecords[i], s.downInvRecipients[i]};
        },
        visit);
}

// Up sweep with the set's self-loop coefficients; visit(const UpNode&).
template <class Team, class Visit>
GPUREC_HD void sweepUpCoefficients(const Team& t, const SpeciesView& s, const SetRef& p, Visit&& visit) {
    sweepLevels(
        t, s.upOffset, s.maxHeight + 1, LevelOrder::Ascending,
        [&](int i) {
            return UpNode{s.upRecords[i], p.up[i]};
        },
        visit);
}

// Down sweep with the set's coefficients; visit(const DownNode&).
template <class Team, class Visit>
GPUREC_HD void sweepDownCoefficients(const Team& t, const SpeciesView& s, const SetRef& p, Visit&& visit) {
    sweepLevels(
        t, s.downOffset, s.maxDepth + 1, LevelOrder::Ascending,
        [&](int i) {
            return DownNode{s.downRecords[i], p.down[i]};
        },
        visit);
}

template <class Team, class Body>
GPUREC_HD void forEachNode(const Team& t, const SpeciesView& s, Body&& body) {
    for (int e = t.rank; e < s.n; e += t.size)
        body(e);
}

GPUREC_HD inline double belowSum(const SpeciesView& s, const double* sub, int e) {
    return s.left[e] >= 0 ? sub[s.left[e]] + sub[s.right[e]] : 0.0;
}

// The rank sums of tree/ranked_recipients.hpp of leaf(0 .. n − 1) into node[1 .. n − 1] (n doubles,
// node[0] unused): one level per barrier from the deepest, each node its children's sum, so every
// node holds the value of the serial build (buildRankSums) whatever the team's size. Starts after a
// barrier (leaf's inputs written, node's old contents no longer read); ends with one (n > 1).
template <class Team, class Leaf>
GPUREC_HD void buildTeamRankSums(const Team& t, int n, Leaf&& leaf, double* node) {
    for (int level = rankSumLevels(n) - 1; level >= 0; --level) {
        const int end = (2 << level) < n ? (2 << level) : n;
        for (int j = (1 << level) + t.rank; j < end; j += t.size)
            node[j] = rankSumOf(node, n, leaf, j);
        t.sync();
    }
}

// Top-down pass over the subtree sums `sub` of x (spec 5.4, cancellation-free): down(e) = Σ of x
// over the nodes neither below nor above e (plus the ancestors when there is no constraint). A
// node's subtree sum is dead once its parent has been visited, so the parent overwrites its
// children's sub entries with their down values. Calls visit(r, down(e), below(e), 1/|R(e)|) at
// every node, below(e) being the sum over e's strict descendants.
template <class Team, class Visit>
GPUREC_HD void sweepOutside(const Team& t, const SpeciesView& s, const double* x, double* sub,
                            Visit&& visit) {
    sweepDown(t, s, [&](const NodeValue& nv) {
        const NodeRecord& r = nv.r;
        const double d = r.parent < 0 ? 0.0 : sub[r.node];
        double below = 0.0;
        if (r.left >= 0) {
            const double sl = sub[r.left], sr = sub[r.right];
            const double extra = s.constraint == TransferConstraint::None ? x[r.node] : 0.0;
            sub[r.left] = d + sr + extra;
            sub[r.right] = d + sl + extra;
            below = sl + sr;
        }
        visit(r, d, below, nv.value);
    });
}

// Calls visit(e, x̄_e) at every node, x̄ the recipient average of x ≥ 0 (spec 4.1): under PARENTS
// and NONE from the subtree sums `sub` of x, which an up sweep has filled (sweepOutside); under
// RELDATED from the rank sums of x in rank order, written over sub (no differences: accurate to
// O(log n · eps) of the sum over R(e), however large x_e). visit must not write x. Ends with a barrier.
template <class Team, class Visit>
GPUREC_HD void forEachRecipientAverage(const Team& t, const SpeciesView& s, const double* x, double* sub,
                                       Visit&& visit) {
    if (s.constraint == TransferConstraint::RelDated) {
        auto leaf = [&](int r) { return x[s.byRank[r]]; };
        buildTeamRankSums(t, s.n, leaf, sub);
        forEachNode(t, s, [&](int e) {
            const double sum =
                rankedRecipientSum(sub, s.n, leaf, firstRecipientRank(s.rank, s.parent, e), s.rank[e]);
            visit(e, sum * s.invRecipients[e]);
        });
        t.sync();
        return;
    }
    sweepOutside(t, s, x, sub, [&](const NodeRecord& r, double d, double below, double inv) {
        visit(r.node, (d + below) * inv);
    });
}

// Downward half of the recipient average (after the up sweep that filled sub): out = x̄. Ends with a
// barrier.
template <class Team>
GPUREC_HD void recipientAverageDown(const Team& t, const SpeciesView& s, const double* x, double* sub,
                                    double* out) {
    forEachRecipientAverage(t, s, x, sub, [&](int e, double average) { out[e] = average; });
}

// out = recipient average of x.
template <class Team>
GPUREC_HD void recipientAverage(const Team& t, const SpeciesView& s, const double* x, double* sub,
                                double* out) {
    if (s.constraint != TransferConstraint::RelDated)
        sweepUp(t, s, [&](const NodeValue& nv) {
            const NodeRecord& r = nv.r;
            sub[r.node] = x[r.node] + (r.left >= 0 ? sub[r.left] + sub[r.right] : 0.0);
        });
    recipientAverageDown(t, s, x, sub, out);
}

// Top-down pass of the transposed recipient average over the subtree sums `sub` of
// v_e = u_e / |R(e)|: above(e) = Σ of v over the nodes outside e's subtree (overwriting sub in
// place as sweepOutside does). Calls visit(r, above(e), below(e)).
template <class Team, class VOf, class Visit>
GPUREC_HD void sweepAbove(const Team& t, const SpeciesView& s, double* sub, VOf&& vOf, Visit&& visit) {
    sweepDown(t, s, [&](const NodeValue& nv) {
        const NodeRecord& r = nv.r;
        const double a = r.parent < 0 ? 0.0 : sub[r.node];
        double below = 0.0;
        if (r.left >= 0) {
            const double sl = sub[r.left], sr = sub[r.right], v = vOf(r, nv.value);
            sub[r.left] = a + v + sr;
            sub[r.right] = a + v + sl;
            below = sl + sr;
        }
        visit(r, a, below);
    });
}

// out_h += Σ_{e : h ∈ R(e)} u_e / |R(e)| (PARENTS: h ∈ R(e) iff e is outside h's subtree; NONE: iff
// e ≠ h; RELDATED: from rank sums by first rank, tree/ranked_recipients.hpp, in sub). Ends with a
// barrier.
template <class Team>
GPUREC_HD void addRecipientAverageTranspose(const Team& t, const SpeciesView& s, const double* u, double* sub,
                                            double* out) {
    if (s.constraint == TransferConstraint::RelDated) {
        auto v = [&](int e) { return u[e] * s.invRecipients[e]; };
        auto bucket = [&](int k) { return firstRankBucket(s.byRank, s.left, s.right, s.n, v, k); };
        buildTeamRankSums(t, s.n, bucket, sub);
        forEachNode(t, s, [&](int h) {
            out[h] += rankedDonorSum(sub, s.n, bucket, firstRecipientRank(s.rank, s.parent, h), s.rank[h],
                                     s.parent[h] < 0 ? 0.0 : v(s.sibling[h]));
        });
        t.sync();
        return;
    }
    sweepUp(t, s, [&](const NodeValue& nv) {
        const NodeRecord& r = nv.r;
        sub[r.node] = u[r.node] * nv.value + (r.left >= 0 ? sub[r.left] + sub[r.right] : 0.0);
    });
    sweepAbove(
        t, s, sub, [&](const NodeRecord& r, double inv) { return u[r.node] * inv; },
        [&](const NodeRecord& r, double a, double below) {
            out[r.node] += s.constraint == TransferConstraint::None ? a + below : a;
        });
}

} // namespace gpurec::gpu
