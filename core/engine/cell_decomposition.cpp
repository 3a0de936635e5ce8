#include "engine/cell_decomposition.hpp"

#include <cmath>
#include <stdexcept>

namespace gpurec {

std::string eventName(CellTermKind kind) {
    switch (kind) {
    case CellTermKind::Observation:
        return "leaf";
    case CellTermKind::Speciation:
        return "S";
    case CellTermKind::Duplication:
        return "D";
    case CellTermKind::Transfer:
        return "T";
    case CellTermKind::SpeciationLoss:
        return "SL";
    case CellTermKind::DuplicationLoss:
        return "DL";
    case CellTermKind::TransferLossAway:
    case CellTermKind::TransferLossHere:
        break;
    }
    return "TL";
}

std::string termEquation(CellTermKind kind) {
    switch (kind) {
    case CellTermKind::Observation:
        return "pS(e) · [γ is one gene of leaf e]";
    case CellTermKind::Speciation:
        return "w · pS(e) · (Π(γ′,f) Π(γ″,g) + Π(γ″,f) Π(γ′,g))";
    case CellTermKind::Duplication:
        return "w · pD(e) · Π(γ′,e) Π(γ″,e)";
    case CellTermKind::Transfer:
        return "w · pT(e) · (Π(γ′,e) Π̄(γ″,e) + Π(γ″,e) Π̄(γ′,e))";
    case CellTermKind::SpeciationLoss:
        return "pS(e) · (Π(γ,f) E(g) + Π(γ,g) E(f))";
    case CellTermKind::DuplicationLoss:
        return "2 pD(e) · E(e) Π(γ,e)";
    case CellTermKind::TransferLossAway:
        return "pT(e) · Ē(e) Π(γ,e)";
    case CellTermKind::TransferLossHere:
        break;
    }
    return "pT(e) · E(e) Π̄(γ,e)";
}

double CladeCellDecomposition::sumScaled() const {
    double sum = 0;
    for (const CellTerm& t : terms)
        sum += t.scaled;
    return sum;
}

double CladeCellDecomposition::value(const CellTerm& term) const {
    return std::ldexp(term.scaled, scale);
}

double CladeCellDecomposition::share(const CellTerm& term) const {
    return storedScaled > 0 ? term.scaled / storedScaled : 0.0;
}

CladeCellDecomposition decomposeCladeCell(const SpeciesLayout& s, const GeneFamily& family,
                                          const FamilyTables& tables, int clade, int e) {
    const CladeTables& t = tables.clades;
    const CladeSet& cs = family.clades;
    if (clade < 0 || clade >= t.clades || clade >= cs.cladeCount())
        throw std::out_of_range("clade " + std::to_string(clade) + " is not in the family's tables");
    if (e < 0 || e >= t.species || e >= s.size)
        throw std::out_of_range("species node " + std::to_string(e) + " is not in the family's tables");
    const EventProbabilities& p = tables.p;
    const std::vector<double>& E = tables.E;
    const std::vector<double>& Ebar = tables.Ebar;
    CladeCellDecomposition out;
    out.clade = clade;
    out.species = e;
    out.scale = t.scale[clade];
    out.storedScaled = t.piRow(clade)[e];
    auto add = [&](CellTermKind kind, double scaled, int split = -1) {
        if (scaled != 0.0) out.terms.push_back({kind, split, scaled});
    };
    const bool internal = !s.isLeaf(e);
    const int f = s.left[e], g = s.right[e];
    if (cs.cladeGene[clade] >= 0 && !internal && s.local(family.geneSpecies[cs.cladeGene[clade]]) == e)
        add(CellTermKind::Observation, std::ldexp(p.pS[e], -out.scale));
    for (int k = cs.splitOffset[clade]; k < cs.splitOffset[clade + 1]; ++k) {
        const CladeSplit& sp = cs.splits[k];
        // Children rows are scaled by their own powers of two: their product is relative to this row's.
        const double fac = std::ldexp(sp.weight, t.scale[sp.left] + t.scale[sp.right] - out.scale);
        const double* a = t.piRow(sp.left);
        const double* b = t.piRow(sp.right);
        const double* abar = t.pibarRow(sp.left);
        const double* bbar = t.pibarRow(sp.right);
        if (internal) add(CellTermKind::Speciation, fac * p.pS[e] * (a[f] * b[g] + b[f] * a[g]), k);
        add(CellTermKind::Duplication, fac * p.pD[e] * a[e] * b[e], k);
        add(CellTermKind::Transfer, fac * p.pT[e] * (a[e] * bbar[e] + b[e] * abar[e]), k);
    }
    const double* row = t.piRow(clade);
    const double* bar = t.pibarRow(clade);
    if (internal) add(CellTermKind::SpeciationLoss, p.pS[e] * (row[f] * E[g] + row[g] * E[f]));
    if (s.cladeDuplicationLoss) add(CellTermKind::DuplicationLoss, 2.0 * p.pD[e] * E[e] * row[e]);
    if (s.cladeTransferLoss) {
        add(CellTermKind::TransferLossAway, p.pT[e] * Ebar[e] * row[e]);
        add(CellTermKind::TransferLossHere, p.pT[e] * E[e] * bar[e]);
    }
    return out;
}

ExtinctionCellDecomposition decomposeExtinctionCell(const SpeciesLayout& s, const FamilyTables& tables,
                                                    int e) {
    if (e < 0 || e >= s.size || e >= static_cast<int>(tables.E.size()))
        throw std::out_of_range("species node " + std::to_string(e) + " is not in the family's tables");
    const EventProbabilities& p = tables.p;
    const std::vector<double>& E = tables.E;
    ExtinctionCellDecomposition out;
    out.stored = E[e];
    out.loss = p.pL[e];
    out.leaf = s.isLeaf(e);
    out.speciation = p.pS[e] * s.speciationExtinction(e, E.data());
    out.duplication = p.pD[e] * E[e] * E[e];
    out.transferLoss = p.pT[e] * E[e] * tables.Ebar[e];
    out.barStored = tables.Ebar[e];
    for (int h = 0; h < s.size; ++h)
        if (s.isRecipient(e, h)) out.recipients.emplace_back(h, E[h] * s.invRecipients[e]);
    return out;
}

} // namespace gpurec
