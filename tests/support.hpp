#pragma once
// Helpers shared by the test suites: paths to ../shared/data, loading of reference datasets, files,
// hand-built reconciliations.
#include "data/load.hpp"
#include "recon/reconciliation.hpp"
#include "recon/sampling_run.hpp"

#include <nlohmann/json.hpp>
#include <string>

namespace gpurec::test {

// The suites built here also run on the GPU machine, where the tree lies elsewhere: a path built in,
// unless the environment variable names another (GPUREC_TEST_SOURCE_DIR, ..._SHARED_DATA, ...).
std::string pathOr(const char* variable, const char* builtIn);
std::string sharedData(const std::string& relative); // ../shared/data/<relative>
std::string sourcePath(const std::string& relative); // <repo>/<relative>
nlohmann::json readJson(const std::string& path);
// A clade as reference.json names it: its gene labels joined by '+'.
std::string referenceCladeName(const CladeSet& cs, int clade);
// Loads <folder>/species tree + families.txt of a shared dataset.
LoadedInput loadShared(const std::string& folder, const std::string& speciesFile, int minCoveredSpecies = 4,
                       GeneTreeRooting rooting = GeneTreeRooting::Unrooted);
// |a − b| / |b| (or |a − b| when b is 0)
double relativeError(double a, double b);
// A fresh temporary folder removed at process exit.
std::string temporaryFolder(const std::string& tag);
void writeFile(const std::string& path, const std::string& text);
std::string fileText(const std::string& path); // the whole file, "" when it cannot be read
// Appends a node with the given events under `parent` (−1: the root) of a hand-built
// reconciliation; nodes are added in preorder. Returns its index.
int addNode(Reconciliation& r, int parent, std::vector<ReconEvent> events, std::string name = {});
// The CPU backend's tables of `data` at θ with settings.solver, for sampleFamilies.
TableSource cpuTables(std::shared_ptr<const Dataset> data, const RateParameters& theta,
                      const SamplingSettings& settings);

} // namespace gpurec::test
