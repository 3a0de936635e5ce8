#include "views/reconciliation_view.hpp"

#include "views/text_scale.hpp"

#include "colours/colour_vision.hpp"
#include "views/drawing_export.hpp"
#include "views/readable_fit.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {
constexpr double kGlyph = 5.0;
constexpr int kLegendLineages = 8; // more gene copies are named in their lines' tooltips
const QColor kTubeFill(232, 236, 242), kTubeEdge(150, 160, 175);
const std::vector<EventType> kLegendEvents = {
    EventType::Leaf,        EventType::Speciation, EventType::SpeciationLoss,
    EventType::Duplication, EventType::Transfer,   EventType::TransferLoss,
    EventType::Loss};

QString eventTitle(EventType type) {
    switch (type) {
    case EventType::Leaf:
        return QObject::tr("gene (leaf)");
    case EventType::Speciation:
        return QObject::tr("speciation");
    case EventType::SpeciationLoss:
        return QObject::tr("speciation, one copy lost");
    case EventType::Duplication:
        return QObject::tr("duplication");
    case EventType::Transfer:
        return QObject::tr("transfer");
    case EventType::TransferLoss:
        return QObject::tr("transfer, copy left behind lost");
    case EventType::Loss:
        return QObject::tr("loss");
    }
    return {};
}

// The glyph of an event type, centred on (0, 0).
QPainterPath glyphShape(EventType type) {
    QPainterPath p;
    const double r = kGlyph;
    switch (type) {
    case EventType::Leaf:
    case EventType::Speciation:
    case EventType::SpeciationLoss:
        p.addEllipse(QPointF(0, 0), r * 0.8, r * 0.8);
        break;
    case EventType::Duplication:
        p.addRect(-r, -r, 2 * r, 2 * r);
        break;
    case EventType::Transfer:
    case EventType::TransferLoss:
        p.moveTo(-r, -r);
        p.lineTo(r * 1.2, 0);
        p.lineTo(-r, r);
        p.closeSubpath();
        break;
    case EventType::Loss:
        p.moveTo(-r, -r);
        p.lineTo(r, r);
        p.moveTo(-r, r);
        p.lineTo(r, -r);
        break;
    }
    return p;
}

// A transfer arc: the curve in scene units with a pen of constant screen width, and an arrowhead
// at the recipient plus, for aggregated arcs, the frequency at the middle, both in screen pixels.
class ArcItem : public QGraphicsPathItem {
  public:
    ArcItem(const QPainterPath& path, const QPen& pen, QString label)
        : QGraphicsPathItem(path), label_(label) {
        QPen cosmetic = pen;
        cosmetic.setCosmetic(true);
        setPen(cosmetic);
        setData(ReconciliationView::kLabelRole, label_);
    }

    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override {
        QGraphicsPathItem::paint(painter, option, widget);
        const QTransform device = painter->worldTransform();
        const QPointF end = device.map(path().pointAtPercent(1.0));
        const QPointF before = device.map(path().pointAtPercent(0.95));
        const QPointF mid = device.map(path().pointAtPercent(0.5));
        painter->save();
        painter->resetTransform();
        painter->setRenderHint(QPainter::Antialiasing);
        QPointF direction = end - before;
        const double length = std::hypot(direction.x(), direction.y());
        if (length > 0) {
            direction /= length;
            const QPointF tip =
                end - direction * (kGlyph + 2); // stops at the recipient's glyph, not under it
            const QPointF normal(-direction.y(), direction.x());
            const double size = 11.0 + pen().widthF();
            painter->setPen(Qt::NoPen);
            painter->setBrush(pen().color());
            painter->drawPolygon(QPolygonF{tip, tip - direction * size + normal * size * 0.5,
                                           tip - direction * size - normal * size * 0.5});
        }
        if (!label_.isEmpty()) {
            QFontMetricsF fm(painter->font());
            QRectF box(mid - QPointF(fm.horizontalAdvance(label_) / 2 + 3, fm.height() / 2),
                       QSizeF(fm.horizontalAdvance(label_) + 6, fm.height()));
            painter->setPen(Qt::NoPen);
            painter->setBrush(QColor(255, 255, 255, 215));
            painter->drawRoundedRect(box, 3, 3);
            painter->setPen(pen().color().darker(160));
            painter->drawText(box, Qt::AlignCenter, label_);
        }
        painter->restore();
    }

