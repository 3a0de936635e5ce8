#include "distributed/family_partition.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpurec {

double familyCost(const GeneFamily& family) {
    return static_cast<double>(family.cladeCount()) + family.splitCount();
}

std::vector<int> balancedRanges(const std::vector<double>& costs, int block, int parts, bool nonEmpty) {
    const int items = static_cast<int>(costs.size());
    const int blocks = (items + block - 1) / block;
    if (nonEmpty && blocks < parts)
        throw std::invalid_argument(std::to_string(parts) + " processes for " + std::to_string(items) +
                                    " families in " + std::to_string(blocks) + " chunks: run at most " +
                                    std::to_string(blocks) + " processes (each holds whole chunks)");
    std::vector<double> before(blocks + 1, 0.0); // cost of the blocks before each one
    for (int b = 0; b < blocks; ++b) {
        before[b + 1] = before[b];
        for (int i = b * block; i < std::min(items, (b + 1) * block); ++i)
            before[b + 1] += costs[i];
    }
    std::vector<int> cut(parts + 1, blocks); // in blocks
    cut[0] = 0;
    const int least = nonEmpty ? 1 : 0;
    for (int p = 1; p < parts; ++p) {
        // The block boundary nearest to an even share, leaving room for the parts after this one.
        const double target = before[blocks] * p / parts;
        const int lo = cut[p - 1] + least, hi = blocks - least * (parts - p);
        int b = static_cast<int>(std::lower_bound(before.begin(), before.end(), target) - before.begin());
        if (b > 0 && target - before[b - 1] <= before[b] - target) --b;
        cut[p] = std::clamp(b, lo, hi);
    }
    std::vector<int> ranges(parts + 1);
    for (int p = 0; p <= parts; ++p)
        ranges[p] = std::min(items, cut[p] * block);
    return ranges;
}

std::vector<int> holdersOf(const std::vector<int>& ranges) {
    std::vector<int> holders(ranges.back());
    for (std::size_t p = 0; p + 1 < ranges.size(); ++p)
        std::fill(holders.begin() + ranges[p], holders.begin() + ranges[p + 1], static_cast<int>(p));
    return holders;
}

void leaveToHolder(GeneFamily& family) {
    if (family.remoteSizes) return;
    family.remoteSizes = CladeSizes{family.geneCount(), family.cladeCount(), family.splitCount()};
    family.clades = CladeSet{};
}

Dataset placeFamilies(const Dataset& data, const std::vector<int>& holders, int rank) {
    Dataset out = data;
    for (std::size_t f = 0; f < out.families.size(); ++f) {
        out.families[f].holder = holders[f];
        if (holders[f] != rank) leaveToHolder(out.families[f]);
    }
    return out;
}

} // namespace gpurec
