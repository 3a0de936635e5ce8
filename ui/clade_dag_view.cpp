#include "clade_dag_view.hpp"

#include "engine/wave_schedule.hpp"
#include "wave_colours.hpp"

#include <QGraphicsEllipseItem>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <numeric>

namespace gpurec::ui {

namespace {
// Horizontal distance between waves: the drawing about twice as wide as tall, within these bounds.
constexpr double kMinColumn = 30.0, kMaxColumn = 110.0;
constexpr double kGap = 4.0;
constexpr double kMinRadius = 3.0, kMaxRadius = 16.0;
constexpr int kMaxGeneLabels = 80;
constexpr int kMaxListedGenes = 12;
} // namespace

class CladeItem : public QGraphicsEllipseItem {
  public:
    CladeItem(int clade, double radius, const QColor& colour)
        : QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius), clade_(clade) {
        setBrush(colour);
        setPen(QPen(colour.darker(150), 1.0));
        setFlag(ItemIsSelectable);
        setCursor(Qt::PointingHandCursor);
        setZValue(1);
    }
    int clade() const { return clade_; }

  protected:
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
        painter->setBrush(brush());
        QPen outline = isSelected() ? QPen(QColor(255, 140, 0), 4.0) : pen();
        outline.setCosmetic(true);
        painter->setPen(outline);
        painter->drawEllipse(rect());
    }

  private:
    int clade_;
};

CladeDagView::CladeDagView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(Qt::white);
    connect(scene(), &QGraphicsScene::selectionChanged, this, [this] {
        int clade = -1;
        for (QGraphicsItem* item : scene()->selectedItems())
            if (auto* c = dynamic_cast<CladeItem*>(item)) clade = c->clade();
        if (clade == selected_) return;
        selected_ = clade;
        highlightSplits();
        emit cladeSelected(clade);
    });
}

// Deleting selected items would report a cleared selection to half-destroyed owners.
CladeDagView::~CladeDagView() {
    scene()->blockSignals(true);
}

