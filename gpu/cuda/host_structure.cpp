#include "host_structure.hpp"

#include "engine/species_operators.hpp"
#include "sim/random_source.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace gpurec::gpu {

namespace {

// Appends the node records of `layout` grouped by level (level[e] in 0..maxLevel), postorder within
// a level, and their level offsets (relative to the layout's first record).
void appendLevelLists(const SpeciesLayout& layout, const std::vector<int>& level, int maxLevel,
                      std::vector<int>& offsets, std::vector<NodeRecord>& records,
                      std::vector<double>& invRecipients) {
    const int n = layout.size;
    std::vector<int> offset(maxLevel + 2, 0);
    for (int e = 0; e < n; ++e)
        ++offset[level[e] + 1];
    for (int k = 0; k <= maxLevel; ++k)
        offset[k + 1] += offset[k];
    const std::size_t base = records.size();
    records.resize(base + n);
    invRecipients.resize(base + n);
    std::vector<int> fill(offset.begin(), offset.end() - 1);
    for (int e = 0; e < n; ++e) {
        const std::size_t i = base + fill[level[e]]++;
        records[i] = {e, layout.left[e], layout.right[e], layout.parent[e]};
        invRecipients[i] = layout.invRecipients[e];
    }
    offsets.insert(offsets.end(), offset.begin(), offset.end());
}

template <class T> void append(std::vector<T>& to, const std::vector<T>& from) {
    to.insert(to.end(), from.begin(), from.end());
}

} // namespace

HostStructure::HostStructure(const Dataset& data, int chunkWork) {
    const int F = static_cast<int>(data.families.size());
    long long clades = 0;
    for (const GeneFamily& f : data.families)
        clades += f.clades.cladeCount();
    const long long splits = data.splitCount();
    if (clades >= std::numeric_limits<int>::max() / 2 || 2 * splits >= std::numeric_limits<int>::max())
        throw std::runtime_error(
            "the dataset has too many clades or splits for the CUDA backend's 32-bit ids");
    familyCladeBegin.assign(F + 1, 0);
    splitOffset.assign(1, 0);
    std::vector<int> parentCount(clades + 1, 0);
    for (int f = 0; f < F; ++f) {
        const GeneFamily& fam = data.families[f];
        const CladeSet& cs = fam.clades;
        const int base = familyCladeBegin[f];
        familyCladeBegin[f + 1] = base + cs.cladeCount();
        for (int c = 0; c < cs.cladeCount(); ++c) {
            for (int k = cs.splitOffset[c]; k < cs.splitOffset[c + 1]; ++k) {
                splitLeft.push_back(base + cs.splits[k].left);
                splitRight.push_back(base + cs.splits[k].right);
                splitWeight.push_back(cs.splits[k].weight);
                splitParent.push_back(base + c);
                ++parentCount[base + cs.splits[k].left + 1];
                ++parentCount[base + cs.splits[k].right + 1];
            }
            splitOffset.push_back(static_cast<int>(splitLeft.size()));
            cladeFamily.push_back(f);
        }
        familyRoot.push_back(base + cs.rootClade());
        const int chunksBefore = static_cast<int>(chunkFirst.size());
        chunkFirst.push_back(base); // one chunk at least, as BatchPlan counts them
        for (int c = 0, work = 0; c < cs.cladeCount(); ++c) {
            const int cladeWork = 1 + cs.splitOffset[c + 1] - cs.splitOffset[c];
            if (work > 0 && work + cladeWork > chunkWork) {
                chunkEnd.push_back(base + c);
                chunkFirst.push_back(base + c);
                work = 0;
            }
            work += cladeWork;
        }
        chunkEnd.push_back(base + cs.cladeCount());
        familyChunks.push_back(static_cast<int>(chunkFirst.size()) - chunksBefore);
    }
    parentOffset.assign(clades + 1, 0);
    for (long long c = 0; c < clades; ++c)
        parentOffset[c + 1] = parentOffset[c] + parentCount[c + 1];
    parentSplits.resize(parentOffset[clades]);
    std::vector<int> fill(parentOffset.begin(), parentOffset.end() - 1);
    for (std::size_t k = 0; k < splitLeft.size(); ++k) {
        parentSplits[fill[splitLeft[k]]++] = static_cast<int>(k);
        parentSplits[fill[splitRight[k]]++] = static_cast<int>(k);
    }
    setSpeciesTree(data);
}

