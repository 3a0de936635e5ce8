#pragma once
// The chunks of the CPU backend's fixed-order sums over families (shared gradients, statistics):
// decided by the dataset's shape alone, never by the thread or process count, so that the sums have
// the same bits however the families are spread (core/distributed cuts the families at chunk
// boundaries).

namespace gpurec {

// Families per chunk: one, unless the chunks' shared gradients (`rows` rows of `speciesNodes`
// values each; speciesNodes 0 when there is none) would exceed the chunk budget.
int familiesPerChunk(int families, int speciesNodes, int rows);
// The chunk size of a shared gradient: six rows per species node, seven with origination weights.
inline int sharedGradientChunk(int families, int speciesNodes, bool originWeights) {
    return familiesPerChunk(families, speciesNodes, originWeights ? 7 : 6);
}

} // namespace gpurec
