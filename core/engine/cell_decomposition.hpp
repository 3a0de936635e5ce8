#pragma once
// One table cell taken apart into the terms of its equation, from a family's converged tables (the
// numbers a backend hands out, so the same the likelihood is made of): Π(γ, e) into observation,
// speciation, duplication and transfer terms split by split, and the speciation-loss,
// duplication-loss and two transfer-loss terms (spec 5.1); E(e) into loss, speciation, duplication
// and transfer-loss terms (spec 4.2); Ē(e) into its recipients' shares (spec 4.1). What the
// workbench's teaching view shows; the terms of a converged cell sum to the cell.
#include "data/dataset.hpp"
#include "engine/backend.hpp"
#include "engine/species_operators.hpp"

#include <string>
#include <vector>

namespace gpurec {

enum class CellTermKind {
    Observation,      // p^S_e: γ is one gene of leaf e
    Speciation,       // w p^S_e (Π(γ',f) Π(γ'',g) + Π(γ'',f) Π(γ',g)), one split
    Duplication,      // w p^D_e Π(γ',e) Π(γ'',e), one split
    Transfer,         // w p^T_e (Π(γ',e) Π̄(γ'',e) + Π(γ'',e) Π̄(γ',e)), one split
    SpeciationLoss,   // p^S_e (Π(γ,f) E_g + Π(γ,g) E_f)
    DuplicationLoss,  // 2 p^D_e E_e Π(γ,e)
    TransferLossAway, // p^T_e Ē_e Π(γ,e): the transferred copy dies
    TransferLossHere, // p^T_e E_e Π̄(γ,e): the copy left at e dies
};
// "S", "D", "T", "SL", "DL", "TL", "TL" and "leaf": the event names of reconciliations.
std::string eventName(CellTermKind kind);
// The term's equation in the spec's notation, e.g. "w · pS(e) · (Π(γ′,f) Π(γ″,g) + Π(γ″,f) Π(γ′,g))".
std::string termEquation(CellTermKind kind);

struct CellTerm {
    CellTermKind kind;
    int split = -1;      // index into the clade set's splits for S, D and T; -1 otherwise
    double scaled = 0.0; // the term times 2^-scale (exact at any depth); its value is scaled · 2^scale
};

struct CladeCellDecomposition {
    int clade = 0, species = 0;
    int scale = 0;               // the clade row's power-of-two scale
    double storedScaled = 0.0;   // Π(γ, e) · 2^-scale as the tables hold it
    std::vector<CellTerm> terms; // non-zero terms, in the equation's order (splits in clade-set order)
    double sumScaled() const;
    double value(const CellTerm& term) const; // the term's true value (0 when it underflows)
    double share(const CellTerm& term) const; // term / Π(γ, e)
};

// Throws std::out_of_range for a clade or species node outside the tables.
CladeCellDecomposition decomposeCladeCell(const SpeciesLayout& species, const GeneFamily& family,
                                          const FamilyTables& tables, int clade, int e);

struct ExtinctionCellDecomposition {
    double stored = 0.0; // E_e as solved
    // p^L, p^S E_f E_g (at a leaf: p^S fm_e, the gene there but not sampled), p^D E², p^T E Ē
    double loss = 0.0, speciation = 0.0, duplication = 0.0, transferLoss = 0.0;
    bool leaf = false;
    double sum() const { return loss + speciation + duplication + transferLoss; }
    double barStored = 0.0;                         // Ē_e as solved
    std::vector<std::pair<int, double>> recipients; // (h, E_h / |R(e)|) for every recipient h of e
};

ExtinctionCellDecomposition decomposeExtinctionCell(const SpeciesLayout& species, const FamilyTables& tables,
                                                    int e);

} // namespace gpurec
