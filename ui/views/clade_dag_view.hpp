#pragma once
// One family's clades laid out by wave (columns, leaves on the left, the full clade on the right),
// sized by gene count, with edges from each clade to the two children of its splits. Clicking a
// clade selects it (its splits are highlighted). Clades can instead be coloured by a per-clade value
// (a heat map, with a colour bar in the corner).
#include "colours/colour_scale.hpp"
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
    // Colours clade c by scale.colour(values[c]) and adds "title: value" to its tooltip; empty
    // values restore the wave-phase colours. Values must have one entry per clade.
    void setCladeValues(const std::vector<double>& values, const ColourScale& scale, const QString& title);
    bool showsValues() const { return !values_.empty(); }
    const ColourScale& valueScale() const { return scale_; }
    QColor cladeColour(int clade) const;
    QString cladeToolTip(int clade) const;
    // The wave stepper's position: clades not `computed` yet are faded, those of `currentWave`
    // outlined. An empty `computed` clears both.
    void setStepState(const std::vector<char>& computed, int currentWave);
    bool cladeFaded(int clade) const;
    bool cladeInStepWave(int clade) const;

  signals:
    void cladeSelected(int clade); // -1 when cleared

  protected:
    void wheelEvent(QWheelEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

  private:
    void highlightSplits();
    void applyColours();

    const GeneFamily* family_ = nullptr;
    std::vector<CladeItem*> items_;
    QGraphicsPathItem* highlight_ = nullptr;
    int selected_ = -1;
    std::vector<QString> baseToolTips_; // per clade, without the value
    std::vector<double> values_;
    std::vector<int> cladeWave_;
    int stepWave_ = -1;
    ColourScale scale_;
    QString valueTitle_;
};

} // namespace gpurec::ui
