#include "optim/rate_files.hpp"

#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"
#include "io/text_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gpurec {

namespace {

// True for a header of parameter letters (D, L, T, O); throws for letters gpurec cannot read yet.
bool isLetterHeader(const std::vector<Field>& letters, const std::string& path, int lineNo) {
    if (letters.empty()) return false;
    for (const Field& f : letters)
        if (f.text != "D" && f.text != "L" && f.text != "T" && f.text != "O") return false;
    std::string found;
    for (const Field& f : letters)
        found += (found.empty() ? "" : " ") + f.text;
    if (found != "D L T")
        throw InputError(path, lineNo, letters.front().column,
                         "parameters '" + found +
                             "' are not supported; gpurec reads 'D L T' (UndatedDTL rates)");
    return true;
}

double rateValue(const Field& f, const std::string& path, int lineNo, const char* layout) {
    char* end = nullptr;
    double v = std::strtod(f.text.c_str(), &end);
    if (f.text.empty() || end != f.text.c_str() + f.text.size())
        throw InputError(path, lineNo, f.column,
                         std::string("expected '") + layout + "', found '" + f.text + "'");
    if (!std::isfinite(v))
        throw InputError(path, lineNo, f.column, "rate '" + f.text + "' is not a finite number");
    if (!(v > 0)) throw InputError(path, lineNo, f.column, "rates must be positive, found '" + f.text + "'");
    return v;
}

} // namespace

void writeModelParameters(const std::string& path, const SpeciesTree& species, const RateParameters& theta,
                          int family) {
    OutputFile file(path);
    file.stream() << "node D L T\n";
    for (int e = 0; e < species.size(); ++e) {
        Rates r = theta.rates(theta.row(family, e));
        file.stream() << quoteNewickLabel(species.name(e)) << " " << exactNumberText(r.d) << " "
                      << exactNumberText(r.l) << " " << exactNumberText(r.t) << "\n";
    }
    file.commit();
}

RateParameters readModelParameters(const std::string& path, const SpeciesTree& species, int familyCount) {
    std::vector<Rates> perNode(species.size());
    std::vector<int> seenAt(species.size(), 0); // line of each node's rates, 0: not yet
    bool first = true;
    for (const auto& [lineNo, fields] : contentLines(path)) {
        const bool header = first && fields[0].text == "node" &&
                            isLetterHeader({fields.begin() + 1, fields.end()}, path, lineNo);
        first = false;
        if (header) continue;
        if (fields.size() < 4)
            throw InputError(path, lineNo, 1,
                             "expected 'node D L T', found " + std::to_string(fields.size()) +
                                 (fields.size() == 1 ? " field" : " fields"));
        if (fields.size() > 4)
            throw InputError(path, lineNo, fields[4].column,
                             "expected 'node D L T', found extra field '" + fields[4].text + "'");
        const std::string& node = fields[0].text;
        int e = species.find(node);
        if (e < 0)
            throw InputError(path, lineNo, 1, "species node '" + node + "' is not in the species tree");
        if (seenAt[e] > 0)
            throw InputError(path, lineNo, 1,
                             "species node '" + node + "' listed twice (first at line " +
                                 std::to_string(seenAt[e]) + ")");
        perNode[e] = {rateValue(fields[1], path, lineNo, "node D L T"),
                      rateValue(fields[2], path, lineNo, "node D L T"),
                      rateValue(fields[3], path, lineNo, "node D L T")};
        seenAt[e] = lineNo;
    }
    for (int e = 0; e < species.size(); ++e)
        if (seenAt[e] == 0)
            throw InputError(path, 0, 0, "no rates for species node '" + species.name(e) + "'");
    bool uniform = std::all_of(perNode.begin(), perNode.end(), [&](const Rates& r) {
        return r.d == perNode[0].d && r.l == perNode[0].l && r.t == perNode[0].t;
    });
    if (uniform) return RateParameters(RateMode::Global, species.size(), familyCount, perNode[0]);
    RateParameters theta(RateMode::Specieswise, species.size(), familyCount, perNode[0]);
    for (int e = 0; e < species.size(); ++e)
        theta.setRates(e, perNode[e]);
    return theta;
}

void writeFamilyRates(const std::string& path, Rates rates) {
    writeFileAtomically(path, "D L T\n" + exactNumberText(rates.d) + " " + exactNumberText(rates.l) + " " +
                                  exactNumberText(rates.t) + "\n");
}

Rates readFamilyRates(const std::string& path, const SpeciesTree& species) {
    const auto lines = contentLines(path);
    if (lines.empty())
        throw InputError(path, 0, 0, "no rates (expected a 'D L T' line and a line of three rates)");
    if (!isLetterHeader(lines[0].second, path, lines[0].first)) {
        RateParameters older = readModelParameters(path, species, 1);
        if (older.mode() != RateMode::Global)
            throw InputError(path, 0, 0, "per-family rates must be the same on every species node");
        return older.rates(0);
    }
    if (lines.size() < 2) throw InputError(path, lines[0].first, 0, "no rates after the 'D L T' line");
    const auto& [lineNo, values] = lines[1];
    if (values.size() != 3)
        throw InputError(path, lineNo, values.size() > 3 ? values[3].column : 1,
                         "expected 'D L T' values, found " + std::to_string(values.size()) +
                             (values.size() == 1 ? " field" : " fields"));
    if (lines.size() > 2) throw InputError(path, lines[2].first, 1, "unexpected line after the rates");
    return {rateValue(values[0], path, lineNo, "D L T"), rateValue(values[1], path, lineNo, "D L T"),
            rateValue(values[2], path, lineNo, "D L T")};
}

std::string familyRatesPath(const std::string& folder, const std::string& family) {
    return folder + "/" + fileStem(family) + "_rates.txt";
}

std::vector<std::string> writeRateFiles(const std::string& folder, const Dataset& data,
                                        const RateParameters& theta) {
    ensureDirectory(folder);
    std::vector<std::string> written;
    if (theta.mode() != RateMode::Genewise) {
        written.push_back(folder + "/model_parameters.txt");
        writeModelParameters(written.back(), data.species, theta);
        return written;
    }
    for (int f = 0; f < static_cast<int>(data.families.size()); ++f) {
        written.push_back(familyRatesPath(folder, data.families[f].name));
        writeFamilyRates(written.back(), theta.rates(theta.row(f, 0)));
    }
    return written;
}

RateParameters readFamilyRateFiles(const std::string& folder, const Dataset& data) {
    const int F = static_cast<int>(data.families.size());
    RateParameters theta(RateMode::Genewise, data.species.size(), F, Rates{});
    for (int f = 0; f < F; ++f)
        theta.setRates(f, readFamilyRates(familyRatesPath(folder, data.families[f].name), data.species));
    return theta;
}

} // namespace gpurec
