#include "engine_model.hpp"

#include "data/origination.hpp"
#include "engine/backend_factory.hpp"
#include "io/input_error.hpp"

#include <omp.h>
#include <stdexcept>

namespace gpurec::python {

EngineModel::EngineModel(const ModelInput& in) : input(in) {
    input.solver.threads = in.threads;
    input.solver.validate();
    const RateMode mode = parseRateMode(in.mode);
    LoadOptions lo;
    lo.rooting = parseGeneTreeRooting(in.rooting);
    lo.minCoveredSpecies = in.minCoveredSpecies;
    lo.threads = in.threads;
    lo.origination = parseOrigination(in.origination);
    if (lo.origination == Origination::Optimize)
        throw std::invalid_argument(
            "--origination OPTIMIZE (fitted origination weights) is not available in the "
            "Python API yet; gpurec optimize and gpurec alerax fit them");
    lo.events = in.events;
    loaded = loadInput(in.paths, parseTransferConstraint(in.transferConstraint), lo);
    if (!loaded.errors.empty() && in.strict) {
        // Thrown as the C++ error (the GIL is released here); the translator makes it Python's.
        const FamilyProblem& p = loaded.errors.front();
        throw InputError(p.file, p.line, p.column, p.reason);
    }
    if (loaded.dataset->families.empty())
        throw std::invalid_argument("no family left to reconcile after exclusions");
    if (in.threads > 0) omp_set_num_threads(in.threads);
    BatchLimits limits;
    limits.memoryBytes = in.gpuMemoryBytes;
    BackendChoice choice = selectBackend(in.device, loaded.dataset, limits);
    deviceDescription = choice.description;
    deviceNote = choice.note;
    const Dataset& data = *loaded.dataset;
    RateParameters theta(mode, data.species.size(), static_cast<int>(data.families.size()), in.rates);
    model = std::make_unique<ReconModel>(loaded.dataset, std::move(choice.backend), theta, input.solver);
}

RateParameters EngineModel::parametersFrom(const std::vector<double>& values) const {
    RateParameters theta = model->parameters();
    if (values.size() != theta.theta().size())
        throw std::invalid_argument("theta has " + std::to_string(values.size()) + " values; the " +
                                    toString(theta.mode()) + " mode of this model needs " +
                                    std::to_string(theta.theta().size()));
    theta.theta() = values;
    return theta;
}

} // namespace gpurec::python
