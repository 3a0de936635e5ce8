#pragma once
// A combo box narrower than its current item's text draws that text elided ("…") rather than cut
// off mid-word, as Qt's own combo box does (the species-tree panel at QT_SCALE_FACTOR 1.5).
#include <QComboBox>

namespace gpurec::ui {

class ElidingComboBox : public QComboBox {
    Q_OBJECT
  public:
    explicit ElidingComboBox(QWidget* parent = nullptr);
    QString shownText() const; // the current text as it is drawn at the present width

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    QStyleOptionComboBox styleOption() const;
};

} // namespace gpurec::ui
