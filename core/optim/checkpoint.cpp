#include "optim/checkpoint.hpp"

#include "io/json_number.hpp"
#include "io/output_file.hpp"

#include <cmath>
#include <fstream>
#include <stdexcept>

namespace gpurec {

using nlohmann::json;

namespace {
const char* kFormat = "gpurec-optimization-checkpoint";
} // namespace

std::vector<std::string> rateRowNames(RateMode mode, const Dataset& data) {
    switch (mode) {
    case RateMode::Global:
        return {"global"};
    case RateMode::Specieswise:
        return data.species.names();
    case RateMode::Genewise: {
        std::vector<std::string> names;
        for (const GeneFamily& f : data.families)
            names.push_back(f.name);
        return names;
    }
    }
    return {};
}

OptimizationCheckpoint checkpointOf(const RateParameters& theta, const Dataset& data) {
    OptimizationCheckpoint c;
    c.mode = theta.mode();
    c.rowNames = rateRowNames(theta.mode(), data);
    c.theta = theta.theta();
    return c;
}

RateParameters checkpointParameters(const OptimizationCheckpoint& c, const Dataset& data) {
    const std::vector<std::string> names = rateRowNames(c.mode, data);
    if (names != c.rowNames) {
        std::size_t i = 0;
        while (i < names.size() && i < c.rowNames.size() && names[i] == c.rowNames[i])
            ++i;
        const std::string what = i < c.rowNames.size() && i < names.size()
                                     ? "row " + std::to_string(i + 1) + " is '" + c.rowNames[i] +
                                           "' in the checkpoint and '" + names[i] + "' in the input"
                                     : std::to_string(c.rowNames.size()) + " rows in the checkpoint, " +
                                           std::to_string(names.size()) + " in the input";
        throw std::runtime_error("the checkpoint's " + toString(c.mode) + " rates do not fit the input (" +
                                 what + ")");
    }
    RateParameters theta(c.mode, data.species.size(), static_cast<int>(data.families.size()), {});
    theta.theta() = c.theta;
    return theta;
}

json optimizerSettingsJson(const OptimizerSettings& s) {
    return {{"optimizer", toString(s.kind)},
            {"max_iter", s.max_iter},
            {"grad_tol", s.grad_tol},
            {"rel_tol", s.rel_tol},
            {"min_rate", s.min_rate},
            {"max_rate", s.max_rate},
            {"learning_rate", s.learning_rate},
            {"beta1", s.beta1},
            {"beta2", s.beta2},
            {"adam_epsilon", s.adam_epsilon},
            {"lbfgsb_memory", s.lbfgsb_memory},
            {"warm_starts", s.warm_starts},
            {"lockstep_families", s.lockstep_families}};
}

OptimizerSettings optimizerSettingsFromJson(const json& j) {
    OptimizerSettings s;
    s.kind = parseOptimizerKind(j.at("optimizer").get<std::string>());
    s.max_iter = integerField<int>(j, "max_iter");
    s.grad_tol = j.at("grad_tol").get<double>();
    s.rel_tol = j.at("rel_tol").get<double>();
    s.min_rate = j.at("min_rate").get<double>();
    s.max_rate = j.at("max_rate").get<double>();
    s.learning_rate = j.at("learning_rate").get<double>();
    s.beta1 = j.at("beta1").get<double>();
    s.beta2 = j.at("beta2").get<double>();
    s.adam_epsilon = j.at("adam_epsilon").get<double>();
    s.lbfgsb_memory = integerField<int>(j, "lbfgsb_memory");
    s.warm_starts = j.at("warm_starts").get<bool>();
    s.lockstep_families = j.at("lockstep_families").get<bool>();
    s.validate();
    return s;
}

json checkpointToJson(const OptimizationCheckpoint& c) {
    if (c.theta.size() != 3 * c.rowNames.size())
        throw std::runtime_error("checkpoint with " + std::to_string(c.theta.size()) + " rate values for " +
                                 std::to_string(c.rowNames.size()) + " rows");
    for (double v : c.theta)
        if (!std::isfinite(v)) throw std::runtime_error("checkpoint with a rate that is not finite");
    return {{"format", kFormat},
            {"version", kCheckpointFormatVersion},
            {"gpurec_version", GPUREC_VERSION},
            {"mode", toString(c.mode)},
            {"rows", c.rowNames},
            {"theta", c.theta},
            {"best_nll_bits", jsonNumber(c.bestNllBits)},
            {"settings", optimizerSettingsJson(c.settings)},
            {"iterations", c.progress.iterations},
            {"evaluations", c.progress.evaluations},
            {"initial_nll_bits", jsonNumber(c.progress.initialNllBits)},
            {"seconds", c.progress.seconds},
            {"finished", c.finished},
            {"stop_reason", c.stopReason},
            {"run", c.run}};
}

OptimizationCheckpoint checkpointFromJson(const json& j) {
    if (!j.is_object() || j.value("format", std::string()) != kFormat)
        throw std::runtime_error("not a gpurec optimisation checkpoint (no \"format\": \"" +
                                 std::string(kFormat) + "\")");
    const int version = integerField<int>(j, "version");
    if (version != kCheckpointFormatVersion)
        throw std::runtime_error("checkpoint format " + std::to_string(version) +
                                 "; this gpurec reads format " + std::to_string(kCheckpointFormatVersion));
    try {
        OptimizationCheckpoint c;
        c.mode = parseRateMode(j.at("mode").get<std::string>());
        c.rowNames = j.at("rows").get<std::vector<std::string>>();
        c.theta = j.at("theta").get<std::vector<double>>();
        if (c.theta.size() != 3 * c.rowNames.size())
            throw std::runtime_error("\"theta\" has " + std::to_string(c.theta.size()) + " values for " +
                                     std::to_string(c.rowNames.size()) + " rows (expected 3 per row)");
        if (c.mode == RateMode::Global && c.rowNames.size() > 1)
            throw std::runtime_error("global rates have one row");
        c.bestNllBits = numberFromJson(j.at("best_nll_bits"));
        c.settings = optimizerSettingsFromJson(j.at("settings"));
        c.progress.iterations = integerField<int>(j, "iterations");
        c.progress.evaluations = integerField<int>(j, "evaluations");
        c.progress.initialNllBits = numberFromJson(j.at("initial_nll_bits"));
        c.progress.seconds = j.at("seconds").get<double>();
        c.finished = j.at("finished").get<bool>();
        c.stopReason = j.at("stop_reason").get<std::string>();
        c.run = j.at("run");
        return c;
    } catch (const json::exception& e) {
        throw std::runtime_error(std::string("bad checkpoint field: ") + e.what());
    } catch (const std::invalid_argument& e) {
        throw std::runtime_error(std::string("bad checkpoint: ") + e.what());
    }
}

void writeCheckpoint(const std::string& path, const OptimizationCheckpoint& checkpoint) {
    writeFileAtomically(path, checkpointToJson(checkpoint).dump(1) + "\n");
}

OptimizationCheckpoint readCheckpoint(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open the checkpoint");
    try {
        return checkpointFromJson(json::parse(in));
    } catch (const json::parse_error& e) {
        throw std::runtime_error(path + ": not a valid checkpoint (damaged or cut short): " + e.what());
    } catch (const std::exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

} // namespace gpurec
