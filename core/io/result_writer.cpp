#include "io/result_writer.hpp"

#include "engine/solver_report.hpp"
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "io/output_file.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <sstream>

namespace gpurec {

namespace {
std::string num17(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}
} // namespace

void ensureDirectory(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec || !std::filesystem::is_directory(path))
        throw std::runtime_error("cannot create output folder " + path + (ec ? ": " + ec.message() : ""));
}

void writePerFamilyLikelihoods(const std::string& path, const Dataset& data, const Evaluation& eval) {
    std::vector<int> order(data.families.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        if (eval.logLikelihood[a] != eval.logLikelihood[b]) return eval.logLikelihood[a] < eval.logLikelihood[b];
        return data.families[a].name < data.families[b].name;
    });
    OutputFile file(path);
    for (int f : order) file.stream() << quoteNewickLabel(data.families[f].name) << " " << num17(eval.logLikelihood[f]) << "\n";
    file.commit();
}

void writeModelParameters(const std::string& path, const SpeciesTree& species, const RateParameters& theta, int family) {
    OutputFile file(path);
    file.stream() << "# node D L T\n";
    for (int e = 0; e < species.size(); ++e) {
        Rates r = theta.rates(theta.row(family, e));
        file.stream() << quoteNewickLabel(species.name(e)) << " " << num17(r.d) << " " << num17(r.l) << " " << num17(r.t) << "\n";
    }
    file.commit();
}

RateParameters readModelParameters(const std::string& path, const SpeciesTree& species, int familyCount) {
    std::istringstream in(readTextFile(path));
    std::string line;
    int lineNo = 0;
    std::vector<Rates> perNode(species.size());
    std::vector<int> seenAt(species.size(), 0); // line of each node's rates, 0: not yet
    while (std::getline(in, line)) {
        ++lineNo;
        std::vector<std::pair<std::string, int>> fields; // text, 1-based column
        for (std::size_t i = 0; i < line.size();) {
            if (std::isspace(static_cast<unsigned char>(line[i]))) {
                ++i;
                continue;
            }
            std::size_t j = i;
            std::string text;
            if (line[i] == '\'') { // a Newick-quoted name (as written for names with blanks), '' for '
                for (j = i + 1; j < line.size(); ++j) {
                    if (line[j] != '\'') text += line[j];
                    else if (j + 1 < line.size() && line[j + 1] == '\'') text += line[++j];
                    else break;
                }
                if (j >= line.size()) throw InputError(path, lineNo, static_cast<int>(i) + 1, "unterminated quoted name");
                ++j;
            } else {
                while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
                text = line.substr(i, j - i);
            }
            fields.emplace_back(text, static_cast<int>(i) + 1);
            i = j;
        }
        if (fields.empty() || fields[0].first[0] == '#') continue;
        if (fields.size() < 4)
            throw InputError(path, lineNo, 1, "expected 'node D L T', found " + std::to_string(fields.size()) +
                                                  (fields.size() == 1 ? " field" : " fields"));
        if (fields.size() > 4)
            throw InputError(path, lineNo, fields[4].second,
                             "expected 'node D L T', found extra field '" + fields[4].first + "'");
        const std::string& node = fields[0].first;
        int e = species.find(node);
        if (e < 0) throw InputError(path, lineNo, 1, "species node '" + node + "' is not in the species tree");
        if (seenAt[e] > 0)
            throw InputError(path, lineNo, 1,
                             "species node '" + node + "' listed twice (first at line " + std::to_string(seenAt[e]) + ")");
        double value[3];
        for (int k = 0; k < 3; ++k) {
            const auto& [text, column] = fields[k + 1];
            char* end = nullptr;
            value[k] = std::strtod(text.c_str(), &end);
            if (end != text.c_str() + text.size()) throw InputError(path, lineNo, 0, "expected 'node D L T'");
            if (!std::isfinite(value[k]))
                throw InputError(path, lineNo, column, "rate '" + text + "' is not a finite number");
            if (!(value[k] > 0)) throw InputError(path, lineNo, column, "rates must be positive, found '" + text + "'");
        }
        perNode[e] = {value[0], value[1], value[2]};
        seenAt[e] = lineNo;
    }
    for (int e = 0; e < species.size(); ++e)
        if (seenAt[e] == 0) throw InputError(path, 0, 0, "no rates for species node '" + species.name(e) + "'");
    bool uniform = std::all_of(perNode.begin(), perNode.end(), [&](const Rates& r) {
        return r.d == perNode[0].d && r.l == perNode[0].l && r.t == perNode[0].t;
    });
    if (uniform) return RateParameters(RateMode::Global, species.size(), familyCount, perNode[0]);
    RateParameters theta(RateMode::Specieswise, species.size(), familyCount, perNode[0]);
    for (int e = 0; e < species.size(); ++e) theta.setRates(e, perNode[e]);
    return theta;
}

nlohmann::json solverOptionsJson(const SolverOptions& options) {
    nlohmann::json j;
    for (const SolverOptionInfo& info : solverOptionInfo()) j[info.name] = getSolverOption(options, info.name);
    return j;
}

nlohmann::json evaluationJson(const Dataset& data, const Evaluation& eval) {
    nlohmann::json fams = nlohmann::json::array();
    for (std::size_t f = 0; f < data.families.size(); ++f) {
        const GeneFamily& fam = data.families[f];
        fams.push_back({{"name", fam.name},
                        {"genes", fam.clades.geneCount()},
                        {"clades", fam.clades.cladeCount()},
                        {"splits", fam.clades.splitCount()},
                        {"covered_species", fam.coveredSpecies},
                        {"ll_nats", eval.logLikelihood[f]},
                        {"nll_bits", -eval.logLikelihood[f] / std::log(2.0)}});
    }
    return {{"families", fams},
            {"total", {{"ll_nats", eval.totalLogLikelihood}, {"nll_bits", eval.totalNllBits}}},
            {"solver_stats", solverStatsJson(eval.stats)}};
}

void writeJson(const std::string& path, const nlohmann::json& j) {
    writeFileAtomically(path, j.dump(2) + "\n");
}

} // namespace gpurec
