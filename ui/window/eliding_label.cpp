#include "window/eliding_label.hpp"

#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QToolTip>

namespace gpurec::ui {

ElidingLabel::ElidingLabel(QWidget* parent) : QLabel(parent) {
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void ElidingLabel::setTexts(const QString& text, const QString& compact) {
    compact_ = compact;
    compactFor_ = text;
    setText(text);
    update(); // the text may be unchanged while its compact form changed
}

QSize ElidingLabel::minimumSizeHint() const {
    const QMargins m = contentsMargins();
    return {fontMetrics().horizontalAdvance(QStringLiteral("…")) * 6 + m.left() + m.right(),
            QLabel::minimumSizeHint().height()};
}

bool ElidingLabel::isElided() const {
    return shownText() != text();
}

QString ElidingLabel::shownText() const {
    const int room = contentsRect().width();
    const QFontMetrics metrics = fontMetrics();
    if (metrics.horizontalAdvance(text()) <= room) return text();
    const QString shorter = compactFor_ == text() && !compact_.isEmpty() ? compact_ : text();
    return metrics.elidedText(shorter, Qt::ElideRight, room);
}

void ElidingLabel::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    style()->drawItemText(&painter, contentsRect(), Qt::AlignVCenter | Qt::AlignLeft, palette(), isEnabled(),
                          shownText(), foregroundRole());
}

bool ElidingLabel::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip && isElided()) {
        // The field's own tip says what it is; a shortened field adds what it could not show.
        const QString tip = toolTip().isEmpty() ? text() : text() + "\n\n" + toolTip();
        QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), tip, this);
        return true;
    }
    return QLabel::event(event);
}

} // namespace gpurec::ui
