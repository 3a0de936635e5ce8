#include "species_tree_view.hpp"

#include "drawing_export.hpp"
#include "readable_fit.hpp"
#include "species_tree_layout.hpp"

#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QPainter>
#include <QPainterPathStroker>
#include <QResizeEvent>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {
constexpr double kRow = 20.0; // scene units per leaf
// Scene units per tree level: about as wide as the tree is tall, within these bounds.
constexpr double kMinColumn = 18.0, kMaxColumn = 56.0;
constexpr double kLegendBar = 200.0, kLegendMargin = 8.0;
constexpr double kRootStub = 0.4; // length of the branch drawn above the root, in columns
const QColor kPlain(30, 30, 30);
const QColor kHighlight(255, 140, 0);
const QColor kMatch(200, 30, 30);

QString formatValue(double v) {
    return QString::number(v, 'g', 3);
}
} // namespace

// One species branch: the horizontal edge above node e and, for an internal node, the vertical
// bar joining its children.
class BranchItem : public QGraphicsPathItem {
  public:
    BranchItem(int node, const QPainterPath& path) : QGraphicsPathItem(path), node_(node) {
        setFlag(ItemIsSelectable);
        setAcceptHoverEvents(true);
        setCursor(Qt::PointingHandCursor);
        setColour(kPlain);
        QPainterPathStroker stroker;
        stroker.setWidth(kRow * 0.5);
        hitShape_ = stroker.createStroke(path);
    }
    int node() const { return node_; }
    QColor colour() const { return pen().color(); }
    void setColour(const QColor& c) {
        QPen p(c, 3.0);
        p.setCosmetic(true);
        p.setCapStyle(Qt::SquareCap);
        setPen(p);
    }
    QPainterPath shape() const override { return hitShape_; }
    QRectF boundingRect() const override { return hitShape_.boundingRect(); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
        if (isSelected()) {
            QPen halo(kHighlight, 8.0);
            halo.setCosmetic(true);
            painter->setPen(halo);
            painter->drawPath(path());
        }
        painter->setPen(pen());
        painter->drawPath(path());
    }

  private:
    int node_;
    QPainterPath hitShape_;
};

SpeciesTreeView::SpeciesTreeView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(Qt::white);
    setViewportUpdateMode(
        QGraphicsView::FullViewportUpdate); // the legend overlay must not scroll with the tree
    connect(scene(), &QGraphicsScene::selectionChanged, this,
            [this] { emit speciesSelected(selectedSpecies()); });
}

// Deleting selected items would report a cleared selection to half-destroyed owners.
SpeciesTreeView::~SpeciesTreeView() {
    scene()->blockSignals(true);
}

void SpeciesTreeView::setTree(const SpeciesTree* tree) {
    QSignalBlocker block(scene());
    scene()->clear();
    branches_.clear();
    labels_.clear();
    coloured_ = false;
    tree_ = tree;
    if (!tree_) {
        emit speciesSelected(-1);
        return;
    }
    TreeLayout layout = layoutRectangular(*tree_);
    const double column =
        std::clamp(layout.rows * kRow / std::max(layout.columns, 1.0), kMinColumn, kMaxColumn);
    QFont labelFont = font();
    labelFont.setPointSizeF(9);
    QFont internalFont = labelFont;
    internalFont.setPointSizeF(7.5);
    for (int e = 0; e < tree_->size(); ++e) {
        const double x = layout.x[e] * column, y = layout.y[e] * kRow;
        const double parentX =
            e == tree_->root() ? x - kRootStub * column : layout.x[tree_->parent(e)] * column;
        QPainterPath path(QPointF(parentX, y));
        path.lineTo(x, y);
        if (!tree_->isLeaf(e)) {
            path.moveTo(x, layout.y[tree_->left(e)] * kRow);
            path.lineTo(x, layout.y[tree_->right(e)] * kRow);
        }
        auto* branch = new BranchItem(e, path);
        scene()->addItem(branch);
        branches_.push_back(branch);
        auto* label = scene()->addSimpleText(QString::fromStdString(tree_->name(e)),
                                             tree_->isLeaf(e) ? labelFont : internalFont);
        // Labels keep their screen size; an internal name sits above its branch, clear of the line.
        QRectF box = label->boundingRect();
        label->setFlag(QGraphicsItem::ItemIgnoresTransformations);
        if (tree_->isLeaf(e)) {
            label->setPos(x, y);
            label->setTransform(QTransform::fromTranslate(6, -box.height() / 2));
        } else {
            label->setPos(x, y);
            label->setTransform(QTransform::fromTranslate(-box.width() - 4, -box.height() - 2));
            label->setBrush(QColor(90, 90, 90));
            label->setVisible(false);
        }
        branch->setToolTip(QString::fromStdString(tree_->name(e)));
        labels_.push_back(label);
    }
    scene()->setSceneRect(contentRect());
    fitAll();
}

