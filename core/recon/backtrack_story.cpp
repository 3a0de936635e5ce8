#include "recon/backtrack_story.hpp"

#include "recon/sampler.hpp"
#include "recon/sampling_run.hpp"

#include <stdexcept>
#include <string>

namespace gpurec {

BacktrackStory tellSample(const SpeciesLayout& species, const GeneFamily& family, const FamilyTables& tables,
                          std::uint64_t seed, int index, bool halveRootBranches) {
    if (index < 0)
        throw std::invalid_argument("telling sample " + std::to_string(index) + " of family '" + family.name +
                                    "': samples are numbered from 0");
    const ReconciliationSampler sampler(species, family, tables, halveRootBranches);
    std::mt19937_64 rng = familyGenerator(seed, family.name);
    for (int k = 0; k < index; ++k)
        sampler.draw(rng); // the samples before it, for the random stream's position
    BacktrackStory story;
    story.reconciliation = sampler.draw(rng, &story.steps);
    return story;
}

} // namespace gpurec
