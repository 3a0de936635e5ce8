#include "sim/family_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace gpurec {

SimProcess parseSimProcess(const std::string& text) {
    if (text == "undated") return SimProcess::Undated;
    if (text == "dated") return SimProcess::Dated;
    throw std::invalid_argument("unknown simulation process '" + text + "' (expected undated or dated)");
}

std::string toString(SimProcess process) {
    return process == SimProcess::Undated ? "undated" : "dated";
}

// A gene lineage of the complete process and what became of it. Children are created after
// their parent (larger index). Transfer: child[0] stays, child[1] is the transferred copy.
// Speciation: child[0] in the left species child, child[1] in the right one.
struct FamilySimulator::ProcessNode {
    int species = -1;
    EventType kind = EventType::Loss;
    int child[2] = {-1, -1};
    int recipient = -1;
    double time = 0.0; // dated: when the lineage starts, then when its event happens

    // Gives node x two new children starting at `time` in species first and second, queued so that
    // the first is drawn next (depth first, left to right).
    static void branch(std::vector<ProcessNode>& nodes, std::vector<int>& pending, int x, int first,
                       int second, double time) {
        for (int k = 0; k < 2; ++k) {
            nodes[x].child[k] = int(nodes.size());
            ProcessNode child;
            child.species = k == 0 ? first : second;
            child.time = time;
            nodes.push_back(child);
        }
        pending.push_back(nodes[x].child[1]);
        pending.push_back(nodes[x].child[0]);
    }
};

FamilySimulator::FamilySimulator(const SpeciesTree& species, TransferConstraint constraint,
                                 SimProcess process, FamilySimulationLimits limits)
    : species_(species), constraint_(constraint), process_(process), limits_(limits) {
    if (constraint == TransferConstraint::RelDated) species.requireDating();
    const int n = species.size();
    start_.assign(n, 0.0);
    end_.assign(n, 0.0);
    for (int e = n - 1; e >= 0; --e) { // parents have larger postorder indices
        start_[e] = e == species.root() ? 0.0 : end_[species.parent(e)];
        end_[e] = start_[e] + species.branchLength(e);
    }
}

void FamilySimulator::setHighways(std::vector<Highway> highways, std::vector<double> rates) {
    if (process_ != SimProcess::Undated && !highways.empty())
        throw std::invalid_argument("transfer highways are simulated by the undated process only");
    if (rates.size() != highways.size()) throw std::invalid_argument("one rate per highway expected");
    highways_ = std::move(highways);
    highwayRates_ = std::move(rates);
}

int FamilySimulator::drawRecipient(int e, RandomSource& rng) const {
    int count = species_.recipientCount(e, constraint_);
    if (count <= 0)
        throw std::invalid_argument("a transfer from species " + species_.name(e) +
                                    " has no allowed recipient");
    int h = int(rng.below(std::uint64_t(count)));
    switch (constraint_) {
    case TransferConstraint::None:
        return h < e ? h : h + 1;
    case TransferConstraint::RelDated: {
        // The h-th node in rank order from the first allowed rank on, e skipped.
        const int r = species_.size() - count - 1 + h; // the first allowed rank is size − 1 − count
        return species_.nodeAtRank(r < species_.rank(e) ? r : r + 1);
    }
    case TransferConstraint::Parents:
        break;
    }
    // The h-th node that is not an ancestor of e (nor e): skip the excluded indices in ascending
    // order; walking up from e visits them in ascending postorder.
    for (int a = e; a >= 0 && a <= h; a = species_.parent(a))
        ++h;
    return h;
}

int FamilySimulator::drawContemporary(int e, double time, RandomSource& rng) const {
    std::vector<int> alive;
    for (int h = 0; h < species_.size(); ++h)
        if (h != e && start_[h] <= time && time < end_[h]) alive.push_back(h);
    return alive.empty() ? -1 : alive[rng.below(alive.size())];
}

namespace {
[[noreturn]] void tooManyLineages(const std::string& family, long limit) {
    throw std::runtime_error("family " + family + ": a draw made more than " + std::to_string(limit) +
                             " gene lineages; duplication and transfer rates are too high for the loss rate");
}
} // namespace

bool FamilySimulator::withinLineages(const std::vector<ProcessNode>& nodes, long genes,
                                     const std::string& family) const {
    if (long(nodes.size()) <= limits_.maxLineages) return true;
    // Past the gene cap already (a gene is final): the cap discards the draw, however it would end.
    if (limits_.maxGenes > 0 && genes > limits_.maxGenes) return false;
    tooManyLineages(family, limits_.maxLineages);
}

