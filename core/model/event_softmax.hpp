#pragma once
// The rate → event probability map (spec 3.1), written once for the CPU engine and the CUDA
// kernels: p = base-2 softmax of [0, θD, θL, θT], with the θ row chosen by the rate mode.
#include "model/host_device.hpp"

#include <cmath>

namespace gpurec {

// Classes: AleRax's custom parametrisation file, each species node reading its classes' entries
// (RateParameters::entry); rateRow serves the other three.
enum class RateMode { Global, Specieswise, Genewise, Classes };

// Row of θ (rows of 3 log2 rates) that (family, species node) reads in `mode`.
GPUREC_HD inline int rateRow(RateMode mode, int family, int species) {
    return mode == RateMode::Global ? 0 : mode == RateMode::Specieswise ? species : family;
}

struct EventProbabilityRow {
    double pS, pD, pL, pT;
};

// The rates a model has (model/event_model.hpp): an absent one is 0 whatever its θ column holds.
struct PresentRates {
    bool duplication = true, transfer = true;
};

// Probabilities of speciation, duplication, loss and transfer from one row of log2 rates; `extra`
// (the rates of the node's transfer highways, model/highways.hpp) joins the normaliser.
GPUREC_HD inline EventProbabilityRow eventProbabilities(const double* logRates, PresentRates present,
                                                        double extra = 0.0) {
    const double d = present.duplication ? exp2(logRates[0]) : 0.0, l = exp2(logRates[1]),
                 t = present.transfer ? exp2(logRates[2]) : 0.0;
    const double z = 1.0 + d + l + t + extra;
    return {1.0 / z, d / z, l / z, t / z};
}

} // namespace gpurec
