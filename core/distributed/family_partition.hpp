#pragma once
// How the families of a distributed run are spread over its processes: contiguous ranges, cut at
// the boundaries of the engine's fixed-order chunks (engine/family_chunks.hpp) so that sums over
// families keep their one-process order, balanced by cost.
#include "data/dataset.hpp"

#include <vector>

namespace gpurec {

// A family's work in an evaluation: its clades and splits (each clade's self-loop and Π̄ sweeps and
// each split's product run over every species node, so the species count is left out).
double familyCost(const GeneFamily& family);

// `parts` contiguous ranges of the items whose costs are given, each made of whole blocks of
// `block` items (the last block may be shorter), with costs as even as the blocks allow: the first
// item of each range, then the end (parts + 1 values). With `nonEmpty`, every range holds a
// block at least: throws std::invalid_argument when there are fewer blocks than parts.
std::vector<int> balancedRanges(const std::vector<double>& costs, int block, int parts, bool nonEmpty);

// The process holding each family of `ranges` (balancedRanges' result).
std::vector<int> holdersOf(const std::vector<int>& ranges);

// Leaves a family's clade set to the process that holds it: only its sizes stay here.
void leaveToHolder(GeneFamily& family);

// `data` as process `rank` sees it when `holders` spread its families: each family's holder set,
// and the clade sets of the families other processes hold left out (their sizes kept).
Dataset placeFamilies(const Dataset& data, const std::vector<int>& holders, int rank);

} // namespace gpurec
