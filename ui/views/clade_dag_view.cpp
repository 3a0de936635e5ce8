#include "views/clade_dag_view.hpp"

#include "colours/wave_colours.hpp"
#include "engine/wave_schedule.hpp"

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
    CladeItem(int clade, double radius, const QColor& phase)
        : QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius), clade_(clade), phase_(phase) {
        setColour(phase);
        setFlag(ItemIsSelectable);
        setCursor(Qt::PointingHandCursor);
        setZValue(1);
    }
    int clade() const { return clade_; }
    const QColor& phaseColour() const { return phase_; }
    void setColour(const QColor& colour) {
        setBrush(colour);
        setPen(QPen(colour.darker(150), 1.0));
    }
    void setStepMark(bool inCurrentWave) {
        if (inCurrentWave == stepMark_) return;
        stepMark_ = inCurrentWave;
        update();
    }
    bool stepMark() const { return stepMark_; }

  protected:
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
        painter->setBrush(brush());
        QPen outline = isSelected() ? QPen(QColor(255, 140, 0), 4.0)
                       : stepMark_  ? QPen(QColor(0, 90, 200), 3.0)
                                    : pen();
        outline.setCosmetic(true);
        painter->setPen(outline);
        painter->drawEllipse(rect());
    }

  private:
    int clade_;
    QColor phase_;
    bool stepMark_ = false;
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
    baseToolTips_.clear();
    values_.clear();
    highlight_ = nullptr;
    selected_ = -1;
    cladeWave_.clear();
    stepWave_ = -1;
    family_ = family;
    if (!family_) return;
    const CladeSet& cs = family_->clades;
    const int n = cs.cladeCount();
    FamilyWaves waves = computeFamilyWaves(cs);
    cladeWave_ = waves.cladeWave;

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
        baseToolTips_.push_back(QString("<b>Clade %1</b>: %2 gene(s), wave %3, %4 split(s)<br>%5")
                                    .arg(c)
                                    .arg(cs.cladeSize[c])
                                    .arg(waves.cladeWave[c])
                                    .arg(cs.splitOffset[c + 1] - cs.splitOffset[c])
                                    .arg(listed[c]));
        item->setToolTip(baseToolTips_.back());
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

void CladeDagView::setCladeValues(const std::vector<double>& values, const ColourScale& scale,
                                  const QString& title) {
    values_ = values.size() == items_.size() ? values : std::vector<double>{};
    scale_ = scale;
    valueTitle_ = title;
    applyColours();
}

void CladeDagView::applyColours() {
    for (std::size_t c = 0; c < items_.size(); ++c) {
        CladeItem* item = items_[c];
        if (values_.empty()) {
            item->setColour(item->phaseColour());
            item->setToolTip(baseToolTips_[c]);
        } else {
            item->setColour(scale_.colour(values_[c]));
            item->setToolTip(QString("%1<br><b>%2</b>: %3")
                                 .arg(baseToolTips_[c], valueTitle_.toHtmlEscaped(),
                                      QString::number(values_[c], 'g', 10)));
        }
    }
    viewport()->update();
}

QColor CladeDagView::cladeColour(int clade) const {
    return items_.at(clade)->brush().color();
}

void CladeDagView::setStepState(const std::vector<char>& computed, int currentWave) {
    const bool on = computed.size() == items_.size();
    stepWave_ = on ? currentWave : -1;
    for (std::size_t c = 0; c < items_.size(); ++c) {
        items_[c]->setOpacity(on && !computed[c] ? 0.2 : 1.0);
        items_[c]->setStepMark(on && cladeWave_[c] == currentWave);
    }
    viewport()->update();
}

bool CladeDagView::cladeFaded(int clade) const {
    return items_.at(clade)->opacity() < 1.0;
}

bool CladeDagView::cladeInStepWave(int clade) const {
    return items_.at(clade)->stepMark();
}

QString CladeDagView::cladeToolTip(int clade) const {
    return items_.at(clade)->toolTip();
}

// The colour bar, in viewport pixels so that it keeps its size while zooming.
void CladeDagView::drawForeground(QPainter* painter, const QRectF&) {
    if (values_.empty()) return;
    painter->save();
    painter->resetTransform();
    QFont f = font();
    f.setPointSizeF(8.5);
    painter->setFont(f);
    const QFontMetricsF fm(f);
    const QString low = QString::number(scale_.low(), 'g', 3), high = QString::number(scale_.high(), 'g', 3);
    const double barWidth = std::max(120.0, fm.horizontalAdvance(low + high) + 16);
    const QRectF box(8, 8, std::max(barWidth, fm.horizontalAdvance(valueTitle_)) + 16, 3 * fm.height() + 24);
    painter->setPen(QColor(200, 200, 200));
    painter->setBrush(QColor(255, 255, 255, 225));
    painter->drawRoundedRect(box, 4, 4);
    painter->setPen(Qt::black);
    painter->drawText(QRectF(box.left() + 8, box.top() + 6, box.width() - 16, fm.height()),
                      Qt::AlignLeft | Qt::AlignVCenter, valueTitle_);
    const QRectF bar(box.left() + 8, box.top() + 10 + fm.height(), barWidth, 12);
    painter->setPen(Qt::NoPen);
    painter->setBrush(scale_.gradient(bar.topLeft(), bar.topRight()));
    painter->drawRect(bar);
    painter->setPen(Qt::black);
    const QRectF labels(bar.left(), bar.bottom() + 2, bar.width(), fm.height());
    painter->drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, low);
    painter->drawText(labels, Qt::AlignRight | Qt::AlignVCenter, high);
    painter->restore();
}

void CladeDagView::wheelEvent(QWheelEvent* event) {
    double factor = std::pow(1.0015, event->angleDelta().y());
    double target = std::clamp(transform().m11() * factor, 0.01, 40.0);
    scale(target / transform().m11(), target / transform().m11());
    event->accept();
}

} // namespace gpurec::ui
