#include "highways/pairwise_transfers.hpp"

#include "highways/highway_files.hpp"

#include <map>
#include <utility>

namespace gpurec {

std::vector<Highway> everyTransferPair(const SpeciesTree& tree, TransferConstraint constraint) {
    std::vector<Highway> pairs;
    for (int e = 0; e < tree.size(); ++e)
        for (int h = 0; h < tree.size(); ++h)
            if (highwayAllowed(tree, constraint, {e, h})) pairs.push_back({e, h});
    return pairs;
}

std::vector<double> pairStartRates(const std::vector<Highway>& pairs, const std::vector<Highway>& given,
                                   const std::vector<double>& givenRates) {
    std::map<std::pair<int, int>, int> index;
    for (int k = 0; k < static_cast<int>(pairs.size()); ++k)
        index[{pairs[k].source, pairs[k].destination}] = k;
    std::vector<double> rates(pairs.size(), 0.0);
    for (std::size_t k = 0; k < given.size(); ++k)
        rates[index.at({given[k].source, given[k].destination})] = givenRates[k];
    return rates;
}

} // namespace gpurec
