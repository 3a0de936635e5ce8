#include "views/tanglegram_view.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace gpurec::ui {

namespace {

const QColor kUnshared(213, 94, 0); // Okabe–Ito vermillion: apart from grey in every colour vision
constexpr double kMargin = 8.0;
constexpr int kMinimumHeight = 160;

} // namespace

TanglegramView::TanglegramView(QWidget* parent) : QWidget(parent) {
    setObjectName("tanglegram");
    setAccessibleName(tr("Two species trees compared"));
    setMinimumSize(200, kMinimumHeight);
    setMouseTracking(true);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
}

void TanglegramView::setTrees(const SpeciesTree& left, const QString& leftTitle, const SpeciesTree& right,
                              const QString& rightTitle) {
    Tanglegram t = layoutTanglegram(left, right);
    left_ = left;
    right_ = right;
    layout_ = std::move(t);
    leftTitle_ = leftTitle;
    rightTitle_ = rightTitle;
    setAccessibleDescription(summary());
    updateMinimumHeight();
    update();
}

void TanglegramView::clear() {
    layout_.reset();
    left_.reset();
    right_.reset();
    setAccessibleDescription({});
    updateMinimumHeight();
    update();
}

void TanglegramView::setEveryNameShown(bool shown) {
    everyName_ = shown;
    updateMinimumHeight();
    update();
}

double TanglegramView::titleHeight() const {
    return QFontMetricsF(font()).height() + 6;
}

void TanglegramView::updateMinimumHeight() {
    int needed = kMinimumHeight;
    if (everyName_ && layout_) {
        const double row = QFontMetricsF(font()).height() + 2;
        needed = std::max(
            needed, static_cast<int>(std::ceil(2 * kMargin + titleHeight() + row * left_->leafCount())));
    }
    setMinimumHeight(needed);
}

void TanglegramView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) updateMinimumHeight();
    QWidget::changeEvent(event);
}

QString TanglegramView::summary() const {
    if (!layout_) return {};
    const int n = left_->leafCount();
    const int internal = std::max(n - 2, 0); // non-root internal clades of a binary tree
    if (layout_->robinsonFoulds == 0)
        return tr("Same rooted tree: all %1 clades are in both (Robinson–Foulds distance 0).").arg(internal);
    // Two lines at most beside a drawing that needs the height (a scaled screen's search tab).
    return tr("Robinson–Foulds distance %1: %2 of %3 clades differ (thick, vermillion) · %4 line "
              "crossings")
        .arg(layout_->robinsonFoulds)
        .arg(layout_->left.unsharedCount)
        .arg(internal)
        .arg(layout_->crossings);
}

QColor TanglegramView::branchColour(bool leftTree, int e) const {
    const TanglegramSide& side = leftTree ? layout_->left : layout_->right;
    return side.unshared[e] ? kUnshared : palette().color(QPalette::Text);
}

TanglegramView::Geometry TanglegramView::geometry() const {
    Geometry g;
    const QFontMetricsF metrics(font());
    const double title = titleHeight();
    g.rows = QRectF(kMargin, kMargin + title, width() - 2 * kMargin, height() - 2 * kMargin - title);
    const int n = left_->leafCount();
    g.rowHeight = g.rows.height() / std::max(n, 1);
    g.labels = g.rowHeight >= metrics.height() * 0.8;
    if (g.labels) {
        double widest = 0;
        for (int e : left_->leaves())
            widest = std::max(widest, metrics.horizontalAdvance(QString::fromStdString(left_->name(e))));
        g.labelWidth = std::min(widest, g.rows.width() * 0.25) + 4; // names before branch lengths
    }
    const double connectors = std::max(30.0, g.rows.width() * (g.labels ? 0.08 : 0.2)); // crossings need room
    g.treeWidth = std::max(20.0, (g.rows.width() - 2 * g.labelWidth - connectors) / 2);
    g.leftTips = g.rows.left() + g.treeWidth;
    g.rightTips = g.rows.right() - g.treeWidth;
    return g;
}

double TanglegramView::nodeX(const Geometry& g, bool leftTree, int e) const {
    const SpeciesTree& t = leftTree ? *left_ : *right_;
    const double reach = g.treeWidth * t.height(e) / std::max(t.height(t.root()), 1);
    return leftTree ? g.leftTips - reach : g.rightTips + reach;
}

QPointF TanglegramView::nodePosition(bool leftTree, int e) const {
    const Geometry g = geometry();
    const TanglegramSide& side = leftTree ? layout_->left : layout_->right;
    return {nodeX(g, leftTree, e), g.y(side.row[e])};
}

