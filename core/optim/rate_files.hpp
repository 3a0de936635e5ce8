#pragma once
// Rates in AleRax's layouts, under <prefix>/model_parameters/: model_parameters.txt ("node D L T"
// header, one row per species node) for the global and per-species modes, one <family>_rates.txt
// ("D L T" header, one row of values) per family for the per-family mode. UndatedDL has no T column
// ("node D L", "D L"). Under --origination OPTIMIZE model_parameters.txt has an O column: the
// origination weights normalised to sum to 1 over the species nodes, as AleRax writes them. The
// readers also take gpurec's older layout ("# node D L T" comment, per-family files as one row per
// species node), and for UndatedDL a file with T, which they ignore.
#include "data/dataset.hpp"
#include "model/rate_parameters.hpp"

#include <string>
#include <vector>

namespace gpurec {

std::string familyRatesPath(const std::string& folder, const std::string& family);

// The rates of every species node for `family` (all families share them unless θ is per family),
// with θ's origination weights as an O column, 17 digits.
void writeModelParameters(const std::string& path, const SpeciesTree& species, const RateParameters& theta,
                          int family = 0, RecModel model = RecModel::UndatedDTL);

// A model_parameters.txt as read: per species node its rates, and its origination weight when the
// file has an O column (else `origin` is empty).
struct NodeParameters {
    std::vector<Rates> rates;
    std::vector<double> origin;
    int originLine = 0, originColumn = 0; // where the header names the O column
};
// Throws InputError naming file, line and column for a bad header, row, name or value, and for a
// missing species node. Under UndatedDL the rates' T is left at Rates{}'s (the model never reads it).
NodeParameters readNodeParameters(const std::string& path, const SpeciesTree& species,
                                  RecModel model = RecModel::UndatedDTL);
// The file as a specieswise parameter set, or a global one when every row's rates agree, with
// origination weights per node when it has an O column.
RateParameters readModelParameters(const std::string& path, const SpeciesTree& species, int familyCount,
                                   RecModel model = RecModel::UndatedDTL);
// Sets every entry of θ (any parametrisation but genewise) from per-node values: the rates of the
// nodes that read it, and its origination weight. Throws std::invalid_argument when the nodes
// sharing an entry have different values, and InputError (at the O column) when the file has
// origination weights but θ none; a θ with weights and a file without keeps equal weights.
void setFromNodeParameters(RateParameters& theta, const NodeParameters& file, const SpeciesTree& species,
                           const std::string& path, PresentRates present);

void writeFamilyRates(const std::string& path, Rates rates, RecModel model = RecModel::UndatedDTL);
// One family's rates: AleRax's two-line file, or the older per-node layout with equal rows.
Rates readFamilyRates(const std::string& path, const SpeciesTree& species,
                      RecModel model = RecModel::UndatedDTL);

// Writes the files of θ's mode into `folder` (created if needed), and with transfer highways their
// rates as highways.txt (`src, dest, proba`); returns their paths.
std::vector<std::string> writeRateFiles(const std::string& folder, const Dataset& data,
                                        const RateParameters& theta);

// Per-family θ from <folder>/<family>_rates.txt of every family. Throws InputError naming the
// file on a missing file, a bad line, or rates that differ between species nodes.
RateParameters readFamilyRateFiles(const std::string& folder, const Dataset& data);

} // namespace gpurec