void HostStructure::setSpeciesTree(const Dataset& data) {
    const FamilyLayouts layouts(data);
    const SpeciesLayout& layout = layouts.full();
    n = layout.size;
    constraint = layout.constraint;
    cladeDuplicationLoss = layout.cladeDuplicationLoss;
    cladeTransferLoss = layout.cladeTransferLoss;
    familyTree = layouts.of;
    treeFamilies = layouts.families;
    trees.clear();
    for (std::vector<int>* v :
         {&fullNode, &left, &right, &parent, &sibling, &upOffset, &downOffset, &rank, &byRank})
        v->clear();
    for (std::vector<double>* v : {&invRecipients, &upInvRecipients, &downInvRecipients, &missing})
        v->clear();
    upRecords.clear();
    downRecords.clear();
    for (const SpeciesLayout& tree : layouts.layouts) {
        TreeOffsets o;
        o.n = tree.size;
        o.node = static_cast<int>(left.size());
        o.upLevel = static_cast<int>(upOffset.size());
        o.downLevel = static_cast<int>(downOffset.size());
        // Heights (leaves 0) and depths (root 0) of this tree's own nodes: postorder, root last.
        std::vector<int> height(tree.size, 0), depth(tree.size, 0);
        for (int e = 0; e < tree.size; ++e)
            if (!tree.isLeaf(e)) height[e] = 1 + std::max(height[tree.left[e]], height[tree.right[e]]);
        for (int e = tree.size - 1; e >= 0; --e)
            if (tree.parent[e] >= 0) depth[e] = depth[tree.parent[e]] + 1;
        o.maxHeight = *std::max_element(height.begin(), height.end());
        o.maxDepth = *std::max_element(depth.begin(), depth.end());
        for (int e = 0; e < tree.size; ++e) {
            fullNode.push_back(tree.full(e));
            const int up = tree.parent[e];
            sibling.push_back(up < 0 ? -1 : tree.left[up] == e ? tree.right[up] : tree.left[up]);
        }
        append(left, tree.left);
        append(right, tree.right);
        append(parent, tree.parent);
        append(rank, tree.rank);
        append(byRank, tree.byRank);
        append(invRecipients, tree.invRecipients);
        append(missing, tree.missing);
        appendLevelLists(tree, height, o.maxHeight, upOffset, upRecords, upInvRecipients);
        appendLevelLists(tree, depth, o.maxDepth, downOffset, downRecords, downInvRecipients);
        trees.push_back(o);
    }
    maxHeight = trees[0].maxHeight;
    maxDepth = trees[0].maxDepth;
    const int H = static_cast<int>(layout.highways.size());
    highwaySource.resize(H);
    highwayDestination.resize(H);
    fromOffset = layout.highwayOffset;
    highwaysFrom = layout.highwaysFrom;
    intoOffset.assign(n + 1, 0);
    for (int h = 0; h < H; ++h) {
        highwaySource[h] = layout.highways[h].source;
        highwayDestination[h] = layout.highways[h].destination;
        ++intoOffset[highwayDestination[h] + 1];
    }
    for (int e = 0; e < n; ++e)
        intoOffset[e + 1] += intoOffset[e];
    highwaysInto.resize(H);
    std::vector<int> into(intoOffset.begin(), intoOffset.end() - 1);
    for (int h = 0; h < H; ++h)
        highwaysInto[into[highwayDestination[h]]++] = h;

    geneSpecies.clear();
    geneSpecies.reserve(cladeFamily.size());
    familyOrigin.clear();
    for (std::size_t f = 0; f < data.families.size(); ++f) {
        const GeneFamily& fam = data.families[f];
        const SpeciesLayout& tree = layouts.family(static_cast<int>(f));
        const CladeSet& cs = fam.clades;
        for (int c = 0; c < cs.cladeCount(); ++c)
            geneSpecies.push_back(cs.cladeGene[c] >= 0 ? tree.local(fam.geneSpecies[cs.cladeGene[c]]) : -1);
        familyOrigin.push_back(fam.originSpecies >= 0 ? tree.local(fam.originSpecies) : -1);
    }
}

