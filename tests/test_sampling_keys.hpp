#pragma once
// Order-independent text forms of reconciliations, shared by the sampling test suites.
#include "recon/reconciliation.hpp"

#include <charconv>
#include <string>
#include <utility>

namespace gpurec::test {

inline std::string eventKey(const ReconEvent& ev) {
    return std::string(eventName(ev.type)) + "@" + std::to_string(ev.species) +
           (ev.recipient >= 0 ? ">" + std::to_string(ev.recipient) : "");
}

// Names, events and children of the subtree of `node`, children in sorted order; with
// `lengths`, branch lengths too.
inline std::string canonicalKey(const Reconciliation& r, int node, bool lengths) {
    const ReconNode& n = r.nodes[node];
    std::string key = n.name + "[";
    for (const ReconEvent& ev : n.events)
        key += eventKey(ev) + ";";
    key += "]";
    if (lengths) {
        char buf[32];
        key += ":" + std::string(buf, std::to_chars(buf, buf + sizeof buf, n.branchLength).ptr);
    }
    if (n.children.empty()) return key;
    std::string a = canonicalKey(r, n.children[0], lengths), b = canonicalKey(r, n.children[1], lengths);
    if (b < a) std::swap(a, b);
    return key + "(" + a + "," + b + ")";
}

inline std::string canonicalKey(const Reconciliation& r, bool lengths = false) {
    return "O" + std::to_string(r.originSpecies) + canonicalKey(r, r.root, lengths);
}

} // namespace gpurec::test
