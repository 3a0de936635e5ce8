#include "engine/family_solver.hpp"
#include "engine/extinction_root.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace gpurec {

namespace {

constexpr int kAleRaxSweeps = 4;

double maxRelativeChange(const std::vector<double>& a, const std::vector<double>& b) {
    double m = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        double scale = std::max(std::abs(a[i]), std::abs(b[i]));
        if (scale > 0) m = std::max(m, std::abs(a[i] - b[i]) / scale);
    }
    return m;
}

// Split terms of clade c relative to 2^rowScale: S (without pS), D (without pD), T (without pT), and
// per highway its transfer of one child clade (without q_h).
struct SplitTerms {
    std::vector<double> S, D, T, H;
    SplitTerms(int n, int highways) : S(n), D(n), T(n), H(highways) {}
};

int largestSplitScale(const GeneFamily& family, const CladeTables& t, int c) {
    const CladeSet& cs = family.clades;
    int best = 0;
    bool any = false;
    for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
        int sc = t.scale[cs.splits[k].left] + t.scale[cs.splits[k].right];
        if (!any || sc > best) best = sc;
        any = true;
    }
    return best;
}

void computeSplitTerms(const SpeciesLayout& s, const GeneFamily& family, const CladeTables& t, int c,
                       int rowScale, double pibarSideThreshold, SplitTerms& out) {
    const int n = s.size;
    std::fill(out.S.begin(), out.S.end(), 0.0);
    std::fill(out.D.begin(), out.D.end(), 0.0);
    std::fill(out.T.begin(), out.T.end(), 0.0);
    std::fill(out.H.begin(), out.H.end(), 0.0);
    const CladeSet& cs = family.clades;
    for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
        const CladeSplit& sp = cs.splits[k];
        double fac = std::ldexp(sp.weight, t.scale[sp.left] + t.scale[sp.right] - rowScale);
        if (fac == 0.0) continue;
        const double* a = t.piRow(sp.left);
        const double* b = t.piRow(sp.right);
        const double* abar = t.pibarRow(sp.left);
        const double* bbar = t.pibarRow(sp.right);
        bool transfers = true;
        if (pibarSideThreshold > 0) {
            // Rows are normalised to a peak in [1/2, 1): the transfer terms are bounded by the Π̄ peaks.
            double peak = std::max(*std::max_element(abar, abar + n), *std::max_element(bbar, bbar + n));
            transfers = peak >= pibarSideThreshold;
        }
        for (int e = 0; e < n; ++e) {
            if (s.left[e] >= 0) {
                int f = s.left[e], g = s.right[e];
                out.S[e] += fac * (a[f] * b[g] + b[f] * a[g]);
            }
            out.D[e] += fac * a[e] * b[e];
            if (transfers) out.T[e] += fac * (a[e] * bbar[e] + b[e] * abar[e]);
        }
        for (int h = 0; h < static_cast<int>(s.highways.size()); ++h) {
            const int e = s.highways[h].source, d = s.highways[h].destination;
            out.H[h] += fac * (a[e] * b[d] + b[e] * a[d]);
        }
    }
}

// out = in * 2^k, exact; one multiplication per entry unless 2^k itself is out of range.
void scaleInto(const double* in, double* out, int n, int k) {
    if (k > -1000 && k < 1000) {
        const double f = std::ldexp(1.0, k);
        for (int e = 0; e < n; ++e)
            out[e] = in[e] * f;
    } else {
        for (int e = 0; e < n; ++e)
            out[e] = std::ldexp(in[e], k);
    }
}

// Rescales a row so its peak lies in [1/2, 1); returns the exponent moved into the scale.
int normaliseRow(double* row, double* barRow, int n) {
    double peak = *std::max_element(row, row + n);
    if (!(peak > 0) || !std::isfinite(peak)) return 0;
    int k = 0;
    std::frexp(peak, &k);
    scaleInto(row, row, n, -k);
    scaleInto(barRow, barRow, n, -k);
    return k;
}

