#include "reference_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

namespace gpurec::test {

std::vector<int> referenceRanks(const SpeciesTree& tree) {
    const int n = tree.size();
    std::vector<double> date(n, 0.0);
    for (int e = 0; e < n; ++e) {
        if (tree.isLeaf(e)) continue;
        std::vector<int> path; // e up to the root
        for (int a = e; a >= 0; a = tree.parent(a))
            path.push_back(a);
        for (auto a = path.rbegin(); a != path.rend(); ++a) {
            const double given = tree.branchLength(*a) > 0 ? tree.branchLength(*a) : 1.0;
            const double rounded = std::stod(std::to_string(given)); // "%f"
            date[e] += rounded > 0 ? rounded : 1.0;
        }
    }
    auto before = [&](int a, int b) {
        if (tree.isLeaf(a) != tree.isLeaf(b)) return tree.isLeaf(b);
        if (!tree.isLeaf(a) && date[a] != date[b]) return date[a] < date[b];
        return tree.name(a).compare(tree.name(b)) < 0;
    };
    std::vector<int> rank(n, 0);
    for (int e = 0; e < n; ++e)
        for (int h = 0; h < n; ++h)
            rank[e] += before(h, e) ? 1 : 0;
    return rank;
}

std::vector<std::vector<int>> referenceRecipients(const SpeciesTree& tree, TransferConstraint constraint) {
    const int n = tree.size();
    const std::vector<int> rank = referenceRanks(tree);
    std::vector<std::vector<int>> out(n);
    for (int e = 0; e < n; ++e)
        for (int h = 0; h < n; ++h) {
            bool allowed = h != e;
            if (constraint == TransferConstraint::Parents)
                for (int a = tree.parent(e); a >= 0; a = tree.parent(a))
                    allowed = allowed && a != h;
            if (constraint == TransferConstraint::RelDated && e != tree.root())
                allowed = allowed && rank[h] > rank[tree.parent(e)];
            if (allowed) out[e].push_back(h);
        }
    return out;
}

double averageOver(const std::vector<int>& recipients, const std::vector<double>& x) {
    double s = 0;
    for (int h : recipients)
        s += x[h];
    return s / static_cast<double>(recipients.size());
}

std::vector<double> referenceExtinction(const SpeciesTree& tree,
                                        const std::vector<std::vector<int>>& recipients,
                                        const EventProbabilities& p, const std::vector<double>& fm,
                                        bool alerax, const std::vector<Highway>& highways) {
    const int n = tree.size();
    std::vector<double> E(n, 0.0), Eb(n, 0.0);
    auto rhs = [&](int e) {
        const double s = tree.isLeaf(e) ? (fm.empty() ? 0.0 : fm[e]) : E[tree.left(e)] * E[tree.right(e)];
        double v = p.pL[e] + p.pS[e] * s + p.pD[e] * E[e] * E[e] + p.pT[e] * E[e] * Eb[e];
        for (std::size_t h = 0; h < highways.size(); ++h)
            if (highways[h].source == e) v += p.pH[h] * E[e] * E[highways[h].destination];
        return v;
    };
    for (int it = 0; it < (alerax ? 4 : 100000); ++it) {
        double change = 0;
        if (alerax) {
            for (int e = 0; e < n; ++e) // postorder: children already updated in this sweep
                E[e] = rhs(e);
        } else {
            std::vector<double> next(n);
            for (int e = 0; e < n; ++e)
                next[e] = rhs(e);
            for (int e = 0; e < n; ++e)
                change = std::max(change, std::abs(next[e] - E[e]));
            E = next;
        }
        for (int e = 0; e < n; ++e)
            Eb[e] = averageOver(recipients[e], E);
        if (!alerax && change < 1e-18) break;
    }
    return E;
}

double referenceLogLikelihood(const Dataset& data, const GeneFamily& family, Rates r, const EventModel& m,
                              bool aleraxExtinction, const std::vector<double>& highwayRates) {
    const SpeciesTree& tree = data.species;
    const int n = tree.size();
    const auto R = referenceRecipients(tree, data.transferConstraint);
    const std::vector<Highway>& highways = data.highways;
    const int H = static_cast<int>(highways.size());
    const double d = m.noDup ? 0.0 : r.d, t = !m.presentRates().transfer ? 0.0 : r.t;
    std::vector<double> z(n, 1 + d + r.l + t);
    for (int h = 0; h < H; ++h)
        z[highways[h].source] += highwayRates[h];
    EventProbabilities p;
    for (int e = 0; e < n; ++e) {
        p.pS.push_back(1 / z[e]);
        p.pD.push_back(d / z[e]);
        p.pL.push_back(r.l / z[e]);
        p.pT.push_back(t / z[e]);
    }
    for (int h = 0; h < H; ++h)
        p.pH.push_back(highwayRates[h] / z[highways[h].source]);
    const std::vector<double>& pS = p.pS;
    const std::vector<double>& pD = p.pD;
    const std::vector<double>& pT = p.pT;
    const bool dlTerm = !m.noDup && !m.noDl, tlTerm = m.recModel == RecModel::UndatedDTL && !m.noTl;
    const std::vector<double> E = referenceExtinction(tree, R, p, {}, aleraxExtinction, highways);
    std::vector<double> Eb(n);
    for (int e = 0; e < n; ++e)
        Eb[e] = averageOver(R[e], E);

    const CladeSet& cs = family.clades;
    const int C = cs.cladeCount();
    std::vector<std::vector<double>> pi(C, std::vector<double>(n, 0.0)), pib(C, std::vector<double>(n, 0.0));
    for (int c = 0; c < C; ++c) {
        std::vector<double> K(n, 0.0);
        if (cs.cladeGene[c] >= 0) {
            const int e = family.geneSpecies[cs.cladeGene[c]];
            K[e] = pS[e];
        }
        for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
            const CladeSplit& sp = cs.splits[k];
            const auto &a = pi[sp.left], &b = pi[sp.right], &ab = pib[sp.left], &bb = pib[sp.right];
            for (int e = 0; e < n; ++e) {
                if (!tree.isLeaf(e)) {
                    const int f = tree.left(e), g = tree.right(e);
                    K[e] += sp.weight * pS[e] * (a[f] * b[g] + b[f] * a[g]);
                }
                K[e] += sp.weight * (pD[e] * a[e] * b[e] + pT[e] * (a[e] * bb[e] + b[e] * ab[e]));
            }
            for (int h = 0; h < H; ++h) { // one child down the highway
                const int e = highways[h].source, dst = highways[h].destination;
                K[e] += sp.weight * p.pH[h] * (a[e] * b[dst] + b[e] * a[dst]);
            }
        }
        std::vector<double>& x = pi[c];
        std::vector<double>& xb = pib[c];
        for (int it = 0; it < 5000; ++it) {
            std::vector<double> next(n);
            for (int e = 0; e < n; ++e) {
                double v = K[e];
                if (!tree.isLeaf(e)) {
                    const int f = tree.left(e), g = tree.right(e);
                    v += pS[e] * (x[f] * E[g] + x[g] * E[f]);
                }
                if (dlTerm) v += 2 * pD[e] * E[e] * x[e];
                if (tlTerm) v += pT[e] * Eb[e] * x[e] + pT[e] * E[e] * xb[e];
                for (int h = 0; tlTerm && h < H; ++h)
                    if (highways[h].source == e)
                        v +=
                            p.pH[h] * (x[e] * E[highways[h].destination] + x[highways[h].destination] * E[e]);
                next[e] = v;
            }
            double change = 0, peak = 0;
            for (int e = 0; e < n; ++e) {
                change = std::max(change, std::abs(next[e] - x[e]));
                peak = std::max(peak, next[e]);
            }
            x = next;
            for (int e = 0; e < n; ++e)
                xb[e] = averageOver(R[e], x);
            if (change <= 4e-16 * peak) break;
        }
    }
    const double root = std::accumulate(pi[C - 1].begin(), pi[C - 1].end(), 0.0);
    double survive = 0;
    for (double v : E)
        survive += 1 - v;
    return std::log(root) - std::log(survive);
}

} // namespace gpurec::test
