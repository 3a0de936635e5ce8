#include "recon/alerax_tables.hpp"

#include "io/newick.hpp"
#include "recon/recon_tables.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace gpurec {

namespace {

// Deterministic id of every species node.
std::vector<int> deterministicIds(const SpeciesTree& species) {
    std::vector<int> id(species.size());
    const std::vector<int> order = deterministicSpeciesOrder(species);
    for (int i = 0; i < static_cast<int>(order.size()); ++i)
        id[order[i]] = i;
    return id;
}

// Labels as Newick writes them: unchanged unless they hold blanks or reserved characters.
std::string label(const SpeciesTree& species, int e) {
    return quoteNewickLabel(species.name(e));
}

} // namespace

std::vector<int> deterministicSpeciesOrder(const SpeciesTree& species) {
    std::vector<int> order(species.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return species.name(a) < species.name(b); });
    return order;
}

std::string aleraxEventCounts(const Reconciliation& r) {
    const EventCounts c = countEvents(r);
    const std::pair<const char*, long> rows[] = {{"S", c.S}, {"SL", c.SL}, {"D", c.D}, {"DL", 0},
                                                 {"T", c.T}, {"TL", c.TL}, {"L", 0},   {"Leaf", c.Leaf}};
    std::string out;
    for (const auto& [name, count] : rows)
        out += std::string(name) + ":" + std::to_string(count) + "\n";
    return out;
}

std::string aleraxSpeciesEventCounts(const std::vector<SpeciesCounts>& counts, const SpeciesTree& species) {
    std::string out = "species_label";
    for (const char* name : speciesColumnNames())
        out += std::string(", ") + name;
    out += "\n";
    for (int e : deterministicSpeciesOrder(species)) {
        const SpeciesCounts& c = counts.at(e);
        if (std::all_of(c.begin(), c.end(), [](double v) { return v == 0.0; })) continue;
        out += label(species, e);
        for (double v : c)
            out += ", " + formatCount(v);
        out += "\n";
    }
    return out;
}

std::string aleraxTransferEvents(const Reconciliation& r, const SpeciesTree& species) {
    std::string out;
    if (r.root < 0) return out;
    std::vector<int> stack{r.root};
    while (!stack.empty()) {
        const ReconNode& node = r.nodes.at(stack.back());
        stack.pop_back();
        for (const ReconEvent& ev : node.events)
            if (ev.type == EventType::Transfer || ev.type == EventType::TransferLoss)
                out += label(species, ev.species) + " " + label(species, ev.recipient) + " 1\n";
        for (auto child = node.children.rbegin(); child != node.children.rend(); ++child)
            stack.push_back(*child);
    }
    return out;
}

std::string aleraxTransferTable(const TransferCounts& transfers, const SpeciesTree& species) {
    const std::vector<int> id = deterministicIds(species);
    std::vector<std::tuple<double, int, int>> rows; // (value, source id, destination id)
    for (const auto& [pair, value] : transfers)
        if (value != 0.0) rows.emplace_back(value, id.at(pair.first), id.at(pair.second));
    std::sort(rows.rbegin(), rows.rend());
    const std::vector<int> order = deterministicSpeciesOrder(species);
    std::string out;
    for (const auto& [value, source, destination] : rows)
        out += label(species, order[source]) + " " + label(species, order[destination]) + " " +
               formatCount(value) + "\n";
    return out;
}

std::string aleraxOrigins(const ReconciliationSummary& summary, const SpeciesTree& species, int e) {
    const int parent = species.parent(e);
    const double vertical = parent >= 0 ? summary.species.at(parent)[kSpeciations] : 0.0;
    std::string out = "vertical: " + formatCount(vertical) + "\n";
    const std::vector<int> id = deterministicIds(species);
    std::vector<std::pair<double, int>> received; // (value, source id)
    for (const auto& [pair, value] : summary.transfers)
        if (pair.second == e && value != 0.0) received.emplace_back(value, id[pair.first]);
    std::sort(received.rbegin(), received.rend());
    const std::vector<int> order = deterministicSpeciesOrder(species);
    for (const auto& [value, source] : received)
        out += label(species, order[source]) + ", " + formatCount(value) + "\n";
    return out;
}

} // namespace gpurec
