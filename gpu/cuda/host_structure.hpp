#pragma once
// The dataset flattened into the arrays the GPU solver reads (device_views.hpp): species tree with
// level lists, clades and splits of all families under global ids, parent-split lists for the
// adjoint's gather, gradient chunks and each batch's wave lists. Plain C++: the backend uploads
// these vectors, the host emulation tests point views at them directly.
#include "batch_plan.hpp"
#include "data/dataset.hpp"
#include "device_views.hpp"
#include "engine/species_pruning.hpp"
#include "engine/wave_schedule.hpp"
#include "model/rate_parameters.hpp"

#include <utility>
#include <vector>

namespace gpurec::gpu {

// Most work per gradient chunk, a clade and each of its splits counting one: the gather walks a
// chunk's clades and their splits in turn, so a chunk of a family with many splits (a large sample
// of gene trees) would set the kernel's length on its own (a clade with more splits is a chunk by
// itself).
constexpr int kChunkWork = 1024;
constexpr int kChunkSplits = 256;      // most splits per chunk of a many-split clade's split terms
constexpr int kFewestChunkSplits = 32; // fewest, in a wave narrower than the device

// How many splits a wave's chunks take. A wave that fills the device cuts only clades of more than
// `most` splits, which would keep one team busy long after the others; in a narrower one the teams
// left idle take the split terms instead (the root wave of a few large families: one team per root
// summing hundreds of splits was half of a 500-species forward), the wave's splits spread over the
// `cladesInFlight` teams the device runs at once, no chunk under `fewest` splits.
struct SplitChunking {
    int cladesInFlight = 1;
    int fewest = kFewestChunkSplits, most = kChunkSplits;
    // Splits per chunk of a wave solving `clades` clades of `splits` splits in all.
    int splitsPerChunk(long long clades, long long splits) const;
    // Partial rows a wave narrower than the device may need (its chunks of at least splits /
    // cladesInFlight splits: at most cladesInFlight of them, and one more per clade cut).
    long long narrowWaveRows() const { return 2LL * cladesInFlight; }
};

// Where one species tree's arrays start in HostStructure's concatenated species arrays.
struct TreeOffsets {
    int n = 0, maxHeight = 0, maxDepth = 0;
    int node = 0;                   // node-indexed arrays and level records
    int upLevel = 0, downLevel = 0; // level offsets (upOffset, downOffset)
};

struct HostStructure {
    // The full species tree's (trees[0]'s) size, levels and loop terms.
    int n = 0, maxHeight = 0, maxDepth = 0;
    TransferConstraint constraint = TransferConstraint::Parents;
    bool cladeDuplicationLoss = true, cladeTransferLoss = true; // SpeciesLayout's
    // Every species tree the families are solved on, concatenated (trees[t] says where each starts):
    // the full tree first, then with --prune-species-tree each distinct pruned tree (FamilyLayouts).
    // Node indices inside are each tree's own.
    std::vector<TreeOffsets> trees;
    std::vector<int> familyTree;   // per family: its tree (FamilyLayouts::of)
    std::vector<int> treeFamilies; // per tree: how many families are solved on it
    std::vector<int> fullNode;     // per node of every tree: its full-tree node
    std::vector<int> left, right, parent, sibling, upOffset, downOffset;
    std::vector<NodeRecord> upRecords, downRecords;
    std::vector<int> rank, byRank;                          // SpeciesLayout's
    std::vector<double> invRecipients;                      // 1/|R| per node
    std::vector<double> upInvRecipients, downInvRecipients; // 1/|R| in level order
    std::vector<double> missing;                            // per node, SpeciesLayout::missing
    // Transfer highways (SpeciesView's): ends, and the CSR lists of those leaving and arriving at
    // each node.
    std::vector<int> highwaySource, highwayDestination, fromOffset, highwaysFrom, intoOffset, highwaysInto;

    std::vector<int> familyCladeBegin; // per family, plus one past the end
    std::vector<int> splitOffset, splitLeft, splitRight, splitParent, parentOffset, parentSplits;
    std::vector<double> splitWeight;
    // geneSpecies and familyOrigin are nodes of the family's own tree.
    std::vector<int> geneSpecies, cladeFamily, familyRoot, familyOrigin;
    // Per gradient chunk: consecutive clades of one family, at most `chunkWork` work (kChunkWork).
    std::vector<int> chunkFirst, chunkEnd;
    std::vector<int> familyChunks; // per family: its gradient chunks (BatchPlanInput::familyChunks)

