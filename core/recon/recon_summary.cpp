#include "recon/recon_summary.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpurec {

const std::array<const char*, kSpeciesColumnCount>& speciesColumnNames() {
    static const std::array<const char*, kSpeciesColumnCount> names = {
        "speciations", "duplications", "losses",     "transfers",   "presence",
        "origination", "copies",       "singletons", "transfers_to"};
    return names;
}

const std::array<const char*, 7>& eventCountNames() {
    static const std::array<const char*, 7> names = {"S", "SL", "D", "T", "TL", "L", "Leaf"};
    return names;
}

std::array<double, 7> eventCountArray(const EventCounts& c) {
    return {double(c.S), double(c.SL), double(c.D), double(c.T), double(c.TL), double(c.L), double(c.Leaf)};
}

std::vector<SpeciesCounts> speciesEventCounts(const Reconciliation& r, const SpeciesTree& species) {
    std::vector<SpeciesCounts> out(species.size(), SpeciesCounts{});
    auto check = [&](int e) {
        if (e < 0 || e >= species.size())
            throw std::invalid_argument("reconciliation of family '" + r.family +
                                        "' refers to species index " + std::to_string(e));
        return e;
    };
    auto isSpeciation = [](EventType t) {
        return t == EventType::Speciation || t == EventType::SpeciationLoss;
    };
    for (const ReconNode& node : r.nodes) {
        const std::vector<ReconEvent>& events = node.events;
        const ReconEvent* previous = nullptr;
        if (node.parent >= 0 && !r.nodes[node.parent].events.empty())
            previous = &r.nodes[node.parent].events.back();
        for (std::size_t i = 0; i < events.size(); ++i) {
            const ReconEvent& ev = events[i];
            SpeciesCounts& c = out[check(ev.species)];
            switch (ev.type) {
            case EventType::Speciation:
            case EventType::Leaf:
            case EventType::SpeciationLoss:
                c[kSpeciations] += 1;
                c[kPresence] = 1;
                c[kCopies] += 1;
                if (previous && isSpeciation(previous->type)) c[kSingletons] += 1;
                if (ev.type == EventType::SpeciationLoss && i + 1 < events.size() &&
                    !species.isLeaf(ev.species)) {
                    int kept = events[i + 1].species;
                    // On a pruned tree (--prune-species-tree) the lineage may continue at a deep
                    // descendant: the loss is on the full tree's other side.
                    int lost = species.isAncestorOrSelf(species.left(ev.species), kept)
                                   ? species.right(ev.species)
                                   : species.left(ev.species);
                    out[lost][kLosses] += 1;
                }
                break;
            case EventType::Duplication:
                c[kDuplications] += 1;
                break;
            case EventType::Transfer:
                c[kTransfers] += 1;
                out[check(ev.recipient)][kTransfersTo] += 1;
                break;
            case EventType::TransferLoss:
                c[kLosses] += 1;
                c[kTransfers] += 1;
                out[check(ev.recipient)][kTransfersTo] += 1;
                break;
            case EventType::Loss:
                break;
            }
            previous = &ev;
        }
    }
    if (r.originSpecies >= 0) out[check(r.originSpecies)][kOrigination] = 1;
    return out;
}

TransferCounts transferCounts(const Reconciliation& r) {
    TransferCounts out;
    for (const ReconNode& node : r.nodes)
        for (const ReconEvent& ev : node.events)
            if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss)
                out[{ev.species, ev.recipient}] += 1;
    return out;
}

std::vector<TransferFrequency> sortedTransfers(const TransferCounts& counts, const SpeciesTree& species) {
    std::vector<TransferFrequency> out;
    for (const auto& [pair, count] : counts)
        out.push_back({pair.first, pair.second, count});
    std::sort(out.begin(), out.end(), [&](const TransferFrequency& a, const TransferFrequency& b) {
        if (a.count != b.count) return a.count > b.count;
        if (a.source != b.source) return species.name(a.source) < species.name(b.source);
        return species.name(a.destination) < species.name(b.destination);
    });
    return out;
}

ReconciliationSummary summarize(const std::vector<Reconciliation>& samples, const SpeciesTree& species) {
    ReconciliationSummary s;
    s.samples = static_cast<int>(samples.size());
    s.species.assign(species.size(), SpeciesCounts{});
    s.origination.assign(species.size(), 0.0);
    if (samples.empty()) return s;
    // Sums of counts are exact; one division per value at the end.
    for (const Reconciliation& r : samples) {
        std::array<double, 7> counts = eventCountArray(countEvents(r));
        for (std::size_t k = 0; k < counts.size(); ++k)
            s.events[k] += counts[k];
        std::vector<SpeciesCounts> perSpecies = speciesEventCounts(r, species);
        for (int e = 0; e < species.size(); ++e)
            for (int k = 0; k < kSpeciesColumnCount; ++k)
                s.species[e][k] += perSpecies[e][k];
        for (const auto& [pair, count] : transferCounts(r))
            s.transfers[pair] += count;
        if (r.originSpecies >= 0) s.origination[r.originSpecies] += 1;
    }
    const double n = static_cast<double>(samples.size());
    for (double& v : s.events)
        v /= n;
    for (SpeciesCounts& c : s.species)
        for (double& v : c)
            v /= n;
    for (auto& [pair, count] : s.transfers)
        count /= n;
    for (double& v : s.origination)
        v /= n;
    return s;
}

void addFamily(ReconciliationSummary& total, const ReconciliationSummary& family) {
    if (total.species.empty()) {
        total.species.assign(family.species.size(), SpeciesCounts{});
        total.origination.assign(family.origination.size(), 0.0);
    }
    if (total.species.size() != family.species.size())
        throw std::invalid_argument("summaries over different species trees cannot be added");
    total.samples += 1;
    for (std::size_t k = 0; k < total.events.size(); ++k)
        total.events[k] += family.events[k];
    for (std::size_t e = 0; e < total.species.size(); ++e) {
        for (int k = 0; k < kSpeciesColumnCount; ++k)
            total.species[e][k] += family.species[e][k];
        total.origination[e] += family.origination[e];
    }
    for (const auto& [pair, count] : family.transfers)
        total.transfers[pair] += count;
}

} // namespace gpurec
