#pragma once
// Two species trees face to face (core/tree/tanglegram): the left tree's leaves on its right, the
// right tree's mirrored, a line joining each species' two places, and the branches of clades the
// other tree lacks drawn thick in vermillion. Leaf names show where the rows are tall enough;
// hovering a row names its species in both trees either way.
#include "tree/species_tree.hpp"
#include "tree/tanglegram.hpp"

#include <QWidget>
#include <optional>

namespace gpurec::ui {

class TanglegramView : public QWidget {
    Q_OBJECT
  public:
    explicit TanglegramView(QWidget* parent = nullptr);
    QSize sizeHint() const override { return {420, 320}; }

    // Throws std::invalid_argument (from layoutTanglegram) when the leaves differ; the view is then
    // left as it was.
    void setTrees(const SpeciesTree& left, const QString& leftTitle, const SpeciesTree& right,
                  const QString& rightTitle);
    void clear();
    bool hasTrees() const { return layout_.has_value(); }
    const Tanglegram& layout() const { return *layout_; }
    // "Robinson–Foulds distance …" (also the accessible description).
    QString summary() const;
    // The pen colour of node e's branch in the left (true) or right tree.
    QColor branchColour(bool leftTree, int e) const;
    // The species in the row under `point`, of the tree on that half; empty outside the rows.
    QString speciesAt(const QPoint& point) const;
    // Centre of node e's end of its branch, in widget coordinates (for tests and tooltips).
    QPointF nodePosition(bool leftTree, int e) const;
    // Off (the default): the rows share the height the view is given, names drawn only where they
    // fit. On: every row one line of text tall, the view as tall as that needs (in a scroll area), so
    // that every species is named at any tree size.
    void setEveryNameShown(bool shown);
    bool everyNameShown() const { return everyName_; }
    bool namesDrawn() const { return layout_ && geometry().labels; }

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    struct Geometry {
        QRectF rows; // the band the leaf rows share
        double rowHeight = 0, leftTips = 0, rightTips = 0, treeWidth = 0, labelWidth = 0;
        bool labels = false;
        double y(double row) const { return rows.top() + (row + 0.5) * rowHeight; }
    };
    Geometry geometry() const;
    double nodeX(const Geometry& g, bool leftTree, int e) const;
    void drawTree(QPainter& painter, const Geometry& g, bool leftTree) const;
    void updateMinimumHeight(); // what every name needs, or the fixed minimum
    double titleHeight() const;

    std::optional<SpeciesTree> left_, right_;
    std::optional<Tanglegram> layout_;
    QString leftTitle_, rightTitle_;
    bool everyName_ = false;
};

} // namespace gpurec::ui
