#pragma once
// A backend that hands every call to another: tests derive from it to watch or change one call
// (joinShares is not forwarded: such a backend sums its own share only, as the base class does).
#include "engine/backend.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpurec::test {

class ForwardingBackend : public LikelihoodBackend {
  public:
    explicit ForwardingBackend(std::unique_ptr<LikelihoodBackend> inner) : inner_(std::move(inner)) {}
    std::string name() const override { return inner_->name(); }
    Evaluation evaluate(const RateParameters& theta, const SolverOptions& options, bool withGradient,
                        const std::vector<double>* weights) override {
        return inner_->evaluate(theta, options, withGradient, weights);
    }
    void clearWarmStarts() override { inner_->clearWarmStarts(); }
    bool setNeededFamilies(const std::vector<char>& needed) override {
        return inner_->setNeededFamilies(needed);
    }
    void replan(const BatchLimits& limits) override { inner_->replan(limits); }
    BatchLimits batchLimits() const override { return inner_->batchLimits(); }
    void setSpeciesTree(std::shared_ptr<const Dataset> data) override {
        inner_->setSpeciesTree(std::move(data));
    }
    std::string planSummary() const override { return inner_->planSummary(); }
    std::vector<FamilyTables> familyTables(const RateParameters& theta, const SolverOptions& options,
                                           const std::vector<int>& families) override {
        return inner_->familyTables(theta, options, families);
    }

  private:
    std::unique_ptr<LikelihoodBackend> inner_;
};

} // namespace gpurec::test
