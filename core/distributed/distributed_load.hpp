#pragma once
// loadInput for a run spread over processes (process_group.hpp). Every process reads the species
// tree and the families file (small); the gene-tree files, the cost, are read once in all: each
// process reads a share of them balanced by file size, the processes exchange what the filters and
// reports need (names, files, genes' species, clade and split counts, errors), apply the filters
// as one process does, and place the kept families in ranges of whole reduction chunks balanced by
// their clades and splits (family_partition.hpp). A process then reads the few families of its
// range that another one read (where the two splits differ) and forgets the others' clade sets.
//
// Every process returns the same dataset, exclusions, errors and dimensions as loadInput in one
// process, in the same order, each family placed on its holder (GeneFamily::holder; elsewhere only
// its sizes). Throws like loadInput, and std::invalid_argument for more processes than chunks.
#include "data/load.hpp"
#include "distributed/process_group.hpp"

namespace gpurec {

LoadedInput loadAcross(ProcessGroup& group, const InputPaths& paths, TransferConstraint constraint,
                       const LoadOptions& options);

} // namespace gpurec
