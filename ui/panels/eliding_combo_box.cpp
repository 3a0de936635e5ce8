#include "panels/eliding_combo_box.hpp"

#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace gpurec::ui {

ElidingComboBox::ElidingComboBox(QWidget* parent) : QComboBox(parent) {}

QStyleOptionComboBox ElidingComboBox::styleOption() const {
    QStyleOptionComboBox option;
    initStyleOption(&option);
    return option;
}

QString ElidingComboBox::shownText() const {
    QStyleOptionComboBox option = styleOption();
    const QRect text =
        style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, this);
    const int iconRoom = option.currentIcon.isNull() ? 0 : option.iconSize.width() + 4;
    return fontMetrics().elidedText(currentText(), Qt::ElideRight, text.width() - iconRoom);
}

void ElidingComboBox::paintEvent(QPaintEvent*) {
    QStylePainter painter(this);
    QStyleOptionComboBox option = styleOption();
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    option.currentText = shownText();
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

} // namespace gpurec::ui
