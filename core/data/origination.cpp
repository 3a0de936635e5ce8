#include "data/origination.hpp"

#include <stdexcept>

namespace gpurec {

Origination parseOrigination(const std::string& text) {
    if (text == "UNIFORM") return Origination::Uniform;
    if (text == "ROOT") return Origination::Root;
    if (text == "LCA") return Origination::Lca;
    if (text == "OPTIMIZE") return Origination::Optimize;
    throw std::invalid_argument("unknown origination '" + text +
                                "' (expected UNIFORM, ROOT, LCA or OPTIMIZE)");
}

std::string toString(Origination origination) {
    switch (origination) {
    case Origination::Root:
        return "ROOT";
    case Origination::Lca:
        return "LCA";
    case Origination::Optimize:
        return "OPTIMIZE";
    case Origination::Uniform:
        break;
    }
    return "UNIFORM";
}

int coveredSpeciesAncestor(const SpeciesTree& species, const GeneFamily& family) {
    if (family.geneSpecies.empty())
        throw std::invalid_argument("family '" + family.name + "' has no mapped genes");
    int lca = family.geneSpecies.front();
    for (int e : family.geneSpecies)
        while (!species.isAncestorOrSelf(lca, e))
            lca = species.parent(lca);
    return lca;
}

void applyOrigination(Dataset& data, Origination origination) {
    data.origination = origination;
    for (GeneFamily& family : data.families) {
        switch (origination) {
        case Origination::Uniform:
        case Origination::Optimize:
            family.originSpecies = -1;
            break;
        case Origination::Root: // the pruned tree's root is the covered LCA
            family.originSpecies =
                data.pruneSpeciesTree ? coveredSpeciesAncestor(data.species, family) : data.species.root();
            break;
        case Origination::Lca:
            family.originSpecies = coveredSpeciesAncestor(data.species, family);
            break;
        }
    }
}

} // namespace gpurec