  private:
    QString label_;
};

void styleGlyph(QAbstractGraphicsShapeItem* item, EventType type) {
    QColor fill;
    switch (type) {
    case EventType::Leaf:
        fill = QColor(20, 20, 20);
        break;
    case EventType::Speciation:
        fill = QColor(110, 110, 110);
        break;
    case EventType::Duplication:
        fill = QColor(40, 110, 220);
        break;
    case EventType::Transfer:
        fill = QColor(30, 160, 90);
        break;
    case EventType::SpeciationLoss:
    case EventType::TransferLoss:
        fill = Qt::white;
        break;
    case EventType::Loss:
        fill = Qt::transparent;
        break;
    }
    QColor edge = type == EventType::Loss           ? QColor(210, 40, 40)
                  : type == EventType::TransferLoss ? QColor(30, 160, 90)
                                                    : QColor(30, 30, 30);
    item->setBrush(fill);
    item->setPen(QPen(edge, type == EventType::Loss ? 2.0 : 1.2));
}
} // namespace

ReconciliationView::ReconciliationView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::FullViewportUpdate); // the legend overlay must not scroll
    setBackgroundBrush(Qt::white);
}

QColor ReconciliationView::familyColour(int drawn) {
    const Rgb c = categoricalColour(drawn);
    return QColor(c.r, c.g, c.b);
}

QPen ReconciliationView::categoricalPen(int k, double width) {
    static const Qt::PenStyle dashes[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                          Qt::DashDotDotLine};
    QPen pen(familyColour(k), width, dashes[categoricalDash(k) % std::size(dashes)]);
    pen.setCosmetic(true);
    return pen;
}

void ReconciliationView::setSpecies(const SpeciesTree* species) {
    scene()->clear();
    drawing_.clear();
    labels_.clear();
    entries_.clear();
    lineageItems_.clear();
    species_ = species;
    if (!species_) return;
    layout_ = layoutTubes(*species_);
    // The union's outline without merging the pieces: every piece stroked 2 px wide, then all
    // filled on top, so only the outer half of each stroke stays visible.
    QPen edge(kTubeEdge, 2.0);
    edge.setCosmetic(true);
    auto* outline = scene()->addPath(layout_.tubes, edge, Qt::NoBrush);
    outline->setZValue(-3);
    auto* tubes = scene()->addPath(layout_.tubes, Qt::NoPen, kTubeFill);
    tubes->setZValue(-2);
    const QFont font = speciesFont();
    for (int e = 0; e < species_->size(); ++e) {
        if (!species_->isLeaf(e)) continue;
        auto* label = scene()->addSimpleText(QString::fromStdString(species_->name(e)), font);
        label->setFlag(QGraphicsItem::ItemIgnoresTransformations);
        label->setPos(layout_.labelAt(e));
        label->setTransform(QTransform::fromTranslate(0, -label->boundingRect().height() / 2));
        label->setZValue(-1);
        label->setToolTip(label->text());
        labels_.push_back(label);
    }
    fitAll();
}

QFont ReconciliationView::speciesFont() const {
    QFont f = font();
    f.setPointSizeF(10 * textScale(*this));
    return f;
}

void ReconciliationView::changeEvent(QEvent* event) {
    QGraphicsView::changeEvent(event);
    if (event->type() != QEvent::FontChange) return;
    const QFont f = speciesFont(); // the names follow the window's text size
    for (QGraphicsSimpleTextItem* label : labels_) {
        label->setFont(f);
        label->setTransform(QTransform::fromTranslate(0, -label->boundingRect().height() / 2));
    }
    updateLabelVisibility();
    viewport()->update();
}

void ReconciliationView::clearDrawing() {
    for (QGraphicsItem* item : drawing_)
        delete item;
    drawing_.clear();
    lineageItems_.clear();
    entries_.clear();
    delete storyRing_;
    storyRing_ = nullptr;
}