// Solves (I − Aᵀ) w = b for the self-loop operator A = T + B shared by the Π and E equations.
// T (diagonal and child couplings) is triangular in postorder and is inverted exactly by one
// preorder pass; only the weak Π̄ (or Ē) coupling B, of weight pT E, is left to the Neumann/BiCGSTAB
// solver: (I − M) w = (I − Tᵀ)⁻¹ b with M = (I − Tᵀ)⁻¹ Bᵀ. Without this the solver also had to
// iterate the SL chains, and the gradient cost over 3 forward evaluations under the alerax schedule.
class AdjointSelfLoopSolve {
  public:
    AdjointSelfLoopSolve(const SpeciesLayout& s, const EventProbabilities& p, const std::vector<double>& E,
                         const std::vector<double>& Ebar, SelfLoopOf of)
        : s_(s), loop_(s, p, E, Ebar, of), solver_(s.size), fromParent_(s.size), invDiagonal_(s.size),
          start_(s.size), tmp_(s.size), scratch_(3 * s.size) {
        for (int h = 0; h < s.size; ++h) {
            fromParent_[h] = s.parent[h] >= 0 ? loop_.childCoefficient(s.parent[h], h) : 0.0;
            invDiagonal_[h] = 1.0 / (1.0 - loop_.diagonal(h));
        }
    }

    void solve(const double* b, double* w, const SolverOptions& options, KrylovStats& stats) {
        std::copy(b, b + s_.size, start_.begin());
        treeSolve(start_.data());
        solver_.solve([this](const double* in, double* out) { coupling(in, out); }, start_.data(), w, options,
                      stats);
    }

  private:
    // x ← (I − Tᵀ)⁻¹ x; parents have larger postorder indices, so they are final when read.
    void treeSolve(double* x) const {
        for (int h = s_.size - 1; h >= 0; --h) {
            const int e = s_.parent[h];
            x[h] = (x[h] + (e >= 0 ? fromParent_[h] * x[e] : 0.0)) * invDiagonal_[h];
        }
    }
    // out = (I − Tᵀ)⁻¹ Bᵀ in
    void coupling(const double* in, double* out) {
        for (int e = 0; e < s_.size; ++e)
            tmp_[e] = loop_.barCoefficient(e) * in[e];
        recipientAverageTranspose(s_, tmp_.data(), out, scratch_.data());
        loop_.addHighwayCouplingTranspose(in, out);
        treeSolve(out);
    }

    const SpeciesLayout& s_;
    SelfLoopOperator loop_;
    NeumannBicgstab solver_;
    // T's coefficients: pS of the parent times E of the sibling, and 1 / (1 − diagonal).
    std::vector<double> fromParent_, invDiagonal_;
    std::vector<double> start_, tmp_, scratch_;
};

// Σ_h q_h E_d over the highways leaving e: what multiplies E_e in its highway terms.
double highwayExtinction(const SpeciesLayout& s, const EventProbabilities& p, const std::vector<double>& E,
                         int e) {
    double sum = 0.0;
    s.forEachHighwayFrom(e, [&](int h, int d) { sum += p.pH[h] * E[d]; });
    return sum;
}

} // namespace

