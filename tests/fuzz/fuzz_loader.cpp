// The whole loader on arbitrary files: species tree, families file, gene trees and mappings to
// clade sets, with unrooted (UNIFORM) and rooted gene trees. The input holds the files one after
// the other, cut at "\n%%\n": part 0 is the species tree, part 1 the families file, parts 2.. are
// files named "2", "3", ... that the families file can name (paths resolve beside it). An empty
// families file makes parts 2.. a plain list of gene-tree files instead.
#include "data/load.hpp"
#include "fuzz_support.hpp"
#include "io/input_error.hpp"

#include <cstdint>
#include <string>

namespace {
constexpr std::size_t kMaxParts = 8;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const gpurec::fuzz::ScratchFolder scratch;
    scratch.clear();
    const std::vector<std::string> parts = gpurec::fuzz::splitParts(data, size, kMaxParts);
    gpurec::InputPaths paths;
    paths.speciesTree = scratch.write("0", parts[0]);
    std::vector<std::string> others;
    for (std::size_t i = 2; i < parts.size(); ++i)
        others.push_back(scratch.write(std::to_string(i), parts[i]));
    if (parts.size() > 1 && !parts[1].empty())
        paths.familiesFile = scratch.write("1", parts[1]);
    else
        paths.geneTrees = others;
    for (gpurec::GeneTreeRooting rooting :
         {gpurec::GeneTreeRooting::Unrooted, gpurec::GeneTreeRooting::Rooted}) {
        gpurec::LoadOptions options;
        options.rooting = rooting;
        options.minCoveredSpecies = 1; // small inputs must still reach the clade sets
        options.threads = 1;
        try {
            const gpurec::LoadedInput in =
                gpurec::loadInput(paths, gpurec::TransferConstraint::Parents, options);
            (void)in.dataset->cladeCount();
            (void)in.dataset->splitCount();
        } catch (const gpurec::InputError&) {
        }
    }
    return 0;
}
