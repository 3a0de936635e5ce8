#pragma once
// A one-line label that may be narrower than its text. It can carry a compact form of its text
// (the same facts, shorter words) that it draws when the whole text does not fit; only when that
// does not fit either is it elided ("…"). Whenever it shows less than its text, the whole text is
// its tooltip. For status-bar fields, which otherwise clip on a small screen or at
// QT_SCALE_FACTOR 1.5.
#include <QLabel>

namespace gpurec::ui {

class ElidingLabel : public QLabel {
    Q_OBJECT
  public:
    explicit ElidingLabel(QWidget* parent = nullptr);
    // The text, and what to draw instead when it does not fit (empty: elide the text itself).
    void setTexts(const QString& text, const QString& compact);
    QSize minimumSizeHint() const override;
    bool isElided() const;     // draws less than text(): its compact form, or an elided line
    QString shownText() const; // what is drawn at the current width

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

  private:
    QString compact_;
    QString compactFor_; // the text the compact form belongs to: a plain setText() drops it
};

} // namespace gpurec::ui
