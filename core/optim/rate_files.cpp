#include "optim/rate_files.hpp"

#include "highways/highway_files.hpp"
#include "highways/highway_rates.hpp"
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

// The parameter letters of a model's rate files.
std::string rateLetters(RecModel model) {
    return model == RecModel::UndatedDL ? "D L" : "D L T";
}

// The columns of a header of parameter letters (D, L, T, O): rate columns (0 when the fields are
// not such a header) and whether an origination column O follows them; throws for letters the model
// cannot read (UndatedDL reads 'D L T' too, ignoring T).
struct LetterHeader {
    int rates = 0;
    bool origin = false;
};
LetterHeader letterHeader(const std::vector<Field>& letters, const std::string& path, int lineNo,
                          RecModel model) {
    if (letters.empty()) return {};
    for (const Field& f : letters)
        if (f.text != "D" && f.text != "L" && f.text != "T" && f.text != "O") return {};
    std::string found;
    for (const Field& f : letters)
        found += (found.empty() ? "" : " ") + f.text;
    const bool origin = letters.back().text == "O";
    const std::string rates =
        origin ? found.substr(0, found.size() - std::min<std::size_t>(found.size(), 2)) : found;
    if (rates == rateLetters(model) || (model == RecModel::UndatedDL && rates == "D L T"))
        return {static_cast<int>(letters.size()) - (origin ? 1 : 0), origin};
    if (rates == "D L")
        throw InputError(path, lineNo, letters.front().column,
                         "parameters 'D L' are UndatedDL rates; use them with --rec-model UndatedDL");
    throw InputError(path, lineNo, letters.front().column,
                     "parameters '" + found + "' are not supported; gpurec reads '" + rateLetters(model) +
                         "' (" + toString(model) + " rates), with an O column for origination weights");
}

// Rates from the value fields of one line: D L, then T when there are three.
Rates ratesOf(const std::vector<Field>& values, std::size_t first, std::size_t columns,
              const std::string& path, int lineNo, const std::string& layout) {
    Rates r;
    r.d = rateValue(values[first], path, lineNo, layout.c_str());
    r.l = rateValue(values[first + 1], path, lineNo, layout.c_str());
    if (columns > 2) r.t = rateValue(values[first + 2], path, lineNo, layout.c_str());
    return r;
}

} // namespace

// One row of values in the model's columns.
std::string rateValuesText(Rates r, RecModel model) {
    std::string text = exactNumberText(r.d) + " " + exactNumberText(r.l);
    if (model == RecModel::UndatedDTL) text += " " + exactNumberText(r.t);
    return text;
}

void writeModelParameters(const std::string& path, const SpeciesTree& species, const RateParameters& theta,
                          int family, RecModel model) {
    // AleRax writes the weights normalised over the nodes: O_e as the likelihood uses them.
    std::vector<double> origin = theta.originWeights();
    double total = 0;
    for (double o : origin)
        total += o;
    OutputFile file(path);
    file.stream() << "node " << rateLetters(model) << (origin.empty() ? "" : " O") << "\n";
    for (int e = 0; e < species.size(); ++e) {
        file.stream() << quoteNewickLabel(species.name(e)) << " "
                      << rateValuesText(theta.ratesAt(family, e), model);
        if (!origin.empty()) file.stream() << " " << exactNumberText(origin[e] / total);
        file.stream() << "\n";
    }
    file.commit();
}

