// Newick parser + species tree + clade set construction on arbitrary bytes.
#include "ccp/clade_set.hpp"
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "tree/species_tree.hpp"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    try {
        auto trees = gpurec::parseNewick(text, "fuzz");
        for (const auto& t : trees)
            (void)gpurec::writeNewick(t);
        try {
            (void)gpurec::SpeciesTree::fromNewick(trees.front()).toNewick();
        } catch (const gpurec::InputError&) {
        }
        (void)gpurec::buildCladeSet(trees, gpurec::GeneTreeRooting::Unrooted);
    } catch (const gpurec::InputError&) {
    }
    return 0;
}
