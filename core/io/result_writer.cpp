#include "io/result_writer.hpp"

#include "engine/solver_report.hpp"
#include "io/input_error.hpp"
#include "io/newick.hpp"
#include "io/number_text.hpp"
#include "io/output_file.hpp"
#include "io/text_file.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <sstream>

namespace gpurec {

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
        if (eval.logLikelihood[a] != eval.logLikelihood[b])
            return eval.logLikelihood[a] < eval.logLikelihood[b];
        return data.families[a].name < data.families[b].name;
    });
    OutputFile file(path);
    for (int f : order)
        file.stream() << quoteNewickLabel(data.families[f].name) << " "
                      << exactNumberText(eval.logLikelihood[f]) << "\n";
    file.commit();
}

nlohmann::json solverOptionsJson(const SolverOptions& options) {
    nlohmann::json j;
    for (const SolverOptionInfo& info : solverOptionInfo())
        j[info.name] = getSolverOption(options, info.name);
    return j;
}

nlohmann::json evaluationJson(const Dataset& data, const Evaluation& eval) {
    nlohmann::json fams = nlohmann::json::array();
    for (std::size_t f = 0; f < data.families.size(); ++f) {
        const GeneFamily& fam = data.families[f];
        fams.push_back({{"name", fam.name},
                        {"genes", fam.geneCount()},
                        {"clades", fam.cladeCount()},
                        {"splits", fam.splitCount()},
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
