#pragma once
// One gene family drawn from a DTL process on a species tree, kept whole (dead lineages included)
// and then reduced to what is observed: the genes at the species leaves, their rooted gene tree and
// the true reconciliation in AleRax's conventions.
//
// Undated process (the model the engine scores, spec 4-5, read as a generative process): a lineage
// "at" species node e speciates with p^S_e (one copy at each child of e; at a leaf the gene is
// observed), duplicates with p^D_e (two copies at e), transfers with p^T_e (one copy stays at e,
// the other goes to a recipient drawn uniformly from R(e); both continue at their node), or is
// lost with p^L_e. Each new copy starts afresh at its node. The family starts at a species node
// drawn uniformly over all nodes.
//
// Dated process (for realism, not the engine's model): lineages run along the branches of the
// species tree in time, with duplications, transfers and losses at rates per time unit of the
// branch; speciation happens at the species nodes; a transfer goes to a branch drawn uniformly
// among the other branches alive at that moment. The family starts at a point drawn uniformly
// over the total branch length (the root's own branch included).
#include "io/newick.hpp"
#include "model/rate_parameters.hpp"
#include "recon/reconciliation.hpp"
#include "sim/random_source.hpp"
#include "tree/species_tree.hpp"

#include <string>
#include <vector>

namespace gpurec {

enum class SimProcess { Undated, Dated };
SimProcess parseSimProcess(const std::string& text); // "undated" | "dated"
std::string toString(SimProcess process);

// Every event of the complete process, lost lineages included.
struct ProcessCounts {
    long speciations = 0, duplications = 0, transfers = 0, losses = 0, observedGenes = 0;
};

struct SimulatedFamily {
    // Observed genes only: SL and TL on branches, DL and a transfer whose transferred copy died
    // are not recorded (AleRax's conventions, spec 8). Gene leaves are named <species>_<n>.
    Reconciliation truth;
    NewickTree geneTree; // the observed rooted gene tree (branch lengths with the dated process)
    ProcessCounts process;
    int coveredSpecies = 0;
    int attempts = 0; // origins drawn until this family survived
};

struct FamilySimulationLimits {
    int minCoveredSpecies = 1; // families covering fewer species are discarded and drawn again
    long maxGenes = 0;       // families with more observed genes are discarded and drawn again (0: no limit)
    int maxAttempts = 10000; // draws per family at most
    long maxLineages = 2000000; // gene lineages per draw at most (a supercritical process stops here)
};

class FamilySimulator {
  public:
    // `rates` are per species node (events per lineage for the undated process, per time unit
    // for the dated one).
    FamilySimulator(const SpeciesTree& species, TransferConstraint constraint, SimProcess process,
                    FamilySimulationLimits limits);

    // Draws until a family covering at least limits.minCoveredSpecies species (and with at most
    // limits.maxGenes genes) survives.
    // Throws std::runtime_error naming the family after limits.maxAttempts draws, or when a draw
    // exceeds limits.maxLineages.
    SimulatedFamily simulate(const std::string& family, const std::vector<Rates>& rates,
                             RandomSource& rng) const;
    // Transfer highways (model/highways.hpp) with their rates, undated process only: a lineage at a
    // highway's source takes it with probability ρ_h over the source's normaliser, sending one copy
    // to the destination.
    void setHighways(std::vector<Highway> highways, std::vector<double> rates);

  private:
    struct ProcessNode;
    const SpeciesTree& species_;
    TransferConstraint constraint_;
    SimProcess process_;
    FamilySimulationLimits limits_;
    std::vector<double> start_, end_; // dated: time interval of each species branch
    std::vector<Highway> highways_;
    std::vector<double> highwayRates_;

    int drawRecipient(int e, RandomSource& rng) const;
    int drawContemporary(int e, double time, RandomSource& rng) const;
    // One draw into `nodes`; false when it was stopped past the lineage limit with more genes than
    // the gene cap (a draw the cap discards); throws when it passes the limit otherwise.
    bool runUndated(int origin, const EventProbabilities& p, RandomSource& rng,
                    std::vector<ProcessNode>& nodes, const std::string& family) const;
    bool runDated(const std::vector<Rates>& rates, RandomSource& rng, std::vector<ProcessNode>& nodes,
                  double& originTime, const std::string& family) const;
    bool withinLineages(const std::vector<ProcessNode>& nodes, long genes, const std::string& family) const;
    SimulatedFamily observe(const std::vector<ProcessNode>& nodes, double originTime,
                            const std::string& family) const;
};

} // namespace gpurec