NodeParameters readNodeParameters(const std::string& path, const SpeciesTree& species, RecModel model) {
    NodeParameters out;
    out.rates.resize(species.size());
    std::vector<double> origin(species.size(), 0.0);
    std::vector<int> seenAt(species.size(), 0); // line of each node's rates, 0: not yet
    bool first = true, hasOrigin = false;
    // Columns per row: the header's, else the model's (an older file without a header has 'D L T').
    std::size_t columns = model == RecModel::UndatedDL ? 0 : 3;
    for (const auto& [lineNo, fields] : contentLines(path)) {
        const LetterHeader header =
            first && fields[0].text == "node"
                ? letterHeader({fields.begin() + 1, fields.end()}, path, lineNo, model)
                : LetterHeader{};
        first = false;
        if (header.rates > 0) {
            columns = static_cast<std::size_t>(header.rates);
            hasOrigin = header.origin;
            out.originLine = lineNo;
            out.originColumn = hasOrigin ? fields.back().column : 0;
            continue;
        }
        // Without a header, UndatedDL takes rows of two rates, or of three as an older file has.
        if (columns == 0) columns = fields.size() == 4 ? 3 : 2;
        const std::size_t values = columns + (hasOrigin ? 1 : 0);
        const std::string layout =
            "node " + std::string(columns == 3 ? "D L T" : "D L") + (hasOrigin ? " O" : "");
        if (fields.size() < values + 1)
            throw InputError(path, lineNo, 1,
                             "expected '" + layout + "', found " + std::to_string(fields.size()) +
                                 (fields.size() == 1 ? " field" : " fields"));
        if (fields.size() > values + 1)
            throw InputError(path, lineNo, fields[values + 1].column,
                             "expected '" + layout + "', found extra field '" + fields[values + 1].text +
                                 "'");
        const std::string& node = fields[0].text;
        int e = species.find(node);
        if (e < 0)
            throw InputError(path, lineNo, 1, "species node '" + node + "' is not in the species tree");
        if (seenAt[e] > 0)
            throw InputError(path, lineNo, 1,
                             "species node '" + node + "' listed twice (first at line " +
                                 std::to_string(seenAt[e]) + ")");
        out.rates[e] = ratesOf(fields, 1, columns, path, lineNo, layout);
        if (model == RecModel::UndatedDL) out.rates[e].t = Rates{}.t;
        if (hasOrigin) origin[e] = rateValue(fields[values], path, lineNo, layout.c_str());
        seenAt[e] = lineNo;
    }
    for (int e = 0; e < species.size(); ++e)
        if (seenAt[e] == 0)
            throw InputError(path, 0, 0, "no rates for species node '" + species.name(e) + "'");
    if (hasOrigin) out.origin = std::move(origin);
    return out;
}

RateParameters readModelParameters(const std::string& path, const SpeciesTree& species, int familyCount,
                                   RecModel model) {
    const NodeParameters file = readNodeParameters(path, species, model);
    const std::vector<Rates>& perNode = file.rates;
    bool uniform = std::all_of(perNode.begin(), perNode.end(), [&](const Rates& r) {
        return r.d == perNode[0].d && r.l == perNode[0].l && r.t == perNode[0].t;
    });
    RateParameters theta(uniform ? RateMode::Global : RateMode::Specieswise, species.size(), familyCount,
                         perNode[0]);
    if (!file.origin.empty()) theta.addOriginationPerNode(1.0);
    setFromNodeParameters(theta, file, species, path, {});
    return theta;
}

void setFromNodeParameters(RateParameters& theta, const NodeParameters& file, const SpeciesTree& species,
                           const std::string& path, PresentRates present) {
    if (theta.mode() == RateMode::Genewise)
        throw std::invalid_argument(path + ": per-node rates do not fit per-family rates");
    if (!file.origin.empty() && !theta.optimizesOrigination())
        throw InputError(path, file.originLine, file.originColumn,
                         "origination weights (the O column) go with --origination OPTIMIZE");
    std::vector<double>& th = theta.theta();
    std::vector<int> setBy(th.size(), -1); // the node that set each entry
    auto set = [&](int entry, double value, int e, const char* what) {
        const double v = std::log2(value);
        if (setBy[entry] >= 0 && th[entry] != v)
            throw std::invalid_argument(path + ": species nodes '" + species.name(setBy[entry]) + "' and '" +
                                        species.name(e) + "' share one " + what +
                                        " parameter here but have different values in the file");
        th[entry] = v;
        setBy[entry] = e;
    };
    for (int e = 0; e < species.size(); ++e) {
        const Rates r = file.rates[e];
        set(theta.entry(0, e, 0), r.d, e, "D");
        set(theta.entry(0, e, 1), r.l, e, "L");
        // A rate the model lacks (T under UndatedDL) is never read: its file value is a placeholder.
        if (present.transfer) set(theta.entry(0, e, 2), r.t, e, "T");
        if (!file.origin.empty()) set(theta.originEntry(e), file.origin[e], e, "O");
    }
}

