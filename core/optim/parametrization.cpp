#include "optim/parametrization.hpp"

#include "optim/parameter_classes.hpp"

#include <cmath>
#include <stdexcept>

namespace gpurec {

Parametrization parseParametrization(const std::string& text, Origination origination) {
    Parametrization p;
    p.text = text;
    const bool optimize = origination == Origination::Optimize;
    if (text == "ORIGINATION-PER-SPECIES") {
        if (!optimize)
            throw std::invalid_argument("--model-parametrization ORIGINATION-PER-SPECIES can only be used "
                                        "with --origination OPTIMIZE");
        p.originPerNode = true;
        return p;
    }
    try {
        p.mode = parseRateMode(text);
    } catch (const std::invalid_argument&) {
        p.mode = RateMode::Classes;
        p.classFile = text;
    }
    if (p.mode == RateMode::Classes && p.classFile.empty())
        throw std::invalid_argument("--model-parametrization classes needs the class file's path");
    if (optimize && (p.mode == RateMode::Global || p.mode == RateMode::Genewise))
        throw std::invalid_argument(
            "--origination OPTIMIZE cannot be used with --model-parametrization GLOBAL "
            "or --model-parametrization PER-FAMILY");
    p.originPerNode = optimize && p.mode == RateMode::Specieswise;
    return p;
}

RateParameters makeParameters(const Parametrization& p, const Dataset& data, Rates initial, double alpha) {
    const int S = data.species.size(), F = static_cast<int>(data.families.size());
    const double originStart = 1.0 / S;
    RateParameters theta =
        p.mode == RateMode::Classes
            ? RateParameters(readParameterClasses(p.classFile, data.species, data.events.recModel,
                                                  data.origination == Origination::Optimize),
                             S, initial, originStart)
            : RateParameters(p.mode, S, F, initial);
    if (p.originPerNode) theta.addOriginationPerNode(originStart);
    addHighwayRates(theta, data, initial.t);
    addSpeciationShape(theta, data, alpha);
    return theta;
}

void addHighwayRates(RateParameters& theta, const Dataset& data, double transferRate) {
    if (data.highways.empty()) return;
    if (data.highwayRates.size() != data.highways.size())
        throw std::invalid_argument("the dataset's highways have no starting rates");
    std::vector<int> recipients(data.species.size(), 0); // |R(e)|: the pairs leaving e
    for (const Highway& h : data.highways)
        ++recipients[h.source];
    theta.addHighways(static_cast<int>(data.highways.size()), 1.0);
    for (std::size_t h = 0; h < data.highways.size(); ++h) {
        const double given = data.highwayRates[h];
        const double rate = given > 0 || !data.events.pairwiseTransfers
                                ? given
                                : transferRate / recipients[data.highways[h].source];
        theta.theta()[theta.highwayEntry(static_cast<int>(h))] = std::log2(rate);
    }
}

void addSpeciationShape(RateParameters& theta, const Dataset& data, double alpha) {
    if (data.speciationCategories < 2) return;
    if (theta.mode() == RateMode::Genewise)
        throw std::invalid_argument(
            "--speciation-gamma-categories cannot be used with --model-parametrization PER-FAMILY");
    theta.addSpeciationShape(alpha);
}

} // namespace gpurec