bool FamilySimulator::runUndated(int origin, const EventProbabilities& p, RandomSource& rng,
                                 std::vector<ProcessNode>& nodes, const std::string& family) const {
    nodes.assign(1, ProcessNode{});
    nodes[0].species = origin;
    std::vector<int> pending{0};
    auto branch = [&](int x, int first, int second) {
        ProcessNode::branch(nodes, pending, x, first, second, 0.0);
    };
    long genes = 0;
    while (!pending.empty()) {
        int x = pending.back();
        pending.pop_back();
        int e = nodes[x].species;
        double u = rng.uniform();
        if (u < p.pS[e]) {
            if (species_.isLeaf(e)) {
                nodes[x].kind = EventType::Leaf;
                ++genes;
            } else {
                nodes[x].kind = EventType::Speciation;
                branch(x, species_.left(e), species_.right(e));
            }
        } else if (u < p.pS[e] + p.pD[e]) {
            nodes[x].kind = EventType::Duplication;
            branch(x, e, e);
        } else if (u < p.pS[e] + p.pD[e] + p.pT[e]) {
            nodes[x].kind = EventType::Transfer;
            nodes[x].recipient = drawRecipient(e, rng);
            branch(x, e, nodes[x].recipient);
        } else {
            nodes[x].kind = EventType::Loss;
            double below = p.pS[e] + p.pD[e] + p.pT[e];
            for (std::size_t h = 0; h < highways_.size(); ++h) { // down a highway leaving e
                if (highways_[h].source != e) continue;
                below += p.pH[h];
                if (u < below) {
                    nodes[x].kind = EventType::Transfer;
                    nodes[x].recipient = highways_[h].destination;
                    branch(x, e, nodes[x].recipient);
                    break;
                }
            }
        }
        if (!withinLineages(nodes, genes, family)) return false;
    }
    return true;
}

bool FamilySimulator::runDated(const std::vector<Rates>& rates, RandomSource& rng,
                               std::vector<ProcessNode>& nodes, double& originTime,
                               const std::string& family) const {
    double totalLength = end_[species_.root()];
    for (int e = 0; e < species_.root(); ++e)
        totalLength += end_[e] - start_[e];
    if (!(totalLength > 0.0))
        throw std::invalid_argument("the dated process needs positive species branch lengths");
    // Origin: uniform over the total branch length.
    double position = rng.uniform() * totalLength;
    int origin = species_.root();
    for (int e = 0; e < species_.size(); ++e) {
        double length = end_[e] - start_[e];
        if (position < length) {
            origin = e;
            break;
        }
        position -= length;
    }
    originTime = std::min(start_[origin] + position, end_[origin]);
    nodes.assign(1, ProcessNode{});
    nodes[0].species = origin;
    nodes[0].time = originTime;
    std::vector<int> pending{0};
    auto branch = [&](int x, int first, int second, double time) {
        ProcessNode::branch(nodes, pending, x, first, second, time);
    };
    long genes = 0;
    while (!pending.empty()) {
        int x = pending.back();
        pending.pop_back();
        int e = nodes[x].species;
        const Rates& r = rates[e];
        const double total = r.d + r.l + r.t;
        double t = nodes[x].time;
        for (;;) {
            double wait = total > 0.0 ? rng.exponential(total) : std::numeric_limits<double>::infinity();
            if (t + wait >= end_[e]) { // reaches the species node
                nodes[x].time = end_[e];
                if (species_.isLeaf(e)) {
                    nodes[x].kind = EventType::Leaf;
                    ++genes;
                } else {
                    nodes[x].kind = EventType::Speciation;
                    branch(x, species_.left(e), species_.right(e), end_[e]);
                }
                break;
            }
            t += wait;
            double u = rng.uniform() * total;
            nodes[x].time = t;
            if (u < r.d) {
                nodes[x].kind = EventType::Duplication;
                branch(x, e, e, t);
            } else if (u < r.d + r.t) {
                int h = drawContemporary(e, t, rng);
                if (h < 0) continue; // no other branch alive: the transfer cannot happen
                nodes[x].kind = EventType::Transfer;
                nodes[x].recipient = h;
                branch(x, e, h, t);
            } else {
                nodes[x].kind = EventType::Loss;
            }
            break;
        }
        if (!withinLineages(nodes, genes, family)) return false;
    }
    return true;
}

