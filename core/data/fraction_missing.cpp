#include "data/fraction_missing.hpp"

#include "io/input_error.hpp"
#include "io/text_fields.hpp"

#include <cmath>
#include <cstdlib>

namespace gpurec {

std::vector<double> readFractionMissing(const std::string& path, const SpeciesTree& species) {
    std::vector<double> fm(species.size(), 0.0);
    std::vector<int> seenAt(species.size(), 0);
    for (const auto& [lineNo, fields] : contentLines(path)) {
        if (fields.size() != 2)
            throw InputError(path, lineNo, fields.front().column,
                             "expected 'species fraction', found " + std::to_string(fields.size()) +
                                 " fields");
        const Field& name = fields[0];
        const Field& value = fields[1];
        const int e = species.find(name.text);
        if (e < 0)
            throw InputError(path, lineNo, name.column, "'" + name.text + "' is not a species of the tree");
        if (!species.isLeaf(e))
            throw InputError(path, lineNo, name.column,
                             "'" + name.text + "' is an internal node; fractions are given for leaves");
        if (seenAt[e] > 0)
            throw InputError(path, lineNo, name.column,
                             "'" + name.text + "' is given twice (first on line " +
                                 std::to_string(seenAt[e]) + ")");
        char* end = nullptr;
        const double v = std::strtod(value.text.c_str(), &end);
        if (end != value.text.c_str() + value.text.size() || !std::isfinite(v))
            throw InputError(path, lineNo, value.column, "expected a fraction, found '" + value.text + "'");
        if (v < 0 || v > 1)
            throw InputError(path, lineNo, value.column,
                             "the fraction missing must be in [0, 1], found '" + value.text + "'");
        fm[e] = v;
        seenAt[e] = lineNo;
    }
    std::string absent;
    int count = 0;
    for (int e = 0; e < species.size(); ++e)
        if (species.isLeaf(e) && seenAt[e] == 0 && ++count <= 5)
            absent += (absent.empty() ? "" : ", ") + species.name(e);
    if (count > 0)
        throw InputError(path, 0, 0,
                         "no fraction for " + std::to_string(count) + " species " +
                             (count > 1 ? "leaves" : "leaf") + " (" + absent + (count > 5 ? ", …" : "") +
                             "); every leaf needs one");
    return fm;
}

std::vector<double> fractionMissingOn(const std::vector<double>& fractionMissing, const SpeciesTree& from,
                                      const SpeciesTree& to) {
    if (fractionMissing.empty()) return {};
    std::vector<double> out(to.size(), 0.0);
    for (int e = 0; e < from.size(); ++e)
        if (from.isLeaf(e)) {
            const int there = to.find(from.name(e));
            if (there >= 0) out[there] = fractionMissing[e];
        }
    return out;
}

} // namespace gpurec