ExtinctionState solveExtinction(const SpeciesLayout& s, const EventProbabilities& p,
                                const SolverOptions& options, const std::vector<double>* warmStart) {
    const int n = s.size;
    ExtinctionState st;
    st.E.assign(n, options.e_init);
    if (warmStart && static_cast<int>(warmStart->size()) == n) st.E = *warmStart;
    st.Ebar.assign(n, 0.0);
    std::vector<double> scratch(3 * n);
    if (options.schedule == Schedule::AleRax) {
        // AleRax v1.4: E = Ē = 0, then 4 Gauss–Seidel sweeps with Ē refreshed after each.
        std::fill(st.E.begin(), st.E.end(), 0.0);
        for (int sweep = 0; sweep < kAleRaxSweeps; ++sweep) {
            for (int e = 0; e < n; ++e) {
                st.E[e] = p.pL[e] + p.pS[e] * s.speciationExtinction(e, st.E.data()) +
                          p.pD[e] * st.E[e] * st.E[e] + p.pT[e] * st.E[e] * st.Ebar[e] +
                          highwayExtinction(s, p, st.E, e) * st.E[e];
            }
            recipientAverage(s, st.E.data(), st.Ebar.data(), scratch.data());
        }
        st.iterations = kAleRaxSweeps;
        return st;
    }
    recipientAverage(s, st.E.data(), st.Ebar.data(), scratch.data());
    std::vector<double> previous;
    for (int it = 1; it <= options.e_max_iter; ++it) {
        previous = st.E;
        // Each node's quadratic solved exactly given its children and Ē: far fewer sweeps than
        // plain substitution, and the same least fixed point.
        for (int e = 0; e < n; ++e) {
            double c = p.pL[e] + p.pS[e] * s.speciationExtinction(e, st.E.data());
            st.E[e] = leastRoot(p.pD[e], p.pT[e] * st.Ebar[e] + highwayExtinction(s, p, st.E, e), c);
        }
        recipientAverage(s, st.E.data(), st.Ebar.data(), scratch.data());
        st.iterations = it;
        st.residual = maxRelativeChange(previous, st.E);
        if (st.residual <= options.e_tol) break;
    }
    st.stoppedEarly = st.residual > options.e_tol;
    return st;
}

CladeTables solveClades(const SpeciesLayout& s, const GeneFamily& family, const EventProbabilities& p,
                        const ExtinctionState& ext, const SolverOptions& options) {
    CladeTables t;
    solveClades(s, family, p, ext, options, t, false);
    return t;
}

