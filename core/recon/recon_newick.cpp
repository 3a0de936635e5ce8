#include "recon/recon_newick.hpp"

#include "io/newick.hpp"

#include <charconv>
#include <functional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace gpurec {

namespace {

std::string shortest(double v) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

// Writes the tree without recursion; `label` gives each node's label.
std::string writeNewick(const Reconciliation& r, const std::function<std::string(const ReconNode&)>& label) {
    if (r.root < 0 || r.root >= static_cast<int>(r.nodes.size()))
        throw std::invalid_argument("reconciliation of family '" + r.family + "' has no root node");
    std::string out;
    std::vector<std::pair<int, int>> stack{{r.root, 0}}; // (node, children already written)
    while (!stack.empty()) {
        auto& [node, done] = stack.back();
        const ReconNode& n = r.nodes.at(node);
        if (done < static_cast<int>(n.children.size())) {
            out += done == 0 ? '(' : ',';
            int child = n.children[done++];
            stack.emplace_back(child, 0);
            continue;
        }
        if (!n.children.empty()) out += ')';
        out += label(n);
        if (n.parent >= 0) out += ":" + shortest(n.branchLength);
        stack.pop_back();
    }
    return out + ";";
}

std::string annotation(const ReconEvent& ev, const SpeciesTree& s) {
    switch (ev.type) {
    case EventType::Speciation:
    case EventType::SpeciationLoss:
        return "." + s.name(ev.species);
    case EventType::Duplication:
        return ".D@" + s.name(ev.species);
    case EventType::Transfer:
    case EventType::TransferLoss:
        return ".T@" + s.name(ev.species) + "->" + s.name(ev.recipient);
    case EventType::Leaf:
    case EventType::Loss:
        return "";
    }
    return "";
}

} // namespace

std::string toNewickEvents(const Reconciliation& r) {
    return writeNewick(r, [](const ReconNode& n) {
        if (n.events.empty()) return std::string();
        if (n.children.empty() && !n.name.empty()) return quoteNewickLabel(n.name);
        return std::string(eventName(n.events.back().type));
    });
}

std::string toAleNewick(const Reconciliation& r, const SpeciesTree& species) {
    return writeNewick(r, [&](const ReconNode& n) {
        if (n.children.empty()) return quoteNewickLabel(n.name); // AleRax prints no events on leaves
        std::string events;
        for (const ReconEvent& ev : n.events)
            events += annotation(ev, species);
        return quoteNewickLabel(events);
    });
}

} // namespace gpurec