void writeFamilyRates(const std::string& path, Rates rates, RecModel model) {
    writeFileAtomically(path, rateLetters(model) + "\n" + rateValuesText(rates, model) + "\n");
}

Rates readFamilyRates(const std::string& path, const SpeciesTree& species, RecModel model) {
    const auto lines = contentLines(path);
    const std::string letters = rateLetters(model);
    if (lines.empty())
        throw InputError(path, 0, 0, "no rates (expected a '" + letters + "' line and a line of rates)");
    const LetterHeader header = letterHeader(lines[0].second, path, lines[0].first, model);
    if (header.origin)
        throw InputError(
            path, lines[0].first, lines[0].second.back().column,
            "per-family rates have no origination weights (AleRax refuses OPTIMIZE with PER-FAMILY)");
    const int columns = header.rates;
    if (columns == 0) {
        RateParameters older = readModelParameters(path, species, 1, model);
        if (older.mode() != RateMode::Global)
            throw InputError(path, 0, 0, "per-family rates must be the same on every species node");
        return older.rates(0);
    }
    const std::string layout = columns == 3 ? "D L T" : "D L";
    if (lines.size() < 2)
        throw InputError(path, lines[0].first, 0, "no rates after the '" + layout + "' line");
    const auto& [lineNo, values] = lines[1];
    if (values.size() != static_cast<std::size_t>(columns))
        throw InputError(path, lineNo,
                         values.size() > static_cast<std::size_t>(columns) ? values[columns].column : 1,
                         "expected '" + layout + "' values, found " + std::to_string(values.size()) +
                             (values.size() == 1 ? " field" : " fields"));
    if (lines.size() > 2) throw InputError(path, lines[2].first, 1, "unexpected line after the rates");
    Rates r = ratesOf(values, 0, static_cast<std::size_t>(columns), path, lineNo, layout);
    if (model == RecModel::UndatedDL) r.t = Rates{}.t;
    return r;
}

std::string familyRatesPath(const std::string& folder, const std::string& family) {
    return folder + "/" + fileStem(family) + "_rates.txt";
}

std::vector<std::string> writeRateFiles(const std::string& folder, const Dataset& data,
                                        const RateParameters& theta) {
    ensureDirectory(folder);
    std::vector<std::string> written;
    if (!data.highways.empty()) { // gpurec's own: the highways' rates the fit ended at
        const std::vector<double> rates = highwayRates(theta);
        std::vector<HighwayRecord> records;
        records.reserve(data.highways.size());
        for (std::size_t h = 0; h < data.highways.size(); ++h)
            records.push_back({data.highways[h], rates[h], 0.0});
        written.push_back(folder + "/highways.txt");
        writeHighways(written.back(), data.species, records, false);
    }
    if (theta.mode() != RateMode::Genewise) {
        written.push_back(folder + "/model_parameters.txt");
        writeModelParameters(written.back(), data.species, theta, 0, data.events.recModel);
        return written;
    }
    for (int f = 0; f < static_cast<int>(data.families.size()); ++f) {
        written.push_back(familyRatesPath(folder, data.families[f].name));
        writeFamilyRates(written.back(), theta.rates(theta.row(f, 0)), data.events.recModel);
    }
    return written;
}

RateParameters readFamilyRateFiles(const std::string& folder, const Dataset& data) {
    const int F = static_cast<int>(data.families.size());
    RateParameters theta(RateMode::Genewise, data.species.size(), F, Rates{});
    for (int f = 0; f < F; ++f)
        theta.setRates(f, readFamilyRates(familyRatesPath(folder, data.families[f].name), data.species,
                                          data.events.recModel));
    return theta;
}

} // namespace gpurec