std::vector<SpeciesView> HostStructure::treeViews(const SpeciesView& full, const int* fullNodes) const {
    std::vector<SpeciesView> out;
    for (const TreeOffsets& o : trees) {
        SpeciesView v = full;
        v.n = o.n;
        v.maxHeight = o.maxHeight;
        v.maxDepth = o.maxDepth;
        v.left = full.left + o.node;
        v.right = full.right + o.node;
        v.parent = full.parent + o.node;
        v.sibling = full.sibling + o.node;
        v.missing = full.missing + o.node;
        v.rank = full.rank + o.node;
        v.byRank = full.byRank + o.node;
        v.invRecipients = full.invRecipients + o.node;
        v.upOffset = full.upOffset + o.upLevel;
        v.upRecords = full.upRecords + o.node;
        v.upInvRecipients = full.upInvRecipients + o.node;
        v.downOffset = full.downOffset + o.downLevel;
        v.downRecords = full.downRecords + o.node;
        v.downInvRecipients = full.downInvRecipients + o.node;
        if (&o != &trees[0]) {
            // Pruning keeps no highways (pruning_options.hpp).
            v.fullNode = fullNodes + o.node;
            v.highways = 0;
            v.highwaySource = v.highwayDestination = v.fromOffset = v.highwaysFrom = v.intoOffset =
                v.highwaysInto = nullptr;
        }
        out.push_back(v);
    }
    return out;
}

HighwayRates highwayRates(const RateParameters& theta, const std::vector<Highway>& highways, int n) {
    HighwayRates out;
    if (highways.empty()) return out;
    out.rate.resize(highways.size());
    out.extra.assign(n, 0.0);
    for (std::size_t h = 0; h < highways.size(); ++h) {
        out.rate[h] = std::exp2(theta.theta()[theta.highwayEntry(static_cast<int>(h))]);
        out.extra[highways[h].source] += out.rate[h];
    }
    return out;
}

std::vector<int> HostStructure::familyCladeCounts() const {
    std::vector<int> out(familyCladeBegin.size() - 1);
    for (std::size_t f = 0; f < out.size(); ++f)
        out[f] = familyCladeBegin[f + 1] - familyCladeBegin[f];
    return out;
}

SpeciesView HostStructure::speciesView() const {
    SpeciesView v;
    v.n = n;
    v.stride = n;
    v.left = left.data();
    v.right = right.data();
    v.parent = parent.data();
    v.sibling = sibling.data();
    v.missing = missing.data();
    v.upOffset = upOffset.data();
    v.upRecords = upRecords.data();
    v.upInvRecipients = upInvRecipients.data();
    v.downOffset = downOffset.data();
    v.downRecords = downRecords.data();
    v.downInvRecipients = downInvRecipients.data();
    v.maxHeight = maxHeight;
    v.maxDepth = maxDepth;
    v.constraint = constraint;
    v.rank = rank.data();
    v.byRank = byRank.data();
    v.invRecipients = invRecipients.data();
    v.cladeDuplicationLoss = cladeDuplicationLoss;
    v.cladeTransferLoss = cladeTransferLoss;
    v.highways = static_cast<int>(highwaySource.size());
    v.highwaySource = highwaySource.data();
    v.highwayDestination = highwayDestination.data();
    v.fromOffset = fromOffset.data();
    v.highwaysFrom = highwaysFrom.data();
    v.intoOffset = intoOffset.data();
    v.highwaysInto = highwaysInto.data();
    return v;
}

