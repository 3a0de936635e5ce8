#pragma once
// A whole simulated dataset: species tree, gene families, gene-tree samples and the truth, written
// to a folder that the loader reads as is (see docs/simulator.md for the layout).
#include "sim/family_simulation.hpp"
#include "sim/species_tree_simulation.hpp"
#include "sim/tree_perturbation.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpurec {

struct SimulationOptions {
    // Species tree: a Newick file, or a birth-death tree when the path is empty.
    std::string speciesTreePath;
    BirthDeathOptions birthDeath;

    int families = 100;
    std::string familyPrefix = "family";
    SimProcess process = SimProcess::Undated;
    TransferConstraint transferConstraint = TransferConstraint::Parents;
    Rates rates{0.1, 0.1, 0.1};     // global D, L, T
    std::string speciesRatesFile;   // per species node rates (AleRax model_parameters.txt), replaces `rates`
    std::string highwaysFile;       // transfer highways, `src, dest, proba` (undated process)
    double speciesRateSpread = 1.0; // each species node's rates times log-uniform factors in [1/s, s]
    double familyRateSpread = 1.0;  // each family's rates times log-uniform factors in [1/s, s]
    FamilySimulationLimits limits;

    // Gene-tree files: the true tree, or `treeSamples` perturbed copies of it for a share
    // `sampledFraction` of the families.
    int treeSamples = 1;
    double sampledFraction = 1.0;
    PerturbationOptions perturbation;

    bool mappingFiles = false; // also write Treerecs mapping files and name them in families.txt
    bool compactXml = false;   // truth RecPhyloXML without indentation (large datasets)
    std::uint64_t seed = 1;
    int threads = 0; // 0: all cores; the output does not depend on it

    // Throws std::invalid_argument naming the parameter, its value and the valid range.
    void validate() const;
};

// Named parameter sets; "hogenom-like" is the genome-scale benchmark. Throws std::invalid_argument
// for an unknown name (listing the known ones).
SimulationOptions presetOptions(const std::string& name);
std::vector<std::string> presetNames();

struct SimulationSummary {
    int speciesNodes = 0;
    int families = 0;
    long long genes = 0;
    long long geneTrees = 0; // lines written to gene-tree files
    long long attempts = 0;  // draws, discarded ones included
    ProcessCounts process;   // summed over families
    EventCounts events;      // of the true reconciliations, summed
    std::string familiesFile;
    std::string speciesTreeFile;
};

// Simulates and writes `outdir` (created if needed). Deterministic for a given seed and options.
// Throws std::invalid_argument for bad options, InputError for unreadable input files and
// std::runtime_error when a family cannot be made or a file cannot be written.
// A failed run removes what it wrote; families.txt is written last, so a killed run leaves none.
SimulationSummary runSimulation(const SimulationOptions& options, const std::string& outdir);
// The files and folders runSimulation writes in `outdir`.
const std::vector<std::string>& simulationOutputEntries();
// The true reconciliations of the dataset simulated into `outdir` (RecPhyloXML).
std::string truthReconciliationsPath(const std::string& outdir);

} // namespace gpurec
