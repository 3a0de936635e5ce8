#pragma once
// One family's clades laid out by wave (columns, leaves on the left, the full clade on the right),
// sized by gene count, with edges from each clade to the two children of its splits. Clicking a
// clade selects it (its splits are highlighted).
#include "data/dataset.hpp"

#include <QGraphicsView>
#include <vector>

class QGraphicsPathItem;

namespace gpurec::ui {

class CladeItem;

class CladeDagView : public QGraphicsView {
    Q_OBJECT
  public:
    // Beyond this many splits only each clade's most probable split is drawn.
    static constexpr int kMaxDrawnSplits = 20000;

    explicit CladeDagView(QWidget* parent = nullptr);
    ~CladeDagView() override;
    // Modest: the default grows with the scene and would squeeze the neighbouring views.
    QSize sizeHint() const override { return {360, 300}; }
    void setFamily(const GeneFamily* family); // nullptr clears; must outlive its use here
    void selectClade(int clade);              // -1 clears
    int selectedClade() const { return selected_; }
    int cladeItemCount() const { return static_cast<int>(items_.size()); }
    QPointF cladePosition(int clade) const;
    void fitAll();

  signals:
    void cladeSelected(int clade); // -1 when cleared

  protected:
    void wheelEvent(QWheelEvent* event) override;

  private:
    void highlightSplits();

    const GeneFamily* family_ = nullptr;
    std::vector<CladeItem*> items_;
    QGraphicsPathItem* highlight_ = nullptr;
    int selected_ = -1;
};

} // namespace gpurec::ui
