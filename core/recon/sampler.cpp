#include "recon/sampler.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gpurec {

double uniformUnit(std::mt19937_64& rng) {
    return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

ReconciliationSampler::ReconciliationSampler(const SpeciesLayout& species, const GeneFamily& family,
                                             const FamilyTables& tables, bool halveRootBranches)
    : s_(species), family_(family), t_(tables), halveRootBranches_(halveRootBranches) {
    const int n = s_.size;
    const std::size_t cells = static_cast<std::size_t>(family.clades.cladeCount()) * n;
    auto sized = [n](const std::vector<double>& v) { return static_cast<int>(v.size()) == n; };
    if (t_.clades.clades != family.clades.cladeCount() || t_.clades.species != n ||
        t_.clades.pi.size() != cells || t_.clades.pibar.size() != cells ||
        static_cast<int>(t_.clades.scale.size()) != t_.clades.clades || !sized(t_.E) || !sized(t_.Ebar) ||
        !sized(t_.p.pS) || !sized(t_.p.pD) || !sized(t_.p.pT))
        throw std::invalid_argument(
            "sampling family '" + family.name + "': its tables (" + std::to_string(t_.clades.clades) +
            " clades x " + std::to_string(t_.clades.species) + " species) do not match the family (" +
            std::to_string(family.clades.cladeCount()) + " clades) and species tree (" + std::to_string(n) +
            " nodes)");
    // Depth-first intervals: h is an ancestor of (or equal to) e iff enter[h] <= enter[e] < exit[h].
    enter_.assign(n, 0);
    exit_.assign(n, 0);
    int clock = 0;
    std::vector<std::pair<int, bool>> stack{{n - 1, false}};
    while (!stack.empty()) {
        auto [e, done] = stack.back();
        stack.pop_back();
        if (done) {
            exit_[e] = clock;
            continue;
        }
        enter_[e] = clock++;
        stack.emplace_back(e, true);
        if (s_.left[e] >= 0) {
            stack.emplace_back(s_.right[e], false);
            stack.emplace_back(s_.left[e], false);
        }
    }
}

bool ReconciliationSampler::allowedRecipient(int donor, int h) const {
    if (s_.constraint != TransferConstraint::Parents) return s_.isRecipient(donor, h);
    const bool ancestor = enter_[h] <= enter_[donor] && enter_[donor] < exit_[h];
    return h != donor && !ancestor; // SpeciesLayout::isRecipient in O(1)
}

template <class Visit> void ReconciliationSampler::forEachTerm(int clade, int e, Visit&& visit) const {
    const CladeSet& cs = family_.clades;
    const CladeTables& t = t_.clades;
    const EventProbabilities& p = t_.p;
    const int rowScale = t.scale[clade];
    const bool internal = s_.left[e] >= 0;
    const int f = s_.left[e], g = s_.right[e];
    Choice c;
    if (cs.cladeGene[clade] >= 0) {
        if (s_.local(family_.geneSpecies[cs.cladeGene[clade]]) == e) {
            c.kind = Kind::Leaf;
            if (!visit(std::ldexp(p.pS[e], -rowScale), c)) return;
        }
    }
    for (int k = cs.splitOffset[clade]; k < cs.splitOffset[clade + 1]; ++k) {
        const CladeSplit& sp = cs.splits[k];
        // Children's rows carry their own scales: bring the products to the parent's.
        const double fac = std::ldexp(sp.weight, t.scale[sp.left] + t.scale[sp.right] - rowScale);
        const double* a = t.piRow(sp.left);
        const double* b = t.piRow(sp.right);
        c.split = k;
        if (internal) {
            c.kind = Kind::Speciation;
            c.swapped = false;
            if (!visit(fac * p.pS[e] * a[f] * b[g], c)) return;
            c.swapped = true;
            if (!visit(fac * p.pS[e] * b[f] * a[g], c)) return;
        }
        c.kind = Kind::Duplication;
        c.swapped = false;
        if (!visit(fac * p.pD[e] * a[e] * b[e], c)) return;
        c.kind = Kind::Transfer;
        if (!visit(fac * p.pT[e] * a[e] * t.pibarRow(sp.right)[e], c)) return;
        c.swapped = true;
        if (!visit(fac * p.pT[e] * b[e] * t.pibarRow(sp.left)[e], c)) return;
        // One child clade down a highway: the second of the pair goes to its destination.
        for (int k = s_.highwayOffset[e]; k < s_.highwayOffset[e + 1]; ++k) {
            c.highway = s_.highwaysFrom[k];
            const int d = s_.highways[c.highway].destination;
            c.swapped = false;
            if (!visit(fac * p.pH[c.highway] * a[e] * b[d], c)) return;
            c.swapped = true;
            if (!visit(fac * p.pH[c.highway] * b[e] * a[d], c)) return;
        }
        c.highway = -1;
    }
    c.split = -1;
    c.swapped = false;
    const double* row = t.piRow(clade);
    if (internal) {
        c.kind = Kind::SpeciationLoss;
        c.nextSpecies = f;
        if (!visit(p.pS[e] * row[f] * t_.E[g], c)) return;
        c.nextSpecies = g;
        if (!visit(p.pS[e] * row[g] * t_.E[f], c)) return;
    }
    if (!s_.cladeTransferLoss) return;
    c.kind = Kind::TransferLoss;
    c.nextSpecies = -1;
    if (!visit(p.pT[e] * t_.E[e] * t.pibarRow(clade)[e], c)) return;
    // The copy left at e dies and the lineage continues at the highway's destination (the term
    // whose sent copy dies leaves the lineage where it is, like DL: not drawn).
    for (int k = s_.highwayOffset[e]; k < s_.highwayOffset[e + 1]; ++k) {
        c.highway = s_.highwaysFrom[k];
        c.nextSpecies = s_.highways[c.highway].destination;
        if (!visit(p.pH[c.highway] * t_.E[e] * row[c.nextSpecies], c)) return;
    }
}

namespace {

// Draws a species node h in proportion to weight(h) (zero for nodes that cannot be drawn); -1 when
// every weight is zero. Fills `step` with the nodes of positive weight when given.
template <class Weight> int drawSpecies(int n, Weight&& weight, std::mt19937_64& rng, StoryStep* step) {
    double total = 0;
    for (int h = 0; h < n; ++h)
        total += weight(h);
    if (!(total > 0) || !std::isfinite(total)) return -1;
    const double r = uniformUnit(rng) * total;
    double sum = 0;
    int drawn = -1;
    bool found = false; // until then `drawn` is the last node of positive weight (r rounded up to the total)
    for (int h = 0; h < n; ++h) {
        const double w = weight(h);
        if (!(w > 0)) continue;
        if (step) step->alternatives.push_back({EventType::Leaf, h, -1, false, w / total});
        sum += w;
        if (found) continue; // a story lists the nodes after the one drawn too
        drawn = h;
        if (step) step->chosen = static_cast<int>(step->alternatives.size()) - 1;
        found = sum > r;
        if (found && !step) break;
    }
    return drawn;
}

} // namespace

EventType ReconciliationSampler::eventOf(Kind kind) {
    switch (kind) {
    case Kind::Leaf:
        return EventType::Leaf;
    case Kind::Speciation:
        return EventType::Speciation;
    case Kind::Duplication:
        return EventType::Duplication;
    case Kind::Transfer:
        return EventType::Transfer;
    case Kind::SpeciationLoss:
        return EventType::SpeciationLoss;
    case Kind::TransferLoss:
        return EventType::TransferLoss;
    }
    return EventType::Leaf;
}

ReconciliationSampler::Choice ReconciliationSampler::drawEvent(int clade, int e, std::mt19937_64& rng,
                                                               StoryStep* step) const {
    double total = 0;
    forEachTerm(clade, e, [&](double w, const Choice&) {
        total += w;
        return true;
    });
    if (!(total > 0) || !std::isfinite(total))
        throw std::runtime_error("sampling family '" + family_.name + "': no event explains clade " +
                                 std::to_string(clade) + " in species node " + std::to_string(e) +
                                 " (its tables are not a solution of the model)");
    const double r = uniformUnit(rng) * total;
    double sum = 0;
    Choice chosen, lastPositive;
    bool found = false;
    int positive = 0;
    forEachTerm(clade, e, [&](double w, const Choice& c) {
        if (!(w > 0)) return true;
        if (step)
            step->alternatives.push_back(
                StoryAlternative{eventOf(c.kind), c.nextSpecies, c.split, c.swapped, w / total});
        ++positive;
        lastPositive = c;
        sum += w;
        if (sum > r && !found) {
            chosen = c;
            found = true;
            if (step) step->chosen = positive - 1;
            return step != nullptr; // a story lists the alternatives after the one drawn too
        }
        return true;
    });
    if (!found && step) step->chosen = positive - 1;
    return found ? chosen : lastPositive; // r rounded up to the total
}

int ReconciliationSampler::drawRecipient(int clade, int donor, std::mt19937_64& rng, StoryStep* step) const {
    const double* row = t_.clades.piRow(clade);
    const int h = drawSpecies(
        s_.size, [&](int h) { return allowedRecipient(donor, h) ? row[h] : 0.0; }, rng, step);
    if (h < 0)
        throw std::runtime_error("sampling family '" + family_.name + "': no recipient can receive clade " +
                                 std::to_string(clade) + " from species node " + std::to_string(donor));
    return h;
}

int ReconciliationSampler::drawOrigin(std::mt19937_64& rng, StoryStep* step) const {
    const double* row = t_.clades.piRow(family_.clades.rootClade());
    if (const int origin = family_.originSpecies >= 0 ? s_.local(family_.originSpecies) : -1; origin >= 0) {
        if (!(row[origin] > 0))
            throw std::runtime_error("sampling family '" + family_.name +
                                     "': the family has probability zero at its origination node");
        if (step) {
            step->alternatives = {StoryAlternative{EventType::Leaf, origin, -1, false, 1.0}};
            step->chosen = 0;
        }
        return origin;
    }
    const std::vector<double>& o = t_.originWeights; // --origination OPTIMIZE, else uniform
    const int e = drawSpecies(
        s_.size, [&](int h) { return o.empty() ? row[h] : o[h] * row[h]; }, rng, step);
    if (e < 0)
        throw std::runtime_error("sampling family '" + family_.name + "': the family has probability zero");
    return e;
}

Reconciliation ReconciliationSampler::draw(std::mt19937_64& rng, std::vector<StoryStep>* story) const {
    const CladeSet& cs = family_.clades;
    Reconciliation rec;
    rec.family = family_.name;
    // The step being drawn, when telling a story.
    auto begin = [story](StoryDraw draw, int clade, int species, int node, int event) -> StoryStep* {
        if (!story) return nullptr;
        StoryStep& step = story->emplace_back();
        step.draw = draw;
        step.clade = clade;
        step.species = species;
        step.node = node;
        step.event = event;
        return &step;
    };
    rec.originSpecies = drawOrigin(rng, begin(StoryDraw::Origin, cs.rootClade(), -1, 0, -1));
    rec.root = 0;
    rec.nodes.reserve(2 * static_cast<std::size_t>(cs.geneCount()));
    auto addNode = [&](int parent, int clade) {
        ReconNode node;
        node.parent = parent;
        node.clade = clade;
        node.branchLength = parent < 0 ? 0.0 : cs.branchLength[clade];
        if (parent == rec.root && halveRootBranches_) node.branchLength /= 2;
        rec.nodes.push_back(std::move(node));
        return static_cast<int>(rec.nodes.size()) - 1;
    };
    struct Lineage {
        int node, clade, species;
    };
    std::vector<Lineage> pending{{addNode(-1, cs.rootClade()), cs.rootClade(), rec.originSpecies}};
    while (!pending.empty()) {
        auto [node, clade, e] = pending.back();
        pending.pop_back();
        // Follow the lineage through SL and TL events until its node event.
        for (;;) {
            std::vector<ReconEvent>& events = rec.nodes[node].events;
            const int event = static_cast<int>(events.size());
            Choice c = drawEvent(clade, e, rng, begin(StoryDraw::Event, clade, e, node, event));
            if (c.kind == Kind::SpeciationLoss) {
                events.push_back({EventType::SpeciationLoss, e});
                e = c.nextSpecies;
                continue;
            }
            if (c.kind == Kind::TransferLoss) {
                const int d =
                    c.highway >= 0
                        ? c.nextSpecies
                        : drawRecipient(clade, e, rng, begin(StoryDraw::Recipient, clade, e, node, event));
                events.push_back({EventType::TransferLoss, e, d});
                e = d;
                continue;
            }
            if (c.kind == Kind::Leaf) {
                events.push_back({EventType::Leaf, e});
                rec.nodes[node].name = cs.geneNames[cs.cladeGene[clade]];
                break;
            }
            const CladeSplit& sp = cs.splits[c.split];
            int first = c.swapped ? sp.right : sp.left, second = c.swapped ? sp.left : sp.right;
            int firstSpecies = e, secondSpecies = e;
            if (c.kind == Kind::Speciation) {
                events.push_back({EventType::Speciation, e});
                firstSpecies = s_.left[e];
                secondSpecies = s_.right[e];
            } else if (c.kind == Kind::Duplication) {
                events.push_back({EventType::Duplication, e});
            } else {
                // children[0] stays at e, children[1] is received by the recipient (a highway's
                // destination, or one drawn among R(e)).
                secondSpecies =
                    c.highway >= 0
                        ? s_.highways[c.highway].destination
                        : drawRecipient(second, e, rng, begin(StoryDraw::Recipient, second, e, node, event));
                events.push_back({EventType::Transfer, e, secondSpecies});
            }
            int a = addNode(node, first);
            int b = addNode(node, second);
            rec.nodes[node].children = {a, b};
            pending.push_back({b, second, secondSpecies});
            pending.push_back({a, first, firstSpecies});
            break;
        }
    }
    if (s_.isPruned()) { // events at the kept nodes, by their full-tree indices
        rec.originSpecies = s_.full(rec.originSpecies);
        for (ReconNode& node : rec.nodes)
            for (ReconEvent& ev : node.events) {
                ev.species = s_.full(ev.species);
                if (ev.recipient >= 0) ev.recipient = s_.full(ev.recipient);
            }
    }
    return rec;
}

} // namespace gpurec
