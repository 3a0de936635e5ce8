#pragma once
// The GPU solver's steps, one clade (or one parameter set) per team of threads (team_sweeps.hpp):
// the extinction fixed point and the sweep coefficients of a parameter set, the split terms, a
// clade's forward and adjoint, the family likelihoods and the gradient sums.
#include "direct_self_loop.hpp"
#include "highway_terms.hpp"
#include "team_sweeps.hpp"

#include "engine/extinction_root.hpp"

#include <cmath>

namespace gpurec::gpu {

constexpr double kLn2 = 0.693147180559945309417232121458176568;
// Vectors of n doubles a team needs in its scratch: four, five with transfer highways (their
// coupling is iterated from a copy of the last iterate); the clade steps need three when the self
// loop is solved directly (PARENTS constraint, no highways), which lets more clades share a
// multiprocessor. The other cases iterate the Π̄ and highway couplings.
constexpr int kMaxScratchVectors = 5;
GPUREC_HD inline int scratchVectors(bool highways) {
    return highways ? 5 : 4;
}
GPUREC_HD inline bool directSelfLoop(TransferConstraint constraint, bool highways) {
    return constraint == TransferConstraint::Parents && !highways;
}
GPUREC_HD inline bool directSelfLoop(const SpeciesView& s) {
    return directSelfLoop(s.constraint, s.highways > 0);
}
GPUREC_HD inline int forwardScratchVectors(TransferConstraint constraint, bool highways, bool alerax) {
    return directSelfLoop(constraint, highways) && !alerax ? 3 : scratchVectors(highways);
}
GPUREC_HD inline int forwardScratchVectors(const SpeciesView& s, bool alerax) {
    return forwardScratchVectors(s.constraint, s.highways > 0, alerax);
}
GPUREC_HD inline int adjointScratchVectors(const SpeciesView& s) {
    return directSelfLoop(s) ? 3 : scratchVectors(s.highways > 0);
}

// The event probabilities of (set, node e) from θ: a genewise set's own row, else the entries
// `entries` names for the node's full-tree node `node` (RateParameters::sharedEntries, type-major);
// n: the full tree's size (the sets' stride).
GPUREC_HD inline void setProbabilities(const double* theta, const int* entries, bool genewise,
                                       PresentRates present, int set, int n, int e, int node,
                                       const SetView& sv) {
    double logRates[3];
    for (int k = 0; k < 3; ++k)
        logRates[k] = genewise ? theta[3 * set + k] : theta[entries[k * n + node]];
    const EventProbabilityRow p =
        eventProbabilities(logRates, present, sv.highwayExtra ? sv.highwayExtra[node] : 0.0);
    const std::size_t i = static_cast<std::size_t>(set) * n + e;
    sv.pS[i] = p.pS;
    sv.pD[i] = p.pD;
    sv.pL[i] = p.pL;
    sv.pT[i] = p.pT;
}

// Fills the level-ordered coefficients of one set (E, Ē, diag and denom already solved).
GPUREC_HD inline void fillSweepCoefficients(const SpeciesView& s, const SetView& sv, int set, int position) {
    const std::size_t o = static_cast<std::size_t>(set) * s.stride;
    const NodeRecord& u = s.upRecords[position];
    const int e = u.node;
    UpCoefficients& c = sv.up[o + position];
    c.childLeft = u.left >= 0 ? sv.pS[o + e] * sv.E[o + u.right] : 0.0;
    c.childRight = u.left >= 0 ? sv.pS[o + e] * sv.E[o + u.left] : 0.0;
    c.bar = sv.bar[o + e];
    c.invDenom = 1.0 / sv.denom[o + e];
    sv.upDiag[o + position] = sv.diag[o + e];
    sv.upBarInv[o + position] = sv.bar[o + e] * s.upInvRecipients[position];
    const NodeRecord& d = s.downRecords[position];
    DownCoefficients& dc = sv.down[o + position];
    const int parent = d.parent;
    const int sibling = parent < 0 ? -1 : s.left[parent] == d.node ? s.right[parent] : s.left[parent];
    dc.parentCoef = parent < 0 ? 0.0 : sv.pS[o + parent] * sv.E[o + sibling];
    dc.invDenom = 1.0 / sv.denom[o + d.node];
}

// Extinction fixed point of one parameter set (spec 4), then the self-loop constants and Σ(1 − E).
// The constants of sv are the Π equations' loop; those of eLoop (a view sharing sv's p and E arrays,
// or sv itself when the two loops are the same) the E equations' Jacobian, which keeps the DL and TL
// terms that --no-dl and --no-tl take out of Π.
template <class Team>
GPUREC_HD void solveExtinctionSet(const Team& t, const SpeciesView& s, const SetView& sv,
                                  const SetView& eLoop, int set, const ExtinctionSettings& opt,
                                  double* scratch) {
    const int n = s.n;
    // hw: Σ q_h E_d over the highways leaving each node, from the last iterate (Jacobi).
    double *E = scratch, *Ebar = scratch + n, *sub = scratch + 2 * n, *hw = scratch + 3 * n;
    const std::size_t off = static_cast<std::size_t>(set) * s.stride;
    const double *pS = sv.pS + off, *pD = sv.pD + off, *pL = sv.pL + off, *pT = sv.pT + off;
    auto highwayTerms = [&] {
        if (s.highways == 0) return;
        forEachNode(t, s, [&](int e) { hw[e] = highwaySum(s, sv.highwayRate, pS, e, E); });
        t.sync();
    };
    int iterations = 0;
    double residual = 0.0;
    if (opt.alerax) {
        // AleRax v1.4: E = Ē = 0, then 4 Gauss–Seidel sweeps with Ē refreshed after each.
        forEachNode(t, s, [&](int e) { E[e] = Ebar[e] = 0.0; });
        t.sync();
        auto update = [&](int e, int l, int r) {
            const double spec = s.speciationExtinction(e, l, r, E);
            double v = pL[e] + pS[e] * spec + pD[e] * E[e] * E[e] + pT[e] * E[e] * Ebar[e];
            if (s.highways > 0) v += highwaySum(s, sv.highwayRate, pS, e, E) * E[e];
            E[e] = v;
            sub[e] = v + belowSum(s, sub, e);
        };
        for (int sweep = 0; sweep < 4; ++sweep) {
            if (s.highways > 0) {
                // A highway's destination is read as the sweep's postorder leaves it, earlier nodes
                // already updated: one member walks the nodes in that order.
                if (t.rank == 0)
                    for (int e = 0; e < n; ++e)
                        update(e, s.left[e], s.right[e]);
                t.sync();
            } else {
                sweepUp(t, s, [&](const NodeValue& nv) { update(nv.r.node, nv.r.left, nv.r.right); });
            }
            recipientAverageDown(t, s, E, sub, Ebar);
        }
        iterations = 4;
    } else {
        forEachNode(t, s, [&](int e) { E[e] = opt.warmStart ? sv.E[off + e] : opt.initial; });
        t.sync();
        recipientAverage(t, s, E, sub, Ebar);
        for (iterations = 1; iterations <= opt.maxIterations; ++iterations) {
            double change = 0.0;
            highwayTerms();
            sweepUp(t, s, [&](const NodeValue& nv) {
                const NodeRecord& r = nv.r;
                const int e = r.node;
                const double c = pL[e] + pS[e] * s.speciationExtinction(e, r.left, r.right, E);
                const double v = leastRoot(pD[e], pT[e] * Ebar[e] + (s.highways > 0 ? hw[e] : 0.0), c);
                const double scale = maxOf(fabs(v), fabs(E[e]));
                if (scale > 0) change = maxOf(change, fabs(v - E[e]) / scale);
                E[e] = v;
                sub[e] = v + belowSum(s, sub, e);
            });
            recipientAverageDown(t, s, E, sub, Ebar);
            residual = t.max(change);
            if (residual <= opt.tolerance) break;
        }
        if (iterations > opt.maxIterations) iterations = opt.maxIterations;
    }
    double survive = 0.0, firstDivergent = 0.0;
    const bool ownLoop = eLoop.diag != sv.diag;
    highwayTerms();
    forEachNode(t, s, [&](int e) {
        // The highways' transfer-loss term q_h E_d (the copy sent down the highway dies) joins the
        // diagonal of the loops they couple.
        const double dl = 2.0 * pD[e] * E[e], tl = pT[e] * Ebar[e], hl = s.highways > 0 ? hw[e] : 0.0;
        const double d = (s.cladeDuplicationLoss ? dl : 0.0) + (s.cladeTransferLoss ? tl : 0.0) +
                         (sv.highwayCoupling ? hl : 0.0);
        sv.E[off + e] = E[e];
        sv.Ebar[off + e] = Ebar[e];
        sv.diag[off + e] = d;
        sv.bar[off + e] = s.cladeTransferLoss ? pT[e] * E[e] : 0.0;
        sv.denom[off + e] = 1.0 - d;
        if (ownLoop) {
            eLoop.diag[off + e] = dl + tl + hl;
            eLoop.bar[off + e] = pT[e] * E[e];
            eLoop.denom[off + e] = 1.0 - (dl + tl + hl);
        }
        // The E loop's diagonal bounds the Π loop's: its divergence is checked for both.
        if (!(1.0 - (dl + tl + hl) > 0)) firstDivergent = maxOf(firstDivergent, static_cast<double>(n - e));
        survive += 1.0 - E[e];
    });
    survive = t.sum(survive);
    for (int i = t.rank; i < n; i += t.size) {
        fillSweepCoefficients(s, sv, set, i);
        if (ownLoop) fillSweepCoefficients(s, eLoop, set, i);
    }
    if (directSelfLoop(s)) {
        t.sync();
        firstDivergent = maxOf(firstDivergent, fillOutsideCoefficients(t, s, sv, set, E, Ebar));
        if (ownLoop) {
            t.sync();
            firstDivergent = maxOf(firstDivergent, fillOutsideCoefficients(t, s, eLoop, set, E, Ebar));
        }
    }
    firstDivergent = t.max(firstDivergent);
    if (t.rank == 0) {
        sv.survive[set] = survive;
        sv.eIterations[set] = iterations;
        sv.eResidual[set] = residual;
        sv.divergentNode[set] = firstDivergent > 0 ? n - static_cast<int>(firstDivergent) : -1;
    }
}

// Zeroes a row's entries past a pruned tree's nodes (none on the full tree), so that every table
// entry is written.
template <class Team> GPUREC_HD void clearPadding(const Team& t, const SpeciesView& s, double* row) {
    for (int e = s.n + t.rank; e < s.stride; e += t.size)
        row[e] = 0.0;
}

// Split terms (spec 5.1) of one node, not yet weighted by pS, pD, pT.
struct SplitTerms {
    double S = 0, D = 0, T = 0;
};

// Split k's weight relative to 2^rowScale (0: it underflows there, skip it) and whether its transfer
// terms are kept (pibar_side_threshold).
struct SplitWeight {
    double fac;
    bool transfers;
    GPUREC_HD SplitWeight(const CladeView& cv, const TableView& tab, int k, int rowScale,
                          double pibarSideThreshold) {
        const int l = tab.source(cv.splitLeft[k]), r = tab.source(cv.splitRight[k]);
        fac = ldexp(cv.splitWeight[k], tab.scale[tab.local(l)] + tab.scale[tab.local(r)] - rowScale);
        // Rows peak in [1/2, 1): the transfer terms are bounded by the partners' Π̄ peaks.
        transfers = pibarSideThreshold <= 0 ||
                    maxOf(tab.pibarPeak[tab.local(l)], tab.pibarPeak[tab.local(r)]) >= pibarSideThreshold;
    }
};

// Split k of a clade whose split terms are taken relative to 2^rowScale: its weight and its
// children's rows.
struct SplitRows : SplitWeight {
    const double *a, *b, *abar, *bbar;
    GPUREC_HD SplitRows(const CladeView& cv, const TableView& tab, int k, int rowScale,
                        double pibarSideThreshold)
        : SplitWeight(cv, tab, k, rowScale, pibarSideThreshold) {
        const int l = tab.source(cv.splitLeft[k]), r = tab.source(cv.splitRight[k]);
        a = tab.pi + tab.row(l);
        b = tab.pi + tab.row(r);
        abar = tab.pibar + tab.row(l);
        bbar = tab.pibar + tab.row(r);
    }
    GPUREC_HD SplitTerms at(const SpeciesView& s, int e) const {
        const int f = s.left[e], g = s.right[e];
        return {f >= 0 ? a[f] * b[g] + b[f] * a[g] : 0.0, a[e] * b[e],
                transfers ? a[e] * bbar[e] + b[e] * abar[e] : 0.0};
    }
};

// Split k, a parent split of clade c, as the adjoint's right-hand side reads it: its weight relative
// to the parent's scale, the parent's adjoint row and the partner clade's rows.
struct ParentSplitRows : SplitWeight {
    const double *parentAdjoint, *partner, *partnerBar;
    GPUREC_HD ParentSplitRows(const CladeView& cv, const TableView& tab, int k, int c,
                              double pibarSideThreshold)
        : SplitWeight(cv, tab, k, tab.scale[tab.local(cv.splitParent[k])], pibarSideThreshold) {
        const int l = cv.splitLeft[k], r = cv.splitRight[k], parent = cv.splitParent[k];
        const int other = tab.source(l == c ? r : l);
        parentAdjoint = tab.adjoint + tab.row(parent);
        partner = tab.pi + tab.row(other);
        partnerBar = tab.pibar + tab.row(other);
    }
};

// Split terms of clade c at node e relative to 2^rowScale, summed over its splits.
GPUREC_HD inline SplitTerms splitTerms(const SpeciesView& s, const CladeView& cv, const TableView& tab, int c,
                                       int rowScale, int e, double pibarSideThreshold) {
    SplitTerms out;
    for (int k = cv.splitOffset[c]; k < cv.splitOffset[c + 1]; ++k) {
        const SplitRows split(cv, tab, k, rowScale, pibarSideThreshold);
        if (split.fac == 0.0) continue;
        const SplitTerms t = split.at(s, e);
        out.S += split.fac * t.S;
        out.D += split.fac * t.D;
        out.T += split.fac * t.T;
    }
    return out;
}

// The largest sum of the two child scales over the splits of clade c: the split terms are taken
// relative to it (every team summing them must agree on it).
template <class Team>
GPUREC_HD int cladeRowScale(const Team& t, const CladeView& cv, const TableView& tab, int c) {
    double largest = -HUGE_VAL;
    for (int k = cv.splitOffset[c] + t.rank; k < cv.splitOffset[c + 1]; k += t.size)
        largest =
            maxOf(largest, tab.scale[tab.local(cv.splitLeft[k])] + tab.scale[tab.local(cv.splitRight[k])]);
    return static_cast<int>(t.max(largest));
}

// Scratch that a step may use to stage per-split records (forEachStagedBatch): `doubles` doubles of the
// team's scratch that nothing else uses meanwhile.
struct SplitStage {
    double* at;
    int doubles;
};

// Runs sum(count, recordAt) over the records make(k) of k in [k0, k1), in batches that fit the stage:
// each batch's records are made once for the team (one member each) and read back by every member
// through recordAt(j), j < count, so the members can sum their own nodes over many splits in registers
// with independent row loads. A stage too small for one record (trees of fewer than three nodes)
// leaves recordAt to make each record itself.
template <class Record, class Team, class Make, class Sum>
GPUREC_HD void forEachStagedBatch(const Team& t, const SplitStage& stage, int k0, int k1, Make&& make,
                                  Sum&& sum) {
    const int capacity = static_cast<int>(stage.doubles * sizeof(double) / sizeof(Record));
    Record* staged = reinterpret_cast<Record*>(stage.at);
    const int batch = capacity > 0 ? capacity : 1;
    for (int begin = k0; begin < k1; begin += batch) {
        const int count = k1 - begin < batch ? k1 - begin : batch;
        if (capacity > 0) {
            for (int j = t.rank; j < count; j += t.size)
                staged[j] = make(begin + j);
            t.sync();
        }
        sum(count, [&](int j) { return capacity > 0 ? staged[j] : make(begin + j); });
        if (capacity > 0) t.sync(); // the next batch overwrites the stage
    }
}

// K += the split terms of splits [k0, k1) of clade c relative to 2^rowScale, weighted by pS, pD, pT
// (spec 5.1). Node-major over staged splits: each member reads its nodes' constants once and adds
// the splits in order into a register, with the row loads of successive splits independent.
template <class Team>
GPUREC_HD void addSplitTerms(const Team& t, const SpeciesView& s, const SetRef& p, const CladeView& cv,
                             const TableView& tab, int k0, int k1, int rowScale, double pibarSideThreshold,
                             double* K, const SplitStage& stage) {
    forEachStagedBatch<SplitRows>(
        t, stage, k0, k1, [&](int k) { return SplitRows(cv, tab, k, rowScale, pibarSideThreshold); },
        [&](int count, auto&& splitAt) {
            forEachNode(t, s, [&](int e) {
                const double pS = p.pS[e], pD = p.pD[e], pT = p.pT[e];
                double sum = K[e];
                for (int j = 0; j < count; ++j) {
                    const SplitRows split = splitAt(j);
                    if (split.fac == 0.0) continue;
                    const SplitTerms st = split.at(s, e);
                    double v = pS * st.S + pD * st.D + pT * st.T;
                    // One child clade down each highway leaving e.
                    forEachHighwayFrom(s, e, [&](int h, int d) {
                        v += p.q(h, e) * (split.a[e] * split.b[d] + split.b[e] * split.a[d]);
                    });
                    sum += split.fac * v;
                }
                K[e] = sum;
            });
        });
}

// Scratch rows of the split-chunk kernel: the chunk's partial row, then two rows of stage.
constexpr int kSplitChunkVectors = 3;

// One chunk of a many-split clade: its split terms into the chunk's partial row. scratch:
// kSplitChunkVectors rows of s.stride.
template <class Team>
GPUREC_HD void sumSplitChunk(const Team& t, const SpeciesView& s, const SetRef& p, const CladeView& cv,
                             const TableView& tab, const SplitChunk& chunk, const SplitChunkView& chunks,
                             double pibarSideThreshold, double* scratch) {
    const int rowScale = cladeRowScale(t, cv, tab, chunk.clade);
    forEachNode(t, s, [&](int e) { scratch[e] = 0.0; });
    addSplitTerms(t, s, p, cv, tab, chunk.splitBegin, chunk.splitEnd, rowScale, pibarSideThreshold, scratch,
                  SplitStage{scratch + s.stride, (kSplitChunkVectors - 1) * s.stride});
    double* out = chunks.partial + static_cast<std::size_t>(chunk.slot) * s.stride;
    forEachNode(t, s, [&](int e) { out[e] = scratch[e]; });
}

// Π and Π̄ of clade c (spec 5), row-scaled like the CPU: the split terms relative to 2^rowScale
// (summed here, or added up from the partial rows of its chunks), then the self loop (converged:
// solved directly under PARENTS, else the exact postorder solve given Π̄ with Π̄ iterated; alerax:
// 4 sweeps), then the row normalised to a peak in [1/2, 1). Transfer highways couple a source to
// its destinations (q_h E_e Π(γ, d)): iterated with Π̄, from the last iterate's row.
template <class Team>
GPUREC_HD void solveCladeForward(const Team& t, const SpeciesView& s, const SetRef& p, const CladeView& cv,
                                 const TableView& tab, const SplitChunkView& chunks, int c,
                                 const ForwardSettings& opt, double* scratch) {
    const int n = s.n;
    // The direct solve turns the split terms into Π in place, in three vectors.
    const bool direct = forwardScratchVectors(s, opt.alerax) == 3;
    double *row = scratch, *bar = scratch + n, *K = direct ? row : scratch + 2 * n,
           *sub = direct ? scratch + 2 * n : scratch + 3 * n, *hw = scratch + 4 * n;
    const std::size_t self = tab.row(c);
    int rowScale = 0;
    const int gene = cv.geneSpecies[c];
    if (gene >= 0) {
        forEachNode(t, s, [&](int e) { K[e] = e == gene ? p.pS[e] : 0.0; });
    } else {
        rowScale = cladeRowScale(t, cv, tab, c);
        const int slot = chunks.cladeSlot[c];
        if (slot >= 0) {
            const int count = chunks.chunksOf(cv.splitOffset[c + 1] - cv.splitOffset[c]);
            const double* partial = chunks.partial + static_cast<std::size_t>(slot) * s.stride;
            forEachNode(t, s, [&](int e) {
                double sum = 0.0;
                for (int j = 0; j < count; ++j)
                    sum += partial[static_cast<std::size_t>(j) * s.stride + e];
                K[e] = sum;
            });
        } else {
            forEachNode(t, s, [&](int e) { K[e] = 0.0; });
            // Π̄ and the subtree sums are written after the split terms: their rows stage the splits
            // (the direct solve's two rows after K; else the two rows before K).
            const SplitStage stage =
                direct ? SplitStage{scratch + n, 3 * s.stride - n} : SplitStage{scratch, 2 * n};
            addSplitTerms(t, s, p, cv, tab, cv.splitOffset[c], cv.splitOffset[c + 1], rowScale,
                          opt.pibarSideThreshold, K, stage);
        }
    }
    int iterations = 0;
    if (direct) {
        t.sync();
        solveLoopDirect(t, s, p, K, sub, row, bar);
        iterations = 1;
    } else if (opt.alerax) {
        forEachNode(t, s, [&](int e) { row[e] = bar[e] = 0.0; });
        t.sync();
        for (int sweep = 0; sweep < 4; ++sweep) {
            if (p.highwayCoupling) {
                // As the E sweep: the highways' destinations read as the postorder leaves them.
                if (t.rank == 0)
                    for (int e = 0; e < n; ++e) {
                        const int f = s.left[e], g = s.right[e];
                        double v = K[e] + p.diag[e] * row[e] + p.bar[e] * bar[e] +
                                   p.E[e] * highwaySum(s, p.highwayRate, p.pS, e, row);
                        double below = 0.0;
                        if (f >= 0) {
                            v += p.pS[e] * (row[f] * p.E[g] + row[g] * p.E[f]);
                            below = sub[f] + sub[g];
                        }
                        row[e] = v;
                        sub[e] = v + below;
                    }
                t.sync();
            } else {
                sweepLevels(
                    t, s.upOffset, s.maxHeight + 1, LevelOrder::Ascending,
                    [&](int i) {
                        return DiagNode{s.upRecords[i], p.up[i], p.upDiag[i]};
                    },
                    [&](const DiagNode& u) {
                        const int e = u.r.node;
                        double v = K[e] + u.diag * row[e] + u.c.bar * bar[e];
                        double below = 0.0;
                        if (u.r.left >= 0) {
                            v += u.c.childLeft * row[u.r.left] + u.c.childRight * row[u.r.right];
                            below = sub[u.r.left] + sub[u.r.right];
                        }
                        row[e] = v;
                        sub[e] = v + below;
                    });
            }
            recipientAverageDown(t, s, row, sub, bar);
        }
        iterations = 4;
    } else {
        const int oldScale = opt.warmStart ? tab.scale[tab.local(c)] : 0;
        const bool highways = p.highwayCoupling;
        forEachNode(t, s, [&](int e) {
            bar[e] = opt.warmStart ? ldexp(tab.pibar[self + e], oldScale - rowScale) : 0.0;
            if (highways) row[e] = opt.warmStart ? ldexp(tab.pi[self + e], oldScale - rowScale) : 0.0;
        });
        t.sync();
        for (iterations = 1; iterations <= opt.piIters; ++iterations) {
            if (highways) {
                forEachNode(t, s,
                            [&](int e) { hw[e] = p.E[e] * highwaySum(s, p.highwayRate, p.pS, e, row); });
                t.sync();
            }
            double rowPeak = 0.0, rowChange = 0.0;
            sweepUpCoefficients(t, s, p, [&](const UpNode& u) {
                const int e = u.r.node;
                double v = K[e] + u.c.bar * bar[e];
                if (highways) v += hw[e];
                double below = 0.0;
                if (u.r.left >= 0) {
                    v += u.c.childLeft * row[u.r.left] + u.c.childRight * row[u.r.right];
                    below = sub[u.r.left] + sub[u.r.right];
                }
                const double x = v * u.c.invDenom;
                if (highways) {
                    rowPeak = maxOf(rowPeak, x);
                    rowChange = maxOf(rowChange, fabs(x - row[e]));
                }
                row[e] = x;
                sub[e] = x + below;
            });
            double peak = 0.0, change = 0.0;
            forEachRecipientAverage(t, s, row, sub, [&](int e, double next) {
                peak = maxOf(peak, next);
                change = maxOf(change, fabs(next - bar[e]));
                bar[e] = next;
            });
            t.max2(peak, change);
            if (highways) t.max2(rowPeak, rowChange);
            if (change <= opt.piTol * peak && (!highways || rowChange <= opt.piTol * rowPeak)) break;
        }
        if (iterations > opt.piIters) iterations = opt.piIters;
    }
    // One reduction for both peaks: scaling by 2^−k is monotone, so the stored Π̄ row's peak is the
    // scaled peak of Π̄.
    double peak = 0.0, barPeak = 0.0;
    forEachNode(t, s, [&](int e) {
        peak = maxOf(peak, row[e]);
        barPeak = maxOf(barPeak, bar[e]);
    });
    t.max2(peak, barPeak);
    int k = 0;
    if (peak > 0 && isFiniteValue(peak)) frexp(peak, &k);
    forEachNode(t, s, [&](int e) {
        tab.pi[self + e] = ldexp(row[e], -k);
        tab.pibar[self + e] = ldexp(bar[e], -k);
    });
    clearPadding(t, s, tab.pi + self);
    clearPadding(t, s, tab.pibar + self);
    if (t.rank == 0) {
        tab.scale[tab.local(c)] = rowScale + k;
        tab.pibarPeak[tab.local(c)] = ldexp(barPeak, -k);
        tab.iterations[tab.local(c)] = iterations;
    }
}

// Entry e of clade `to`'s rows copied from clade `from`, of the same class (cladeClasses) and solved in
// the same wave (BatchWaves' copies), with its scale, Π̄ peak and iterations at e = 0.
GPUREC_HD inline void copyRowEntry(const TableView& tab, int to, int from, int e) {
    tab.pi[tab.row(to) + e] = tab.pi[tab.row(from) + e];
    tab.pibar[tab.row(to) + e] = tab.pibar[tab.row(from) + e];
    if (e == 0) {
        tab.scale[tab.local(to)] = tab.scale[tab.local(from)];
        tab.pibarPeak[tab.local(to)] = tab.pibarPeak[tab.local(from)];
        tab.iterations[tab.local(to)] = tab.iterations[tab.local(from)];
    }
}

// ln Σ_e O_e Π(root, e) − ln Σ_e O_e (1 − E_e) of family f (spec 6.2): O_e = 1 (UNIFORM), the
// origination weights (OPTIMIZE), or ln Π(root, o) − ln(1 − E_o) for a family with one origination
// node o; keeps the root row's mantissa sum Σ_e O_e Π(root, e) for the adjoint's starting values.
template <class Team>
GPUREC_HD void familyLikelihood(const Team& t, const SpeciesView& s, const SetView& sv, const CladeView& cv,
                                const TableView& tab, int f, int familyBegin, double* logLikelihood,
                                double* rootSum) {
    const int root = cv.familyRoot[f];
    const int origin = cv.familyOrigin[f];
    const double* row = tab.pi + tab.row(root);
    const int set = cv.setOf(f);
    const double* E = sv.E + static_cast<std::size_t>(set) * s.stride;
    const double* o = cv.originWeights;
    double sum = 0.0, survive = 0.0;
    if (origin < 0 && o) {
        forEachNode(t, s, [&](int e) {
            sum += o[s.full(e)] * row[e];
            survive += o[s.full(e)] * (1.0 - E[e]);
        });
        sum = t.sum(sum);
        survive = t.sum(survive);
    } else if (origin < 0) {
        forEachNode(t, s, [&](int e) { sum += row[e]; });
        sum = t.sum(sum);
        survive = sv.survive[set];
    } else {
        sum = row[origin];
        survive = 1.0 - E[origin];
    }
    if (t.rank == 0) {
        rootSum[f - familyBegin] = sum;
        logLikelihood[f - familyBegin] = log(sum) + tab.scale[tab.local(root)] * kLn2 - log(survive);
    }
}

// Entry k of the sums Σ_f w_f Π(root_f, e) / Σ_h O_h Π(root_f, h) per chunk of `familiesPerChunk`
// families (engine/family_chunks.hpp), for the chunks the batch's families touch: k = (chunk −
// the batch's first chunk) · n + e, the batch's families of that chunk added in family order to
// acc[chunk · n + e] (--origination OPTIMIZE: the root rows' share of the weights' gradient; rows'
// scales cancel).
GPUREC_HD inline void originPosteriorEntry(const CladeView& cv, const TableView& tab, int familyBegin,
                                           int families, int familiesPerChunk, const double* rootSum,
                                           long long k, double* acc) {
    const int n = tab.n;
    const int chunk = familyBegin / familiesPerChunk + static_cast<int>(k / n), e = static_cast<int>(k % n);
    const int first = familyBegin > chunk * familiesPerChunk ? familyBegin : chunk * familiesPerChunk;
    const int last = familyBegin + families, chunkEnd = (chunk + 1) * familiesPerChunk;
    const int end = last < chunkEnd ? last : chunkEnd;
    double* out = acc + static_cast<std::size_t>(chunk) * n + e;
    double sum = *out;
    for (int f = first; f < end; ++f)
        if (cv.setOf(f) == 0) // (shared rates) those on pruned trees add theirs in prunedThetaFamily
            sum += cv.weightOf(f) * tab.pi[tab.row(cv.familyRoot[f]) + e] / rootSum[f - familyBegin];
    *out = sum;
}

// The entries originPosteriorEntry and accumulateSharedEntry take for a batch: one per value of
// each chunk its families [familyBegin, familyEnd) touch.
GPUREC_HD inline long long chunkEntries(int familyBegin, int familyEnd, int familiesPerChunk,
                                        long long width) {
    return (static_cast<long long>((familyEnd - 1) / familiesPerChunk - familyBegin / familiesPerChunk) + 1) *
           width;
}

// Solves (I − Aᵀ) w = b for the self-loop operator A of spec 7 (the Jacobian of the Π and E
// equations) by iteration, for the NONE and RELDATED constraints: Aᵀ splits into the parent
// coupling and the diagonal, solved exactly top-down, and the Π̄ coupling, iterated; the transpose
// of the forward's splitting, so it converges at the same rate.
// Transfer highways' transposed coupling is iterated with the Π̄ coupling, from the last iterate.
// Uses scratch vectors w (the result), v, sub and with highways hw; b is read only. Returns the
// iterations.
template <class Team>
GPUREC_HD int solveLoopTranspose(const Team& t, const SpeciesView& s, const SetRef& p, const double* b,
                                 int maxIterations, double tolerance, double* w, double* v, double* sub,
                                 double* hw) {
    const bool ranked = s.constraint == TransferConstraint::RelDated;
    const bool highways = p.highwayCoupling;
    forEachNode(t, s, [&](int e) { w[e] = 0.0; });
    t.sync();
    int it = 1;
    for (; it <= maxIterations; ++it) {
        if (highways) forEachNode(t, s, [&](int d) { hw[d] = highwaySumInto(s, p, d, w); });
        sweepUp(
            t, s,
            [&](const NodeValue& nv) {
                const NodeRecord& r = nv.r;
                const double ve = nv.value * w[r.node];
                v[r.node] = ve;
                if (!ranked) sub[r.node] = ve + (r.left >= 0 ? sub[r.left] + sub[r.right] : 0.0);
            },
            p.upBarInv);
        // RELDATED: rank sums of v by first rank (tree/ranked_recipients.hpp), over sub.
        auto bucket = [&](int k) {
            return firstRankBucket(
                s.byRank, s.left, s.right, s.n, [&](int e) { return v[e]; }, k);
        };
        if (ranked) buildTeamRankSums(t, s.n, bucket, sub);
        double peak = 0.0, change = 0.0;
        sweepDownCoefficients(t, s, p, [&](const DownNode& d) {
            const NodeRecord& r = d.r;
            const int e = r.node;
            double fromBar = 0.0; // Σ of v over the nodes e is a recipient of
            if (ranked) {
                fromBar = rankedDonorSum(sub, s.n, bucket, firstRecipientRank(s.rank, s.parent, e), s.rank[e],
                                         r.parent < 0 ? 0.0 : v[s.sibling[e]]);
            } else {
                const double a = r.parent < 0 ? 0.0 : sub[e]; // above(e), written by the parent
                double below = 0.0;
                if (r.left >= 0) {
                    const double sl = sub[r.left], sr = sub[r.right];
                    sub[r.left] = a + v[e] + sr;
                    sub[r.right] = a + v[e] + sl;
                    below = sl + sr;
                }
                fromBar = s.constraint == TransferConstraint::None ? a + below : a;
            }
            double next = b[e] + fromBar;
            if (highways) next += hw[e];
            if (r.parent >= 0) next += d.c.parentCoef * w[r.parent];
            next *= d.c.invDenom;
            change = maxOf(change, fabs(next - w[e]));
            peak = maxOf(peak, fabs(next));
            w[e] = next;
        });
        t.max2(peak, change);
        if (change <= tolerance * peak) break;
    }
    return it > maxIterations ? maxIterations : it;
}

// Solves (I − Aᵀ) w = b + Rᵀu (u: the adjoint of Π̄): directly under the PARENTS constraint, else
// iterated. b and u are overwritten; sub and hw are scratch. Returns the iterations (1 for the direct
// solve).
template <class Team>
GPUREC_HD int solveSelfLoopTranspose(const Team& t, const SpeciesView& s, const SetRef& p, double* b,
                                     double* u, int maxIterations, double tolerance, double* w, double* sub,
                                     double* hw) {
    if (directSelfLoop(s)) {
        solveLoopTransposeDirect(t, s, p, b, u, w);
        return 1;
    }
    addRecipientAverageTranspose(t, s, u, sub, b);
    return solveLoopTranspose(t, s, p, b, maxIterations, tolerance, w, u, sub, hw);
}

// The adjoint of clade c (spec 7.2), gathered from its parents' adjoints (already final: parents lie
// in later waves) instead of pushed into it, so no two teams write the same row. Per family
// (indexed by family − familyBegin): rootSum, and for pruning the largest right-hand side of the
// family's finished waves (largestDone) and of those including this one (largestRunning).
template <class Team>
GPUREC_HD void solveCladeAdjoint(const Team& t, const SpeciesView& s, const SetRef& p, const CladeView& cv,
                                 const TableView& tab, int c, int familyBegin, const double* rootSum,
                                 const double* largestDone, double* largestRunning,
                                 const AdjointSettings& opt, double* scratch) {
    const int n = s.n;
    // The direct solve writes w over sub, dead by then (three vectors).
    double *b = scratch, *fromBar = scratch + n, *sub = scratch + 2 * n,
           *w = adjointScratchVectors(s) == 3 ? sub : scratch + 3 * n, *hw = scratch + 4 * n;
    const int family = cv.cladeFamily[c];
    const bool root = c == cv.familyRoot[family];
    const int origin = cv.familyOrigin[family];
    const double start = root ? -cv.weightOf(family) / (kLn2 * rootSum[family - familyBegin]) : 0.0;
    const double* o = cv.originWeights;
    forEachNode(t, s, [&](int e) {
        b[e] = origin >= 0 ? (e == origin ? start : 0.0) : o ? o[s.full(e)] * start : start;
        fromBar[e] = 0.0;
    });
    // Node-major over the staged parent splits, like the forward's split terms (the free rows after
    // fromBar stage them); each member only touches its own nodes.
    forEachStagedBatch<ParentSplitRows>(
        t, SplitStage{sub, adjointScratchVectors(s) * s.stride - 2 * n}, cv.parentOffset[c],
        cv.parentOffset[c + 1],
        [&](int q) { return ParentSplitRows(cv, tab, cv.parentSplits[q], c, opt.pibarSideThreshold); },
        [&](int count, auto&& splitAt) {
            forEachNode(t, s, [&](int e) {
                const double pD = p.pD[e], pT = p.pT[e];
                const int up = s.parent[e], sibling = up >= 0 ? s.sibling[e] : 0;
                const double pSUp = up >= 0 ? p.pS[up] : 0.0;
                double be = b[e], barE = fromBar[e];
                for (int j = 0; j < count; ++j) {
                    const ParentSplitRows split = splitAt(j);
                    if (split.fac == 0.0) continue;
                    const double *wp = split.parentAdjoint, *x = split.partner;
                    const double we = split.fac * wp[e];
                    double v = we * pD * x[e];
                    if (split.transfers) {
                        v += we * pT * split.partnerBar[e];
                        barE += we * pT * x[e];
                    }
                    if (up >= 0) v += split.fac * wp[up] * pSUp * x[sibling];
                    // This clade down a highway leaving e (the partner stays), or arriving at e.
                    forEachHighwayFrom(s, e, [&](int h, int dest) { v += we * p.q(h, e) * x[dest]; });
                    forEachHighwayInto(s, e, [&](int h, int source) {
                        v += split.fac * wp[source] * p.q(h, source) * x[source];
                    });
                    be += v;
                }
                b[e] = be;
                fromBar[e] = barE;
            });
        });
    t.sync();
    if (opt.pruning) {
        // The pruning test needs the whole right-hand side b + Rᵀ fromBar.
        addRecipientAverageTranspose(t, s, fromBar, sub, b);
        forEachNode(t, s, [&](int e) { fromBar[e] = 0.0; });
    }
    double peak = 0.0;
    forEachNode(t, s, [&](int e) { peak = maxOf(peak, maxOf(fabs(b[e]), fabs(fromBar[e]))); });
    peak = t.max(peak);
    const std::size_t self = tab.row(c);
    if (opt.pruning && t.rank == 0) t.raiseMax(largestRunning + (family - familyBegin), peak);
    const double biggest = maxOf(largestDone[family - familyBegin], peak);
    clearPadding(t, s, tab.adjoint + self);
    if (peak == 0.0 || (opt.pruning && peak < opt.pruningThreshold * biggest)) {
        forEachNode(t, s, [&](int e) { tab.adjoint[self + e] = 0.0; });
        if (t.rank == 0) tab.iterations[tab.local(c)] = 0;
        return;
    }
    const int iterations =
        solveSelfLoopTranspose(t, s, p, b, fromBar, opt.maxIterations, opt.tolerance, w, sub, hw);
    forEachNode(t, s, [&](int e) { tab.adjoint[self + e] = w[e]; });
    if (t.rank == 0) tab.iterations[tab.local(c)] = iterations;
}

// Contributions of clades [begin, end) of one family at species e to ∂NLL/∂(pS, pD, pT, E, Ē)
// (spec 7.2 step 4); each clade's terms read its own row and its splits' child rows.
GPUREC_HD inline void gatherGradient(const SpeciesView& s, const SetRef& p, const CladeView& cv,
                                     const TableView& tab, int begin, int end, int e,
                                     double pibarSideThreshold, double out[kGradientRows]) {
    double gS = 0, gD = 0, gT = 0, gE = 0, gEbar = 0;
    const double dl = s.cladeDuplicationLoss ? 1.0 : 0.0, tl = s.cladeTransferLoss ? 1.0 : 0.0;
    const int f = s.left[e], g = s.right[e], up = s.parent[e];
    for (int c = begin; c < end; ++c) {
        const double* pi = tab.pi + tab.row(c);
        const double* wrow = tab.adjoint + tab.row(c);
        const double w = wrow[e];
        const double wUp = up >= 0 ? wrow[up] : 0.0;
        // The copy sent down a highway arriving at e dies: q_h Π(γ, source) E_e.
        if (tl != 0.0)
            forEachHighwayInto(s, e,
                               [&](int h, int source) { gE += wrow[source] * p.q(h, source) * pi[source]; });
        if (w == 0.0 && wUp == 0.0) continue;
        const int sc = tab.scale[tab.local(c)];
        const int gene = cv.geneSpecies[c];
        if (gene >= 0) {
            if (gene == e) gS += w * ldexp(1.0, -sc);
        } else {
            const SplitTerms st = splitTerms(s, cv, tab, c, sc, e, pibarSideThreshold);
            gS += w * st.S;
            gD += w * st.D;
            gT += w * st.T;
        }
        const double pie = pi[e], pibar = tab.pibar[tab.row(c) + e];
        gD += w * dl * 2.0 * p.E[e] * pie;
        gT += w * tl * (p.Ebar[e] * pie + p.E[e] * pibar);
        gE += w * (dl * 2.0 * p.pD[e] * pie + tl * p.pT[e] * pibar);
        gEbar += w * tl * p.pT[e] * pie;
        if (f >= 0) gS += w * (pi[f] * p.E[g] + pi[g] * p.E[f]);
        if (up >= 0) gE += wUp * p.pS[up] * pi[s.sibling[e]];
        // The copy left at e dies, the gene gone down a highway leaving e: q_h Π(γ, d) E_e.
        if (tl != 0.0 && s.highways > 0) gE += w * highwaySum(s, p.highwayRate, p.pS, e, pi);
    }
    out[RowS] = gS;
    out[RowD] = gD;
    out[RowT] = gT;
    out[RowE] = gE;
    out[RowEbar] = gEbar;
}

// ∂NLL/∂q_h of clades [begin, end) of one family (highway h from e to d): the transfer-loss terms
// w_e (Π_e E_d + Π_d E_e) and the split terms w_e Σ fac (Π'_e Π''_d + Π''_e Π'_d).
GPUREC_HD inline double gatherHighwayGradient(const SpeciesView& s, const SetRef& p, const CladeView& cv,
                                              const TableView& tab, int begin, int end, int h) {
    const int e = s.highwaySource[h], d = s.highwayDestination[h];
    const double tl = s.cladeTransferLoss ? 1.0 : 0.0;
    double gH = 0.0;
    for (int c = begin; c < end; ++c) {
        const double* pi = tab.pi + tab.row(c);
        const double w = tab.adjoint[tab.row(c) + e];
        if (w == 0.0) continue;
        double terms = tl * (pi[e] * p.E[d] + pi[d] * p.E[e]);
        const int sc = tab.scale[tab.local(c)];
        for (int k = cv.splitOffset[c]; k < cv.splitOffset[c + 1]; ++k) {
            const int l = cv.splitLeft[k], r = cv.splitRight[k];
            const double fac =
                ldexp(cv.splitWeight[k], tab.scale[tab.local(l)] + tab.scale[tab.local(r)] - sc);
            if (fac == 0.0) continue;
            const double *a = tab.pi + tab.row(l), *b = tab.pi + tab.row(r);
            terms += fac * (a[e] * b[d] + b[e] * a[d]);
        }
        gH += w * terms;
    }
    return gH;
}

// Σ_e O_e (1 − E_e) over the nodes of s, O read at their full-tree nodes.
template <class Team>
GPUREC_HD double weightedSurvival(const Team& t, const SpeciesView& s, const double* E, const double* o) {
    double survive = 0.0;
    forEachNode(t, s, [&](int e) { survive += o[s.full(e)] * (1.0 - E[e]); });
    return t.sum(survive);
}

// Eliminates E of one family's parameter set (spec 7.3), the family originating at `origin` (−1:
// anywhere) with gradient weight `weight`: solves the E adjoint and writes d NLL / dθ of a
// species-uniform set (a genewise row) to theta[0..2], or with nodeTheta (a family on its pruned tree
// under shared rates) each node's terms to nodeTheta[k · stride + its full-tree node] and zeroes the
// five rows it read. acc holds the gradientWidth(stride, highways) entries accumulated by
// gatherGradient and gatherHighwayGradient; with highways their rates' θ terms overwrite acc's
// highway entries. originWeights: the full tree's O_e (--origination OPTIMIZE; null: 1 each).
template <class Team>
GPUREC_HD void eliminateExtinctionSet(const Team& t, const SpeciesView& s, const SetRef& p, double survive,
                                      int origin, double weight, double* acc, int maxIterations,
                                      double tolerance, double* scratch, double* theta,
                                      double* nodeTheta = nullptr, const double* originWeights = nullptr) {
    const int n = s.n, stride = s.stride;
    double *q = scratch, *u = scratch + n, *v = scratch + 2 * n, *sub = scratch + 3 * n,
           *hw = scratch + 4 * n;
    double* gH = acc + kGradientRows * stride;
    const double* o = origin < 0 ? originWeights : nullptr;
    if (o) survive = weightedSurvival(t, s, p.E, o);
    // d/dE_e of the conditioning term log2 Σ_e O_e (1 − E_e).
    const double conditioning = weight / (kLn2 * (origin < 0 ? survive : 1.0 - p.E[origin]));
    forEachNode(t, s, [&](int e) {
        q[e] = acc[RowE * stride + e] -
               (origin < 0 || e == origin ? (o ? o[s.full(e)] : 1.0) * conditioning : 0.0);
        v[e] = acc[RowEbar * stride + e];
    });
    t.sync();
    solveSelfLoopTranspose(t, s, p, q, v, maxIterations, tolerance, u, sub, hw);
    double tD = 0, tL = 0, tT = 0;
    forEachNode(t, s, [&](int e) {
        const double E = p.E[e];
        const double gL = u[e];
        const double gS =
            acc[RowS * stride + e] + u[e] * s.speciationExtinction(e, s.left[e], s.right[e], p.E);
        const double gD = acc[RowD * stride + e] + u[e] * E * E;
        const double gT = acc[RowT * stride + e] + u[e] * E * p.Ebar[e];
        double mean = gS * p.pS[e] + gD * p.pD[e] + gL * p.pL[e] + gT * p.pT[e];
        // The node's softmax runs over its highways too; E_e E_d q_h is the highway's share of E_e.
        forEachHighwayFrom(s, e, [&](int h, int d) {
            gH[h] += u[e] * E * p.E[d];
            mean += gH[h] * p.q(h, e);
        });
        if (s.highways > 0) hw[e] = mean; // a fifth scratch vector only with highways
        const double nodeD = kLn2 * p.pD[e] * (gD - mean), nodeL = kLn2 * p.pL[e] * (gL - mean),
                     nodeT = kLn2 * p.pT[e] * (gT - mean);
        if (nodeTheta) {
            const int node = s.fullNode ? s.fullNode[e] : e;
            nodeTheta[node] = nodeD;
            nodeTheta[stride + node] = nodeL;
            nodeTheta[2 * stride + node] = nodeT;
            // This member alone read its nodes' entries.
            for (int r = 0; r < kGradientRows; ++r)
                acc[r * stride + e] = 0.0;
        }
        tD += nodeD;
        tL += nodeL;
        tT += nodeT;
    });
    if (nodeTheta) return;
    t.sum3(tD, tL, tT);
    // Each member rewrites only the highways leaving its own nodes.
    forEachNode(t, s, [&](int e) {
        forEachHighwayFrom(s, e, [&](int h, int) { gH[h] = kLn2 * p.q(h, e) * (gH[h] - hw[e]); });
    });
    if (t.rank == 0) {
        theta[0] = tD;
        theta[1] = tL;
        theta[2] = tT;
    }
}

// The per-element bodies of the gradient's gather and reductions, for the kernels and the host
// executor alike. Chunk rows: partial[(chunk − chunkBegin) · gradientWidth(n, highways) ...].

// Entry (chunk, i) of the gather into the chunk's rows (gradientWidth(stride, highways,
// nodeThetaRows) entries), s the tree of the chunk's family (speciesOf): for i < stride the chunk's
// clades' terms at species node i (zero past s's nodes, and the node θ rows zeroed), then ∂/∂q_h of
// highway h = i − stride.
GPUREC_HD inline void gatherChunkEntry(const SpeciesView& s, const SetView& sv, const CladeView& cv,
                                       const TableView& tab, const ChunkView& chunks, int chunk,
                                       int chunkBegin, int i, double threshold, double* partial) {
    const int first = chunks.firstClade[chunk];
    if (chunks.leftOut(cv.cladeFamily[first])) return;
    const int stride = s.stride;
    const SetRef p(sv, cv.setOf(cv.cladeFamily[first]), stride);
    double* rows = partial + static_cast<std::size_t>(chunk - chunkBegin) *
                                 gradientWidth(stride, s.highways, chunks.nodeThetaRows);
    if (i >= stride) {
        rows[kGradientRows * stride + (i - stride)] =
            gatherHighwayGradient(s, p, cv, tab, first, chunks.endClade[chunk], i - stride);
        return;
    }
    double* nodeTheta = rows + kGradientRows * stride + s.highways;
    for (int k = 0; k < chunks.nodeThetaRows; ++k)
        nodeTheta[k * stride + i] = 0.0;
    double out[kGradientRows] = {0, 0, 0, 0, 0};
    if (i < s.n) gatherGradient(s, p, cv, tab, first, chunks.endClade[chunk], i, threshold, out);
    for (int k = 0; k < kGradientRows; ++k)
        rows[k * stride + i] = out[k];
}

// Entry k of family f's rows: its chunks summed in chunk order into its first chunk's rows.
GPUREC_HD inline void foldChunkEntry(const ChunkView& chunks, int f, int chunkBegin, long long width,
                                     long long k, double* partial) {
    if (chunks.leftOut(f)) return;
    const int first = chunks.familyChunkBegin[f], end = chunks.familyChunkBegin[f + 1];
    double sum = partial[(first - chunkBegin) * width + k];
    for (int c = first + 1; c < end; ++c)
        sum += partial[(c - chunkBegin) * width + k];
    partial[(first - chunkBegin) * width + k] = sum;
}

// Entry k of the shared sums per chunk of `familiesPerChunk` families (engine/family_chunks.hpp), for
// the chunks the batch's families touch: k = (chunk − the batch's first chunk) · width + i, the
// batch's families of that chunk added in family order to total[chunk · width + i]. Chunks, not one
// running total, so that a share of the families gives its chunks' bits (FamilyShareExchange).
GPUREC_HD inline void accumulateSharedEntry(const ChunkView& chunks, int familyBegin, int familyEnd,
                                            int chunkBegin, int familiesPerChunk, SharedSlice slice,
                                            long long k, const double* partial, double* total) {
    const long long width = slice.width;
    const int chunk = familyBegin / familiesPerChunk + static_cast<int>(k / width);
    const long long i = k % width;
    const int first = familyBegin > chunk * familiesPerChunk ? familyBegin : chunk * familiesPerChunk;
    const int chunkEnd = (chunk + 1) * familiesPerChunk;
    const int end = familyEnd < chunkEnd ? familyEnd : chunkEnd;
    double* out = total + chunk * width + i;
    double sum = *out;
    for (int f = first; f < end; ++f)
        sum += partial[(chunks.familyChunkBegin[f] - chunkBegin) * slice.stride + slice.offset + i];
    *out = sum;
}

// d NLL / dθ of genewise family f from its folded rows: E eliminated, theta[3 f + k]; with highways
// the family's terms of their rates replace its rows' highway entries (summed over the families
// like the shared modes' rows).
template <class Team>
GPUREC_HD void genewiseThetaFamily(const Team& t, const SpeciesView& s, const SetView& sv,
                                   const CladeView& cv, const ChunkView& chunks, int f, int chunkBegin,
                                   double* partial, const AdjointSettings& opt, double* scratch,
                                   double* theta) {
    if (chunks.leftOut(f)) return; // the whole team alike
    const SetRef p(sv, f, s.stride);
    double* acc = partial + static_cast<std::size_t>(chunks.familyChunkBegin[f] - chunkBegin) *
                                gradientWidth(s.stride, s.highways);
    eliminateExtinctionSet(t, s, p, sv.survive[f], cv.familyOrigin[f], cv.weightOf(f), acc, opt.maxIterations,
                           opt.tolerance, scratch, theta + 3 * static_cast<std::size_t>(f));
}

// Shared rates on pruned trees: family f, when on a pruned tree (set > 0), eliminates its own E
// (its tree's) and moves its folded rows into d NLL / dθ per full-tree node (the chunk rows' node θ
// rows: D, L, T, and under --origination OPTIMIZE the weights', from its root row and its own
// Σ O (1 − E)), which the shared sums then add like the other rows. s: the family's tree; rootSum
// per batch family from familyBegin.
template <class Team>
GPUREC_HD void prunedThetaFamily(const Team& t, const SpeciesView& s, const SetView& sv, const CladeView& cv,
                                 const TableView& tab, const ChunkView& chunks, int f, int familyBegin,
                                 int chunkBegin, const double* rootSum, double* partial,
                                 const AdjointSettings& opt, double* scratch) {
    const int set = cv.setOf(f);
    if (set == 0) return; // on the full tree: its rows join the pooled E elimination
    const SetRef p(sv, set, s.stride);
    double* acc = partial + static_cast<std::size_t>(chunks.familyChunkBegin[f] - chunkBegin) *
                                gradientWidth(s.stride, s.highways, chunks.nodeThetaRows);
    double* nodeTheta = acc + kGradientRows * s.stride + s.highways;
    double unused[3];
    eliminateExtinctionSet(t, s, p, sv.survive[set], cv.familyOrigin[f], cv.weightOf(f), acc,
                           opt.maxIterations, opt.tolerance, scratch, unused, nodeTheta, cv.originWeights);
    const double* o = cv.originWeights;
    if (!o) return;
    // Every family originates anywhere under OPTIMIZE: the weights' share of its NLL,
    // O_e (1 − E_e) / Σ O (1 − E) − O_e Π(root, e) / Σ O Π(root, ·), at its kept nodes.
    const double survive = weightedSurvival(t, s, p.E, o);
    const double* root = tab.pi + tab.row(cv.familyRoot[f]);
    const double w = cv.weightOf(f), sum = rootSum[f - familyBegin];
    forEachNode(t, s, [&](int e) {
        const int node = s.full(e);
        nodeTheta[3 * s.stride + node] = o[node] * w * ((1.0 - p.E[e]) / survive - root[e] / sum);
    });
}

} // namespace gpurec::gpu