void solveClades(const SpeciesLayout& s, const GeneFamily& family, const EventProbabilities& p,
                 const ExtinctionState& ext, const SolverOptions& options, CladeTables& t, bool warm) {
    const int n = s.size;
    const CladeSet& cs = family.clades;
    const int C = cs.cladeCount();
    warm = warm && t.clades == C && t.species == n;
    t.clades = C;
    t.species = n;
    t.pi.resize(static_cast<std::size_t>(C) * n);
    t.pibar.resize(static_cast<std::size_t>(C) * n);
    t.scale.resize(C);
    t.cladeSelfIterations.resize(C);
    t.selfIterations = 0;
    t.maxSelfIterations = 0;
    t.earlyClades = 0;
    t.earlyResidual = 0.0;

    SplitTerms terms(n, static_cast<int>(s.highways.size()));
    std::vector<double> K(n), diag(n), bar(n), denom(n), barGuess(n), scratch(3 * n);
    // Π(γ, d) E_e q_h couples a highway's source to its destination, like Π̄ couples every node.
    const bool highwayCoupled = SelfLoopOperator::highwayCouplingOf(s, SelfLoopOf::Clades);
    bool coupled = highwayCoupled; // by Π̄: without TL terms one postorder pass solves a clade exactly
    for (int e = 0; e < n; ++e) {
        diag[e] = SelfLoopOperator::diagonalOf(s, p, ext.E, ext.Ebar, SelfLoopOf::Clades, e);
        bar[e] = SelfLoopOperator::barCoefficientOf(s, p, ext.E, SelfLoopOf::Clades, e);
        coupled = coupled || bar[e] != 0.0;
        denom[e] = 1.0 - diag[e];
        if (!(denom[e] > 0))
            throw std::runtime_error("the self loop of species node " + std::to_string(e) +
                                     " diverges (2 pD E + pT Ē >= 1): rates out of the model's range");
    }
    // AleRax solves an uncoupled clade (UndatedDL, --no-tl) by that pass too: the DL term in closed form.
    const bool alerax = options.schedule == Schedule::AleRax && coupled;
    for (int c = 0; c < C; ++c) {
        double* row = t.pi.data() + static_cast<std::size_t>(c) * n;
        double* barRow = t.pibar.data() + static_cast<std::size_t>(c) * n;
        int rowScale = 0;
        if (cs.cladeGene[c] >= 0) {
            std::fill(K.begin(), K.end(), 0.0);
            int e = s.local(family.geneSpecies[cs.cladeGene[c]]);
            K[e] = p.pS[e];
        } else {
            rowScale = largestSplitScale(family, t, c);
            computeSplitTerms(s, family, t, c, rowScale, options.pibar_side_threshold, terms);
            for (int e = 0; e < n; ++e)
                K[e] = p.pS[e] * terms.S[e] + p.pD[e] * terms.D[e] + p.pT[e] * terms.T[e];
            for (int h = 0; h < static_cast<int>(s.highways.size()); ++h)
                K[s.highways[h].source] += p.pH[h] * terms.H[h];
        }
        // q_h E_e Π(γ, d) for the highways leaving e, with Π(γ, d) as the row holds it now.
        auto highwayTerm = [&](int e) {
            double v = 0.0;
            if (highwayCoupled)
                s.forEachHighwayFrom(e, [&](int h, int d) { v += p.pH[h] * ext.E[e] * row[d]; });
            return v;
        };
        int iterations = 0;
        if (alerax) {
            // AleRax v1.4 (spec 5.2): Π = Π̄ = 0, 4 Gauss–Seidel sweeps in postorder, Π̄ after each.
            std::fill(row, row + n, 0.0);
            std::fill(barRow, barRow + n, 0.0);
            for (int sweep = 0; sweep < kAleRaxSweeps; ++sweep) {
                for (int e = 0; e < n; ++e) {
                    double v = K[e] + diag[e] * row[e] + bar[e] * barRow[e] + highwayTerm(e);
                    if (s.left[e] >= 0) {
                        int f = s.left[e], g = s.right[e];
                        v += p.pS[e] * (row[f] * ext.E[g] + row[g] * ext.E[f]);
                    }
                    row[e] = v;
                }
                recipientAverage(s, row, barRow, scratch.data());
            }
            iterations = kAleRaxSweeps;
        } else {
            // Given Π̄, one postorder pass solves the clade's equations exactly; only the Π̄
            // coupling (weight pT E / |R|) is iterated.
            if (warm) {
                scaleInto(barRow, barGuess.data(), n, t.scale[c] - rowScale);
                if (highwayCoupled) scaleInto(row, row, n, t.scale[c] - rowScale);
            } else {
                std::fill(barGuess.begin(), barGuess.end(), 0.0);
                if (highwayCoupled) std::fill(row, row + n, 0.0);
            }
            for (iterations = 1; iterations <= options.pi_iters; ++iterations) {
                // Highway destinations are read as the pass leaves them (Gauss–Seidel).
                double rowPeak = 0, rowChange = 0;
                for (int e = 0; e < n; ++e) {
                    double v = K[e] + bar[e] * barGuess[e] + highwayTerm(e);
                    if (s.left[e] >= 0) {
                        int f = s.left[e], g = s.right[e];
                        v += p.pS[e] * (row[f] * ext.E[g] + row[g] * ext.E[f]);
                    }
                    v /= denom[e];
                    if (highwayCoupled) {
                        rowPeak = std::max(rowPeak, v);
                        rowChange = std::max(rowChange, std::abs(v - row[e]));
                    }
                    row[e] = v;
                }
                recipientAverage(s, row, barRow, scratch.data());
                double peak = 0, change = 0;
                for (int e = 0; e < n; ++e) {
                    peak = std::max(peak, barRow[e]);
                    change = std::max(change, std::abs(barRow[e] - barGuess[e]));
                }
                std::copy(barRow, barRow + n, barGuess.begin());
                if (!coupled || (change <= options.pi_tol * peak && rowChange <= options.pi_tol * rowPeak))
                    break;
                if (iterations == options.pi_iters) {
                    ++t.earlyClades;
                    t.earlyResidual = std::max(t.earlyResidual, peak > 0 ? change / peak : change);
                }
            }
            iterations = std::min(iterations, options.pi_iters);
        }
        t.scale[c] = rowScale + normaliseRow(row, barRow, n);
        t.selfIterations += iterations;
        t.cladeSelfIterations[c] = iterations;
        t.maxSelfIterations = std::max(t.maxSelfIterations, iterations);
    }
}

