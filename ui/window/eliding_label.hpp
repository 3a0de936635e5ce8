#pragma once
// A one-line label that may be narrower than its text: it draws the text elided ("…") and then
// offers the whole text as its tooltip. For status-bar fields, which otherwise clip on a small
// screen or at QT_SCALE_FACTOR 1.5.
#include <QLabel>

namespace gpurec::ui {

class ElidingLabel : public QLabel {
    Q_OBJECT
  public:
    explicit ElidingLabel(QWidget* parent = nullptr);
    QSize minimumSizeHint() const override;
    bool isElided() const;

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
};

} // namespace gpurec::ui
