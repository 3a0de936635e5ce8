#include "views/reconciliation_layout.hpp"

#include "views/species_tree_layout.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace gpurec::ui {

namespace {
constexpr double kColumn = 110.0, kRow = 56.0, kHalfWidth = 17.0, kRootStub = 0.6;
constexpr double kLaneSpan = 0.8;  // lanes use this fraction of the tube's thickness
constexpr double kLossPlace = 0.2; // an explicit loss sits this far along its branch

bool atFork(EventType t) {
    return t == EventType::Speciation || t == EventType::SpeciationLoss || t == EventType::Leaf;
}

// Gene nodes in depth-first order from the root, with their depths.
std::vector<std::pair<int, int>> depthFirst(const Reconciliation& r) {
    std::vector<std::pair<int, int>> order, stack;
    if (r.root >= 0) stack.push_back({r.root, 0});
    while (!stack.empty()) {
        auto [n, depth] = stack.back();
        stack.pop_back();
        order.push_back({n, depth});
        const auto& children = r.nodes[n].children;
        for (auto it = children.rbegin(); it != children.rend(); ++it)
            stack.push_back({*it, depth + 1});
    }
    return order;
}
} // namespace

TubeLayout layoutTubes(const SpeciesTree& species) {
    TreeLayout tree = layoutRectangular(species);
    TubeLayout out;
    const int n = species.size();
    out.x.resize(n);
    out.y.resize(n);
    out.startX.resize(n);
    out.halfWidth = kHalfWidth;
    out.row = kRow;
    for (int e = 0; e < n; ++e) {
        out.x[e] = tree.x[e] * kColumn;
        out.y[e] = tree.y[e] * kRow;
    }
    QPainterPath tubes;
    tubes.setFillRule(Qt::WindingFill);
    for (int e = 0; e < n; ++e) {
        out.startX[e] = e == species.root() ? out.x[e] - kRootStub * kColumn : out.x[species.parent(e)];
        tubes.addRoundedRect(QRectF(out.startX[e], out.y[e] - kHalfWidth,
                                    out.x[e] - out.startX[e] + kHalfWidth, 2 * kHalfWidth),
                             kHalfWidth, kHalfWidth);
        if (!species.isLeaf(e)) {
            const double top = out.y[species.left(e)], bottom = out.y[species.right(e)];
            tubes.addRoundedRect(QRectF(out.x[e] - kHalfWidth, std::min(top, bottom) - kHalfWidth,
                                        2 * kHalfWidth, std::abs(bottom - top) + 2 * kHalfWidth),
                                 kHalfWidth, kHalfWidth);
        }
    }
    // Not simplified(): merging 2n rounded rectangles is quadratic (21 s at 1,331 nodes); the view
    // draws the union's outline by painting the fill over a wider stroke of every piece.
    out.tubes = tubes;
    return out;
}

QPainterPath arcPath(const QPointF& from, const QPointF& to) {
    const QPointF direction = to - from;
    const double length = std::hypot(direction.x(), direction.y());
    const QPointF normal = length > 0 ? QPointF(direction.y(), -direction.x()) / length : QPointF(0, -1);
    QPainterPath path(from);
    path.quadTo((from + to) / 2 + normal * std::max(20.0, 0.25 * length), to);
    return path;
}