double familyLogLikelihood(const CladeTables& tables, const ExtinctionState& ext, int origin,
                           const std::vector<double>* originWeights) {
    const int root = tables.clades - 1;
    const double* row = tables.piRow(root);
    if (origin >= 0)
        return std::log(row[origin]) + tables.scale[root] * std::numbers::ln2 - std::log1p(-ext.E[origin]);
    double sum = 0, survive = 0;
    for (int e = 0; e < tables.species; ++e) {
        const double o = originWeights ? (*originWeights)[e] : 1.0;
        sum += o * row[e];
        survive += o * (1.0 - ext.E[e]);
    }
    return std::log(sum) + tables.scale[root] * std::numbers::ln2 - std::log(survive);
}

void addOriginationGradient(const CladeTables& tables, const ExtinctionState& ext,
                            const std::vector<double>& originWeights, double weight, std::vector<double>& g) {
    const int root = tables.clades - 1;
    const double* row = tables.piRow(root); // the row's scale cancels in Π(root, e) / Σ o Π(root, ·)
    double sum = 0, survive = 0;
    for (int e = 0; e < tables.species; ++e) {
        sum += originWeights[e] * row[e];
        survive += originWeights[e] * (1.0 - ext.E[e]);
    }
    for (int e = 0; e < tables.species; ++e)
        g[e] += weight * originWeights[e] * ((1.0 - ext.E[e]) / survive - row[e] / sum);
}

void ProbabilityGradient::add(const ProbabilityGradient& o) {
    if (gH.size() < o.gH.size()) gH.resize(o.gH.size());
    for (std::size_t h = 0; h < o.gH.size(); ++h)
        gH[h] += o.gH[h];
    for (std::size_t e = 0; e < gS.size(); ++e) {
        gS[e] += o.gS[e];
        gD[e] += o.gD[e];
        gL[e] += o.gL[e];
        gT[e] += o.gT[e];
        gE[e] += o.gE[e];
        gEbar[e] += o.gEbar[e];
    }
}