void ReconciliationView::showReconciliations(const std::vector<const Reconciliation*>& reconciliations,
                                             const QStringList& names,
                                             const std::vector<const EventSupports*>& supports) {
    clearDrawing();
    aggregate_ = false;
    if (!species_) return;
    // One family: a colour per gene lineage; several: a colour per family.
    byLineage_ = reconciliations.size() == 1;
    std::vector<std::vector<int>> lineages;
    for (const Reconciliation* r : reconciliations)
        lineages.push_back(byLineage_ ? geneLineages(*r) : std::vector<int>(r->nodes.size(), 0));
    auto colourIndex = [&](int drawn, int node) { return byLineage_ ? lineages[drawn][node] : drawn; };
    std::map<int, QString> lineageNames;
    if (byLineage_) {
        // Each lineage is named after the genes it leads to.
        const Reconciliation& r = *reconciliations.front();
        std::map<int, QStringList> genes;
        for (std::size_t n = 0; n < r.nodes.size(); ++n)
            if (r.nodes[n].children.empty() && !r.nodes[n].name.empty())
                genes[lineages[0][n]] << QString::fromStdString(r.nodes[n].name);
        const QString family = names.isEmpty() ? QString() : names.front() + ": ";
        int omitted = 0;
        if (!names.isEmpty())
            entries_.push_back({QPen(Qt::NoPen), tr("%1, one colour per gene copy:").arg(names.front())});
        for (const auto& [k, list] : genes) {
            const QString text = list.size() <= 3
                                     ? list.join(", ")
                                     : tr("%1, %2 and %3 more").arg(list[0], list[1]).arg(list.size() - 2);
            lineageNames[k] = family + tr("copy %1 → %2").arg(k + 1).arg(text);
            // The legend stays narrow (it shares the view with the drawing): the first gene only.
            const QString brief = list.size() == 1 ? list[0] : tr("%1 +%2").arg(list[0]).arg(list.size() - 1);
            if (k < kLegendLineages)
                entries_.push_back({categoricalPen(k, 3), tr("copy %1: %2").arg(k + 1).arg(brief)});
            else
                ++omitted;
        }
        if (omitted > 0)
            entries_.push_back({QPen(Qt::NoPen), tr("… %1 more copies (hover a line)").arg(omitted)});
    } else {
        for (int d = 0; d < names.size(); ++d)
            entries_.push_back({categoricalPen(d, 3), names[d]});
    }
    if (!supports.empty())
        entries_.push_back({QPen(Qt::NoPen), tr("0.42: fraction of samples with the event (none: all)")});
    ReconciliationDrawing drawing = drawReconciliations(layout_, *species_, reconciliations);
    for (const Lineage& l : drawing.lineages) {
        auto* item = scene()->addPath(l.path, categoricalPen(colourIndex(l.drawn, l.node), 1.8));
        const int k = colourIndex(l.drawn, l.node);
        item->setData(kLineageRole, k);
        item->setData(kDrawnRole, l.drawn);
        item->setData(kNodeRole, l.node); // told with its first event
        item->setData(kEventIndexRole, 0);
        if (byLineage_) {
            item->setToolTip(lineageNames.count(k) ? lineageNames[k] : tr("copy %1 (lost)").arg(k + 1));
        } else if (l.drawn < names.size()) {
            item->setToolTip(tr("family %1").arg(names[l.drawn]));
        }
        lineageItems_[{l.drawn, l.node}] = item;
        drawing_.push_back(item);
    }
    for (const TransferArc& a : drawing.arcs) {
        QPen pen = categoricalPen(colourIndex(a.drawn, a.node), 1.6);
        pen.setStyle(a.type == EventType::Transfer ? Qt::SolidLine : Qt::DashLine);
        auto* item = new ArcItem(arcPath(a.from, a.to), pen, {});
        scene()->addItem(item);
        item->setData(kKindRole, Arc);
        item->setData(kEventRole, static_cast<int>(a.type));
        item->setData(kDonorRole, a.donor);
        item->setData(kRecipientRole, a.recipient);
        item->setData(kDrawnRole, a.drawn);
        item->setData(kNodeRole, a.eventNode);
        item->setData(kEventIndexRole, a.eventIndex);
        item->setToolTip(tr("%1 from %2 to %3")
                             .arg(eventTitle(a.type), QString::fromStdString(species_->name(a.donor)),
                                  QString::fromStdString(species_->name(a.recipient))));
        item->setZValue(1);
        drawing_.push_back(item);
    }
    int lastDrawn = -1, lastNode = -1, i = 0;
    for (const EventGlyph& g : drawing.glyphs) {
        // Glyphs come node by node, event by event: their position in the node's event list.
        i = g.drawn == lastDrawn && g.node == lastNode ? i + 1 : 0;
        lastDrawn = g.drawn;
        lastNode = g.node;
        auto* item = new QGraphicsPathItem(glyphShape(g.type));
        styleGlyph(item, g.type);
        item->setFlag(QGraphicsItem::ItemIgnoresTransformations);
        item->setPos(g.at);
        item->setZValue(2);
        item->setData(kKindRole, Glyph);
        item->setData(kEventRole, static_cast<int>(g.type));
        item->setData(kDrawnRole, g.drawn);
        item->setData(kNodeRole, g.node);
        item->setData(kEventIndexRole, i);
        const ReconNode& node = reconciliations[g.drawn]->nodes[g.node];
        QString tip =
            tr("<b>%1</b> in %2")
                .arg(eventTitle(g.type), QString::fromStdString(species_->name(g.species)).toHtmlEscaped());
        if (!node.name.empty())
            tip += tr("<br>gene %1").arg(QString::fromStdString(node.name).toHtmlEscaped());
        if (g.drawn < names.size()) tip += tr("<br>family %1").arg(names[g.drawn].toHtmlEscaped());
        if (static_cast<std::size_t>(g.drawn) < supports.size() && supports[g.drawn]) {
            const double support = supports[g.drawn]->at(g.node).at(i);
            item->setData(kSupportRole, support);
            tip += tr("<br>in %1% of the samples").arg(100 * support, 0, 'f', 0);
            if (support < 1) { // events in every sample (genes among them) stay unlabelled
                auto* label = new QGraphicsSimpleTextItem(QString::number(support, 'f', 2), item);
                QFont small = font();
                small.setPointSizeF(7.5);
                label->setFont(small);
                label->setBrush(QColor(60, 60, 60));
                label->setPos(kGlyph + 1, -label->boundingRect().height() - 1);
                item->setData(kLabelRole, label->text());
            }
        }
        item->setToolTip(tip);
        scene()->addItem(item);
        drawing_.push_back(item);
    }
    applyHighlight();
    viewport()->update();
}

