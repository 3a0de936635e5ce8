#include "teaching/guided_tour.hpp"

#include <optional>

namespace gpurec {

const char* tourTopicName(TourTopic topic) {
    switch (topic) {
    case TourTopic::Duplication:
        return "duplication";
    case TourTopic::Transfer:
        return "transfer";
    case TourTopic::Loss:
        return "loss";
    }
    return "?";
}

namespace {
// The event types that show a topic, the clearest first.
std::vector<EventType> showing(TourTopic topic) {
    switch (topic) {
    case TourTopic::Duplication:
        return {EventType::Duplication};
    case TourTopic::Transfer:
        return {EventType::Transfer, EventType::TransferLoss};
    case TourTopic::Loss:
        return {EventType::SpeciationLoss, EventType::TransferLoss, EventType::Loss};
    }
    return {};
}

// The first event of `type` in preorder, if any.
std::optional<TourExample> firstOf(const Reconciliation& r, int index, TourTopic topic, EventType type) {
    for (int n = 0; n < static_cast<int>(r.nodes.size()); ++n) {
        const std::vector<ReconEvent>& events = r.nodes[n].events;
        for (int i = 0; i < static_cast<int>(events.size()); ++i)
            if (events[i].type == type) return TourExample{topic, index, n, i, events[i]};
    }
    return std::nullopt;
}
} // namespace

std::vector<TourExample> chooseTourExamples(const std::vector<Reconciliation>& truths,
                                            const std::function<bool(const std::string& family)>& usable) {
    std::vector<TourExample> examples;
    for (TourTopic topic : {TourTopic::Duplication, TourTopic::Transfer, TourTopic::Loss}) {
        std::optional<TourExample> best;
        int bestRank = 0;
        std::size_t bestSize = 0;
        for (int t = 0; t < static_cast<int>(truths.size()); ++t) {
            if (!usable(truths[t].family)) continue;
            const std::vector<EventType> types = showing(topic);
            for (int rank = 0; rank < static_cast<int>(types.size()); ++rank) {
                std::optional<TourExample> found = firstOf(truths[t], t, topic, types[rank]);
                if (!found) continue;
                const std::size_t size = truths[t].nodes.size();
                if (!best || rank < bestRank || (rank == bestRank && size < bestSize)) {
                    best = found;
                    bestRank = rank;
                    bestSize = size;
                }
                break;
            }
        }
        if (best) examples.push_back(*best);
    }
    return examples;
}

} // namespace gpurec
