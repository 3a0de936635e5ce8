#pragma once
// A reconciled gene tree: gene nodes placed on species nodes with the events that explain them.
// Made by the sampler (stochastic backtracking) and by the simulator (the truth), read back from
// RecPhyloXML, drawn by the workbench.
#include <string>
#include <vector>

namespace gpurec {

enum class EventType {
    Leaf,           // an observed gene at a species leaf
    Speciation,     // S: both children continue, one in each child species
    SpeciationLoss, // SL: one child species' copy is lost; the lineage continues in the other
    Duplication,    // D: both children in the same species
    Transfer,       // T: one child stays, the other goes to `recipient`
    TransferLoss,   // TL: the lineage leaves for `recipient`, the copy that stayed is lost
    Loss            // an explicit lost lineage (child of SL in RecPhyloXML)
};
const char* eventName(EventType e); // "S", "SL", "D", "T", "TL", "L", "Leaf"

// One event on a gene lineage, in order from the top of the branch down to the node.
struct ReconEvent {
    EventType type;
    int species;        // species node where the event happens
    int recipient = -1; // for T and TL
    bool operator==(const ReconEvent&) const = default;
};

// Layout of a branch: the lineage enters at the species of its first event (the origination
// species for the root, the parent's species, or the recipient of the parent's transfer), then
// passes SL events (it continues in the child species of the next event; the other child's copy
// is lost) and TL events (it leaves for `recipient`; the copy that stayed is lost) and ends with
// the node's own event. Transfer nodes keep the staying child first when they are made by the
// sampler; readers tell the two apart by the species their first events happen in.
struct ReconNode {
    std::string name; // gene label for leaves
    int parent = -1;
    std::vector<int> children; // 0 or 2 (0 also for losses)
    // Events along the branch above this node, ending with the node's own event (Leaf, S, D, T or Loss).
    std::vector<ReconEvent> events;
    double branchLength = 0.0; // the root's two children share one unrooted edge: half of it each
    int clade = -1;            // clade index in the family's CladeSet when known
    bool operator==(const ReconNode&) const = default;
};

struct Reconciliation {
    std::string family;
    std::vector<ReconNode> nodes;
    int root = -1;
    int originSpecies = -1;
    bool operator==(const Reconciliation&) const = default;
};

// Counts of each event type over a reconciliation (Loss counts SL and TL losses).
struct EventCounts {
    long S = 0, SL = 0, D = 0, T = 0, TL = 0, L = 0, Leaf = 0;
};
EventCounts countEvents(const Reconciliation& r);

} // namespace gpurec
