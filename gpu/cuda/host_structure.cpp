#include "host_structure.hpp"

#include "engine/species_operators.hpp"
#include "engine/wave_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gpurec::gpu {

namespace {

// Node records grouped by level (levelOf(e) in 0..maxLevel), postorder within a level.
template <class LevelOf>
void levelLists(const SpeciesLayout& layout, int maxLevel, LevelOf levelOf, std::vector<int>& offset,
                std::vector<NodeRecord>& records, std::vector<double>& invRecipients) {
    const int n = layout.size;
    offset.assign(maxLevel + 2, 0);
    for (int e = 0; e < n; ++e)
        ++offset[levelOf(e) + 1];
    for (int k = 0; k <= maxLevel; ++k)
        offset[k + 1] += offset[k];
    records.resize(n);
    invRecipients.resize(n);
    std::vector<int> fill(offset.begin(), offset.end() - 1);
    for (int e = 0; e < n; ++e) {
        const int i = fill[levelOf(e)]++;
        records[i] = {e, layout.left[e], layout.right[e], layout.parent[e]};
        invRecipients[i] = layout.invRecipients[e];
    }
}

} // namespace

HostStructure::HostStructure(const Dataset& data) {
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
        for (int c = 0; c < cs.cladeCount(); c += kChunkClades) {
            chunkFirst.push_back(base + c);
            chunkEnd.push_back(base + std::min(c + kChunkClades, cs.cladeCount()));
        }
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
    const SpeciesTree& tree = data.species;
    const SpeciesLayout layout(data);
    n = layout.size;
    constraint = layout.constraint;
    rank = layout.rank;
    byRank = layout.byRank;
    invRecipients = layout.invRecipients;
    cladeDuplicationLoss = layout.cladeDuplicationLoss;
    cladeTransferLoss = layout.cladeTransferLoss;
    left = layout.left;
    right = layout.right;
    parent = layout.parent;
    missing = layout.missing;
    sibling.assign(n, -1);
    maxHeight = 0;
    maxDepth = 0;
    for (int e = 0; e < n; ++e) {
        const int up = parent[e];
        if (up >= 0) sibling[e] = left[up] == e ? right[up] : left[up];
        maxHeight = std::max(maxHeight, tree.height(e));
        maxDepth = std::max(maxDepth, tree.depth(e) - 1);
    }
    levelLists(
        layout, maxHeight, [&](int e) { return tree.height(e); }, upOffset, upRecords, upInvRecipients);
    levelLists(
        layout, maxDepth, [&](int e) { return tree.depth(e) - 1; }, downOffset, downRecords,
        downInvRecipients);
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
    for (const GeneFamily& fam : data.families) {
        const CladeSet& cs = fam.clades;
        for (int c = 0; c < cs.cladeCount(); ++c)
            geneSpecies.push_back(cs.cladeGene[c] >= 0 ? fam.geneSpecies[cs.cladeGene[c]] : -1);
        familyOrigin.push_back(fam.originSpecies);
    }
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

BatchWaves batchWaves(const Dataset& data, const HostStructure& structure, const BatchPlan& plan,
                      int chunkSplits) {
    const WaveSchedule schedule = computeWaveSchedule(data);
    BatchWaves out;
    out.chunkSplits = chunkSplits;
    out.clades.reserve(structure.cladeCount());
    out.cladeSlot.assign(structure.cladeCount(), -1);
    out.waves.assign(plan.batches.size(), {});
    out.waveChunks.assign(plan.batches.size(), {});
    for (std::size_t b = 0; b < plan.batches.size(); ++b) {
        const Batch& batch = plan.batches[b];
        for (const CrossFamilyWave& wave : schedule.waves) {
            const int start = static_cast<int>(out.clades.size());
            const int chunkStart = static_cast<int>(out.chunks.size());
            int slot = 0;
            for (const CladeRef& ref : wave.clades) {
                if (ref.family < batch.familyBegin || ref.family >= batch.familyEnd) continue;
                const int c = structure.familyCladeBegin[ref.family] + ref.clade;
                out.clades.push_back(c);
                const int k0 = structure.splitOffset[c], k1 = structure.splitOffset[c + 1];
                if (k1 - k0 <= chunkSplits) continue;
                out.cladeSlot[c] = slot;
                for (int k = k0; k < k1; k += chunkSplits)
                    out.chunks.push_back(SplitChunk{c, k, std::min(k + chunkSplits, k1), slot++});
            }
            if (static_cast<int>(out.clades.size()) == start) continue;
            out.waves[b].push_back({start, static_cast<int>(out.clades.size()) - start});
            out.waveChunks[b].push_back({chunkStart, static_cast<int>(out.chunks.size()) - chunkStart});
            out.maxWaveChunks = std::max<long long>(out.maxWaveChunks, slot);
        }
    }
    return out;
}

} // namespace gpurec::gpu