    // Throws std::runtime_error when the dataset exceeds 32-bit clade or split ids.
    explicit HostStructure(const Dataset& data, int chunkWork = kChunkWork);
    // Recomputes what depends on the species tree (node records, levels, the clades' leaf species,
    // the families' origins) for `data`: the same families on another tree (LikelihoodBackend::
    // setSpeciesTree).
    void setSpeciesTree(const Dataset& data);

    int cladeCount() const { return familyCladeBegin.back(); }
    std::vector<int> familyCladeCounts() const;
    // Per family: partial rows its clades with more than chunkSplits splits need (with
    // SplitChunking::narrowWaveRows, an upper bound for any one wave).
    std::vector<int> familySplitChunkRows(int chunkSplits) const;
    SpeciesView speciesView() const; // the full tree's view of these host vectors
    CladeView cladeView(bool genewise) const;
    bool pruned() const { return trees.size() > 1; }
    // The view of every tree, from the full tree's view `full` (this structure's arrays, or the
    // device's copies of them) and the start of the fullNode array there.
    std::vector<SpeciesView> treeViews(const SpeciesView& full, const int* fullNodes) const;
};

// Wave lists of every batch, batch-major: clades[waves[b][k].first ...] holds wave k of batch b
// (waves[b][k].second clades), children always in earlier waves. The clades of a wave with more
// splits than waveChunks[b][k].splits (SplitChunking) have their split terms summed in chunks first,
// each writing partial row `slot` of the wave.
// Clades of one class (cladeClasses) have the same rows under shared rates: the clades of a wave
// whose class an earlier clade of that wave and batch has come last in its list,
// waveCopies[b][k].second of them, their rows copied from copySources[waveCopies[b][k].first ...]
// instead of solved again; rowSource[c] names that solved clade for each copy c (c itself for the
// others), whose rows the split terms read instead of the copy's (TableView::rowSource).
struct BatchWaves {
    std::vector<int> clades;
    std::vector<std::vector<std::pair<int, int>>> waves;
    std::vector<int> copySources;
    std::vector<std::vector<std::pair<int, int>>> waveCopies;
    std::vector<int> rowSource;
    std::vector<SplitChunk> chunks;
    std::vector<std::vector<WaveChunks>> waveChunks;
    std::vector<int> cladeSlot;  // per clade: its first chunk's partial row, −1 when unsplit
    long long maxWaveChunks = 0; // partial rows the largest wave needs
};
// The transfer highways' rates ρ_h and each node's Σ ρ_h over the highways leaving it, summed as
// RateParameters::probabilities sums them (SetView::highwayRate, highwayExtra; empty: no highways).
struct HighwayRates {
    std::vector<double> rate, extra;
};
HighwayRates highwayRates(const RateParameters& theta, const std::vector<Highway>& highways, int n);

// Per clade, a class shared by the clades whose rows are equal, bit for bit, for any shared parameter
// set (one for every family: the global and specieswise modes) on any full species tree: genes of
// one species, and clades whose splits are, in order, of equal weights and children of equal
// classes (the same arithmetic on the same numbers). Across families most genes and many cherries
// repeat (hogenom-like, 3,000 families: 87,284 genes of 666 species, 91,348 clades of the next wave
// in 17,374 classes; 21 % of all clades repeat one of their wave). Invariant under setSpeciesTree,
// which relabels the same leaves. Empty with pruned trees, which change with the species tree.
std::vector<int> cladeClasses(const WaveSchedule& schedule, const HostStructure& structure);

// From the families' cross-family waves (computeWaveSchedule). `needed`, when given (one flag per
// family), keeps the flagged families' clades only (LikelihoodBackend::setNeededFamilies); waves
// left empty are dropped. `classes` (cladeClasses; empty: none) lists repeated clades as copies.
BatchWaves batchWaves(const WaveSchedule& schedule, const HostStructure& structure, const BatchPlan& plan,
                      const std::vector<int>& classes, const SplitChunking& chunking,
                      const std::vector<char>* needed = nullptr);

} // namespace gpurec::gpu
