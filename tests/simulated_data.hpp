#pragma once
// In-memory datasets drawn with our simulator (core/sim) under the undated model the engine
// scores: every surviving family is kept (no coverage filter), and each family's true rooted gene
// tree is scored with ROOTED rooting, so the likelihood is exactly the generative model's.
#include "data/dataset.hpp"
#include "sim/family_simulation.hpp"
#include "sim/species_tree_simulation.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpurec::test {

// A birth-death species tree with `leaves` leaves (named S01...).
inline SpeciesTree simulatedSpeciesTree(int leaves, std::uint64_t seed) {
    BirthDeathOptions options;
    options.leaves = leaves;
    RandomSource rng(seed);
    return SpeciesTree::fromNewick(simulateBirthDeathTree(options, rng));
}

// `families` families; ratesOf(species node) gives the rates of each node; the families also take
// `highways` (model/highways.hpp) at their rates, which the dataset does not list.
inline std::shared_ptr<Dataset>
simulatedDataset(const SpeciesTree& species, int families, const std::function<Rates(int)>& ratesOf,
                 std::uint64_t seed, const std::vector<std::pair<Highway, double>>& highways = {}) {
    auto data = std::make_shared<Dataset>();
    data->species = species;
    data->transferConstraint = TransferConstraint::Parents;
    std::vector<Rates> rates(species.size());
    for (int e = 0; e < species.size(); ++e)
        rates[e] = ratesOf(e);
    FamilySimulator simulator(data->species, data->transferConstraint, SimProcess::Undated, {});
    std::vector<Highway> list;
    std::vector<double> highwayRates;
    for (const auto& [h, rate] : highways) {
        list.push_back(h);
        highwayRates.push_back(rate);
    }
    simulator.setHighways(list, highwayRates);
    for (int f = 0; f < families; ++f) {
        RandomSource rng = RandomSource::stream(seed, std::uint64_t(f));
        const std::string name = "sim" + std::to_string(f);
        SimulatedFamily simulated = simulator.simulate(name, rates, rng);
        data->families.push_back(
            makeFamily(data->species, name, {simulated.geneTree}, GeneTreeRooting::Rooted));
    }
    return data;
}

// Three transfer highways allowed under PARENTS: a leaf to another subtree's leaf, an internal node
// to a leaf elsewhere, and two highways leaving the same node.
inline std::vector<Highway> someHighways(const SpeciesTree& sp) {
    const int root = sp.root(), left = sp.left(root), right = sp.right(root);
    auto firstLeaf = [&](int e) {
        while (!sp.isLeaf(e))
            e = sp.left(e);
        return e;
    };
    const int a = firstLeaf(left), b = firstLeaf(right);
    return {{a, b}, {left, b}, {a, right}};
}

} // namespace gpurec::test