void SpeciesTreeView::setValues(const std::vector<double>& values, const ColourScale& scale,
                                const QString& title) {
    if (!tree_) return;
    coloured_ = values.size() == branches_.size();
    scale_ = scale;
    legendTitle_ = title;
    for (std::size_t e = 0; e < branches_.size(); ++e)
        branches_[e]->setColour(coloured_ ? scale.colour(values[e]) : kPlain);
    viewport()->update();
}

void SpeciesTreeView::setToolTips(const QStringList& perNode) {
    for (std::size_t e = 0; e < branches_.size() && e < static_cast<std::size_t>(perNode.size()); ++e) {
        branches_[e]->setToolTip(perNode[e].isEmpty() ? QString::fromStdString(tree_->name(static_cast<int>(e)))
                                                       : perNode[e]);
        labels_[e]->setToolTip(perNode[e]);
    }
}

void SpeciesTreeView::setInternalNamesVisible(bool visible) {
    if (!tree_) return;
    for (int e = 0; e < tree_->size(); ++e)
        if (!tree_->isLeaf(e)) labels_[e]->setVisible(visible || labels_[e]->brush().color() == kMatch);
    scene()->setSceneRect(sceneRect().united(contentRect()));
}

QSizeF SpeciesTreeView::legendSize() const {
    if (!coloured_) return {0, 0};
    QFontMetricsF fm(legendFont());
    double width =
        std::max(fm.horizontalAdvance(legendTitle_), legendBarWidth() + 28 + fm.horizontalAdvance(tr("no value")));
    return {width + 2 * kLegendMargin, 3 * fm.height() + 12 + 2 * kLegendMargin};
}

double SpeciesTreeView::legendBarWidth() const {
    // Narrower in a narrow panel, so the legend never runs off the view.
    QFontMetricsF fm(legendFont());
    const double room = viewport()->width() - 2 * kLegendMargin - 16 - 28 - fm.horizontalAdvance(tr("no value"));
    // ... but never so narrow that the two end values run into each other.
    const double ends = fm.horizontalAdvance(formatValue(scale_.low())) + fm.horizontalAdvance(formatValue(scale_.high()));
    return std::clamp(room, std::min(ends + 16, kLegendBar), kLegendBar);
}

QFont SpeciesTreeView::legendFont() const {
    QFont f = font();
    f.setPointSizeF(8.5);
    return f;
}

void SpeciesTreeView::paintLegend(QPainter* painter, const QPointF& topLeft) const {
    if (!coloured_) return;
    painter->save();
    painter->setFont(legendFont());
    QFontMetricsF fm(painter->font());
    QRectF box(topLeft, legendSize());
    painter->setPen(QColor(200, 200, 200));
    painter->setBrush(QColor(255, 255, 255, 225));
    painter->drawRoundedRect(box, 4, 4);
    QPointF at = topLeft + QPointF(kLegendMargin, kLegendMargin);
    painter->setPen(Qt::black);
    painter->drawText(QRectF(at, QSizeF(box.width(), fm.height())), Qt::AlignLeft | Qt::AlignVCenter,
                      legendTitle_);
    QRectF bar(at + QPointF(0, fm.height() + 4), QSizeF(legendBarWidth(), 12));
    painter->setPen(Qt::NoPen);
    painter->setBrush(scale_.gradient(bar.topLeft(), bar.topRight()));
    painter->drawRect(bar);
    painter->setBrush(ColourScale::missing());
    QRectF swatch(bar.right() + 12, bar.top(), 12, 12);
    painter->drawRect(swatch);
    painter->setPen(Qt::black);
    painter->drawText(QPointF(swatch.right() + 4, swatch.bottom() - 1), tr("no value"));
    QRectF labels(bar.left(), bar.bottom() + 2, bar.width(), fm.height());
    painter->drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, formatValue(scale_.low()));
    painter->drawText(labels, Qt::AlignRight | Qt::AlignVCenter, formatValue(scale_.high()));
    if (scale_.logarithmic())
        painter->drawText(QRectF(labels.translated(0, fm.height())), Qt::AlignLeft | Qt::AlignVCenter,
                          tr("logarithmic scale"));
    painter->restore();
}