void CladeDagView::setFamily(const GeneFamily* family) {
    QSignalBlocker block(scene());
    scene()->clear();
    items_.clear();
    highlight_ = nullptr;
    selected_ = -1;
    family_ = family;
    if (!family_) return;
    const CladeSet& cs = family_->clades;
    const int n = cs.cladeCount();
    FamilyWaves waves = computeFamilyWaves(cs);

    // Within a wave, clades are ordered by the mean index of their genes, which keeps related
    // clades near each other and their edges short.
    std::vector<double> key(n);
    std::vector<QString> listed(n);
    for (int c = 0; c < n; ++c) {
        std::vector<int> genes = genesOf(cs, c);
        key[c] = std::accumulate(genes.begin(), genes.end(), 0.0) / std::max<std::size_t>(genes.size(), 1);
        QStringList names;
        for (std::size_t i = 0; i < genes.size() && i < kMaxListedGenes; ++i)
            names << QString::fromStdString(cs.geneNames[genes[i]]);
        if (genes.size() > kMaxListedGenes) names << QString("… %1 more").arg(genes.size() - kMaxListedGenes);
        listed[c] = names.join(", ").toHtmlEscaped();
    }
    std::vector<std::vector<int>> columns(waves.waveCount);
    for (int c = 0; c < n; ++c)
        columns[waves.cladeWave[c]].push_back(c);
    const int largest = *std::max_element(cs.cladeSize.begin(), cs.cladeSize.end());
    auto radius = [&](int c) {
        return kMinRadius + (kMaxRadius - kMinRadius) * std::sqrt(double(cs.cladeSize[c]) / largest);
    };

    std::vector<QPointF> position(n);
    double tallest = 0;
    std::vector<double> heights(columns.size(), 0.0);
    for (std::size_t w = 0; w < columns.size(); ++w) {
        std::sort(columns[w].begin(), columns[w].end(), [&](int a, int b) { return key[a] < key[b]; });
        for (int c : columns[w])
            heights[w] += 2 * radius(c) + kGap;
        tallest = std::max(tallest, heights[w]);
    }
    const double column =
        std::clamp(2 * tallest / std::max<std::size_t>(columns.size(), 1), kMinColumn, kMaxColumn);
    for (std::size_t w = 0; w < columns.size(); ++w) {
        double y = (tallest - heights[w]) / 2;
        for (int c : columns[w]) {
            double r = radius(c);
            position[c] = QPointF(w * column, y + r);
            y += 2 * r + kGap;
        }
    }

    QPainterPath edges;
    const bool allSplits = cs.splitCount() <= kMaxDrawnSplits;
    for (int c = 0; c < n; ++c) {
        int first = cs.splitOffset[c], last = cs.splitOffset[c + 1];
        if (!allSplits && last > first) {
            auto best = std::max_element(
                cs.splits.begin() + first, cs.splits.begin() + last,
                [](const CladeSplit& a, const CladeSplit& b) { return a.weight < b.weight; });
            first = static_cast<int>(best - cs.splits.begin());
            last = first + 1;
        }
        for (int s = first; s < last; ++s)
            for (int child : {cs.splits[s].left, cs.splits[s].right}) {
                edges.moveTo(position[c]);
                edges.lineTo(position[child]);
            }
    }
    QPen edgePen(QColor(150, 150, 150, 110), 0.8);
    edgePen.setCosmetic(true);
    scene()->addPath(edges, edgePen);

    QFont labelFont = font();
    labelFont.setPointSizeF(7.5);
    const bool labelGenes = cs.geneCount() <= kMaxGeneLabels;
    for (int c = 0; c < n; ++c) {
        WavePhase phase = cs.cladeSize[c] == 1  ? WavePhase::Leaves
                          : c == cs.rootClade() ? WavePhase::Root
                                                : WavePhase::Internal;
        auto* item = new CladeItem(c, radius(c), phaseColour(phase));
        item->setPos(position[c]);
        item->setToolTip(QString("<b>Clade %1</b>: %2 gene(s), wave %3, %4 split(s)<br>%5")
                             .arg(c)
                             .arg(cs.cladeSize[c])
                             .arg(waves.cladeWave[c])
                             .arg(cs.splitOffset[c + 1] - cs.splitOffset[c])
                             .arg(listed[c]));
        scene()->addItem(item);
        items_.push_back(item);
        if (labelGenes && cs.cladeSize[c] == 1) {
            auto* label =
                scene()->addSimpleText(QString::fromStdString(cs.geneNames[cs.cladeGene[c]]), labelFont);
            label->setPos(position[c].x() - label->boundingRect().width() - radius(c) - 3,
                          position[c].y() - label->boundingRect().height() / 2);
        }
    }
    fitAll();
}

void CladeDagView::highlightSplits() {
    delete highlight_;
    highlight_ = nullptr;
    if (!family_ || selected_ < 0) return;
    const CladeSet& cs = family_->clades;
    QPainterPath path;
    for (int s = cs.splitOffset[selected_]; s < cs.splitOffset[selected_ + 1]; ++s)
        for (int child : {cs.splits[s].left, cs.splits[s].right}) {
            path.moveTo(items_[selected_]->pos());
            path.lineTo(items_[child]->pos());
        }
    QPen pen(QColor(255, 140, 0), 2.0);
    pen.setCosmetic(true);
    highlight_ = scene()->addPath(path, pen);
    highlight_->setZValue(0.5);
}

void CladeDagView::selectClade(int clade) {
    scene()->clearSelection();
    if (clade < 0 || clade >= static_cast<int>(items_.size())) return;
    items_[clade]->setSelected(true);
    centerOn(items_[clade]);
}

QPointF CladeDagView::cladePosition(int clade) const {
    return items_.at(clade)->pos();
}

void CladeDagView::fitAll() {
    if (!family_) return;
    fitInView(scene()->itemsBoundingRect().adjusted(-10, -10, 10, 10), Qt::KeepAspectRatio);
}

void CladeDagView::wheelEvent(QWheelEvent* event) {
    double factor = std::pow(1.0015, event->angleDelta().y());
    double target = std::clamp(transform().m11() * factor, 0.01, 40.0);
    scale(target / transform().m11(), target / transform().m11());
    event->accept();
}

} // namespace gpurec::ui
