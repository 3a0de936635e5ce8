#include "views/species_tree_view.hpp"

#include "views/text_scale.hpp"

#include "views/drawing_export.hpp"
#include "views/readable_fit.hpp"

#include <QContextMenuEvent>
#include <QGraphicsPathItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QMenu>
#include <QPainter>
#include <QPainterPathStroker>
#include <QResizeEvent>
#include <QStyleOptionGraphicsItem>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpurec::ui {

namespace {
constexpr double kRow = 20.0; // scene units per leaf
// Scene units per tree level: about as wide as the tree is tall, within these bounds.
constexpr double kMinColumn = 18.0, kMaxColumn = 56.0;
constexpr double kLegendBar = 200.0, kLegendMargin = 8.0;
constexpr double kRootStub = 0.4;      // length of the branch drawn above the root, in columns
constexpr double kTriangleHalf = 0.42; // half the base of a collapsed clade's triangle, in rows
constexpr double kInternalLabelPixels = 10.0;
const QColor kPlain(30, 30, 30);
const QColor kHighlight(255, 140, 0);
const QColor kMatch(200, 30, 30);
const QColor kInternalText(90, 90, 90);

QString formatValue(double v) {
    return QString::number(v, 'g', 3);
}

double degrees(double radians) {
    return radians * 180.0 / std::numbers::pi;
}

QPen branchPen(const QColor& c, double width) {
    QPen p(c, width);
    p.setCosmetic(true); // lines keep their width at any zoom
    p.setCapStyle(Qt::SquareCap);
    return p;
}
} // namespace

// One species branch: the edge above node e and, for an internal node that is not collapsed,
// the bar (or arc) joining its children. A collapsed node's triangle belongs to its hit area.
class BranchItem : public QGraphicsPathItem {
  public:
    explicit BranchItem(int node) : node_(node) {
        setFlag(ItemIsSelectable);
        setAcceptHoverEvents(true);
        setCursor(Qt::PointingHandCursor);
        setColour(kPlain);
        setData(SpeciesTreeView::kKindRole, SpeciesTreeView::Branch);
        setData(SpeciesTreeView::kNodeRole, node);
    }
    int node() const { return node_; }
    QColor colour() const { return pen().color(); }
    void setColour(const QColor& c) { setPen(branchPen(c, 3.0)); }
    void setGeometry(const QPainterPath& path, const QPainterPath& triangle) {
        prepareGeometryChange();
        setPath(path);
        QPainterPathStroker stroker;
        stroker.setWidth(kRow * 0.5);
        hitShape_ = stroker.createStroke(path);
        hitShape_.setFillRule(Qt::WindingFill);
        hitShape_.addPath(triangle);
    }
    QPainterPath shape() const override { return hitShape_; }
    QRectF boundingRect() const override { return hitShape_.boundingRect(); }
    void paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) override {
        painter->setBrush(Qt::NoBrush); // the view does not restore the painter between items
        if (isSelected()) {
            painter->setPen(branchPen(kHighlight, 8.0));
            painter->drawPath(path());
        }
        painter->setPen(pen());
        painter->drawPath(path());
    }

  private:
    int node_;
    QPainterPath hitShape_;
};

// The triangle standing for a collapsed clade, filled with the node's colour.
class CladeTriangle : public QGraphicsPathItem {
  public:
    CladeTriangle(int node, int leaves, const QPainterPath& path) : QGraphicsPathItem(path) {
        setData(SpeciesTreeView::kKindRole, SpeciesTreeView::Triangle);
        setData(SpeciesTreeView::kNodeRole, node);
        setData(SpeciesTreeView::kLeafCountRole, leaves);
        setAcceptedMouseButtons(Qt::NoButton); // clicks go to the branch, whose hit area covers it
        setZValue(-1);
    }
    void setColour(const QColor& c) {
        setPen(branchPen(c, 1.5));
        QColor fill = c;
        fill.setAlphaF(0.35);
        setBrush(fill);
    }
};