void ReconciliationView::showAggregates(const std::vector<const ReconciliationSummary*>& summaries,
                                        const QStringList& names) {
    clearDrawing();
    story_.reset();
    aggregate_ = true;
    byLineage_ = false;
    for (int d = 0; d < names.size(); ++d)
        entries_.push_back({categoricalPen(d, 3), names[d]});
    if (!species_) return;
    AggregateDrawing drawing = drawAggregates(layout_, summaries);
    for (const FrequencyArc& a : drawing.transfers) {
        QColor colour = familyColour(a.drawn);
        colour.setAlphaF(std::clamp(0.25 + 0.75 * a.frequency, 0.25, 1.0));
        QPen pen(colour, 1.0 + 6.0 * std::min(a.frequency, 1.0));
        pen.setCapStyle(Qt::RoundCap);
        auto* item = new ArcItem(arcPath(a.from, a.to), pen, QString::number(a.frequency, 'g', 2));
        scene()->addItem(item);
        item->setData(kKindRole, FrequencyArcItem);
        item->setData(kFrequencyRole, a.frequency);
        item->setData(kDonorRole, a.donor);
        item->setData(kRecipientRole, a.recipient);
        item->setData(kDrawnRole, a.drawn);
        item->setToolTip(
            tr("transfers from %1 to %2: %3 per sample%4")
                .arg(QString::fromStdString(species_->name(a.donor)),
                     QString::fromStdString(species_->name(a.recipient)))
                .arg(a.frequency, 0, 'g', 3)
                .arg(a.drawn < names.size() ? tr(" (family %1)").arg(names[a.drawn]) : QString()));
        item->setZValue(1);
        drawing_.push_back(item);
    }
    for (const FrequencyMark& m : drawing.duplications) {
        const double half = kGlyph * (0.6 + 1.4 * std::sqrt(std::min(m.frequency, 4.0) / 4.0) * 2);
        auto* item = scene()->addRect(QRectF(-half, -half, 2 * half, 2 * half), QPen(QColor(30, 30, 30), 1.0),
                                      familyColour(m.drawn));
        item->setFlag(QGraphicsItem::ItemIgnoresTransformations);
        item->setPos(m.at);
        item->setData(kKindRole, FrequencyMarkItem);
        item->setData(kLabelRole, QString::number(m.frequency, 'g', 2));
        auto* label = new QGraphicsSimpleTextItem(QString::number(m.frequency, 'g', 2), item);
        label->setPos(half + 2, -label->boundingRect().height() / 2);
        item->setData(kFrequencyRole, m.frequency);
        item->setData(kDrawnRole, m.drawn);
        item->setToolTip(tr("duplications in %1: %2 per sample")
                             .arg(QString::fromStdString(species_->name(m.species)))
                             .arg(m.frequency, 0, 'g', 3));
        item->setZValue(2);
        drawing_.push_back(item);
    }
    setThreshold(threshold_);
    applyHighlight();
}

