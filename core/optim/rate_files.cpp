#include "optim/rate_files.hpp"

#include "io/input_error.hpp"
#include "io/output_folder.hpp"
#include "io/result_writer.hpp"

namespace gpurec {

std::string familyRatesPath(const std::string& folder, const std::string& family) {
    return folder + "/" + fileStem(family) + "_rates.txt";
}

std::vector<std::string> writeRateFiles(const std::string& folder, const Dataset& data,
                                        const RateParameters& theta) {
    ensureDirectory(folder);
    std::vector<std::string> written;
    if (theta.mode() != RateMode::Genewise) {
        written.push_back(folder + "/model_parameters.txt");
        writeModelParameters(written.back(), data.species, theta);
        return written;
    }
    for (int f = 0; f < static_cast<int>(data.families.size()); ++f) {
        written.push_back(familyRatesPath(folder, data.families[f].name));
        writeModelParameters(written.back(), data.species, theta, f);
    }
    return written;
}

RateParameters readFamilyRateFiles(const std::string& folder, const Dataset& data) {
    const int F = static_cast<int>(data.families.size());
    RateParameters theta(RateMode::Genewise, data.species.size(), F, Rates{});
    for (int f = 0; f < F; ++f) {
        const std::string path = familyRatesPath(folder, data.families[f].name);
        RateParameters one = readModelParameters(path, data.species, 1);
        if (one.mode() != RateMode::Global)
            throw InputError(path, 0, 0, "per-family rates must be the same on every species node");
        theta.setRates(f, one.rates(0));
    }
    return theta;
}

} // namespace gpurec
