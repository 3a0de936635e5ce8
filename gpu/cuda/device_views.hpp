#pragma once
// Plain views of the arrays the GPU solver reads and writes. They hold raw pointers only, so the same
// structs describe device memory in kernels and host memory in the host-side emulation tests.
#include "model/host_device.hpp"
#include "tree/transfer_constraint.hpp"

#include <cstddef>

namespace gpurec::gpu {

// A node as a level sweep visits it: the sweeps read one record per node (one 16-byte load), in
// level order, so a visit needs no dependent loads.
struct alignas(16) NodeRecord {
    int node, left, right, parent; // −1 where absent
};

// Per parameter set and node, in the up-sweep (height) order: the self-loop coefficients.
struct alignas(16) UpCoefficients {
    double childLeft;  // pS_e E_right: weight of Π(left child) in Π(e)
    double childRight; // pS_e E_left
    double bar;        // pT_e E_e
    double invDenom;   // 1 / (1 − 2 pD_e E_e − pT_e Ē_e)
    // The direct self-loop solve (direct_self_loop.hpp): weights of the children's subtree parts σ in
    // the node's own part α, and in its subtree part σ.
    double sigmaLeft, sigmaRight;
    double subtreeLeft, subtreeRight;
};

// Per parameter set and node, in the up-sweep (height) order: how the direct self-loop solve turns
// the sum o_e of Π over the nodes outside e's subtree that are not its ancestors into Π and Π̄.
struct alignas(16) OutsideCoefficients {
    double beta;          // ∂Π_e/∂o_e
    double invCoupling;   // 1 / (1 − τ_left τ_right), τ = ∂(subtree sum)/∂o of a child
    double crossLeft;     // τ_left / (1 − τ_left τ_right): weight of σ_right in the left subtree sum
    double crossRight;    // τ_right / (1 − τ_left τ_right)
    double gainLeft;      // ∂(left subtree sum)/∂o_e
    double gainRight;     // ∂(right subtree sum)/∂o_e
    double invRecipients; // 1 / |R(e)|
};

// Per parameter set and node, in the down-sweep (depth) order.
struct alignas(16) DownCoefficients {
    double parentCoef; // pS_parent E_sibling: weight of the parent's adjoint (0 at the root)
    double invDenom;
};

// The species tree in postorder (root last), with per-node levels for the level-synchronous sweeps.
// --prune-species-tree: a family's pruned tree is a view of its own (nodes 0..n−1 in its postorder,
// fullNode mapping them to the full tree) whose per-node arrays in the sets, tables and gradient rows
// keep the full tree's `stride`.
struct SpeciesView {
    int n = 0;
    int stride = 0;                // entries per node-indexed row of a set, table or gradient row
    const int* fullNode = nullptr; // a pruned tree's full-tree node of each node; null: the full tree
    const int* left = nullptr;     // -1 for leaves
    const int* right = nullptr;
    const int* parent = nullptr;     // -1 for the root
    const int* sibling = nullptr;    // -1 for the root
    const double* missing = nullptr; // fraction of a leaf's genes not sampled; 0 at internal nodes
    // Nodes grouped by height (leaves first) and by depth (root first): level k holds
    // upRecords[upOffset[k] .. upOffset[k + 1]) and downRecords[downOffset[k] .. downOffset[k + 1]).
    const int* upOffset = nullptr;
    const NodeRecord* upRecords = nullptr;
    const double* upInvRecipients = nullptr; // 1/|R| in up-sweep order
    const int* downOffset = nullptr;
    const NodeRecord* downRecords = nullptr;
    const double* downInvRecipients = nullptr;
    int maxHeight = 0;
    int maxDepth = 0;
    TransferConstraint constraint = TransferConstraint::Parents;
    // RELDATED: each node's rank, the node at each rank, and 1/|R| per node.
    const int* rank = nullptr;
    const int* byRank = nullptr;
    const double* invRecipients = nullptr;
    // The self-loop terms the clade equations Π keep (--no-dl, --no-tl); E keeps them all.
    bool cladeDuplicationLoss = true, cladeTransferLoss = true;
    // Transfer highways (model/highways.hpp; --pairwise-transfers: one per allowed pair): highway h
    // runs from highwaySource[h] to highwayDestination[h]; those leaving node e are highwaysFrom[
    // fromOffset[e] .. fromOffset[e + 1]), those arriving at e highwaysInto[intoOffset[e] ..].
    int highways = 0;
    const int* highwaySource = nullptr;
    const int* highwayDestination = nullptr;
    const int* fromOffset = nullptr;
    const int* highwaysFrom = nullptr;
    const int* intoOffset = nullptr;
    const int* highwaysInto = nullptr;
    // What multiplies pS_e in E_e (spec 4.2): E_f E_g at an internal node, fm_e at a leaf.
    GPUREC_HD double speciationExtinction(int e, int l, int r, const double* E) const {
        return l >= 0 ? E[l] * E[r] : missing[e];
    }
    GPUREC_HD int full(int e) const { return fullNode ? fullNode[e] : e; }
};

// Event probabilities and extinction state of every parameter set, set-major ([set * n + e]).
// Shared modes have one set; the genewise mode has one per family.
struct SetView {
    double* pS = nullptr;
    double* pD = nullptr;
    double* pL = nullptr;
    double* pT = nullptr;
    double* E = nullptr;
    double* Ebar = nullptr;
    double* diag = nullptr;                 // 2 pD E + pT Ē
    double* bar = nullptr;                  // pT E
    double* denom = nullptr;                // 1 − diag
    UpCoefficients* up = nullptr;           // [set * n + up-sweep position]
    double* upDiag = nullptr;               // 2 pD E + pT Ē, up-sweep order
    double* upBarInv = nullptr;             // pT E / |R|, up-sweep order
    DownCoefficients* down = nullptr;       // [set * n + down-sweep position]
    OutsideCoefficients* outside = nullptr; // [set * n + up-sweep position]
    double* survive = nullptr;              // per set: Σ_e (1 − E_e)
    int* eIterations = nullptr;
    double* eResidual = nullptr;
    int* divergentNode = nullptr; // per set: a node whose self loop diverges (denom ≤ 0), else −1
    // Transfer highways: their rates ρ_h (q_h = ρ_h pS[source] in every set), each node's Σ ρ_h over
    // the highways leaving it (the softmax's extra term), and whether this loop couples a highway's
    // source to its destination (the E loop always; the Π loop unless --no-tl).
    const double* highwayRate = nullptr;
    const double* highwayExtra = nullptr;
    bool highwayCoupling = false;
    // --prune-species-tree: the tree each set is solved on (a family's, or one shared by the families
    // of one pruned tree); null: every set is on the full tree.
    const SpeciesView* species = nullptr;
};

// The species tree of set `set`: its own with pruned trees, else the full tree `full`.
GPUREC_HD inline const SpeciesView& speciesOf(const SpeciesView& full, const SetView& sv, int set) {
    return sv.species ? sv.species[set] : full;
}

// Clade structure of the whole dataset (clade ids are global: families concatenated in input order).
struct CladeView {
    const int* splitOffset = nullptr; // splits of clade c: [splitOffset[c], splitOffset[c + 1])
    const int* splitLeft = nullptr;
    const int* splitRight = nullptr;
    const double* splitWeight = nullptr;
    const int* splitParent = nullptr;
    const int* parentOffset = nullptr; // splits in which clade c is a child: parentSplits[parentOffset[c] ..]
    const int* parentSplits = nullptr;
    const int* geneSpecies = nullptr; // species leaf of a single-gene clade, −1 otherwise
    const int* cladeFamily = nullptr;
    const int* familyRoot = nullptr;
    const int* familyOrigin = nullptr; // GeneFamily::originSpecies: the one origination node, or −1 (any)
    bool genewise = false;             // parameter set of family f: f (genewise) or 0
    // Shared rates on pruned trees: family f's set is its tree's (0: the full tree); null: setOf's rule.
    const int* familySet = nullptr;
    // --origination OPTIMIZE: O_e of every node for the families originating anywhere (null: 1 each).
    const double* originWeights = nullptr;
    // Per family: its weight in the gradient (LikelihoodBackend::evaluate's familyWeights; null: 1).
    const double* familyWeights = nullptr;
    GPUREC_HD double weightOf(int family) const { return familyWeights ? familyWeights[family] : 1.0; }
    GPUREC_HD int setOf(int family) const { return familySet ? familySet[family] : genewise ? family : 0; }
};

// Scaled tables of one batch of families: Π(c, e) = pi[row(c) + e] · 2^scale[c − cladeBegin], Π̄ alike,
// and the adjoint w(c, e) scaled like its clade (the true ∂NLL/∂Π is w · 2^−scale).
struct TableView {
    double* pi = nullptr;
    double* pibar = nullptr;
    double* adjoint = nullptr;
    int* scale = nullptr;
    double* pibarPeak = nullptr; // largest stored Π̄ entry of each row (the transfer-term threshold test)
    long long* iterations = nullptr; // per clade: self-loop (forward) or adjoint iterations of the last pass
    int cladeBegin = 0;
    int n = 0;
    // Per clade: the clade whose rows, scale and Π̄ peak the split terms read for it, a repeated
    // clade's solved one (BatchWaves::rowSource; set by runBatchSteps where it pays), else itself.
    // The same bits from fewer distinct rows. Null: every clade itself.
    const int* rowSource = nullptr;
    GPUREC_HD std::size_t row(int clade) const { return static_cast<std::size_t>(clade - cladeBegin) * n; }
    GPUREC_HD int local(int clade) const { return clade - cladeBegin; }
    GPUREC_HD int source(int clade) const { return rowSource ? rowSource[clade] : clade; }
};

// Clades with many splits (the root clades of families with many sampled trees: thousands) would
// keep one team busy long after the rest of their wave; their split terms are summed in chunks of
// `chunkSplits` splits by separate teams first, into partial rows that the clade's team adds up
// (host_structure.hpp's SplitChunking says how many splits a wave's chunks take).
// Gradient chunks [chunkBegin, chunkEnd) of the batch: partial row sets at partial[(chunk − chunkBegin) *
// 5n].
struct ChunkView {
    const int* firstClade = nullptr; // per global chunk
    const int* endClade = nullptr;
    const int* familyChunkBegin = nullptr; // per family, plus one
    // Shared rates on pruned trees: nodeThetaRowsOf more rows per chunk (prunedThetaFamily); else 0.
    int nodeThetaRows = 0;
    // Per family, 0 for a family left out of the evaluation (LikelihoodBackend::setNeededFamilies:
    // its clades are in no wave, so its gradient is neither gathered nor folded); null: none is.
    const char* needed = nullptr;
    GPUREC_HD bool leftOut(int family) const { return needed && !needed[family]; }
};

struct SplitChunk {
    int clade, splitBegin, splitEnd;
    int slot; // partial row of this chunk within its wave
};
// One wave's split chunks: (offset, count) into the chunk list, each of `splits` splits (a clade's last
// one fewer).
struct WaveChunks {
    int offset = 0, count = 0, splits = 0;
};
struct SplitChunkView {
    const int* cladeSlot = nullptr; // per clade: its first chunk's partial row in its wave, −1 when unsplit
    double* partial = nullptr;      // partial rows of n doubles
    int chunkSplits = 0;            // the wave's (WaveChunks::splits)
    GPUREC_HD int chunksOf(int splits) const { return (splits + chunkSplits - 1) / chunkSplits; }
};

struct ForwardSettings {
    bool alerax = false;
    int piIters = 200;
    double piTol = 1e-15;
    double pibarSideThreshold = 0.0;
    bool warmStart = false; // seed the converged Π̄ iteration with the rows already in the table
};

struct AdjointSettings {
    int maxIterations = 200;
    double tolerance = 1e-14;
    double pibarSideThreshold = 0.0;
    bool pruning = false;
    double pruningThreshold = 1e-14;
};

struct ExtinctionSettings {
    bool alerax = false;
    int maxIterations = 2000;
    double tolerance = 1e-15;
    double initial = 0.0;
    bool warmStart = false; // start from the E already in the set arrays
};

// Gradient accumulators per family: five rows of n (∂/∂pS, pD, pT, E, Ē), before E is eliminated,
// then one entry per transfer highway (∂/∂q_h), then with shared rates on pruned trees three rows of
// n: d NLL / dθ of each full-tree node's D, L and T rates from the families that eliminated their
// own E (their five rows are zero then), and a fourth of its origination weight under OPTIMIZE.
constexpr int kGradientRows = 5;
GPUREC_HD inline int nodeThetaRowsOf(bool prunedShared, bool originWeights) {
    return prunedShared ? (originWeights ? 4 : 3) : 0;
}
enum GradientRow { RowS = 0, RowD = 1, RowT = 2, RowE = 3, RowEbar = 4 };
GPUREC_HD inline long long gradientWidth(int n, int highways, int nodeThetaRows = 0) {
    return static_cast<long long>(kGradientRows + nodeThetaRows) * n + highways;
}

// Which part of the families' folded rows (`stride` entries each) the shared sums take: `width`
// entries from `offset` (all of them in the shared modes; the highways' under genewise rates).
struct SharedSlice {
    long long stride, offset, width;
};

} // namespace gpurec::gpu