// Adjoint rows are scaled like their clade: the true ∂NLL/∂Π(c, e) is w[c*S+e] * 2^-scale[c], so
// products of adjoints and Π entries need no scale at all.
void accumulateCladeAdjoint(const SpeciesLayout& s, const GeneFamily& family, const EventProbabilities& p,
                            const ExtinctionState& ext, const CladeTables& t, const SolverOptions& options,
                            ProbabilityGradient& grad, AdjointStats& stats,
                            const std::vector<double>* originWeights, double weight) {
    const int n = s.size;
    const CladeSet& cs = family.clades;
    const int C = cs.cladeCount();
    // The adjoint tables are reused by the thread's next family: freshly allocated ones cost more in
    // page faults than the backward pass itself on large families.
    thread_local std::vector<double> rhs, rhsBar;
    rhs.assign(static_cast<std::size_t>(C) * n, 0.0);
    rhsBar.assign(static_cast<std::size_t>(C) * n, 0.0);
    std::vector<double> w(n), b(n), tmp(n), scratch(3 * n);
    AdjointSelfLoopSolve selfLoop(s, p, ext.E, ext.Ebar, SelfLoopOf::Clades);
    const double dl = s.cladeDuplicationLoss ? 1.0 : 0.0, tl = s.cladeTransferLoss ? 1.0 : 0.0;
    const int H = static_cast<int>(s.highways.size());
    grad.gH.resize(H);

    // The root seed: NLL = −log2 Σ_e O_e Π(root, e) + (the conditioning term).
    const int root = C - 1;
    const int origin = family.originSpecies >= 0 ? s.local(family.originSpecies) : -1;
    {
        auto O = [&](int e) {
            return origin >= 0 ? (e == origin ? 1.0 : 0.0) : originWeights ? (*originWeights)[e] : 1.0;
        };
        double sum = 0;
        for (int e = 0; e < n; ++e)
            if (O(e) != 0.0) sum += O(e) * t.piRow(root)[e];
        for (int e = 0; e < n; ++e)
            if (O(e) != 0.0)
                rhs[static_cast<std::size_t>(root) * n + e] = -weight * O(e) / (std::numbers::ln2 * sum);
    }
    addConditioningGradient(ext.E, origin, grad.gE, originWeights, weight);
    double largest = 0;
    for (int c = C - 1; c >= 0; --c) {
        double* r = rhs.data() + static_cast<std::size_t>(c) * n;
        const double* rb = rhsBar.data() + static_cast<std::size_t>(c) * n;
        recipientAverageTranspose(s, rb, tmp.data(), scratch.data());
        double peak = 0;
        for (int e = 0; e < n; ++e) {
            b[e] = r[e] + tmp[e];
            peak = std::max(peak, std::abs(b[e]));
        }
        largest = std::max(largest, peak);
        if (stats.cladePosterior) {
            // Scaled adjoint times scaled Π is the true product; ∂NLL(bits) = −∂ln L / ln 2.
            double dot = 0;
            for (int e = 0; e < n; ++e)
                dot += b[e] * t.piRow(c)[e];
            (*stats.cladePosterior)[c] = -std::numbers::ln2 * dot;
        }
        if (peak == 0 ||
            (options.use_adjoint_pruning && peak < options.adjoint_pruning_threshold * largest)) {
            ++stats.prunedClades;
            continue;
        }
        selfLoop.solve(b.data(), w.data(), options, stats.krylov);

        const double* pi = t.piRow(c);
        const double* pibar = t.pibarRow(c);
        bool leafClade = cs.cladeGene[c] >= 0;
        if (leafClade) {
            int e = s.local(family.geneSpecies[cs.cladeGene[c]]);
            grad.gS[e] += w[e] * std::ldexp(1.0, -t.scale[c]);
        }
        for (int e = 0; e < n; ++e) {
            grad.gD[e] += w[e] * dl * 2.0 * ext.E[e] * pi[e];
            grad.gT[e] += w[e] * tl * (ext.Ebar[e] * pi[e] + ext.E[e] * pibar[e]);
            grad.gE[e] += w[e] * (dl * 2.0 * p.pD[e] * pi[e] + tl * p.pT[e] * pibar[e]);
            grad.gEbar[e] += w[e] * tl * p.pT[e] * pi[e];
            if (s.left[e] >= 0) {
                int f = s.left[e], g = s.right[e];
                grad.gS[e] += w[e] * (pi[f] * ext.E[g] + pi[g] * ext.E[f]);
                grad.gE[g] += w[e] * p.pS[e] * pi[f];
                grad.gE[f] += w[e] * p.pS[e] * pi[g];
            }
        }
        for (int h = 0; tl != 0.0 && h < H; ++h) { // the highways' transfer-loss terms
            const int e = s.highways[h].source, d = s.highways[h].destination;
            grad.gH[h] += w[e] * (pi[e] * ext.E[d] + pi[d] * ext.E[e]);
            grad.gE[d] += w[e] * p.pH[h] * pi[e];
            grad.gE[e] += w[e] * p.pH[h] * pi[d];
        }
        if (leafClade) continue;
        // Push the adjoint through the split terms into the child clades, and take the split
        // terms' derivatives in pS, pD, pT on the way (one pass over the splits).
        for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
            const CladeSplit& sp = cs.splits[k];
            double fac = std::ldexp(sp.weight, t.scale[sp.left] + t.scale[sp.right] - t.scale[c]);
            if (fac == 0.0) continue;
            const double* a = t.piRow(sp.left);
            const double* bb = t.piRow(sp.right);
            const double* abar = t.pibarRow(sp.left);
            const double* bbar = t.pibarRow(sp.right);
            double* ra = rhs.data() + static_cast<std::size_t>(sp.left) * n;
            double* rbb = rhs.data() + static_cast<std::size_t>(sp.right) * n;
            double* raBar = rhsBar.data() + static_cast<std::size_t>(sp.left) * n;
            double* rbBar = rhsBar.data() + static_cast<std::size_t>(sp.right) * n;
            bool transfers = true;
            if (options.pibar_side_threshold > 0) {
                double pk = std::max(*std::max_element(abar, abar + n), *std::max_element(bbar, bbar + n));
                transfers = pk >= options.pibar_side_threshold;
            }
            for (int e = 0; e < n; ++e) {
                double we = fac * w[e];
                if (we == 0.0) continue;
                if (s.left[e] >= 0) {
                    int f = s.left[e], g = s.right[e];
                    double ws = we * p.pS[e];
                    ra[f] += ws * bb[g];
                    rbb[g] += ws * a[f];
                    rbb[f] += ws * a[g];
                    ra[g] += ws * bb[f];
                    grad.gS[e] += we * (a[f] * bb[g] + bb[f] * a[g]);
                }
                double wd = we * p.pD[e];
                ra[e] += wd * bb[e];
                rbb[e] += wd * a[e];
                grad.gD[e] += we * a[e] * bb[e];
                if (transfers) {
                    double wt = we * p.pT[e];
                    ra[e] += wt * bbar[e];
                    rbBar[e] += wt * a[e];
                    rbb[e] += wt * abar[e];
                    raBar[e] += wt * bb[e];
                    grad.gT[e] += we * (a[e] * bbar[e] + bb[e] * abar[e]);
                }
            }
            for (int h = 0; h < H; ++h) { // one child clade down a highway, from e to d
                const int e = s.highways[h].source, d = s.highways[h].destination;
                const double we = fac * w[e];
                if (we == 0.0) continue;
                const double wh = we * p.pH[h];
                ra[e] += wh * bb[d];
                rbb[d] += wh * a[e];
                rbb[e] += wh * a[d];
                ra[d] += wh * bb[e];
                grad.gH[h] += we * (a[e] * bb[d] + bb[e] * a[d]);
            }
        }
    }
}

