#pragma once
// How much larger a widget's text is than the application's (the presenter view enlarges the
// window's font): the views scale their own fixed label sizes by it.
#include <QApplication>
#include <QWidget>

namespace gpurec::ui {

inline double textScale(const QWidget& widget) {
    const double base = QApplication::font().pointSizeF(), own = widget.font().pointSizeF();
    return base > 0 && own > 0 ? own / base : 1.0;
}

} // namespace gpurec::ui
