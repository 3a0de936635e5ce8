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
    if (h == donor) return false;
    if (s_.constraint == TransferConstraint::None) return true;
    bool ancestor = enter_[h] <= enter_[donor] && enter_[donor] < exit_[h];
    return !ancestor;
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
        if (family_.geneSpecies[cs.cladeGene[clade]] == e) {
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
    c.kind = Kind::TransferLoss;
    c.nextSpecies = -1;
    visit(p.pT[e] * t_.E[e] * t.pibarRow(clade)[e], c);
}

ReconciliationSampler::Choice ReconciliationSampler::drawEvent(int clade, int e, std::mt19937_64& rng) const {
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
    forEachTerm(clade, e, [&](double w, const Choice& c) {
        if (w > 0) lastPositive = c;
        sum += w;
        if (sum > r && w > 0) {
            chosen = c;
            found = true;
            return false;
        }
        return true;
    });
    return found ? chosen : lastPositive; // r rounded up to the total
}

int ReconciliationSampler::drawRecipient(int clade, int donor, std::mt19937_64& rng) const {
    const double* row = t_.clades.piRow(clade);
    double total = 0;
    for (int h = 0; h < s_.size; ++h)
        if (allowedRecipient(donor, h)) total += row[h];
    const double r = uniformUnit(rng) * total;
    double sum = 0;
    int last = -1;
    for (int h = 0; h < s_.size; ++h) {
        if (!allowedRecipient(donor, h) || !(row[h] > 0)) continue;
        last = h;
        sum += row[h];
        if (sum > r) return h;
    }
    if (last < 0)
        throw std::runtime_error("sampling family '" + family_.name + "': no recipient can receive clade " +
                                 std::to_string(clade) + " from species node " + std::to_string(donor));
    return last;
}

int ReconciliationSampler::drawOrigin(std::mt19937_64& rng) const {
    const double* row = t_.clades.piRow(family_.clades.rootClade());
    if (const int origin = family_.originSpecies; origin >= 0) {
        if (!(row[origin] > 0))
            throw std::runtime_error("sampling family '" + family_.name +
                                     "': the family has probability zero at its origination node");
        return origin;
    }
    double total = 0;
    for (int e = 0; e < s_.size; ++e)
        total += row[e];
    if (!(total > 0))
        throw std::runtime_error("sampling family '" + family_.name + "': the family has probability zero");
    const double r = uniformUnit(rng) * total;
    double sum = 0;
    int last = -1;
    for (int e = 0; e < s_.size; ++e) {
        if (!(row[e] > 0)) continue;
        last = e;
        sum += row[e];
        if (sum > r) return e;
    }
    return last;
}

Reconciliation ReconciliationSampler::draw(std::mt19937_64& rng) const {
    const CladeSet& cs = family_.clades;
    Reconciliation rec;
    rec.family = family_.name;
    rec.originSpecies = drawOrigin(rng);
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
            Choice c = drawEvent(clade, e, rng);
            std::vector<ReconEvent>& events = rec.nodes[node].events;
            if (c.kind == Kind::SpeciationLoss) {
                events.push_back({EventType::SpeciationLoss, e});
                e = c.nextSpecies;
                continue;
            }
            if (c.kind == Kind::TransferLoss) {
                int d = drawRecipient(clade, e, rng);
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
                // children[0] stays at e, children[1] is received by the recipient.
                secondSpecies = drawRecipient(second, e, rng);
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
    return rec;
}

} // namespace gpurec
