#include "engine_model.hpp"

#include "data/origination.hpp"
#include "engine/backend_factory.hpp"
#include "io/input_error.hpp"
#include "optim/parametrization.hpp"

#include <algorithm>
#include <omp.h>
#include <stdexcept>

namespace gpurec::python {

EngineModel::EngineModel(const ModelInput& in) : input(in) {
    input.solver.threads = in.threads;
    input.solver.validate();
    parseRateMode(in.mode); // a bad mode is refused as such, not read as a class file's path
    LoadOptions lo;
    lo.rooting = parseGeneTreeRooting(in.rooting);
    lo.minCoveredSpecies = in.minCoveredSpecies;
    lo.threads = in.threads;
    lo.origination = parseOrigination(in.origination);
    lo.events = in.events;
    lo.speciationCategories = in.gammaCategories;
    lo.pruneSpeciesTree = in.pruneSpeciesTree;
    // Before loading: a refused combination (OPTIMIZE with global rates) costs no parsing.
    const Parametrization parametrization = parseParametrization(in.mode, lo.origination);
    loaded = loadInput(in.paths, parseTransferConstraint(in.transferConstraint), lo);
    if (!loaded.errors.empty() && in.strict) {
        // Thrown as the C++ error (the GIL is released here); the translator makes it Python's.
        const FamilyProblem& p = loaded.errors.front();
        throw InputError(p.file, p.line, p.column, p.reason);
    }
    if (loaded.dataset->families.empty())
        throw std::invalid_argument("no family left to reconcile after exclusions");
    if (in.threads > 0) omp_set_num_threads(in.threads);
    // Before the backend: a refused shape α or categories with per-family rates costs no device.
    const RateParameters theta = makeParameters(parametrization, *loaded.dataset, in.rates, in.gammaAlpha);
    BatchLimits limits;
    limits.memoryBytes = in.gpuMemoryBytes;
    BackendChoice choice = selectBackend(in.device, loaded.dataset, limits);
    deviceDescription = choice.description;
    deviceNote = choice.note;
    model = std::make_unique<ReconModel>(loaded.dataset, std::move(choice.backend), theta, input.solver);
}

std::size_t EngineModel::rateEntryCount() const {
    return 3 * static_cast<std::size_t>(model->parameters().rowCount());
}

RateParameters EngineModel::parametersFrom(const std::vector<double>& rates,
                                           const std::vector<double>& extra) const {
    RateParameters theta = model->parameters();
    const std::size_t rows = rateEntryCount(), extras = theta.theta().size() - rows;
    if (rates.size() != rows)
        throw std::invalid_argument("theta has " + std::to_string(rates.size()) + " values; the " +
                                    toString(theta.mode()) + " mode of this model needs " +
                                    std::to_string(rows));
    if (extra.size() != extras)
        throw std::invalid_argument("extra has " + std::to_string(extra.size()) + " values; this model has " +
                                    std::to_string(extras) + " (extra_names lists them)");
    std::copy(rates.begin(), rates.end(), theta.theta().begin());
    std::copy(extra.begin(), extra.end(), theta.theta().begin() + static_cast<std::ptrdiff_t>(rows));
    return theta;
}

} // namespace gpurec::python
