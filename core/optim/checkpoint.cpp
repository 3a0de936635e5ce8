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
    case RateMode::Classes:
        break;
    }
    return {};
}

OptimizationCheckpoint checkpointOf(const RateParameters& theta, const Dataset& data) {
    OptimizationCheckpoint c;
    c.mode = theta.mode();
    c.rowNames = rateRowNames(theta.mode(), data);
    c.extraNames = theta.extraEntryNames(data.species.names());
    c.theta = theta.theta();
    return c;
}

namespace {

// Throws unless the checkpoint's names are the input's, naming the first that differs.
void requireNames(const std::vector<std::string>& checkpoint, const std::vector<std::string>& input,
                  const std::string& what, const std::string& mode) {
    if (checkpoint == input) return;
    std::size_t i = 0;
    while (i < input.size() && i < checkpoint.size() && input[i] == checkpoint[i])
        ++i;
    const std::string where = i < checkpoint.size() && i < input.size()
                                  ? what + " " + std::to_string(i + 1) + " is '" + checkpoint[i] +
                                        "' in the checkpoint and '" + input[i] + "' in the input"
                                  : std::to_string(checkpoint.size()) + " " + what + "s in the checkpoint, " +
                                        std::to_string(input.size()) + " in the input";
    throw std::runtime_error("the checkpoint's " + mode + " rates do not fit the input (" + where + ")");
}

} // namespace

RateParameters checkpointParameters(const OptimizationCheckpoint& c, const Dataset& data,
                                    const RateParameters& shape) {
    if (c.mode != shape.mode())
        throw std::runtime_error("the checkpoint holds " + toString(c.mode) + " rates, the run " +
                                 toString(shape.mode()) + " rates");
    requireNames(c.rowNames, rateRowNames(c.mode, data), "row", toString(c.mode));
    requireNames(c.extraNames, shape.extraEntryNames(data.species.names()), "parameter", toString(c.mode));
    RateParameters theta = shape;
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
            {"fix_rates", s.fix_rates},
            {"fix_highways", s.fix_highways},
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
    s.fix_rates = j.value("fix_rates", false); // absent before --fix-rates in optimize
    s.fix_highways = j.value("fix_highways", false);
    s.lockstep_families = j.at("lockstep_families").get<bool>();
    s.validate();
    return s;
}

json checkpointToJson(const OptimizationCheckpoint& c) {
    if (c.theta.size() != 3 * c.rowNames.size() + c.extraNames.size())
        throw std::runtime_error("checkpoint with " + std::to_string(c.theta.size()) + " rate values for " +
                                 std::to_string(c.rowNames.size()) + " rows and " +
                                 std::to_string(c.extraNames.size()) + " other parameters");
    for (double v : c.theta)
        if (!std::isfinite(v)) throw std::runtime_error("checkpoint with a rate that is not finite");
    return {{"format", kFormat},
            {"version", kCheckpointFormatVersion},
            {"gpurec_version", GPUREC_VERSION},
            {"mode", toString(c.mode)},
            {"rows", c.rowNames},
            {"extra_parameters", c.extraNames},
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
    if (!j.is_object() || !j.contains("format") || j.at("format") != kFormat)
        throw std::runtime_error("not a gpurec optimisation checkpoint (no \"format\": \"" +
                                 std::string(kFormat) + "\")");
    int version = 0;
    try {
        version = integerField<int>(j, "version");
    } catch (const std::exception& e) { // missing, or not a whole number
        throw std::runtime_error(std::string("bad checkpoint \"version\": ") + e.what());
    }
    if (version != kCheckpointFormatVersion)
        throw std::runtime_error("checkpoint format " + std::to_string(version) +
                                 "; this gpurec reads format " + std::to_string(kCheckpointFormatVersion));
    try {
        OptimizationCheckpoint c;
        c.mode = parseRateMode(j.at("mode").get<std::string>());
        c.rowNames = j.at("rows").get<std::vector<std::string>>();
        // Absent from checkpoints written before origination weights and class parametrisations.
        c.extraNames = j.value("extra_parameters", std::vector<std::string>{});
        c.theta = j.at("theta").get<std::vector<double>>();
        if (c.theta.size() != 3 * c.rowNames.size() + c.extraNames.size())
            throw std::runtime_error("\"theta\" has " + std::to_string(c.theta.size()) + " values for " +
                                     std::to_string(c.rowNames.size()) + " rows and " +
                                     std::to_string(c.extraNames.size()) +
                                     " other parameters (expected 3 per row and 1 per other parameter)");
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