void ReconciliationView::highlightTransfer(int donor, int recipient) {
    highlightDonor_ = donor;
    highlightRecipient_ = recipient;
    applyHighlight();
}

void ReconciliationView::applyHighlight() {
    const bool any = highlightDonor_ >= 0 && highlightRecipient_ >= 0;
    for (QGraphicsItem* item : drawing_) {
        const int kind = item->data(kKindRole).toInt();
        if (kind != Arc && kind != FrequencyArcItem) continue;
        const bool match = any && item->data(kDonorRole).toInt() == highlightDonor_ &&
                           item->data(kRecipientRole).toInt() == highlightRecipient_;
        auto* arc = static_cast<QGraphicsPathItem*>(item);
        if (match != item->data(kHighlightRole).toBool()) { // widen or restore the pen once
            QPen pen = arc->pen();
            pen.setWidthF(match ? pen.widthF() + 3 : pen.widthF() - 3);
            arc->setPen(pen);
        }
        item->setData(kHighlightRole, match);
        item->setZValue(match ? 3 : 1);
    }
    applyOpacity();
}

void ReconciliationView::setStoryProgress(std::optional<StoryProgress> progress) {
    story_ = std::move(progress);
    applyOpacity();
}

std::optional<QPointF> ReconciliationView::storyRingAt() const {
    if (!storyRing_) return std::nullopt;
    return storyRing_->pos();
}

void ReconciliationView::applyOpacity() {
    const bool highlighting = highlightDonor_ >= 0 && highlightRecipient_ >= 0;
    delete storyRing_;
    storyRing_ = nullptr;
    for (QGraphicsItem* item : drawing_) {
        const int kind = item->data(kKindRole).toInt();
        double opacity = 1.0;
        if (highlighting && (kind == Arc || kind == FrequencyArcItem) && !item->data(kHighlightRole).toBool())
            opacity = 0.25;
        if (story_ && kind != FrequencyArcItem && kind != FrequencyMarkItem) {
            const int node = item->data(kNodeRole).toInt(), event = item->data(kEventIndexRole).toInt();
            if (!story_->isTold(node, event)) opacity *= 0.12;
            if (kind == Glyph && node == story_->node && event == story_->event) {
                const double r = 2.6 * kGlyph;
                auto* ring = scene()->addEllipse(QRectF(-r, -r, 2 * r, 2 * r), QPen(QColor(213, 94, 0), 2.5));
                ring->setFlag(QGraphicsItem::ItemIgnoresTransformations);
                ring->setPos(item->pos());
                ring->setZValue(4);
                ring->setToolTip(tr("The event of the current step"));
                storyRing_ = ring;
            }
        }
        item->setOpacity(opacity);
    }
    viewport()->update();
}

std::vector<const QGraphicsItem*> ReconciliationView::highlightedArcs() const {
    std::vector<const QGraphicsItem*> out;
    for (const QGraphicsItem* item : drawing_)
        if (item->data(kHighlightRole).toBool()) out.push_back(item);
    return out;
}

std::vector<const QGraphicsItem*> ReconciliationView::items(ItemKind kind) const {
    std::vector<const QGraphicsItem*> out;
    for (const QGraphicsItem* item : drawing_)
        if (item->data(kKindRole).toInt() == kind) out.push_back(item);
    return out;
}