ReconciliationDrawing drawReconciliations(const TubeLayout& layout, const SpeciesTree& species,
                                          const std::vector<const Reconciliation*>& reconciliations) {
    const int S = species.size();
    // Lanes: every gene branch with an event in a species gets its own lane there.
    std::map<std::tuple<int, int, int>, int> lane; // (drawn, node, species) -> lane
    std::vector<int> lanes(S, 0);
    // In-branch events (D, T, TL, explicit losses) are spread along the branch by gene-tree depth.
    std::map<std::tuple<int, int, int>, long> depthKey; // (drawn, node, event) -> key
    std::vector<std::vector<long>> keysInBranch(S);
    std::vector<std::vector<std::pair<int, int>>> orders;
    for (std::size_t d = 0; d < reconciliations.size(); ++d) {
        const Reconciliation& r = *reconciliations[d];
        orders.push_back(depthFirst(r));
        for (auto [n, depth] : orders.back()) {
            const auto& events = r.nodes[n].events;
            for (std::size_t i = 0; i < events.size(); ++i) {
                const int s = events[i].species;
                if (lane.emplace(std::make_tuple(int(d), n, s), lanes[s]).second) ++lanes[s];
                if (!atFork(events[i].type)) {
                    long key = static_cast<long>(depth) * 64 + static_cast<long>(i);
                    depthKey[{int(d), n, int(i)}] = key;
                    keysInBranch[s].push_back(key);
                }
            }
        }
    }
    for (auto& keys : keysInBranch) {
        std::sort(keys.begin(), keys.end());
        keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    }
    auto point = [&](int d, int n, int i) {
        const ReconEvent& ev = reconciliations[d]->nodes[n].events[i];
        const int s = ev.species;
        const int k = lane.at({d, n, s});
        const double y =
            layout.y[s] + ((k + 1.0) / (lanes[s] + 1.0) - 0.5) * kLaneSpan * 2 * layout.halfWidth;
        if (atFork(ev.type)) return QPointF(layout.x[s], y);
        const double length = layout.x[s] - layout.startX[s];
        if (ev.type == EventType::Loss) return QPointF(layout.startX[s] + kLossPlace * length, y);
        const auto& keys = keysInBranch[s];
        const double rank = std::lower_bound(keys.begin(), keys.end(), depthKey.at({d, n, i})) - keys.begin();
        return QPointF(layout.startX[s] + length * (rank + 1) / (keys.size() + 1), y);
    };
    auto route = [](QPainterPath& path, const QPointF& from, const QPointF& to) {
        path.lineTo(from.x(), to.y());
        path.lineTo(to);
    };

    ReconciliationDrawing out;
    for (std::size_t di = 0; di < reconciliations.size(); ++di) {
        const int d = static_cast<int>(di);
        const Reconciliation& r = *reconciliations[d];
        for (auto [n, depth] : orders[d]) {
            const ReconNode& node = r.nodes[n];
            if (node.events.empty()) continue;
            Lineage lineage;
            lineage.drawn = d;
            lineage.node = n;
            const QPointF first = point(d, n, 0);
            if (node.parent < 0) {
                lineage.path.moveTo(layout.startX[node.events[0].species], first.y());
                lineage.path.lineTo(first);
            } else {
                const ReconNode& parent = r.nodes[node.parent];
                const int last = static_cast<int>(parent.events.size()) - 1;
                const ReconEvent& split = parent.events[last];
                const QPointF from = point(d, node.parent, last);
                if (split.type == EventType::Transfer && node.events[0].species != split.species) {
                    out.arcs.push_back({EventType::Transfer, from, first, d, split.species, split.recipient,
                                        n, node.parent, last});
                    lineage.path.moveTo(first);
                } else {
                    lineage.path.moveTo(from);
                    route(lineage.path, from, first);
                }
            }
            for (std::size_t i = 0; i < node.events.size(); ++i) {
                const QPointF at = point(d, n, static_cast<int>(i));
                if (i > 0) {
                    const ReconEvent& previous = node.events[i - 1];
                    const QPointF from = point(d, n, static_cast<int>(i) - 1);
                    if (previous.type == EventType::TransferLoss) {
                        out.arcs.push_back({EventType::TransferLoss, from, at, d, previous.species,
                                            previous.recipient, n, n, static_cast<int>(i) - 1});
                        lineage.path.moveTo(at);
                    } else {
                        route(lineage.path, from, at);
                    }
                }
                out.glyphs.push_back({node.events[i].type, at, d, n, node.events[i].species});
            }
            out.lineages.push_back(std::move(lineage));
        }
    }
    return out;
}

std::vector<int> geneLineages(const Reconciliation& r) {
    std::vector<int> lineage(r.nodes.size(), 0);
    int next = 1;
    for (auto [n, depth] : depthFirst(r)) {
        const ReconNode& node = r.nodes[n];
        if (node.parent < 0) continue;
        const ReconNode& parent = r.nodes[node.parent];
        const EventType split = parent.events.empty() ? EventType::Speciation : parent.events.back().type;
        bool newCopy = false;
        if (split == EventType::Duplication)
            newCopy = parent.children.size() == 2 && parent.children[1] == n;
        else if (split == EventType::Transfer)
            newCopy = !node.events.empty() && node.events[0].species != parent.events.back().species;
        lineage[n] = newCopy ? next++ : lineage[node.parent];
    }
    return lineage;
}

AggregateDrawing drawAggregates(const TubeLayout& layout,
                                const std::vector<const ReconciliationSummary*>& summaries) {
    AggregateDrawing out;
    const int drawn = static_cast<int>(summaries.size());
    auto middle = [&](int s, int d, double spread) {
        const double x = (layout.startX[s] + layout.x[s]) / 2;
        const double y = layout.y[s] + ((d + 1.0) / (drawn + 1.0) - 0.5) * spread * layout.halfWidth;
        return QPointF(x, y);
    };
    for (int d = 0; d < drawn; ++d) {
        const ReconciliationSummary& summary = *summaries[d];
        for (const auto& [pair, mean] : summary.transfers)
            if (mean > 0)
                out.transfers.push_back({pair.first, pair.second, mean, middle(pair.first, d, kLaneSpan * 2),
                                         middle(pair.second, d, kLaneSpan * 2), d});
        for (std::size_t s = 0; s < summary.species.size(); ++s)
            if (summary.species[s][kDuplications] > 0)
                out.duplications.push_back({static_cast<int>(s), summary.species[s][kDuplications],
                                            middle(static_cast<int>(s), d, kLaneSpan * 2) + QPointF(-14, 0),
                                            d});
    }
    return out;
}

} // namespace gpurec::ui