void SpeciesTreeView::drawForeground(QPainter* painter, const QRectF&) {
    painter->save();
    painter->resetTransform(); // viewport pixels: the legend keeps its size while zooming
    paintLegend(painter, QPointF(8, 8));
    painter->restore();
}

std::vector<int> SpeciesTreeView::search(const QString& text) {
    std::vector<int> matches;
    if (!tree_) return matches;
    for (int e = 0; e < tree_->size(); ++e) {
        bool match =
            !text.isEmpty() && QString::fromStdString(tree_->name(e)).contains(text, Qt::CaseInsensitive);
        QFont f = labels_[e]->font();
        f.setBold(match);
        labels_[e]->setFont(f);
        labels_[e]->setBrush(match ? kMatch : tree_->isLeaf(e) ? QColor(Qt::black) : QColor(90, 90, 90));
        if (!tree_->isLeaf(e) && match) labels_[e]->setVisible(true);
        if (match) matches.push_back(e);
    }
    scene()->setSceneRect(sceneRect().united(contentRect()));
    if (!matches.empty()) selectSpecies(matches.front());
    return matches;
}

void SpeciesTreeView::selectSpecies(int node) {
    scene()->clearSelection();
    if (node < 0 || node >= static_cast<int>(branches_.size())) return;
    branches_[node]->setSelected(true);
    centerOn(branches_[node]);
}

int SpeciesTreeView::selectedSpecies() const {
    for (QGraphicsItem* item : scene()->selectedItems())
        if (auto* b = dynamic_cast<BranchItem*>(item)) return b->node();
    return -1;
}

QColor SpeciesTreeView::branchColour(int node) const {
    return branches_.at(node)->colour();
}

QString SpeciesTreeView::toolTipOf(int node) const {
    return branches_.at(node)->toolTip();
}

void SpeciesTreeView::zoomBy(double factor) {
    double current = transform().m11();
    double target = std::clamp(current * factor, 0.02, 50.0);
    scale(target / current, target / current);
    userZoomed_ = true;
    updateLabelVisibility();
}

double SpeciesTreeView::rowPixels() const {
    return kRow * transform().m22();
}

bool SpeciesTreeView::leafNamesShown() const {
    return rowPixels() >= QFontMetricsF(labels_.empty() ? font() : labels_.front()->font()).height() * 0.8;
}

void SpeciesTreeView::updateLabelVisibility() {
    if (!tree_) return;
    const bool shown = leafNamesShown();
    for (int e = 0; e < tree_->size(); ++e)
        if (tree_->isLeaf(e)) labels_[e]->setVisible(shown || labels_[e]->brush().color() == kMatch);
}

void SpeciesTreeView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (!userZoomed_) fitAll();
}

void SpeciesTreeView::fitAll() {
    userZoomed_ = false;
    if (!tree_) return;
    fitReadable(*this, branchesRect(), kRow, kMinimumRowPixels, {0, legendSize().height() + 8, leafLabelWidth()});
    updateLabelVisibility();
}

void SpeciesTreeView::wheelEvent(QWheelEvent* event) {
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

QRectF SpeciesTreeView::branchesRect() const {
    QRectF rect;
    for (const BranchItem* b : branches_) rect |= b->sceneBoundingRect();
    return rect.adjusted(-4, -4, 4, 4);
}

double SpeciesTreeView::leafLabelWidth() const {
    double widest = 0;
    for (int e = 0; tree_ && e < tree_->size(); ++e)
        if (tree_->isLeaf(e)) widest = std::max(widest, labels_[e]->boundingRect().width());
    return widest + 12;
}

QRectF SpeciesTreeView::contentRect() const {
    QRectF rect; // visible items only: hidden internal names must not widen the drawing
    for (const QGraphicsItem* item : scene()->items())
        if (item->isVisible()) rect |= item->sceneBoundingRect();
    return rect.adjusted(-10, -10, 10, 10);
}

bool SpeciesTreeView::exportDrawing(const QString& path) {
    if (!tree_) return false;
    DrawingLegend legend{legendSize(), [this](QPainter* painter) { paintLegend(painter, QPointF(0, 0)); }};
    return ui::exportDrawing(path, *scene(), contentRect(), legend, tr("Species tree"));
}

} // namespace gpurec::ui
