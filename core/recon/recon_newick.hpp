#pragma once
// The two Newick forms of a reconciled gene tree that AleRax writes (spec 8.5), one line each.
#include "recon/reconciliation.hpp"
#include "tree/species_tree.hpp"

#include <string>

namespace gpurec {

// "NewickEvents": leaves named by their gene, internal nodes by their own event (S, D or T),
// branch lengths of the gene tree (the root's two branches share one unrooted edge).
std::string toNewickEvents(const Reconciliation& r);

// ALE-style: an internal node's label concatenates its branch's events from the top:
// `.<species>` for S and SL, `.D@<species>`, `.T@<donor>-><recipient>` for T and TL. A leaf's
// label is its gene alone, as in AleRax (the events on its branch are in the other outputs).
std::string toAleNewick(const Reconciliation& r, const SpeciesTree& species);

} // namespace gpurec
