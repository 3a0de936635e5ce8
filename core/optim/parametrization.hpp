#pragma once
// AleRax's --model-parametrization with --origination: which free parameters a run fits. GLOBAL,
// PER-SPECIES and PER-FAMILY rates (gpurec's global, specieswise, genewise); ORIGINATION-PER-SPECIES:
// global rates with one origination weight per species node; or a class file
// (optim/parameter_classes.hpp). Under --origination OPTIMIZE every parametrisation but GLOBAL and
// PER-FAMILY has origination weights: per node, or per class of the file.
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"

#include <string>

namespace gpurec {

struct Parametrization {
    RateMode mode = RateMode::Global;
    bool originPerNode = false; // origination weights after the rates' rows
    std::string classFile;      // RateMode::Classes
    std::string text;           // as given on the command line
};

// Throws std::invalid_argument with AleRax's messages for the combinations it refuses (OPTIMIZE with
// GLOBAL or PER-FAMILY, ORIGINATION-PER-SPECIES without OPTIMIZE); any other text is a class file.
Parametrization parseParametrization(const std::string& text, Origination origination);

// The starting θ: rates `initial` on every row or class; origination weights, when the
// parametrisation has them, all 1/N (AleRax's start: the UNIFORM likelihood); the highways' rates
// (addHighwayRates); the speciation categories' shape `alpha` when the data has several
// (addSpeciationShape). Throws InputError for a bad class file.
RateParameters makeParameters(const Parametrization& p, const Dataset& data, Rates initial,
                              double alpha = 1.0);

// Appends the rates of the dataset's transfer highways to θ, at data.highwayRates (nothing without
// highways); under --pairwise-transfers a pair without a rate there starts at τ / |R(e)| with τ
// `transferRate` (the uniform model at τ).
void addHighwayRates(RateParameters& theta, const Dataset& data, double transferRate);

// Appends the shape α of data.speciationCategories > 1 categories to θ (nothing for one). Throws
// std::invalid_argument with AleRax's message for per-family rates, and for α out of its bounds.
void addSpeciationShape(RateParameters& theta, const Dataset& data, double alpha);

} // namespace gpurec