SpeciesTreeView::SpeciesTreeView(QWidget* parent) : QGraphicsView(parent) {
    setScene(new QGraphicsScene(this));
    // Collapsing, layouts and label sizes move many items at once; with a few thousand items a
    // spatial index costs more to update than it saves when drawing (bench_species_tree_view).
    scene()->setItemIndexMethod(QGraphicsScene::NoIndex);
    setRenderHint(QPainter::Antialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setBackgroundBrush(Qt::white);
    // Every item sets its own pen and brush; saving the painter around each costs at 1,000+ items.
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
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
    triangles_.clear();
    matches_.clear();
    matchIndex_ = -1;
    coloured_ = false;
    tree_ = tree;
    if (!tree_) {
        collapsed_.clear();
        layout_ = {};
        emit speciesSelected(-1);
        return;
    }
    const int n = tree_->size();
    collapsed_.assign(n, 0);
    matched_.assign(n, 0);
    triangles_.assign(n, nullptr);
    leafCounts_.assign(n, 1);
    labelWidths_.assign(n, 0);
    for (int e = 0; e < n; ++e)
        if (!tree_->isLeaf(e)) leafCounts_[e] = leafCounts_[tree_->left(e)] + leafCounts_[tree_->right(e)];
    for (int e = 0; e < n; ++e) {
        auto* branch = new BranchItem(e);
        branch->setToolTip(QString::fromStdString(tree_->name(e)));
        scene()->addItem(branch);
        branches_.push_back(branch);
        auto* label = new QGraphicsSimpleTextItem;
        label->setFlag(QGraphicsItem::ItemIgnoresTransformations); // names keep their screen size
        label->setData(kNodeRole, e);
        scene()->addItem(label);
        labels_.push_back(label);
    }
    applyLayout();
    fitAll();
}

void SpeciesTreeView::styleLabel(int e) {
    QGraphicsSimpleTextItem* label = labels_[e];
    const bool clade = collapsed_[e] && !tree_->isLeaf(e);
    const bool leafLike = tree_->isLeaf(e) || clade;
    QFont f = font();
    f.setPixelSize(static_cast<int>(
        std::round((leafLike ? kMaximumLabelPixels : kInternalLabelPixels) * textScale(*this))));
    f.setBold(matched_[e]);
    QString text = QString::fromStdString(tree_->name(e));
    if (clade) text = tr("%1 (%n leaves)", nullptr, leafCounts_[e]).arg(text);
    label->setFont(f);
    label->setText(text);
    label->setBrush(matched_[e] ? kMatch : leafLike ? QColor(Qt::black) : kInternalText);
    label->setData(kKindRole, clade ? CladeLabel : leafLike ? LeafLabel : InternalLabel);
    labelWidths_[e] = label->boundingRect().width();
}

QPointF SpeciesTreeView::scenePoint(double column, double row) const {
    if (!circular_) return {column * column_, row * kRow};
    const double r = polar_.radiusAt(column), a = polar_.angleAt(row);
    return {r * std::cos(a), r * std::sin(a)};
}

QPainterPath SpeciesTreeView::branchPath(int e) const {
    const double x = layout_.x[e], y = layout_.y[e];
    const double parentX = e == tree_->root() ? x - kRootStub : layout_.x[tree_->parent(e)];
    QPainterPath path(scenePoint(parentX, y));
    path.lineTo(scenePoint(x, y));
    if (tree_->isLeaf(e) || collapsed_[e]) return path;
    const double top = layout_.y[tree_->left(e)], bottom = layout_.y[tree_->right(e)];
    path.moveTo(scenePoint(x, top));
    if (!circular_) {
        path.lineTo(scenePoint(x, bottom));
    } else { // Qt's angles run counter-clockwise on screen, the layout's clockwise
        const double r = polar_.radiusAt(x);
        path.arcTo(QRectF(-r, -r, 2 * r, 2 * r), -degrees(polar_.angleAt(top)),
                   -degrees(polar_.angleAt(bottom) - polar_.angleAt(top)));
    }
    return path;
}

QPainterPath SpeciesTreeView::trianglePath(int e) const {
    const double y = layout_.y[e];
    QPainterPath path(scenePoint(layout_.x[e], y));
    path.lineTo(scenePoint(layout_.columns, y - kTriangleHalf));
    path.lineTo(scenePoint(layout_.columns, y + kTriangleHalf));
    path.closeSubpath();
    return path;
}

void SpeciesTreeView::placeLabel(int e) {
    QGraphicsSimpleTextItem* label = labels_[e];
    const double w = labelWidths_[e], h = label->boundingRect().height();
    QTransform t;
    if (tree_->isLeaf(e) || collapsed_[e]) {
        const double s = labelScale_;
        label->setPos(scenePoint(layout_.columns, layout_.y[e]));
        if (!circular_) {
            t.scale(s, s).translate(6 / s, -h / 2);
        } else { // along the radius, turned to read left to right on the left half
            const double a = polar_.angleAt(layout_.y[e]);
            const bool flip = std::cos(a) < 0;
            t.rotate(degrees(a) + (flip ? 180 : 0)).scale(s, s).translate(flip ? -w - 6 / s : 6 / s, -h / 2);
        }
    } else { // above its branch, clear of the line
        label->setPos(scenePoint(layout_.x[e], layout_.y[e]));
        t.translate(circular_ ? -w / 2 : -w - 4, -h - 2);
    }
    label->setTransform(t);
}

void SpeciesTreeView::changeEvent(QEvent* event) {
    QGraphicsView::changeEvent(event);
    if (event->type() != QEvent::FontChange || !tree_) return;
    for (int e = 0; e < tree_->size(); ++e) // the names follow the window's text size
        styleLabel(e);
    labelScale_ = -1; // every shown name is placed again
    applyLayout();
    updateLabels();
}

void SpeciesTreeView::applyLayout() {
    layout_ = layoutRectangular(*tree_, collapsed_);
    column_ = std::clamp(layout_.rows * kRow / std::max(layout_.columns, 1.0), kMinColumn, kMaxColumn);
    polar_ = layoutCircular(layout_, kRow, kRootStub);
    branchesRect_ = QRectF();
    for (int e = 0; e < tree_->size(); ++e) {
        BranchItem* branch = branches_[e];
        const bool hidden = layout_.hidden[e];
        const bool clade = collapsed_[e] && !tree_->isLeaf(e) && !hidden;
        if (!clade && triangles_[e]) {
            delete triangles_[e];
            triangles_[e] = nullptr;
        }
        if (hidden && branch->isSelected()) branch->setSelected(false);
        branch->setVisible(!hidden);
        // A collapsed clade's label names its leaf count; leaves are styled once.
        if (!tree_->isLeaf(e) || labelWidths_[e] == 0) styleLabel(e);
        if (hidden) continue;
        const QPainterPath triangle = clade ? trianglePath(e) : QPainterPath();
        branch->setGeometry(branchPath(e), triangle);
        if (clade) {
            if (!triangles_[e]) {
                triangles_[e] = new CladeTriangle(e, leafCounts_[e], triangle);
                scene()->addItem(triangles_[e]);
            }
            triangles_[e]->setPath(triangle);
            triangles_[e]->setColour(branch->colour());
            triangles_[e]->setToolTip(branch->toolTip());
            branchesRect_ |= triangle.boundingRect();
        }
        branchesRect_ |= branch->path().boundingRect();
        placeLabel(e);
    }
    branchesRect_.adjust(-4, -4, 4, 4);
    updateLabels();
}

void SpeciesTreeView::setValues(const std::vector<double>& values, const ColourScale& scale,
                                const QString& title) {
    if (!tree_) return;
    coloured_ = values.size() == branches_.size();
    scale_ = scale;
    legendTitle_ = title;
    for (std::size_t e = 0; e < branches_.size(); ++e) {
        branches_[e]->setColour(coloured_ ? scale.colour(values[e]) : kPlain);
        if (triangles_[e]) triangles_[e]->setColour(branches_[e]->colour());
    }
    viewport()->update();
}

void SpeciesTreeView::setToolTips(const QStringList& perNode) {
    for (std::size_t e = 0; e < branches_.size() && e < static_cast<std::size_t>(perNode.size()); ++e) {
        branches_[e]->setToolTip(
            perNode[e].isEmpty() ? QString::fromStdString(tree_->name(static_cast<int>(e))) : perNode[e]);
        labels_[e]->setToolTip(perNode[e]);
        if (triangles_[e]) triangles_[e]->setToolTip(branches_[e]->toolTip());
    }
}

void SpeciesTreeView::setInternalNamesVisible(bool visible) {
    internalNames_ = visible;
    if (tree_) updateLabels();
}

QRectF SpeciesTreeView::legendTitleRect() const {
    // A title wider than the view wraps (QT_SCALE_FACTOR 1.5, a narrow panel) instead of running off it.
    QFontMetricsF fm(legendFont());
    const double room = std::max(legendBarWidth(), viewport()->width() - 2 * kLegendMargin - 16.0);
    return fm.boundingRect(QRectF(0, 0, room, 1e4), Qt::AlignLeft | Qt::TextWordWrap, legendTitle_);
}

QSizeF SpeciesTreeView::legendSize() const {
    if (!coloured_) return {0, 0};
    QFontMetricsF fm(legendFont());
    const QRectF title = legendTitleRect();
    const double swatchRow = missingSwatchBelowBar() ? fm.height() + 4 : 0.0;
    const double barRow = legendBarWidth() + (missingSwatchBelowBar() ? 0.0 : missingSwatchWidth());
    const double width = std::max({title.width(), barRow, missingSwatchWidth()});
    return {width + 2 * kLegendMargin, title.height() + 2 * fm.height() + 12 + swatchRow + 2 * kLegendMargin};
}

double SpeciesTreeView::missingSwatchWidth() const {
    return 28 + QFontMetricsF(legendFont()).horizontalAdvance(tr("no value"));
}

bool SpeciesTreeView::missingSwatchBelowBar() const {
    // Long end values keep the bar wide; then the "no value" swatch takes a row of its own.
    return legendBarWidth() + missingSwatchWidth() > viewport()->width() - 2 * kLegendMargin - 16;
}

double SpeciesTreeView::legendBarWidth() const {
    // Narrower in a narrow panel, so the legend never runs off the view.
    QFontMetricsF fm(legendFont());
    const double room = viewport()->width() - 2 * kLegendMargin - 16 - missingSwatchWidth();
    // ... but never so narrow that the two end values run into each other.
    const double ends =
        fm.horizontalAdvance(formatValue(scale_.low())) + fm.horizontalAdvance(formatValue(scale_.high()));
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
    const QRectF title = legendTitleRect();
    painter->drawText(QRectF(at, title.size()), Qt::AlignLeft | Qt::TextWordWrap, legendTitle_);
    QRectF bar(at + QPointF(0, title.height() + 4), QSizeF(legendBarWidth(), 12));
    painter->setPen(Qt::NoPen);
    painter->setBrush(scale_.gradient(bar.topLeft(), bar.topRight()));
    painter->drawRect(bar);
    QRectF labels(bar.left(), bar.bottom() + 2, bar.width(), fm.height());
    const bool below = missingSwatchBelowBar();
    QRectF swatch =
        below ? QRectF(bar.left(), labels.bottom() + 4, 12, 12) : QRectF(bar.right() + 12, bar.top(), 12, 12);
    painter->setBrush(ColourScale::missing());
    painter->drawRect(swatch);
    painter->setPen(Qt::black);
    painter->drawText(QPointF(swatch.right() + 4, swatch.bottom() - 1), tr("no value"));
    painter->drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, formatValue(scale_.low()));
    painter->drawText(labels, Qt::AlignRight | Qt::AlignVCenter, formatValue(scale_.high()));
    if (scale_.logarithmic()) {
        const double top = below ? swatch.bottom() + 2 : labels.bottom();
        painter->drawText(QRectF(labels.left(), top, labels.width(), fm.height()),
                          Qt::AlignLeft | Qt::AlignVCenter, tr("logarithmic scale"));
    }
    painter->restore();
}

