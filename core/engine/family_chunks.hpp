#pragma once
// The chunks of the CPU backend's fixed-order sums over families (shared gradients, statistics):
// decided by the dataset's shape alone, never by the thread or process count, so that the sums have
// the same bits however the families are spread (core/distributed cuts the families at chunk
// boundaries).

namespace gpurec {

// Families per chunk: one, unless the chunks' shared gradients (`rows` rows of `speciesNodes`
// values each; speciesNodes 0 when there is none) would exceed the chunk budget.
int familiesPerChunk(int families, int speciesNodes, int rows);
// The rows per species node of a chunk's shared gradient: six, one more with origination weights,
// four more with pruned species trees (their families' θ gradient, about four entries per node).
inline int sharedGradientRows(bool originWeights, bool pruned) {
    return (originWeights ? 7 : 6) + (pruned ? 4 : 0);
}
// The chunk size of a shared gradient.
inline int sharedGradientChunk(int families, int speciesNodes, bool originWeights, bool pruned) {
    return familiesPerChunk(families, speciesNodes, sharedGradientRows(originWeights, pruned));
}

} // namespace gpurec
