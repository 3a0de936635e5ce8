#pragma once
// The model of --speciation-gamma-categories k (spec 3.1, 6.2): a family's likelihood is the mean
// of its likelihoods under k categories, L = (1/k) Σ_c L_c, category c being the model of one
// category at the rates divided by its speciation weight s_c (model/gamma_categories.hpp), each
// with its own conditioning on survival. The shape α of the categories' Gamma distribution is θ's
// last entry. Backends of one category evaluate the categories: one each (their warm starts stay
// with their category) or one for all (a GPU's memory). The gradient weights family f's terms of
// category c by L_c / Σ_c L_c; the shape's derivative follows from each category's rate gradient,
// since d NLL / d log2 s_c = −Σ over its rate entries of d NLL / dθ, through d log2 s_c / d log2 α.
#include "engine/backend.hpp"

#include <memory>
#include <vector>

namespace gpurec {

// `categoryBackends`: one per category of data->speciationCategories, or one for all; every one a
// backend of one category on `data`.
std::unique_ptr<LikelihoodBackend>
makeGammaMixtureBackend(std::shared_ptr<const Dataset> data,
                        std::vector<std::unique_ptr<LikelihoodBackend>> categoryBackends);

// ln((1/k) Σ_c e^{ll_c}), without overflow.
double meanOfLikelihoods(const std::vector<double>& categoryLogLikelihoods);

} // namespace gpurec
