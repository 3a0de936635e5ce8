#pragma once
// AleRax's species_trees/ files of a search (alerax-files.md 1.1, species-tree-search.md 4.2, 5),
// with numbers at 17 significant digits, and the search trace.
#include "species_search/species_search.hpp"

#include <string>

namespace gpurec {

// Branch supports: internal nodes labelled with the split's count (KH or bootstrap), leaves
// keep their names; the root carries the replicate count.
std::string branchSupportNewick(const SpeciesTopology& tree, const std::map<Clade, int>& supports,
                                int replicates);
// Root supports: every node whose branch was an evaluated root position labelled with its
// value ("name_value" on leaves); other nodes keep their names.
std::string rootLlrNewick(const SpeciesTopology& tree, const std::vector<RootSupport>& roots);
std::string rootRellNewick(const SpeciesTopology& tree, const std::vector<RootSupport>& roots);

// search_trace.csv: header, then one row per step.
std::string searchTraceHeader();
std::string searchTraceRow(const SearchStep& step);
// The seconds column of a trace's last row (0 for a trace of no rows): where a resumed search's
// clock goes on from.
double lastTraceSeconds(const std::string& traceText);

// Writes the files under <folder> (species_trees/ must exist): inferred, support and root files.
void writeSearchTrees(const std::string& speciesTreesFolder, const SpeciesSearchResult& result,
                      TransferConstraint constraint, SearchStrategy strategy);

} // namespace gpurec