std::optional<QPen> ReconciliationView::lineagePen(int drawn, int node) const {
    auto it = lineageItems_.find({drawn, node});
    if (it == lineageItems_.end()) return std::nullopt;
    return it->second->pen();
}

void ReconciliationView::setThreshold(double threshold) {
    threshold_ = threshold;
    for (QGraphicsItem* item : drawing_) {
        const int kind = item->data(kKindRole).toInt();
        if (kind == FrequencyArcItem || kind == FrequencyMarkItem)
            item->setVisible(item->data(kFrequencyRole).toDouble() >= threshold_);
    }
}

int ReconciliationView::itemCount(ItemKind kind, bool visibleOnly) const {
    return static_cast<int>(std::count_if(drawing_.begin(), drawing_.end(), [&](const QGraphicsItem* item) {
        return item->data(kKindRole).toInt() == kind && (!visibleOnly || item->isVisible());
    }));
}

int ReconciliationView::glyphCount(EventType type) const {
    return static_cast<int>(std::count_if(drawing_.begin(), drawing_.end(), [&](const QGraphicsItem* item) {
        return item->data(kKindRole).toInt() == Glyph &&
               item->data(kEventRole).toInt() == static_cast<int>(type);
    }));
}

int ReconciliationView::legendRows() const {
    return (aggregate_ ? 2 : static_cast<int>(kLegendEvents.size())) + static_cast<int>(entries_.size());
}

int ReconciliationView::legendRowsPerColumn() const {
    // A legend taller than the view flows into further columns (a short view at scale factor 1.5).
    const double step = QFontMetricsF(font()).height() + 3;
    return std::clamp(static_cast<int>((viewport()->height() - 30) / step), 1, std::max(1, legendRows()));
}

double ReconciliationView::legendColumnWidth() const {
    QFontMetricsF fm(font());
    double width = 0;
    for (EventType t : kLegendEvents)
        width = std::max(width, fm.horizontalAdvance(eventTitle(t)));
    for (const LegendEntry& e : entries_)
        width = std::max(width, fm.horizontalAdvance(e.text));
    if (aggregate_)
        width = std::max(width, fm.horizontalAdvance(tr("duplications per sample (square size)")));
    return width + 44;
}

bool ReconciliationView::legendCollapsed() const {
    if (legendOpenByUser_) return !*legendOpenByUser_;
    const QSizeF full = fullLegendSize();
    return full.width() * full.height() > viewport()->width() * viewport()->height() / 4.0;
}

void ReconciliationView::setLegendOpen(bool open) {
    legendOpenByUser_ = open;
    if (species_) fitAll();
    viewport()->update();
}

namespace {
QString collapsedLegendText() {
    return QObject::tr("▸ Legend");
}
} // namespace

QSizeF ReconciliationView::legendSize() const {
    if (!species_) return {0, 0};
    if (legendCollapsed()) {
        QFontMetricsF fm(font());
        return {fm.horizontalAdvance(collapsedLegendText()) + 16, fm.height() + 10};
    }
    return fullLegendSize();
}

QSizeF ReconciliationView::fullLegendSize() const {
    if (!species_) return {0, 0};
    const int perColumn = legendRowsPerColumn();
    const int columns = (legendRows() + perColumn - 1) / perColumn;
    return {columns * legendColumnWidth(),
            std::min(perColumn, legendRows()) * (QFontMetricsF(font()).height() + 3) + 14};
}

