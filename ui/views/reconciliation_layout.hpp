#pragma once
// Geometry of the tube-tree drawing of reconciliations: species branches as wide tubes (on the
// rectangular layout of the species tree), each gene lineage a path inside them, one glyph per
// event, transfers as arcs from donor to recipient. Several reconciliations (one per family) share
// the tubes; lineages in the same species get separate lanes.
#include "recon/recon_summary.hpp"
#include "recon/reconciliation.hpp"
#include "tree/species_tree.hpp"

#include <QPainterPath>
#include <QPointF>
#include <QString>
#include <vector>

namespace gpurec::ui {

struct TubeLayout {
    std::vector<double> x, y,
        startX;           // per species node: end of its branch (the node), lane centre, start of the branch
    double halfWidth = 0; // half the tube's thickness
    double row = 0;       // distance between the lanes of two neighbouring leaves
    QPainterPath tubes;   // all tubes as overlapping rounded rectangles (winding fill)
    QPointF labelAt(int species) const { return {x[species] + halfWidth + 6, y[species]}; }
};

TubeLayout layoutTubes(const SpeciesTree& species);

struct EventGlyph {
    EventType type;
    QPointF at;
    int drawn = 0; // index of the reconciliation among those drawn
    int node = -1; // gene node
    int species = -1;
};

struct Lineage {
    QPainterPath path;
    int drawn = 0;
    int node = -1; // gene node whose branch this is
};

struct TransferArc {
    EventType type; // Transfer or TransferLoss
    QPointF from, to;
    int drawn = 0;
    int donor = -1, recipient = -1;
    int node = -1;                       // gene node that arrives at the recipient
    int eventNode = -1, eventIndex = -1; // the T or TL event the arc draws (gene node, index in its events)
};

struct ReconciliationDrawing {
    std::vector<EventGlyph> glyphs; // one per event of every gene branch
    std::vector<Lineage> lineages;  // one per gene node
    std::vector<TransferArc> arcs;  // one per T and TL event
};

ReconciliationDrawing drawReconciliations(const TubeLayout& layout, const SpeciesTree& species,
                                          const std::vector<const Reconciliation*>& reconciliations);

// Gene lineages: copies that one can follow through the tree. The root starts lineage 0; the
// second child of a duplication and the transferred child of a transfer start a new lineage
// (numbered in depth-first order); every other child continues its parent's. Per gene node.
std::vector<int> geneLineages(const Reconciliation& r);

// Aggregated over samples: mean transfers per (donor, recipient) and mean duplications per species.
struct FrequencyArc {
    int donor = -1, recipient = -1;
    double frequency = 0; // mean number per sample
    QPointF from, to;
    int drawn = 0;
};
struct FrequencyMark {
    int species = -1;
    double frequency = 0;
    QPointF at;
    int drawn = 0;
};
struct AggregateDrawing {
    std::vector<FrequencyArc> transfers;
    std::vector<FrequencyMark> duplications;
};

// One summary per drawn family (its means over samples).
AggregateDrawing drawAggregates(const TubeLayout& layout,
                                const std::vector<const ReconciliationSummary*>& summaries);

// A quadratic curve from `from` to `to`, bulging to the left of the direction of travel.
QPainterPath arcPath(const QPointF& from, const QPointF& to);

} // namespace gpurec::ui