void addConditioningGradient(const std::vector<double>& E, int origin, std::vector<double>& gE,
                             const std::vector<double>* originWeights, double weight) {
    if (origin >= 0) {
        gE[origin] -= weight / (std::numbers::ln2 * (1.0 - E[origin]));
        return;
    }
    addConditioningGradient(E, std::vector<int>{-1}, gE, originWeights, std::vector<double>{weight});
}

void addConditioningGradient(const std::vector<double>& E, const std::vector<int>& origins,
                             std::vector<double>& gE, const std::vector<double>* originWeights,
                             const std::vector<double>& weights) {
    std::vector<double> atNode(E.size(), 0.0);
    double anywhere = 0;
    for (std::size_t f = 0; f < origins.size(); ++f)
        (origins[f] < 0 ? anywhere : atNode[origins[f]]) += weights.empty() ? 1.0 : weights[f];
    auto O = [&](std::size_t e) { return originWeights ? (*originWeights)[e] : 1.0; };
    double survive = 0;
    for (std::size_t e = 0; e < E.size(); ++e)
        survive += O(e) * (1.0 - E[e]);
    for (std::size_t e = 0; e < gE.size(); ++e) {
        if (anywhere > 0) gE[e] -= anywhere * O(e) / (std::numbers::ln2 * survive);
        if (atNode[e] > 0) gE[e] -= atNode[e] / (std::numbers::ln2 * (1.0 - E[e]));
    }
}

