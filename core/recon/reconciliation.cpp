#include "recon/reconciliation.hpp"

namespace gpurec {

const char* eventName(EventType e) {
    switch (e) {
    case EventType::Leaf:
        return "Leaf";
    case EventType::Speciation:
        return "S";
    case EventType::SpeciationLoss:
        return "SL";
    case EventType::Duplication:
        return "D";
    case EventType::Transfer:
        return "T";
    case EventType::TransferLoss:
        return "TL";
    case EventType::Loss:
        return "L";
    }
    return "?";
}

EventCounts countEvents(const Reconciliation& r) {
    EventCounts c;
    for (const ReconNode& n : r.nodes)
        for (const ReconEvent& e : n.events) {
            switch (e.type) {
            case EventType::Leaf:
                ++c.Leaf;
                break;
            case EventType::Speciation:
                ++c.S;
                break;
            case EventType::SpeciationLoss:
                ++c.SL;
                ++c.L;
                break;
            case EventType::Duplication:
                ++c.D;
                break;
            case EventType::Transfer:
                ++c.T;
                break;
            case EventType::TransferLoss:
                ++c.TL;
                ++c.L;
                break;
            case EventType::Loss:
                break;
            }
        }
    return c;
}

} // namespace gpurec