CladeView HostStructure::cladeView(bool genewise) const {
    return CladeView{splitOffset.data(), splitLeft.data(),    splitRight.data(),   splitWeight.data(),
                     splitParent.data(), parentOffset.data(), parentSplits.data(), geneSpecies.data(),
                     cladeFamily.data(), familyRoot.data(),   familyOrigin.data(), genewise};
}

std::vector<int> HostStructure::familySplitChunkRows(int chunkSplits) const {
    std::vector<int> rows(familyCladeBegin.size() - 1, 0);
    for (std::size_t f = 0; f + 1 < familyCladeBegin.size(); ++f)
        for (int c = familyCladeBegin[f]; c < familyCladeBegin[f + 1]; ++c) {
            const int splits = splitOffset[c + 1] - splitOffset[c];
            if (splits > chunkSplits) rows[f] += (splits + chunkSplits - 1) / chunkSplits;
        }
    return rows;
}

std::vector<int> cladeClasses(const WaveSchedule& schedule, const HostStructure& structure) {
    if (structure.pruned()) return {};
    std::vector<int> classes(structure.cladeCount(), -1);
    const auto& split = structure.splitOffset;
    auto mix = [](std::uint64_t h, std::uint64_t v) { return splitMix64(h ^ v); };
    auto weightBits = [&](int k) { return std::bit_cast<std::uint64_t>(structure.splitWeight[k]); };
    auto same = [&](int a, int b) {
        if (structure.geneSpecies[a] >= 0 || structure.geneSpecies[b] >= 0)
            return structure.geneSpecies[a] == structure.geneSpecies[b];
        if (split[a + 1] - split[a] != split[b + 1] - split[b]) return false;
        for (int i = 0; i < split[a + 1] - split[a]; ++i) {
            const int ka = split[a] + i, kb = split[b] + i;
            if (weightBits(ka) != weightBits(kb) ||
                classes[structure.splitLeft[ka]] != classes[structure.splitLeft[kb]] ||
                classes[structure.splitRight[ka]] != classes[structure.splitRight[kb]])
                return false;
        }
        return true;
    };
    // Open addressing over (hash, representative clade), at most half full.
    std::size_t capacity = 2;
    while (capacity < 2 * classes.size())
        capacity *= 2;
    std::vector<std::uint64_t> slotHash(capacity);
    std::vector<int> slotClade(capacity, -1);
    int next = 0;
    for (const CrossFamilyWave& wave : schedule.waves) // children's classes first
        for (const CladeRef& ref : wave.clades) {
            const int c = structure.familyCladeBegin[ref.family] + ref.clade;
            std::uint64_t h = mix(0, static_cast<std::uint64_t>(structure.geneSpecies[c]) + 1);
            for (int k = split[c]; k < split[c + 1]; ++k)
                h = mix(
                    mix(mix(h, weightBits(k)), static_cast<std::uint64_t>(classes[structure.splitLeft[k]])),
                    static_cast<std::uint64_t>(classes[structure.splitRight[k]]));
            std::size_t i = h & (capacity - 1);
            while (slotClade[i] >= 0 && !(slotHash[i] == h && same(slotClade[i], c)))
                i = (i + 1) & (capacity - 1);
            if (slotClade[i] >= 0) {
                classes[c] = classes[slotClade[i]];
            } else {
                slotHash[i] = h;
                slotClade[i] = c;
                classes[c] = next++;
            }
        }
    return classes;
}

int SplitChunking::splitsPerChunk(long long clades, long long splits) const {
    if (clades >= cladesInFlight) return most;
    const long long even = (splits + cladesInFlight - 1) / cladesInFlight;
    return static_cast<int>(std::clamp<long long>(even, std::min(fewest, most), most));
}

