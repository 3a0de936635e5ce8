#pragma once
// Teaching: the examples of a guided tour through a simulated dataset. For each kind of event
// (duplication, transfer, loss) the tour shows one in the true reconciliations the simulator wrote
// (truth/reconciliations.xml), taken from the family with the smallest true history that has one,
// so a class sees the event on its own rather than inside a tangle of others.
#include "recon/reconciliation.hpp"

#include <functional>
#include <string>
#include <vector>

namespace gpurec {

enum class TourTopic { Duplication, Transfer, Loss };
const char* tourTopicName(TourTopic topic); // "duplication", "transfer", "loss"

struct TourExample {
    TourTopic topic;
    int reconciliation = -1; // index into the truths
    int node = -1;           // the gene node whose branch carries the event
    int event = -1;          // index of the event in that node's events
    ReconEvent what;         // the event itself (species, and recipient of a transfer)
};

// One example per topic that some truth shows, in the order duplication, transfer, loss. A
// duplication is a D node; a transfer a T node, else a TL on a branch; a loss an SL on a branch
// (the copy in the other child species is lost), else a TL, else an explicit lost lineage. Only
// truths whose family `usable` accepts are considered (the families the dataset loaded); among
// them the one with the fewest gene nodes wins, the first in file order on ties.
std::vector<TourExample> chooseTourExamples(const std::vector<Reconciliation>& truths,
                                            const std::function<bool(const std::string& family)>& usable);

} // namespace gpurec