void ReconciliationView::paintLegend(QPainter* painter, const QPointF& topLeft, bool full) const {
    if (!species_) return;
    painter->save();
    QFontMetricsF fm(font());
    painter->setFont(font());
    painter->setPen(QColor(200, 200, 200));
    painter->setBrush(QColor(255, 255, 255, 230));
    painter->drawRoundedRect(QRectF(topLeft, full ? fullLegendSize() : legendSize()), 4, 4);
    if (!full && legendCollapsed()) {
        painter->setPen(Qt::black);
        painter->drawText(QRectF(topLeft, legendSize()), Qt::AlignCenter, collapsedLegendText());
        painter->restore();
        return;
    }
    const double step = fm.height() + 3;
    const int perColumn = legendRowsPerColumn();
    const QPointF first = topLeft + QPointF(18, 7 + fm.height() / 2);
    QPointF at = first;
    int row = 0;
    auto text = [&](const QString& s) {
        painter->setPen(Qt::black);
        painter->drawText(at + QPointF(16, fm.ascent() / 2 - 1), s);
        ++row;
        at = first + QPointF(row / perColumn * legendColumnWidth(), row % perColumn * step);
    };
    if (aggregate_) {
        painter->setPen(QPen(QColor(90, 90, 90), 4));
        painter->drawLine(at + QPointF(-8, 0), at + QPointF(8, 0));
        text(tr("transfers per sample (arc width)"));
        painter->setPen(QPen(QColor(30, 30, 30), 1));
        painter->setBrush(QColor(160, 160, 160));
        painter->drawRect(QRectF(at - QPointF(5, 5), QSizeF(10, 10)));
        text(tr("duplications per sample (square size)"));
    } else {
        for (EventType t : kLegendEvents) {
            QGraphicsPathItem sample(glyphShape(t));
            styleGlyph(&sample, t);
            painter->setPen(sample.pen());
            painter->setBrush(sample.brush());
            painter->drawPath(glyphShape(t).translated(at));
            text(eventTitle(t));
        }
    }
    for (const LegendEntry& e : entries_) {
        QPen pen = e.pen;
        pen.setCosmetic(false);
        painter->setPen(pen);
        painter->drawLine(at + QPointF(-8, 0), at + QPointF(8, 0));
        text(e.text);
    }
    painter->restore();
}

void ReconciliationView::drawForeground(QPainter* painter, const QRectF&) {
    painter->save();
    painter->resetTransform();
    paintLegend(painter, QPointF(8, 8), false);
    painter->restore();
}

QRectF ReconciliationView::drawingRect() const {
    QRectF rect;
    for (const QGraphicsItem* item : scene()->items())
        if (!(item->flags() & QGraphicsItem::ItemIgnoresTransformations) && !item->parentItem())
            rect |= item->sceneBoundingRect();
    return rect.adjusted(-6, -6, 6, 6);
}

double ReconciliationView::leafLabelWidth() const {
    double widest = 0;
    for (const QGraphicsSimpleTextItem* label : labels_)
        widest = std::max(widest, label->boundingRect().width());
    return widest + 12;
}

QRectF ReconciliationView::contentRect() const {
    return scene()->itemsBoundingRect().adjusted(-10, -10, 10, 10);
}

void ReconciliationView::fitAll() {
    userZoomed_ = false;
    if (!species_) return;
    fitReadable(*this, drawingRect(), layout_.row, kMinimumRowPixels,
                {legendSize().width() + 16, 0, leafLabelWidth()});
    updateLabelVisibility();
}

double ReconciliationView::rowPixels() const {
    return layout_.row * transform().m22();
}

bool ReconciliationView::leafNamesShown() const {
    return rowPixels() >= QFontMetricsF(labels_.empty() ? font() : labels_.front()->font()).height() * 0.8;
}

void ReconciliationView::updateLabelVisibility() {
    const bool shown = leafNamesShown();
    for (QGraphicsSimpleTextItem* label : labels_)
        label->setVisible(shown);
}

void ReconciliationView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton &&
        QRectF(QPointF(8, 8), legendSize()).contains(event->position())) {
        setLegendOpen(legendCollapsed());
        event->accept();
        return;
    }
    QGraphicsView::mousePressEvent(event);
}

void ReconciliationView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (!userZoomed_) fitAll();
}

void ReconciliationView::wheelEvent(QWheelEvent* event) {
    const double factor = std::pow(1.0015, event->angleDelta().y());
    const double target = std::clamp(transform().m11() * factor, 0.02, 40.0);
    const double applied = target / transform().m11();
    scale(applied, applied);
    userZoomed_ = true;
    updateLabelVisibility();
    event->accept();
}

bool ReconciliationView::exportDrawing(const QString& path) {
    if (!species_) return false;
    DrawingLegend legend{fullLegendSize(),
                         [this](QPainter* painter) { paintLegend(painter, QPointF(0, 0), true); }};
    return ui::exportDrawing(path, *scene(), contentRect(), legend, tr("Reconciliations"));
}

} // namespace gpurec::ui