SimulatedFamily FamilySimulator::observe(const std::vector<ProcessNode>& nodes, double originTime,
                                         const std::string& family) const {
    const int n = int(nodes.size());
    std::vector<char> survives(n, 0);
    SimulatedFamily out;
    for (int x = n - 1; x >= 0; --x) {
        const ProcessNode& p = nodes[x];
        survives[x] =
            p.kind == EventType::Leaf || (p.child[0] >= 0 && (survives[p.child[0]] || survives[p.child[1]]));
        switch (p.kind) {
        case EventType::Leaf:
            ++out.process.observedGenes;
            break;
        case EventType::Speciation:
            ++out.process.speciations;
            break;
        case EventType::Duplication:
            ++out.process.duplications;
            break;
        case EventType::Transfer:
            ++out.process.transfers;
            break;
        default:
            ++out.process.losses;
            break;
        }
    }
    Reconciliation& rec = out.truth;
    rec.family = family;
    rec.originSpecies = nodes[0].species;
    if (!survives[0]) return out;
    const bool dated = process_ == SimProcess::Dated;
    rec.nodes.reserve(std::size_t(2 * out.process.observedGenes - 1));
    std::vector<int> copies(species_.size(), 0);
    std::vector<std::tuple<int, int, double>> stack{
        {0, -1, originTime}}; // (process node, gene parent, its time)
    while (!stack.empty()) {
        auto [x, parent, parentTime] = stack.back();
        stack.pop_back();
        int g = int(rec.nodes.size());
        rec.nodes.emplace_back();
        rec.nodes[g].parent = parent;
        if (parent >= 0) rec.nodes[parent].children.push_back(g);
        std::vector<ReconEvent>& events = rec.nodes[g].events;
        // Follow the lineage down while only one copy survives; those events sit on the branch.
        for (;;) {
            const ProcessNode& p = nodes[x];
            if (p.kind == EventType::Leaf) break;
            bool a = survives[p.child[0]], b = survives[p.child[1]];
            if (a && b) break;
            if (p.kind == EventType::Speciation) events.push_back({EventType::SpeciationLoss, p.species});
            if (p.kind == EventType::Transfer && b)
                events.push_back({EventType::TransferLoss, p.species, p.recipient});
            x = a ? p.child[0] : p.child[1];
        }
        const ProcessNode& p = nodes[x];
        events.push_back({p.kind, p.species, p.kind == EventType::Transfer ? p.recipient : -1});
        if (dated) rec.nodes[g].branchLength = p.time - parentTime;
        if (p.kind == EventType::Leaf) {
            rec.nodes[g].name = species_.name(p.species) + "_" + std::to_string(++copies[p.species]);
        } else {
            stack.emplace_back(p.child[1], g, p.time);
            stack.emplace_back(p.child[0], g, p.time);
        }
    }
    rec.root = 0;
    out.coveredSpecies = int(std::count_if(copies.begin(), copies.end(), [](int c) { return c > 0; }));
    NewickTree& tree = out.geneTree;
    tree.root = 0;
    tree.source = family;
    tree.nodes.resize(rec.nodes.size());
    for (std::size_t g = 0; g < rec.nodes.size(); ++g) {
        tree.nodes[g].label = rec.nodes[g].name;
        tree.nodes[g].parent = rec.nodes[g].parent;
        tree.nodes[g].children = rec.nodes[g].children;
        if (dated) tree.nodes[g].length = rec.nodes[g].branchLength;
    }
    return out;
}

SimulatedFamily FamilySimulator::simulate(const std::string& family, const std::vector<Rates>& rates,
                                          RandomSource& rng) const {
    if (int(rates.size()) != species_.size())
        throw std::invalid_argument("family " + family + ": rates for " + std::to_string(rates.size()) +
                                    " species nodes, the tree has " + std::to_string(species_.size()));
    const std::size_t n = rates.size();
    EventProbabilities p{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
                         std::vector<double>(n), std::vector<double>(highways_.size())};
    std::vector<double> z(n);
    for (std::size_t e = 0; e < n; ++e)
        z[e] = 1.0 + rates[e].d + rates[e].l + rates[e].t;
    for (std::size_t h = 0; h < highways_.size(); ++h)
        z[highways_[h].source] += highwayRates_[h];
    for (std::size_t e = 0; e < n; ++e) {
        const Rates& r = rates[e];
        p.pS[e] = 1.0 / z[e];
        p.pD[e] = r.d / z[e];
        p.pL[e] = r.l / z[e];
        p.pT[e] = r.t / z[e];
    }
    for (std::size_t h = 0; h < highways_.size(); ++h)
        p.pH[h] = highwayRates_[h] / z[highways_[h].source];
    std::vector<ProcessNode> nodes;
    std::vector<char> covered(species_.size());
    for (int attempt = 1; attempt <= limits_.maxAttempts; ++attempt) {
        double originTime = 0.0;
        const bool complete =
            process_ == SimProcess::Undated
                ? runUndated(int(rng.below(std::uint64_t(species_.size()))), p, rng, nodes, family)
                : runDated(rates, rng, nodes, originTime, family);
        if (!complete) continue; // past the gene cap and the lineage limit: discarded
        std::fill(covered.begin(), covered.end(), 0);
        long genes = 0;
        for (const ProcessNode& node : nodes)
            if (node.kind == EventType::Leaf) {
                covered[node.species] = 1;
                ++genes;
            }
        if (std::count(covered.begin(), covered.end(), 1) < std::max(1, limits_.minCoveredSpecies)) continue;
        if (limits_.maxGenes > 0 && genes > limits_.maxGenes) continue;
        SimulatedFamily out = observe(nodes, originTime, family);
        out.attempts = attempt;
        return out;
    }
    if (limits_.maxGenes > 0)
        throw std::runtime_error("family " + family + ": none of " + std::to_string(limits_.maxAttempts) +
                                 " draws left genes in at least " +
                                 std::to_string(std::max(1, limits_.minCoveredSpecies)) +
                                 " species and at most " + std::to_string(limits_.maxGenes) + " genes");
    throw std::runtime_error(
        "family " + family + ": none of " + std::to_string(limits_.maxAttempts) +
        " draws left genes in at least " + std::to_string(std::max(1, limits_.minCoveredSpecies)) +
        " species; the loss rate is too high for these rates (survival is too unlikely)");
}

} // namespace gpurec
