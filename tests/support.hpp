#pragma once
// Helpers shared by the test suites: paths to ../shared/data and loading of reference datasets.
#include "data/load.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace gpurec::test {

std::string sharedData(const std::string& relative); // ../shared/data/<relative>
std::string sourcePath(const std::string& relative); // <repo>/<relative>
nlohmann::json readJson(const std::string& path);
// Loads <folder>/species tree + families.txt of a shared dataset.
LoadedInput loadShared(const std::string& folder, const std::string& speciesFile, int minCoveredSpecies = 4,
                       GeneTreeRooting rooting = GeneTreeRooting::Unrooted);
// |a − b| / |b| (or |a − b| when b is 0)
double relativeError(double a, double b);
// A fresh temporary folder removed at process exit.
std::string temporaryFolder(const std::string& tag);
void writeFile(const std::string& path, const std::string& text);

} // namespace gpurec::test
