#pragma once
// Linear maps over per-species vectors shared by the E and Π equations (spec 4-5, 7).
#include "data/dataset.hpp"
#include "model/highways.hpp"
#include "model/rate_parameters.hpp"
#include "tree/species_tree.hpp"

#include <vector>

namespace gpurec {

// The species tree reduced to what the engine reads: postorder arrays, ranks and |R(e)|.
struct SpeciesLayout {
    int size = 0;
    std::vector<int> left, right, parent; // -1 where absent
    std::vector<int> rank, byRank;        // SpeciesTree::rank and its inverse (RELDATED)
    std::vector<double> invRecipients;    // 1/|R(e)|
    std::vector<double> missing;          // fraction of a leaf's genes not sampled (spec 1.5); 0 elsewhere
    TransferConstraint constraint = TransferConstraint::Parents;
    // The self-loop terms the clade equations Π keep (--no-dl, --no-tl; E keeps them all).
    bool cladeDuplicationLoss = true, cladeTransferLoss = true;
    // Transfer highways (model/highways.hpp), and for each node the highways leaving it:
    // highwaysFrom[highwayOffset[e] .. highwayOffset[e + 1]).
    std::vector<Highway> highways;
    std::vector<int> highwayOffset, highwaysFrom;
    // A family's pruned species tree (--prune-species-tree, engine/species_pruning.hpp): the full
    // tree's index of each node, and each full node's index here (−1 where collapsed). Both empty
    // for the full tree, whose indices are the full tree's own.
    std::vector<int> fullIndex, localIndex;

    SpeciesLayout() = default;
    SpeciesLayout(const SpeciesTree& tree, TransferConstraint constraint,
                  const std::vector<double>& fractionMissing = {});
    explicit SpeciesLayout(const Dataset& data);
    bool isLeaf(int e) const { return left[e] < 0; }
    bool isPruned() const { return !fullIndex.empty(); }
    int full(int e) const { return fullIndex.empty() ? e : fullIndex[e]; }
    int local(int fullNode) const { return localIndex.empty() ? fullNode : localIndex[fullNode]; }
    // Whether h ∈ R(e).
    bool isRecipient(int e, int h) const;
    void setHighways(const std::vector<Highway>& list);
    // Calls visit(h, destination) for every highway leaving e.
    template <class Visit> void forEachHighwayFrom(int e, Visit&& visit) const {
        for (int k = highwayOffset[e]; k < highwayOffset[e + 1]; ++k)
            visit(highwaysFrom[k], highways[highwaysFrom[k]].destination);
    }
    // What multiplies pS_e in E_e (spec 4.2): E_f E_g at an internal node, fm_e at a leaf.
    double speciationExtinction(int e, const double* E) const {
        return left[e] >= 0 ? E[left[e]] * E[right[e]] : missing[e];
    }
};

// out_e = (1/|R(e)|) Σ_{h∈R(e)} x_h, for x ≥ 0 from sums of non-negative terms only (no
// cancellation): in O(size) under PARENTS and NONE; under RELDATED in O(size log size) from pairwise
// sums over the rank order (tree/ranked_recipients.hpp). `scratch` needs 3*size doubles.
void recipientAverage(const SpeciesLayout& s, const double* x, double* out, double* scratch);
// The transpose: out_h = Σ_{e : h∈R(e)} u_e/|R(e)|.
void recipientAverageTranspose(const SpeciesLayout& s, const double* u, double* out, double* scratch);

// Whose self loop: the E equations' Jacobian has every term; the Π equations' loses the DL or TL
// terms the layout leaves out.
enum class SelfLoopOf { Extinction, Clades };

// The self-loop operator A of the E and Π fixed points (their Jacobian in E and in Π):
// (A x)_e = pS_e (x_f E_g + x_g E_f) + (2 pD_e E_e + pT_e Ē_e + Σ_h q_h E_d) x_e + pT_e E_e x̄_e
//           + Σ_h q_h E_e x_d, over the highways h from e to d.
class SelfLoopOperator {
  public:
    SelfLoopOperator(const SpeciesLayout& s, const EventProbabilities& p, const std::vector<double>& E,
                     const std::vector<double>& Ebar, SelfLoopOf of);
    // The coefficients of x_e and x̄_e in (A x)_e.
    static double diagonalOf(const SpeciesLayout& s, const EventProbabilities& p,
                             const std::vector<double>& E, const std::vector<double>& Ebar, SelfLoopOf of,
                             int e);
    static double barCoefficientOf(const SpeciesLayout& s, const EventProbabilities& p,
                                   const std::vector<double>& E, SelfLoopOf of, int e);
    void apply(const double* x, double* out) const;
    void applyTranspose(const double* x, double* out) const;
    // Whether the highways couple nodes in this loop (the Π loop loses them under --no-tl).
    static bool highwayCouplingOf(const SpeciesLayout& s, SelfLoopOf of);
    // out += the highways' off-diagonal part q_h E_e x_d (and its transpose).
    void addHighwayCoupling(const double* x, double* out) const;
    void addHighwayCouplingTranspose(const double* x, double* out) const;
    const SpeciesLayout& layout() const { return s_; }
    double diagonal(int e) const { return diag_[e]; }
    double barCoefficient(int e) const { return bar_[e]; }
    double childCoefficient(int e, int child) const; // pS_e E_sibling

  private:
    const SpeciesLayout& s_;
    const EventProbabilities& p_;
    const std::vector<double>& E_;
    std::vector<double> diag_, bar_;
    bool highways_ = false;
    mutable std::vector<double> scratch_, tmp_;
};

} // namespace gpurec