QString TanglegramView::speciesAt(const QPoint& point) const {
    if (!layout_) return {};
    const Geometry g = geometry();
    if (!g.rows.contains(point)) return {};
    const int row =
        std::clamp(static_cast<int>((point.y() - g.rows.top()) / g.rowHeight), 0, left_->leafCount() - 1);
    const bool leftHalf = point.x() < g.rows.center().x();
    const int leaf = (leftHalf ? layout_->left : layout_->right).leafAtRow[row];
    return QString::fromStdString((leftHalf ? *left_ : *right_).name(leaf));
}

void TanglegramView::drawTree(QPainter& painter, const Geometry& g, bool leftTree) const {
    const SpeciesTree& t = leftTree ? *left_ : *right_;
    const TanglegramSide& side = leftTree ? layout_->left : layout_->right;
    const double thin = std::clamp(g.rowHeight / 3, 1.0, 1.5), thick = std::clamp(g.rowHeight, 2.5, 3.5);
    auto pen = [&](int e) {
        return QPen(branchColour(leftTree, e), side.unshared[e] ? thick : thin, Qt::SolidLine, Qt::FlatCap);
    };
    for (int e = 0; e < t.size(); ++e) {
        const double x = nodeX(g, leftTree, e), y = g.y(side.row[e]);
        const int parent = t.parent(e);
        const double px = parent < 0 ? x + (leftTree ? -6 : 6) : nodeX(g, leftTree, parent);
        painter.setPen(pen(e));
        painter.drawLine(QPointF(px, y), QPointF(x, y)); // the branch above e
        if (!t.isLeaf(e))
            painter.drawLine(QPointF(x, g.y(side.row[t.left(e)])), QPointF(x, g.y(side.row[t.right(e)])));
    }
    if (!g.labels) return;
    painter.setPen(palette().color(QPalette::Text));
    const QFontMetricsF metrics(font());
    for (int e : t.leaves()) {
        const double y = g.y(side.row[e]);
        const QString name =
            metrics.elidedText(QString::fromStdString(t.name(e)), Qt::ElideRight, g.labelWidth - 4);
        const QRectF box =
            leftTree ? QRectF(g.leftTips + 4, y - g.rowHeight / 2, g.labelWidth - 4, g.rowHeight)
                     : QRectF(g.rightTips - g.labelWidth, y - g.rowHeight / 2, g.labelWidth - 4, g.rowHeight);
        painter.drawText(box, Qt::AlignVCenter | (leftTree ? Qt::AlignLeft : Qt::AlignRight), name);
    }
}

void TanglegramView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    if (!layout_) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("The start tree and the search's tree, face to face, once a search has run"));
        return;
    }
    const Geometry g = geometry();
    const QFontMetricsF metrics(font());
    painter.setPen(palette().color(QPalette::Text));
    const QRectF titles(kMargin, kMargin, width() - 2 * kMargin, metrics.height());
    painter.drawText(titles, Qt::AlignLeft | Qt::AlignVCenter,
                     metrics.elidedText(leftTitle_, Qt::ElideRight, titles.width() / 2 - 4));
    painter.drawText(titles, Qt::AlignRight | Qt::AlignVCenter,
                     metrics.elidedText(rightTitle_, Qt::ElideRight, titles.width() / 2 - 4));
    // The lines joining each species' two places, under the trees.
    painter.setPen(QPen(palette().color(QPalette::Mid), 1));
    const double from = g.leftTips + g.labelWidth + 2, to = g.rightTips - g.labelWidth - 2;
    for (int e : left_->leaves()) {
        const int other = right_->find(left_->name(e));
        painter.drawLine(QPointF(from, g.y(layout_->left.row[e])),
                         QPointF(to, g.y(layout_->right.row[other])));
    }
    drawTree(painter, g, true);
    drawTree(painter, g, false);
}

bool TanglegramView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && layout_) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString species = speciesAt(help->pos());
        if (!species.isEmpty()) {
            const std::string name = species.toStdString();
            QToolTip::showText(help->globalPos(),
                               tr("%1: row %2 on the left, %3 on the right")
                                   .arg(species)
                                   .arg(layout_->left.row[left_->find(name)] + 1)
                                   .arg(layout_->right.row[right_->find(name)] + 1),
                               this);
        } else {
            QToolTip::hideText();
        }
        return true;
    }
    return QWidget::event(event);
}

} // namespace gpurec::ui
