#include "optim/recon_model.hpp"

#include <stdexcept>

namespace gpurec {

ReconModel::ReconModel(std::shared_ptr<const Dataset> data, std::shared_ptr<LikelihoodBackend> backend,
                       RateParameters theta, SolverOptions options)
    : data_(std::move(data)), backend_(std::move(backend)), theta_(std::move(theta)), options_(options) {
    options_.validate();
    setParameters(theta_);
}

void ReconModel::setParameters(const RateParameters& theta) {
    if (theta.speciesCount() != data_->species.size() ||
        (theta.mode() == RateMode::Genewise &&
         theta.familyCount() != static_cast<int>(data_->families.size())))
        throw std::invalid_argument("rate parameters do not match the dataset's shape");
    theta_ = theta;
}

double ReconModel::evaluate() {
    last_ = backend_->evaluate(theta_, options_, false);
    return last_.totalNllBits;
}

double ReconModel::evaluateWithGradient(std::vector<double>& gradient) {
    last_ = backend_->evaluate(theta_, options_, true);
    gradient = last_.gradient;
    return last_.totalNllBits;
}

void ReconModel::setSolverOptions(const SolverOptions& options) {
    options.validate();
    options_ = options;
}

void ReconModel::clearWarmStarts() {
    backend_->clearWarmStarts();
}

} // namespace gpurec
