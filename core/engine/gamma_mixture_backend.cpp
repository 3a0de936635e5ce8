#include "engine/gamma_mixture_backend.hpp"

#include "engine/evaluation_shape.hpp"
#include "model/gamma_categories.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gpurec {

double meanOfLikelihoods(const std::vector<double>& ll) {
    const double top = *std::max_element(ll.begin(), ll.end());
    double sum = 0;
    for (double v : ll)
        sum += std::exp(v - top);
    return top + std::log(sum / static_cast<double>(ll.size()));
}

namespace {

class GammaMixtureBackend final : public LikelihoodBackend {
  public:
    GammaMixtureBackend(std::shared_ptr<const Dataset> data,
                        std::vector<std::unique_ptr<LikelihoodBackend>> backends)
        : data_(std::move(data)), backends_(std::move(backends)), k_(data_->speciationCategories) {
        if (k_ < 2) throw std::invalid_argument("a category mixture needs at least two categories");
        if (backends_.empty() || (backends_.size() != 1 && static_cast<int>(backends_.size()) != k_))
            throw std::invalid_argument("a category mixture needs one backend per category, or one for all");
    }

    std::string name() const override { return backends_.front()->name(); }

    Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                        const std::vector<double>* familyWeights = nullptr) override {
        const auto start = std::chrono::steady_clock::now();
        const int F = static_cast<int>(data_->families.size());
        const std::vector<RateParameters> thetas = categories(theta);
        std::vector<std::vector<double>> ll(k_);
        Evaluation out = emptyEvaluation(*data_, theta, withGradient);
        for (int c = 0; c < k_; ++c) {
            Evaluation ev = backend(c).evaluate(thetas[c], options, false);
            ll[c] = std::move(ev.logLikelihood);
            if (!withGradient) out.stats.add(ev.stats);
        }
        std::vector<double> perFamily(k_);
        for (int f = 0; f < F; ++f) {
            for (int c = 0; c < k_; ++c)
                perFamily[c] = ll[c][f];
            out.logLikelihood[f] = meanOfLikelihoods(perFamily);
        }
        if (withGradient) {
            const std::vector<double> slopes = gammaCategoryRateSlopes(theta.speciationShape(), k_);
            double shape = 0;
            for (int c = 0; c < k_; ++c) {
                // d NLL_f / d NLL_{f,c} = L_{f,c} / (k L_f).
                std::vector<double> weights(F);
                for (int f = 0; f < F; ++f)
                    weights[f] = std::exp(ll[c][f] - out.logLikelihood[f]) / k_ *
                                 (familyWeights ? (*familyWeights)[f] : 1.0);
                const Evaluation ev = backend(c).evaluate(thetas[c], options, true, &weights);
                out.stats.add(ev.stats);
                double scaler = 0; // d NLL / d log2 s_c
                for (std::size_t i = 0; i < ev.gradient.size(); ++i) {
                    out.gradient[i] += ev.gradient[i];
                    if (theta.isRateEntry(static_cast<int>(i)) || theta.isHighwayEntry(static_cast<int>(i)))
                        scaler -= ev.gradient[i];
                }
                shape += scaler * slopes[c];
            }
            out.gradient[theta.shapeEntry()] = shape;
        }
        finishEvaluation(out, options, start);
        return out;
    }

    void clearWarmStarts() override {
        for (auto& b : backends_)
            b->clearWarmStarts();
    }

    void replan(const BatchLimits& limits) override {
        for (auto& b : backends_)
            b->replan(limits);
    }
    BatchLimits batchLimits() const override { return backends_.front()->batchLimits(); }

    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        for (auto& b : backends_)
            b->setSpeciesTree(data);
        data_ = std::move(data);
    }

    std::string planSummary() const override {
        return backends_.front()->planSummary() + "; " + std::to_string(k_) + " speciation categories" +
               (backends_.size() == 1 ? " in turn" : ", one backend each");
    }

    std::vector<FamilyTables> familyTables(const RateParameters& theta, const SolverOptions& options,
                                           const std::vector<int>& families) override {
        const std::vector<RateParameters> thetas = categories(theta);
        std::vector<FamilyTables> out(families.size());
        for (int c = 0; c < k_; ++c) {
            std::vector<FamilyTables> tables = backend(c).familyTables(thetas[c], options, families);
            for (std::size_t i = 0; i < families.size(); ++i)
                out[i].categories.push_back(std::move(tables[i]));
        }
        for (FamilyTables& t : out)
            for (const FamilyTables& c : t.categories)
                t.stats.add(c.stats);
        return out;
    }

    BackendDiagnostics* diagnostics() override { return backends_.front()->diagnostics(); }

    // Every category's sums are taken with the other shares' (each category in turn on every share).
    bool joinShares(std::shared_ptr<FamilyShareExchange> exchange) override {
        bool joined = true;
        for (auto& b : backends_)
            joined = b->joinShares(exchange) && joined;
        return joined;
    }

  private:
    LikelihoodBackend& backend(int category) { return *backends_[backends_.size() == 1 ? 0 : category]; }

    // θ of every category: the rates divided by its speciation weight, the shape dropped.
    std::vector<RateParameters> categories(const RateParameters& theta) const {
        if (theta.shapeEntry() < 0)
            throw std::invalid_argument(
                "speciation gamma categories need the shape α in the rate parameters");
        const std::vector<double> s = gammaCategoryRates(theta.speciationShape(), k_);
        std::vector<RateParameters> out;
        out.reserve(s.size());
        for (double scaler : s)
            out.push_back(theta.category(std::log2(scaler)));
        return out;
    }

    std::shared_ptr<const Dataset> data_;
    std::vector<std::unique_ptr<LikelihoodBackend>> backends_;
    int k_;
};

} // namespace

std::unique_ptr<LikelihoodBackend>
makeGammaMixtureBackend(std::shared_ptr<const Dataset> data,
                        std::vector<std::unique_ptr<LikelihoodBackend>> categoryBackends) {
    return std::make_unique<GammaMixtureBackend>(std::move(data), std::move(categoryBackends));
}

} // namespace gpurec
