#include "support.hpp"

#include "io/text_file.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

namespace gpurec::test {

std::string pathOr(const char* variable, const char* builtIn) {
    const char* moved = std::getenv(variable);
    return moved && *moved ? moved : builtIn;
}

std::string sharedData(const std::string& relative) {
    return pathOr("GPUREC_TEST_SHARED_DATA", GPUREC_SHARED_DATA) + "/" + relative;
}
std::string referenceCladeName(const CladeSet& cs, int clade) {
    std::string name;
    for (int g : genesOf(cs, clade))
        name += (name.empty() ? "" : "+") + cs.geneNames[g];
    return name;
}
std::string sourcePath(const std::string& relative) {
    return pathOr("GPUREC_TEST_SOURCE_DIR", GPUREC_SOURCE_DIR) + "/" + relative;
}

nlohmann::json readJson(const std::string& path) {
    return nlohmann::json::parse(readTextFile(path));
}

LoadedInput loadShared(const std::string& folder, const std::string& speciesFile, int minCoveredSpecies,
                       GeneTreeRooting rooting) {
    InputPaths paths;
    paths.speciesTree = sharedData(folder + "/" + speciesFile);
    paths.familiesFile = sharedData(folder + "/families.txt");
    LoadOptions options;
    options.minCoveredSpecies = minCoveredSpecies;
    options.rooting = rooting;
    return loadInput(paths, TransferConstraint::Parents, options);
}

double relativeError(double a, double b) {
    return b == 0 ? std::abs(a) : std::abs(a - b) / std::abs(b);
}

std::string temporaryFolder(const std::string& tag) {
    static std::mt19937_64 rng(std::random_device{}());
    auto dir = std::filesystem::temp_directory_path() / ("gpurec_" + tag + "_" + std::to_string(rng()));
    std::filesystem::create_directories(dir);
    static std::vector<std::filesystem::path> created;
    if (created.empty())
        std::atexit([] {
            for (auto& d : created)
                std::filesystem::remove_all(d);
        });
    created.push_back(dir);
    return dir.string();
}

std::string fileText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string& path, const std::string& text) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path) << text;
}

int addNode(Reconciliation& r, int parent, std::vector<ReconEvent> events, std::string name) {
    const int index = int(r.nodes.size());
    ReconNode n;
    n.parent = parent;
    n.events = std::move(events);
    n.name = std::move(name);
    r.nodes.push_back(n);
    if (parent >= 0)
        r.nodes[parent].children.push_back(index);
    else
        r.root = index;
    return index;
}

TableSource cpuTables(std::shared_ptr<const Dataset> data, const RateParameters& theta,
                      const SamplingSettings& settings) {
    std::shared_ptr<LikelihoodBackend> backend = makeCpuBackend(std::move(data));
    return [backend, theta, options = settings.solver](const std::vector<int>& families) {
        return backend->familyTables(theta, options, families);
    };
}

} // namespace gpurec::test