BatchWaves batchWaves(const WaveSchedule& schedule, const HostStructure& structure, const BatchPlan& plan,
                      const std::vector<int>& classes, const SplitChunking& chunking,
                      const std::vector<char>* needed) {
    BatchWaves out;
    out.clades.reserve(structure.cladeCount());
    out.cladeSlot.assign(structure.cladeCount(), -1);
    out.rowSource.resize(structure.cladeCount());
    std::iota(out.rowSource.begin(), out.rowSource.end(), 0);
    out.waves.assign(plan.batches.size(), {});
    out.waveChunks.assign(plan.batches.size(), {});
    out.waveCopies.assign(plan.batches.size(), {});
    // Per class: the clade solved for it in the current wave and batch (−1: none yet).
    std::vector<int> solvedOfClass(
        classes.empty() ? 0 : *std::max_element(classes.begin(), classes.end()) + 1, -1);
    std::vector<int> copies, solvedClasses;
    // A wave lists its clades in family order (computeWaveSchedule; test_wave_schedule): a batch's
    // are one range of it, found by bisection (a plan of one family per batch, which the search's
    // screening set-up asks for, would otherwise visit every clade once per family). Not checked
    // here: the search's screens call this once per candidate.
    auto byFamily = [](const CladeRef& ref, int family) { return ref.family < family; };
    for (std::size_t b = 0; b < plan.batches.size(); ++b) {
        const Batch& batch = plan.batches[b];
        for (const CrossFamilyWave& wave : schedule.waves) {
            const int start = static_cast<int>(out.clades.size());
            const int chunkStart = static_cast<int>(out.chunks.size());
            const int copyStart = static_cast<int>(out.copySources.size());
            copies.clear();
            solvedClasses.clear();
            long long splits = 0;
            const auto first =
                std::lower_bound(wave.clades.begin(), wave.clades.end(), batch.familyBegin, byFamily);
            const auto last = std::lower_bound(first, wave.clades.end(), batch.familyEnd, byFamily);
            for (auto it = first; it != last; ++it) {
                const CladeRef& ref = *it;
                if (needed && !(*needed)[ref.family]) continue;
                const int c = structure.familyCladeBegin[ref.family] + ref.clade;
                if (!classes.empty()) {
                    int& solved = solvedOfClass[classes[c]];
                    if (solved >= 0) {
                        copies.push_back(c);
                        out.copySources.push_back(solved);
                        out.rowSource[c] = solved;
                        continue;
                    }
                    solved = c;
                    solvedClasses.push_back(classes[c]);
                }
                out.clades.push_back(c);
                splits += structure.splitOffset[c + 1] - structure.splitOffset[c];
            }
            const int solved = static_cast<int>(out.clades.size()) - start;
            const int size = chunking.splitsPerChunk(solved, splits);
            int slot = 0;
            for (int i = start; i < start + solved; ++i) {
                const int c = out.clades[i];
                const int k0 = structure.splitOffset[c], k1 = structure.splitOffset[c + 1];
                if (k1 - k0 <= size) continue;
                out.cladeSlot[c] = slot;
                for (int k = k0; k < k1; k += size)
                    out.chunks.push_back(SplitChunk{c, k, std::min(k + size, k1), slot++});
            }
            out.clades.insert(out.clades.end(), copies.begin(), copies.end());
            for (int k : solvedClasses)
                solvedOfClass[k] = -1;
            if (static_cast<int>(out.clades.size()) == start) continue;
            out.waves[b].push_back({start, static_cast<int>(out.clades.size()) - start});
            out.waveChunks[b].push_back({chunkStart, static_cast<int>(out.chunks.size()) - chunkStart, size});
            out.waveCopies[b].push_back({copyStart, static_cast<int>(out.copySources.size()) - copyStart});
            out.maxWaveChunks = std::max<long long>(out.maxWaveChunks, slot);
        }
    }
    return out;
}

} // namespace gpurec::gpu