void SpeciesTreeView::drawForeground(QPainter* painter, const QRectF&) {
    painter->save();
    painter->resetTransform(); // viewport pixels: the legend keeps its size while zooming
    paintLegend(painter, QPointF(8, 8));
    painter->restore();
}

std::vector<int> SpeciesTreeView::search(const QString& text) {
    matches_.clear();
    matchIndex_ = -1;
    if (!tree_) return matches_;
    int exact = -1;
    for (int e = 0; e < tree_->size(); ++e) {
        const QString name = QString::fromStdString(tree_->name(e));
        const bool match = !text.isEmpty() && name.contains(text, Qt::CaseInsensitive);
        if (match && exact < 0 && name.compare(text, Qt::CaseInsensitive) == 0) exact = e;
        if (match) matches_.push_back(e);
        if (matched_[e] == match) continue; // restyling every label on each keystroke is slow at scale
        matched_[e] = match;
        styleLabel(e);
        placeLabel(e);
    }
    if (exact >= 0) {
        auto at = std::find(matches_.begin(), matches_.end(), exact);
        std::rotate(matches_.begin(), at, at + 1);
    }
    updateLabels();
    if (!matches_.empty()) {
        matchIndex_ = 0;
        selectSpecies(matches_.front());
    }
    return matches_;
}