void eliminateExtinction(const SpeciesLayout& s, const EventProbabilities& p, const ExtinctionState& ext,
                         const SolverOptions& options, ProbabilityGradient& grad, KrylovStats& stats) {
    const int n = s.size;
    std::vector<double> q(n), tmp(n), scratch(3 * n), u(n);
    recipientAverageTranspose(s, grad.gEbar.data(), tmp.data(), scratch.data());
    for (int e = 0; e < n; ++e)
        q[e] = grad.gE[e] + tmp[e];
    AdjointSelfLoopSolve selfLoop(s, p, ext.E, ext.Ebar, SelfLoopOf::Extinction);
    selfLoop.solve(q.data(), u.data(), options, stats);
    for (int e = 0; e < n; ++e) {
        grad.gL[e] += u[e];
        grad.gS[e] += u[e] * s.speciationExtinction(e, ext.E.data());
        grad.gD[e] += u[e] * ext.E[e] * ext.E[e];
        grad.gT[e] += u[e] * ext.E[e] * ext.Ebar[e];
    }
    grad.gH.resize(s.highways.size());
    for (int h = 0; h < static_cast<int>(s.highways.size()); ++h) {
        const int e = s.highways[h].source, d = s.highways[h].destination;
        grad.gH[h] += u[e] * ext.E[e] * ext.E[d];
    }
    std::fill(grad.gE.begin(), grad.gE.end(), 0.0);
    std::fill(grad.gEbar.begin(), grad.gEbar.end(), 0.0);
}

void addThetaGradient(const RateParameters& theta, int family, const EventProbabilities& p,
                      const ProbabilityGradient& grad, std::vector<double>& out,
                      const std::vector<Highway>& highways, std::vector<double>* highwayOut,
                      const std::vector<int>& speciesNodes) {
    const int n = static_cast<int>(p.pS.size());
    // Each node's softmax runs over its highways too (model/highways.hpp): their terms join its mean.
    std::vector<double> mean(n);
    for (int e = 0; e < n; ++e)
        mean[e] = grad.gS[e] * p.pS[e] + grad.gD[e] * p.pD[e] + grad.gL[e] * p.pL[e] + grad.gT[e] * p.pT[e];
    for (int h = 0; h < static_cast<int>(highways.size()); ++h)
        mean[highways[h].source] += grad.gH[h] * p.pH[h];
    for (int e = 0; e < n; ++e) {
        const int node = speciesNodes.empty() ? e : speciesNodes[e];
        out[theta.entry(family, node, 0)] += std::numbers::ln2 * p.pD[e] * (grad.gD[e] - mean[e]);
        out[theta.entry(family, node, 1)] += std::numbers::ln2 * p.pL[e] * (grad.gL[e] - mean[e]);
        out[theta.entry(family, node, 2)] += std::numbers::ln2 * p.pT[e] * (grad.gT[e] - mean[e]);
    }
    for (int h = 0; h < static_cast<int>(highways.size()); ++h)
        (highwayOut ? (*highwayOut)[h] : out[theta.highwayEntry(h)]) +=
            std::numbers::ln2 * p.pH[h] * (grad.gH[h] - mean[highways[h].source]);
}

FamilyTables computeFamilyTables(const SpeciesLayout& species, const GeneFamily& family,
                                 const EventProbabilities& p, const SolverOptions& options) {
    FamilyTables t;
    t.p = p;
    ExtinctionState ext = solveExtinction(species, p, options);
    t.clades = solveClades(species, family, p, ext, options);
    t.stats.eEarly.note(ext.stoppedEarly ? 1 : 0, ext.residual);
    t.stats.piEarly.note(t.clades.earlyClades, t.clades.earlyResidual);
    t.E = std::move(ext.E);
    t.Ebar = std::move(ext.Ebar);
    return t;
}

} // namespace gpurec
