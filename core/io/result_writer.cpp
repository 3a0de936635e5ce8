#include "io/result_writer.hpp"

#include "engine/solver_report.hpp"
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "io/output_file.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <cmath>
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
    std::vector<bool> seen(species.size(), false);
    while (std::getline(in, line)) {
        ++lineNo;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream fields(line);
        std::string node;
        Rates r;
        if (!(fields >> node >> r.d >> r.l >> r.t))
            throw InputError(path, lineNo, 0, "expected 'node D L T'");
        int e = species.find(node);
        if (e < 0) throw InputError(path, lineNo, 1, "species node '" + node + "' is not in the species tree");
        if (!(r.d > 0 && r.l > 0 && r.t > 0)) throw InputError(path, lineNo, 0, "rates must be positive");
        perNode[e] = r;
        seen[e] = true;
    }
    for (int e = 0; e < species.size(); ++e)
        if (!seen[e]) throw InputError(path, 0, 0, "no rates for species node '" + species.name(e) + "'");
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
    const SolverStats& s = eval.stats;
    return {{"families", fams},
            {"total", {{"ll_nats", eval.totalLogLikelihood}, {"nll_bits", eval.totalNllBits}}},
            {"solver_stats",
             {{"e_iterations", s.eIterations},
              {"e_residual", s.eResidual},
              {"pi_iterations", s.piIterations},
              {"max_pi_iterations", s.maxPiIterations},
              {"bicgstab_iterations", s.bicgstabIterations},
              {"bicgstab_breakdowns", s.bicgstabBreakdowns},
              {"stopped_early", earlyStopsJson(s)},
              {"seconds", s.seconds}}}};
}

void writeJson(const std::string& path, const nlohmann::json& j) {
    writeFileAtomically(path, j.dump(2) + "\n");
}

} // namespace gpurec