int SpeciesTreeView::selectNextMatch() {
    if (matches_.empty()) return -1;
    matchIndex_ = (matchIndex_ + 1) % static_cast<int>(matches_.size());
    selectSpecies(matches_[matchIndex_]);
    return matchIndex_;
}

void SpeciesTreeView::selectSpecies(int node) {
    scene()->clearSelection();
    if (!tree_ || node < 0 || node >= static_cast<int>(branches_.size())) return;
    if (layout_.hidden[node]) { // open the collapsed clades around it
        for (int a = tree_->parent(node); a >= 0; a = tree_->parent(a))
            collapsed_[a] = 0;
        applyLayout();
        if (!userZoomed_) fitAll();
    }
    branches_[node]->setSelected(true);
    centerOn(branches_[node]->path().boundingRect().center());
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

void SpeciesTreeView::setCollapsed(int node, bool collapsed) {
    if (!tree_ || node < 0 || node >= tree_->size() || tree_->isLeaf(node) ||
        bool(collapsed_[node]) == collapsed)
        return;
    const int selected = selectedSpecies();
    collapsed_[node] = collapsed;
    applyLayout();
    if (selected >= 0 && layout_.hidden[selected]) branches_[node]->setSelected(true);
    if (!userZoomed_)
        fitAll();
    else
        scene()->setSceneRect(sceneRect() | branchesRect_);
    emit collapsedChanged(node);
}

bool SpeciesTreeView::isCollapsed(int node) const {
    return tree_ && node >= 0 && node < tree_->size() && collapsed_[node];
}

bool SpeciesTreeView::anyCollapsed() const {
    return std::find(collapsed_.begin(), collapsed_.end(), 1) != collapsed_.end();
}

void SpeciesTreeView::expandAll() {
    if (!tree_ || !anyCollapsed()) return;
    collapsed_.assign(collapsed_.size(), 0);
    applyLayout();
    if (!userZoomed_) fitAll();
}

void SpeciesTreeView::setCircular(bool circular) {
    if (circular_ == circular) return;
    circular_ = circular;
    if (!tree_) return;
    applyLayout();
    fitAll();
}

QPointF SpeciesTreeView::nodePosition(int node) const {
    return scenePoint(layout_.x.at(node), layout_.y.at(node));
}

QRectF SpeciesTreeView::cladeRect(int node) const {
    QRectF rect;
    if (!tree_) return rect;
    // Postorder: a clade is the run of nodes ending at its root.
    for (int e = node - 2 * leafCounts_.at(node) + 2; e <= node; ++e)
        if (!layout_.hidden[e]) {
            rect |= branches_[e]->path().boundingRect();
            if (triangles_[e]) rect |= triangles_[e]->path().boundingRect();
        }
    return rect.adjusted(-4, -4, 4, 4);
}

void SpeciesTreeView::zoomBy(double factor) {
    double current = transform().m11();
    double target = std::clamp(current * factor, 0.02, 50.0);
    scale(target / current, target / current);
    userZoomed_ = true;
    updateLabels();
}

double SpeciesTreeView::rowPixels() const {
    return kRow * transform().m22();
}

double SpeciesTreeView::labelPixels() const {
    return std::min(maximumLabelPixels(), 0.8 * rowPixels());
}

double SpeciesTreeView::maximumLabelPixels() const {
    return kMaximumLabelPixels * textScale(*this);
}

bool SpeciesTreeView::leafNamesShown() const {
    return labelPixels() >= kMinimumLabelPixels;
}

bool SpeciesTreeView::labelWanted(int e) const {
    if (layout_.hidden[e]) return false;
    if (tree_->isLeaf(e) || collapsed_[e]) return matched_[e] || leafNamesShown();
    return matched_[e] || internalNames_;
}

void SpeciesTreeView::updateLabels() {
    if (!tree_) return;
    // Whole pixels, so that a smooth zoom re-places the names only when their size changes.
    const double scale = std::round(std::max(labelPixels(), kMinimumLabelPixels)) / maximumLabelPixels();
    const bool resized = scale != labelScale_;
    labelScale_ = scale;
    for (int e = 0; e < tree_->size(); ++e) {
        const bool wanted = labelWanted(e);
        if (wanted && resized && (tree_->isLeaf(e) || collapsed_[e])) placeLabel(e);
        if (labels_[e]->isVisible() != wanted) labels_[e]->setVisible(wanted);
    }
    if (resized) // names hidden now are placed once they are shown again
        for (int e = 0; e < tree_->size(); ++e)
            if (!labels_[e]->isVisible() && (tree_->isLeaf(e) || collapsed_[e])) placeLabel(e);
}

void SpeciesTreeView::resizeEvent(QResizeEvent* event) {
    QGraphicsView::resizeEvent(event);
    if (!userZoomed_) fitAll();
}

void SpeciesTreeView::fitAll() {
    userZoomed_ = false;
    if (!tree_) return;
    const double legend = legendSize().height() + 8 + labelHalfHeight(); // the top name clear of it
    auto fit = [&](double labels) {
        if (!circular_)
            fitReadable(*this, branchesRect_, kRow, kMinimumRowPixels, {0, legend, labels},
                        kMaximumRowPixels);
        else
            fitRect(*this, branchesRect_, branchesRect_, true,
                    {labels, std::max(legend, labels), labels, labels});
        updateLabels();
    };
    fit(leafLabelWidth());
    if (!leafNamesShown()) fit(12); // hidden names need no room
}

void SpeciesTreeView::fitToSelection() {
    const int node = selectedSpecies();
    if (!tree_ || node < 0) {
        fitAll();
        return;
    }
    // A leaf alone would fill the view with one line: show it with its sister instead.
    const int clade = tree_->isLeaf(node) && node != tree_->root() ? tree_->parent(node) : node;
    const double labels = leafLabelWidth();
    fitRect(*this, cladeRect(clade), branchesRect_, circular_,
            {circular_ ? labels : 0, legendSize().height() + 8 + labelHalfHeight(), labels,
             circular_ ? labels : 0});
    userZoomed_ = true;
    updateLabels();
}

void SpeciesTreeView::wheelEvent(QWheelEvent* event) {
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

int SpeciesTreeView::branchAt(const QPoint& viewportPos) const {
    for (QGraphicsItem* item : items(viewportPos))
        if (auto* b = dynamic_cast<BranchItem*>(item)) return b->node();
    return -1;
}

void SpeciesTreeView::mouseDoubleClickEvent(QMouseEvent* event) {
    const int node = tree_ ? branchAt(event->position().toPoint()) : -1;
    if (node < 0 || tree_->isLeaf(node)) {
        QGraphicsView::mouseDoubleClickEvent(event);
        return;
    }
    setCollapsed(node, !collapsed_[node]);
    event->accept();
}

void SpeciesTreeView::contextMenuEvent(QContextMenuEvent* event) {
    if (!tree_) return;
    const int node = branchAt(event->pos());
    if (node >= 0) selectSpecies(node);
    QMenu menu(this);
    menu.setObjectName("speciesTreeMenu");
    if (node >= 0 && !tree_->isLeaf(node)) {
        const bool collapsed = collapsed_[node];
        menu.addAction(collapsed ? tr("Expand clade") : tr("Collapse clade"), this,
                       [this, node, collapsed] { setCollapsed(node, !collapsed); });
    }
    menu.addAction(tr("Expand all"), this, &SpeciesTreeView::expandAll)->setEnabled(anyCollapsed());
    menu.addSeparator();
    menu.addAction(tr("Fit to selection"), this, &SpeciesTreeView::fitToSelection)->setEnabled(node >= 0);
    menu.addAction(tr("Fit all"), this, &SpeciesTreeView::fitAll);
    menu.exec(event->globalPos());
}

QRectF SpeciesTreeView::contentRect() const {
    QRectF rect; // visible items only: hidden internal names must not widen the drawing
    for (const QGraphicsItem* item : scene()->items())
        if (item->isVisible()) rect |= item->sceneBoundingRect();
    return rect.adjusted(-10, -10, 10, 10);
}

double SpeciesTreeView::labelHalfHeight() const {
    return labels_.empty() ? 0.0 : labelScale_ * labels_.front()->boundingRect().height() / 2;
}

double SpeciesTreeView::leafLabelWidth() const {
    double widest = 0;
    for (int e = 0; tree_ && e < tree_->size(); ++e)
        if (!layout_.hidden[e] && (tree_->isLeaf(e) || collapsed_[e]))
            widest = std::max(widest, labelWidths_[e]);
    return widest + 12;
}

bool SpeciesTreeView::exportDrawing(const QString& path) {
    if (!tree_) return false;
    DrawingLegend legend{legendSize(), [this](QPainter* painter) { paintLegend(painter, QPointF(0, 0)); }};
    return ui::exportDrawing(path, *scene(), contentRect(), legend, tr("Species tree"));
}

} // namespace gpurec::ui
