// Rate files on arbitrary bytes: AleRax's model_parameters.txt (global and per-species rates) and
// the per-family <family>_rates.txt. The input is cut at "\n%%\n": part 0 is the species tree,
// part 1 model_parameters.txt, parts 2.. the rate files of families "f2", "f3", ..., each read as
// UndatedDTL's and as UndatedDL's rates.
#include "data/dataset.hpp"
#include "fuzz_support.hpp"
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "io/result_writer.hpp"
#include "optim/rate_files.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

namespace {
constexpr std::size_t kMaxParts = 6;

// Whatever a rate file gave must be usable rates: finite and positive on every row.
void checkRates(const gpurec::RateParameters& theta) {
    for (int row = 0; row < theta.rowCount(); ++row) {
        const gpurec::Rates r = theta.rates(row);
        for (double v : {r.d, r.l, r.t})
            if (!(std::isfinite(v) && v > 0)) __builtin_trap();
    }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const gpurec::fuzz::ScratchFolder scratch;
    scratch.clear();
    const std::vector<std::string> parts = gpurec::fuzz::splitParts(data, size, kMaxParts);
    gpurec::Dataset dataset;
    try {
        dataset.species = gpurec::SpeciesTree::fromNewick(gpurec::parseNewick(parts[0], "species").front());
    } catch (const gpurec::InputError&) {
        return 0;
    }
    for (std::size_t i = 2; i < parts.size(); ++i) {
        gpurec::GeneFamily family;
        family.name = "f" + std::to_string(i);
        scratch.write(std::filesystem::path(gpurec::familyRatesPath(scratch.path(), family.name)).filename(),
                      parts[i]);
        dataset.families.push_back(std::move(family));
    }
    const std::string path =
        parts.size() > 1 ? scratch.write("model_parameters.txt", parts[1]) : std::string();
    // Both column layouts: UndatedDTL's D L T and UndatedDL's D L (which also reads D L T).
    for (gpurec::RecModel model : {gpurec::RecModel::UndatedDTL, gpurec::RecModel::UndatedDL}) {
        dataset.events.recModel = model;
        if (!path.empty()) {
            try {
                checkRates(gpurec::readModelParameters(path, dataset.species,
                                                       1 + static_cast<int>(dataset.families.size()), model));
            } catch (const gpurec::InputError&) {
            }
        }
        if (!dataset.families.empty()) {
            try {
                checkRates(gpurec::readFamilyRateFiles(scratch.path(), dataset));
            } catch (const gpurec::InputError&) {
            }
        }
    }
    return 0;
}
